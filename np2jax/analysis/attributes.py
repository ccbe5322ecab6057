"""Array attributes written in place by methods: can ``self.x[i] = v`` become ``self.x = self.x.at[i].set(v)``?

In NumPy the write changes the one array object ``self.x`` refers to, so every
other reference to that object sees it; in JAX the attribute is rebound to a
new array and other references keep the old value.  On the object itself the
two agree.  So the rewrite is exact when no other reference can exist, which
this module checks for each attribute name, over the whole module:

* every ``self.x = value`` in any method binds a fresh array (a constructor,
  a copy, an arithmetic result): never the caller's array (``self.x = x0``,
  ``np.asarray(x0)``), another attribute or a view;
* ``self.x`` (or a view of it) is never handed out: not returned, yielded,
  assigned to another name, attribute or container, passed to a function
  that is not a NumPy computation, or iterated over; ``.x`` is never used on
  anything but a method's ``self``, and no method passes ``self`` itself to a
  function (``copy.copy(self)`` shares the arrays);
* the class is seen whole: no class decorator (``@dataclass`` makes an
  ``__init__`` that stores the caller's array), no base class from another
  module, no class-level binding of the name (shared by all instances).

Augmented assignments (``self.x *= 0.5``) on array attributes follow the same
rule: in NumPy they write into the array in place.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import libcst as cst

from np2jax.analysis.aliasing import certain_ndim, reshaped_in_place, has_number_hint, is_fresh_array, is_python_container, may_alias_node
from np2jax.analysis.jax_values import makes_jax_array
from np2jax.analysis.private_arguments import private_call
from np2jax.analysis.resolve import Resolver, is_numpy
from np2jax.analysis.scope import DefBinding, ParamBinding, Scope, ScopedVisitor
from np2jax.analysis.value_kinds import literal_value
from np2jax.tables import lookup_numpy
from np2jax.visitors import visit

ARRAY_ATTRIBUTES = frozenset("shape ndim dtype size T reshape ravel sum mean std dot astype copy fill sort".split())
SCALAR_KINDS = frozenset({"dtype", "type", "static", "constant"})
HARMLESS_BUILTINS = frozenset("builtins." + n for n in "len float int bool abs round print isinstance str repr".split())


@dataclass
class _Facts:
    """What the methods of the module do with one attribute name."""

    inplace: bool = False  # written in place somewhere (subscript write or augmented assignment)
    array: bool = False  # evidence it holds an array
    container: bool = False  # it is bound to a list, dict or other Python container somewhere
    caller_value: str | None = None  # a store of a method's parameter that may be an array (`self.x = x0`)
    jax_made: bool = True  # every store makes a JAX array once migrated (analysis/jax_values.py)
    numbers: bool | None = None  # every store is a Python number (`self.n = 0`, `self.dt = dt` with `dt: float`)
    problem: str | None = None  # first reason another reference may see the array
    ndims: set = field(default_factory=set)  # the dimensions each store certainly makes (None: not known)
    # `v = self.x[i]`: a copy of one element when every store makes an array of as many dimensions as indices
    element_reads: list[tuple[int, Callable[[], str]]] = field(default_factory=list)
    # `self.y[1:] = self.x[:-1]` copies into these attributes: fine when they hold arrays (a list would keep `self.x`)
    copied_into: list[tuple[str, Callable[[], str]]] = field(default_factory=list)


@dataclass
class ModuleAttributes:
    """Per class family (classes of the module related by inheritance) and attribute name:
    may in-place writes to ``self.<name>`` in its methods become rebindings?"""

    module: cst.Module | None = None
    resolver: Resolver | None = None
    methods: dict[cst.FunctionDef, tuple[str, str]] = field(default_factory=dict)  # method -> (its `self`, family)
    facts: dict[tuple[str, str], _Facts] = field(default_factory=dict)  # (family, name) -> facts
    foreign: dict[str, str] = field(default_factory=dict)  # name -> a use of `.name` on another object
    family_problems: dict[str, str] = field(default_factory=dict)  # family -> a reason that holds for all its attributes
    module_problem: str | None = None  # a reason that holds for every attribute of the module

    def self_attribute(self, function: cst.FunctionDef | None, node: cst.BaseExpression) -> str | None:
        """``x`` when ``node`` is ``self.x`` in method ``function``, else None."""
        if function is None or not isinstance(node, cst.Attribute):
            return None
        if self.module is not None:  # analysed on first use by a method: most modules never ask
            if not _may_be_method(function, self.resolver) or not _on_first_parameter(function, node):
                return None
            module, self.module = self.module, None
            visit(module, _AttributeUses(self, self.resolver, self.resolver.scopes[module], _families(module, self.resolver.scopes[module])))
        method = self.methods.get(function) if function is not None else None
        if method is None or not isinstance(node, cst.Attribute):
            return None
        base = node.value
        return node.attr.value if isinstance(base, cst.Name) and base.value == method[0] and not node.lpar else None

    def blocker(self, function: cst.FunctionDef | None, node: cst.BaseExpression) -> str | None:
        """None when a write to ``node`` (``self.x``) can become a rebinding of the attribute, else why not."""
        name = self.self_attribute(function, node)
        if name is None:
            return "the written array is not a plain local name or an attribute of `self` (an attribute of another object, a container or an expression)"
        family = self.methods[function][1]
        facts = self.facts.get((family, name))
        if facts is None:
            return "np2jax could not analyse this attribute"
        return facts.problem or self.foreign.get(name) or self.family_problems.get(family) or self.module_problem

    def _facts_of(self, function: cst.FunctionDef | None, node: cst.BaseExpression) -> _Facts | None:
        name = self.self_attribute(function, node)
        return self.facts.get((self.methods[function][1], name)) if name is not None else None

    def is_array(self, function: cst.FunctionDef | None, node: cst.BaseExpression) -> bool:
        facts = self._facts_of(function, node)
        return facts is not None and facts.array and not facts.container

    def is_number(self, function: cst.FunctionDef | None, node: cst.BaseExpression) -> bool:
        """``self.x`` is only ever set to Python numbers, and ``.x`` is used on no other object."""
        facts = self._facts_of(function, node)
        return facts is not None and bool(facts.numbers) and not facts.array and node.attr.value not in self.foreign

    def caller_value(self, function: cst.FunctionDef | None, node: cst.BaseExpression) -> str | None:
        """``self.x = x0`` somewhere, ``x0`` a parameter with no number hint: the caller's object, maybe an array."""
        facts = self._facts_of(function, node)
        return facts.caller_value if facts is not None and not facts.container else None

    def holds_jax_array(self, function: cst.FunctionDef | None, node: cst.BaseExpression) -> bool:
        """Every ``self.x = value`` of the class makes a JAX array once migrated (``np.zeros(n)``, ``jnp.eye(k)``)."""
        facts = self._facts_of(function, node)
        return facts is not None and facts.jax_made

    def is_container(self, function: cst.FunctionDef | None, node: cst.BaseExpression) -> bool:
        """``self.x`` is bound to a Python list, dict ... (in some method): writing into it is Python's business."""
        facts = self._facts_of(function, node)
        return facts is not None and facts.container


