"""Syntax facts about ``for`` loops that the fori_loop conversion needs (no static-or-traced reasoning here)."""

from __future__ import annotations

from typing import Iterable

import libcst as cst

from np2jax.analysis.index_calls import converts_on_traced_index
from np2jax.analysis.resolve import Resolver, is_numpy
from np2jax.analysis.result_writes import INPLACE_FUNCTIONS
from np2jax.analysis.scope import Scope
from np2jax.visitors import FastVisitor, child_nodes, exact_types, inner_nodes

MUTATING_METHODS = frozenset(
    "append extend insert pop remove clear update setdefault add discard popitem sort reverse fill put itemset resize setflags".split()
)


class LoopBody(FastVisitor):
    """Names a loop body assigns (in order), and the first thing that keeps it from being a fori_loop body."""

    MUTATING_ARRAY_METHODS = frozenset({"sort", "fill", "put", "resize"})

    def __init__(self, resolver: Resolver, scope: Scope, rebinds: dict[cst.Expr, tuple[str, ...]] | None = None,
                 collected: Iterable[cst.Call] = ()) -> None:
        """``rebinds``: call statements ``f(a)`` that become ``a = f(a)`` (see analysis/mutation.py);
        ``collected``: the ``ys.append(v)`` calls jax.lax.scan collects (see analysis/collect.py)."""
        super().__init__()
        self.resolver = resolver
        self.scope = scope
        self.rebinds = rebinds or {}
        self.collected = frozenset(collected)
        self.order: list[str] = []
        self.assigned: set[str] = set()
        self.written: set[str] = set()  # changed in place (`x[i] = v`, `x.sort()`, `f(x)` that returns it): arrays
        self.obstacle = ""

    def _stop(self, why: str) -> bool:
        self.obstacle = self.obstacle or why
        return False

    def _assign(self, target: cst.BaseExpression, in_place: bool = False) -> None:
        while isinstance(target, (cst.Subscript, cst.Attribute)):
            if isinstance(target, cst.Attribute):
                self._stop("it sets an attribute")
                return
            target = target.value
            in_place = True
        if in_place and isinstance(target, cst.Name):
            self.written.add(target.value)
        if isinstance(target, (cst.Tuple, cst.List)):
            for element in target.elements:
                self._assign(element.value)
        elif isinstance(target, cst.StarredElement):
            self._assign(target.value)
        elif isinstance(target, cst.Name):
            if target.value not in self.assigned:
                self.assigned.add(target.value)
                self.order.append(target.value)

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            self._assign(target.target)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._assign(node.target)

    def visit_Expr(self, node: cst.Expr) -> None:
        for name in self.rebinds.get(node, ()):
            self._assign(cst.Name(name), in_place=True)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self._assign(node.target)

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        self._assign(node.target)

    def visit_For(self, node: cst.For) -> None:
        self._assign(node.target)

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if node in self.collected:
            return
        # `np.minimum(d, e, out=d)`, `np.add.at(x, i, v)`, `np.copyto(x, y)` ... become `d = ...` (NPJ200): carried
        for arg in node.args:
            if arg.keyword is not None and arg.keyword.value == "out":
                for element in (arg.value.elements if isinstance(arg.value, cst.Tuple) else [arg.value]):
                    self._assign(element.value if isinstance(element, cst.Element) else element, in_place=True)
        if isinstance(func, cst.Attribute) and node.args and node.args[0].keyword is None and (
                func.attr.value in INPLACE_FUNCTIONS or (func.attr.value == "at" and isinstance(func.value, cst.Attribute))):
            self._assign(node.args[0].value, in_place=True)
        if isinstance(func, cst.Attribute) and func.attr.value in MUTATING_METHODS and (
                self.resolver.qualname(func, self.scope) is None):  # (not `np.sort(w)`, a module's function)
            if func.attr.value in self.MUTATING_ARRAY_METHODS:
                self._assign(func.value, in_place=True)
            else:
                self._stop(f"`.{func.attr.value}()` grows a Python container other than by one `ys.append(v)` per "
                           "step at the top level of the body, which jax.lax.scan could collect")

    def visit_Return(self, node: cst.Return) -> bool:
        return self._stop("it returns from inside the loop")

    def visit_Break(self, node: cst.Break) -> bool:
        return self._stop("it uses `break`")

    def visit_Continue(self, node: cst.Continue) -> bool:
        return self._stop("it uses `continue`")

    def visit_Raise(self, node: cst.Raise) -> bool:
        return self._stop("it raises")

    def visit_Del(self, node: cst.Del) -> bool:
        return self._stop("it deletes names")

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return self._stop("it defines a function")

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        return self._stop("it defines a class")

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False

    def visit_ListComp(self, node: cst.ListComp) -> bool:
        return False  # its own scope: assigns nothing here

    def visit_GeneratorExp(self, node: cst.GeneratorExp) -> bool:
        return False

    def visit_SetComp(self, node: cst.SetComp) -> bool:
        return False

    def visit_DictComp(self, node: cst.DictComp) -> bool:
        return False


