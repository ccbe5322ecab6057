"""What one module's migration means for the other modules of a project, and what it needs from them.

np2jax migrates one file at a time, but functions call each other across files.  These
situations change what a function computes without anything in its own file showing it:

* NumPy code in module B writes into (or, through a second reference, augments) the result of a
  function of module A (``y = a.make(n); y[0] = 5``; ``z = y; z += 1``).  Migrated, ``make``
  returns an immutable JAX array: the write raises, or the augmented assignment only rebinds ``z``.
* ``a.clear(x)`` writes into its argument and np2jax makes it return the argument instead (NPJ203),
  or ``a.scale(x, s)`` does ``x *= s; return x``, which becomes a rebinding; ``clear(b)`` or
  ``scale(y, 3.0)`` in module B relies on the update and is not rewritten to rebind.
* A migrated function of module B calls one of module A that stays NumPy code and may mutate the
  arrays it is handed (``a.bump(b)`` with ``def bump(x): x += 1``), also one of a module np2jax
  leaves as it is because it never mentions NumPy.
* ``class Sub(a.Base)`` in module B: a method of either that stays NumPy code and changes
  ``self``'s arrays in place needs the other's methods to keep them NumPy arrays.

``ModuleLinks`` records, per module, what the runner's project pass (``np2jax.project``) needs to
find these: the module's imports, its calls to imported names, the imported functions whose
results its NumPy code writes into, and the fate of its own functions.  The pass then migrates
the files concerned again with ``Options.external`` facts that keep the functions involved NumPy
(NPJ202), the same way the engine does within one module.
"""

from __future__ import annotations

import ast
import sys
from dataclasses import dataclass, field

import libcst as cst

from np2jax.astutil import walk_code
from np2jax.analysis.resolve import BUILTIN_NAMES, is_numpy, is_scipy
from np2jax.analysis.result_writes import (
    INPLACE_METHODS, attribute_sources, global_names, module_level_uses, parameter_names, result_uses_in,
    target_names,
)
from np2jax.analysis.scope import ImportBinding, Scope, attribute_chain, dotted_name
from np2jax.analysis.state_writes import (
    attribute_stores, attribute_writes, imported_state_writes, module_tables, module_variables,
)
from np2jax.visitors import FastVisitor, visit

# Packages no project of a user is part of: their functions are not followed.
_FOREIGN = frozenset({"numpy", "jax", "jaxlib", "scipy", "pandas", "torch", "tensorflow", "matplotlib", "sklearn", "numba"})


@dataclass(frozen=True, order=True)
class ExternalFact:
    """A fact about other modules that changes one module's migration (part of ``Options``)."""

    kind: str  # "result": another module writes into `name`'s result; "mutation": one relies on `name`
    #            mutating its argument; "callee": `name` (a dotted import target) stays NumPy in its module;
    #            "class": class `name` shares `self` with a class of another module that stays NumPy;
    #            "state": another module writes module-level variable `name` (its jitted readers would not see it);
    #            "table": `name` (as this module spells it, `consts.WHITE`) is another module's table of literals
    #            (`who`: its kind, state_writes.module_tables, and " changed" when yet another module writes it);
    #            "exported": another module imports NumPy name `name` from this one ("*": star-imports it)
    name: str  # a qualname of this module, or (for "callee") an imported target as this module spells it
    who: str  # the function elsewhere and where it is, for the message: "`use` (pkg/b.py:12)"


INEXACT_SEPARATOR = "\x1f"  # between the example and the advice in an "inexact" fact's `who`


