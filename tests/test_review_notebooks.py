"""`np2jax review` on a notebook, driven through a pseudo-terminal: hunks per cell, written into the cells."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from test_review import review  # noqa: F401 - the pseudo-terminal fixture

DATA = Path(__file__).parent / "data" / "notebooks"


def sources(path: Path) -> list[str]:
    return ["".join(cell["source"]) for cell in json.loads(path.read_text())["cells"]]


def test_hunks_per_cell_accept_and_reject(review, tmp_path):  # noqa: F811
    notebook = tmp_path / "nb.ipynb"
    shutil.copy(DATA / "checked.ipynb", notebook)
    before = sources(notebook)
    session = review("nb.ipynb")
    session.expect(r"nb\.ipynb \[cell 2\]")
    session.answer("y")  # the import hunk (cell 2)
    session.expect(r"nb\.ipynb \[cell 3\]")
    session.answer("n")  # scaled_norm (cell 3)
    session.expect(r"nb\.ipynb \[cell 5\]")
    session.answer("y")  # centered (cell 5)
    assert session.finish() == 0
    assert "nb.ipynb: 2 of 3 hunk(s) accepted, 1 rejected; written" in session.output
    assert "%matplotlib inline" in session.output  # magics shown as the cell has them
    assert "np2jax-magic" not in session.output
    after = sources(notebook)
    assert after[0] == before[0] and after[3] == before[3]  # markdown and the magic cell untouched
    assert after[1] == before[1].replace("import numpy as np\n", "import numpy as np\nimport jax.numpy as jnp\n")
    assert after[2] == before[2]
    assert after[4] == before[4].replace("np.mean", "jnp.mean")  # still without a final newline
    # written with the notebook's own formatting: re-serialising gives the same bytes
    data = json.loads(notebook.read_text())
    assert notebook.read_text() == json.dumps(data, indent=1, ensure_ascii=False) + "\n"
    assert [c.get("id") for c in data["cells"]] == [f"cell-{i}" for i in range(5)]
    assert data["cells"][2]["execution_count"] == 4


def test_accept_all_matches_migrate_and_dependent_import_is_kept(review, run_cli, tmp_path):  # noqa: F811
    shutil.copy(DATA / "checked.ipynb", tmp_path / "nb.ipynb")
    result = run_cli("migrate", "--no-jit", "nb.ipynb", "--out", "expected", cwd=tmp_path)
    assert result.returncode == 0, result
    session = review("nb.ipynb")
    session.answer("n")  # the import hunk: rejected, but the cells below use jnp
    session.answer("y")
    session.expect("Also applying hunk 1")
    session.answer("y")
    assert session.finish() == 0
    assert (tmp_path / "nb.ipynb").read_bytes() == (tmp_path / "expected" / "nb.ipynb").read_bytes()


def test_reject_all_leaves_the_notebook_alone(review, tmp_path):  # noqa: F811
    notebook = tmp_path / "nb.ipynb"
    shutil.copy(DATA / "checked.ipynb", notebook)
    session = review("nb.ipynb")
    session.answer("n", "n", "n")
    assert session.finish() == 0
    assert notebook.read_bytes() == (DATA / "checked.ipynb").read_bytes()
    assert "0 of 3 hunk(s) accepted, 3 rejected; unchanged" in session.output
