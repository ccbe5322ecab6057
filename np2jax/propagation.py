"""Which functions stay NumPy code because of other functions of the same module.

The engine walks a module, then asks these functions which further functions must be left untouched
(``ForcedUnsupported``), and walks again until nothing is added:

* callers of a function left untouched (it may mutate or need NumPy arrays), functions that use one as a
  value (a callback), creators of an object of a class with a method left untouched, and the other methods
  of that class and of the classes it shares ``self`` with through inheritance;
* functions whose result NumPy code writes into in place (``p = f(z); p[i] -= 1``), also once stored in an
  attribute (``self.P = predict(self.P)`` in one method, ``self.P *= k`` in another), or uses as the operand
  of an in-place update of an array other references hold (``for p, g in zip(params, grads): p -= lr * g``:
  with a JAX ``g`` NumPy's ``-=`` gives way and ``p`` is rebound; also through ``opt.step(params, grads)``
  for ``opt = Adam(...)``, a method of this module);
* functions rewritten to return the arguments they mutate (NPJ203) one of whose callers stays NumPy.
"""

from __future__ import annotations

import libcst as cst

from np2jax.analysis.loops import MUTATING_METHODS, descendants
from np2jax.analysis.result_writes import attribute_sources, augments_shared_state, module_level_uses, result_uses
from np2jax.context import ForcedUnsupported
from np2jax.cstutil import target_parts
from np2jax.visitors import FastVisitor, child_nodes, exact_types, inner_nodes, visit


def callers_of_unsupported(infos, functions, forced, imported=None, writes_nothing=None) -> dict[str, ForcedUnsupported]:
    """Functions that call (transitively) a same-module function left untouched, or use one as a value
    (``apply(inc, x)``: whoever it is handed to calls it), or create an object of a class with a method left
    untouched; and the other methods of such a class and of the classes it shares ``self`` with through
    inheritance (``class_families``); and functions that call a function of another module left untouched
    there (``imported``: import target -> where, from np2jax.project).

    A method left as it was (nothing in it needed rewriting) that updates the object's arrays with ``op=``
    through a second reference (``x = self.x; x += 2``), or that adds an attribute the rewritten methods set
    into a parameter's array (``params += self.v`` with ``self.v = np.zeros(n)`` in ``__init__``: on a JAX
    ``self.v`` NumPy's ``+=`` gives way and only rebinds ``params``), is NumPy code too: its class family stays
    NumPy when any other method of it would migrate.

    ``writes_nothing``: a dict the caller keeps across the walks of one module (function node -> whether it
    writes nothing in place), so each method's body is searched once."""
    imported = imported or {}
    writes_nothing = {} if writes_nothing is None else writes_nothing
    unsupported = {record.qualname for record in functions if record.status == "unsupported"}
    unsupported |= {info.qualname for info in infos if info.kept_numpy}  # NumPy code that NumPy callers must feed
    families = class_families(infos)
    # methods that stay NumPy for their own code (np.random in a constructor) and write nothing in place
    harmless = {record.qualname for record in functions if record.status == "unsupported" and record.qualname not in forced}
    harmless = {info.qualname for info in infos if info.qualname in harmless and info.class_name is not None
                and _writes_nothing_cached(info.node, writes_nothing)}
    unsupported |= _stateful_methods(infos, families, unsupported)
    found: dict[str, ForcedUnsupported] = {}
    class_calls: dict[str, dict[str, cst.Call]] = {}  # function -> its `C.m(...)` calls (found once, when needed)
    changed = True
    while changed:
        changed = False
        blocked_classes = _blocked_classes(infos, families, unsupported, harmless)
        for info in infos:
            if info.qualname in unsupported:
                continue
            # a call to a class whose methods stay NumPy (`h = Holder(x0)`) hands them this function's arrays
            callee = next((name for name in info.calls if name in unsupported or name in blocked_classes), None)
            callee = callee or next((name for name in info.references if name in unsupported), None)
            # `Norm.center(w)`: a method called through its class (a static method left NumPy, hunt37)
            if callee is None and any("." in name for name in unsupported):
                if info.qualname not in class_calls:
                    class_calls[info.qualname] = class_method_calls(info.node)
                callee = next((name for name in class_calls[info.qualname] if name in unsupported), None)
            target = next((name for name in info.imported_calls if name in imported), None) if imported else None
            if callee is not None:
                found[info.qualname] = ForcedUnsupported(callee)
            elif target is not None:
                found[info.qualname] = ForcedUnsupported(target, via_module=True, where=imported[target])
            elif info.class_name in blocked_classes and not is_static_method(info.node):
                found[info.qualname] = ForcedUnsupported(blocked_classes[info.class_name], via_class=True)
            else:
                continue
            unsupported.add(info.qualname)
            changed = True
        changed = _receivers_of_numpy_callbacks(infos, unsupported, found, imported) or changed
    return {name: why for name, why in found.items() if name not in forced}


