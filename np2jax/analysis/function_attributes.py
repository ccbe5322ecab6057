"""Reads of a function object's own attributes that a jitted function does not have.

``jax.jit`` returns a wrapper that carries ``__name__``, ``__doc__``, ``__wrapped__`` and a signature
``inspect`` follows, but no ``__defaults__``, ``__kwdefaults__``, ``__code__``, ``__globals__`` or
``__closure__``: ``window_kaiser.__defaults__[0]`` raises AttributeError once ``window_kaiser`` is jitted.
spectrum reads the defaults of a window function it names at run time,
``eval(window_names[name]).__defaults__[0]``: there any function with defaults may be the one read.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst

from np2jax.visitors import FastVisitor, visit

FUNCTION_ONLY = frozenset({"__defaults__", "__kwdefaults__", "__code__", "__globals__", "__closure__"})
_DEFAULTS = frozenset({"__defaults__", "__kwdefaults__"})


@dataclass
class FunctionAttributeReads:
    named: dict[str, cst.CSTNode] = field(default_factory=dict)  # function name -> the first read
    dynamic: cst.CSTNode | None = None  # `eval(...).__defaults__`: of a function named at run time

    def read_of(self, node: cst.FunctionDef) -> cst.CSTNode | None:
        """The read that keeps ``node`` (a module-level function) from being jitted, if any."""
        found = self.named.get(node.name.value)
        if found is None and self.dynamic is not None and _has_defaults(node.params):
            found = self.dynamic
        return found


def _has_defaults(params: cst.Parameters) -> bool:
    return any(p.default is not None for p in (*params.posonly_params, *params.params, *params.kwonly_params))


class _Reads(FastVisitor):
    def __init__(self) -> None:
        self.found = FunctionAttributeReads()

    def visit_Call(self, node: cst.Call) -> None:
        """``getattr(scale, "__defaults__")``."""
        if (isinstance(node.func, cst.Name) and node.func.value in ("getattr", "hasattr") and len(node.args) >= 2
                and isinstance(node.args[1].value, cst.SimpleString) and node.args[1].value.evaluated_value in FUNCTION_ONLY):
            self._read(node.args[0].value, node.args[1].value.evaluated_value, node)

    def visit_Attribute(self, node: cst.Attribute) -> None:
        self._read(node.value, node.attr.value, node)

    def _read(self, owner: cst.BaseExpression, attribute: str, node: cst.CSTNode) -> None:
        if attribute not in FUNCTION_ONLY:
            return
        if isinstance(owner, cst.Name):
            self.found.named.setdefault(owner.value, node)
        elif isinstance(owner, (cst.Call, cst.Subscript)) and attribute in _DEFAULTS and self.found.dynamic is None:
            self.found.dynamic = node



def function_attribute_reads(module: cst.Module, source: str) -> FunctionAttributeReads:
    if not any(name in source for name in FUNCTION_ONLY):
        return FunctionAttributeReads()
    reads = _Reads()
    visit(module, reads)
    return reads.found
