"""Regenerate the golden files of the corpus from the current engine.

Run from anywhere::

    python corpus/regenerate.py

For every ``corpus/modules/<name>.py`` this writes

* ``corpus/expected/<name>.py``: the exact bytes ``np2jax`` produces, and
* ``corpus/expected/<name>.diagnostics.txt``: one line per diagnostic,
  ``line:col CODE severity message``, in the engine's order.

Golden files are reviewed by eye before they are committed: a diff in
``corpus/expected`` after an engine change is the change in behaviour.
"""

from __future__ import annotations

import sys
from pathlib import Path

CORPUS = Path(__file__).resolve().parent
MODULES = CORPUS / "modules"
EXPECTED = CORPUS / "expected"

sys.path.insert(0, str(CORPUS.parent))  # use this checkout's np2jax

from np2jax.engine import FileResult, migrate_source  # noqa: E402


def module_paths() -> list[Path]:
    return sorted(MODULES.glob("*.py"))


def display_path(path: Path) -> str:
    """The path migrate_source is given: relative to the repository, with ``/``."""
    return path.relative_to(CORPUS.parent).as_posix()


def migrate(path: Path) -> FileResult:
    return migrate_source(path.read_bytes(), display_path(path))


def format_diagnostics(result: FileResult) -> str:
    return "".join(f"{d.line}:{d.col} {d.code} {d.severity.value} {d.message}\n" for d in result.diagnostics)


def main() -> int:
    EXPECTED.mkdir(exist_ok=True)
    wanted = {path.stem for path in module_paths()}
    for stale in EXPECTED.iterdir():
        stem = stale.name.split(".")[0]
        if stale.is_file() and stem not in wanted:
            stale.unlink()
            print(f"removed {stale.relative_to(CORPUS.parent)}")
    failed = 0
    for path in module_paths():
        result = migrate(path)
        if result.error is not None:
            print(f"{display_path(path)}: error: {result.error}", file=sys.stderr)
            failed += 1
        (EXPECTED / path.name).write_bytes(result.output)
        (EXPECTED / f"{path.stem}.diagnostics.txt").write_text(format_diagnostics(result), encoding="utf-8")
        print(f"{display_path(path)}: {result.status}, {len(result.diagnostics)} diagnostic(s)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