def _receivers_of_numpy_callbacks(infos, unsupported: set[str], found: dict, imported: dict) -> bool:
    """Functions handed a function that stays NumPy code as an argument (``frechet(x, inv=check)``): they call
    it on their arrays, which would be JAX arrays (and ``check`` may write into them): they stay NumPy too.
    ``check`` may be another module's (``imported``: import target -> where it stays NumPy code)."""
    added = False
    for info in infos:
        handed = [(name, node) for name, node in info.references.items() if name in unsupported]
        handed += [(target, node) for target, (node, _) in info.imported_calls.items()
                   if target in imported and isinstance(node, cst.Name)]  # a reference, not a call
        for name, reference in handed:
            for receiver, call in info.calls.items():
                if receiver not in unsupported and any(arg.value is reference for arg in call.args):
                    found[receiver] = ForcedUnsupported(info.qualname, via_argument=name)
                    unsupported.add(receiver)
                    added = True
    return added


def class_families(infos) -> dict[str, frozenset[str]]:
    """Each class with methods (and its same-module base classes) -> the classes that share ``self`` with it:
    its same-module ancestors and descendants, and theirs (``class Sub(Base)``: a ``Sub`` object runs
    ``Base``'s methods on the arrays ``Sub``'s methods write, and the other way round)."""
    parent: dict[str, str] = {}

    def root(name: str) -> str:
        while parent.setdefault(name, name) != name:
            name = parent[name]
        return name

    for info in infos:
        if info.class_name is not None:
            for base in info.class_bases:
                parent[root(base)] = root(info.class_name)
            root(info.class_name)
    members: dict[str, set[str]] = {}
    for name in parent:
        members.setdefault(root(name), set()).add(name)
    return {name: frozenset(members[root(name)]) for name in parent}


def class_method_calls(function: cst.FunctionDef) -> dict[str, cst.Call]:
    """``"C.m"`` -> the first call ``C.m(...)`` in ``function`` (a method called through its class's name)."""
    found: dict[str, cst.Call] = {}
    for node in descendants(function.body):
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and isinstance(node.func.value, cst.Name):
            found.setdefault(f"{node.func.value.value}.{node.func.attr.value}", node)
    return found


def is_static_method(function: cst.FunctionDef) -> bool:
    """``@staticmethod``: it shares no ``self`` (nor ``cls``) with the other methods of its class."""
    return any(isinstance(d.decorator, cst.Name) and d.decorator.value == "staticmethod" for d in function.decorators)


def _blocked_classes(infos, families, unsupported, harmless=frozenset()) -> dict[str, str]:
    """Class -> a method of its family that stays NumPy code (one of its own when it has one); not one of
    ``harmless`` (left NumPy for its own code, writing nothing in place: ``_writes_nothing``), nor a static method."""
    blocked: dict[str, str] = {}
    for info in infos:
        if (info.class_name is not None and info.qualname in unsupported and info.qualname not in harmless
                and not is_static_method(info.node)):
            blocked.setdefault(info.class_name, info.qualname)
    for name in list(blocked):
        for member in families.get(name, ()):
            blocked.setdefault(member, blocked[name])
    return blocked