@dataclass
class ModuleLinks:
    imports: dict[str, str] = field(default_factory=dict)  # module-level name -> dotted target ("." prefixes: relative)
    stars: tuple[str, ...] = ()  # modules it star-imports (`from .core import *` -> ".core")
    calls: dict[str, dict[str, int]] = field(default_factory=dict)  # imported target -> {caller qualname: line}
    writes: dict[str, tuple[str, int]] = field(default_factory=dict)  # imported target -> (writer, line)
    defined: frozenset[str] = frozenset()  # qualnames of its functions and methods
    migrated: frozenset[str] = frozenset()  # of those, the ones rewritten (their results are JAX arrays now)
    unsupported: frozenset[str] = frozenset()  # the ones left as NumPy code because of an error (in a module np2jax
    #   does not walk: the ones that may write into their arguments)
    bases: dict[str, tuple[str, ...]] = field(default_factory=dict)  # class -> the imported targets it derives from
    numpy_classes: frozenset[str] = frozenset()  # classes with a method that stays NumPy and may change `self`'s arrays
    mutators: frozenset[str] = frozenset()  # the ones made to return the arguments they wrote into (NPJ203), or
    #   whose `x op= v` on a parameter became a rebinding (a caller elsewhere may rely on the update)
    returns: dict[str, tuple[str, ...]] = field(default_factory=dict)  # function -> imported targets whose results it
    #   may hand back (``return make(n)``, also through functions of its own module): written where its result is
    variables: frozenset[str] = frozenset()  # names its top-level statements assign (``TABLE = np.zeros(3)``)
    tables: dict[str, str] = field(default_factory=dict)  # of those, tables of literals nothing changes -> their kind
    #   (``WHITE = {"d65": (0.95, 1.0, 1.09)}``: "mapping rows"; state_writes.module_tables)
    state_writes: dict[str, tuple[str, int]] = field(default_factory=dict)  # imported target -> (writer, line):
    #   another module's variable it writes in place or rebinds (analysis/state_writes.py)
    attribute_writes: dict[str, tuple[str, int]] = field(default_factory=dict)  # attribute -> (writer, line): its
    #   NumPy code writes an object's attribute in place (`old.coords[m] = v`, `s.coords += d`)
    attribute_stores: frozenset[str] = frozenset()  # attributes its functions assign (`self.coords = ...`)
    handed: dict[str, dict[str, tuple[str, int]]] = field(default_factory=dict)  # imported target -> {imported callee:
    #   (caller, line)}: its NumPy code hands what the target returns to the callee (`M = make(n); bump(M)`)
    param_writers: frozenset[str] = frozenset()  # its functions left as NumPy code that write into (or update in
    #   place with `op=`) arrays their parameters hold (`def bump(x): x += 1`), or need them to be NumPy's (`M.flat`)
    inexact_returns: dict[str, tuple[str, str]] = field(default_factory=dict)  # migrated function -> what makes its
    #   result inexact under XLA (NPJ120's example and advice): modules importing it round or compare it knowingly
    numpy_names: frozenset[str] = frozenset()  # names its top-level NumPy imports bind (`from numpy import cos`):
    #   another module importing one from here (or star-importing the module) needs it kept

    def add_state(self, tree, imports: dict[str, str]) -> ModuleLinks:
        """Fill ``variables``, ``state_writes`` and the attribute fields from Python's ast of the module."""
        self.variables = module_variables(tree)
        self.tables = module_tables(tree)
        # (a migrated function returns what it wrote, NPJ203, and reads `.flat` through `.ravel()`)
        self.param_writers |= (mutating_functions(tree) | numpy_only_readers(tree)) - self.migrated
        self.state_writes = imported_state_writes(tree, imports)
        numpy_code = self.defined - self.migrated  # functions left as NumPy code (all, where nothing migrated)
        self.attribute_writes = attribute_writes(tree, numpy_code)
        self.attribute_stores = frozenset(name for names in attribute_stores(tree).values() for name in names)
        return self


def star_imports(module: cst.Module) -> tuple[str, ...]:
    """The modules the module's top-level ``from M import *`` statements name (relative ones with their dots)."""
    found = []
    for statement in _top_level(module.body):
        for small in statement.body if isinstance(statement, cst.SimpleStatementLine) else ():
            if isinstance(small, cst.ImportFrom) and isinstance(small.names, cst.ImportStar):
                target = "." * len(small.relative) + (dotted_name(small.module) or "" if small.module is not None else "")
                if target.startswith(".") or not is_foreign(target):
                    found.append(target)
    return tuple(found)


