"""A migration split into hunks that can be applied one by one (what ``np2jax review`` offers).

Hunks are the groups of a unified diff with three lines of context, exactly as
``np2jax migrate`` prints them.  Lines are bytes, so applying any choice of hunks
keeps the file's encoding, BOM and newlines.  Groups never overlap, so each
original line belongs to at most one hunk and a hunk's replacement (the migrated
lines, or what the user edited them into) simply takes the place of its range.

Two hunks can depend on each other through imports: the hunk that adds
``import jax.numpy as jnp`` is *required* by every hunk whose added lines use
``jnp``.  Other combinations (an import removed while a line still uses it, an
edit that does not parse) are found by ``combination_problems`` after the fact.
"""

from __future__ import annotations

import ast
import builtins
import difflib
import re
from dataclasses import dataclass, field

CONTEXT_LINES = 3
MODULE = "<module>"  # the qualname of what lies outside every function
_LINE_END = re.compile(rb"(?<=\n)|(?<=\r)(?!\n)")  # Python's newlines: \r\n, \n, lone \r
_MODULE_GLOBALS = frozenset({"__file__", "__name__", "__doc__", "__spec__", "__loader__", "__package__",
                             "__builtins__", "__path__", "__cached__", "__annotations__", "__dict__"})
_KNOWN_GLOBALS = frozenset(dir(builtins)) | _MODULE_GLOBALS


def split_lines(data: bytes) -> list[bytes]:
    """``data`` split after each newline Python recognises, newlines kept."""
    lines = _LINE_END.split(data)
    if lines and not lines[-1]:
        lines.pop()
    return lines


@dataclass(frozen=True)
class Hunk:
    number: int  # 1-based, in file order
    old_start: int  # 0-based line range of the original that the hunk replaces
    old_end: int
    new_start: int  # 0-based line range of the migrated file
    new_end: int
    opcodes: tuple[tuple[str, int, int, int, int], ...]  # difflib opcodes, context included
    cell: int | None = None  # a notebook hunk: the cell it lies in (its header counts lines within the cell)
    old_base: int = 0  # the cell's first line in the original module, and in the migrated one
    new_base: int = 0

    @property
    def header(self) -> str:
        old = _range(self.old_start - self.old_base, self.old_end - self.old_base)
        return f"@@ -{old} +{_range(self.new_start - self.new_base, self.new_end - self.new_base)} @@"

    def added_lines(self) -> set[int]:
        """1-based lines of the migrated file that this hunk adds or changes."""
        return {j + 1 for tag, _, _, j1, j2 in self.opcodes if tag != "equal" for j in range(j1, j2)}

    def removed_lines(self) -> set[int]:
        """1-based lines of the original that this hunk removes or changes."""
        return {i + 1 for tag, i1, i2, _, _ in self.opcodes if tag != "equal" for i in range(i1, i2)}


def _range(start: int, end: int) -> str:
    """A unified-diff range: ``start,length`` with 1-based ``start`` (``start,0`` is the line before)."""
    length = end - start
    first = start + 1 if length else start
    return str(first) if length == 1 else f"{first},{length}"


@dataclass
class FileDiff:
    old: list[bytes]
    new: list[bytes]
    hunks: list[Hunk]
    requires: dict[int, set[int]] = field(default_factory=dict)  # hunk number -> hunks it needs
    provides: dict[int, set[str]] = field(default_factory=dict)  # hunk number -> names its new imports bind
    drops: dict[int, set[str]] = field(default_factory=dict)  # hunk number -> names its removed imports bound

    def old_side(self, hunk: Hunk) -> list[bytes]:
        return self.old[hunk.old_start:hunk.old_end]

    def new_side(self, hunk: Hunk) -> list[bytes]:
        return self.new[hunk.new_start:hunk.new_end]

    def compose(self, replacements: dict[int, list[bytes]]) -> bytes:
        """The original with each hunk numbered in ``replacements`` replaced by those lines."""
        out: list[bytes] = []
        position = 0
        for hunk in self.hunks:
            out.extend(self.old[position:hunk.old_start])
            if hunk.number in replacements:
                out.extend(replacements[hunk.number])
            else:
                out.extend(self.old[hunk.old_start:hunk.old_end])
            position = hunk.old_end
        out.extend(self.old[position:])
        return b"".join(out)


