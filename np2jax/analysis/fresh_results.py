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
        self._container_verdicts: dict[cst.FunctionDef, bool] = {}

    def is_fresh_call(self, expr: cst.BaseExpression, scope: Scope) -> bool:
        """``expr`` calls, by name, a module-level function of this module whose results are always fresh arrays."""
        function = self._module_function(expr, scope)
        return function is not None and self._returns_fresh(function)

    def fresh_container_call(self, expr: cst.BaseExpression, scope: Scope) -> str | None:
        """"dict" or "list" when ``expr`` calls, by name, a module-level function of this module each of whose
        results is a new dict (or each a new list) whose items are new arrays or numbers (``def init(n): return
        {"W": np.zeros((n, n)), "b": 0.0}``): nothing else refers to the container or its items. Else None."""
        function = self._module_function(expr, scope)
        if function is None:
            return None
        if function not in self._container_verdicts:
            self._container_verdicts[function] = None  # while deciding (recursion): not proven
            self._container_verdicts[function] = self._decide_container(function)
        return self._container_verdicts[function]

    def fresh_container_name(self, name: str, scope: Scope) -> str | None:
        """"dict" or "list" when every binding of ``name`` in ``scope`` is a call ``fresh_container_call`` accepts, all
        of that kind (``params = init_params(n)``); else None."""
        bindings = scope.bindings.get(name, ())
        kinds = {self.fresh_container_call(b.value, scope) if isinstance(b, ValueBinding) and not b.augmented else None
                 for b in bindings}
        return kinds.pop() if len(kinds) == 1 else None

    def returned_state(self, expr: cst.BaseExpression, scope: Scope, depth: int = 0) -> str | None:
        """When ``expr`` calls, by name, a module-level function of this module that returns module-level state
        (``return STATE``, ``return CACHE[key]``, ``return registry.arrays``), also through the call of another such
        function it returns (``return get_state()``, hunt53 S4): that returned expression's code, which NumPy's
        ``y = get(); y -= 1`` updates in place (the rebinding JAX makes does not). Else None."""
        function = self._module_function(expr, scope)
        found = self._plain_returns(function) if function is not None and depth < 4 else None
        if found is None:
            return None
        inner, returns = found
        for value in returns:
            through = self.returned_state(value, inner, depth + 1) if isinstance(value, cst.Call) else None
            if through is not None:
                return through
            base = value
            while isinstance(base, (cst.Subscript, cst.Attribute)):
                base = base.value
            if isinstance(base, cst.Name):
                owner, bindings = inner.lookup(base.value)
                if owner is self.module_scope and bindings and all(isinstance(b, ValueBinding) for b in bindings) and any(
                        not isinstance(b.value, _IMMUTABLE) for b in bindings):  # (`EPS = 1e-8` is a number)
                    return cst.Module(body=[]).code_for_node(value)
        return None

    def _module_function(self, expr: cst.BaseExpression, scope: Scope) -> cst.FunctionDef | None:
        if not isinstance(expr, cst.Call) or not isinstance(expr.func, cst.Name):
            return None
        found, bindings = scope.lookup(expr.func.value)
        if found is not self.module_scope or len(bindings) != 1 or not isinstance(bindings[0], DefBinding):
            return None
        function = bindings[0].node
        return function if isinstance(function, cst.FunctionDef) else None

    def _decide_container(self, function: cst.FunctionDef) -> str | None:
        """Every ``return`` returns a display of new items, or a local list or dict whose items are all new and
        of which nothing is taken out or handed on (analysis/container_items.py, run in ``function``)."""
        from np2jax.analysis.aliasing import FunctionAliasing, is_fresh_array  # aliasing imports this module
        from np2jax.analysis.container_items import new_items_display

        found = self._plain_returns(function)
        if found is None:
            return None
        scope, returns = found
        aliasing = FunctionAliasing(function, scope, self.resolver, fresh_results=self)

        def fresh(expr: cst.BaseExpression) -> bool:
            return is_fresh_array(expr, self.resolver, scope) or self.is_fresh_call(expr, scope)

        kinds = set()
        for value in returns:
            if value is not None and new_items_display(value, fresh):
                kinds.add("dict" if isinstance(value, (cst.Dict, cst.DictComp)) else "list")
            elif isinstance(value, cst.Name) and aliasing.is_container(value.value) and aliasing.container_item_blocker(
                    value.value) is None:
                kinds.add(aliasing.container_kind(value.value))
            else:
                return None
        return kinds.pop() if len(kinds) == 1 else None

    def _plain_returns(self, function: cst.FunctionDef) -> tuple[Scope, list] | None:
        """``function``'s scope and the values of its ``return`` statements; None for a decorated, async or
        generator function, one declaring globals or nonlocals, or one that returns nothing."""
        if function.decorators or function.asynchronous:
            return None
        scope = self.resolver.scopes.get(function)
        if scope is None or scope.globals or scope.nonlocals:
            return None
        returns = _Returns()
        visit(function.body, returns)
        if returns.yields or not returns.values:
            return None
        return scope, returns.values

    def _returns_fresh(self, function: cst.FunctionDef) -> bool:
        if function not in self._verdicts:
            self._verdicts[function] = False  # while deciding (recursion): not proven
            self._verdicts[function] = self._decide(function)
        return self._verdicts[function]

    def _decide(self, function: cst.FunctionDef) -> bool:
        from np2jax.analysis.aliasing import _AliasChecker, is_fresh_array  # aliasing imports this module

        found = self._plain_returns(function)
        if found is None:
            return False
        scope, returns = found

        def fresh(expr: cst.BaseExpression) -> bool:
            return is_fresh_array(expr, self.resolver, scope) or self.is_fresh_call(expr, scope)

        for value in returns:
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


_IMMUTABLE = (cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString, cst.ConcatenatedString, cst.UnaryOperation,
              cst.Tuple)


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
