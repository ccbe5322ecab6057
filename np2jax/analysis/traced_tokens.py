"""Tokens: what each expression of a traced function is computed from.

Every expression gets a set of *tokens*: the parameters it is computed from, plus
``ARRAY`` when it comes out of an array computation (a NumPy or jax.numpy call, an
ndarray method, a function of this module that returns an array), plus
``<index:i>`` when it depends on the index of a loop that becomes
``jax.lax.fori_loop`` (or on a value that loop carries).  Shapes (``x.shape``,
``len(x)``, ``x.ndim``) carry no tokens: they are static whatever ``x`` is.  A
value with no tokens is a Python value at trace time; one with only parameter
tokens is one if those parameters become static.
"""

from __future__ import annotations

from typing import Iterable

import libcst as cst

from np2jax.analysis.branches import if_chain
from np2jax.analysis.resolve import SHAPE_ATTRIBUTES, is_numpy, is_scipy
from np2jax.analysis.scope import DefBinding, ImportBinding, LoopBinding, ParamBinding, Scope, ValueBinding
from np2jax.analysis.tracing_tables import ARRAY, ARRAY_METHODS
from np2jax.tables import lookup_numpy

_IN_PROGRESS = frozenset({"<in progress>"})  # a distinct object: tokens() is computing this value


# Functions that read only an array's shape: their result is static whatever the array is
SHAPE_READERS = frozenset(f"{module}.{name}" for module in ("numpy", "jax.numpy") for name in ("ndim", "shape", "size"))


