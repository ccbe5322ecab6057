"""Finding, reading and writing files; never loses a user's code."""

from __future__ import annotations

import os
import shutil
import stat
import tempfile
from dataclasses import dataclass
from pathlib import Path

SKIPPED_DIRS = frozenset({"build", "dist", "__pycache__", "node_modules", "site-packages"})
# Names that are *usually* virtual environments; skipped only when they look like one, so a
# package named ``env`` (common for RL environments) is still migrated.
VENV_NAMES = frozenset({"venv", "env", "virtualenv"})
NOTEBOOK_SUFFIX = ".ipynb"
SOURCE_SUFFIXES = (".py", NOTEBOOK_SUFFIX)


@dataclass(frozen=True)
class SourceFile:
    display: str  # PATH joined with the path relative to it, as users see it
    path: Path  # where to read it
    relative: Path  # relative to the PATH argument; the name alone for a file argument


class UsageError(Exception):
    """Bad command-line input (exit status 2)."""


def discover(paths: list[str], exclude: list[Path] = ()) -> tuple[list[SourceFile], list[tuple[str, str]]]:
    """Every source file under ``paths``, sorted, and (path, reason) for paths that cannot be walked."""
    found: list[SourceFile] = []
    problems: list[tuple[str, str]] = []
    excluded = {p.resolve() for p in exclude}
    seen: set[tuple[str, Path]] = set()  # the same file named twice is processed once
    for argument in paths:
        root = Path(argument)
        if not os.path.lexists(root):
            raise UsageError(f"{argument}: no such file or directory")
        if root.is_dir():
            candidates = _walk(argument, root, excluded, problems)
        elif root.is_file() or (root.is_symlink() and not root.exists()):
            candidates = [SourceFile(argument, root, Path(root.name))]  # a dangling link fails on read
        else:
            problems.append((argument, "not a regular file or directory"))
            continue
        for file in candidates:
            key = (os.path.realpath(file.path), file.relative)
            if key not in seen:
                seen.add(key)
                found.append(file)
    return found, problems


def _is_virtualenv(directory: Path) -> bool:
    return (
        (directory / "pyvenv.cfg").exists()
        or (directory / "conda-meta").is_dir()
        or (directory.name in VENV_NAMES and _has_venv_layout(directory))
    )


def _has_venv_layout(directory: Path) -> bool:
    """An old-style (pre-``pyvenv.cfg``) virtualenv: an activate script or lib/python*/site-packages."""
    if (directory / "bin" / "activate").exists() or (directory / "Scripts" / "activate").exists():
        return True
    return any(directory.glob("lib/python*/site-packages"))


def _walk(
    argument: str, root: Path, excluded: set[Path], problems: list[tuple[str, str]], wanted=None
) -> list[SourceFile]:
    """Files under ``root`` whose name ``wanted`` accepts (default: source files), hidden ones aside."""
    wanted = wanted or _is_source_name
    result: list[SourceFile] = []
    seen: set[tuple[int, int]] = set()
    stack = [root]
    while stack:
        directory = stack.pop()
        try:
            info = directory.stat()
        except OSError as error:
            problems.append((str(directory), f"cannot read directory: {error.strerror or error}"))
            continue
        if (info.st_dev, info.st_ino) in seen:
            continue  # a symlink loop or a second link to the same directory
        seen.add((info.st_dev, info.st_ino))
        try:
            entries = sorted(os.scandir(directory), key=lambda e: e.name)
        except OSError as error:
            problems.append((str(directory), f"cannot read directory: {error.strerror or error}"))
            continue
        subdirs = []
        for entry in entries:
            path = Path(entry.path)
            try:
                is_dir = entry.is_dir()
            except OSError:
                is_dir = False
            if is_dir:
                if entry.name.startswith(".") or entry.name in SKIPPED_DIRS or _is_virtualenv(path):
                    continue
                if path.resolve() in excluded:
                    continue
                subdirs.append(path)
            elif wanted(entry.name) and not entry.name.startswith("."):
                try:
                    regular = entry.is_file()  # follows links; not a FIFO, socket or device
                except OSError:
                    regular = False
                if not regular:
                    if not entry.is_symlink():
                        problems.append((os.path.join(argument, str(path.relative_to(root))), "not a regular file"))
                    continue  # a dangling link: nothing to migrate
                relative = path.relative_to(root)
                result.append(SourceFile(os.path.join(argument, str(relative)), path, relative))
        stack.extend(reversed(subdirs))
    result.sort(key=lambda f: f.relative.parts)
    return result


def _is_source_name(name: str) -> bool:
    return name.endswith(SOURCE_SUFFIXES)


def data_files(paths: list[str], exclude: list[Path] = ()) -> tuple[list[SourceFile], list[tuple[str, str]]]:
    """Every other regular file under the directory ``paths`` (package data, test data, configuration),
    and (path, reason) for entries that are not regular files.

    ``migrate --out`` copies them so the migrated tree works as the original did: a package
    that loads ``data/table.csv`` beside its modules still finds it. The walk skips what
    :func:`discover` skips (hidden entries, build output, virtual environments, ``exclude``).
    """
    found: list[SourceFile] = []
    problems: list[tuple[str, str]] = []
    excluded = {p.resolve() for p in exclude}
    for argument in paths:
        root = Path(argument)
        if root.is_dir():
            found.extend(_walk(argument, root, excluded, problems, wanted=lambda name: not _is_source_name(name)))
    # Unreadable directories were reported by discover's walk already; keep the other problems.
    return found, [(path, reason) for path, reason in problems if not reason.startswith("cannot read directory")]


def read_source(path: Path) -> bytes:
    with open(path, "rb") as handle:
        return handle.read()


def is_read_only(path: Path) -> bool:
    try:
        return not (os.stat(path).st_mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH))
    except OSError:
        return False


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def write_atomic(path: Path, data: bytes, mode_from: Path | None = None) -> None:
    """Write ``data`` to ``path`` through a temporary file and a rename (never half-written)."""
    target = Path(os.path.realpath(path))  # write through symlinks, keep the link
    source_for_mode = mode_from if mode_from is not None else target
    try:
        mode = stat.S_IMODE(os.stat(source_for_mode).st_mode)
    except OSError:
        mode = 0o666 & ~_umask()  # a new file: what open() would have created

    def fill(handle, temporary: str) -> None:
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())
        os.chmod(temporary, mode)

    _replace_atomically(target, fill)


def copy_atomic(source: Path, path: Path) -> None:
    """Copy ``source`` (contents, mode and times) to ``path`` through a temporary file and a rename."""

    def fill(handle, temporary: str) -> None:
        with open(source, "rb") as original:
            shutil.copyfileobj(original, handle)
        handle.flush()
        shutil.copystat(source, temporary)

    _replace_atomically(Path(os.path.realpath(path)), fill)


def _replace_atomically(target: Path, fill) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, temporary = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".np2jax-tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            fill(handle, temporary)
        os.replace(temporary, target)
    except BaseException:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        raise
