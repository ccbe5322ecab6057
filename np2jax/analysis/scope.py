"""Python scopes and name bindings, computed in one pass over a libcst tree.

We resolve names the way Python does (function locals, ``global``/``nonlocal``,
class bodies invisible from methods, comprehension scopes) so that
``import numpy as onp``, ``from numpy import zeros`` and a local variable that
shadows ``np`` are all told apart without ever matching on spelling.  This is a
lighter cousin of libcst's ``ScopeProvider``: it records only bindings, which
is all the rules need, and runs several times faster on large trees.
"""

from __future__ import annotations

import builtins
from dataclasses import dataclass, field
from typing import Iterator, Union

import libcst as cst

from np2jax.visitors import FastVisitor, visit

BUILTIN_NAMES = frozenset(dir(builtins))


@dataclass(frozen=True)
class ImportBinding:
    qualname: str  # "numpy", "numpy.linalg.norm", "jax.numpy", ...
    node: cst.CSTNode  # the Import / ImportFrom statement
    alias: cst.ImportAlias


@dataclass(frozen=True)
class ValueBinding:
    value: cst.BaseExpression  # the name is this value or derived from it
    augmented: bool = False  # `name op= value`: derived from value and the previous binding
    operator: type | None = None  # an augmented assignment's operator (`cst.BitOrAssign` for `name |= value`)


@dataclass(frozen=True)
class LoopBinding:
    iterable: cst.BaseExpression
    position: tuple[int, ...] = ()  # where in the target: `for i, (a, b) in ...` binds b at (1, 1)


@dataclass(frozen=True)
class ParamBinding:
    param: cst.Param
    index: int  # position in the signature, -1 for *args/**kwargs/kw-only


@dataclass(frozen=True)
class DefBinding:
    node: cst.CSTNode  # FunctionDef or ClassDef


@dataclass(frozen=True)
class OtherBinding:
    node: cst.CSTNode


Binding = Union[ImportBinding, ValueBinding, LoopBinding, ParamBinding, DefBinding, OtherBinding]


@dataclass(eq=False)
class Scope:
    kind: str  # "module", "function", "class", "comprehension"
    parent: Scope | None
    node: cst.CSTNode
    bindings: dict[str, list[Binding]] = field(default_factory=dict)
    globals: set[str] = field(default_factory=set)
    nonlocals: set[str] = field(default_factory=set)
    star_imports: list[str] = field(default_factory=list)

    def bind(self, name: str, binding: Binding) -> None:
        self.bindings.setdefault(name, []).append(binding)

    def lookup(self, name: str) -> tuple[Scope | None, list[Binding]]:
        """The scope that ``name`` resolves to from here, and its bindings there."""
        scope: Scope | None = self
        if name in self.globals:
            scope = self.module
        elif name in self.nonlocals:
            scope = self.parent
        first = True
        while scope is not None:
            if scope.kind == "class" and not first:
                scope = scope.parent
                continue
            if name in scope.bindings:
                return scope, scope.bindings[name]
            first = False
            scope = scope.parent
        return None, []

    @property
    def module(self) -> Scope:
        scope = self
        while scope.parent is not None:
            scope = scope.parent
        return scope


def attribute_chain(node: cst.BaseExpression) -> list[str] | None:
    """``a.b.c`` -> ["a", "b", "c"]; None when the base is not a plain name."""
    parts: list[str] = []
    while type(node) is cst.Attribute:  # (exact types: libcst's isinstance is slow, and neither has subclasses)
        parts.append(node.attr.value)
        node = node.value
    if type(node) is not cst.Name:
        return None
    parts.append(node.value)
    parts.reverse()
    return parts


def dotted_name(node: cst.BaseExpression) -> str | None:
    parts = attribute_chain(node)
    return ".".join(parts) if parts else None


def target_positions(target: cst.BaseExpression, position: tuple[int, ...] = ()) -> Iterator[tuple[cst.Name, tuple[int, ...]]]:
    if isinstance(target, cst.Name):
        yield target, position
    elif isinstance(target, (cst.Tuple, cst.List)):
        for index, element in enumerate(target.elements):
            value = element.value
            if isinstance(value, cst.StarredElement):
                yield from target_positions(value.value, (*position, -1))
            else:
                yield from target_positions(value, (*position, index))