_WRITING_CALLS = MUTATING_METHODS | frozenset({"at", "copyto", "place", "putmask", "fill_diagonal", "setattr", "delattr",
                                               "partition", "itemset", "__setitem__"})


def _writes_nothing_cached(function: cst.FunctionDef, cache: dict) -> bool:
    entry = cache.get(id(function))
    if entry is None or entry[0] is not function:
        entry = cache[id(function)] = (function, _writes_nothing(function))
    return entry[1]


_NOT_HARMLESS = exact_types(cst.AugAssign, cst.Del, cst.Global, cst.Nonlocal, cst.FunctionDef, cst.Lambda, cst.ClassDef)
_ASSIGNS = exact_types(cst.Assign, cst.AnnAssign)
_ASSIGN = exact_types(cst.Assign)
_CALL = exact_types(cst.Call)
_ATTRIBUTE = exact_types(cst.Attribute)
_NAME = exact_types(cst.Name)


def _writes_nothing(function: cst.FunctionDef) -> bool:
    """A method that stays NumPy code but changes no array or container in place: no ``op=``, no element or slice
    writes, no ``out=``, no mutating or storing calls, no ``del``/``global``/``nonlocal`` (a constructor that stays
    NumPy only because it draws from ``np.random``: ``self.W = rng.standard_normal(...)``). The other methods may
    migrate: they rebind the attributes it made and it never writes into the ones they rebind.

    (Exact type tests, ``exact_types``, and no trivia: none of it is any of the nodes looked for.)"""
    stack: list[cst.CSTNode] = [function.body]
    while stack:
        node = stack.pop()
        kind = type(node)
        if kind in _NOT_HARMLESS:
            return False
        if kind in _ASSIGNS:
            targets = [t.target for t in node.targets] if kind in _ASSIGN else [node.target]
            if any(type(part) not in _NAME and not _self_attribute(part) for t in targets for part in target_parts(t)):
                return False
        elif kind in _CALL:
            func = node.func
            name = func.attr.value if type(func) in _ATTRIBUTE else func.value if type(func) in _NAME else ""
            if name in _WRITING_CALLS or any(a.keyword is not None and a.keyword.value == "out" for a in node.args):
                return False
            if (type(func) in _ATTRIBUTE and type(func.value) in _NAME and func.value.value == "self") or any(
                    type(a.value) in _NAME and a.value.value == "self" for a in node.args):
                return False  # `self.reset()`, `helper(self)`: code elsewhere may write into the object's arrays
        stack.extend(inner_nodes(node))
    return True


def _self_attribute(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name) and node.value.value == "self"


def _stateful_methods(infos, families, unsupported) -> set[str]:
    """Methods left as they were that update the object's arrays through a second reference
    (``augments_shared_state``) or a parameter's array with attributes rewritten methods set
    (``_augments_parameter_with``), in a class family another method of which would migrate."""
    migrating = {  # (rewritten, even when reverted since: the answer must not change from one walk to the next)
        member for info in infos if info.class_name is not None and info.changed
        for member in families.get(info.class_name, ())
    }
    stored = _attributes_set_by_changed(infos)
    return {
        info.qualname for info in infos
        if info.class_name in migrating and not info.changed and info.qualname not in unsupported
        and (augments_shared_state(info.node) is not None
             or _augments_parameter_with(info.node) & set().union(*(stored.get(c, set()) for c in families.get(info.class_name, ()))))
    }


def _attributes_set_by_changed(infos) -> dict[str, set[str]]:
    """Class -> the ``self`` attributes its rewritten methods set (``self.v = np.zeros(n)``: a JAX array now)."""
    found: dict[str, set[str]] = {}
    for info in infos:
        if info.class_name is not None and info.changed:
            finder = _SelfAttributes()
            visit(info.node.body, finder)
            found.setdefault(info.class_name, set()).update(finder.stored)
    return found


