"""The pytest plugin: `pytest --np2jax-check ORIGINAL MIGRATED`, spread over 2 processes by pytest-xdist."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

CASES = Path(__file__).resolve().parent / "check_cases" / "triples"


def run_pytest(migrated: str, tmp_path: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "2",
         "--np2jax-check", str(CASES / "original"), str(CASES / migrated)],
        cwd=tmp_path, capture_output=True, text=True, timeout=300,
    )


def test_every_function_is_a_test_item(tmp_path):
    right = run_pytest("correct", tmp_path)
    assert right.returncode == 0, right.stdout[-3000:]
    assert re.search(r"\b20 passed\b", right.stdout), right.stdout[-3000:]
    wrong = run_pytest("wrong", tmp_path)
    assert wrong.returncode == 1, wrong.stdout[-3000:]
    assert re.search(r"\b20 failed\b", wrong.stdout), wrong.stdout[-3000:]
    assert "off_by_one.py::zero_first" in wrong.stdout
    assert "mismatch: input 1" in wrong.stdout
