"""Parse -> analyse -> run rules -> finalize imports -> render -> safety nets.

``migrate_source`` is the whole pipeline for one file, in-process, and returns
a ``FileResult``; it never prints and never raises for bad input.  The safety
nets run on every changed file: the output must parse and a second pass over
the output must change nothing, otherwise the file is left as it was and the
result is an error.
"""

from __future__ import annotations

import ast
import bisect
import functools
import gc
import hashlib
import re
import sys
from dataclasses import dataclass, field, replace
from itertools import accumulate
from pathlib import Path

import libcst as cst

from np2jax import __version__
from np2jax.analysis.attributes import analyse_attributes
from np2jax.analysis.fresh_results import FreshResults
from np2jax.analysis.links import (
    INEXACT_SEPARATOR,
    ExternalFact,
    ModuleLinks,
    collect_links,
    is_foreign,
    links_without_walk,
    module_imports,
    mutating_functions,
    star_imports,
)
from np2jax.analysis.mutation import ModuleMutations
from np2jax.analysis.resolve import Resolver
from np2jax.analysis.scope import collect_scopes
from np2jax.analysis.tracing import ModuleTracing
from np2jax.codes import instantiate, selected
from np2jax.analysis.ndarray_subclasses import NDARRAY_BASE, ndarray_subclasses
from np2jax.analysis.state_writes import attribute_stores, attribute_writes
from np2jax.context import UNSTABLE, FileContext, ForcedUnsupported
from np2jax.diagnostics import Diagnostic, Severity
from np2jax.imports import choose_jnp_alias, finalize_imports, imported_unconditionally, top_level_imports
from np2jax.propagation import (
    callees_written_by_unsupported,
    callers_of_unsupported,
    mutators_of_unsupported_callers,
)
from np2jax.render import render, reparse
from np2jax.visitors import visit
from np2jax.walker import walker_for

MAX_NESTING = 900  # libcst's native parser overflows its stack far beyond this
_BRACKETS = bytes(range(256)).translate(None, b"()[]{}")
_LINE_BREAK = re.compile(r"\r\n|\r|\n")  # what Python (and libcst) count as a new line; not \f or U+2028


@dataclass(frozen=True)
class Options:
    """Everything that changes what ``migrate`` produces (part of the cache key)."""

    jit: bool = True
    select: frozenset[str] = frozenset()
    ignore: frozenset[str] = frozenset()
    unsafe_fixes: bool = False  # apply fixes that may change behaviour (always reported)
    unroll_threshold: int = 8  # loops with at most this many iterations may be unrolled
    external: tuple[ExternalFact, ...] = ()  # what other modules of the project need (np2jax.project)

    def key(self) -> str:
        return (
            f"{__version__}+{code_fingerprint()}|jit={self.jit}|select={sorted(self.select)}|ignore={sorted(self.ignore)}"
            f"|unsafe={self.unsafe_fixes}|unroll={self.unroll_threshold}|external={sorted(self.external)}"
        )


@dataclass
class FunctionRecord:
    qualname: str
    line: int
    end_line: int
    jit: bool = False
    static_argnums: tuple[int, ...] = ()
    status: str = "migrated"  # migrated | needs-review | unsupported


@dataclass
class FileResult:
    path: str
    status: str  # changed | unchanged | error
    source: bytes = b""
    output: bytes = b""
    error: str | None = None
    diagnostics: list[Diagnostic] = field(default_factory=list)
    functions: list[FunctionRecord] = field(default_factory=list)
    links: ModuleLinks | None = None  # for np2jax.project; None: nothing to follow (or an error)

    @property
    def lines(self) -> int:
        return self.source.count(b"\n") + (1 if self.source and not self.source.endswith(b"\n") else 0)

    def with_path(self, path: str) -> FileResult:
        if path == self.path and all(d.path == path for d in self.diagnostics):
            return self  # a cached result read back under the name it was stored with
        return replace(self, path=path, diagnostics=[replace(d, path=path) for d in self.diagnostics])


