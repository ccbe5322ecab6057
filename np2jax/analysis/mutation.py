"""Functions that mutate their array arguments: can they return the updated arrays instead?

``def f(x): x[0] = 0`` changes the caller's array in NumPy; JAX arrays cannot
change.  The equivalent JAX function rebinds ``x`` and returns it, and every
call ``f(a)`` becomes ``a = f(a)``.  That is exact only when all of this holds:

* ``f`` is a plain module-level function that returns nothing (no ``return
  value``, no ``yield``, no decorator), whose mutated parameters have no
  default and are seen by no other name or view inside ``f`` (the aliasing
  analysis decides that, as for local arrays);
* ``f``'s name is only ever called, never used as a value (callbacks,
  ``map(f, ...)``, ``functools.partial``), and every call is a statement of
  its own inside a function body, passing each mutated parameter a plain name
  of the caller that no other name, view or argument of the call can observe
  (the condition for rewriting a write to that name in the caller);
* when that name is a parameter of the caller, the caller mutates *its*
  argument too: it must satisfy all of this itself (the mutation cascades up
  the call chain), or ``f`` is not rewritten.

Mutated parameters come back in signature order: ``return x`` or ``return x, y``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst

from np2jax.analysis.aliasing import FunctionAliasing, has_array_evidence, is_fresh_array, may_alias
from np2jax.analysis.container_items import read_after
from np2jax.analysis.resolve import Resolver, is_numpy
from np2jax.analysis.scope import DefBinding, LoopBinding, ParamBinding, Scope, ScopedVisitor, ValueBinding
from np2jax.analysis.writes import written_subscripts
from np2jax.tables import lookup_numpy
from np2jax.visitors import FastVisitor, visit


@dataclass
class CallSite:
    call: cst.Call
    statement: cst.Expr | None  # the expression statement the call is, if it is one
    caller: cst.FunctionDef | None  # innermost function whose body holds the call (not a lambda)
    scope: Scope | None  # the scope the call is evaluated in
    names: tuple[str, ...] = ()  # the caller's names passed for the mutated parameters, in their order
    problem: str | None = None  # why the call cannot become `names = f(...)`
    cascade: tuple[str, ...] = ()  # names that are parameters of the caller, mutated through this call
    target: cst.BaseExpression | None = None  # `t` of `t = f(...)`, when the call is the whole assigned value
    returned: bool = False  # the call is the whole value of a `return`


@dataclass
class MutatingFunction:
    name: str
    node: cst.FunctionDef
    params: list[str] = field(default_factory=list)  # mutated parameters, in signature order
    problem: str | None = None  # why it cannot return them instead; None: it does
    calls: list[CallSite] = field(default_factory=list)
    maybe: list[str] = field(default_factory=list)  # parameters it may update in place (`x += v`) and returns a value
    handed: list[str] = field(default_factory=list)  # of ``maybe``: written in place and what every `return` returns


class ModuleMutations:
    """Which module-level functions mutate which parameters, and which of them return them instead."""

    def __init__(self, module: cst.Module, resolver: Resolver, blocked: dict[str, str] | None = None, keep_all: str | None = None) -> None:
        """``blocked``: functions that must keep mutating (name -> why), e.g. because a caller stays NumPy;
        ``keep_all``: why every function must (NPJ203 is not selected)."""
        self.resolver = resolver
        self.module_scope = resolver.scopes[module]
        self.functions: dict[str, MutatingFunction] = {}
        self._aliasing: dict[cst.FunctionDef, FunctionAliasing] = {}
        # function -> parameters it updates with `op=` only, with no other evidence that they are arrays than that
        # it returns nothing (see _mutated_parameters): each call must pass an array there (_holds_array)
        self._purpose: dict[cst.FunctionDef, set[str]] = {}
        for name, bindings in self.module_scope.bindings.items():
            if len(bindings) == 1 and isinstance(bindings[0], DefBinding) and isinstance(bindings[0].node, cst.FunctionDef):
                self.functions[name] = MutatingFunction(name, bindings[0].node)
        for function in self.functions.values():
            function.params, function.maybe = self._mutated_parameters(function.node)
            function.handed = self._handed_back(function)
            if function.handed:  # `A[i] += eps; return A`: a caller that uses the result sees the update either way
                function.params = [p for p in function.params if p not in function.handed]
                function.maybe = [p for p in _parameter_names(function.node) if p in function.maybe or p in function.handed]
        self.rebinds: dict[cst.Expr, tuple[str, ...]] = {}
        self._relied: dict[cst.FunctionDef, dict[str, str]] = {}
        if not any(function.params or function.maybe for function in self.functions.values()):
            return  # nothing writes into its arguments: no call to look at
        finder = _References(self, resolver)
        visit(module, finder)
        self._find_reliance(finder.value_uses)
        for name, problem in finder.value_uses.items():
            self.functions[name].problem = problem
        self._cascade()
        for name, why in (blocked or {}).items():
            if name in self.functions and self.functions[name].params:
                self.functions[name].problem = why
            for param in self.functions[name].maybe if name in self.functions else ():
                self._relied.setdefault(self.functions[name].node, {}).setdefault(
                    param, _relied_message(param, why, param in self.functions[name].handed))
        for function in self.functions.values():
            if keep_all and function.params:
                function.problem = keep_all
            for param in function.handed if keep_all else ():
                self._relied.setdefault(function.node, {}).setdefault(param, _relied_message(param, keep_all, True))
        self._settle()
        self.rebinds = {
            site.statement: site.names
            for function in self.returning()
            for site in function.calls
            if site.statement is not None
        }

    # --- answers --------------------------------------------------------------
    def returning(self) -> list[MutatingFunction]:
        """Functions that will return their mutated parameters."""
        return [f for f in self.functions.values() if f.params and f.problem is None]

    def returned(self, node: cst.FunctionDef) -> tuple[frozenset[str], str | None]:
        """Parameters ``node`` returns instead of mutating, and why it cannot when it mutates some but cannot."""
        function = self._function_of(node)
        if function is None or not function.params:
            return frozenset(), None
        if function.problem is not None:
            return frozenset(), function.problem
        return frozenset(function.params), None

    def handed_back(self, node: cst.FunctionDef) -> frozenset[str]:
        """Parameters ``node`` writes into and returns (``A[i] += eps; return A``) whose in-place update no use in
        the module relies on: writing them becomes a rebinding, as if the function returned them instead."""
        function = self._function_of(node)
        if function is None:
            return frozenset()
        relied = self._relied.get(node, {})
        return frozenset(p for p in function.handed if p not in relied)

    def rebinding(self) -> list[str]:
        """Functions returning a value whose ``x op= v`` on a parameter becomes a plain rebinding because no use
        in the module relies on the update (a use in another module may: np2jax.project)."""
        return [f.name for f in self.functions.values() if any(p not in self._relied.get(f.node, {}) for p in f.maybe)]

    def relied_on(self, node: cst.FunctionDef) -> dict[str, str]:
        """Parameters that ``node`` (a function returning a value) updates with ``x op= v``, and that a use of
        it in the module relies on being updated in place, with why (the migrated ``x op= v`` only rebinds).
        For a method: a call of a method of that name (``opt.step(params, g)``) that drops its result."""
        if node not in self._relied and self._function_of(node) is None:
            self._relied[node] = self._method_reliance(node)
        return self._relied.get(node, {})

    def _method_reliance(self, node: cst.FunctionDef) -> dict[str, str]:
        params = _parameter_names(node)
        if not params or params[0] not in ("self", "cls"):
            return {}
        mutated, maybe = self._mutated_parameters(node)
        updated = [name for name in params[1:] if name in mutated or name in maybe]
        if not updated:
            return {}
        owner = next((statement.name.value for statement in self.module_scope.node.body if isinstance(statement, cst.ClassDef)
                      and any(member is node for member in statement.body.body)), None)
        found: dict[str, str] = {}
        for call, receiver in _dropped_method_calls(self.module_scope.node, self.resolver).get(node.name.value, ()):
            if receiver is not None and receiver != owner:
                continue  # `opt.step(...)` with `opt = Momentum(...)`: another class's method of that name
            bound = _bind_arguments(node, call.with_changes(args=[cst.Arg(cst.Name("self")), *call.args]))
            for name in updated:
                if bound is not None and name in bound and name not in found:
                    found[name] = _relied_message(name, f"`{_code(call)}` drops the method's result and relies on it")
        return found

    def function(self, node: cst.FunctionDef) -> MutatingFunction | None:
        """The facts about module-level function ``node`` (None for methods and nested functions)."""
        return self._function_of(node)

    def _function_of(self, node: cst.FunctionDef) -> MutatingFunction | None:
        function = self.functions.get(node.name.value)
        return function if function is not None and function.node is node else None

    # --- analysis -------------------------------------------------------------
    def _body(self, node: cst.FunctionDef) -> _Body:
        """What ``node``'s body writes, returns and yields, found once per resolver (every instance asks)."""
        memo = self.resolver.memo.setdefault("mutation_bodies", {})
        body = memo.get(node)
        if body is None:
            body = memo[node] = _Body()
            visit(node.body, body)
        return body

    def aliasing(self, node: cst.FunctionDef) -> FunctionAliasing:
        found = self._aliasing.get(node)
        if found is None:
            found = self._aliasing[node] = FunctionAliasing(node, self.resolver.scopes[node], self.resolver)
        return found

    def _mutated_parameters(self, node: cst.FunctionDef) -> tuple[list[str], list[str]]:
        """The parameters ``node`` writes into, and those it may update in place while returning a value."""
        scope = self.resolver.scopes[node]
        aliasing = self.aliasing(node)
        writes = self._body(node)
        mutated: set[str] = set()
        maybe: set[str] = set()
        for target in writes.subscripts:
            if isinstance(target.value, cst.Name) and _is_parameter(scope, target.value.value):
                if aliasing.mutates_parameter(target.value.value, target):
                    mutated.add(target.value.value)
        for statement in writes.augmented:
            name = statement.target.value
            if aliasing.augmented_mutates_parameter(name, statement.target):
                mutated.add(name)
            elif aliasing.augmented_may_mutate_parameter(name, statement.target):
                maybe.add(name)
            elif aliasing.augmented_by_purpose(name, statement.target):
                # `def adam(p, g, m, v): m *= b1; ...; p -= lr * m_hat` returns nothing: it is written to update
                # array arguments (on numbers it would do nothing); each call must show that it passes an array
                mutated.add(name)
                self._purpose.setdefault(node, set()).add(name)
        names = _parameter_names(node)
        return [name for name in names if name in mutated], [name for name in names if name in maybe]

    def _handed_back(self, function: MutatingFunction) -> list[str]:
        """The parameter that ``function`` writes into in place and returns at every exit (``A[i] += eps; return A``):
        undecorated, not a generator, no default (NumPy would mutate the shared default), never rebound."""
        node, body = function.node, self._body(function.node)
        if node.decorators or node.asynchronous is not None or body.yields or not body.returns or not ends_with_exit(node.body):
            return []
        values = {ret.value.value if isinstance(ret.value, cst.Name) else None for ret in body.returns}
        if len(values) != 1 or None in values:
            return []
        name = values.pop()
        if name not in function.params:
            return []
        params = node.params
        if any(p.name.value == name and p.default is not None for p in (*params.posonly_params, *params.params, *params.kwonly_params)):
            return []
        scope = self.resolver.scopes[node]
        if any(not isinstance(b, ParamBinding) and not (isinstance(b, ValueBinding) and b.augmented) for b in scope.bindings[name]):
            return []
        return [name]

    def _find_reliance(self, value_uses: dict[str, str]) -> None:
        """``def f(x): x += v; return x``: NumPy updates an array argument in place, the migrated ``f`` only
        rebinds ``x``. A use of ``f`` that may observe the argument afterwards relies on the update."""
        for function in self.functions.values():
            if not function.maybe:
                continue
            for param in function.maybe:
                why = value_uses.get(function.name) or next(
                    (problem for site in function.calls if (problem := self._site_reliance(function, site, param))), None
                )
                if why is not None:
                    self._relied.setdefault(function.node, {})[param] = _relied_message(param, why, param in function.handed)

    def _site_reliance(self, function: MutatingFunction, site: CallSite, param: str) -> str | None:
        """Why the call ``site`` may observe the in-place update of ``param`` after the call (None: it cannot)."""
        bound = _bind_arguments(function.node, site.call)
        if bound is None:
            return f"a call of `{function.name}` unpacks `*args`/`**kwargs`"
        argument = bound.get(param)
        if argument is None:
            return None
        shown = _code(argument)
        if site.caller is None:
            return f"`{function.name}({shown}, ...)` is called outside a function body"
        caller_scope = self.resolver.scopes[site.caller]
        if isinstance(argument, cst.Name):
            bindings = caller_scope.bindings.get(argument.value, ())
            if bindings and all(isinstance(b, ValueBinding) and _is_number_literal(b.value) or self._range_index(b, caller_scope)
                                for b in bindings):
                return None  # a Python number (`i` of `for i in range(n)`): `+=` rebinds it in NumPy too
            # A local array no other name, container, attribute or view holds (not the caller's parameter, whose
            # caller holds it too: hunt47 S1-S4), which nothing reads after the call: `return f(a)`, `a = f(a)`,
            # `A = f(G)` with `G` never read again.
            if site.scope is caller_scope and bindings and not _is_parameter(caller_scope, argument.value) and (
                    self.aliasing(site.caller).blocker(argument.value, site.call) is None) and (
                    site.returned or (site.target is not None and site.target.deep_equals(argument))
                    or not read_after(site.caller, site.call, argument.value)):
                return None
        elif is_fresh_array(argument, self.resolver, site.scope):
            return None  # `f(x * 2)`, `f(x.copy())`: a temporary nobody observes
        return f"`{site.caller.name.value}` passes `{shown}` to `{function.name}` and may read it after the call"

    def _range_index(self, binding, scope) -> bool:
        """The target of ``for i in range(...)`` (or the count of ``enumerate``): a Python int."""
        if not isinstance(binding, LoopBinding) or not isinstance(binding.iterable, cst.Call):
            return False
        qualname = self.resolver.qualname(binding.iterable.func, scope)
        return (qualname == "builtins.range" and binding.position == ()) or (
            qualname == "builtins.enumerate" and binding.position == (0,))

    def _cascade(self) -> None:
        """A caller that passes its own parameter to a mutating function mutates that parameter too."""
        changed = True
        while changed:
            changed = False
            for function in self.functions.values():
                if not function.params:
                    continue
                for site in function.calls:
                    self._check_site(function, site)
                    caller = self.functions.get(site.caller.name.value) if site.caller is not None else None
                    if not site.cascade or caller is None or caller.node is not site.caller:
                        continue
                    for name in site.cascade:
                        if name not in caller.params:
                            caller.params = [p for p in _parameter_names(caller.node) if p in {*caller.params, name}]
                            changed = True

    def _settle(self) -> None:
        for function in self.functions.values():
            if function.params and function.problem is None:
                function.problem = self._own_problem(function)
        changed = True
        while changed:
            changed = False
            for function in self.returning():
                problem = next((site.problem for site in function.calls if site.problem), None)
                if problem is None:
                    problem = self._cascade_problem(function)
                if problem is not None:
                    function.problem = problem
                    changed = True

    def _holds_array(self, site: CallSite, name: str) -> bool:
        """Does ``name`` hold an array where ``site`` passes it: the caller uses it as one, or every binding is an
        array constructor's result (``np.zeros_like(p)``) or an ``op=`` on it?"""
        bindings = site.scope.bindings.get(name, ()) if site.scope is not None else ()
        if bindings and site.caller is not None and has_array_evidence(site.caller, name, self.resolver, site.scope):
            return True  # the caller indexes it, asks for its `.shape`, hands it to NumPy ...
        for binding in bindings:
            if isinstance(binding, ValueBinding) and binding.augmented:
                continue
            if isinstance(binding, ValueBinding) and isinstance(binding.value, cst.Call):
                qualname = self.resolver.qualname(binding.value.func, site.scope) or ""
                row = lookup_numpy(qualname) if is_numpy(qualname) else None
                if row is not None and row.kind == "constructor":
                    continue
            return False
        return bool(bindings)

    def _cascade_problem(self, function: MutatingFunction) -> str | None:
        for site in function.calls:
            if not site.cascade:
                continue
            caller = self._function_of(site.caller)
            if caller is None:
                return f"`{site.cascade[0]}` is a parameter of `{site.caller.name.value}`, a method or nested function: the mutation reaches its caller"
            if caller.problem is not None:
                return f"`{site.cascade[0]}` is a parameter of `{caller.name}`, which mutates it through this call and cannot return it ({caller.problem})"
        return None

    def _own_problem(self, function: MutatingFunction) -> str | None:
        node = function.node
        if node.decorators:
            return "it is decorated: the decorator may rely on the function's return value"
        if node.asynchronous is not None:
            return "it is `async`"
        body = self._body(node)
        if body.yields:
            return "it is a generator"
        if body.returns_value:
            return "it also returns a value: callers would get a different result"
        params = node.params
        for param in (*params.posonly_params, *params.params, *params.kwonly_params):
            if param.name.value in function.params and param.default is not None:
                return f"`{param.name.value}` has a default value, which NumPy would mutate (it is shared by every call)"
        scope = self.resolver.scopes[node]
        for name in function.params:
            if any(not isinstance(b, ParamBinding) and not (isinstance(b, ValueBinding) and b.augmented) for b in scope.bindings[name]):
                return f"`{name}` is also rebound (`{name} = ...`): after that, NumPy's writes no longer reach the caller's array"
        return None

    def _check_site(self, function: MutatingFunction, site: CallSite) -> None:
        site.problem, site.names, site.cascade = None, (), ()
        name = function.name
        if site.caller is None:
            site.problem = f"`{name}` is called outside a function body (module level, a class body, a lambda or a comprehension), where np2jax rewrites nothing"
            return
        if site.statement is None:
            site.problem = f"a call of `{name}` is part of an expression: only a call that is a statement of its own can become `a = {name}(a)`"
            return
        bound = _bind_arguments(function.node, site.call)
        if bound is None:
            site.problem = f"a call of `{name}` unpacks `*args`/`**kwargs` or does not match its signature"
            return
        aliasing = self.aliasing(site.caller)
        names, cascade = [], []
        for param in function.params:
            argument = bound.get(param)
            if argument is None:
                site.problem = f"a call of `{name}` does not pass `{param}`"
                return
            if not isinstance(argument, cst.Name):
                shown = _code(argument)
                site.problem = f"a call passes `{shown}` (not a plain local name) as `{param}`: NumPy mutates it in place, and it cannot be rebound"
                return
            arg_name = argument.value
            found, _ = site.scope.lookup(arg_name)
            if found is not site.scope or aliasing.is_container(arg_name):
                site.problem = f"a call passes `{arg_name}`, which is not a local array of `{site.caller.name.value}`, as `{param}`"
                return
            if param in self._purpose.get(function.node, ()) and not self._holds_array(site, arg_name):
                site.problem = (f"a call passes `{arg_name}` as `{param}`, which may be a Python number there: NumPy's "
                                f"`{param} op= ...` would leave it as it was, the caller's rebinding would not")
                return
            others = [a.value for a in site.call.args if a.value is not argument]
            if arg_name in names or any(may_alias(other, arg_name, self.resolver, site.scope) for other in others):
                site.problem = f"a call passes `{arg_name}` twice (or with a view of it): NumPy's write is seen through both"
                return
            blocker = aliasing.blocker(arg_name, site.call)
            if blocker is not None:
                if not aliasing.mutates_parameter(arg_name, site.call):
                    site.problem = f"in `{site.caller.name.value}`, {blocker}"
                    return
                cascade.append(arg_name)
            names.append(arg_name)
        site.names, site.cascade = tuple(names), tuple(cascade)


