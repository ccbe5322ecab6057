"""What rules see while the engine walks one file."""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst

from np2jax.analysis.resolve import Resolver
from np2jax.analysis.scope import Scope
from np2jax.diagnostics import Diagnostic, Severity
from np2jax.tables import ApiRow


@dataclass(eq=False)
class NumpyRef:
    """One use of a NumPy name inside a function body.

    ``node`` is the whole reference (``np.linalg.norm``), ``call`` the call it
    is the callee of, if any.  ``member`` is what follows the table row's name
    (``"at"`` for ``np.add.at``).  Rules may ``block()`` the rewrite; the
    rewriting rule sets ``rewrite`` to a qualified ``jax.numpy`` name.
    """

    node: cst.BaseExpression
    qualname: str
    row: ApiRow | None
    member: str
    call: cst.Call | None
    scope: Scope
    blocked: bool = False
    rewrite: str | None = None
    wrap_args: set[int] = field(default_factory=set)

    def block(self) -> None:
        self.blocked = True

    @property
    def name(self) -> str:
        """The NumPy name as users write it: ``np.linalg.norm`` -> ``linalg.norm``."""
        return self.qualname[len("numpy."):] if self.qualname.startswith("numpy.") else self.qualname


@dataclass(eq=False)
class FunctionInfo:
    qualname: str
    node: cst.FunctionDef
    line: int
    end_line: int = 0
    jit: bool = False
    static_argnums: tuple[int, ...] = ()


class FileContext:
    """Per-file state shared by the walker and the rules."""

    def __init__(self, path: str, module: cst.Module, resolver: Resolver, source_lines: list[str]) -> None:
        self.path = path
        self.module = module
        self.resolver = resolver
        self.source_lines = source_lines
        self.diagnostics: list[Diagnostic] = []
        self.line = 1  # kept current by the walker
        self.scope: Scope = resolver.scopes[module]
        self.jnp_alias = "jnp"
        self.jnp_used = False

    # --- helpers for rules -------------------------------------------------
    def is_static(self, node: cst.BaseExpression) -> bool:
        return self.resolver.is_static(node, self.scope)

    def qualname(self, node: cst.BaseExpression) -> str | None:
        return self.resolver.qualname(node, self.scope)

    def code(self, node: cst.CSTNode) -> str:
        return self.module.code_for_node(node)

    def report(self, code: str, severity: Severity, node: cst.CSTNode, message: str, use_instead: str) -> None:
        line, col, end_line, end_col = self.span(node)
        self.diagnostics.append(
            Diagnostic(code, severity, message, self.path, line, col, end_line, end_col, use_instead)
        )

    def span(self, node: cst.CSTNode) -> tuple[int, int, int, int]:
        """1-based (line, col, end_line, end_col) of ``node`` in the original source.

        The walker knows the line; the column is found by locating the node's
        first line of code on that source line.
        """
        text = self.code(node).lstrip(" \t\r\n(\\").rstrip()
        lines = text.split("\n")
        first = lines[0].rstrip("\r")
        line = self.line
        while line <= len(self.source_lines) and first and first not in self.source_lines[line - 1]:
            line += 1  # the node starts after a newline inside its own parentheses
        if line > len(self.source_lines):
            line = self.line
        source_line = self.source_lines[line - 1] if line <= len(self.source_lines) else ""
        col = max(source_line.find(first), 0) + 1 if first else 1
        end_line = line + len(lines) - 1
        end_col = col + len(first) if len(lines) == 1 else len(lines[-1]) + 1
        return line, col, end_line, end_col