def _augments_parameter_with(method: cst.FunctionDef) -> set[str]:
    """The ``self`` attributes read by an ``op=`` into a parameter's array (``params += self.v``): NumPy adds in
    place into the caller's array; with a JAX ``self.v`` NumPy gives way to JAX's ``+``, which only rebinds
    ``params``, and the caller's array keeps its old values."""
    params = [p.name.value for p in (*method.params.posonly_params, *method.params.params, *method.params.kwonly_params)]
    if not params or params[0] not in ("self", "cls"):
        return set()
    finder = _SelfAttributes(updated=frozenset(params[1:]))
    visit(method.body, finder)
    return finder.read


class _SelfAttributes(FastVisitor):
    def __init__(self, updated: frozenset[str] = frozenset()) -> None:
        super().__init__()
        self.updated = updated
        self.stored: set[str] = set()
        self.read: set[str] = set()

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        for part in target_parts(node.target):
            if isinstance(part, cst.Attribute) and isinstance(part.value, cst.Name) and part.value.value == "self":
                self.stored.add(part.attr.value)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        if isinstance(node.target, cst.Name) and node.target.value in self.updated:
            stack: list[cst.CSTNode] = [node.value]
            while stack:
                part = stack.pop()
                if isinstance(part, cst.Attribute) and isinstance(part.value, cst.Name) and part.value.value == "self":
                    self.read.add(part.attr.value)
                stack.extend(child_nodes(part))

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False


def callees_written_by_unsupported(infos, functions, forced, memo: dict, module: cst.Module | None = None) -> dict[str, ForcedUnsupported]:
    """Functions whose result a function that stays NumPy writes into in place (``p = f(z); p[i] -= 1``):
    migrated, they would return immutable JAX arrays, so they stay NumPy too; and, when the written result
    comes from a function that stays NumPy, the functions whose results that one hands back (``return build(n)``).

    Results stored in attributes are followed by the attribute's name (``result_writes.attribute_sources``):
    ``self.P = predict(self.P)`` in one method and ``self.P *= k`` in another that stays NumPy keep ``predict``
    NumPy (on a JAX array ``*=`` rebinds ``self.P``, and whoever holds the old array keeps its old values);
    ``def __init__(self, P0): self.P = P0`` then makes ``__init__`` write into ``P0``.

    ``module``'s top-level code counts as NumPy code too (``Y = make(3); Y[0] = 5``), and so do writes of
    functions into module-level names holding results (``BUF = make(3)``, then ``BUF[0] = v`` in a function).
    A function another module writes the result of (forced ``via_result``) hands back its callees' results too.

    ``memo`` keeps each function's findings for the next walk of the same module."""
    unsupported = {record.qualname for record in functions if record.status == "unsupported"}
    # a callee the migration leaves as it was returns what it returned before
    candidates = {info.qualname for info in infos if info.changed} - unsupported - forced.keys()
    if not candidates:
        return {}
    module_functions = {info.qualname for info in infos if info.is_module_level}
    constructors = {info.class_name: info.qualname for info in infos if info.class_name and info.node.name.value == "__init__"}
    if module is not None and "<module>" not in memo:
        memo["<module>"] = module_level_uses(module.body, _callee_resolver(None, module_functions, constructors))
    top_written, held = memo.get("<module>", ({}, {}))
    methods = [
        (info.qualname, info.node, _callee_resolver(info.class_name, module_functions, constructors))
        for info in infos if ".<locals>." not in info.qualname and _stores_attributes(info.node, memo)
    ]
    # the functions that stay NumPy (reverted, or left as they were)
    staying = [
        info for info in infos
        if not (info.qualname not in unsupported and info.changed) and ".<locals>." not in info.qualname
    ]
    # those another one calls may write into what it hands them (`def add_ridge(G, lam): G += lam`)
    called = {callee for info in infos for callee in (*info.calls, *info.references)}
    writers: dict[str, frozenset] = {}  # such a callee -> the parameters it writes into (positions and `#-:name`s)
    passers: dict[str, frozenset] = {}  # a callee -> the parameters whose arrays it returns (`def scale(x): return 2 * x`)
    while True:
        handing = tuple(sorted(passers.items()))
        if ("<attributes>", handing) not in memo:
            memo["<attributes>", handing] = attribute_sources(methods, passers)
        attributes = memo["<attributes>", handing]
        uses = {}  # -> what they write into, what they return
        for info in staying:
            if (not info.calls and not any(inner.calls for inner in info.nested) and info.qualname not in called
                    and not held and not attributes):
                continue  # calls no function of this module, none calls it, no module-level name or attribute holds a result
            names = {*info.calls, *info.references}
            # (`Box(n)` calls `Box.__init__`)
            relevant = tuple(
                (kind, name, keys) for kind, found in (("w", writers), ("p", passers)) for name, keys in sorted(found.items())
                if name in names or name.split(".")[0] in names)
            key = (info.node, relevant, info.qualname in called, handing if attributes else ())
            found = memo.get(key)
            if found is None:
                found = memo[key] = _result_uses(
                    info, module_functions, constructors, writers, info.qualname in called, held, attributes, passers)
            uses[info.qualname] = found
        writer_of = _writers_of_results(uses, top_written, forced)
        found_writers = _parameter_writers(uses, writer_of)
        found_passers = {name: _written_parameters(returned) for name, (_, returned) in uses.items()}
        found_passers = {name: keys for name, keys in found_passers.items() if keys}
        if found_writers == writers and found_passers == passers:
            break
        writers, passers = found_writers, found_passers
    return {callee: why for callee, why in writer_of.items() if callee in candidates}