class MigrationError(Exception):
    """A file cannot be migrated; the message is one line meant for users."""


class Unstable(MigrationError):
    """A second pass over the output would change it again; ``functions``: the functions (qualnames) whose code
    it changes, when only functions' code changes."""

    def __init__(self, message: str, functions: frozenset[str]) -> None:
        super().__init__(message)
        self.functions = functions


MAX_UNSTABLE = 20  # functions left as they are for instability before the file is given up
_PASS_BODY = cst.IndentedBlock(body=[cst.SimpleStatementLine(body=[cst.Pass()])])


@functools.lru_cache(maxsize=4)
def code_fingerprint(package: Path | None = None) -> str:
    """A hash of np2jax's own source (or of the package at ``package``): a cached result never outlives
    a change to the code that made it (a development checkout changes without a new version number)."""
    digest = hashlib.sha256()
    package = package or Path(__file__).resolve().parent
    for file in sorted(package.rglob("*.py")):
        digest.update(file.relative_to(package).as_posix().encode() + b"\0" + file.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


def cache_key(source: bytes, options: Options, path: str = "") -> str:
    """Content + tool version + options, and whether the file is a package ``__init__``."""
    role = "init" if path.endswith("__init__.py") else "module"
    return hashlib.sha256(f"{options.key()}|{role}".encode() + b"\0" + source).hexdigest()


def migrate_source(source: bytes, path: str = "<string>", options: Options = Options()) -> FileResult:
    """Migrate one module given as bytes (its encoding, BOM and newlines are kept).

    Python's cyclic garbage collector is paused meanwhile: the trees of one file are millions of
    short-lived objects, and the collections they trigger cost about an eighth of the time.  What
    little cyclic garbage a file leaves is collected once it is switched back on."""
    paused = gc.isenabled()
    gc.disable()
    try:
        return _migrate_source(source, path, options)
    finally:
        if paused:
            gc.enable()


def _migrate_source(source: bytes, path: str, options: Options) -> FileResult:
    try:
        inexact = any(fact.kind == "inexact" for fact in options.external)  # (NPJ120 where it tests their results)
        if not inexact and (b"numpy" not in source or not NUMPY_IMPORT.search(source)):  # "numpy" only in a comment or a string
            functions, imports, tree = _functions_without_numpy(source)
            if functions is not None:
                mutating = mutating_functions(tree)
                if imports:
                    links = links_without_walk(_parse(source), functions, mutating)
                    links.add_state(tree, links.imports)
                else:
                    links = ModuleLinks(defined=frozenset(r.qualname for r in functions), unsupported=mutating,
                                        param_writers=mutating)
                    links.add_state(tree, {})  # it may write attributes of other modules' objects in place
                return FileResult(path, "unchanged", source, source, functions=functions, links=links)
        tree = _check_python_syntax(source, path)
        module = _parse(source)
        unstable: dict[str, ForcedUnsupported] = {}
        original = None  # render(module), made once: the output's rendering copies its unchanged statements' tokens
        while True:
            new_module, diagnostics, functions, forced, links = _transform(module, path, source, options, tree=tree, forced=unstable)
            if new_module is not module and original is None:
                original = render(module)
            rendered = None if new_module is module else render(new_module, reuse=original)
            output = source if rendered is None else rendered.code.encode(new_module.encoding)
            if output == source:
                break
            if original.code.encode(module.encoding) != source:
                raise MigrationError("libcst cannot reproduce this file byte for byte (unusual line endings?); left unchanged")
            try:
                _check_safety(output, path, options, forced, lambda: reparse(rendered.code, new_module, rendered, module, original))
                break
            except Unstable as error:  # leave those functions as they are and migrate the rest again
                if len(unstable) >= MAX_UNSTABLE or not error.functions or error.functions & unstable.keys():
                    raise
                unstable.update((name, ForcedUnsupported(UNSTABLE)) for name in error.functions)
    except MigrationError as error:
        return FileResult(path, "error", source, source, error=str(error))
    except RecursionError:
        return FileResult(path, "error", source, source, error="code is nested too deeply to process")
    except MemoryError:
        return FileResult(path, "error", source, source, error="out of memory while processing this file")
    return FileResult(
        path, "changed" if output != source else "unchanged", source, output, None, diagnostics, functions, links
    )


def _check_python_syntax(source: bytes, path: str) -> ast.Module:
    """Python's own ast of ``source``; what this Python cannot compile is rejected with its message and position."""
    try:
        return compile(source, path, "exec", flags=ast.PyCF_ONLY_AST, dont_inherit=True)
    except SyntaxError as error:
        message = (error.msg or "invalid syntax").split("\n")[0]
        where = f" at line {error.lineno}" + (f", column {error.offset}" if error.offset else "") if error.lineno else ""
        if message.startswith("(unicode error)"):
            raise MigrationError(f"cannot decode the file{where}: {message[len('(unicode error) '):]}")
        raise MigrationError(f"syntax error{where}: {message} (as Python {_PYTHON} parses it)")
    except ValueError as error:
        raise MigrationError(f"cannot compile: {error}")
    except (RecursionError, MemoryError):
        raise MigrationError("code is nested too deeply to process")


_PYTHON = ".".join(map(str, sys.version_info[:2]))


def _parse(source: bytes) -> cst.Module:
    depth = max(accumulate(1 if b in b"([{" else -1 for b in source.translate(None, _BRACKETS)), default=0)
    if depth > MAX_NESTING:
        raise MigrationError(f"brackets nested {depth} deep (at most {MAX_NESTING} are supported)")
    try:
        return cst.parse_module(source)
    except cst.ParserSyntaxError as error:
        message = str(error).strip().splitlines()[0] if str(error).strip() else "invalid syntax"
        raise MigrationError(f"syntax error at line {error.raw_line}, column {error.raw_column + 1}: {message}")
    except (SyntaxError, UnicodeError, LookupError) as error:
        raise MigrationError(f"cannot decode the file: {error}")


def _transform(
    module: cst.Module, path: str, source: bytes, options: Options, precise: bool = True, forced=None, tree=None,
    links: bool = True,
):
    """Walk the module; if a migrated function calls one left untouched, walk again leaving it untouched too.

    ``tree`` is Python's ast of ``source`` when the caller has it (the jit analysis reads module state from it).

    Returns the new module, the diagnostics, the function records, the functions left untouched
    by propagation (``forced``), which a later pass over the output may start from, and (when
    ``links``) what other modules need to know (analysis/links.py).
    """
    collector = collect_scopes(module)
    resolver = Resolver(collector.scopes)
    resolver.tables = {fact.name: fact.who for fact in options.external if fact.kind == "table"}
    resolver.inexact_imports = {fact.name: tuple(fact.who.split(INEXACT_SEPARATOR, 1)) for fact in options.external
                                if fact.kind == "inexact"}
    try:
        text = source.decode(module.encoding)
    except (UnicodeError, LookupError):
        text = module.code
    lines = _LINE_BREAK.split(text.lstrip("\ufeff"))
    forced = dict(forced or {})
    imports = module_imports(module)
    external_callees = _seed_external(options.external, forced, module)
    subclasses = ndarray_subclasses(module, resolver)
    for name in subclasses:
        for method in _methods(module, name):
            forced.setdefault(method, ForcedUnsupported(NDARRAY_BASE, via_class=True))
    external_state = {fact.name: fact.who for fact in options.external if fact.kind == "state"}
    tree = tree if tree is not None else _ast_or_none(text)
    _seed_attribute_writers(options.external, forced, tree)
    enabled = {rule.CODE for rule in selected(set(options.select) or None, set(options.ignore) or None)}
    tracing = ModuleTracing(module, resolver, text, options.unroll_threshold, "NPJ306" in enabled, tree=tree,
                             convert_scans="NPJ307" in enabled, convert_whiles="NPJ308" in enabled,
                             external_state=external_state) if options.jit else None
    attributes = analyse_attributes(module, resolver)
    fresh_results = FreshResults(module, resolver)
    if tracing is not None:
        tracing.fresh_results = fresh_results
    # Without NPJ203 nothing returns its arguments: every function that writes into them keeps mutating (and is reported).
    returns_arguments = "NPJ203" in enabled
    unforced = ModuleMutations(module, resolver, keep_all=None if returns_arguments else "NPJ203, which makes such functions return them, is not selected")
    if tracing is not None:  # loops see `f(a)` as the assignment `a = f(a)` it becomes (whenever it does)
        tracing.rebinds = unforced.rebinds
    written_results: dict = {}  # function node -> the callees whose results it writes into, and returns (stable across walks)
    writes_nothing: dict = {}  # function node -> whether it writes nothing in place (propagation; stable across walks)
    memo: dict = {}  # code and positions of the original tree's nodes, for diagnostics (FileContext.share)
    while True:
        kept = {
            name: f"{why.callee}, in another module, calls it and relies on the mutation" if why.via_module
            else f"`{why.callee}`, which calls it, stays NumPy code and relies on the mutation"
            for name, why in forced.items() if why.via_caller
        }
        mutations = ModuleMutations(module, resolver, kept) if kept and returns_arguments else unforced
        new_module, diagnostics, functions, infos = _walk(
            module, path, collector, resolver, lines, options, forced, precise, tracing, mutations, attributes, imports,
            fresh_results, memo,
        )
        # Every reason found in this walk at once (each only ever adds functions, so the fixpoint is the same).
        more = {
            **callees_written_by_unsupported(infos, functions, forced, written_results, module),
            **mutators_of_unsupported_callers(infos, functions, forced, mutations),
            **callers_of_unsupported(infos, functions, forced, external_callees, writes_nothing),
        }
        if not more:
            found = None
            if links:
                found = collect_links(module, collector.module_scope, imports, infos, functions)
                found.mutators = frozenset([*(function.name for function in mutations.returning()), *mutations.rebinding()])
                found.add_state(tree, imports)
                found.numpy_classes |= frozenset(subclasses)  # their subclasses elsewhere stay NumPy too
            return new_module, diagnostics, functions, forced, found
        forced.update(more)


def _seed_external(facts, forced: dict, module: cst.Module) -> dict[str, str]:
    """Functions other modules need to stay NumPy code, added to ``forced``; and the imported functions
    that stay NumPy code in their modules (target -> where), whose callers here stay NumPy too."""
    callees = {}
    for fact in facts:
        if fact.kind == "callee":
            callees[fact.name] = fact.who
        elif fact.kind in ("state", "attribute", "table", "exported", "inexact"):
            continue  # for the jit analysis (ModuleTracing.external_state, resolver.tables); _seed_attribute_facts;
            #           finalize_imports (exported)
        elif fact.kind == "class":
            for method in _methods(module, fact.name):
                forced.setdefault(method, ForcedUnsupported(fact.who, via_class=True, via_module=True))
        elif fact.name not in forced:
            forced[fact.name] = ForcedUnsupported(
                fact.who, via_result=fact.kind == "result", via_caller=fact.kind == "mutation", via_module=True
            )
    return callees


def _seed_attribute_writers(facts, forced: dict, tree) -> None:
    """Functions storing an attribute that code of this module (``state.coords += d``, the object not ``self``) or
    NumPy code of another module writes in place stay NumPy code: the arrays stored there must stay NumPy arrays,
    or the write raises (a jax.Array) or, for ``op=``, rebinds the attribute where NumPy updates the array."""
    written = {name: (f"`{writer}`", False) for name, (writer, _) in attribute_writes(tree).items()}
    written.update((fact.name, (fact.who, True)) for fact in facts if fact.kind == "attribute")
    if not written:
        return
    for qualname, names in attribute_stores(tree).items():
        name = next((n for n in sorted(names) if n in written), None)
        if name is not None and qualname not in forced:
            who, elsewhere = written[name]
            forced[qualname] = ForcedUnsupported(who, via_module=elsewhere, attribute=name)


def _methods(module: cst.Module, name: str) -> list[str]:
    """Qualified names of the methods of top-level class ``name``."""
    return [
        f"{name}.{statement.name.value}"
        for node in module.body if isinstance(node, cst.ClassDef) and node.name.value == name
        for statement in node.body.body if isinstance(statement, cst.FunctionDef)
    ]


def _walk(module, path, collector, resolver, lines, options, forced, precise, tracing, mutations=None, attributes=None, imports=None,
          fresh_results=None, memo=None):
    ctx = FileContext(path, module, resolver, lines)
    if memo is not None:
        ctx.share(memo)
    ctx.imports = imports or {}
    ctx.stars = star_imports(module)
    ctx.mutations = mutations
    ctx.attributes = attributes
    ctx.fresh_results = fresh_results
    ctx.precise_positions = precise
    ctx.forced_unsupported = forced
    ctx.tracing = tracing
    top = top_level_imports(module)
    ctx.jnp_alias, already_imported = choose_jnp_alias(collector.module_scope, list(collector.scopes.values()), top)
    walker = walker_for(ctx, instantiate(set(options.select) or None, set(options.ignore) or None))
    new_module = visit(module, walker)
    if new_module is not module and (walker.replacements or walker.wraps or walker.statement_rewrites or ctx.jit_uses):
        exported = {fact.name for fact in options.external if fact.kind == "exported"}  # other modules take them
        new_module = finalize_imports(
            new_module,
            unused=set() if "*" in exported else walker.rewritten_import_names - walker.used_import_names - exported,
            add_jnp_as=None if already_imported or not ctx.jnp_uses else ctx.jnp_alias,
            add_modules=sorted(name for name in ctx.jit_uses if not imported_unconditionally(name, collector.module_scope, top)),
            is_package_init=path.endswith("__init__.py"),
        )
    functions = _function_records(walker.functions, ctx.diagnostics)
    ctx.diagnostics.sort(key=lambda d: (d.line, d.col, d.code))
    return new_module, ctx.diagnostics, functions, walker.functions


def _function_records(functions, diagnostics: list[Diagnostic]) -> list[FunctionRecord]:
    """Each function's record; its status from the worst diagnostic between its first and last line."""
    errors = sorted(d.line for d in diagnostics if d.severity is Severity.ERROR)
    warnings = sorted(d.line for d in diagnostics if d.severity is Severity.WARNING)

    def any_between(lines: list[int], first: int, last: int) -> bool:
        index = bisect.bisect_left(lines, first)
        return index < len(lines) and lines[index] <= last

    records = []
    for info in functions:
        status = "migrated"
        if any_between(errors, info.line, info.end_line):
            status = "unsupported"
        elif any_between(warnings, info.line, info.end_line):
            status = "needs-review"
        records.append(FunctionRecord(info.qualname, info.line, info.end_line, info.jit, info.static_argnums, status))
    return records


def _check_safety(output: bytes, path: str, options: Options, forced, parse=None) -> None:
    """The output parses, compiles and migrates to itself.  ``parse`` (default: a whole-file parse)
    builds the output's tree, e.g. reusing the original's unchanged statements (``render.reparse``)."""
    try:
        module = parse() if parse is not None else cst.parse_module(output)
        tree = compile(output, path, "exec", dont_inherit=True, flags=ast.PyCF_ONLY_AST)
    except (cst.ParserSyntaxError, SyntaxError, ValueError) as error:
        raise MigrationError(f"internal error: the migrated code does not parse ({error}); file left unchanged")
    # Only the code matters here; starting from the first pass's propagation result reaches the same
    # fixpoint a fresh run would (propagation only ever adds functions) without its extra walk.
    again, *_ = _transform(module, path, output, options, precise=False, forced=forced, tree=tree, links=False)
    if again is not module and again.bytes != output:  # the same tree back: nothing changed (np2jax.visitors.visit)
        raise Unstable("internal error: a second migration pass would change the output again; file left unchanged",
                       changed_functions(module, again))


def changed_functions(before: cst.Module, after: cst.Module) -> frozenset[str]:
    """Qualnames of the module-level functions and methods whose code differs between two versions of a module;
    empty when anything else differs too (module-level code other than imports), or the functions do not match up."""
    old, new = _function_codes(before), _function_codes(after)
    if old is None or new is None or old.keys() != new.keys():
        return frozenset()
    return frozenset(name for name in old if name != "" and old[name] != new[name]) if old[""] == new[""] else frozenset()


def _function_codes(module: cst.Module) -> dict[str, str] | None:
    """Qualname -> code of each module-level function and method; ``""`` -> the rest of the module's code but
    its import statements."""
    codes: dict[str, str] = {}
    rest = []
    for statement in module.body:
        if isinstance(statement, cst.FunctionDef):
            codes[statement.name.value] = module.code_for_node(statement)
        elif isinstance(statement, cst.ClassDef):
            for inner in statement.body.body:
                if isinstance(inner, cst.FunctionDef):
                    codes[f"{statement.name.value}.{inner.name.value}"] = module.code_for_node(inner)
                else:
                    rest.append(module.code_for_node(inner))
            rest.append(module.code_for_node(statement.with_changes(body=_PASS_BODY)))  # its header
        elif not (isinstance(statement, cst.SimpleStatementLine)
                  and all(isinstance(small, (cst.Import, cst.ImportFrom)) for small in statement.body)):
            rest.append(module.code_for_node(statement))  # (imports follow what the functions use)
    codes[""] = "\n".join(rest)
    return codes


def _ast_or_none(text: str) -> ast.Module | None:
    try:
        return ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


# A line importing NumPy (or jax.numpy): `import numpy as np`, `import os, numpy`, `from numpy import linalg`.
# A module without one has no NumPy code to migrate, whatever its comments or strings say ("numpy" backends).
NUMPY_IMPORT = re.compile(rb"^(?:\xef\xbb\xbf)?[ \t]*(?:from[ \t]+(?:jax\.)?numpy\b|import[ \t]+[^\n#]*\bnumpy\b)", re.MULTILINE)


def _functions_without_numpy(source: bytes) -> tuple[list[FunctionRecord] | None, bool, ast.Module | None]:
    """Functions of a file that never mentions numpy, from the fast ``ast`` parser (None if it fails),
    whether it imports from modules np2jax.project may follow (not the standard library's), and the tree."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None, False, None
    records: list[FunctionRecord] = []

    def walk(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                qualname = f"{prefix}{child.name}"
                records.append(FunctionRecord(qualname, child.lineno, child.end_lineno or child.lineno))
                walk(child, qualname + ".<locals>.")
            elif isinstance(child, ast.ClassDef):
                walk(child, f"{prefix}{child.name}.")
            else:
                walk(child, prefix)

    walk(tree, "")
    records.sort(key=lambda r: r.line)
    return records, any(_may_follow(node) for node in tree.body), tree


def _may_follow(node: ast.stmt) -> bool:
    if isinstance(node, ast.ImportFrom):
        return bool(node.level) or not is_foreign(node.module or "")
    if isinstance(node, ast.Import):
        return not all(is_foreign(alias.name) for alias in node.names)
    if isinstance(node, (ast.If, ast.Try)):
        return any(_may_follow(child) for child in ast.iter_child_nodes(node) if isinstance(child, ast.stmt))
    return False
