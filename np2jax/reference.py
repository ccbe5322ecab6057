"""``gate --reference``: the reference version of each file, and ``check`` against it (also ``review --verify``).

The reference is a directory holding a copy of the current folder's tree (the
reference of ``src/pkg/mod.py`` is ``DIR/src/pkg/mod.py``) or a git revision of
the repository around the current folder, read blob by blob with
``git show REV:path``: nothing is checked out.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
from dataclasses import replace
from pathlib import Path

from np2jax.files import SourceFile, UsageError, read_source

GIT_TIMEOUT_S = 60


class Reference:
    def __init__(self, spec: str) -> None:
        self.spec = spec
        self.directory: Path | None = None
        self.commit = self.top = None
        if os.path.isdir(spec):
            self.directory = Path(spec)
            return
        commit = _git("rev-parse", "--verify", "--quiet", f"{spec}^{{commit}}")
        top = _git("rev-parse", "--show-toplevel")
        if commit is None or top is None:
            raise UsageError(f"--reference {spec}: neither a directory nor a git revision of the repository here")
        self.commit, self.top = commit.decode().strip(), Path(top.decode().strip())

    def read(self, file: SourceFile) -> bytes | None:
        """The reference version of ``file``; None when the reference has no such file."""
        if self.directory is not None:
            candidate = self.directory / os.path.relpath(os.path.abspath(file.path))
            try:
                return read_source(candidate)
            except OSError:
                return None
        inside = os.path.relpath(os.path.realpath(file.path), os.path.realpath(self.top))
        if inside.startswith(os.pardir):
            return None
        return _git("show", "--no-textconv", f"{self.commit}:{Path(inside).as_posix()}")


def _git(*args: str) -> bytes | None:
    try:
        completed = subprocess.run(["git", *args], capture_output=True, timeout=GIT_TIMEOUT_S, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return completed.stdout if completed.returncode == 0 else None


def check_against(reference: Reference, files: list[SourceFile], jobs: int | None = None, **options) -> tuple[list, list[str]]:
    """``np2jax check`` of every file that differs from its reference version.

    Returns the function records (paths as the files are displayed) and notes about
    files that were not checked.
    """
    notes: list[str] = []
    versions = []
    for file in files:
        before = reference.read(file)
        if before is None:
            notes.append(f"{file.display}: not in the reference {reference.spec} (a new file); not checked")
            continue
        try:
            now = read_source(file.path)
        except OSError as error:
            notes.append(f"{file.display}: cannot read: {error.strerror or error}; not checked")
            continue
        if before != now:
            versions.append((file, before, now))
    records, check_notes = check_versions(versions, jobs, **options)
    return records, notes + check_notes


def check_versions(versions: list[tuple[SourceFile, bytes, bytes]], jobs: int | None = None, **options) -> tuple[list, list[str]]:
    """``np2jax check`` of each file's first version (run with NumPy) against its second.

    ``options`` go to ``run_check`` (``timeout``, ``x64``).
    The versions are written to two temporary trees with the files' own layout; the
    records come back with ``path`` set to the file's displayed path.
    """
    if not versions:
        return [], []
    from np2jax.check import run_check  # starts JAX workers: only when asked for

    with tempfile.TemporaryDirectory(prefix="np2jax-versions-") as temporary:
        old_root, new_root = Path(temporary, "before"), Path(temporary, "after")
        displays: dict[str, str] = {}
        for index, (file, before, after) in enumerate(versions):
            relative = _mirror_path(file, index)
            for root, data in ((old_root, before), (new_root, after)):
                (root / relative).parent.mkdir(parents=True, exist_ok=True)
                (root / relative).write_bytes(data)
            displays[str(old_root / relative)] = file.display
        report = run_check(old_root, new_root, jobs=jobs, **options)
    records = [replace(record, path=displays.get(record.path, record.path)) for record in report.functions]
    return records, list(report.notes)


def _mirror_path(file: SourceFile, index: int) -> Path:
    """Where a file goes in the temporary trees: its path below the current folder, when it is below it."""
    relative = Path(os.path.relpath(os.path.abspath(file.path)))
    if relative.parts and relative.parts[0] == os.pardir:
        return Path("outside", str(index), file.path.name)
    return relative
