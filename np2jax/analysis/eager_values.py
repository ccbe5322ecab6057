"""NumPy calls whose results Python itself uses, in a function that is not jitted: they stay NumPy.

The tracing analysis (analysis/function_tracing.py) knows the places where Python
needs a value as a Python value: an ``if``/``while`` test, ``and``/``or``/``not``,
``float()``/``int()``'s argument, a size or a slice bound, and the places where even
eagerly a JAX scalar is no stand-in for a NumPy or Python number: a repetition count
(``[0] * n`` raises), a set member or dict key (a JAX array is unhashable),
``round()``'s argument (the result is an array, not a number), a type check
(``isinstance(x, float)`` is False for a JAX scalar).  When such a value comes out of
a NumPy call, ``jax.jit`` is out of the question (NPJ301), but the function is still
migrated, to run eagerly.  The np -> jnp rewrite gains nothing at such a place (Python
waits for the device and reads the value back), so the NumPy calls producing the
value, and those producing their arguments, stay NumPy: exact by construction, since
they run what the original ran (an argument that became a JAX array converts back to
NumPy inside the call).  A check function (``if np.abs(lat).max() > 90: raise``)
then stays exactly as it was.

``EagerValues.kept(function, python_values)`` follows each such value back through
the function's own names (assignments, ``for`` targets, arithmetic, indexing,
methods) to the NumPy calls computing it (and their arguments).  It keeps none whose NumPy result
(or a value NumPy computes from it) may reach a name written in place (``x[i] = v``,
``x.sort()``, ``out=x``) or used in a nested function: those writes become
``x = x.at[i].set(v)``, which needs a JAX array.
"""

from __future__ import annotations

import libcst as cst

from np2jax.analysis.inplace_calls import may_be_inplace_call
from np2jax.analysis.resolve import SHAPE_ATTRIBUTES, Resolver, is_numpy
from np2jax.analysis.scope import LoopBinding, Scope, ValueBinding
from np2jax.analysis.tracing_tables import STATIC_PARAMETERS
from np2jax.analysis.values import nodes_of
from np2jax.tables import lookup_numpy, positional_parameter
from np2jax.tables.jax_signatures import SIGNATURES
from np2jax.visitors import FastVisitor, visit

# Builtins whose result holds (or is one of) their arguments' values: followed into the arguments.
CARRYING_BUILTINS = frozenset("list tuple sorted reversed enumerate zip set frozenset min max sum abs round iter".split())
# itertools functions whose items are (or are computed from) their arguments' elements:
# `for combo in itertools.product(grid, repeat=k)` then `round(x, 8) for x in combo` (pyDOE3's sparse grid)
CARRYING_ITERTOOLS = frozenset(f"itertools.{name}" for name in (
    "product", "permutations", "combinations", "combinations_with_replacement", "chain", "islice", "zip_longest",
    "cycle", "repeat", "accumulate", "compress", "dropwhile", "takewhile", "pairwise"))
# Methods whose result is a Python value already (``x.item()``), or a new array of another kind (``x.shape``).
PYTHON_METHODS = frozenset({"item", "tolist", "__len__"})
ARRAY_MUTATORS = frozenset({"sort", "fill", "put", "itemset", "resize", "setflags", "partition"})


class EagerValues:
    """Per module: the NumPy calls each non-jitted function keeps (``kept``), memoised."""

    def __init__(self, resolver: Resolver) -> None:
        self.resolver = resolver
        self._kept: dict[cst.FunctionDef, frozenset[cst.Call]] = {}

    def kept(self, function: cst.FunctionDef, python_values: list[tuple[cst.BaseExpression, Scope]]) -> frozenset[cst.Call]:
        """The NumPy calls of ``function`` that compute the values its Python code uses as Python values
        (``python_values``: from its jit plan, with their scopes) and whose NumPy results nothing writes in place."""
        found = self._kept.get(function)
        if found is None:
            found = self._kept[function] = frozenset(self._find(function, python_values))
        return found

    def _find(self, function: cst.FunctionDef, python_values) -> set[cst.Call]:
        own = self.resolver.scopes[function]
        candidates: set[cst.Call] = set()
        for node, scope in python_values:
            if _within(scope, own):  # (in a nested function it runs when called, maybe elsewhere)
                sources = _Sources(self.resolver, own)
                sources.follow(node, scope)
                if not sources.unsure:
                    candidates |= sources.calls
        if not candidates:
            return set()
        flow = _Flow(function, self.resolver)
        return {call for call in candidates if not flow.reaches_write(call)}


def _within(scope: Scope | None, function: Scope) -> bool:
    """``scope`` is ``function``'s own, or a comprehension in it."""
    while scope is not function:
        if scope is None or scope.kind != "comprehension":
            return False
        scope = scope.parent
    return True


