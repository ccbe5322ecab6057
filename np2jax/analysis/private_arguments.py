"""Calls of functions of the module that keep no reference to an argument: ``acc = accel(pos)`` cannot alias ``pos``.

The alias check (aliasing.py) takes the result of a call to be possibly its argument, or a view of it, or to have
stored it somewhere (``hist.append(p)``): then a later ``pos += dt * vel`` is visible through that other reference in
NumPy, not after migration.  A parameter of a module-level function of this module that the function uses only

* as an operand of arithmetic or a comparison (``-k * p``, ``p > 0``: new arrays), also through a subscript
  (``p[None, :, :] - p[:, None, :]``: a view read into a new array),
* through its shape (``p.shape``, ``p.ndim``, ``p.size``, ``p.dtype``, ``len(p)``),
* as an argument of a NumPy function whose result is always a new array (``np.exp(p)``, ``np.linalg.norm(p)``,
  ``np.sum(p, axis=0)``; not ``np.diag``, ``np.asarray`` or ``np.reshape``, which may return ``p`` or a view,
  and never with ``out=``),

and never rebinds, updates, stores, returns or hands on, is private to the call.  The function is one of the module or one defined in the calling function (hunt58
FP1: ``def acc(p): return -p`` inside a leapfrog integrator).  Its name must be bound
once, by its ``def`` (a ``global`` rebinding elsewhere could replace it), and the call must name the parameter (no
``*args``/``**kwargs``).  Reverted in 3076e78, whose test, "every result is a new array", missed ``hist.append(p)``
and ``np.diag`` views (hunt32).
"""

from __future__ import annotations

import libcst as cst

from np2jax.analysis.loops import SHAPE_ATTRIBUTES, all_names
from np2jax.analysis.resolve import Resolver, is_numpy
from np2jax.analysis.scope import DefBinding, ParamBinding, Scope
from np2jax.visitors import child_nodes

# NumPy functions whose result never shares memory with an argument.
FRESH_RESULTS = frozenset({
    "abs", "absolute", "sqrt", "exp", "expm1", "log", "log1p", "log2", "log10", "sin", "cos", "tan", "arcsin",
    "arccos", "arctan", "arctan2", "sinh", "cosh", "tanh", "square", "power", "hypot", "sign", "floor", "ceil",
    "round", "rint", "maximum", "minimum", "fmax", "fmin", "clip", "where", "add", "subtract", "multiply", "divide",
    "negative", "reciprocal", "sum", "mean", "std", "var", "prod", "max", "min", "amax", "amin", "argmax", "argmin",
    "any", "all", "dot", "vdot", "inner", "outer", "matmul", "cross", "cumsum", "cumprod", "diff", "linalg.norm",
    "linalg.det", "linalg.inv", "linalg.solve", "isnan", "isfinite", "isinf", "count_nonzero", "einsum",
})
_BINDING_NODES = (cst.Lambda, cst.FunctionDef, cst.ClassDef, cst.BaseComp)


def private_call(call: cst.BaseExpression, name: str | None, resolver: Resolver, scope: Scope,
                 argument: cst.CSTNode | None = None, items: bool = False) -> bool:
    """``call`` calls a function of this module that keeps no reference to the argument ``name`` it is given
    (see the module docstring), or to the expression ``argument`` (``keep(out, d["a"])``); False when it is not
    among its arguments.  ``items``: the argument is a list or dict, which the function may also read items of
    (``X @ params["W"]``) as long as each item read is used only as the parameter could be."""
    if not isinstance(call, cst.Call) or not isinstance(call.func, cst.Name):
        return False
    found, bindings = scope.lookup(call.func.value)
    if found is None or found.kind not in ("module", "function") or len(bindings) != 1 or not isinstance(
            bindings[0], DefBinding):  # (a function of the module, or one defined in the caller: `def acc(p)`)
        return False
    function = bindings[0].node
    if not isinstance(function, cst.FunctionDef) or call.func.value in _declared_global(resolver):
        return False
    params = [p.name.value for p in function.params.params]
    keywords = {p.name.value for p in (*function.params.params, *function.params.kwonly_params)}
    given: list[str] = []
    for position, arg in enumerate(call.args):
        if arg.star:
            return False
        if not ((argument is not None and arg.value is argument)
                or (argument is None and isinstance(arg.value, cst.Name) and arg.value.value == name)):
            continue
        if arg.keyword is not None:
            if arg.keyword.value not in keywords:
                return False
            given.append(arg.keyword.value)
        elif position < len(params):
            given.append(params[position])
        else:
            return False
    inner = resolver.scopes.get(function)
    if not given or inner is None:
        return False
    if not items:
        memo = resolver.memo.setdefault("private_parameters", {})
        for param in given:
            if (function, param) not in memo:
                memo[function, param] = _private(function, param, resolver, inner)
        return all(memo[function, param] for param in given)
    pending = resolver.memo.setdefault("private_items_pending", set())  # (recursion: not proven while deciding)
    if any((function, param) in pending for param in given):
        return False
    pending.update((function, param) for param in given)
    try:
        return all(_private_items(function, param, resolver, inner) for param in given)
    finally:
        pending.difference_update((function, param) for param in given)


