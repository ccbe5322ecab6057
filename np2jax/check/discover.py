"""Pair ORIGINAL and MIGRATED files, work out how to import each, and list the functions to check.

Nothing here runs user code: functions and methods are listed from the syntax tree.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field, replace
from pathlib import Path

from np2jax.files import NOTEBOOK_SUFFIX, UsageError, discover

SKIPPED_DUNDERS_EXCEPT = frozenset({"__call__"})


@dataclass(frozen=True)
class ModuleSpec:
    """How a worker imports one module: ``name`` found on ``sys_path``.

    ``alias`` = (package name, real directory): the worker links the directory under
    that name in a private import root, so a migrated tree imports under the original's
    package name and its absolute self-imports resolve inside the migrated tree.
    """

    path: str
    name: str
    sys_path: str
    alias: tuple[str, str] | None = None
    package: bool = False
    source: str | None = None  # a notebook's code cells as one module: run instead of reading ``path``


@dataclass(frozen=True)
class Target:
    qualname: str
    kind: str  # function | method | staticmethod | classmethod | property | closure
    line: int | None  # in a notebook: the line within cell ``cell``
    unchanged: bool = False  # the migrated definition is the original's, unchanged (still NumPy code)
    cell: int | None = None  # a notebook's cell number (1-based, among all its cells)
    jax_callers: bool = False  # unchanged, but a rewritten function of its module calls it (with JAX arrays)
    narrow_floats: bool = False  # the original computes in float32/float16 somewhere (itself or a callee)
    rewritten_callees: tuple[str, ...] = ()  # unchanged, but calls (itself or through unchanged ones) rewritten ones
    takes_lists: bool = False  # the migrated or the original function converts a parameter from a list first


@dataclass
class FilePair:
    display: str  # ORIGINAL joined with the relative path
    relative: Path
    original: Path
    migrated: Path | None
    examples: Path | None = None
    targets: list[Target] = field(default_factory=list)
    missing: list[tuple[str, int | None]] = field(default_factory=list)  # in the original only
    error: str | None = None  # the file cannot be checked at all (syntax error, unreadable)
    original_spec: ModuleSpec | None = None
    migrated_spec: ModuleSpec | None = None
    origin: list[tuple[int, int]] | None = None  # a notebook original: module line - 1 -> (cell, line in cell)


def pair_files(original: Path, migrated: Path, examples: Path | None = None) -> list[FilePair]:
    """Every original .py file or notebook with its migrated twin (same relative path), targets listed."""
    if not original.exists():
        raise UsageError(f"{original}: no such file or directory")
    if not migrated.exists():
        raise UsageError(f"{migrated}: no such file or directory")
    if original.is_dir() != migrated.is_dir():
        raise UsageError(f"{original} and {migrated}: give two files or two directories")
    if examples is not None and not examples.is_dir():
        raise UsageError(f"--examples {examples}: not a directory")
    if original.is_dir():
        files, problems = discover([str(original)])
        pairs = [FilePair(f.display, f.relative, f.path, migrated / f.relative) for f in files]
        pairs.extend(FilePair(p, Path(p), Path(p), None, error=reason) for p, reason in problems)
    else:
        pairs = [FilePair(str(original), Path(original.name), original, migrated)]
    for pair in pairs:
        if pair.error is None:
            _fill(pair, original if original.is_dir() else None, examples)
    return pairs


def _fill(pair: FilePair, root: Path | None, examples: Path | None) -> None:
    if pair.migrated is None or not pair.migrated.is_file():
        pair.error = f"no migrated file at {pair.migrated}"
        return
    if examples is not None:
        candidate = examples / (pair.relative.with_suffix(".py") if _is_notebook(pair.relative) else pair.relative)
        pair.examples = candidate if candidate.is_file() else None
    try:
        original_source, pair.origin = _read(pair.original)
        original_tree = _parse(original_source, pair.original)
    except ValueError as error:
        pair.error = f"original: {error}"
        return
    try:
        migrated_source, _ = _read(pair.migrated)
        migrated_tree = _parse(migrated_source, pair.migrated)
    except ValueError as error:
        pair.error = f"migrated: {error}"
        return
    original_defs = definitions(original_tree)
    migrated_defs = definitions(migrated_tree)
    for qualname, (kind, node) in original_defs.items():
        twin = migrated_defs.get(qualname)
        if twin is None:
            pair.missing.append((qualname, node.lineno))
            continue
        unchanged = ast.dump(node) == ast.dump(twin[1])
        target = _target(pair, qualname, kind, node.lineno, unchanged)
        if converts_from_lists(twin[1]) or converts_from_lists(node):
            target = replace(target, takes_lists=True)
        pair.targets.append(target)
    called = _called_by_rewritten(migrated_tree, {t.qualname for t in pair.targets if not t.unchanged})
    pair.targets = [replace(t, jax_callers=True) if t.unchanged and t.qualname in called else t for t in pair.targets]
    callees = rewritten_callees(migrated_tree, {t.qualname for t in pair.targets if not t.unchanged})
    pair.targets = [replace(t, rewritten_callees=callees[t.qualname]) if t.unchanged and callees.get(t.qualname) else t
                    for t in pair.targets]
    narrow = narrow_float_functions(original_defs)
    pair.targets = [replace(t, narrow_floats=True) if t.qualname in narrow else t for t in pair.targets]
    keys = example_keys(original_tree, "__np2jax_examples__")
    if pair.examples is not None:
        try:
            keys += example_keys(_parse(_read(pair.examples)[0], pair.examples), "EXAMPLES")
        except ValueError:
            pass  # the worker reports the broken examples file when it loads it
    known = {t.qualname for t in pair.targets}
    for key in dict.fromkeys(keys):
        outer = key.split(".<locals>.")[0]
        if ".<locals>." in key and key not in known and outer in original_defs and outer in migrated_defs:
            unchanged = ast.dump(original_defs[outer][1]) == ast.dump(migrated_defs[outer][1])
            pair.targets.append(_target(pair, key, "closure", original_defs[outer][1].lineno, unchanged))
    pair.original_spec = module_spec(pair.original, original_source)
    spec = module_spec(pair.migrated, migrated_source)
    if pair.original_spec.package and spec.package and spec.name.count(".") == pair.original_spec.name.count("."):
        top = pair.original_spec.name.split(".")[0]
        migrated_top = Path(spec.sys_path) / spec.name.split(".")[0]
        if spec.alias is not None:
            migrated_top = Path(spec.alias[1])
        rest = spec.name.split(".", 1)[1] if "." in spec.name else ""
        spec = ModuleSpec(spec.path, f"{top}.{rest}" if rest else top, spec.sys_path, (top, str(migrated_top)), True)
    pair.migrated_spec = spec


def _called_by_rewritten(tree: ast.Module, rewritten: set[str]) -> set[str]:
    """Module-level functions that the rewritten module-level functions (``rewritten``) call by name: unchanged
    themselves, they get the JAX arrays those callers compute (``med_neg(x) + 1.0`` in a jitted caller)."""
    found: set[str] = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name in rewritten:
            found.update(inner.func.id for inner in ast.walk(node)
                         if isinstance(inner, ast.Call) and isinstance(inner.func, ast.Name))
    return found


def rewritten_callees(tree: ast.Module, rewritten: set[str]) -> dict[str, tuple[str, ...]]:
    """For each module-level function: the rewritten module-level functions (``rewritten``) it calls by name,
    itself or through the other functions of the module it calls. Its own code unchanged, such a function still
    runs migrated code (real36: `pattern_groups` calling a now jitted `_stable_argsort`), which the check runs
    on the migrated side like any other; its note says so rather than only "unchanged"."""
    calls: dict[str, set[str]] = {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            calls[node.name] = {inner.func.id for inner in ast.walk(node)
                                if isinstance(inner, ast.Call) and isinstance(inner.func, ast.Name)}
    found: dict[str, tuple[str, ...]] = {}
    for name in calls:
        seen, stack, hits = {name}, [name], set()
        while stack:
            for callee in calls.get(stack.pop(), ()):
                if callee in rewritten:
                    hits.add(callee)
                elif callee in calls and callee not in seen:
                    seen.add(callee)
                    stack.append(callee)
        if hits:
            found[name] = tuple(sorted(hits))
    return found


NARROW_FLOATS = frozenset({"float32", "float16", "single", "half", "f4", "f2", "<f4", "<f2"})


def narrow_float_functions(defs: dict[str, tuple[str, ast.AST]]) -> set[str]:
    """The definitions that name a float32 or float16 dtype (``dtype=np.float32``, ``.astype("f4")``), or call
    one that does: a module-level function by name, a method of their own class through ``self.``/``cls.``.

    The original rounds to float32 there even under --x64, where XLA's float32 rounding (a reciprocal for a
    division, another summation order) is no worse; the comparison allows float32's epsilon for them.
    """
    direct: set[str] = set()
    calls: dict[str, set[str]] = {}
    for qualname, (_, node) in defs.items():
        owner = qualname.rpartition(".")[0]
        found = set()
        for inner in ast.walk(node):
            name = inner.id if isinstance(inner, ast.Name) else inner.attr if isinstance(inner, ast.Attribute) else (
                inner.value if isinstance(inner, ast.Constant) and isinstance(inner.value, str) else None)
            if name in NARROW_FLOATS:
                direct.add(qualname)
            if isinstance(inner, ast.Call):
                func = inner.func
                if isinstance(func, ast.Name) and func.id in defs:
                    found.add(func.id)
                elif (owner and isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name)
                      and func.value.id in ("self", "cls") and f"{owner}.{func.attr}" in defs):
                    found.add(f"{owner}.{func.attr}")
        calls[qualname] = found
    narrow = set(direct)
    changed = True
    while changed:
        changed = False
        for qualname, callees in calls.items():
            if qualname not in narrow and callees & narrow:
                narrow.add(qualname)
                changed = True
    return narrow


def example_keys(tree: ast.Module, variable: str) -> list[str]:
    """The string keys of a module-level ``variable = {...}`` dict literal."""
    keys: list[str] = []
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) else []
        if any(isinstance(t, ast.Name) and t.id == variable for t in targets) and isinstance(node.value, ast.Dict):
            keys.extend(k.value for k in node.value.keys if isinstance(k, ast.Constant) and isinstance(k.value, str))
    return keys


ASARRAY_CALLS = frozenset({"asarray", "array", "asanyarray", "ascontiguousarray", "atleast_1d", "atleast_2d"})
ARRAY_MODULES = frozenset({"np", "numpy", "onp", "jnp"})


def converts_from_lists(node: ast.AST) -> bool:
    """Does the function convert one of its parameters to an array itself (``v = jnp.asarray(v)``, as np2jax writes
    first for a parameter a caller may give as a list; ``x = np.asarray(x, dtype=float)`` in the original)? Then
    callers give it lists: ``np2jax check`` gives it a list input too (execute.Prober.from_lists; hunt56 C1)."""
    if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return False
    params = {a.arg for a in (*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs)}
    for child in ast.walk(node):
        if (isinstance(child, ast.Call) and isinstance(child.func, ast.Attribute) and child.func.attr in ASARRAY_CALLS
                and isinstance(child.func.value, ast.Name) and child.func.value.id in ARRAY_MODULES and child.args
                and isinstance(child.args[0], ast.Name) and child.args[0].id in params):
            return True
    return False


def _target(pair: FilePair, qualname: str, kind: str, line: int, unchanged: bool) -> Target:
    """A target; in a notebook its line is counted within its cell."""
    if pair.origin is None:
        return Target(qualname, kind, line, unchanged)
    from np2jax.notebook import locate

    cell, in_cell = locate(pair.origin, line)
    return Target(qualname, kind, in_cell, unchanged, cell)


def _is_notebook(path: Path) -> bool:
    return path.suffix.lower() == NOTEBOOK_SUFFIX


def _read(path: Path) -> tuple[bytes, list[tuple[int, int]] | None]:
    """The Python source to check: the file, or a notebook's code cells as one module (and its line origins).

    Magics, shell escapes and cell magics become ``pass`` placeholders (np2jax.notebook): they never run.
    """
    try:
        source = path.read_bytes()
    except OSError as error:
        raise ValueError(f"cannot read {path}: {error.strerror or error}") from None
    if not _is_notebook(path):
        return source, None
    from np2jax.notebook import NotebookError, extract

    try:
        extraction = extract(source)
    except NotebookError as error:
        raise ValueError(str(error)) from None
    if extraction.language is not None:
        raise ValueError(f"not a Python notebook (its kernel's language is {extraction.language})")
    return extraction.module, extraction.origin


def _parse(source: bytes, path: Path) -> ast.Module:
    try:
        return ast.parse(source, filename=str(path))
    except SyntaxError as error:
        raise ValueError(f"syntax error at line {error.lineno}: {error.msg}") from None
    except (ValueError, RecursionError, MemoryError) as error:
        raise ValueError(f"cannot parse: {type(error).__name__}") from None


def definitions(tree: ast.Module) -> dict[str, tuple[str, ast.AST]]:
    """Top-level functions and the methods of top-level classes, by qualified name."""
    found: dict[str, tuple[str, ast.AST]] = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            found[node.name] = ("function", node)
        elif isinstance(node, ast.ClassDef):
            for member in node.body:
                if not isinstance(member, ast.FunctionDef):
                    continue
                if member.name.startswith("__") and member.name not in SKIPPED_DUNDERS_EXCEPT:
                    continue
                kind = _method_kind(member)
                if kind is not None:
                    found[f"{node.name}.{member.name}"] = (kind, member)
    return found


def _method_kind(node: ast.FunctionDef) -> str | None:
    for decorator in node.decorator_list:
        name = decorator.attr if isinstance(decorator, ast.Attribute) else getattr(decorator, "id", None)
        if name in ("staticmethod", "classmethod"):
            return name
        if name in ("property", "cached_property"):
            return "property"
        if name in ("setter", "deleter", "overload", "abstractmethod"):
            return None
    return "method"


def module_spec(path: Path, source: bytes | None = None) -> ModuleSpec:
    """Package modules import by dotted name from above the package's top; loose files by name.

    A notebook is run from ``source`` (its code cells) as a loose module named after the
    file, with its directory on ``sys.path`` (as Jupyter has it) so sibling modules import.
    """
    path = path.resolve()
    if _is_notebook(path):
        if source is None:
            source = _read(path)[0]
        name = "".join(c if c.isalnum() or c == "_" else "_" for c in path.stem)
        name = name if name.isidentifier() else f"_np2jax_nb_{name}"
        return ModuleSpec(str(path), name, str(path.parent), source=source.decode("utf-8"))
    directory = path.parent
    parts = [] if path.stem == "__init__" else [path.stem]
    top = None
    while (directory / "__init__.py").is_file():
        if top is not None and not directory.name.isidentifier():
            break  # `emd_signal-1.10.0/__init__.py` above `PyEMD/`: no import names it, `PyEMD` is the top
        top = directory
        parts.insert(0, directory.name)
        directory = directory.parent
    if top is None:
        return ModuleSpec(str(path), path.stem, str(path.parent))
    name = ".".join(parts)
    if not all(part.isidentifier() for part in parts):
        safe = "_np2jax_pkg_" + "".join(c if c.isalnum() else "_" for c in top.name)
        rest = ".".join(parts[1:])  # (not a split of `name`: the top's own name may hold dots, `my-pkg-1.0`)
        return ModuleSpec(str(path), f"{safe}.{rest}" if rest else safe, str(top.parent), (safe, str(top)), True)
    return ModuleSpec(str(path), name, str(top.parent), None, True)