def _may_be_method(function: cst.FunctionDef, resolver: Resolver) -> bool:
    """``function`` is defined directly in a class body (only methods get attribute facts)."""
    scope = resolver.scopes.get(function)
    return scope is not None and scope.parent is not None and scope.parent.kind == "class"


def _on_first_parameter(function: cst.FunctionDef, node: cst.Attribute) -> bool:
    """``node`` is ``p.x`` for the first parameter ``p`` of ``function`` (what ``self`` would be)."""
    params = function.params.params
    return bool(params) and isinstance(node.value, cst.Name) and node.value.value == params[0].name.value


def analyse_attributes(module: cst.Module, resolver: Resolver) -> ModuleAttributes:
    """The attribute facts of ``module``, computed when first asked for."""
    return ModuleAttributes(module, resolver)


def _families(module: cst.Module, module_scope: Scope) -> dict[cst.ClassDef, str]:
    """Each class of the module -> the name of its family (classes of the module that inherit from each other)."""
    classes = [b.node for bindings in module_scope.bindings.values() for b in bindings
               if isinstance(b, DefBinding) and isinstance(b.node, cst.ClassDef)]
    parent = {c.name.value: c.name.value for c in classes}

    def root(name: str) -> str:
        while parent.get(name, name) != name:
            name = parent[name]
        return name

    for node in classes:
        for base in node.bases:
            if isinstance(base.value, cst.Name) and base.value.value in parent:
                parent[root(base.value.value)] = root(node.name.value)
    return {node: root(node.name.value) for node in classes}


