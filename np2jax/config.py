"""Configuration from ``[tool.np2jax]`` in ``pyproject.toml``.

Where it is found: from the deepest folder that holds every PATH argument (a
file's own folder for a file), np2jax looks in that folder and then in each
parent, up to the filesystem root, for a ``pyproject.toml``.  The first one
with a ``[tool.np2jax]`` table is the configuration; ``pyproject.toml`` files
without the table are passed by.  ``--config FILE`` names the file instead and
``--isolated`` reads none.  Globs are relative to the folder of the file read.

Every key is checked: an unknown key or a value of the wrong type is a usage
error (exit 2), never silently ignored.
"""

from __future__ import annotations

import difflib
import functools
import math
import os
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from np2jax.codes import BY_CODE
from np2jax.engine import Options
from np2jax.files import UsageError

TABLE = "[tool.np2jax]"
DEFAULT_UNROLL_THRESHOLD = Options().unroll_threshold


class ConfigError(UsageError):
    """The configuration cannot be used; one line per problem, each naming the file."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("\n".join(problems))
        self.problems = problems


@dataclass(frozen=True)
class CheckConfig:
    """``[tool.np2jax.check]``: settings for ``np2jax check`` (None: the command's own default)."""

    timeout: float | None = None  # seconds per function
    rtol: float | None = None
    atol: float | None = None
    x64: bool | None = None


@dataclass(frozen=True)
class Config:
    """The configuration in force; the default one when no file was found."""

    path: Path | None = None  # the file read
    root: Path = field(default_factory=Path.cwd)  # globs are relative to this folder
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    select: frozenset[str] | None = None
    ignore: frozenset[str] | None = None
    per_file_ignores: tuple[tuple[str, frozenset[str]], ...] = ()
    unsafe_fixes: bool | None = None
    jit: bool | None = None
    loop_unroll_threshold: int | None = None
    migrated: tuple[str, ...] = ()
    check: CheckConfig = CheckConfig()

    def base_options(
        self,
        *,
        jit: bool | None = None,
        select: frozenset[str] | None = None,
        ignore: frozenset[str] | None = None,
        unsafe_fixes: bool | None = None,
    ) -> Options:
        """Options for every file; a command-line value (not None) replaces the file's value."""
        return Options(
            jit=_first(jit, self.jit, True),
            select=_first(select, self.select, frozenset()),
            ignore=_first(ignore, self.ignore, frozenset()),
            unsafe_fixes=_first(unsafe_fixes, self.unsafe_fixes, False),
            unroll_threshold=_first(self.loop_unroll_threshold, DEFAULT_UNROLL_THRESHOLD),
        )

    def options_for(self, path: Path | str, base: Options) -> Options:
        """``base`` plus the ``per-file-ignores`` whose glob matches ``path``."""
        relative = self.relative(path)
        extra = frozenset().union(*(codes for glob, codes in self.per_file_ignores if glob_matches(glob, relative)))
        if not extra - base.ignore:
            return base
        return Options(base.jit, base.select, base.ignore | extra, base.unsafe_fixes, base.unroll_threshold)

    def is_selected(self, path: Path | str) -> bool:
        """Whether ``include``/``exclude`` let np2jax migrate ``path``."""
        relative = self.relative(path)
        if relative is None:
            return True
        if any(glob_matches(glob, relative) for glob in self.exclude):
            return False
        return not self.include or any(glob_matches(glob, relative) for glob in self.include)

    def is_migrated(self, path: Path | str) -> bool:
        """Whether ``path`` is listed in ``migrated`` (modules already moved to JAX)."""
        relative = self.relative(path)
        return relative is not None and any(glob_matches(glob, relative) for glob in self.migrated)

    @property
    def name(self) -> str:
        """The file read, as messages show it."""
        return _shown(self.path) if self.path is not None else "no configuration"

    def relative(self, path: Path | str) -> str | None:
        """``path`` relative to the configuration's folder, ``/``-separated; None outside it."""
        absolute = os.path.abspath(path)
        root = os.path.abspath(self.root)
        if os.path.commonpath([absolute, root]) != root:
            return None
        return Path(os.path.relpath(absolute, root)).as_posix()


def _first(*values):
    return next(value for value in values if value is not None)


def load_config(paths: list[str], *, config_file: str | None = None, isolated: bool = False) -> Config:
    """The configuration for a run over ``paths`` (see the module docstring for the search rule)."""
    if isolated:
        return Config(root=Path.cwd())
    if config_file is not None:
        file = Path(config_file)
        data = _read_toml(file)
        table = data.get("tool", {}).get("np2jax") if isinstance(data.get("tool"), dict) else None
        if table is None:
            raise ConfigError([f"{config_file}: no {TABLE} table"])
        return _parse(table, file)
    for folder in _search_folders(paths):
        candidate = folder / "pyproject.toml"
        if not candidate.is_file():
            continue
        data = _read_toml(candidate)
        tool = data.get("tool")
        if isinstance(tool, dict) and "np2jax" in tool:
            return _parse(tool["np2jax"], candidate)
    return Config(root=Path.cwd())


def _search_folders(paths: list[str]) -> list[Path]:
    folders = []
    for argument in paths:
        absolute = os.path.abspath(argument)
        folders.append(absolute if os.path.isdir(absolute) else os.path.dirname(absolute))
    start = Path(os.path.commonpath(folders)) if folders else Path.cwd()
    return [start, *start.parents]


def _read_toml(file: Path) -> dict:
    shown = _shown(file)
    try:
        with open(file, "rb") as handle:
            return tomllib.load(handle)
    except OSError as error:
        raise ConfigError([f"{shown}: cannot read: {error.strerror or error}"])
    except tomllib.TOMLDecodeError as error:
        raise ConfigError([f"{shown}: not valid TOML: {error}"])
    except UnicodeDecodeError as error:
        raise ConfigError([f"{shown}: not valid UTF-8: {error.reason} at byte {error.start}"])


# key -> (kind, Config field); kinds are checked by _value
_KEYS = {
    "include": ("globs", "include"),
    "exclude": ("globs", "exclude"),
    "select": ("codes", "select"),
    "ignore": ("codes", "ignore"),
    "per-file-ignores": ("per-file", "per_file_ignores"),
    "unsafe-fixes": ("bool", "unsafe_fixes"),
    "jit": ("bool", "jit"),
    "loop-unroll-threshold": ("count", "loop_unroll_threshold"),
    "migrated": ("globs", "migrated"),
    "check": ("check", "check"),
}
_CHECK_KEYS = {
    "timeout": ("seconds", "timeout"),
    "rtol": ("tolerance", "rtol"),
    "atol": ("tolerance", "atol"),
    "x64": ("bool", "x64"),
}


def _parse(table: object, file: Path) -> Config:
    problems: list[str] = []
    values = _table(table, TABLE, _KEYS, _shown(file), problems)
    if "check" in values:
        values["check"] = CheckConfig(**values["check"])
    if problems:
        raise ConfigError(problems)
    return Config(path=file, root=Path(os.path.abspath(file.parent)), **values)


def _shown(file: Path) -> str:
    """``file`` as messages name it: relative to the current folder when it is inside it."""
    relative = os.path.relpath(os.path.abspath(file))
    return str(file) if relative.startswith("..") else relative


def _table(table: object, name: str, keys: dict, file: str, problems: list[str]) -> dict:
    if not isinstance(table, dict):
        problems.append(f"{file}: {name} must be a table, not {_describe(table)}")
        return {}
    values = {}
    for key, value in table.items():
        if key not in keys:
            close = difflib.get_close_matches(key, list(keys), n=1, cutoff=0.6)
            hint = f"; did you mean '{close[0]}'?" if close else f"; known keys: {', '.join(keys)}"
            problems.append(f"{file}: {name} unknown key '{key}'{hint}")
            continue
        kind, attribute = keys[key]
        if kind == "check":
            values[attribute] = _table(value, "[tool.np2jax.check]", _CHECK_KEYS, file, problems)
            continue
        problem, parsed = _value(kind, value)
        if problem:
            problems.append(f"{file}: {name} '{key}' {problem}")
        else:
            values[attribute] = parsed
    return values


def _value(kind: str, value: object) -> tuple[str | None, object]:
    """(problem, parsed value) for one key of the given kind."""
    if kind == "bool":
        return (None, value) if isinstance(value, bool) else (f"must be true or false, not {_describe(value)}", None)
    if kind == "count":
        if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
            return None, value
        return f"must be a whole number >= 0, not {_describe(value)}", None
    if kind in ("seconds", "tolerance"):
        ok = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
        if ok and (value > 0 if kind == "seconds" else value >= 0):
            return None, float(value)
        return f"must be a number {'> 0' if kind == 'seconds' else '>= 0'}, not {_describe(value)}", None
    if kind == "globs":
        if isinstance(value, list) and all(isinstance(item, str) and item for item in value):
            bad = next((item for item in value if _glob_problem(item)), None)
            if bad is not None:
                return f"has an invalid glob {bad!r}: {_glob_problem(bad)}", None
            return None, tuple(value)
        return f"must be a list of glob strings, not {_describe(value)}", None
    if kind == "codes":
        return _codes(value)
    if kind == "per-file":
        if not isinstance(value, dict):
            return f"must be a table of glob = [codes], not {_describe(value)}", None
        parsed = []
        for glob, codes in value.items():
            problem, code_set = _codes(codes)
            problem = problem or _glob_problem(glob)
            if problem:
                return f"entry {glob!r} {problem}", None
            parsed.append((glob, code_set))
        return None, tuple(parsed)
    raise AssertionError(kind)


def _codes(value: object) -> tuple[str | None, frozenset[str] | None]:
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        return f"must be a list of rule codes such as [\"NPJ100\"], not {_describe(value)}", None
    codes = frozenset(item.strip().upper() for item in value)
    unknown = sorted(code for code in codes if code not in BY_CODE)
    if unknown:
        close = difflib.get_close_matches(unknown[0], list(BY_CODE), n=1)
        hint = f"; did you mean '{close[0]}'?" if close else "; `np2jax rules` lists them"
        return f"has unknown rule code(s) {', '.join(repr(code) for code in unknown)}{hint}", None
    return None, codes


def _describe(value: object) -> str:
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, dict):
        return "a table"
    if isinstance(value, list):
        return "a list" if all(isinstance(item, str) for item in value) else "a list with non-string items"
    if isinstance(value, str):
        return f"the string {value!r}"
    return f"{type(value).__name__} {value!r}"