class _Sources:
    """The outermost NumPy calls a value is computed by, and the local names it goes through."""

    def __init__(self, resolver: Resolver, function: Scope) -> None:
        self.resolver = resolver
        self.function = function
        self.calls: set[cst.Call] = set()
        self._seen: set[tuple[str, int]] = set()
        self.unsure = False  # a name of an enclosing function: np2jax cannot see what else uses it

    def follow(self, node: cst.BaseExpression, scope: Scope) -> None:
        if isinstance(node, cst.Call):
            self._call(node, scope)
        elif isinstance(node, cst.Name):
            self._name(node.value, scope)
        elif isinstance(node, (cst.BinaryOperation, cst.BooleanOperation)):
            self.follow(node.left, scope)
            self.follow(node.right, scope)
        elif isinstance(node, cst.UnaryOperation):
            self.follow(node.expression, scope)
        elif isinstance(node, cst.IfExp):
            self.follow(node.body, scope)
            self.follow(node.orelse, scope)
        elif isinstance(node, cst.Comparison):
            self.follow(node.left, scope)
            for target in node.comparisons:
                self.follow(target.comparator, scope)
        elif isinstance(node, cst.Subscript):
            self.follow(node.value, scope)  # an element of a NumPy array is a NumPy scalar
        elif isinstance(node, cst.Attribute):
            if node.attr.value not in SHAPE_ATTRIBUTES:
                self.follow(node.value, scope)
        elif isinstance(node, (cst.Tuple, cst.List, cst.Set)):
            for element in node.elements:
                self.follow(element.value, scope)
        elif isinstance(node, (cst.ListComp, cst.SetComp, cst.GeneratorExp)):
            self.follow(node.elt, self.resolver.scopes.get(node, scope))
        elif isinstance(node, cst.NamedExpr):
            self.follow(node.value, scope)

    def _call(self, node: cst.Call, scope: Scope) -> None:
        qualname = self.resolver.qualname(node.func, scope)
        if qualname is not None and is_numpy(qualname):
            self.calls.add(node)  # its arguments may move to jax.numpy: NumPy converts their results back
            for arg in node.args:  # (the NumPy calls computing them stay NumPy too: no round trip through JAX)
                self.follow(arg.value, scope)
        elif qualname is not None and (qualname.startswith("builtins.") or qualname in CARRYING_ITERTOOLS):
            if qualname in CARRYING_ITERTOOLS or qualname[len("builtins."):] in CARRYING_BUILTINS:
                for arg in node.args:
                    self.follow(arg.value, scope)
        elif qualname is None and isinstance(node.func, cst.Attribute) and node.func.attr.value not in PYTHON_METHODS:
            self.follow(node.func.value, scope)  # `x.sum()`, `x.astype(int)` of a NumPy array: NumPy values

    def _name(self, name: str, scope: Scope) -> None:
        found, bindings = scope.lookup(name)
        if found is None or found.kind in ("module", "class"):
            return
        if not _within(found, self.function):
            self.unsure = True
            return
        if (name, id(found.node)) in self._seen:
            return
        self._seen.add((name, id(found.node)))
        for binding in bindings:
            if isinstance(binding, ValueBinding):
                self.follow(binding.value, found)
            elif isinstance(binding, LoopBinding):
                self.follow(binding.iterable, found)


# Builtins whose result holds none of their arguments' arrays (a number, a string, a fresh range).
FRESH_BUILTINS = frozenset("len range int float bool complex str repr hash isinstance id type print".split())


class _Flow:
    """Where a NumPy result kept in a function flows: the local names that may then hold a NumPy array."""

    def __init__(self, function: cst.FunctionDef, resolver: Resolver) -> None:
        self.resolver = resolver
        self.bindings: list[tuple[set[str], cst.BaseExpression, Scope]] = []  # target names, value, scope
        self.written: set[str] = set()
        for node, scope in nodes_of(function, resolver, _FLOW_NODES):
            if isinstance(node, cst.Assign):
                for target in node.targets:
                    self._bind(target.target, node.value, scope)
            elif isinstance(node, (cst.AugAssign, cst.AnnAssign)) and node.value is not None:
                self._bind(node.target, node.value, scope)
            elif isinstance(node, (cst.For, cst.CompFor)):
                self._bind(node.target, node.iter, scope)  # `for row in x: row[0] = 1` writes into x
            elif isinstance(node, cst.NamedExpr):
                self._bind(node.target, node.value, scope)
            elif isinstance(node, cst.Del):
                self.written |= _base_names(node.target)
            elif isinstance(node, cst.Call):
                self._note_inplace(node)
        nested = _NestedMentions()
        visit(function.body, nested)
        self.written |= nested.names  # a nested function or lambda: np2jax does not follow values there

    def _bind(self, target: cst.BaseExpression, value: cst.BaseExpression, scope: Scope) -> None:
        if isinstance(target, cst.Subscript):
            self.written |= _base_names(target)  # `x[i] = v` becomes `x = x.at[i].set(v)`: x must be a JAX array
        elif not isinstance(target, cst.Attribute):
            self.bindings.append((_mentioned(target), value, scope))

    def _note_inplace(self, node: cst.Call) -> None:
        func = node.func
        for arg in node.args:
            if arg.keyword is not None and arg.keyword.value == "out":
                self.written |= _base_names(arg.value)  # `np.minimum(d, e, out=d)`
        if isinstance(func, cst.Attribute) and (may_be_inplace_call(node) or func.attr.value in ARRAY_MUTATORS):
            self.written |= _base_names(func.value)  # `x.sort()`, `x.clip(0, 1, out=x)`
            if node.args:
                self.written |= _base_names(node.args[0].value)  # `np.add.at(x, i, v)`, `np.copyto(x, v)`

    def reaches_write(self, call: cst.Call) -> bool:
        """Do the names that may hold ``call``'s NumPy result (or a NumPy value computed from it) get written?"""
        holders: set[str] = set()
        changed = True
        while changed:
            changed = False
            for targets, value, scope in self.bindings:
                if not targets <= holders and self._carries(value, call, holders, scope):
                    holders |= targets
                    changed = True
        return bool(holders & self.written)

    def _carries(self, node: cst.BaseExpression, call: cst.Call, holders: set[str], scope: Scope) -> bool:
        """May ``node``'s value be, hold or be computed by NumPy from the kept ``call``'s result?  (Conservative:
        arithmetic with it, methods of it and calls given it all may.)"""
        if node is call:
            return True
        if isinstance(node, cst.Name):
            return node.value in holders
        if isinstance(node, cst.Attribute):
            return node.attr.value not in SHAPE_ATTRIBUTES and self._carries(node.value, call, holders, scope)
        if isinstance(node, cst.Subscript):
            return self._carries(node.value, call, holders, scope)
        if isinstance(node, cst.Call):
            qualname = self.resolver.qualname(node.func, scope) or ""
            if qualname.startswith("jax.") or (qualname.startswith("builtins.") and qualname[len("builtins."):] in FRESH_BUILTINS):
                return False
            parts = [arg.value for arg in node.args if not _shape_argument(qualname, arg, node)]
            if isinstance(node.func, cst.Attribute) and not qualname:
                parts.append(node.func.value)
            return any(self._carries(part, call, holders, scope) for part in parts)
        return any(self._carries(child, call, holders, scope) for child in _operands(node))


