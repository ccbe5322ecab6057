"""The Rule base class: a code, a message, a fix safety and its own examples.

A rule is one class in one file under ``np2jax/rules/``.  The engine walks each
module once and calls the hooks of every enabled rule; rules never print and
never touch the tree directly: they report diagnostics and, for rewriting
rules, ask the reference to be rewritten.  Each rule carries ``EXAMPLES``: the
test suite runs them and ``np2jax explain`` / ``docs/rules/`` render them.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from np2jax.diagnostics import FixSafety, Severity

if TYPE_CHECKING:
    import libcst as cst

    from np2jax.context import FileContext, FunctionInfo, NumpyRef


@dataclass(frozen=True)
class Example:
    """A before/after pair.  ``after=None`` means "must not change"."""

    before: str
    after: str | None = None
    diagnostics: tuple[str, ...] = ()
    title: str = ""

    @property
    def source(self) -> str:
        return textwrap.dedent(self.before).lstrip("\n")

    @property
    def expected(self) -> str:
        return self.source if self.after is None else textwrap.dedent(self.after).lstrip("\n")


@dataclass(frozen=True)
class RuleDoc:
    what: str
    why: str
    use_instead: str
    known_problems: str = "None known."


class Rule:
    """Base class of every rule.  Subclasses set the class attributes and hooks."""

    CODE: ClassVar[str]
    NAME: ClassVar[str]
    MESSAGE: ClassVar[str]
    SEVERITY: ClassVar[Severity]
    FIX_SAFETY: ClassVar[FixSafety] = FixSafety.NONE
    DOC: ClassVar[RuleDoc]
    EXAMPLES: ClassVar[tuple[Example, ...]] = ()
    # Examples run with `jax.jit` decoration only for the jit rules; the others show their own rewrite.
    EXAMPLES_JIT: ClassVar[bool] = False

    def on_numpy_ref(self, ref: NumpyRef, ctx: FileContext) -> None:
        """Called for each NumPy name used inside a function body."""

    def on_call(self, node: cst.Call, ctx: FileContext) -> None:
        """Called for every call inside a function body."""

    def rewrite_statement(
        self, original: cst.BaseSmallStatement, updated: cst.BaseSmallStatement, ctx: FileContext
    ) -> cst.BaseSmallStatement | None:
        """Called when leaving each assignment inside a function body; return a replacement or None."""
        return None

    def rewrite_line(
        self, original: cst.SimpleStatementLine, updated: cst.SimpleStatementLine, ctx: FileContext
    ) -> list[cst.BaseStatement] | None:
        """Called when leaving each one-statement line inside a function body; return replacement lines or None."""
        return None

    def rewrite_subscript(self, original: cst.Subscript, updated: cst.Subscript, ctx: FileContext) -> cst.BaseExpression | None:
        """Called when leaving each subscript inside a function body; return a replacement or None."""
        return None

    def rewrite_loop(self, original: cst.For | cst.While, updated: cst.For | cst.While, ctx: FileContext) -> list[cst.BaseStatement] | None:
        """Called when leaving each ``for`` or ``while`` loop inside a function body; return replacement statements or None."""
        return None

    def rewrite_conditional(
        self, original: cst.If | cst.IfExp, updated: cst.If | cst.IfExp, ctx: FileContext
    ) -> cst.BaseExpression | list[cst.BaseStatement] | None:
        """Called when leaving each ``if`` statement (return replacement statements) or conditional expression
        (return an expression) inside a function body; None keeps it."""
        return None

    def on_leave_function(self, info: FunctionInfo, ctx: FileContext) -> None:
        """Called when the walker leaves a function, before it decides whether to keep the rewrites."""

    def on_function_decided(self, info: FunctionInfo, ctx: FileContext) -> None:
        """Called when the walker has decided what becomes of an outermost function (module-level or a method):
        whether it keeps its rewrites and gets ``jax.jit``; ``info.nested`` are the functions inside it."""

    def report(
        self,
        ctx: FileContext,
        node: cst.CSTNode,
        message: str | None = None,
        use_instead: str | None = None,
        severity: Severity | None = None,
        exact: bool = False,
        statement: tuple | None = None,
    ) -> None:
        ctx.report(
            code=self.CODE,
            severity=severity or self.SEVERITY,
            node=node,
            message=message or self.MESSAGE,
            use_instead=self.DOC.use_instead if use_instead is None else use_instead,
            exact=exact,
            statement=statement,
        )
