"""What kind of index is ``x[...]``: basic (ints, slices), a boolean mask of ``x`` itself, or unknown."""

from __future__ import annotations

from typing import Sequence

import libcst as cst

from np2jax.analysis.resolve import Resolver, is_numpy
from np2jax.analysis.scope import LoopBinding, Scope, ValueBinding

INT_BUILTINS = frozenset({"builtins.len", "builtins.int", "builtins.round", "builtins.abs", "builtins.min", "builtins.max", "builtins.sum"})
INT_ATTRIBUTES = frozenset({"ndim", "size", "itemsize", "nbytes"})
SCALAR_REDUCTIONS = frozenset({"argmax", "argmin", "count_nonzero"})
ELEMENTWISE_PREDICATES = frozenset({"isnan", "isinf", "isfinite", "isneginf", "isposinf", "signbit", "logical_not"})
COMPARISON_OPERATORS = (cst.LessThan, cst.LessThanEqual, cst.GreaterThan, cst.GreaterThanEqual, cst.Equal, cst.NotEqual)


class IndexClassifier:
    def __init__(self, resolver: Resolver, scope: Scope) -> None:
        self.resolver = resolver
        self.scope = scope
        self._visiting: set[str] = set()

    def is_int(self, expr: cst.BaseExpression) -> bool:
        """Certainly a single integer (a Python int or a 0-d integer array), never an index array."""
        if isinstance(expr, cst.Integer):
            return True
        if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, (cst.Minus, cst.Plus)):
            return self.is_int(expr.expression)
        if isinstance(expr, cst.BinaryOperation) and isinstance(
            expr.operator, (cst.Add, cst.Subtract, cst.Multiply, cst.FloorDivide, cst.Modulo)
        ):
            return self.is_int(expr.left) and self.is_int(expr.right)
        if isinstance(expr, cst.Attribute):
            return expr.attr.value in INT_ATTRIBUTES
        if isinstance(expr, cst.Subscript):  # x.shape[0]
            value = expr.value
            return isinstance(value, cst.Attribute) and value.attr.value == "shape" and all(
                isinstance(e.slice, cst.Index) and self.is_int(e.slice.value) for e in expr.slice
            )
        if isinstance(expr, cst.Call):
            qualname = self.resolver.qualname(expr.func, self.scope)
            if qualname in INT_BUILTINS:
                return qualname != "builtins.sum" or all(self.is_int(a.value) for a in expr.args)
            if is_numpy(qualname) and qualname.rsplit(".", 1)[1] in SCALAR_REDUCTIONS:
                return not any(a.keyword is not None and a.keyword.value == "axis" for a in expr.args) and len(
                    [a for a in expr.args if a.keyword is None]
                ) == 1
            return False
        if isinstance(expr, cst.Name):
            return self._name_is_int(expr.value)
        return False

    def _name_is_int(self, name: str) -> bool:
        if name in self._visiting:
            return True  # i = i + 1 in a loop: an int if every other binding is
        found, bindings = self.scope.lookup(name)
        if found is None or not bindings:
            return False
        self._visiting.add(name)
        try:
            for binding in bindings:
                if isinstance(binding, ValueBinding):
                    if not self.is_int(binding.value):
                        return False
                elif isinstance(binding, LoopBinding):
                    if not self._loop_yields_ints(binding.iterable, binding.position):
                        return False
                else:
                    return False
            return True
        finally:
            self._visiting.discard(name)

    def _loop_yields_ints(self, iterable: cst.BaseExpression, position: tuple[int, ...]) -> bool:
        """Does iterating ``iterable`` put an int at ``position`` of the loop target?"""
        if not isinstance(iterable, cst.Call):
            return False
        qualname = self.resolver.qualname(iterable.func, self.scope)
        args = [arg.value for arg in iterable.args if arg.keyword is None and not arg.star]
        if qualname == "builtins.range":
            return position == ()
        if qualname == "builtins.reversed" and len(args) == 1:
            return self._loop_yields_ints(args[0], position)
        if qualname == "builtins.enumerate" and position[:1] == (0,):
            return len(position) == 1
        if qualname == "builtins.enumerate" and position[:1] == (1,) and args:
            return self._loop_yields_ints(args[0], position[1:])
        if qualname == "builtins.zip" and position and 0 <= position[0] < len(args):
            return self._loop_yields_ints(args[position[0]], position[1:])
        return False

    def is_basic(self, elements: Sequence[cst.SubscriptElement]) -> bool:
        """Integers, slices, ``...`` and ``None`` only: every element is written at most once."""
        for element in elements:
            index = element.slice
            if isinstance(index, cst.Slice):
                continue
            value = index.value
            if isinstance(value, cst.Ellipsis) or (isinstance(value, cst.Name) and value.value == "None"):
                continue
            if isinstance(value, cst.Tuple):
                if not self.is_basic([cst.SubscriptElement(cst.Index(e.value)) for e in value.elements]):
                    return False
                continue
            if not self.is_int(value):
                return False
        return True

    def is_mask_of(self, elements: Sequence[cst.SubscriptElement], name: str) -> bool:
        """A boolean mask computed elementwise from ``name`` itself, so it has exactly its shape."""
        if len(elements) != 1 or not isinstance(elements[0].slice, cst.Index):
            return False
        return self._mask(elements[0].slice.value, name)

    def _mask(self, expr: cst.BaseExpression, name: str) -> bool:
        if isinstance(expr, cst.Comparison):
            if len(expr.comparisons) != 1 or not isinstance(expr.comparisons[0].operator, COMPARISON_OPERATORS):
                return False
            operands = [expr.left, expr.comparisons[0].comparator]
            return any(self._is_name(o, name) for o in operands) and all(
                self._is_name(o, name) or self.resolver.is_static(o, self.scope) for o in operands
            )
        if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, (cst.BitAnd, cst.BitOr, cst.BitXor)):
            return self._mask(expr.left, name) and self._mask(expr.right, name)
        if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.BitInvert):
            return self._mask(expr.expression, name)
        if isinstance(expr, cst.Call):
            qualname = self.resolver.qualname(expr.func, self.scope) or ""
            is_predicate = (is_numpy(qualname) or qualname.startswith("jax.numpy.")) and qualname.rsplit(".", 1)[1] in ELEMENTWISE_PREDICATES
            return is_predicate and len(expr.args) == 1 and self._is_name(expr.args[0].value, name)
        return False

    @staticmethod
    def _is_name(expr: cst.BaseExpression, name: str) -> bool:
        return isinstance(expr, cst.Name) and expr.value == name and not expr.lpar
