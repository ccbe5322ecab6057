"""Notebooks through the real CLI: cells migrated as one module, IPython lines and everything
outside the changed cells' sources kept byte for byte, per-cell diffs, cell positions in reports,
bad notebooks reported as bad input.

The fixtures are in tests/data/notebooks: ``analysis.ipynb`` as nbformat writes it (indent 1,
sorted keys, UTF-8), ``compact.ipynb`` as another tool might (indent 2, ASCII escapes, string
sources, unsorted keys, no final newline); ``expected/`` holds their migrations (``--no-jit``).
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from conftest import SIMPLE, write

DATA = Path(__file__).parent / "data" / "notebooks"
SIMPLE_NO_JIT = "import jax.numpy as jnp\n\ndef f(x):\n    return jnp.sum(x ** 2)\n"  # SIMPLE migrated with --no-jit
SUMMARY = re.compile(r"^(\d+) file\(s\) (migrated|would be migrated), (\d+) unchanged, (\d+) failed", re.M)


def notebook(*sources, **top) -> str:
    """An nbformat-4 notebook (as nbformat writes it) with one code cell per source."""
    cells = [
        {"cell_type": "code", "execution_count": None, "id": f"c{i}", "metadata": {}, "outputs": [], "source": source}
        for i, source in enumerate(sources)
    ]
    data = {"cells": cells, "metadata": top.pop("metadata", {}), "nbformat": 4, "nbformat_minor": 5, **top}
    return json.dumps(data, sort_keys=True, indent=1, ensure_ascii=False) + "\n"


def sources(path: Path) -> list[str]:
    return ["".join(c["source"]) for c in json.loads(path.read_text(encoding="utf-8"))["cells"]]


def copy_fixtures(tmp_path: Path) -> None:
    for name in ("analysis.ipynb", "compact.ipynb"):
        shutil.copyfile(DATA / name, tmp_path / name)


def test_write_gives_the_golden_notebooks_and_a_second_run_changes_nothing(tmp_path, run_cli):
    copy_fixtures(tmp_path)
    run = run_cli("migrate", "analysis.ipynb", "compact.ipynb", "--write", "--no-jit", cwd=tmp_path)
    assert run.returncode == 0, run
    for name in ("analysis.ipynb", "compact.ipynb"):
        assert (tmp_path / name).read_bytes() == (DATA / "expected" / name).read_bytes(), name
    again = run_cli("migrate", "analysis.ipynb", "compact.ipynb", "--check", "--no-jit", cwd=tmp_path)
    assert again.returncode == 0, again
    assert SUMMARY.search(again.stderr).groups() == ("0", "would be migrated", "2", "0")


def test_only_the_sources_of_changed_code_cells_change(tmp_path, run_cli):
    copy_fixtures(tmp_path)
    run_cli("migrate", "analysis.ipynb", "--write", "--no-jit", cwd=tmp_path)
    before = json.loads((DATA / "analysis.ipynb").read_text(encoding="utf-8"))
    after = json.loads((tmp_path / "analysis.ipynb").read_text(encoding="utf-8"))
    changed = [i + 1 for i, (b, a) in enumerate(zip(before["cells"], after["cells"])) if b != a]
    assert changed == [2, 3, 5, 8]
    for b, a in zip(before["cells"], after["cells"]):
        assert {k: v for k, v in b.items() if k != "source"} == {k: v for k, v in a.items() if k != "source"}
        assert type(b["source"]) is type(a["source"])
    assert {k: v for k, v in before.items() if k != "cells"} == {k: v for k, v in after.items() if k != "cells"}


def test_ipython_lines_are_kept_exactly(tmp_path, run_cli):
    copy_fixtures(tmp_path)
    run_cli("migrate", "analysis.ipynb", "--write", "--no-jit", cwd=tmp_path)
    cells = sources(tmp_path / "analysis.ipynb")
    assert cells[1].startswith("%matplotlib inline\n")
    assert cells[5] == "%timeit smooth(u0, 0.1)\n!pip install --quiet jax\nnp.roll?\n?smooth\nfiles = !ls"
    assert cells[6] == "%%time\ndef untouched(u):\n    return np.mean(u)"  # a cell magic's cell is left alone
    assert cells[7] == "def run(u, steps):\n    for _ in range(steps):\n        %time u = smooth(u, 0.1)\n    return jnp.max(jnp.abs(u))"


def test_dry_run_shows_one_diff_per_changed_cell_and_writes_nothing(tmp_path, run_cli):
    copy_fixtures(tmp_path)
    run = run_cli("migrate", "analysis.ipynb", "--no-jit", cwd=tmp_path)
    assert run.returncode == 0, run
    headers = re.findall(r"^--- (.*)\t\(original\)$", run.stdout, re.M)
    assert headers == [f"analysis.ipynb [cell {n}]" for n in (2, 3, 5, 8)]
    assert re.findall(r"^\+\+\+ (.*)\t\(migrated\)$", run.stdout, re.M) == headers
    assert "+    return jnp.sum(u ** 2)\n" in run.stdout
    assert "No newline at end of file" not in run.stdout  # a cell's last line lacks one by convention
    assert (tmp_path / "analysis.ipynb").read_bytes() == (DATA / "analysis.ipynb").read_bytes()


def test_check_out_and_directories(tmp_path, run_cli):
    write(tmp_path / "proj" / "nb.ipynb", notebook("import numpy as np\n", "def f(x):\n    return np.sum(x)"))
    write(tmp_path / "proj" / "mod.py", SIMPLE)
    write(tmp_path / "proj" / ".ipynb_checkpoints" / "nb-checkpoint.ipynb", "not even JSON")
    check = run_cli("migrate", "proj", "--check", "--no-jit", cwd=tmp_path)
    assert check.returncode == 1, check
    assert "would migrate proj/nb.ipynb" in check.stderr and "would migrate proj/mod.py" in check.stderr
    assert "checkpoint" not in check.stderr
    out = run_cli("migrate", "proj", "--out", "migrated", "--no-jit", cwd=tmp_path)
    assert out.returncode == 0, out
    assert sources(tmp_path / "migrated" / "nb.ipynb") == [
        "import jax.numpy as jnp\n", "def f(x):\n    return jnp.sum(x)"
    ]
    assert (tmp_path / "migrated" / "mod.py").read_text() == SIMPLE_NO_JIT
    assert (tmp_path / "proj" / "nb.ipynb").read_text() == notebook("import numpy as np\n", "def f(x):\n    return np.sum(x)")


def test_cells_are_one_module_and_report_lines_count_within_cells(tmp_path, run_cli):
    write(tmp_path / "nb.ipynb", notebook(
        "import numpy as np\n",
        "def seeded(x):\n    np.random.seed(0)\n    return x\n",
        "# calls a function of the cell before\ndef caller(x):\n    return seeded(x) + np.sum(x)\n",
    ))
    run = run_cli("migrate", "nb.ipynb", "--report", "r.json", "--no-jit", cwd=tmp_path)
    assert run.returncode == 0, run
    assert "nb.ipynb:cell 2:2:5: NPJ110 [error]" in run.stderr
    assert "nb.ipynb:cell 3:3:12: NPJ202 [error]" in run.stderr  # the callee's cell was analysed too
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["files"] == [{"path": "nb.ipynb", "status": "unchanged", "error": None}]
    assert [(d["code"], d["cell"], d["line"], d["col"]) for d in report["diagnostics"]] == [
        ("NPJ110", 2, 2, 5), ("NPJ202", 3, 3, 12)
    ]
    assert [(f["qualname"], f["cell"], f["line"], f["end_line"], f["status"]) for f in report["functions"]] == [
        ("seeded", 2, 1, 3, "unsupported"), ("caller", 3, 2, 3, "unsupported")
    ]


def test_suppressions_and_skip_file_work_in_cells(tmp_path, run_cli):
    write(tmp_path / "quiet.ipynb", notebook(
        "import numpy as np\n",
        "def f(x):\n    np.random.seed(0)  # np2jax: ignore[NPJ110, NPJ999]\n    return np.sum(x)\n",
    ))
    write(tmp_path / "skipped.ipynb", notebook("import numpy as np\n", "# np2jax: skip-file\ndef f(x):\n    return np.sum(x)\n"))
    run = run_cli("migrate", "quiet.ipynb", "skipped.ipynb", cwd=tmp_path)
    assert run.returncode == 0, run
    assert "NPJ110" not in run.stderr
    assert "quiet.ipynb:cell 2:2: warning: unknown rule code 'NPJ999' in np2jax suppression comment" in run.stderr
    assert "skipped.ipynb" not in run.stdout
    assert SUMMARY.search(run.stderr).groups() == ("0", "would be migrated", "2", "0")


@pytest.mark.parametrize(
    "content, reason",
    [
        ("import numpy as np\n", r"not valid JSON \(Expecting value at line 1, column 1\): not a notebook"),
        ('{"cells": [], "nbformat": 3}', r"not an nbformat 4 notebook \(nbformat 3\); convert it with `jupyter nbconvert --to notebook`"),
        ('[1, 2]', r"not a notebook \(the JSON is not an object\)"),
        ('{"cells": [{"cell_type": "code", "source": 3}], "nbformat": 4}', r"not a valid notebook: cell 1 has no source text"),
        (notebook("import numpy as np\n", "def f(x):\n    return np.sum(x\n"),
         r"syntax error in cell 2 at line 2, column 18: '\(' was never closed \(as Python 3\.\d+ parses it\)"),
        (notebook("def f(x):\n    y = x\n", "    return y\n"), r"syntax error in cell 2 at line 1, column \d+: unexpected indent.*"),
        (notebook("x = 1  # np2jax-cell-7\n"), r"cell 1 contains np2jax's own marker text \(np2jax-cell-\.\.\.\)"),
        (b'{"cells": [], "nbformat": 4, "x": "\xff"}', r"not valid UTF-8 \(byte 35\): not a notebook"),
    ],
    ids=["python-source", "nbformat-3", "not-an-object", "bad-source", "syntax-error", "statement-across-cells",
         "marker-text", "not-utf8"],
)
def test_bad_notebooks_are_reported_and_other_files_still_migrated(tmp_path, run_cli, content, reason):
    write(tmp_path / "bad.ipynb", content)
    write(tmp_path / "good.py", SIMPLE)
    for mode in ((), ("--write",)):
        run = run_cli("migrate", "bad.ipynb", "good.py", "--no-jit", *mode, cwd=tmp_path)
        assert run.returncode == 3, run
        [line] = run.error_lines("bad.ipynb")
        assert re.fullmatch(r"bad\.ipynb: error: " + reason, line), line
    assert (tmp_path / "good.py").read_text() == SIMPLE_NO_JIT
    assert (tmp_path / "bad.ipynb").read_bytes() == (content.encode() if isinstance(content, str) else content)


def test_a_notebook_of_another_language_is_left_alone_with_a_warning(tmp_path, run_cli):
    r_notebook = notebook("library(ggplot2)\nx <- c(1, 2)\n", metadata={"kernelspec": {"language": "R", "name": "ir"}})
    write(tmp_path / "r.ipynb", r_notebook)
    run = run_cli("migrate", "r.ipynb", "--write", cwd=tmp_path)
    assert run.returncode == 0, run
    assert "r.ipynb: warning: not a Python notebook (kernel language 'R'); left unchanged" in run.stderr
    assert (tmp_path / "r.ipynb").read_text() == r_notebook


def test_formatting_that_cannot_be_reproduced_is_said(tmp_path, run_cli):
    # `1.50` reads as 1.5: no json.dumps setting writes this file back as it was.
    text = notebook("import numpy as np\n", "def f(x):\n    return np.sum(x)").replace('"metadata": {}', '"metadata": {"w": 1.50}', 1)
    write(tmp_path / "odd.ipynb", text)
    run = run_cli("migrate", "odd.ipynb", "--write", "--no-jit", cwd=tmp_path)
    assert run.returncode == 0, run
    assert "odd.ipynb: warning: the notebook's JSON formatting could not be reproduced exactly" in run.stderr
    assert sources(tmp_path / "odd.ipynb")[1] == "def f(x):\n    return jnp.sum(x)"


def test_cached_notebook_results_are_rebuilt_from_the_notebook(tmp_path, run_cli, cache_dir):
    # Two notebooks with the same code but different magics share one cache entry; each keeps its own magics.
    write(tmp_path / "a.ipynb", notebook("import numpy as np\n%time 1\n", "def f(x):\n    return np.sum(x)"))
    write(tmp_path / "b.ipynb", notebook("import numpy as np\n!echo b\n", "def f(x):\n    return np.sum(x)"))
    first = run_cli("migrate", "a.ipynb", "--write", "--no-jit", cwd=tmp_path)
    second = run_cli("migrate", "b.ipynb", "--write", "--no-jit", cwd=tmp_path)
    assert (first.returncode, second.returncode) == (0, 0)
    assert len([p for p in cache_dir.rglob("*") if p.is_file()]) == 1  # b.ipynb came from the cache
    assert sources(tmp_path / "a.ipynb")[0] == "import jax.numpy as jnp\n%time 1\n"
    assert sources(tmp_path / "b.ipynb")[0] == "import jax.numpy as jnp\n!echo b\n"


@pytest.mark.parametrize(
    "damage, reason",
    [
        (lambda module: module.replace("# np2jax-cell-1\n", ""), "the migration moved a cell boundary"),
        (lambda module: module.replace("pass  # np2jax-magic-0", "pass"), "the migration removed an IPython line"),
        (lambda module: module.replace("x = 1\n", "x = 1"), "the migration moved a cell boundary"),
    ],
    ids=["marker-lost", "placeholder-lost", "marker-glued"],
)
def test_a_module_whose_cell_structure_was_lost_makes_the_notebook_an_error(damage, reason):
    # The engine never does this today; the check is the safety net if a rewrite ever moves a marker.
    from np2jax.engine import FileResult
    from np2jax.notebook import extract, rebuild

    raw = notebook("import numpy as np\n%time 1\nx = 1", "y = np.sum(x)").encode()
    extraction = extract(raw)
    module = extraction.module.decode()
    assert module == "import numpy as np\npass  # np2jax-magic-0\nx = 1\n# np2jax-cell-1\ny = np.sum(x)\n"
    result, _ = rebuild(extraction, raw, FileResult("nb.ipynb", "changed", extraction.module, damage(module).encode()))
    assert (result.status, result.output) == ("error", raw)
    assert result.error.startswith(reason)


@pytest.mark.parametrize(
    "encode",
    [
        lambda text: text.replace("\n", "\r\n").encode(),  # saved on Windows
        lambda text: b"\xef\xbb\xbf" + text.encode(),  # with a UTF-8 BOM
        lambda text: json.dumps(json.loads(text), indent="\t").encode(),  # tabs, no final newline
        lambda text: json.dumps(json.loads(text)).encode() + b"\n",  # one line
    ],
    ids=["crlf", "bom", "tabs", "one-line"],
)
def test_other_json_layouts_are_written_back_as_they_were(tmp_path, run_cli, encode):
    before = notebook("import numpy as np\n", "def f(x):\n    return np.sum(x)  # é")
    after = notebook("import jax.numpy as jnp\n", "def f(x):\n    return jnp.sum(x)  # é")
    write(tmp_path / "nb.ipynb", encode(before))
    run = run_cli("migrate", "nb.ipynb", "--write", "--no-jit", cwd=tmp_path)
    assert run.returncode == 0 and "warning" not in run.stderr.replace("warning(s)", ""), run
    assert (tmp_path / "nb.ipynb").read_bytes() == encode(after)


def test_jit_decorators_land_in_the_cell_of_their_function(tmp_path, run_cli):
    write(tmp_path / "nb.ipynb", notebook("import numpy as np\n", "x = 1\n", "def f(x):\n    return np.sum(x)"))
    run = run_cli("migrate", "nb.ipynb", "--write", cwd=tmp_path)
    assert run.returncode == 0, run
    assert sources(tmp_path / "nb.ipynb") == [
        "import jax\nimport jax.numpy as jnp\n", "x = 1\n", "@jax.jit\ndef f(x):\n    x = jnp.asarray(x)\n    return jnp.sum(x)"
    ]