def module_imports(module: cst.Module) -> dict[str, str]:
    """Names the module's top-level imports bind (also inside top-level ``if``/``try``), to what they import;
    relative imports keep their leading dots (``from .core import f`` -> ``.core.f``).  NumPy, JAX and the
    standard library are left out."""
    found: dict[str, str] = {}
    for statement in _top_level(module.body):
        for small in statement.body if isinstance(statement, cst.SimpleStatementLine) else ():
            if isinstance(small, cst.Import):
                for alias in small.names:
                    full = dotted_name(alias.name) or ""
                    if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                        _add(found, alias.asname.name.value, full)
                    else:
                        top = full.split(".")[0]
                        _add(found, top, top)
            elif isinstance(small, cst.ImportFrom) and not isinstance(small.names, cst.ImportStar):
                base = "." * len(small.relative) + (dotted_name(small.module) or "" if small.module is not None else "")
                for alias in small.names:
                    name = alias.name.value if isinstance(alias.name, cst.Name) else dotted_name(alias.name)
                    bound = alias.asname.name.value if alias.asname is not None and isinstance(alias.asname.name, cst.Name) else name
                    if isinstance(name, str) and isinstance(bound, str):
                        _add(found, bound, f"{base}.{name}" if base and not base.endswith(".") else base + name)
    return found


def numpy_import_names(module: cst.Module) -> frozenset[str]:
    """Names the module's top-level NumPy (and SciPy: np2jax may leave those unused too) imports bind: ``import
    numpy as np`` -> ``np``, ``from numpy import array, cos as c`` -> ``array``, ``c``."""
    found = set()
    for statement in _top_level(module.body):
        for small in statement.body if isinstance(statement, cst.SimpleStatementLine) else ():
            if isinstance(small, cst.Import):
                for alias in small.names:
                    full = dotted_name(alias.name) or ""
                    if is_numpy(full) or is_scipy(full):
                        asname = alias.asname.name if alias.asname is not None else None
                        found.add(asname.value if isinstance(asname, cst.Name) else full.split(".")[0])
            elif (isinstance(small, cst.ImportFrom) and not small.relative and small.module is not None
                  and (is_numpy(dotted_name(small.module) or "") or is_scipy(dotted_name(small.module) or ""))
                  and not isinstance(small.names, cst.ImportStar)):
                for alias in small.names:
                    asname = alias.asname.name if alias.asname is not None else alias.name
                    if isinstance(asname, cst.Name):
                        found.add(asname.value)
    return frozenset(found)


def is_foreign(module: str) -> bool:
    """Whether a module (absolute dotted name) is NumPy's, JAX's, the standard library's ...: not followed."""
    top = module.split(".")[0]
    return top in _FOREIGN or top in sys.stdlib_module_names


def _add(found: dict[str, str], name: str, target: str) -> None:
    if target.startswith(".") or not is_foreign(target):
        found[name] = target
    else:
        found.pop(name, None)  # rebound to something not followed


def _top_level(body) -> list[cst.BaseStatement]:
    statements = []
    for statement in body:
        statements.append(statement)
        if isinstance(statement, cst.If):
            statements.extend(_top_level(statement.body.body))
            if statement.orelse is not None:
                statements.extend(_top_level(statement.orelse.body.body))
        elif isinstance(statement, cst.Try):
            statements.extend(_top_level(statement.body.body))
            for handler in statement.handlers:
                statements.extend(_top_level(handler.body.body))
    return statements


def imported_target(func: cst.BaseExpression, scope: Scope, imports: dict[str, str]) -> str | None:
    """The dotted target a call's function is, when it is an imported name or an attribute of one
    (``make`` -> ``pkg.core.make``; ``core.make`` -> ``pkg.core.make``), as seen from ``scope``."""
    parts = attribute_chain(func)
    if not parts or parts[0] not in imports:
        return None
    found, bindings = scope.lookup(parts[0])
    if found is None or found.kind != "module" or not all(isinstance(b, ImportBinding) for b in bindings):
        return None
    target = imports[parts[0]]
    rest = ".".join(parts[1:])
    return f"{target}.{rest}" if rest else target