def _private_items(function: cst.FunctionDef, param: str, resolver: Resolver, scope: Scope) -> bool:
    """The container ``param`` is only indexed (``p["W"]``, ``p[0].T``), each item read used as an operand of
    arithmetic or a comparison, through its shape, or as an argument of a NumPy function making a new array;
    or it is measured (``len(p)``) or searched (``k in p``), or handed to a function of the module that uses it so
    too (``forward(p, X)``). Never rebound, stored, iterated or handed on otherwise."""
    _, bindings = scope.lookup(param)
    if len(bindings) != 1 or not isinstance(bindings[0], ParamBinding):
        return False
    parents: dict[cst.CSTNode, cst.CSTNode] = {}
    stack: list[cst.CSTNode] = [function.body]
    while stack:
        node = stack.pop()
        if isinstance(node, _BINDING_NODES) and any(name.value == param for name in all_names(node)):
            return False  # a closure or comprehension: not followed
        for child in child_nodes(node):
            parents[child] = node
            stack.append(child)
    for node, parent in parents.items():
        if not (isinstance(node, cst.Name) and node.value == param) or isinstance(parent, cst.Attribute) and parent.attr is node:
            continue
        item = isinstance(parent, cst.Subscript) and parent.value is node
        if item:
            node = parent  # an item: followed through views of it (`p["W"].T`, `p["W"][:, 0]`)
            while isinstance(parents.get(node), (cst.Subscript, cst.Attribute)) and parents[node].value is node and (
                    isinstance(parents[node], cst.Subscript) or parents[node].attr.value in ("T", "mT")):
                node = parents[node]
            if _read_only_use(node, parents.get(node)):
                continue
        elif isinstance(parent, cst.ComparisonTarget) and parent.comparator is node and isinstance(
                parent.operator, (cst.In, cst.NotIn)):
            continue  # `k in p`
        argument = parents.get(node)
        call = parents.get(argument) if isinstance(argument, cst.Arg) and not argument.star else None
        if not isinstance(call, cst.Call):
            return False
        if item and argument.keyword is None and _fresh_call(call, resolver, scope):
            continue  # `np.tanh(p["W"])`
        if not item and resolver.qualname(call.func, scope) == "builtins.len":
            continue
        if not item and private_call(call, None, resolver, scope, argument=node, items=True):
            continue  # `forward(p, X)`, a function of the module that reads items only, too
        return False
    return True


def _declared_global(resolver: Resolver) -> frozenset[str]:
    """Names some function declares ``global`` (and may rebind: ``global accel; accel = lambda p: p``)."""
    memo = resolver.memo
    found = memo.get("declared_global")
    if found is None:
        found = memo["declared_global"] = frozenset(
            name for scope in resolver.scopes.values() for name in getattr(scope, "globals", ()))
    return found


def _private(function: cst.FunctionDef, param: str, resolver: Resolver, scope: Scope) -> bool:
    _, bindings = scope.lookup(param)
    if len(bindings) != 1 or not isinstance(bindings[0], ParamBinding):
        return False  # rebound or updated (`p += 1` would write into the caller's array)
    stack: list[tuple[cst.CSTNode, cst.CSTNode | None]] = [(function.body, None)]
    while stack:
        node, parent = stack.pop()
        if isinstance(node, cst.Name) and node.value == param:
            if not _read_only_use(node, parent):
                return False
            continue
        if isinstance(node, _BINDING_NODES):
            if any(name.value == param for name in all_names(node)):
                return False  # a closure or comprehension: left to the general check
            continue
        if isinstance(node, cst.Subscript) and _read_only_use(node, parent) and _subscripts(node, param):
            inner = node  # `p[None, :, :] - p[:, None, :]`: a view of it that arithmetic reads into a new array
            while isinstance(inner, cst.Subscript):
                stack.extend((element, inner) for element in inner.slice)
                inner = inner.value
            continue
        if isinstance(node, cst.Call):
            handed = [arg for arg in node.args if isinstance(arg.value, cst.Name) and arg.value.value == param]
            if handed and not _fresh_call(node, resolver, scope):
                return False
            stack.append((node.func, node))
            stack.extend((arg.value, arg) for arg in node.args if arg not in handed)
            continue
        stack.extend((child, node) for child in child_nodes(node))
    return True


def _subscripts(node: cst.Subscript, param: str) -> bool:
    """``node`` is ``param[...]`` (or ``param[...][...]``)."""
    base = node.value
    while isinstance(base, cst.Subscript):
        base = base.value
    return isinstance(base, cst.Name) and base.value == param


def _fresh_call(call: cst.Call, resolver: Resolver, scope: Scope) -> bool:
    """``len(p)``, or a NumPy function whose result is a new array, without ``out=``."""
    qualname = resolver.qualname(call.func, scope) or ""
    if qualname == "builtins.len":
        return True
    if not is_numpy(qualname) or any(arg.star or (arg.keyword is not None and arg.keyword.value == "out") for arg in call.args):
        return False
    return qualname[len("numpy."):] in FRESH_RESULTS


def _read_only_use(name: cst.Name, parent: cst.CSTNode | None) -> bool:
    if isinstance(parent, (cst.BinaryOperation, cst.UnaryOperation, cst.ComparisonTarget)):
        return True
    if isinstance(parent, cst.Comparison):
        return parent.left is name
    if isinstance(parent, cst.Attribute):
        return parent.value is name and parent.attr.value in SHAPE_ATTRIBUTES
    return False
