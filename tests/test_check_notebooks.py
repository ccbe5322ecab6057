"""`np2jax check` on notebooks, through the real command line with real NumPy and JAX.

The fixture ``tests/data/notebooks/checked.ipynb`` has a markdown cell, a cell with a line
magic that defines a constant, a function in a later cell that uses that constant, a cell
with a shell escape and ``%timeit`` (which must never run: magics are ``pass``), and a
cell without a final newline.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

DATA = Path(__file__).parent / "data" / "notebooks"
TIMEOUT_S = 300


def cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "np2jax", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=TIMEOUT_S, stdin=subprocess.DEVNULL)


def migrated(tmp_path: Path) -> Path:
    shutil.copy(DATA / "checked.ipynb", tmp_path / "nb.ipynb")
    result = cli("migrate", "nb.ipynb", "--out", "out", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    return tmp_path / "out" / "nb.ipynb"


def report_of(tmp_path: Path) -> dict:
    return json.loads((tmp_path / "report.json").read_text())


def test_migrated_notebook_is_equivalent(tmp_path):
    migrated(tmp_path)
    result = cli("check", "nb.ipynb", "out/nb.ipynb", "--report", "report.json", cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    functions = {f["qualname"]: f for f in report_of(tmp_path)["functions"]}
    assert set(functions) == {"scaled_norm", "centered"}
    assert all(f["status"] == "equivalent" for f in functions.values()), functions
    assert all(f["path"] == "nb.ipynb" for f in functions.values())
    # lines count within the function's cell (cell numbers count every cell, markdown too)
    assert (functions["scaled_norm"]["cell"], functions["scaled_norm"]["line"]) == (3, 1)
    assert (functions["centered"]["cell"], functions["centered"]["line"]) == (5, 1)
    assert "nb.ipynb::scaled_norm" in result.stdout
    assert "2 equivalent" in result.stderr


def test_hand_broken_migration_is_a_mismatch(tmp_path):
    out = migrated(tmp_path)
    text = out.read_text()
    assert "SCALE * jnp.sqrt" in text
    out.write_text(text.replace("SCALE * jnp.sqrt", "(SCALE + 1) * jnp.sqrt"))
    result = cli("check", "nb.ipynb", "out/nb.ipynb", "--report", "report.json", cwd=tmp_path)
    assert result.returncode == 1, result.stdout + result.stderr
    functions = {f["qualname"]: f for f in report_of(tmp_path)["functions"]}
    assert functions["scaled_norm"]["status"] == "mismatch"
    assert functions["centered"]["status"] == "equivalent"


def test_directories_pair_notebooks_and_magics_never_run(tmp_path):
    original = tmp_path / "orig"
    original.mkdir()
    shutil.copy(DATA / "checked.ipynb", original / "nb.ipynb")
    marker = tmp_path / "ran"
    with_shell = json.loads((DATA / "checked.ipynb").read_text())
    with_shell["cells"][3]["source"] = [f"!touch {marker}\n", f"%system touch {marker}\n", "x = 1\n"]
    (original / "sub").mkdir()
    (original / "sub" / "shell.ipynb").write_text(json.dumps(with_shell, indent=1))
    (original / "plain.py").write_text("import numpy as np\n\ndef f(x):\n    return np.sum(x ** 2)\n")
    result = cli("migrate", "orig", "--out", "mig", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    result = cli("check", "orig", "mig", "--report", "report.json", cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    found = {(f["path"], f["qualname"]): f["status"] for f in report_of(tmp_path)["functions"]}
    assert found == {
        ("orig/nb.ipynb", "scaled_norm"): "equivalent", ("orig/nb.ipynb", "centered"): "equivalent",
        ("orig/sub/shell.ipynb", "scaled_norm"): "equivalent", ("orig/sub/shell.ipynb", "centered"): "equivalent",
        ("orig/plain.py", "f"): "equivalent",
    }
    assert not marker.exists()


def test_broken_notebook_is_a_reported_error(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    (tmp_path / "a" / "nb.ipynb").write_text("{not json")
    shutil.copy(DATA / "checked.ipynb", tmp_path / "b" / "nb.ipynb")
    result = cli("check", "a", "b", "--report", "report.json", cwd=tmp_path)
    (record,) = report_of(tmp_path)["functions"]
    assert record["status"] == "error" and "not valid JSON" in record["message"], record
    assert result.returncode == 0  # the original could not run: nothing to hold against the migration