def star_targets(func: cst.BaseExpression, scope: Scope, stars: tuple[str, ...]) -> list[str]:
    """For a name bound nowhere in the module (and no builtin): what each star import may bring it from
    (``from .helpers import *`` then ``add_drift(y, d)`` -> ``.helpers.add_drift``)."""
    if not stars or not isinstance(func, cst.Name) or func.value in BUILTIN_NAMES:
        return []
    found, _ = scope.lookup(func.value)
    if found is not None:
        return []
    return [f"{star}.{func.value}" if not star.endswith(".") else star + func.value for star in stars]


def collect_links(module: cst.Module, scope: Scope, imports: dict[str, str], infos, functions) -> ModuleLinks:
    """``infos``: the walker's FunctionInfo list (with ``imported_calls``); ``functions``: the function records."""
    status = {record.qualname: record.status for record in functions}
    stars = star_imports(module)
    calls: dict[str, dict[str, int]] = {}
    writes: dict[str, tuple[str, int]] = {}
    handed: dict[str, dict[str, tuple[str, int]]] = {}
    changed = {info.qualname for info in infos if info.changed and status.get(info.qualname) != "unsupported"}
    top = [s for s in module.body if not isinstance(s, (cst.FunctionDef, cst.ClassDef))]
    held: dict[str, tuple[str, ...]] = {}  # module-level names holding imported functions' results (`BUF = make(3)`)
    if imports and top:
        finder = _ModuleLevelCalls(scope, imports)
        for statement in top:
            visit(statement, finder)
        for target, line in finder.calls.items():
            calls.setdefault(target, {}).setdefault("<module>", line)
        if finder.calls:
            written, held = module_level_uses(top, lambda call: imported_target(call.func, scope, imports))
            for target in written:
                writes.setdefault(target, ("<module>", finder.calls.get(target, 0)))
    local = {info.qualname for info in infos if info.is_module_level}
    returned: dict[str, frozenset[str]] = {}
    # what the module stores in attributes (`self.P = predict(self.P)`, predict imported), followed by name
    attributes = attribute_sources([
        (info.qualname, info.node, _callee_resolver(info.imported_calls, scope, imports, stars, local))
        for info in infos if ".<locals>." not in info.qualname
    ]) if imports else {}
    for info in infos:
        for target, (_, line) in info.imported_calls.items():
            calls.setdefault(target, {}).setdefault(info.qualname, line)
        if ".<locals>." in info.qualname or not (info.imported_calls or info.calls or held or attributes):
            continue
        resolver = _callee_resolver(info.imported_calls, scope, imports, stars, local)
        if info.qualname in changed:
            _, returned[info.qualname] = result_uses_in([info.node.body], resolver)
            continue
        written, returned[info.qualname] = result_uses_in(
            [info.node.body], resolver, params=global_names(info.node, held), parameters=parameter_names(info.node),
            attributes=attributes)
        for target in written:
            if target not in local and "|" not in target and not target.startswith("#"):
                line = info.imported_calls[target][1] if target in info.imported_calls else 0
                writes.setdefault(target, (info.qualname, line))
        _add_handed(handed, info.node.body, resolver, info.qualname, local)
    unsupported = frozenset(name for name, s in status.items() if s == "unsupported") | frozenset(
        info.qualname for info in infos if info.kept_numpy)  # (NPJ304: left as NumPy code, for NumPy callers)
    return ModuleLinks(
        imports=imports,
        stars=stars,
        calls=calls,
        handed=handed,
        writes=writes,
        defined=frozenset(status),
        migrated=frozenset(changed),
        unsupported=unsupported,
        inexact_returns={info.qualname: info.inexact_return for info in infos
                         if info.inexact_return is not None and info.qualname in changed and info.qualname not in unsupported},
        returns=_imported_returns(returned, local),
        bases=class_bases(module, imports),
        numpy_names=numpy_import_names(module),
        numpy_classes=frozenset(
            info.class_name for info in infos
            if info.class_name and (info.qualname in unsupported or (info.qualname not in changed and writes_self(info.node)))
        ),
    )


