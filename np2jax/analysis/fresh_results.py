"""Functions of the module whose every result is a new array: ``r = ranks(x); r -= r.mean()`` then writes
into an array no other name holds.

The alias check (aliasing.py) takes an unknown function's result to be possibly its argument or a view of
it (``def f(x): return x.T``), so writes into ``r`` stay reported.  A module-level function of the same
module each of whose ``return`` statements returns a fresh array (an arithmetic result, a constructor, a
copy ..., a local name only ever bound to such values and never stored or handed elsewhere, or the result
of another such function) hands back an array nothing else refers to: NumPy's in-place writes into it and
JAX's rebinding agree.
"""

from __future__ import annotations

import libcst as cst

from np2jax.analysis.resolve import Resolver, is_numpy
from np2jax.analysis.scope import DefBinding, Scope, ValueBinding
from np2jax.visitors import FastVisitor, visit


class FreshResults:
    def __init__(self, module: cst.Module, resolver: Resolver) -> None:
        self.resolver = resolver
        self.module_scope = resolver.scopes[module]
        self._verdicts: dict[cst.FunctionDef, bool] = {}

    def is_fresh_call(self, expr: cst.BaseExpression, scope: Scope) -> bool:
        """``expr`` calls, by name, a module-level function of this module whose results are always fresh arrays."""
        if not isinstance(expr, cst.Call) or not isinstance(expr.func, cst.Name):
            return False
        found, bindings = scope.lookup(expr.func.value)
        if found is not self.module_scope or len(bindings) != 1 or not isinstance(bindings[0], DefBinding):
            return False
        function = bindings[0].node
        return isinstance(function, cst.FunctionDef) and self._returns_fresh(function)

    def _returns_fresh(self, function: cst.FunctionDef) -> bool:
        if function not in self._verdicts:
            self._verdicts[function] = False  # while deciding (recursion): not proven
            self._verdicts[function] = self._decide(function)
        return self._verdicts[function]

    def _decide(self, function: cst.FunctionDef) -> bool:
        from np2jax.analysis.aliasing import _AliasChecker, is_fresh_array  # aliasing imports this module

        if function.decorators or function.asynchronous:
            return False
        scope = self.resolver.scopes.get(function)
        if scope is None or scope.globals or scope.nonlocals:
            return False
        returns = _Returns()
        visit(function.body, returns)
        if returns.yields or not returns.values:
            return False

        def fresh(expr: cst.BaseExpression) -> bool:
            return is_fresh_array(expr, self.resolver, scope) or self.is_fresh_call(expr, scope)

        for value in returns.values:
            if value is None or fresh(value):
                continue
            if not isinstance(value, cst.Name):
                return False
            bindings = scope.bindings.get(value.value, ())
            if not bindings or not all(isinstance(b, ValueBinding) and (b.augmented or fresh(b.value)) for b in bindings):
                return False
            checker = _AliasChecker(value.value, self.resolver, scope)
            visit(function.body, checker)
            if checker.reason is not None or checker.hand_offs or _handed_to_calls(function.body, value.value, self.resolver, scope):
                return False
        return True


def _handed_to_calls(body: cst.CSTNode, name: str, resolver: Resolver, scope: Scope) -> bool:
    """``name`` is an argument of a call other than NumPy's (which may keep it)."""
    finder = _Arguments(name)
    visit(body, finder)
    return any(not is_numpy(resolver.qualname(call.func, scope)) for call in finder.calls)


class _Arguments(FastVisitor):
    def __init__(self, name: str) -> None:
        self.name = name
        self.calls: list[cst.Call] = []

    def visit_Call(self, node: cst.Call) -> None:
        if any(isinstance(arg.value, cst.Name) and arg.value.value == self.name for arg in node.args):
            self.calls.append(node)


class _Returns(FastVisitor):
    """The values of a function's own ``return`` statements (None for a bare ``return``), and whether it yields."""

    def __init__(self) -> None:
        self.values: list[cst.BaseExpression | None] = []
        self.yields = False

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        return False

    def visit_Return(self, node: cst.Return) -> None:
        self.values.append(node.value)

    def visit_Yield(self, node: cst.Yield) -> None:
        self.yields = True