def _writers_of_results(uses, top_written, forced) -> dict[str, ForcedUnsupported]:
    """Function -> why its result is written into: by module-level code, by another module, by a function that
    stays NumPy (``uses``: what each writes into and returns), or because a function that stays NumPy hands
    it back and its own result is written into."""
    writer_of = {callee: ForcedUnsupported("<module>", via_result=True) for callee in top_written}
    writer_of.update({  # another module writes into their results
        name: why for name, why in forced.items() if why.via_result and why.via_module
    })
    for writer, (written, _) in uses.items():
        for callee in written:
            if not callee.startswith("#") and "|" not in callee:
                writer_of.setdefault(callee, ForcedUnsupported(writer, via_result=True))
    pending = list(writer_of)
    while pending:  # what a NumPy function hands back is written into where its own result is
        callee = pending.pop()
        for returned in uses.get(callee, ((), ()))[1]:
            if returned not in writer_of and not returned.startswith("#") and "|" not in returned:
                writer_of[returned] = writer_of[callee]
                pending.append(returned)
    return writer_of


def _parameter_writers(uses, writer_of) -> dict[str, frozenset]:
    """Function -> the parameters (``_written_parameters``) whose arrays it writes into, or stores in an attribute
    written elsewhere (``Box.__init__|#1:P0``: ``self.P = P0``, then ``self.P *= k``, also when a function
    whose result is written into returns ``self.P``).  (A function handing back its parameter's array,
    ``def scale(x): return 2 * x``, passes the write on call by call: see ``passers`` in ``result_uses``.)"""
    found = {name: set(_written_parameters(written)) for name, (written, _) in uses.items()}
    keys = [key for written, _ in uses.values() for key in written]
    for callee in writer_of:
        keys.extend(key for key in uses.get(callee, ((), ()))[1] if "|" in key)
    for key in keys:
        if "|" in key:
            owner, parameter = key.split("|", 1)
            found.setdefault(owner, set()).update(_written_parameters([parameter]))
    return {name: frozenset(params) for name, params in found.items() if params}


def _written_parameters(written) -> frozenset:
    """From result_uses' keys for parameters (``#0:x``): their positions and ``#-:name``s."""
    found = set()
    for key in written:
        if key.startswith("#"):
            position, name = key[1:].split(":", 1)
            found.add(f"#-:{name}")
            if position != "-":
                found.add(int(position))
    return frozenset(found)