def _shape_argument(qualname: str, arg: cst.Arg, call: cst.Call) -> bool:
    """``np.zeros((n, k))``'s shape: a NumPy function's result does not hold it."""
    if not is_numpy(qualname) or arg.star:
        return False
    row = lookup_numpy(qualname)
    signature = SIGNATURES.get(row.jax) if row is not None and row.jax else None
    if arg.keyword is not None:
        return arg.keyword.value in STATIC_PARAMETERS
    if signature is None:
        return False
    return positional_parameter(signature[1], call.args.index(arg)) in STATIC_PARAMETERS


def _operands(node: cst.BaseExpression) -> tuple[cst.BaseExpression, ...]:
    if isinstance(node, (cst.BinaryOperation, cst.BooleanOperation)):
        return (node.left, node.right)
    if isinstance(node, cst.UnaryOperation):
        return (node.expression,)
    if isinstance(node, cst.IfExp):
        return (node.body, node.orelse)
    if isinstance(node, cst.Comparison):
        return (node.left, *(target.comparator for target in node.comparisons))
    if isinstance(node, (cst.Tuple, cst.List, cst.Set)):
        return tuple(element.value for element in node.elements)
    if isinstance(node, (cst.ListComp, cst.SetComp, cst.GeneratorExp)):
        return (node.elt,)
    if isinstance(node, cst.DictComp):
        return (node.key, node.value)
    if isinstance(node, cst.Dict):
        return tuple(v for e in node.elements for v in ((e.key, e.value) if isinstance(e, cst.DictElement) else (e.value,)))
    if isinstance(node, (cst.StarredElement, cst.NamedExpr)):
        return (node.value,)
    return ()


def _base_names(node: cst.BaseExpression) -> set[str]:
    """``x`` of ``x[i][j]``, ``x.T[0]``; every name of ``(a, b)``."""
    while isinstance(node, (cst.Subscript, cst.Attribute)):
        node = node.value
    if isinstance(node, (cst.Tuple, cst.List)):
        return {n for element in node.elements for n in _base_names(element.value)}
    return {node.value} if isinstance(node, cst.Name) else _mentioned(node)


def _mentioned(node: cst.CSTNode) -> set[str]:
    finder = _Names()
    visit(node, finder)
    return finder.names


class _Names(FastVisitor):
    def __init__(self) -> None:
        self.names: set[str] = set()

    def visit_Name(self, node: cst.Name) -> None:
        self.names.add(node.value)


class _NestedMentions(FastVisitor):
    """Names mentioned inside nested functions and lambdas."""

    def __init__(self) -> None:
        self.names: set[str] = set()
        self.depth = 0

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.depth += 1

    def leave_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.depth -= 1

    def visit_Lambda(self, node: cst.Lambda) -> None:
        self.depth += 1

    def leave_Lambda(self, node: cst.Lambda) -> None:
        self.depth -= 1

    def visit_Name(self, node: cst.Name) -> None:
        if self.depth:
            self.names.add(node.value)


# What _Flow looks at (exact types, for nodes_of)
_FLOW_NODES = frozenset({cst.Assign, cst.AugAssign, cst.AnnAssign, cst.For, cst.CompFor, cst.NamedExpr, cst.Del, cst.Call})