# Globs: `*` any characters but `/`, `**` any number of folders, `?` one character, `[...]` a class.
# A glob without `/` matches a file or folder name at any depth; one with `/` matches from the
# configuration's folder.  A glob that matches a folder matches everything inside it.
_GLOB_TOKEN = re.compile(r"\*\*/|/\*\*$|\*\*|\*|\?|\[[^\]/]*\]|[^*?\[]+|\[")


@functools.lru_cache(maxsize=None)
def _glob_regex(glob: str) -> re.Pattern:
    anchored = "/" in glob.rstrip("/")
    glob = glob.strip("/")
    parts = []
    for token in _GLOB_TOKEN.findall(glob):
        if token == "**/":
            parts.append("(?:.*/)?")
        elif token == "/**":
            parts.append("(?:/.*)?")
        elif token == "**":
            parts.append(".*")
        elif token == "*":
            parts.append("[^/]*")
        elif token == "?":
            parts.append("[^/]")
        elif token.startswith("[") and len(token) > 1:
            body = token[1:-1]
            parts.append("[" + ("^" + body[1:] if body.startswith("!") else body).replace("\\", "\\\\") + "]")
        else:
            parts.append(re.escape(token))
    prefix = "" if anchored else "(?:.*/)?"
    return re.compile(prefix + "".join(parts) + "(?:/.*)?")


def _glob_problem(glob: str) -> str | None:
    if not glob.strip("/"):
        return "empty"
    try:
        _glob_regex(glob)
    except re.error as error:
        return str(error)
    return None


def glob_matches(glob: str, relative: str | None) -> bool:
    """Whether the ``/``-separated ``relative`` path (or a folder it is in) matches ``glob``."""
    return relative is not None and _glob_regex(glob).fullmatch(relative) is not None