def every_value_made(name: str, scope: Scope, test) -> bool:
    """``name`` has bindings, and each one other than an augmented assignment (which keeps what the name holds)
    binds a value for which ``test(value, scope_of_the_binding)`` holds."""
    found, bindings = scope.lookup(name)
    made = [b for b in bindings if not (isinstance(b, ValueBinding) and b.augmented)]
    return found is not None and bool(made) and all(isinstance(b, ValueBinding) and test(b.value, found) for b in made)


def target_names(target: cst.BaseExpression) -> Iterator[cst.Name]:
    if isinstance(target, cst.Name):
        yield target
    elif isinstance(target, (cst.Tuple, cst.List)):
        for element in target.elements:
            yield from target_names(element.value)
    elif isinstance(target, cst.StarredElement):
        yield from target_names(target.value)


# The node types ScopeCollector gives a scope (the walker tests these exact types before a dict lookup).
SCOPE_NODES = frozenset({cst.Module, cst.FunctionDef, cst.ClassDef, cst.Lambda, cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp})


class ScopeCollector(FastVisitor):
    """Builds the scope tree.  ``scopes`` maps scope-creating nodes to scopes."""

    def __init__(self, module: cst.Module) -> None:
        self.module_scope = Scope("module", None, module)
        self.scopes: dict[cst.CSTNode, Scope] = {module: self.module_scope}
        self.stack: list[Scope] = [self.module_scope]

    @property
    def scope(self) -> Scope:
        return self.stack[-1]

    def _visit_in(self, scope: Scope, *nodes: cst.CSTNode | None) -> None:
        self.stack.append(scope)
        for node in nodes:
            if node is not None:
                visit(node, self)
        self.stack.pop()

    def _bind_target(self, target: cst.BaseExpression, binding: Binding, scope: Scope | None = None) -> None:
        for name in target_names(target):
            (scope or self.scope).bind(name.value, binding)

    # --- scope-creating nodes -------------------------------------------
    def _visit_params(self, params: cst.Parameters) -> None:
        for param in (*params.params, *params.kwonly_params, *params.posonly_params):
            if param.default is not None:
                visit(param.default, self)
            if param.annotation is not None:
                visit(param.annotation, self)

    def _bind_params(self, scope: Scope, params: cst.Parameters) -> None:
        positional = [*params.posonly_params, *params.params]
        for index, param in enumerate(positional):
            scope.bind(param.name.value, ParamBinding(param, index))
        for param in params.kwonly_params:
            scope.bind(param.name.value, ParamBinding(param, -1))
        for star in (params.star_arg, params.star_kwarg):
            if isinstance(star, cst.Param):
                scope.bind(star.name.value, ParamBinding(star, -1))

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        self.scope.bind(node.name.value, DefBinding(node))
        for decorator in node.decorators:
            visit(decorator, self)
        self._visit_params(node.params)
        if node.returns is not None:
            visit(node.returns, self)
        scope = Scope("function", self.scope, node)
        self.scopes[node] = scope
        self._bind_params(scope, node.params)
        self._visit_in(scope, node.body)
        return False

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        self._visit_params(node.params)
        scope = Scope("function", self.scope, node)
        self.scopes[node] = scope
        self._bind_params(scope, node.params)
        self._visit_in(scope, node.body)
        return False

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        self.scope.bind(node.name.value, DefBinding(node))
        for child in (*node.decorators, *node.bases, *node.keywords):
            visit(child, self)
        scope = Scope("class", self.scope, node)
        self.scopes[node] = scope
        self._visit_in(scope, node.body)
        return False

    def _visit_comprehension(self, node: cst.BaseComp, *results: cst.CSTNode) -> bool:
        for_in = node.for_in
        visit(for_in.iter, self)  # the first iterable runs in the enclosing scope
        scope = Scope("comprehension", self.scope, node)
        self.scopes[node] = scope
        self.stack.append(scope)
        level: cst.CompFor | None = for_in
        first = True
        while level is not None:
            if not first:
                visit(level.iter, self)
            for name, position in target_positions(level.target):
                self.scope.bind(name.value, LoopBinding(level.iter, position))
            visit(level.target, self)
            for condition in level.ifs:
                visit(condition, self)
            level = level.inner_for_in
            first = False
        for result in results:
            visit(result, self)
        self.stack.pop()
        return False

    def visit_ListComp(self, node: cst.ListComp) -> bool:
        return self._visit_comprehension(node, node.elt)

    def visit_SetComp(self, node: cst.SetComp) -> bool:
        return self._visit_comprehension(node, node.elt)

    def visit_GeneratorExp(self, node: cst.GeneratorExp) -> bool:
        return self._visit_comprehension(node, node.elt)

    def visit_DictComp(self, node: cst.DictComp) -> bool:
        return self._visit_comprehension(node, node.key, node.value)

    # --- binding statements ------------------------------------------------
    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            self._bind_unpacked(target.target, node.value)

    def _bind_unpacked(self, target: cst.BaseExpression, value: cst.BaseExpression) -> None:
        """``a, b = b, a`` binds each name to its own element, not to the whole tuple."""
        if (
            isinstance(target, (cst.Tuple, cst.List))
            and isinstance(value, (cst.Tuple, cst.List))
            and len(target.elements) == len(value.elements)
            and not any(isinstance(e, cst.StarredElement) or isinstance(e.value, cst.StarredElement) for e in (*target.elements, *value.elements))
        ):
            for element, part in zip(target.elements, value.elements):
                self._bind_unpacked(element.value, part.value)
            return
        self._bind_target(target, ValueBinding(value))

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        if node.value is not None:
            self._bind_target(node.target, ValueBinding(node.value))

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        if isinstance(node.target, cst.Name):
            self.scope.bind(node.target.value, ValueBinding(node.value, augmented=True, operator=type(node.operator)))

    def visit_For(self, node: cst.For) -> None:
        for name, position in target_positions(node.target):
            self.scope.bind(name.value, LoopBinding(node.iter, position))

    def visit_WithItem(self, node: cst.WithItem) -> None:
        if node.asname is not None:
            self._bind_target(node.asname.name, OtherBinding(node))

    def visit_ExceptHandler(self, node: cst.ExceptHandler) -> None:
        if node.name is not None and isinstance(node.name.name, cst.Name):
            self.scope.bind(node.name.name.value, OtherBinding(node))

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        scope = self.scope
        while scope.kind == "comprehension" and scope.parent is not None:
            scope = scope.parent
        self._bind_target(node.target, ValueBinding(node.value), scope)

    def visit_Global(self, node: cst.Global) -> None:
        self.scope.globals.update(item.name.value for item in node.names)

    def visit_Nonlocal(self, node: cst.Nonlocal) -> None:
        self.scope.nonlocals.update(item.name.value for item in node.names)

    def visit_MatchAs(self, node: cst.MatchAs) -> None:
        if node.name is not None:
            self.scope.bind(node.name.value, OtherBinding(node))

    def visit_MatchStar(self, node: cst.MatchStar) -> None:
        if node.name is not None:
            self.scope.bind(node.name.value, OtherBinding(node))

    def visit_MatchMapping(self, node: cst.MatchMapping) -> None:
        if node.rest is not None:
            self.scope.bind(node.rest.value, OtherBinding(node))

    def visit_Import(self, node: cst.Import) -> bool:
        for alias in node.names:
            full = dotted_name(alias.name) or ""
            if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                self.scope.bind(alias.asname.name.value, ImportBinding(full, node, alias))
            else:
                top = full.split(".")[0]
                self.scope.bind(top, ImportBinding(top, node, alias))
        return False

    def visit_ImportFrom(self, node: cst.ImportFrom) -> bool:
        module = dotted_name(node.module) if node.module is not None else None
        relative = bool(node.relative)
        if isinstance(node.names, cst.ImportStar):
            if module and not relative:
                self.scope.star_imports.append(module)
            return False
        for alias in node.names:
            name = alias.name.value if isinstance(alias.name, cst.Name) else dotted_name(alias.name)
            bound = alias.asname.name.value if alias.asname is not None else name
            if not isinstance(bound, str):
                continue
            qualname = f"{module}.{name}" if module and not relative else f".{name}"
            self.scope.bind(bound, ImportBinding(qualname, node, alias))
        return False