def ends_with_exit(body: cst.BaseSuite) -> bool:
    """The block's last statement is a ``return`` (or ``raise``): no path falls off its end."""
    last = body.body[-1] if body.body else None
    if isinstance(last, cst.SimpleStatementLine):
        last = last.body[-1]
    return isinstance(last, (cst.Return, cst.Raise))


def _relied_message(param: str, why: str, handed: bool = False) -> str:
    if handed:
        return (f"`{param}` is a parameter that this function writes into and returns: NumPy changes the caller's "
                f"array too, and {why}: the migrated function only returns the updated array")
    return (f"`{param}` is a parameter that `{param} {{op}}= ...` updates in place in NumPy when it is an array, "
            f"and {why}: the migrated code only rebinds `{param}`")


def _is_number_literal(expr: cst.BaseExpression) -> bool:
    if isinstance(expr, cst.UnaryOperation):
        expr = expr.expression
    return isinstance(expr, (cst.Integer, cst.Float, cst.Imaginary))


def _is_parameter(scope: Scope, name: str) -> bool:
    return any(isinstance(b, ParamBinding) for b in scope.bindings.get(name, ()))


def _parameter_names(node: cst.FunctionDef) -> list[str]:
    params = node.params
    return [p.name.value for p in (*params.posonly_params, *params.params, *params.kwonly_params)]