def numpy_call_on_python_values(body: cst.CSTNode, names: set[str], resolver: Resolver, scope: Scope) -> cst.Call | None:
    """A NumPy call in ``body`` whose arguments are all Python values (so it stays a NumPy call, see NPJ100)
    but mention one of ``names``: once the loop is a fori_loop/scan, those are traced and NumPy would raise.
    Calls NPJ100 rewrites once the loop makes them traced (analysis/index_calls.py) are not such calls."""
    for node in descendants(body):
        if (isinstance(node, cst.Call) and is_numpy(resolver.qualname(node.func, scope))
                and any(_mentions_value(a.value, names, resolver, scope) for a in node.args)
                and resolver.args_static(node, scope) and not converts_on_traced_index(node, resolver, scope)):
            return node
    return None


SHAPE_ATTRIBUTES = frozenset({"shape", "ndim", "size", "dtype"})


def _mentions_value(node: cst.CSTNode, names: set[str], resolver: Resolver, scope: Scope) -> bool:
    """Does ``node`` read the value of one of ``names``?  ``len(P)``, ``P.shape[0]``, ``P.ndim`` read only its
    shape, which a fori_loop carry keeps static (``np.eye(len(P))`` in a Kalman covariance loop)."""
    if isinstance(node, cst.Name):
        return node.value in names
    if isinstance(node, cst.Attribute) and node.attr.value in SHAPE_ATTRIBUTES and isinstance(node.value, cst.Name):
        return False
    if (isinstance(node, cst.Call) and len(node.args) == 1 and isinstance(node.args[0].value, cst.Name)
            and resolver.qualname(node.func, scope) == "builtins.len"):
        return False
    return any(_mentions_value(child, names, resolver, scope) for child in child_nodes(node))


def descendants(node: cst.CSTNode) -> Iterable[cst.CSTNode]:
    """``node`` and every node under it but trivia (whitespace, comments, punctuation: ``visitors.TRIVIA``), which
    no caller looks for (no recursion: deep expressions cannot overflow the stack)."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(inner_nodes(current))


def contains(outer: cst.CSTNode, inner: cst.CSTNode) -> bool:
    if outer is inner:
        return True
    return any(contains(child, inner) for child in child_nodes(outer))


def subscripts(node: cst.CSTNode) -> Iterable[cst.Subscript]:
    """Every subscript in ``node``, outermost first (in source order)."""
    stack = [node]
    while stack:
        current = stack.pop()
        if type(current) is cst.Subscript:
            yield current
        stack.extend(reversed(inner_nodes(current)))  # (trivia holds none)


def all_names(node: cst.CSTNode) -> Iterable[cst.Name]:
    """Every name in ``node``, in source order."""
    stack = [node]
    while stack:
        current = stack.pop()
        if type(current) is cst.Name:
            yield current  # (a name holds no other)
        else:
            stack.extend(reversed(inner_nodes(current)))


def names_outside(body: cst.CSTNode, loop: cst.For, shadowed: frozenset[str] = frozenset()) -> set[str]:
    """Identifiers used in ``body`` outside ``loop``; inside another ``for`` loop, its own targets do not count."""
    names: set[str] = set()
    if body is loop:
        return names
    if isinstance(body, cst.Name):
        if body.value not in shadowed:
            names.add(body.value)
        return names
    if isinstance(body, cst.For):
        inner = shadowed | {n.value for n in all_names(body.target)}
        names |= names_outside(body.iter, loop, shadowed)
        names |= names_outside(body.body, loop, inner)
        if body.orelse is not None:
            names |= names_outside(body.orelse, loop, shadowed)
        return names
    for child in inner_nodes(body):  # (trivia holds no name)
        names |= names_outside(child, loop, shadowed)
    return names


def binding_targets(node: cst.CSTNode) -> list[cst.CSTNode]:
    """What ``node`` itself assigns to: the targets of ``=``, ``op=``, ``:=``, a ``for`` and a ``with ... as``."""
    kind = type(node)
    if kind not in _BINDING_NODES:
        return []
    if kind is cst.Assign:
        return [t.target for t in node.targets]
    if kind is cst.WithItem:
        return [node.asname.name] if node.asname is not None else []
    return [node.target]


_BINDING_NODES = frozenset({cst.Assign, cst.AugAssign, cst.AnnAssign, cst.NamedExpr, cst.For, cst.WithItem})


def assigned_before(body: cst.CSTNode, loop: cst.For) -> set[str]:
    """Names assigned in ``body`` textually before ``loop`` starts."""
    names: set[str] = set()
    stack: list[cst.CSTNode] = [body]
    while stack:
        node = stack.pop()
        if node is loop:
            break
        for target in binding_targets(node):
            names.update(n.value for n in all_names(target) if not _inside_subscript_or_attribute(target, n))
        if type(node) in _NESTED_SCOPES:
            continue  # their bodies bind their own names
        stack.extend(reversed(inner_nodes(node)))  # (trivia binds nothing)
    return names


def _inside_subscript_or_attribute(target: cst.CSTNode, name: cst.Name) -> bool:
    """In ``x[i] = v``, only ``x`` is (re)bound here by the functional rewrite; ``i`` is not."""
    if isinstance(target, cst.Subscript):
        base = target.value
        while isinstance(base, cst.Subscript):
            base = base.value
        return name is not base
    if isinstance(target, cst.Attribute):
        return True
    if isinstance(target, (cst.Tuple, cst.List)):
        return any(contains(e.value, name) and _inside_subscript_or_attribute(e.value, name) for e in target.elements)
    if isinstance(target, cst.StarredElement):
        return _inside_subscript_or_attribute(target.value, name)
    return False


_NESTED_SCOPES = exact_types(cst.FunctionDef, cst.ClassDef, cst.Lambda)
