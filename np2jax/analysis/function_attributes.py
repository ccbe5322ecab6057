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
    named: dict[str, cst.Attribute] = field(default_factory=dict)  # function name -> the first read
    dynamic: cst.Attribute | None = None  # `eval(...).__defaults__`: of a function named at run time

    def read_of(self, node: cst.FunctionDef) -> cst.Attribute | None:
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

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if node.attr.value not in FUNCTION_ONLY:
            return
        if isinstance(node.value, cst.Name):
            self.found.named.setdefault(node.value.value, node)
        elif isinstance(node.value, (cst.Call, cst.Subscript)) and node.attr.value in _DEFAULTS and self.found.dynamic is None:
            self.found.dynamic = node


def function_attribute_reads(module: cst.Module, source: str) -> FunctionAttributeReads:
    if not any(name in source for name in FUNCTION_ONLY):
        return FunctionAttributeReads()
    reads = _Reads()
    visit(module, reads)
    return reads.found
