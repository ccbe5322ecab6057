"""Shared by the checker's tests: run ``np2jax check`` on one module and a migration of it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TIMEOUT_S = 300


def check_records(tmp: Path, filename: str, original: str, migrated: str) -> dict[str, dict]:
    """``np2jax check`` of ``original`` against ``migrated`` (each written as ``filename`` in its own folder under
    ``tmp``): the report's records by function name."""
    for side, text in (("original", original), ("migrated", migrated)):
        (tmp / side).mkdir()
        (tmp / side / filename).write_text(text)
    report = tmp / "report.json"
    completed = subprocess.run(
        [sys.executable, "-m", "np2jax", "check", str(tmp / "original"), str(tmp / "migrated"), "-j", "1",
         "--report", str(report)],
        cwd=ROOT, capture_output=True, text=True, timeout=TIMEOUT_S, stdin=subprocess.DEVNULL)
    assert "Traceback" not in completed.stderr, completed.stderr[-3000:]
    return {f["qualname"]: f for f in json.loads(report.read_text())["functions"]}