def _bind_arguments(node: cst.FunctionDef, call: cst.Call) -> dict[str, cst.BaseExpression] | None:
    params = node.params
    positional = [p.name.value for p in (*params.posonly_params, *params.params)]
    keywords = {p.name.value for p in (*params.params, *params.kwonly_params)}
    bound: dict[str, cst.BaseExpression] = {}
    for index, arg in enumerate(call.args):
        if arg.star:
            return None
        if arg.keyword is None:
            if index >= len(positional):
                return None
            bound[positional[index]] = arg.value
        elif arg.keyword.value in keywords and arg.keyword.value not in bound:
            bound[arg.keyword.value] = arg.value
        else:
            return None
    return bound


def _dropped_method_calls(module: cst.Module, resolver: Resolver) -> dict[str, list[tuple[cst.Call, str | None]]]:
    """Method name -> the calls ``obj.name(...)`` of the module that are statements of their own (the result
    dropped), each with the module's class ``obj`` is an object of when every binding of it makes one
    (``opt = Momentum(n)``), else None; once per module."""
    memo = resolver.memo.setdefault("dropped_method_calls", {})
    if module not in memo:
        finder = _DroppedCalls(resolver, module)
        visit(module, finder)
        memo[module] = finder.found
    return memo[module]


class _DroppedCalls(FastVisitor):
    def __init__(self, resolver: Resolver, module: cst.Module) -> None:
        super().__init__()
        self.resolver = resolver
        self.classes = {s.name.value for s in module.body if isinstance(s, cst.ClassDef)}
        self.scopes = [resolver.scopes[module]]
        self.found: dict[str, list[tuple[cst.Call, str | None]]] = {}

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.scopes.append(self.resolver.scopes.get(node, self.scopes[-1]))

    def leave_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.scopes.pop()

    def visit_Expr(self, node: cst.Expr) -> None:
        call = node.value
        if isinstance(call, cst.Call) and isinstance(call.func, cst.Attribute):
            self.found.setdefault(call.func.attr.value, []).append((call, self._class_of(call.func.value)))

    def _class_of(self, receiver: cst.BaseExpression) -> str | None:
        if not isinstance(receiver, cst.Name):
            return None
        _, bindings = self.scopes[-1].lookup(receiver.value)
        made = {b.value.func.value for b in bindings if isinstance(b, ValueBinding) and isinstance(b.value, cst.Call)
                and isinstance(b.value.func, cst.Name)}
        if len(made) == 1 and len(bindings) == 1 and next(iter(made)) in self.classes:
            return made.pop()
        return None