def _result_uses(info, module_functions, constructors, writers=None, params=False, held=None, attributes=None, passers=None):
    """Same-module callees whose results ``info``'s function writes into in place, and those whose results it
    returns (for an object it creates, ``b = Box(n)``: the class's ``__init__``, which sets up its arrays);
    ``writers``, ``params``, ``held``, ``attributes``, ``passers``: see ``result_uses``."""
    resolver = _callee_resolver(info.class_name, module_functions, constructors, _instances(info))
    return result_uses(info.node, resolver, writers, params, held, attributes, passers, info.fresh_items)


def _callee_resolver(class_name, module_functions, constructors, instances=None):
    """The same-module function a call calls (code in class ``class_name``: also ``self.f(...)``; ``instances``:
    local names -> the class they are an instance of, ``opt.step(...)`` for ``opt = Adam(...)``)."""

    def callee_of(call: cst.Call) -> str | None:
        func = call.func
        if isinstance(func, cst.Name) and func.value in module_functions:
            return func.value
        if isinstance(func, cst.Name) and func.value in constructors:
            return constructors[func.value]
        if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and class_name and func.value.value in ("self", "cls"):
            return f"{class_name}.{func.attr.value}"
        if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and instances and func.value.value in instances:
            return f"{instances[func.value.value]}.{func.attr.value}"
        return None

    return callee_of


def _instances(info) -> dict[str, str]:
    """The local names of ``info``'s function that hold an instance of one of this module's classes (the calls
    the walker resolved to methods: ``opt.step`` -> ``Adam.step``)."""
    found = {}
    for callee, call in info.calls.items():
        func = call.func
        if "." in callee and isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name):
            if func.value.value not in ("self", "cls"):
                found[func.value.value] = callee.rsplit(".", 1)[0]
    return found


def mutators_of_unsupported_callers(infos, functions, forced, mutations) -> dict[str, ForcedUnsupported]:
    """Functions rewritten to return the arguments they mutate, one of whose callers stays NumPy code:
    that caller still relies on the mutation, so the function must keep mutating (stay NumPy) too."""
    reverted = {record.qualname for record in functions if record.status == "unsupported"}
    reverted |= {info.qualname for info in infos if info.kept_numpy}  # (NPJ304: left as NumPy code, hunt45 S2)
    unsupported = {  # a nested function is reverted with the function around it
        info.node: info.qualname for info in infos
        if info.qualname in reverted or any(info.qualname.startswith(name + ".<locals>.") for name in reverted)
    }
    found: dict[str, ForcedUnsupported] = {}
    for function in mutations.returning():
        if function.node in unsupported:
            continue  # stays NumPy for its own reasons, reported as such; its callers follow it (NPJ202)
        caller = next((unsupported[s.caller] for s in function.calls if s.caller in unsupported), None)
        if caller is not None and function.name not in forced:
            found[function.name] = ForcedUnsupported(caller, via_caller=True)
    return found


class _AttributeStores(FastVisitor):
    """Does a function store anything in an attribute (``self.P = ...``, ``b.F[0] = ...``, ``self.xs.append(v)``)?"""

    CONTAINER_METHODS = frozenset({"append", "extend", "insert", "setdefault", "update", "add"})

    def __init__(self) -> None:
        super().__init__()
        self.found = False

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        self.found = self.found or _has_attribute(node.target)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self.found = self.found or _has_attribute(node.target)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self.found = self.found or _has_attribute(node.target)

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if isinstance(func, cst.Attribute) and func.attr.value in self.CONTAINER_METHODS:
            self.found = self.found or _has_attribute(func.value)


def _has_attribute(target: cst.BaseExpression) -> bool:
    for part in target_parts(target):
        while isinstance(part, cst.Subscript):
            part = part.value
        if isinstance(part, cst.Attribute):
            return True
    return False


def _stores_attributes(node: cst.FunctionDef, memo: dict) -> bool:
    """Only functions that store in attributes can tell ``attribute_sources`` anything (asked once per function)."""
    key = ("<stores>", id(node))
    if key not in memo:
        finder = _AttributeStores()
        visit(node.body, finder)
        memo[key] = finder.found
    return memo[key]