def class_bases(module: cst.Module, imports: dict[str, str]) -> dict[str, tuple[str, ...]]:
    """Top-level classes deriving from imported classes: ``class Sub(core.Base)`` -> ``{"Sub": ("pkg.core.Base",)}``."""
    found = {}
    for statement in module.body:
        if isinstance(statement, cst.ClassDef):
            targets = []
            for base in statement.bases:
                parts = attribute_chain(base.value) if base.keyword is None else None
                if parts and parts[0] in imports:
                    targets.append(".".join([imports[parts[0]], *parts[1:]]))
            if targets:
                found[statement.name.value] = tuple(targets)
    return found


def writes_self(function: cst.FunctionDef) -> bool:
    """Whether a method writes into ``self``'s arrays in place (``self.x[0] = v``, ``x = self.x; x += 2``,
    ``self.x.sort()``): left as NumPy code, it needs them to be NumPy arrays."""
    written, _ = result_uses_in([function.body], lambda call: None, params={"self": "#self"})
    return "#self" in written


def mutating_functions(tree: ast.Module) -> frozenset[str]:
    """Module-level functions (of Python's ast) that may write into an argument in place: ``x[i] = v``,
    ``x += v``, ``x.sort()``, ``np.add.at(x, ...)``, ``out=x`` on a parameter.  Left as they are (the module never mentions NumPy), they need
    the caller's arrays to be NumPy's: a migrated caller in another module stays NumPy (np2jax.project)."""
    found = set()
    for node, params in _module_functions(tree):
        for inner in walk_code(node):
            if isinstance(inner, ast.AugAssign):
                target = inner.target
            elif isinstance(inner, (ast.Assign, ast.AnnAssign)):
                targets = inner.targets if isinstance(inner, ast.Assign) else [inner.target]
                target = next((t for t in targets if isinstance(t, ast.Subscript)), None)
            elif isinstance(inner, ast.Call) and isinstance(inner.func, ast.Attribute) and inner.func.attr in INPLACE_METHODS:
                target = inner.func.value
            elif isinstance(inner, ast.Call) and _writes_first_argument(inner) and inner.args:
                target = inner.args[0]  # `np.add.at(counts, idx, 1)`, `np.copyto(dst, src)`
            elif isinstance(inner, ast.Call) and any(k.arg == "out" for k in inner.keywords):
                target = next(k.value for k in inner.keywords if k.arg == "out")  # `np.clip(x, 0, 1, out=x)`
            else:
                continue
            while isinstance(target, ast.Subscript):
                target = target.value
            if isinstance(target, ast.Name) and target.id in params:
                found.add(node.name)
                break
    return frozenset(found)


_WRITING_FUNCTIONS = frozenset({"copyto", "fill_diagonal", "putmask", "place", "put", "put_along_axis"})


def _writes_first_argument(call: ast.Call) -> bool:
    """``np.add.at(a, ...)`` (a ufunc's ``.at``), ``np.copyto(a, ...)``, ``np.fill_diagonal(a, ...)``: writes into ``a``."""
    func = call.func
    return isinstance(func, ast.Attribute) and (func.attr == "at" or func.attr in _WRITING_FUNCTIONS)


def _module_functions(tree: ast.Module):
    """The module-level functions of Python's ast, each with its parameter names."""
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            args = node.args
            yield node, {a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)}


NUMPY_ONLY_ATTRIBUTES = frozenset({"flat", "flags", "ctypes", "base", "strides", "data", "view", "itemset", "newbyteorder"})


def numpy_only_readers(tree: ast.Module) -> frozenset[str]:
    """Module-level functions that use what only a NumPy array has on a parameter (``M.flat``, ``x.view(cls)``,
    ``x.strides``): handed a JAX array they raise, so what is handed to them must stay NumPy (np2jax.project)."""
    found = set()
    for node, params in _module_functions(tree):
        if any(isinstance(inner, ast.Attribute) and inner.attr in NUMPY_ONLY_ATTRIBUTES
               and isinstance(inner.value, ast.Name) and inner.value.id in params for inner in walk_code(node)):
            found.add(node.name)
    return frozenset(found)