def _code(node: cst.CSTNode) -> str:
    return cst.Module(body=[]).code_for_node(node)


class _Body(FastVisitor):
    """One function body (not nested ones): its subscript write targets, augmented assignments to
    names, and whether it returns a value or yields."""

    def __init__(self) -> None:
        self.subscripts: list[cst.Subscript] = []
        self.augmented: list[cst.AugAssign] = []
        self.returns_value = False
        self.returns: list[cst.Return] = []
        self.yields = False

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        return False

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False

    def visit_Assign(self, node: cst.Assign) -> None:
        self.subscripts.extend(written_subscripts(node))

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        if isinstance(node.target, cst.Subscript):
            self.subscripts.append(node.target)
        elif isinstance(node.target, cst.Name):
            self.augmented.append(node)

    def visit_Return(self, node: cst.Return) -> None:
        self.returns_value = self.returns_value or node.value is not None
        self.returns.append(node)

    def visit_Yield(self, node: cst.Yield) -> None:
        self.yields = True

    def visit_Await(self, node: cst.Await) -> None:
        self.yields = True


class _References(ScopedVisitor):
    """Every use of a module-level function's name: calls (with where they are) and uses as a value."""

    def __init__(self, mutations: ModuleMutations, resolver: Resolver) -> None:
        super().__init__(resolver.scopes)
        self.mutations = mutations
        self.resolver = resolver
        self.statements: list[cst.CSTNode] = []
        self.callees: set[cst.Name] = set()
        self.not_references: set[cst.Name] = set()
        self.value_uses: dict[str, str] = {}
        self.values: list[tuple[cst.BaseExpression | None, cst.BaseExpression | None]] = []  # enclosing assign/return

    def visit_Expr(self, node: cst.Expr) -> None:
        self.statements.append(node)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        super().visit_FunctionDef(node)
        self.not_references.add(node.name)  # `def step(self, ...)` in a class: a method named like the function

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        super().visit_ClassDef(node)
        self.not_references.add(node.name)

    def visit_Assign(self, node: cst.Assign) -> None:
        self.values.append((node.value, node.targets[0].target if len(node.targets) == 1 else None))

    def leave_Assign(self, node: cst.Assign) -> None:
        self.values.pop()

    def visit_Return(self, node: cst.Return) -> None:
        self.values.append((node.value, None))

    def leave_Return(self, node: cst.Return) -> None:
        self.values.pop()

    def leave_Expr(self, node: cst.Expr) -> None:
        self.statements.pop()

    def _function(self, name: cst.Name) -> MutatingFunction | None:
        function = self.mutations.functions.get(name.value)
        if function is None or not self.scopes:
            return None
        found, _ = self.scopes[-1].lookup(name.value)
        return function if found is self.mutations.module_scope else None

    def visit_Call(self, node: cst.Call) -> None:
        if not isinstance(node.func, cst.Name):
            return
        function = self._function(node.func)
        if function is None:
            return
        self.callees.add(node.func)
        statement = self.statements[-1] if self.statements and self.statements[-1].value is node else None
        caller = self.functions[-1] if self.functions else None
        scope = self.scopes[-1]
        if caller is not None and scope is not self.resolver.scopes.get(caller):
            caller = None  # inside a comprehension: a value, not a statement
        site = CallSite(node, statement, caller, scope)
        if self.values and self.values[-1][0] is node:
            site.target, site.returned = self.values[-1][1], self.values[-1][1] is None
        function.calls.append(site)

    def visit_Attribute(self, node: cst.Attribute) -> None:
        self.not_references.add(node.attr)

    def visit_Arg(self, node: cst.Arg) -> None:
        if node.keyword is not None:
            self.not_references.add(node.keyword)

    def visit_Import(self, node: cst.Import) -> bool:
        return False

    def visit_ImportFrom(self, node: cst.ImportFrom) -> bool:
        return False

    def visit_Name(self, node: cst.Name) -> None:
        if node in self.callees or node in self.not_references:
            return
        function = self._function(node)
        if function is not None and function.node.name is not node and function.name not in self.value_uses:
            self.value_uses[function.name] = f"`{function.name}` is used as a value (a callback, `map`, `partial` ...): its calls cannot all be rewritten"