def split_hunks(before: bytes, after: bytes, context: int = CONTEXT_LINES) -> FileDiff:
    old, new = split_lines(before), split_lines(after)
    matcher = difflib.SequenceMatcher(None, old, new)
    hunks = []
    for number, group in enumerate(matcher.get_grouped_opcodes(context), start=1):
        hunks.append(Hunk(number, group[0][1], group[-1][2], group[0][3], group[-1][4], tuple(group)))
    diff = FileDiff(old, new, hunks)
    _find_import_dependencies(diff, before, after)
    return diff


def split_region_hunks(before: bytes, after: bytes, regions: list[tuple[int, int, int, int, int]],
                       context: int = CONTEXT_LINES) -> FileDiff:
    """Like ``split_hunks``, but each hunk lies within one region and counts its lines from it.

    ``regions`` are (cell number, old start, old end, new start, new end) in 0-based lines:
    a notebook's cells in its module, so no hunk spans two cells.
    """
    old, new = split_lines(before), split_lines(after)
    hunks = []
    for cell, old_start, old_end, new_start, new_end in regions:
        matcher = difflib.SequenceMatcher(None, old[old_start:old_end], new[new_start:new_end])
        for group in matcher.get_grouped_opcodes(context):
            if all(tag == "equal" for tag, *_ in group):
                continue
            shifted = tuple((tag, i1 + old_start, i2 + old_start, j1 + new_start, j2 + new_start)
                            for tag, i1, i2, j1, j2 in group)
            hunks.append(Hunk(len(hunks) + 1, shifted[0][1], shifted[-1][2], shifted[0][3], shifted[-1][4], shifted,
                              cell, old_start, new_start))
    diff = FileDiff(old, new, hunks)
    _find_import_dependencies(diff, before, after)
    return diff


def _find_import_dependencies(diff: FileDiff, before: bytes, after: bytes) -> None:
    old_tree, new_tree = _parse(before), _parse(after)
    if new_tree is None:
        return
    already_imported = _imported_names(old_tree) if old_tree is not None else {}
    imported = _imported_names(new_tree)
    uses = _loaded_names(new_tree)
    for hunk in diff.hunks:
        added = hunk.added_lines()
        diff.provides[hunk.number] = {
            name for name, lines in imported.items() if lines & added and name not in already_imported
        }
        removed = hunk.removed_lines()
        diff.drops[hunk.number] = {name for name, lines in already_imported.items() if lines & removed}
    for hunk in diff.hunks:
        used = {name for name, lines in uses.items() if lines & hunk.added_lines()}
        diff.requires[hunk.number] = {
            other.number for other in diff.hunks
            if other.number != hunk.number and diff.provides[other.number] & used
        }


def _parse(source: bytes) -> ast.Module | None:
    try:
        return ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def _imported_names(tree: ast.Module) -> dict[str, set[int]]:
    """Name bound by an import -> the lines of the import statements binding it (anywhere in the module)."""
    names: dict[str, set[int]] = {}
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                if alias.name == "*":
                    continue
                bound = alias.asname or alias.name.split(".")[0]
                names.setdefault(bound, set()).update(range(node.lineno, node.end_lineno + 1))
    return names