def links_without_walk(module: cst.Module, functions, mutating: frozenset[str] = frozenset()) -> ModuleLinks:
    """The links of a module np2jax leaves as it is without walking it (it never mentions NumPy): all
    its code stays as it was, so what it writes into counts, and what it calls relies on mutations.
    Imported names are matched by spelling (a local variable of the same name counts too: that only
    ever keeps more functions NumPy)."""
    imports = module_imports(module)
    stars = star_imports(module)
    defined = _defined_names(module)
    finder = _SpelledCalls(imports, stars, defined)
    visit(module, finder)
    writes: dict[str, tuple[str, int]] = {}
    local = {name for name in finder.functions if "." not in name}

    def callee_of(call: cst.Call) -> str | None:
        if isinstance(call.func, cst.Name) and call.func.value in local:
            return call.func.value
        return next(iter(_spelled_targets(call.func, imports, stars, defined)), None)

    top_written, held = module_level_uses(module.body, callee_of)
    returned = {}
    handed: dict[str, dict[str, tuple[str, int]]] = {}
    for qualname, body in finder.functions.items():
        function = finder.nodes[qualname]
        _add_handed(handed, body, callee_of, qualname, local)
        written, returned[qualname] = result_uses_in(
            [body], callee_of, params=global_names(function, held), parameters=parameter_names(function))
        for target in written:
            if target not in local:
                writes.setdefault(target, (qualname, 0))
    for target in top_written:
        if target not in local:
            writes.setdefault(target, ("<module>", 0))
    bases = class_bases(module, imports)
    numpy_classes = frozenset(
        statement.name.value for statement in module.body
        if isinstance(statement, cst.ClassDef) and statement.name.value in bases and any(
            isinstance(method, cst.FunctionDef) and writes_self(method) for method in statement.body.body)
    )
    return ModuleLinks(imports=imports, stars=stars, calls=finder.calls, writes=writes, handed=handed,
                       param_writers=mutating,
                       defined=frozenset(r.qualname for r in functions), unsupported=mutating, bases=bases,
                       numpy_classes=numpy_classes, returns=_imported_returns(returned, local))


def _spelled_target(func: cst.BaseExpression, imports: dict[str, str]) -> str | None:
    parts = attribute_chain(func)
    if not parts or parts[0] not in imports:
        return None
    return ".".join([imports[parts[0]], *parts[1:]])


def _spelled_targets(func: cst.BaseExpression, imports: dict[str, str], stars: tuple[str, ...], defined) -> list[str]:
    """``_spelled_target``; for a name neither imported nor ``defined`` in the module nor a builtin, what each
    star import may bring it from (``from .helpers import *`` then ``add_drift(y)`` -> ``.helpers.add_drift``)."""
    target = _spelled_target(func, imports)
    if target is not None:
        return [target]
    if not stars or not isinstance(func, cst.Name) or func.value in defined or func.value in BUILTIN_NAMES:
        return []
    return [f"{star}.{func.value}" if not star.endswith(".") else star + func.value for star in stars]


def _defined_names(module: cst.Module) -> frozenset[str]:
    """Names the module's top-level statements bind other than by imports (functions, classes, assignments)."""
    found = set()
    for statement in _top_level(module.body):
        if isinstance(statement, (cst.FunctionDef, cst.ClassDef)):
            found.add(statement.name.value)
        for small in statement.body if isinstance(statement, cst.SimpleStatementLine) else ():
            targets = [t.target for t in small.targets] if isinstance(small, cst.Assign) else (
                [small.target] if isinstance(small, (cst.AnnAssign, cst.AugAssign)) else [])
            for target in targets:
                found.update(target_names(target))
    return frozenset(found)


