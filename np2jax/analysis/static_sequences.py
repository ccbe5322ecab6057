"""List displays given for a static parameter: ``pad_to(x, [4])`` -> ``pad_to(x, (4,))``.

``jax.jit`` hashes its static arguments, and a list is unhashable: a call ``pad_to(x, [4])`` of a function
jitted with ``static_argnums=(1,)`` raises "Non-hashable static arguments are not supported".  So the module's
own calls that pass a list display for a parameter the callee's jit plan keeps static pass the tuple display
instead, when the callee uses that parameter only where a tuple and a list behave alike:

* an argument of a NumPy call (``np.zeros(shape)``, ``np.tile(x, reps)``: NumPy reads any sequence the same),
  or of an array method taking sizes or axes (``x.reshape(shape)``);
* ``len(p)``, ``tuple(p)``, ``list(p)``, ``*p``, iterating over it (``for n in p``, ``zip(p, q)``), reading an
  element (``p[0]``), ``p is None``.

Anything else (``p == [4]``, ``isinstance(p, list)``, ``p.append(1)``, ``p + [1]``, a write ``p[0] = 1``,
rebinding it, returning it, handing it to another function) tells a tuple from a list: the call is left
as it is (jit then refuses it loudly, never silently).
"""

from __future__ import annotations

import libcst as cst

from np2jax.analysis.resolve import Resolver, is_numpy
from np2jax.analysis.values import function_nodes
from np2jax.visitors import FastVisitor, child_nodes, visit

_SEQUENCE_BUILTINS = frozenset({"builtins.len", "builtins.tuple", "builtins.list", "builtins.zip", "builtins.enumerate",
                                "builtins.reversed"})
# ndarray methods that read a sequence argument as sizes or axes, the same for a list and a tuple
_SHAPE_METHODS = frozenset({"reshape", "transpose", "sum", "mean", "prod", "max", "min", "std", "var", "any", "all",
                            "squeeze", "tile"})


def tuple_safe(function: cst.FunctionDef, param: str, resolver: Resolver) -> bool:
    """Does ``function`` use its parameter ``param`` only where a tuple behaves as a list does?"""
    memo = resolver.memo.setdefault("tuple_safe", {})
    key = (function, param)
    if key not in memo:
        memo[key] = _tuple_safe(function, param, resolver)
    return memo[key]


def _tuple_safe(function: cst.FunctionDef, param: str, resolver: Resolver) -> bool:
    function_scope = resolver.scopes[function]
    safe: set[int] = set()
    not_names: set[int] = set()  # `x.shape`'s `shape`, `f(shape=...)`'s keyword: not the parameter
    uses: list[cst.Name] = []
    for node, scope in function_nodes(function, resolver):
        if isinstance(node, cst.Name) and node.value == param and id(node) not in not_names:
            found, _ = scope.lookup(param)
            if found is function_scope:
                uses.append(node)
        elif isinstance(node, cst.Attribute):
            not_names.add(id(node.attr))
        elif isinstance(node, cst.Arg) and node.keyword is not None:
            not_names.add(id(node.keyword))
        if isinstance(node, cst.Call):
            qualname = resolver.qualname(node.func, scope)
            shape_method = isinstance(node.func, cst.Attribute) and node.func.attr.value in _SHAPE_METHODS
            for arg in node.args:
                if arg.star == "*" or is_numpy(qualname) or qualname in _SEQUENCE_BUILTINS or shape_method:
                    safe.add(id(arg.value))
        elif isinstance(node, cst.Subscript):
            safe.add(id(node.value))  # a read: writes make their target a store, checked below
        elif isinstance(node, (cst.For, cst.CompFor)):
            safe.add(id(node.iter))
        elif isinstance(node, cst.Comparison) and all(
                isinstance(c.operator, (cst.Is, cst.IsNot)) and isinstance(c.comparator, cst.Name)
                and c.comparator.value == "None" for c in node.comparisons):
            safe.add(id(node.left))
        elif isinstance(node, (cst.Assign, cst.AugAssign, cst.AnnAssign, cst.Del)):
            targets = [t.target for t in node.targets] if isinstance(node, cst.Assign) else [node.target]
            if any(_mentions(target, param) for target in targets):
                return False  # rebound, or written into (`p[0] = 1`, `del p[0]`)
    if any(_mentions(nested, param) for nested in _nested_definitions(function)):
        return False  # a nested function's uses are not followed
    return bool(uses) and all(id(use) in safe for use in uses)


def _mentions(node: cst.CSTNode, name: str) -> bool:
    finder = _NameFinder(name)
    visit(node, finder)
    return finder.found


def _nested_definitions(function: cst.FunctionDef) -> list[cst.CSTNode]:
    finder = _NameFinder("")
    for child in child_nodes(function.body):
        visit(child, finder)
    return finder.definitions


class _NameFinder(FastVisitor):
    def __init__(self, name: str) -> None:
        super().__init__()
        self.name = name
        self.found = False
        self.definitions: list[cst.CSTNode] = []

    def on_visit(self, node: cst.CSTNode) -> bool:
        if isinstance(node, (cst.FunctionDef, cst.ClassDef)):
            self.definitions.append(node)
            return bool(self.name)
        if isinstance(node, (cst.Attribute, cst.Arg)) and not self.found:
            visit(node.value, self)  # `x.shape`'s `shape`, `f(shape=...)`'s keyword: not the name
            return False
        if isinstance(node, cst.Name) and node.value == self.name:
            self.found = True
        return not self.found


def as_tuple(display: cst.List) -> cst.Tuple:
    """``[4]`` -> ``(4,)``, ``[n, m]`` -> ``(n, m)``, keeping the elements and the space inside the brackets."""
    return cst.Tuple(elements=display.elements,
                     lpar=[cst.LeftParen(whitespace_after=display.lbracket.whitespace_after)],
                     rpar=[cst.RightParen(whitespace_before=display.rbracket.whitespace_before)])