def collect_scopes(module: cst.Module) -> ScopeCollector:
    collector = ScopeCollector(module)
    visit(module, collector)
    return collector


class ScopedVisitor(FastVisitor):
    """A visitor that knows, at every node, its scope (``scopes[-1]``) and the function whose body
    holds it directly (``functions[-1]``: None in lambdas, class bodies, decorators and defaults).

    Only the hooks of scope-creating nodes do the bookkeeping (no per-node ``on_visit``): a subclass
    that defines one of them calls ``super()`` first (visit) or last (leave).
    """

    def __init__(self, scopes: dict[cst.CSTNode, Scope]) -> None:
        super().__init__()
        self.scope_of = scopes
        self.scopes: list[Scope] = []
        self.functions: list[cst.FunctionDef | None] = []

    def _enter(self, node: cst.CSTNode, function: cst.FunctionDef | None = None, body: bool = True) -> None:
        scope = self.scope_of.get(node)
        if scope is not None:
            self.scopes.append(scope)
        if body:
            self.functions.append(function)

    def _exit(self, node: cst.CSTNode, body: bool = True) -> None:
        if body:
            self.functions.pop()
        if node in self.scope_of:
            self.scopes.pop()

    def visit_Module(self, node: cst.Module) -> None:
        self._enter(node, body=False)

    def leave_Module(self, node: cst.Module) -> None:
        self._exit(node, body=False)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._enter(node, node)

    def leave_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._exit(node)

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self._enter(node)

    def leave_ClassDef(self, node: cst.ClassDef) -> None:
        self._exit(node)

    def visit_Lambda(self, node: cst.Lambda) -> None:
        self._enter(node)

    def leave_Lambda(self, node: cst.Lambda) -> None:
        self._exit(node)

    def visit_Decorator(self, node: cst.Decorator) -> None:
        self._enter(node)

    def leave_Decorator(self, node: cst.Decorator) -> None:
        self._exit(node)

    def visit_Parameters(self, node: cst.Parameters) -> None:
        self._enter(node)

    def leave_Parameters(self, node: cst.Parameters) -> None:
        self._exit(node)

    def visit_ListComp(self, node: cst.ListComp) -> None:
        self._enter(node, body=False)

    def leave_ListComp(self, node: cst.ListComp) -> None:
        self._exit(node, body=False)

    def visit_SetComp(self, node: cst.SetComp) -> None:
        self._enter(node, body=False)

    def leave_SetComp(self, node: cst.SetComp) -> None:
        self._exit(node, body=False)

    def visit_DictComp(self, node: cst.DictComp) -> None:
        self._enter(node, body=False)

    def leave_DictComp(self, node: cst.DictComp) -> None:
        self._exit(node, body=False)

    def visit_GeneratorExp(self, node: cst.GeneratorExp) -> None:
        self._enter(node, body=False)

    def leave_GeneratorExp(self, node: cst.GeneratorExp) -> None:
        self._exit(node, body=False)


def instance_class(name: str, scope: Scope) -> str | None:
    """The module-level class every binding of the local ``name`` makes an instance of (``opt = Adam(shapes)``), or None."""
    found, bindings = scope.lookup(name)
    if found is None or found.kind != "function" or not bindings:
        return None
    classes = set()
    for binding in bindings:
        value = binding.value if isinstance(binding, ValueBinding) and not binding.augmented else None
        if not (isinstance(value, cst.Call) and isinstance(value.func, cst.Name)):
            return None
        owner, defs = found.lookup(value.func.value)
        if owner is None or owner.kind != "module" or not any(
                isinstance(d, DefBinding) and isinstance(d.node, cst.ClassDef) for d in defs):
            return None
        classes.add(value.func.value)
    return classes.pop() if len(classes) == 1 else None