class _AttributeUses(ScopedVisitor):
    def __init__(self, result: ModuleAttributes, resolver: Resolver, module_scope: Scope, families: dict[cst.ClassDef, str]) -> None:
        super().__init__(resolver.scopes)
        self.result = result
        self.resolver = resolver
        self.module_scope = module_scope
        self.families = families
        self.called: set[cst.Attribute] = set()  # attributes called as methods (`X.mean(axis=0)`)
        self.classes: list[cst.ClassDef] = []
        self.class_names: dict[str, set[str]] = {}  # family -> names bound in its class bodies

    @property
    def method(self) -> cst.FunctionDef | None:
        """The method whose body is being visited directly (not a nested function or lambda)."""
        return self.functions[-1] if self.functions and self.functions[-1] in self.result.methods else None

    def _facts(self, name: str) -> _Facts:
        family = self.result.methods[self.method][1]
        facts = self.result.facts.get((family, name))
        if facts is None:
            facts = self.result.facts[(family, name)] = _Facts()
            if name in self.class_names.get(family, ()):
                facts.problem = f"`{name}` is also a class attribute, shared by every instance"
        return facts

    def _flag(self, name: str, why: str | Callable[[], str]) -> None:
        """Record the first problem of ``name``; ``why`` may be a function, called only then (messages quote code)."""
        facts = self._facts(name)
        if facts.problem is None:
            facts.problem = why if isinstance(why, str) else why()

    def _self_attr(self, node: cst.BaseExpression) -> str | None:
        return self.result.self_attribute(self.method, node)

    def _aliases(self, expr: cst.BaseExpression) -> list[str]:
        """Attribute names ``expr`` may evaluate to (or to a view or container of)."""
        found: list[str] = []

        def is_array(node: cst.BaseExpression) -> bool:
            name = self._self_attr(node)
            if name is not None and name not in found:
                found.append(name)
            return False  # keep looking: a tuple may hold several

        scope = self.scopes[-1]
        may_alias_node(expr, is_array, self.resolver, scope,
                       lambda call, argument: private_call(call, None, self.resolver, scope, argument=argument))
        return found

    def _escapes(self, expr: cst.BaseExpression | None, how: str | Callable[[], str]) -> None:
        if expr is None:
            return
        element = self._element_read(expr)
        if element is not None:  # decided once every store is known (leave_Module)
            name, indices = element
            self._facts(name).element_reads.append((indices, self._escape_message(name, how)))
            return
        for name in self._aliases(expr):
            self._flag(name, lambda: f"`self.{name}` (or a view of it) {how if isinstance(how, str) else how()}: "
                       "NumPy's in-place writes would change it there too")

    @staticmethod
    def _escape_message(name: str, how: str | Callable[[], str]) -> Callable[[], str]:
        return lambda: (f"`self.{name}` (or a view of it) {how if isinstance(how, str) else how()}: "
                        "NumPy's in-place writes would change it there too")

    def _element_read(self, expr: cst.BaseExpression) -> tuple[str, int] | None:
        """``self.x[i]`` / ``self.x[i, j]`` with integer indices only: (``x``, how many)."""
        from np2jax.analysis.indexing import IndexClassifier  # (indexing imports aliasing, which this imports)

        if not isinstance(expr, cst.Subscript) or self.method is None:
            return None
        name = self._self_attr(expr.value)
        ints = IndexClassifier(self.resolver, self.scopes[-1])
        if name is None or not all(
                isinstance(e.slice, cst.Index) and e.slice.star is None and not isinstance(e.slice.value, cst.Ellipsis)
                and not (isinstance(e.slice.value, cst.Name) and e.slice.value.value == "None")
                and ints.is_int(e.slice.value) for e in expr.slice):
            return None
        return name, len(expr.slice)

    def leave_Module(self, node: cst.Module) -> None:
        for (family, name), facts in self.result.facts.items():
            if facts.element_reads and reshaped_in_place(node, name):
                facts.ndims.add(None)  # `self.x.shape = (n, 2)` somewhere: not the dimensions it was made with
            if facts.problem is not None:
                continue
            if facts.element_reads and not (
                    len(facts.ndims) == 1 and all(indices in facts.ndims for indices, _ in facts.element_reads)):
                facts.problem = facts.element_reads[0][1]()
            else:
                for target, why in facts.copied_into:
                    into = self.result.facts.get((family, target))
                    if into is None or not into.array or into.container:
                        facts.problem = why()
                        break
        super().leave_Module(node)

    # --- classes and methods -----------------------------------------------------------
    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        super().visit_ClassDef(node)
        self.classes.append(node)
        family = self.families.get(node, f"<{id(node)}>")  # a class inside a function: a family of its own
        if node.decorators:
            self.result.family_problems.setdefault(family, f"the class `{node.name.value}` is decorated: the decorator may store or copy arrays in code np2jax cannot see")
        if not all(self._is_local_class(base.value) for base in node.bases) or node.keywords:
            self.result.family_problems.setdefault(family, f"the class `{node.name.value}` inherits from a class of another module, which may use its arrays")
        class_scope = self.resolver.scopes.get(node)
        if class_scope is not None:
            self.class_names.setdefault(family, set()).update(class_scope.bindings)
        body = node.body.body if isinstance(node.body, cst.IndentedBlock) else ()
        for statement in body:
            if isinstance(statement, cst.FunctionDef) and statement.params.params:
                if not any(self._is_static_or_class(d.decorator) for d in statement.decorators):
                    self.result.methods[statement] = (statement.params.params[0].name.value, family)

    def leave_ClassDef(self, node: cst.ClassDef) -> None:
        self.classes.pop()
        super().leave_ClassDef(node)

    def _is_local_class(self, base: cst.BaseExpression) -> bool:
        if isinstance(base, cst.Name) and base.value == "object":
            return True
        if not isinstance(base, cst.Name):
            return False
        bindings = self.module_scope.bindings.get(base.value, [])
        return len(bindings) == 1 and isinstance(bindings[0], DefBinding) and isinstance(bindings[0].node, cst.ClassDef)

    def _is_static_or_class(self, decorator: cst.BaseExpression) -> bool:
        return isinstance(decorator, cst.Name) and decorator.value in ("staticmethod", "classmethod")

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        super().visit_FunctionDef(node)
        if node in self.result.methods:
            self_name = self.result.methods[node][0]
            scope = self.resolver.scopes.get(node)
            if scope is not None and len(scope.bindings.get(self_name, ())) != 1:
                self.result.methods.pop(node)  # `self` is rebound: its attributes are not this object's

    # --- uses ----------------------------------------------------------------------
    def visit_Attribute(self, node: cst.Attribute) -> None:
        name = node.attr.value
        if self.method is not None and name == "__dict__":
            self.result.family_problems.setdefault(self.result.methods[self.method][1], f"`{_code(node)}` gives access to every attribute")
        if (name not in self.result.foreign and node not in self.called and self._self_attr(node) is None
                and self.resolver.qualname(node, self.scopes[-1]) is None):
            # `.name` on something that is neither a method's `self` nor a module's member
            self.result.foreign[name] = f"`.{name}` is also used on another object than a method's `self` (`{_code(node)}`), which may share the array"

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            name = self._self_attr(target.target)
            if name is not None:
                self._store(name, node.value)
            elif isinstance(target.target, cst.Subscript):
                self._inplace(self._self_attr(target.target.value))
            elif isinstance(target.target, (cst.Tuple, cst.List)):
                for element in target.target.elements:
                    unpacked = self._self_attr(element.value)
                    if unpacked is not None:
                        self._flag(unpacked, f"`self.{unpacked}` is assigned by unpacking, which may keep an array referenced elsewhere")
                    elif isinstance(element.value, cst.Subscript):
                        self._inplace(self._self_attr(element.value.value))
        into = [self._self_attr(t.target.value) if isinstance(t.target, cst.Subscript) else None for t in node.targets]
        if into and all(into) and self._element_read(node.value) is None:
            for name in self._aliases(node.value):  # `self.buf[1:] = self.buf[:-1]`: values copied into an array
                self._facts(name).copied_into.append((into[0], self._escape_message(name, "is assigned to another name, attribute or container")))
            return
        self._escapes(node.value, "is assigned to another name, attribute or container")

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        name = self._self_attr(node.target)
        if name is not None:
            self._store(name, node.value)
        self._escapes(node.value, "is assigned to another name, attribute or container")

    def _store(self, name: str, value: cst.BaseExpression | None) -> None:
        if value is None:
            return
        self._facts(name).ndims.add(certain_ndim(value, self.resolver, self.scopes[-1]))
        if self._is_array_value(value):
            self._facts(name).array = True
        if is_python_container(value, self.resolver, self.scopes[-1]):
            self._facts(name).container = True
        if not makes_jax_array(value, self.resolver, self.scopes[-1]):
            self._facts(name).jax_made = False
        number = literal_value(value) is not None or self._number_parameter(value)
        self._facts(name).numbers = number and self._facts(name).numbers is not False
        if self._unhinted_parameter(value) and self._facts(name).caller_value is None:
            self._facts(name).caller_value = f"self.{name} = {value.value}"
        if not is_fresh_array(value, self.resolver, self.scopes[-1]):
            self._flag(name, lambda: f"`self.{name} = {_code(value)}` may keep an array that is also referenced elsewhere (the caller's argument, another attribute or a view); "
                       f"NumPy's in-place writes to `self.{name}` would change it too (store a copy to avoid this)")

    def _unhinted_parameter(self, value: cst.BaseExpression) -> bool:
        """``value`` is a parameter of the method being visited that nothing says is a Python number."""
        if not isinstance(value, cst.Name) or self.method is None:
            return False
        found, bindings = self.scopes[-1].lookup(value.value)
        return found is self.resolver.scopes.get(self.method) and any(
            isinstance(b, ParamBinding) and not has_number_hint(b.param) for b in bindings
        )

    def _number_parameter(self, value: cst.BaseExpression) -> bool:
        """``value`` is a parameter of the method being visited hinted as a Python number (``dt: float``, ``n=3``)."""
        if not isinstance(value, cst.Name) or self.method is None:
            return False
        found, bindings = self.scopes[-1].lookup(value.value)
        return found is self.resolver.scopes.get(self.method) and any(
            isinstance(b, ParamBinding) and has_number_hint(b.param) for b in bindings
        )

    def _is_array_value(self, value: cst.BaseExpression) -> bool:
        if isinstance(value, cst.Call):
            qualname = self.resolver.qualname(value.func, self.scopes[-1]) or ""
            if is_numpy(qualname) or qualname.startswith("jax.numpy."):
                return True
            return isinstance(value.func, cst.Attribute) and value.func.attr.value in ("copy", "astype")
        return False

    def _inplace(self, name: str | None) -> None:
        if name is not None:
            facts = self._facts(name)
            facts.inplace = facts.array = True

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        name = self._self_attr(node.target)
        if name is not None:
            self._facts(name).inplace = True
        elif isinstance(node.target, cst.Subscript):
            self._inplace(self._self_attr(node.target.value))
        if node.value is not node.target and self._self_attr(node.value) is None:
            self._escapes(node.value, "is stored in a container")

    def visit_Subscript(self, node: cst.Subscript) -> None:
        name = self._self_attr(node.value)
        if name is not None:
            self._facts(name).array = True

    def visit_Return(self, node: cst.Return) -> None:
        self._escapes(node.value, "is returned")

    def visit_Yield(self, node: cst.Yield) -> None:
        if isinstance(node.value, cst.BaseExpression):
            self._escapes(node.value, "is yielded")

    def visit_For(self, node: cst.For) -> None:
        self._escapes(node.iter, "is iterated over (its rows are views)")

    def visit_CompFor(self, node: cst.CompFor) -> None:
        self._escapes(node.iter, "is iterated over (its rows are views)")

    def visit_WithItem(self, node: cst.WithItem) -> None:
        self._escapes(node.item, "is bound by a `with` statement")

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        self._escapes(node.value, "is assigned to another name")

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if isinstance(func, cst.Attribute):
            self.called.add(func)  # `X.mean(axis=0)`: a method, not an array attribute (an array is not callable)
            name = self._self_attr(func.value)
            if name is not None and func.attr.value in ARRAY_ATTRIBUTES:
                self._facts(name).array = True
        qualname = self.resolver.qualname(func, self.scopes[-1]) or ""
        if qualname == "copy.copy":
            self.result.module_problem = self.result.module_problem or "the module makes shallow copies (`copy.copy`), which share arrays"
        if is_numpy(qualname) or qualname.startswith("jax.numpy."):
            row = lookup_numpy(qualname) if is_numpy(qualname) else None
            for arg in node.args:
                name = self._self_attr(arg.value)
                if name is not None and (row is None or row.kind not in SCALAR_KINDS):  # np.float32(self.lr) is no evidence
                    self._facts(name).array = True
            return  # a NumPy computation; a view it returns is judged where the result goes
        if qualname in HARMLESS_BUILTINS:
            return
        self_name = self.result.methods[self.method][0] if self.method is not None else None
        for arg in node.args:
            if self_name is not None and isinstance(arg.value, cst.Name) and arg.value.value == self_name:
                self.result.family_problems.setdefault(
                    self.result.methods[self.method][1], f"`{self_name}` is passed to `{_code(func)}`, which may keep or copy its arrays"
                )
            if not private_call(node, None, self.resolver, self.scopes[-1], argument=arg.value):
                self._escapes(arg.value, lambda: f"is passed to `{_code(func)}`, which may keep it")


def _code(node: cst.CSTNode) -> str:
    return cst.Module(body=[]).code_for_node(node)