def _loaded_names(tree: ast.Module) -> dict[str, set[int]]:
    names: dict[str, set[int]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            names.setdefault(node.id, set()).add(node.lineno)
    return names


def _bound_names(tree: ast.Module) -> set[str]:
    """Every name bound anywhere in the module, in any scope (an over-approximation, on purpose)."""
    bound: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            bound.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(node.name)
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            bound.update(alias.asname or alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            bound.update(node.names)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            bound.add(node.name)
        elif isinstance(node, (ast.MatchAs, ast.MatchStar)) and node.name:
            bound.add(node.name)
        elif isinstance(node, ast.MatchMapping) and node.rest:
            bound.add(node.rest)
    return bound


def _undefined_names(tree: ast.Module) -> dict[str, int] | None:
    """Names used but bound nowhere -> first line; None when a star import makes that unknowable."""
    if "*" in _imported_star(tree):
        return None
    bound = _bound_names(tree) | _KNOWN_GLOBALS
    return {name: min(lines) for name, lines in _loaded_names(tree).items() if name not in bound}


def _imported_star(tree: ast.Module) -> set[str]:
    return {alias.name for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) for alias in node.names}


@dataclass(frozen=True)
class Problem:
    line: int  # 1-based, in the combined file
    text: str


def combination_problems(diff: FileDiff, combined: bytes, path: str, before: bytes, after: bytes) -> list[Problem]:
    """Why ``combined`` (the original with some hunks applied) is broken, if it is.

    It must parse, and it must not use a name that neither the original nor the full
    migration leaves undefined (the typical case: a line still using ``np`` after the
    hunk that removed ``import numpy as np`` was accepted).
    """
    try:
        tree = ast.parse(combined, path)
    except SyntaxError as error:
        message = (error.msg or "invalid syntax").split("\n")[0]
        return [Problem(error.lineno or 1, f"does not parse: {message}")]
    except (ValueError, RecursionError, MemoryError) as error:
        return [Problem(1, f"does not parse: {error}")]
    undefined = _undefined_names(tree)
    if not undefined:
        return []
    accepted_before = {}
    for source in (before, after):
        other = _parse(source)
        known = _undefined_names(other) if other is not None else None
        if known is None:
            return []
        accepted_before.update(known)
    problems = []
    for name, line in sorted(undefined.items(), key=lambda item: (item[1], item[0])):
        if name in accepted_before:
            continue
        problems.append(Problem(line, f"uses `{name}`, which nothing imports or defines any more{_blame(diff, name)}"))
    return problems


def _blame(diff: FileDiff, name: str) -> str:
    adders = [n for n, names in diff.provides.items() if name in names]
    droppers = [n for n, names in diff.drops.items() if name in names]
    if adders:
        return f" (hunk {adders[0]} imports it)"
    if droppers:
        return f" (hunk {droppers[0]} removes its import)"
    return ""


class FunctionSpans:
    """Which function each original line belongs to (decorators included), for hunks and diagnostics.

    ``functions`` are records with ``qualname``, ``line`` (the ``def`` line) and ``end_line``,
    as ``FileResult.functions`` holds them.
    """

    def __init__(self, functions, source: bytes) -> None:
        self.functions = list(functions)
        self.tree = _parse(source)
        self.starts = {
            node.lineno: min(d.lineno for d in node.decorator_list)
            for node in (ast.walk(self.tree) if self.tree is not None else ())
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.decorator_list
        }

    def enclosing(self, line: int) -> str:
        """The qualname of the innermost function holding ``line``, or ``<module>``."""
        inside = [f for f in self.functions if self.starts.get(f.line, f.line) <= line <= f.end_line]
        if not inside:
            return MODULE
        return min(inside, key=lambda f: f.end_line - f.line).qualname

    def touched_by(self, hunk: Hunk) -> dict[str, list[int]]:
        """Qualname -> the original lines of it that ``hunk`` changes.

        A line inserted between two original lines belongs to the function holding the
        line before it, else to the one holding the line after it (an added decorator
        belongs to the function below), else to the top-level line before it (an import).
        """
        touched: dict[str, list[int]] = {}
        for tag, i1, i2, _, _ in hunk.opcodes:
            if tag in ("replace", "delete"):
                lines = range(i1 + 1, i2 + 1)
            elif tag == "insert":
                below = i1 and self.enclosing(i1) == MODULE and self.enclosing(i1 + 1) != MODULE
                lines = [i1 + 1 if below else max(i1, 1)]
            else:
                continue
            for line in lines:
                touched.setdefault(self.enclosing(line), []).append(line)
        return touched

    def import_lines(self) -> set[int]:
        if self.tree is None:
            return set()
        return {
            line for node in ast.walk(self.tree) if isinstance(node, (ast.Import, ast.ImportFrom))
            for line in range(node.lineno, node.end_lineno + 1)
        }
