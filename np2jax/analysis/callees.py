"""What a called name or attribute may be: ``f`` of ``def best(x, f=minmax): f(x)`` is the default ``minmax``
unless a caller says otherwise, ``self.f`` is what the class's methods (or its base classes' in the module, or a
dataclass field) store in it. NPJ120 follows such calls to the function whose result is inexact."""

from __future__ import annotations

import libcst as cst

from np2jax.analysis.indexing import _first_param
from np2jax.analysis.loops import descendants
from np2jax.analysis.resolve import Resolver
from np2jax.analysis.scope import DefBinding, ParamBinding, Scope


def callees(func: cst.BaseExpression, scope: Scope, resolver: Resolver, depth: int):
    """(expression, scope) for what ``func`` names: itself, or the default of a parameter it is, or the values the
    methods of its class store in the attribute it reads (``self.f``)."""
    if depth > 2:
        return
    if isinstance(func, cst.Name):
        found, bindings = scope.lookup(func.value)
        if bindings and all(isinstance(b, ParamBinding) for b in bindings):
            for binding in bindings:
                if binding.param.default is not None and found.parent is not None:
                    yield from callees(binding.param.default, found.parent, resolver, depth + 1)
            return
    elif isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name):
        method = _method_scope(scope)
        if method is not None and _first_param(method.node) == func.value.value:
            for stored, store_scope in _stored_values(method.parent, func.attr.value, resolver):
                yield from callees(stored, store_scope, resolver, depth + 1)
            return
    yield func, scope


def _method_scope(scope: Scope) -> Scope | None:
    while scope.kind == "comprehension" and scope.parent is not None:
        scope = scope.parent
    return scope if scope.kind == "function" and scope.parent is not None and scope.parent.kind == "class" else None


def _stored_values(class_scope: Scope, attribute: str, resolver: Resolver, depth: int = 0) -> list:
    """(value, method scope) of each ``self.<attribute> = value`` (also annotated or unpacked from a tuple display)
    in the methods of ``class_scope``'s class and of its base classes defined in the module, and each class-level
    ``attribute = value`` there (a dataclass field's default)."""
    found = list(_class_stores(class_scope, resolver).get(attribute, ()))
    classdef = class_scope.node
    for base in classdef.bases if depth < 3 else ():
        if isinstance(base.value, cst.Name):
            owner, bindings = class_scope.parent.lookup(base.value.value) if class_scope.parent else (None, [])
            for binding in bindings if owner is not None else ():
                base_scope = resolver.scopes.get(binding.node) if isinstance(binding, DefBinding) else None
                if base_scope is not None and base_scope.kind == "class":
                    found.extend(_stored_values(base_scope, attribute, resolver, depth + 1))
    return found


def _class_stores(class_scope: Scope, resolver: Resolver) -> dict[str, list]:
    """Attribute name -> (value, scope) of what the class's own body and methods store in it, found in one walk per
    class (NPJ120 asks for every ``self.f(...)`` call: numpy's MaskedArray made this 5% of a migration)."""
    memo = resolver.memo.setdefault("class_stores", {})
    found = memo.get(id(class_scope.node))
    if found is not None:
        return found
    found = memo[id(class_scope.node)] = {}
    classdef = class_scope.node
    for statement in classdef.body.body:
        if isinstance(statement, cst.SimpleStatementLine):
            for small in statement.body:  # `f: Callable = minmax` of a dataclass, `f = staticmethod(minmax)`
                for name, value in _assignments(small, lambda target: isinstance(target, cst.Name), lambda t: t.value):
                    found.setdefault(name, []).append((_unwrapped(value, class_scope, resolver), class_scope.parent))
        if not isinstance(statement, cst.FunctionDef):
            continue
        self_name = _first_param(statement)
        method = resolver.scopes.get(statement)
        if self_name is None or method is None:
            continue
        for node in descendants(statement.body):
            if not isinstance(node, (cst.Assign, cst.AnnAssign)):
                continue
            for name, value in _assignments(node, lambda target: isinstance(target, cst.Attribute) and isinstance(
                    target.value, cst.Name) and target.value.value == self_name, lambda t: t.attr.value):
                found.setdefault(name, []).append((value, method))
    return found


def _assignments(node: cst.CSTNode, is_target, name_of) -> list:
    """(name, value) for each target ``is_target`` accepts in the assignment ``node``: ``t = v``, ``t: T = v``,
    ``a = t = v`` and ``a, t = u, v`` (a tuple display on both sides), as ``_assigned`` reads one."""
    if isinstance(node, cst.AnnAssign):
        return [(name_of(node.target), node.value)] if node.value is not None and is_target(node.target) else []
    if not isinstance(node, cst.Assign):
        return []
    found = []
    for target in node.targets:
        if is_target(target.target):
            found.append((name_of(target.target), node.value))
        elif (isinstance(target.target, (cst.Tuple, cst.List)) and isinstance(node.value, (cst.Tuple, cst.List))
              and len(target.target.elements) == len(node.value.elements)):
            found.extend((name_of(element.value), value.value)
                         for element, value in zip(target.target.elements, node.value.elements) if is_target(element.value))
    return found


def _unwrapped(value: cst.BaseExpression, scope: Scope, resolver: Resolver) -> cst.BaseExpression:
    """``minmax`` of ``staticmethod(minmax)`` and of ``field(default=minmax)``; else ``value``."""
    if isinstance(value, cst.Call) and value.args:
        qualname = resolver.qualname(value.func, scope)
        if qualname == "builtins.staticmethod":
            return value.args[0].value
        if qualname == "dataclasses.field":
            return next((a.value for a in value.args if a.keyword is not None and a.keyword.value == "default"), value)
    return value