class TracedTokens:
    """The token computation of ``FunctionTracing`` (analysis/function_tracing.py), memoised per (node, scope).

    It reads the function's scopes, the names its converted loops carry (``carried``,
    ``traced_iterables``), the branch owners of ``decisions`` and the plans of the
    module's other functions.
    """

    def tokens(self, node: cst.BaseExpression, scope: Scope | None = None) -> frozenset[str]:
        """The tokens of ``node``, a union over the values it is computed from (a fixpoint through cycles:
        ``x = x + a`` in a loop). A value met again while it is being computed adds nothing there; what was
        computed meanwhile, inside the cycle, misses that value: it is remembered only until the cycle's
        head is done (then complete), and computed again if asked for later."""
        scope = scope or self.scope
        key = (id(node), id(scope))
        found = self._tokens.get(key)
        if found is _IN_PROGRESS:
            self._cut.add(key)
            return frozenset()
        if found is not None:
            return found
        self._tokens[key] = _IN_PROGRESS
        result = frozenset(self._compute(node, scope))
        self._cut.discard(key)
        self._tokens[key] = result
        if self._cut:  # misses what a value still being computed will hold
            self._tainted.append(key)
        elif self._tainted:  # every cycle head is done: forget what was computed without them
            for tainted in self._tainted:
                del self._tokens[tainted]
            self._tainted.clear()
        return result

    def forget_tokens(self) -> None:
        """Drop every memoised value: called when a loop's conversion makes its index and carried names
        traced, so that tokens computed while deciding it (its body's values, read by ``_becomes_array``)
        are computed again with them."""
        self._tokens.clear()
        self._tainted.clear()

    def _union(self, nodes: Iterable[cst.BaseExpression | None], scope: Scope) -> set[str]:
        result: set[str] = set()
        for node in nodes:
            if node is not None:
                result |= self.tokens(node, scope)
        return result

    def _compute(self, node: cst.BaseExpression, scope: Scope) -> set[str]:
        kind = type(node)  # (exact types: none of those below has subclasses, and libcst's isinstance is slow)
        if kind is cst.Name:
            return self._name_tokens(node.value, scope)
        if kind is cst.Attribute:
            if node.attr.value in SHAPE_ATTRIBUTES:
                return set()
            if self.resolver.qualname(node, scope) is not None:
                return set()  # an attribute of an imported module
            return set(self.tokens(node.value, scope))
        if kind is cst.Subscript:
            counted = self.counted_mask(node)
            if counted is not None:  # `X[m].shape[0]`: how many `m` holds, traced
                return self.tokens(counted[1], scope) | {ARRAY}
            result = set(self.tokens(node.value, scope))
            for element in node.slice:
                index = element.slice
                if isinstance(index, cst.Index):
                    result |= self.tokens(index.value, scope)
                else:
                    result |= self._union((index.lower, index.upper, index.step), scope)
            return result
        if kind is cst.BinaryOperation or kind is cst.BooleanOperation:
            return self._union((node.left, node.right), scope)
        if kind is cst.UnaryOperation:
            return set(self.tokens(node.expression, scope))
        if kind is cst.Comparison:
            if all(isinstance(c.operator, (cst.Is, cst.IsNot)) for c in node.comparisons):
                return set()  # identity: a Python bool even for traced values
            return self._union([node.left, *(c.comparator for c in node.comparisons)], scope)
        if kind is cst.Tuple or kind is cst.List or kind is cst.Set:
            return self._union((e.value for e in node.elements), scope)
        if kind is cst.Dict:
            return self._union((e.value for e in node.elements), scope)
        if kind is cst.IfExp:
            return self._union((node.test, node.body, node.orelse), scope)
        if kind is cst.Call:
            return self._call_tokens(node, scope)
        if kind in _COMPREHENSIONS:
            inner = self.resolver.scopes.get(node, scope)
            parts = [node.key, node.value] if isinstance(node, cst.DictComp) else [node.elt]
            result = self._union(parts, inner)
            level = node.for_in
            while level is not None:
                result |= self.tokens(level.iter, inner if level is not node.for_in else scope)
                level = level.inner_for_in
            return result
        if kind is cst.NamedExpr:
            return set(self.tokens(node.value, scope))
        if kind in _CONSTANTS:
            return set()
        if kind is cst.FormattedString:
            return self._union((p.expression for p in node.parts if isinstance(p, cst.FormattedStringExpression)), scope)
        return {ARRAY}

    def _name_tokens(self, name: str, scope: Scope) -> set[str]:
        if name in ("True", "False", "None"):
            return set()
        found, bindings = scope.lookup(name)
        if found is None or found.kind in ("module", "class"):
            return set()
        result: set[str] = set()
        if found is self.function_scope and name in self.carried:
            result.add(f"<index:{name}>")
        for binding in bindings:
            if isinstance(binding, ParamBinding):
                if found is self.function_scope:
                    result.add(name)
                else:
                    result.add(ARRAY)  # a parameter of a nested function or lambda: unknown
            elif isinstance(binding, ValueBinding):
                result |= self.tokens(binding.value, found)
                owner = self.decisions.sites.owner.get(binding.value) if found is self.function_scope else None
                if owner is not None:  # assigned in a branch: its value depends on the tests too
                    result |= self._union(if_chain(owner)[0], found)
            elif isinstance(binding, LoopBinding):
                result |= self._loop_tokens(binding, found)
            elif isinstance(binding, (ImportBinding, DefBinding)):
                continue
            else:
                result.add(ARRAY)
        return result

    def _loop_tokens(self, binding: LoopBinding, scope: Scope) -> set[str]:
        iterable = binding.iterable
        position = binding.position
        index = self.traced_iterables.get(iterable)
        if index is not None:
            if isinstance(iterable, cst.Call) and self.resolver.qualname(iterable.func, scope) == "builtins.range":
                return {index}
            if position and position[0] == 0:  # enumerate's counter
                return {index}
            return {index, ARRAY} | self.tokens(iterable, scope)
        if isinstance(iterable, cst.Call):
            qualname = self.resolver.qualname(iterable.func, scope)
            args = [a.value for a in iterable.args if a.keyword is None and not a.star]
            if qualname == "builtins.range":
                return self._union(args, scope)
            if qualname == "builtins.enumerate" and position and args:
                return set() if position[0] == 0 else set(self.tokens(args[0], scope))
            if qualname == "builtins.zip" and position and 0 <= position[0] < len(args):
                return set(self.tokens(args[position[0]], scope))
        return set(self.tokens(iterable, scope))

    def _call_tokens(self, node: cst.Call, scope: Scope) -> set[str]:
        args = self._union((a.value for a in node.args), scope)
        func = node.func
        qualname = self.resolver.qualname(func, scope)
        if qualname is not None:
            counted = self.counted_mask(node) if qualname == "builtins.len" else None
            if counted is not None:
                return self.tokens(counted[1], scope) | {ARRAY}  # `len(X[m])`: a count of `m`
            if qualname in ("builtins.len", "builtins.isinstance", "builtins.type", "builtins.hasattr", "builtins.callable"):
                return set()
            if qualname in SHAPE_READERS:  # `np.ndim(m)`: known at trace time, as `m.ndim` is
                return set()
            if qualname == "builtins.getattr" and len(node.args) >= 2 and isinstance(node.args[1].value, cst.SimpleString) \
                    and node.args[1].value.evaluated_value in SHAPE_ATTRIBUTES:
                return self._union((a.value for a in node.args[2:]), scope)  # `getattr(x, "shape", ())`: as `x.shape`
            if is_numpy(qualname) or qualname.startswith("jax."):
                if self.resolver.is_static(node, scope):
                    return args  # static only if the parameters it reads are (shape-named ones are assumed so)
                row = lookup_numpy(qualname) if is_numpy(qualname) else None
                if row is not None and row.kind in ("dtype", "static", "type", "constant"):
                    return args
                return args | {ARRAY}
            if qualname.startswith(("builtins.", "math.")):
                return args
            if is_scipy(qualname) and not self.resolver.args_static(node, scope):
                # its jax.scipy twin (rules/foreign_array_library.py) gives a traced array under jit, even of
                # arguments jit keeps static (real27: `not (e <= upper)` with `k = stats.norm.ppf((1 - alpha) / 2)`)
                return args | {ARRAY}
        if isinstance(func, cst.Name):
            found, _ = scope.lookup(func.value)
            if found is self.module.module_scope and self.module.function_node(func.value) is not None:
                plan = self.module.plan(func.value)
                return args | ({ARRAY} if plan is None or plan.returns_array else set())
            return args | self.tokens(func, scope)
        if isinstance(func, cst.Attribute):
            base = self.tokens(func.value, scope)
            if (func.attr.value in ARRAY_METHODS or func.attr.value == "copy") and (base or args):
                return base | args | {ARRAY}
            return base | args
        return args | {ARRAY}


_COMPREHENSIONS = frozenset({cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp})
_CONSTANTS = frozenset({cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString, cst.ConcatenatedString, cst.Ellipsis, cst.Lambda})