class _SpelledCalls(FastVisitor):
    """Calls of imported names per function (by qualname; module-level code as ``<module>``), by spelling."""

    def __init__(self, imports: dict[str, str], stars: tuple[str, ...] = (), defined=frozenset()) -> None:
        self.imports = imports
        self.stars = stars
        self.defined = defined
        self.prefix: list[str] = []  # qualname parts of the enclosing classes and functions
        self.current: list[str] = []  # qualnames of the enclosing functions
        self.calls: dict[str, dict[str, int]] = {}
        self.functions: dict[str, cst.CSTNode] = {}  # qualname -> body
        self.nodes: dict[str, cst.FunctionDef] = {}  # qualname -> the function

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self.prefix.append(node.name.value)

    def leave_ClassDef(self, node: cst.ClassDef) -> None:
        self.prefix.pop()

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        qualname = ".".join([*self.prefix, node.name.value])
        self.functions[qualname] = node.body
        self.nodes[qualname] = node
        self.current.append(qualname)
        self.prefix.extend((node.name.value, "<locals>"))

    def leave_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.current.pop()
        del self.prefix[-2:]

    def visit_Call(self, node: cst.Call) -> None:
        for target in _spelled_targets(node.func, self.imports, self.stars, self.defined):
            self.calls.setdefault(target, {}).setdefault(self.current[-1] if self.current else "<module>", 0)


class _Handed(FastVisitor):
    """Names bound to an imported function's result (``M = make(n)``) and the imported calls they are passed to."""

    def __init__(self, callee_of) -> None:
        super().__init__()
        self.callee_of = callee_of
        self.results: dict[str, str] = {}  # local name -> the imported target whose result it holds
        self.passed: list[tuple[str, cst.Call]] = []  # (name, call of another function it is an argument of)

    def visit_Assign(self, node: cst.Assign) -> None:
        if isinstance(node.value, cst.Call) and len(node.targets) == 1 and isinstance(node.targets[0].target, cst.Name):
            target = self.callee_of(node.value)
            if target is not None:
                self.results[node.targets[0].target.value] = target

    def visit_Call(self, node: cst.Call) -> None:
        self.passed.extend((arg.value.value, node) for arg in node.args if isinstance(arg.value, cst.Name))


def _add_handed(handed: dict, body: cst.CSTNode, callee_of, qualname: str, local) -> None:
    """Record where NumPy code hands an imported function's result to an imported function (``bump(M)``)."""
    finder = _Handed(callee_of)
    visit(body, finder)
    for name, call in finder.passed:
        target = finder.results.get(name)
        callee = callee_of(call) if target is not None else None
        if callee is not None and callee not in local and target not in local:
            handed.setdefault(target, {}).setdefault(callee, (qualname, 0))


def _callee_resolver(imported_calls, scope, imports, stars=(), local=frozenset()):
    """Names the imported function a call calls (as an import target), or the module's own function (by name)."""

    def callee_of(call: cst.Call) -> str | None:
        if isinstance(call.func, cst.Name) and call.func.value in local:
            return call.func.value
        target = imported_target(call.func, scope, imports)
        if target is None:
            target = next(iter(star_targets(call.func, scope, stars)), None)
        return target if target in imported_calls else None

    return callee_of


def _imported_returns(returned: dict[str, frozenset[str]], local) -> dict[str, tuple[str, ...]]:
    """Function -> the imported targets whose results it may hand back, also through the module's own
    functions (``def wrap(n): return helper(n)`` with ``def helper(n): return make(n)``)."""
    found = {}
    for name in returned:
        seen, pending, targets = {name}, [name], set()
        while pending:
            for callee in returned.get(pending.pop(), ()):
                if callee in local:
                    if callee not in seen:
                        seen.add(callee)
                        pending.append(callee)
                else:
                    targets.add(callee)
        if targets:
            found[name] = tuple(sorted(targets))
    return found


class _ModuleLevelCalls(FastVisitor):
    def __init__(self, scope: Scope, imports: dict[str, str]) -> None:
        self.scope = scope
        self.imports = imports
        self.calls: dict[str, int] = {}

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False

    def visit_Call(self, node: cst.Call) -> None:
        target = imported_target(node.func, self.scope, self.imports)
        if target is not None:
            self.calls.setdefault(target, 0)
