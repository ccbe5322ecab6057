"""`np2jax check` through the real command line (shared/CLI_CONTRACT.md), on real NumPy and JAX.

Each check run is shared by the tests of one case (module-scoped fixtures): the
machine has two cores, and a run starts JAX in a worker.
"""

from __future__ import annotations

import ast
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from xml.etree import ElementTree

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parent.parent
CASES = Path(__file__).resolve().parent / "check_cases"
TIMEOUT_S = 300


class Run:
    def __init__(self, completed: subprocess.CompletedProcess, report_path: Path | None) -> None:
        self.returncode = completed.returncode
        self.stdout, self.stderr = completed.stdout, completed.stderr
        self.report = json.loads(report_path.read_text()) if report_path and report_path.exists() else None

    @property
    def functions(self) -> dict[str, dict]:
        return {f"{Path(f['path']).stem}.{f['qualname']}": f for f in self.report["functions"]}

    def __repr__(self) -> str:
        return f"<Run exit={self.returncode}\n{self.stdout[-4000:]}\n{self.stderr[-2000:]}>"


def check(*args: object, tmp: Path, cwd: Path = ROOT) -> Run:
    report = tmp / f"report-{len(list(tmp.glob('report-*.json')))}.json"
    completed = subprocess.run(
        [sys.executable, "-m", "np2jax", "check", *map(str, args), "--report", str(report)],
        cwd=cwd, capture_output=True, text=True, timeout=TIMEOUT_S, stdin=subprocess.DEVNULL,
    )
    run = Run(completed, report)
    assert "Traceback" not in run.stderr, run
    return run


def names_in(directory: Path) -> set[str]:
    found = set()
    for path in directory.rglob("*.py"):
        for node in ast.parse(path.read_text()).body:
            if isinstance(node, ast.FunctionDef):
                found.add(f"{path.stem}.{node.name}")
            elif isinstance(node, ast.ClassDef):
                found.update(f"{path.stem}.{node.name}.{m.name}" for m in node.body
                             if isinstance(m, ast.FunctionDef) and not m.name.startswith("__"))
    return found


# --- the failure classes: correct migrations pass, subtly wrong ones are caught ------------
TRIPLES = CASES / "triples"
TRIPLE_FUNCTIONS = sorted(names_in(TRIPLES / "original"))
assert len(TRIPLE_FUNCTIONS) == 20


@pytest.fixture(scope="module")
def correct(tmp_path_factory) -> Run:
    return check(TRIPLES / "original", TRIPLES / "correct", tmp=tmp_path_factory.mktemp("correct"))


@pytest.fixture(scope="module")
def wrong(tmp_path_factory) -> Run:
    tmp = tmp_path_factory.mktemp("wrong")
    run = check(TRIPLES / "original", TRIPLES / "wrong", "--junit", tmp / "junit.xml", tmp=tmp)
    run.junit = ElementTree.parse(tmp / "junit.xml")
    return run


# One test per check run: under pytest-xdist, tests sharing a module fixture on two
# workers would run the check twice.
def test_correct_migrations_are_equivalent(correct):
    assert correct.returncode == 0, correct
    assert sorted(correct.functions) == TRIPLE_FUNCTIONS
    assert "20 function(s) checked: 20 equivalent, 0 mismatch, 0 error, 0 skipped" in correct.stderr
    for name, record in correct.functions.items():
        assert record["status"] == "equivalent", record
        assert record["inputs_tried"] >= 3, record  # found on its own: no examples given
        assert record["max_abs_err"] is not None and record["max_abs_err"] < 1e-4, record
    report = correct.report
    assert report["version"] == 1 and report["device"] == "cpu:0"
    for record in report["functions"]:
        assert {"path", "qualname", "status", "inputs_tried", "max_abs_err", "message"} <= set(record)
        assert record["path"].startswith(str(TRIPLES / "original"))


def test_wrong_migrations_are_mismatches(wrong):
    assert wrong.returncode == 1, wrong
    assert sorted(wrong.functions) == TRIPLE_FUNCTIONS
    for name, record in wrong.functions.items():
        assert record["status"] == "mismatch", record
        assert record["message"].startswith(f"input {record['first_diff_input']} "), record
    functions = wrong.functions
    assert functions["off_by_one.zero_first"]["first_diff_index"] == [0]
    assert functions["off_by_one.zero_first"]["max_abs_err"] > 0.01
    assert "shape differs: expected (4,), got (6,)" in functions["wrong_axis.column_norms"]["message"]
    assert "got None (the original updates X in place)" in functions["lost_mutation.normalize_rows_"]["message"]
    assert "(the original updates x in place)" in functions["lost_mutation.clip_negative_"]["message"]
    assert "output.counts" in functions["dropped_update.Tally.add"]["message"]  # the instance's state
    assert "bfloat16" in functions["precision_loss.running_mean"]["message"]
    for name in ("missing_values.column_means", "missing_values.relu"):  # check39 / check38 C1: nanmean as mean
        assert "with a NaN in each float array" in functions[name]["message"], functions[name]
        assert "(NaN on one side only)" in functions[name]["message"], functions[name]
    assert functions["set_vs_add.bump_third"]["jitted"] is True
    assert functions["off_by_one.zero_first"]["jitted"] is False
    assert "mismatch" in wrong.stdout and "running_pair_sum" in wrong.stdout  # the table
    cases = wrong.junit.getroot().findall("./testsuite/testcase")
    assert sorted(f"{Path(c.get('classname')).stem}.{c.get('name')}" for c in cases) == TRIPLE_FUNCTIONS
    assert all(c.find("failure") is not None for c in cases)
    assert wrong.junit.getroot().find("testsuite").get("failures") == str(len(TRIPLE_FUNCTIONS))


X64 = CASES / "x64"


def test_x64_precision_loss_and_determinism(tmp_path):
    """float32 where float64 was computed is caught with --x64; the same command gives the same report."""
    first = check(X64 / "original", X64 / "correct", "--x64", tmp=tmp_path)
    assert first.returncode == 0, first
    assert {f["status"] for f in first.report["functions"]} == {"equivalent"}
    assert all(f["max_abs_err"] < 1e-12 and f["inputs_tried"] >= 3 for f in first.report["functions"])
    again = check(X64 / "original", X64 / "correct", "--x64", tmp=tmp_path)

    def stable(report):
        return [{k: v for k, v in f.items() if k != "seconds"} for f in report["functions"]]

    assert stable(again.report) == stable(first.report)
    wrong_run = check(X64 / "original", X64 / "wrong", "--x64", tmp=tmp_path)
    assert wrong_run.returncode == 1, wrong_run
    assert {f["status"] for f in wrong_run.report["functions"]} == {"mismatch"}
    assert "precision lost: got float32, the original returns float64" in wrong_run.report["functions"][0]["message"]


# --- isolation ---------------------------------------------------------------------
@pytest.fixture(scope="module")
def isolation(tmp_path_factory) -> Run:
    return check(CASES / "isolation/original", CASES / "isolation/migrated", "--timeout", "2",
                 "--memory-limit", "2048", tmp=tmp_path_factory.mktemp("isolation"))


ISOLATION_EXPECTED = [
    ("hangs", "error", True, "timed out after 2 s"),
    ("hangs_with_alarm_blocked", "error", True, "timed out after 2 s (worker killed)"),
    ("segfaults", "error", True, "crashed (SIGSEGV)"),
    ("aborts", "error", True, "crashed (SIGABRT)"),
    ("calls_sys_exit", "error", True, "called sys.exit(3)"),
    ("calls_os_exit", "error", True, "exited with status 7"),
    ("allocates_too_much", "error", True, "MemoryError"),
    ("original_segfaults", "error", False, "the original crashed (SIGSEGV)"),
    ("not_deterministic", "skipped", False, "not deterministic"),
    ("fine", "equivalent", True, "3 probes"),
]


def test_isolation(isolation):
    assert [name.split(".", 1)[1] for name in isolation.functions] == [row[0] for row in ISOLATION_EXPECTED]
    for name, status, original_ran, fragment in ISOLATION_EXPECTED:
        record = isolation.functions[f"hazards.{name}"]
        assert (record["status"], record["original_ran"]) == (status, original_ran), record
        assert fragment in record["message"], record
    assert isolation.returncode == 1, isolation  # migrated failures where the original ran


# --- discovery: packages, examples, closures, methods ---------------------------------
@pytest.fixture(scope="module")
def package(tmp_path_factory) -> Run:
    return check(CASES / "package/original", CASES / "package/migrated", tmp=tmp_path_factory.mktemp("package"))


def test_package_with_relative_imports(package):
    statuses = {name: f["status"] for name, f in package.functions.items()}
    assert statuses == {"core.smooth": "equivalent", "core.differs_on_purpose": "mismatch",
                        "helpers.scale": "equivalent", "stats.centred": "equivalent"}
    # The migrated tree is the one imported on the migrated side: its deliberate difference shows.
    assert package.returncode == 1


def test_package_root_given_directly_with_another_name(tmp_path):
    shutil.copytree(CASES / "package/migrated/pkg", tmp_path / "pkg_migrated")
    run = check(CASES / "package/original/pkg", tmp_path / "pkg_migrated", tmp=tmp_path)
    statuses = {name: f["status"] for name, f in run.functions.items()}
    assert statuses["stats.centred"] == "equivalent" and statuses["core.differs_on_purpose"] == "mismatch", run



def test_a_package_inside_a_dotted_folder_that_is_a_package_too(tmp_path):
    """real27 C3: an sdist folder `emd_signal-1.10.0/` with its own `__init__.py` above the package made every module
    import as `_np2jax_pkg_emd_signal_1_10_0.10...` (split at the folder's dots): 234 of 234 functions skipped. No
    import can name such a folder: the package below it is the top, and its absolute self-imports work."""
    for side in ("original", "migrated"):
        shutil.copytree(CASES / f"package/{side}/pkg", tmp_path / side / "src-1.10.0" / "pkg")
        (tmp_path / side / "src-1.10.0" / "__init__.py").write_text("")
    run = check(tmp_path / "original/src-1.10.0/pkg", tmp_path / "migrated/src-1.10.0/pkg", tmp=tmp_path)
    statuses = {name: f["status"] for name, f in run.functions.items()}
    assert statuses["stats.centred"] == "equivalent" and statuses["core.differs_on_purpose"] == "mismatch", run

EXAMPLES_ORIGINAL = '''\
import numpy as np

__np2jax_examples__ = {"pick": [(np.arange(6.0), 2)]}


def pick(x, i):
    return x[i] * 2.0


def make_scaler(factor):
    def scale(x):
        return x * factor
    return scale


class Buffer:
    def __init__(self, data):
        self.data = np.asarray(data, dtype=np.float64)

    @property
    def total(self):
        return self.data.sum()

    def head(self, k):
        return self.data[:k]
'''
EXAMPLES_MIGRATED = EXAMPLES_ORIGINAL.replace("import numpy as np", "import jax.numpy as jnp\nimport numpy as np").replace(
    "np.asarray(data, dtype=np.float64)", "jnp.asarray(data)").replace("return scale", "return scale\n\n\n").replace(
    "self.data[:k]", "self.data[:k] + 0.5")
EXAMPLES_FILE = '''\
import numpy as np

EXAMPLES = {
    "pick": [(np.arange(5.0), 1), (np.ones(3), 0)],
    "make_scaler.<locals>.scale": [((2.0,), (np.arange(4.0),)), ((0.5,), (np.ones((2, 2)),))],
    "Buffer.total": [(([1.0, 2.0, 3.0],), ())],
    "Buffer.head": [(([1.0, 2.0, 3.0],), (2,))],
}
'''


def test_examples_sidecar_module_dict_closures_and_properties(tmp_path):
    (tmp_path / "orig").mkdir()
    (tmp_path / "mig").mkdir()
    (tmp_path / "examples").mkdir()
    (tmp_path / "orig/mod.py").write_text(EXAMPLES_ORIGINAL)
    (tmp_path / "mig/mod.py").write_text(EXAMPLES_MIGRATED)
    (tmp_path / "examples/mod.py").write_text(EXAMPLES_FILE)
    run = check(tmp_path / "orig", tmp_path / "mig", "--examples", tmp_path / "examples", tmp=tmp_path)
    functions = run.functions
    assert functions["mod.pick"]["status"] == "equivalent"
    assert functions["mod.pick"]["input_sources"][:3] == ["example", "example", "example"]  # file, then module
    closure = functions["mod.make_scaler.<locals>.scale"]
    assert closure["status"] == "equivalent" and closure["input_sources"][:2] == ["example", "example"], closure
    assert functions["mod.Buffer.total"]["status"] == "equivalent"
    assert functions["mod.Buffer.head"]["status"] == "mismatch"  # + 0.5 in the migration
    assert functions["mod.make_scaler"]["status"] == "skipped"  # returns a function
    assert run.returncode == 1


def test_functions_and_classes_an_examples_file_defines_can_be_inputs(tmp_path):
    """A callback defined in the examples file is pickled by its module's name; the migrated worker loads
    the examples file under the same name, so it unpickles there too."""
    for side, source in (("orig", "import numpy as np\n\ndef twice(f, x):\n    return np.asarray(f(x)) * 2\n"),
                         ("mig", "import jax.numpy as jnp\n\ndef twice(f, x):\n    return jnp.asarray(f(x)) * 2\n")):
        (tmp_path / side).mkdir()
        (tmp_path / side / "mod.py").write_text(source)
    (tmp_path / "examples").mkdir()
    (tmp_path / "examples/mod.py").write_text(
        "import numpy as np\n\n\ndef square(x):\n    return x * x\n\n\nEXAMPLES = {\"twice\": [(square, np.arange(3.0))]}\n")
    run = check(tmp_path / "orig", tmp_path / "mig", "--examples", tmp_path / "examples", tmp=tmp_path)
    record = run.functions["mod.twice"]
    assert record["status"] == "equivalent" and record["input_sources"][0] == "example", record


# --- bad input -------------------------------------------------------------------------
def test_bad_usage_exits_2_with_one_line(tmp_path):
    (tmp_path / "a.py").write_text("def f(x):\n    return x\n")
    (tmp_path / "d").mkdir()
    for args in (["missing.py", "a.py"], ["a.py", "missing.py"], ["a.py", "d"], ["a.py", "a.py", "--timeout", "0"],
                 ["a.py", "a.py", "--examples", "a.py"], ["a.py", "a.py", "--junit", "d"]):
        completed = subprocess.run([sys.executable, "-m", "np2jax", "check", *args], cwd=tmp_path,
                                   capture_output=True, text=True, timeout=TIMEOUT_S)
        assert completed.returncode == 2, (args, completed.stderr)
        assert "Traceback" not in completed.stderr and completed.stderr.count("\n") == 1, completed.stderr


def test_syntax_errors_are_reported_per_file(tmp_path):
    for side in ("orig", "mig"):
        (tmp_path / side).mkdir()
        (tmp_path / side / "good.py").write_text("import numpy as np\n\ndef f(x):\n    return np.sin(x)\n")
    (tmp_path / "orig/broken_original.py").write_text("def f(:\n")
    (tmp_path / "mig/broken_original.py").write_text("def f(:\n")
    (tmp_path / "orig/broken_migration.py").write_text("def g(x):\n    return x\n")
    (tmp_path / "mig/broken_migration.py").write_text("def g(x)\n    return x\n")
    run = check(tmp_path / "orig", tmp_path / "mig", tmp=tmp_path)
    functions = run.functions
    assert functions["good.f"]["status"] == "equivalent"
    assert functions["broken_original.<module>"]["message"].startswith("original: syntax error at line 1")
    assert functions["broken_migration.<module>"]["message"].startswith("migrated: syntax error at line 1")
    assert run.returncode == 1  # the migration is broken where the original is fine


def test_broken_original_alone_is_not_a_failure(tmp_path):
    (tmp_path / "a.py").write_text("import numpy as np\nraise RuntimeError('import-time failure')\n\ndef f(x):\n    return x\n")
    run = check(tmp_path / "a.py", tmp_path / "a.py", tmp=tmp_path)
    record = run.functions["a.f"]
    assert record["status"] == "error" and "cannot import the original: RuntimeError" in record["message"]
    assert run.returncode == 0


def test_an_original_needing_a_missing_module_is_skipped(tmp_path):
    """real21: an original importing a package this machine lacks (open3d) was counted as an `error`; nothing can
    be compared there, so it is `skipped`, saying which module."""
    (tmp_path / "a.py").write_text("import numpy as np\nimport np2jax_no_such_module\n\ndef f(x):\n    return x\n")
    run = check(tmp_path / "a.py", tmp_path / "a.py", tmp=tmp_path)
    record = run.functions["a.f"]
    assert record["status"] == "skipped" and "np2jax_no_such_module" in record["message"], record
    assert run.returncode == 0


def test_an_original_that_skips_itself_at_import_is_skipped(tmp_path):
    """real27 C4: pymap3d's Matlab test modules call `pytest.skip(..., allow_module_level=True)` without Matlab: an
    `error` before, `skipped` now, with pytest's reason."""
    (tmp_path / "a.py").write_text('import pytest\npytest.skip("no engine", allow_module_level=True)\n\n\ndef f(x):\n    return x\n')
    run = check(tmp_path / "a.py", tmp_path / "a.py", tmp=tmp_path)
    record = run.functions["a.f"]
    assert record["status"] == "skipped" and "no engine" in record["message"], record
    assert run.returncode == 0


# --- the corpus: migrate, then check ----------------------------------------------------
@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Run:
    tmp = tmp_path_factory.mktemp("corpus")
    migrated = tmp / "migrated"
    completed = subprocess.run([sys.executable, "-m", "np2jax", "migrate", "corpus/modules", "--out", str(migrated)],
                               cwd=ROOT, capture_output=True, text=True, timeout=TIMEOUT_S,
                               env=dict(os.environ, NP2JAX_CACHE_DIR=str(tmp / "cache")))
    assert completed.returncode in (0, 3), completed.stderr
    return check("corpus/modules", migrated, "--examples", "corpus/examples", tmp=tmp)


def test_corpus_migration_checks_out(corpus):
    assert corpus.returncode == 0, corpus
    statuses = {f["status"] for f in corpus.report["functions"]}
    assert statuses <= {"equivalent", "skipped"}, [f for f in corpus.report["functions"] if f["status"] not in ("equivalent", "skipped")]
    equivalent = [f for f in corpus.report["functions"] if f["status"] == "equivalent"]
    assert len(equivalent) >= 100
    # a function the migration left unchanged (an np.ndarray subclass's methods) may be probed once: it is itself
    assert all(f["inputs_tried"] >= 2 for f in equivalent if not f["unchanged"])
    assert any(f["jitted"] for f in equivalent) == any("jax.jit" in p.read_text() for p in Path(ROOT / "corpus/expected").glob("*.py"))


def test_jax_arrays_are_read_as_arrays_whatever_their_class_module():
    """jax 0.11's array class reports another module than jaxlib's: outputs were compared as opaque objects
    ("expected float32[50,3], got ArrayImpl") on a GPU machine with that version."""
    import jax.numpy as jnp

    from np2jax.check.portable import Leaf, to_portable

    leaf = to_portable(jnp.arange(3.0))
    assert isinstance(leaf, Leaf) and leaf.array.tolist() == [0.0, 1.0, 2.0]


def test_float32_inputs_are_nudged_by_float32_units_under_x64():
    """The noise a function amplifies is measured at its inputs' own precision: under --x64 a float32 array nudged
    by float64 units rounds back to itself, and a float32 matmul inside a float64 recurrence was held to 1e-14."""
    from np2jax.check.compare import compare
    from np2jax.check.execute import perturb
    from np2jax.check.portable import to_portable

    x = np.linspace(1.0, 2.0, 8, dtype=np.float32)
    eps64 = float(np.finfo(np.float64).eps) * 4
    nudged = perturb(x.copy(), np.random.default_rng(0), eps64)
    assert nudged.dtype == np.float32 and np.all(nudged != x)
    assert perturb(1.5, np.random.default_rng(0), eps64) != 1.5  # a Python float: the mode's own units
    expected = (x.astype(np.float64) * 3.0)
    close = expected + expected * 2e-7  # float32 rounding of a float64 result
    assert not compare(to_portable(expected), to_portable(close), [], x64=True).ok
    noise = [to_portable(nudged.astype(np.float64) * 3.0)]
    assert compare(to_portable(expected), to_portable(close), noise, x64=True).ok
    narrow = compare(to_portable(expected), to_portable(expected.astype(np.float32)), noise, x64=True)
    assert not narrow.ok and "precision lost" in narrow.message


def test_a_list_argument_filled_in_place_is_read_from_both_sides():
    """An un-jitted function that appends to a list argument still does after migration (redteam9 FP-02): the
    migrated side's list is compared, not its return value alone (which made a false mismatch)."""
    import jax.numpy as jnp

    from np2jax.check.compare import compare
    from np2jax.check.execute import argument_values, decide_output, output_value
    from np2jax.check.inputs import Call
    from np2jax.check.portable import to_portable

    def collect(x, ys):
        for v in x:
            ys.append(v * 2)
        return len(ys)

    original = Call(None, (np.arange(3.0), []))
    before = [(pos, to_portable(v)) for pos, v in argument_values(original)]
    result = collect(*original.args)
    rule, positions = decide_output("function", original, before, result, None)
    assert rule == "return+mutated"
    expected = output_value(rule, positions, original, result, None, jax_side=False)
    migrated = Call(None, (jnp.arange(3.0), []))
    got = output_value(rule, positions, migrated, collect(*migrated.args), None, jax_side=True)
    assert compare(expected, got, [], x64=False).ok
    untouched = Call(None, (jnp.arange(3.0), []))  # a migration that no longer fills the list is still caught
    assert not compare(expected, output_value(rule, positions, untouched, 3, None, jax_side=True), [], x64=False).ok


def test_a_python_float_result_is_not_a_precision_loss_under_x64():
    """`return 1.0` beside a float32 branch: NumPy's Python float is weak, like JAX's; only a NumPy float64 array or
    scalar held against a float32 result is 'precision lost'."""
    from np2jax.check.compare import compare
    from np2jax.check.portable import to_portable

    assert compare(to_portable(1.0), to_portable(np.float32(1.0)), [], x64=True).ok
    assert not compare(to_portable(np.float64(1.0)), to_portable(np.float32(1.0)), [], x64=True).ok


def test_an_infinite_output_that_nudges_leave_infinite_is_still_compared():
    """hunt13: inf - inf of an output the nudged inputs left at inf read as NaN, which counted as 'unstable' and
    hid that element from the comparison (and printed a RuntimeWarning): a finite JAX value passed for NumPy's inf."""
    import warnings

    from np2jax.check.compare import compare
    from np2jax.check.portable import to_portable

    expected = np.array([1.0, np.inf, -np.inf])
    nudged = [to_portable(np.array([1.0 + 1e-15, np.inf, -np.inf]))]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert compare(to_portable(expected), to_portable(expected.copy()), nudged, x64=True).ok
        assert not compare(to_portable(expected), to_portable(np.array([1.0, 3.4e38, -np.inf])), nudged, x64=True).ok


def test_an_unchanged_function_a_rewritten_one_calls_also_runs_on_jax_arrays(tmp_path):
    """hunt15 C1: a function the migration leaves as it is still gets the JAX arrays its rewritten callers compute;
    run on NumPy inputs only, its difference on them went unseen. Not called by rewritten code, NumPy inputs only."""
    source = """\
import numpy as np


def scale_of(x):
    return x * (2.0 if type(x).__module__ == "numpy" else 3.0)


def user_of(x):
    return np.abs(scale_of(x)) + 1.0


def alone(x):
    return x * (2.0 if type(x).__module__ == "numpy" else 3.0)
"""
    (tmp_path / "orig").mkdir()
    (tmp_path / "orig" / "m.py").write_text(source)
    (tmp_path / "mig").mkdir()
    (tmp_path / "mig" / "m.py").write_text(source.replace("np.abs", "jnp.abs").replace("import numpy as np", "import numpy as np\nimport jax.numpy as jnp"))
    run = check(tmp_path / "orig", tmp_path / "mig", "-j", "1", tmp=tmp_path)
    assert run.returncode == 1, run
    functions = run.functions
    assert functions["m.scale_of"]["status"] == "mismatch" and functions["m.scale_of"]["jax_callers"], run
    assert functions["m.alone"]["status"] == "equivalent" and not functions["m.alone"]["jax_callers"], run
    assert "run on NumPy inputs" in functions["m.alone"]["message"]


def test_an_output_with_nan_padding_is_still_compared(tmp_path):
    """hunt18 C3: a rolling mean pads its first w-1 places with NaN; any NaN in a probe's output used to reject the
    input, so every input was rejected and a wrong migration (``+ 1e-3`` on the finite part) came out skipped. Now
    outputs with a finite value are compared place by place (NaN where NumPy has NaN, the rest within tolerance)."""
    source = """\
import numpy as np


def rolling_mean(x, w=3):
    out = np.full(x.shape, np.nan)
    for i in range(w - 1, x.shape[0]):
        out[i] = x[i - w + 1:i + 1].mean()
    return out


def all_nan(x):
    return x * np.nan
"""
    (tmp_path / "orig").mkdir()
    (tmp_path / "orig" / "m.py").write_text(source)
    (tmp_path / "mig").mkdir()
    (tmp_path / "mig" / "m.py").write_text(source.replace(".mean()", ".mean() + 1e-3"))
    run = check(tmp_path / "orig", tmp_path / "mig", "-j", "1", tmp=tmp_path)
    assert run.returncode == 1, run
    functions = run.functions
    assert functions["m.rolling_mean"]["status"] == "mismatch", run
    assert functions["m.all_nan"]["status"] == "skipped" and "no finite output" in functions["m.all_nan"]["message"], run
    (tmp_path / "mig" / "m.py").write_text(source)
    run = check(tmp_path / "orig", tmp_path / "mig", "-j", "1", tmp=tmp_path)
    assert run.functions["m.rolling_mean"]["status"] == "equivalent", run


def test_a_file_name_parameter_is_not_made_up(tmp_path):
    """real18 C2: `fname` got the int 3, and `open(3)` read file descriptor 3, a pipe, which blocked the check for
    good. Parameters named for files and paths get no made-up value: the function is skipped, saying why."""
    source = """\
import numpy as np


def load_scaled(fname, scale=2.0):
    with open(fname) as handle:
        return np.array([float(v) for v in handle.read().split()]) * scale


def scaled(x, scale=2.0):
    return np.asarray(x) * scale
"""
    for side in ("orig", "mig"):
        (tmp_path / side).mkdir()
        (tmp_path / side / "m.py").write_text(source)
    run = check(tmp_path / "orig", tmp_path / "mig", "-j", "1", tmp=tmp_path)
    functions = run.functions
    assert functions["m.load_scaled"]["status"] == "skipped", run
    assert "takes a file or path (`fname`)" in functions["m.load_scaled"]["message"], run
    assert functions["m.scaled"]["status"] == "equivalent", run
    assert "probes" in functions["m.scaled"]["message"] and "probes inputs" not in functions["m.scaled"]["message"]


def test_elements_np_empty_leaves_unwritten_are_not_compared_as_garbage(tmp_path):
    """real18 C3: `out = np.empty(n + 1)` with its last element never written returned whatever memory held, and
    jnp.empty's zeros were a mismatch. Both sides run with np.empty/np.empty_like filled with zeros."""
    source = """\
import numpy as np


def padded_cumsum(x):
    scratch = np.full(x.shape[0] + 1, 7.5)  # freed: np.empty below tends to get its memory back
    del scratch
    out = np.empty(x.shape[0] + 1)
    out[:-1] = np.cumsum(x)
    return out


def like_doubled(x):
    out = np.empty_like(x)
    out[::2] = 2 * x[::2]
    return out
"""
    (tmp_path / "orig").mkdir()
    (tmp_path / "orig" / "m.py").write_text(source)
    (tmp_path / "mig").mkdir()
    migrated = (source.replace("import numpy as np", "import numpy as np\nimport jax.numpy as jnp")
                .replace("out = np.empty(x.shape[0] + 1)\n    out[:-1] = np.cumsum(x)",
                         "out = jnp.empty(x.shape[0] + 1)\n    out = out.at[:-1].set(jnp.cumsum(x))")
                .replace("out = np.empty_like(x)\n    out[::2] = 2 * x[::2]",
                         "out = jnp.empty_like(x)\n    out = out.at[::2].set(2 * x[::2])"))
    assert migrated.count("jnp.") == 3
    (tmp_path / "mig" / "m.py").write_text(migrated)
    run = check(tmp_path / "orig", tmp_path / "mig", "-j", "1", tmp=tmp_path)
    assert run.returncode == 0, run
    assert {f["status"] for f in run.report["functions"]} == {"equivalent"}, run
    assert np.empty.__module__ == "numpy"  # (this process's NumPy is untouched)


def test_probes_reach_small_windows_int_pads_static_numbers_and_skip_overflowing_inputs(tmp_path):
    """hunt23 C1/C2: a default `window=20` longer than every probe made all outputs NaN; `p` (a probability by its
    name) never got an int for np.pad; a static `window` got a 0-d array jit cannot hash; a diverging iteration's
    float64 values beyond float32's range were a mismatch. Each is now checked, and a wrong migration still fails."""
    source = """\
import numpy as np


def rolling_mean(x, window=20):
    m = np.full(len(x), np.nan)
    for i in range(window - 1, len(x)):
        m[i] = x[i - window + 1:i + 1].mean()
    return m


def pad_image(img, p, mode="zero"):
    if mode == "zero":
        return np.pad(img, p, mode="constant")
    return np.pad(img, p, mode="edge")


def savgol_coeffs(window, order):
    half = window // 2
    t = np.arange(-half, half + 1, dtype=float)
    return np.linalg.pinv(np.vander(t, order + 1, increasing=True))[0]


def blow_up(A, x):
    y = np.zeros(len(x))
    for _ in range(60):
        y = A @ (y + x) * 10.0
    return y
"""
    migrated = """\
import functools

import jax
import jax.numpy as jnp


def rolling_mean(x, window=20):
    m = jnp.full(len(x), jnp.nan)
    for i in range(window - 1, len(x)):
        m = m.at[i].set(x[i - window + 1:i + 1].mean())
    return m


def pad_image(img, p, mode="zero"):
    if mode == "zero":
        return jnp.pad(img, p, mode="constant")
    return jnp.pad(img, p, mode="edge")


@functools.partial(jax.jit, static_argnums=(0, 1))
def savgol_coeffs(window, order):
    half = window // 2
    t = jnp.arange(-half, half + 1, dtype=float)
    return jnp.linalg.pinv(jnp.vander(t, order + 1, increasing=True))[0]


def blow_up(A, x):
    y = jnp.zeros(len(x))
    for _ in range(60):
        y = A @ (y + x) * 10.0
    return y
"""
    (tmp_path / "orig").mkdir()
    (tmp_path / "orig" / "m.py").write_text(source)
    (tmp_path / "mig").mkdir()
    (tmp_path / "mig" / "m.py").write_text(migrated)
    run = check(tmp_path / "orig", tmp_path / "mig", "-j", "1", tmp=tmp_path)
    functions = run.functions
    for name in ("rolling_mean", "pad_image", "savgol_coeffs"):
        assert functions[f"m.{name}"]["status"] == "equivalent", run
    assert functions["m.blow_up"]["status"] in ("equivalent", "skipped"), run
    assert functions["m.blow_up"]["status"] != "mismatch"
    (tmp_path / "mig" / "m.py").write_text(migrated.replace(".mean())", ".mean() + 1e-3)")
                                           .replace('jnp.pad(img, p, mode="constant")', 'jnp.pad(img, p, mode="edge")'))
    run = check(tmp_path / "orig", tmp_path / "mig", "-j", "1", tmp=tmp_path)
    assert run.functions["m.rolling_mean"]["status"] == "mismatch", run
    assert run.functions["m.pad_image"]["status"] == "mismatch", run


def test_a_narrow_result_that_comes_back_wider_is_a_mismatch(tmp_path):
    """hunt25 C: `a = np.full(n, 100, np.int8); a += x` keeps int8 in NumPy; a migration giving int32 agreed on every
    probe that did not wrap, and passed. A result of int8/int16/float16 that comes back wider now fails."""
    source = """\
import numpy as np


def acc(x):
    a = np.full(x.shape, 1, dtype=np.int8)
    a += np.ones(x.shape, dtype=np.int8)
    return a
"""
    (tmp_path / "orig").mkdir()
    (tmp_path / "orig" / "m.py").write_text(source)
    (tmp_path / "mig").mkdir()
    (tmp_path / "mig" / "m.py").write_text(source.replace("a += np.ones(x.shape, dtype=np.int8)",
                                                          "a = a + np.ones(x.shape, dtype=np.int32)"))
    run = check(tmp_path / "orig", tmp_path / "mig", "-j", "1", tmp=tmp_path)
    function = run.functions["m.acc"]
    assert function["status"] == "mismatch" and "dtype widened" in function["message"], run


def test_a_dtype_parameter_gets_dtypes(tmp_path):
    """real22 C3 (pyrr's create_zeros(dtype=None)): probes gave `dtype` a bool or an array, which NumPy takes
    (or rejects) where jax.numpy does not, and the check ended in an error; it now gets float32 and float64, and a
    migration that ignores the dtype is caught."""
    source = """\
import numpy as np


def create_zeros(dtype=None):
    return np.zeros((2, 3), dtype=dtype)
"""
    (tmp_path / "orig").mkdir()
    (tmp_path / "orig" / "m.py").write_text(source)
    (tmp_path / "mig").mkdir()
    migrated = source.replace("import numpy as np", "import functools\n\nimport jax\nimport jax.numpy as np").replace(
        "def create_zeros", "@functools.partial(jax.jit, static_argnums=(0,))\ndef create_zeros")
    (tmp_path / "mig" / "m.py").write_text(migrated)
    run = check(tmp_path / "orig", tmp_path / "mig", "-j", "1", "--x64", tmp=tmp_path)
    assert run.functions["m.create_zeros"]["status"] == "equivalent", run
    (tmp_path / "mig" / "m.py").write_text(migrated.replace("dtype=dtype)", "dtype=np.float32)"))
    run = check(tmp_path / "orig", tmp_path / "mig", "-j", "1", "--x64", tmp=tmp_path)
    assert run.functions["m.create_zeros"]["status"] == "mismatch", run


def test_image_parameters_get_8_bit_images(tmp_path):
    """hunt27 C: float images never showed that `out = np.zeros_like(img); out[:] = img * gain` wraps in NumPy
    and saturates in JAX; a parameter named for an image is now probed with uint8 images first."""
    source = """\
import numpy as np


def brighten(img, gain=1.5):
    out = np.zeros_like(img)
    out[:] = img * gain
    return out
"""
    (tmp_path / "orig").mkdir()
    (tmp_path / "orig" / "m.py").write_text(source)
    (tmp_path / "mig").mkdir()
    (tmp_path / "mig" / "m.py").write_text(source.replace("import numpy as np", "import jax.numpy as np").replace(
        "out[:] = img * gain", "out = out.at[:].set(img * gain)"))
    run = check(tmp_path / "orig", tmp_path / "mig", "-j", "1", tmp=tmp_path)
    assert run.functions["m.brighten"]["status"] == "mismatch", run
    assert "uint8" in run.functions["m.brighten"]["message"], run


NARROW_SOURCE = """\
import numpy as np


def normalised(weights):
    weights = np.asarray(weights, dtype=np.float32)
    return weights / weights.sum()


def blend(returns, weights):
    return returns @ normalised(weights)


def plain(returns, weights):
    return returns @ (weights / weights.sum())


class Mix:
    def __init__(self, weights):
        self.weights = weights

    def apply(self, returns):
        return self.blended(returns) * 2.0

    def blended(self, returns):
        return blend(returns, self.weights)
"""


def test_functions_that_compute_in_float32_are_held_to_float32_under_x64(tmp_path):
    """An original that casts to float32 on its way (corpus finance.portfolio_returns) rounds in float32 even under
    --x64; XLA's float32 division (a reciprocal) and sum are as good but not the same bits. Such functions, and their
    callers in the module (by name, and through `self.`), get float32's epsilon; the others keep float64's."""
    from np2jax.check.discover import definitions, narrow_float_functions

    assert narrow_float_functions(definitions(ast.parse(NARROW_SOURCE))) == {
        "normalised", "blend", "Mix.apply", "Mix.blended"}
    (tmp_path / "orig").mkdir()
    (tmp_path / "orig" / "m.py").write_text(NARROW_SOURCE)
    migrated = subprocess.run([sys.executable, "-m", "np2jax", "migrate", str(tmp_path / "orig"), "--out",
                               str(tmp_path / "mig"), "-q", "--no-cache"], capture_output=True, text=True, timeout=TIMEOUT_S)
    assert migrated.returncode == 0, migrated.stderr
    assert "jnp.asarray(weights, dtype=np.float32)" in (tmp_path / "mig" / "m.py").read_text()
    run = check(tmp_path / "orig", tmp_path / "mig", "-j", "1", "--x64", tmp=tmp_path)
    assert run.returncode == 0, run
    assert {name: f["status"] for name, f in run.functions.items()} == dict.fromkeys(
        ["m.normalised", "m.blend", "m.plain", "m.Mix.apply", "m.Mix.blended"], "equivalent"), run


def test_float32_tolerance_still_fails_a_float32_sized_error_and_lost_precision():
    from np2jax.check.compare import compare
    from np2jax.check.portable import to_portable

    expected = np.linspace(1.0, 2.0, 8)
    assert compare(to_portable(expected), to_portable(expected * (1 + 2e-7)), [], x64=True, narrow=True).ok
    assert not compare(to_portable(expected), to_portable(expected * (1 + 2e-7)), [], x64=True).ok
    assert not compare(to_portable(expected), to_portable(expected * (1 + 1e-4)), [], x64=True, narrow=True).ok
    lost = compare(to_portable(expected), to_portable(expected.astype(np.float32)), [], x64=True, narrow=True)
    assert not lost.ok and "precision lost" in lost.message


def test_kind_assignments_are_the_likeliest_first_without_building_the_product(tmp_path):
    """real23 C8: a function with 12 optional parameters crashed the checker with MemoryError: `assignments` sorted the
    whole product of kind choices (millions of tuples) to keep 12. They are now enumerated by total rank: the same 12,
    in the same order, for any number of parameters."""
    import itertools
    import random

    from np2jax.check.inputs import Param, assignments

    def brute(kinds_per_param, limit):
        ranges = [range(n) for n in kinds_per_param]
        return sorted(itertools.product(*ranges), key=lambda idx: (sum(idx), idx))[:limit]

    rng = random.Random(7)
    for _ in range(200):
        counts = [rng.randint(1, 4) for _ in range(rng.randint(0, 6))]
        params = [Param(f"p{i}", tuple(f"k{i}_{j}" for j in range(n))) for i, n in enumerate(counts)]
        for limit in (1, 5, 12, 50):
            want = [tuple(f"k{i}_{j}" for i, j in enumerate(idx)) for idx in brute(counts, limit)] if counts else [()]
            assert assignments(params, limit) == want, (counts, limit)
    many = [Param(f"p{i}", tuple(range(5))) for i in range(40)]  # 5**40 combinations
    chosen = assignments(many, 12)
    assert len(chosen) == 12 and chosen[0] == (0,) * 40 and sum(chosen[1]) == 1

    source = "def tune(x, a=1.0, b=2.0, c=3, d=None, e=0.5, f=True, g=1, h=2, i=3, j=4.0, k=5.0, l=6.0):\n    return x * a\n"
    (tmp_path / "o").mkdir()
    (tmp_path / "o" / "m.py").write_text("import numpy as np\n\n\n" + source)
    (tmp_path / "m").mkdir()
    (tmp_path / "m" / "m.py").write_text("import numpy as np\n\n\n" + source)
    run = check(tmp_path / "o", tmp_path / "m", "-j", "1", tmp=tmp_path)
    assert run.functions["m.tune"]["status"] == "equivalent", run


def test_count_arrays_are_probed_with_integers(tmp_path):
    """hunt29 C1: `counts` was probed with positive floats only, so a migration that turned an integer convolution
    into a float one passed. Parameters named for counts get non-negative int arrays first."""
    from np2jax.check.inputs import _name_kinds

    assert _name_kinds("counts")[0] == ("array", "count") and _name_kinds("bin_counts")[0] == ("array", "count")
    original = "import numpy as np\n\n\ndef pair_sums(counts):\n    return np.convolve(counts, np.ones(2, dtype=counts.dtype))\n"
    wrong = original.replace("import numpy as np", "import numpy as np\nimport jax.numpy as jnp").replace(
        "np.convolve", "jnp.convolve").replace("np.ones", "jnp.ones")
    for name, source in (("orig", original), ("wrong", wrong)):
        (tmp_path / name).mkdir()
        (tmp_path / name / "m.py").write_text(source)
    run = check(tmp_path / "orig", tmp_path / "wrong", "-j", "1", tmp=tmp_path)
    function = run.functions["m.pair_sums"]
    assert function["status"] == "mismatch" and "dtype kind differs" in function["message"], run


def test_functions_that_return_none_are_still_run_on_both_sides(tmp_path):
    """real28 C5/C6: a function that returns None and updates no argument (a test, a setup classmethod) was skipped,
    so a migrated test that raises passed unseen, and a setup that ran on the original class only left the
    migrated class without the state a later method reads (a false mismatch or error there)."""
    original = """\
import numpy as np


def polar2cart(r, h):
    h_rad = np.deg2rad(h)
    return (r * np.cos(h_rad), r * np.sin(h_rad))


def test_polar2cart():
    assert np.allclose(polar2cart([1, 10], [90, 90]), ([0, 0], [1, 10]))


class Stats:
    @classmethod
    def setUpClass(cls):
        cls.record = np.arange(10.0)

    def total(self):
        return np.sum(self.record)
"""
    migrated = (original.replace("import numpy as np\n", "import numpy as np\nimport jax\nimport jax.numpy as jnp\n")
                .replace("def polar2cart", "@jax.jit\ndef polar2cart").replace("np.deg2rad(h)", "jnp.deg2rad(jnp.asarray(h))")
                .replace("np.cos", "jnp.cos").replace("np.sin", "jnp.sin").replace("np.arange", "jnp.arange")
                .replace("np.sum", "jnp.sum"))
    (tmp_path / "orig").mkdir()
    (tmp_path / "orig" / "m.py").write_text(original)
    (tmp_path / "mig").mkdir()
    (tmp_path / "mig" / "m.py").write_text(migrated)
    run = check(tmp_path / "orig", tmp_path / "mig", "-j", "1", tmp=tmp_path)
    assert run.returncode == 1, run
    functions = run.functions
    assert functions["m.test_polar2cart"]["status"] == "error", run
    assert "TypeError" in functions["m.test_polar2cart"]["message"], run
    assert functions["m.polar2cart"]["status"] == "equivalent", run
    setup = functions["m.Stats.setUpClass"]
    assert setup["status"] == "equivalent" and "returns None and updates no argument" in setup["message"], run
    assert functions["m.Stats.total"]["status"] == "equivalent", run
    (tmp_path / "mig" / "m.py").write_text(migrated.replace("jnp.arange(10.0)", "jnp.arange(10.0) + 1"))
    run = check(tmp_path / "orig", tmp_path / "mig", "-j", "1", tmp=tmp_path)
    assert run.functions["m.Stats.total"]["status"] == "mismatch", run


def test_the_nan_input_leaves_index_arrays_to_ties_but_compares_floats_and_scalars():
    """The special input with a NaN: an argsort of a row of NaN distances orders ties in no fixed way (hunt29's
    knn_indices), so integer arrays are compared in dtype and shape only; an argmax, floats and booleans are
    compared."""
    from np2jax.check.compare import compare
    from np2jax.check.portable import to_portable

    expected, other = to_portable(np.array([3, 1, 2])), to_portable(np.array([3, 2, 1]))
    assert compare(expected, other, [], x64=False, nan_input=True).ok
    assert not compare(expected, other, [], x64=False).ok
    assert not compare(expected, to_portable(np.array([3.0, 1.0])), [], x64=False, nan_input=True).ok  # shape
    assert not compare(to_portable(np.int64(2)), to_portable(np.int64(0)), [], x64=False, nan_input=True).ok
    assert not compare(to_portable(np.array([np.nan, 1.0])), to_portable(np.array([0.0, 1.0])), [], x64=False,
                       nan_input=True).ok
    assert not compare(to_portable(np.array([True, False])), to_portable(np.array([False, False])), [], x64=False,
                       nan_input=True).ok


def test_the_nan_input_is_kept_when_every_output_is_nan_and_fp_is_an_array(tmp_path):
    """hunt43 C5/C4: a reduction that propagates the NaN (`np.maximum(x, 0).sum()`) has no finite output on the
    NaN input, which was then dropped like a diverging probe: a migration that turns NaN into 0 passed. And `fp`
    (np.interp's values) was taken for a file object and skipped; it gets arrays (never an int, a descriptor)."""
    original = """\
import numpy as np


def relu_energy(x):
    return np.maximum(x, 0.0).sum()


def lookup(x, xp, fp):
    return np.interp(x, np.sort(xp), fp)
"""
    (tmp_path / "orig").mkdir()
    (tmp_path / "orig" / "m.py").write_text(original)
    (tmp_path / "mig").mkdir()
    (tmp_path / "mig" / "m.py").write_text(original.replace("np.maximum(x, 0.0).sum()", "np.where(x > 0, x, 0.0).sum()"))
    run = check(tmp_path / "orig", tmp_path / "mig", "-j", "1", tmp=tmp_path)
    functions = run.functions
    assert functions["m.relu_energy"]["status"] == "mismatch", run
    assert "with a NaN in each float array" in functions["m.relu_energy"]["message"], run
    assert functions["m.lookup"]["status"] == "equivalent", run


def test_a_parameter_named_for_positive_values_leaves_the_others_signed(tmp_path):
    """check39 C3: `prices` and `weights` made every array of the call positive, `cash` too, so a truncation
    migrated for a floor (equal on positive values) passed; only the parameters so named are positive now."""
    original = """\
import numpy as np


def target_shares(cash, weights, prices):
    alloc = cash * weights / weights.sum()
    return np.floor(alloc / prices).astype(np.int64)
"""
    (tmp_path / "orig").mkdir()
    (tmp_path / "orig" / "m.py").write_text(original)
    (tmp_path / "mig").mkdir()
    (tmp_path / "mig" / "m.py").write_text(original.replace("np.floor(alloc / prices)", "np.trunc(alloc / prices)"))
    run = check(tmp_path / "orig", tmp_path / "mig", "-j", "1", tmp=tmp_path)
    assert run.functions["m.target_shares"]["status"] == "mismatch", run


def test_a_probe_the_original_never_finishes_does_not_end_the_search(tmp_path):
    """The corpus's newton_sqrt loops for ever on negative values, the first probe: the timeout took the whole
    budget and the function came out an error. A probe now gets a fifth of the budget; the next ones (positive
    values) are still tried."""
    original = """\
import numpy as np


def newton_sqrt(a, tol=1e-6):
    x = np.maximum(a, 1.0)
    while np.max(np.abs(x * x - a)) > tol * np.max(a):
        x = 0.5 * (x + a / x)
    return x
"""
    (tmp_path / "orig").mkdir()
    (tmp_path / "orig" / "m.py").write_text(original)
    (tmp_path / "mig").mkdir()
    (tmp_path / "mig" / "m.py").write_text(original.replace("    return x\n", "    return x + 1e-3\n"))
    run = check(tmp_path / "orig", tmp_path / "mig", "-j", "1", "--timeout", "5", tmp=tmp_path)
    assert run.functions["m.newton_sqrt"]["status"] == "mismatch", run


LIBRARY_STATE = '''\
import logging
import os

import numpy as np

PARTS = [logging.getLogger(f"{__name__}.part{i}") for i in range(20)]  # a package's loggers, reachable from each


class Reporter:
    def __init__(self):
        self.logger = logging.getLogger(__name__)
        self.scale = np.ones(3)

    def log(self, x):
        self.logger.debug("x = %s", x)
        return np.sum(x * self.scale)

    def note(self, message, level=logging.DEBUG):
        self.logger.log(level, message)


def log_target(x):
    return os.getcwd() + "/report.log", np.sum(x)


def labelled(x):
    return "total of {} values".format(x.size), np.sum(x)
'''


def test_objects_holding_library_state_and_working_directories_compare(tmp_path):
    """real32 C3/C4: an object holding a `logging.Logger` was converted attribute by attribute, through the manager
    to every logger of the process (a 30 s time-out on unchanged code); each side runs in a working directory of its
    own, so `os.getcwd()` in a result was a mismatch of a byte-identical copy, described by the strings' common start.
    Standard-library objects are described, not walked, and nothing is converted twice; the working directory reads
    the same on both sides; differing strings are shown where they differ."""
    for side in ("original", "migrated"):
        (tmp_path / side).mkdir()
        (tmp_path / side / "lib.py").write_text(LIBRARY_STATE)
    migrated = tmp_path / "migrated" / "lib.py"
    migrated.write_text(LIBRARY_STATE.replace('"total of {} values"', '"total of {} value(s)"'))
    run = check(tmp_path / "original", tmp_path / "migrated", "--timeout", "8", tmp=tmp_path)
    statuses = {name: f["status"] for name, f in run.functions.items()}
    assert statuses["lib.Reporter.log"] == "equivalent" and statuses["lib.log_target"] == "equivalent", run
    assert statuses["lib.Reporter.note"] != "error", run
    assert statuses["lib.labelled"] == "mismatch", run
    message = run.functions["lib.labelled"]["message"]
    assert "differs at character" in message and "value(s)" in message, message


NUMBERS_ONLY = '''\
import numpy as np


def modified_dh(a, alpha, d, theta):
    ct, st = np.cos(theta), np.sin(theta)
    ca, sa = np.cos(alpha), np.sin(alpha)
    return np.array([[ct, -st, 0.0, a],
                     [st * ca, ct * ca, -sa, -sa * d],
                     [st * sa, ct * sa, ca, ca * d],
                     [0.0, 0.0, 0.0, 1.0]])
'''


def test_numbers_are_found_for_parameters_that_build_an_array_from_them(tmp_path):
    """hunt46 C10: a matrix built from four numbers (`np.array([[ct, -st, 0.0, a], ...])`) raises on arrays ("an
    inhomogeneous shape"), and the 0-d inputs that fit came after 160 other candidates: skipped. That error now
    counts as a wrong kind of argument, and one 0-d probe is still tried for such an assignment."""
    wrong = NUMBERS_ONLY.replace("import numpy as np", "import jax.numpy as np").replace("ca, ca * d]", "ca, ca * d + 1.0]")
    run = _check_one_file(tmp_path, "dh.py", NUMBERS_ONLY, wrong)
    assert run.functions["dh.modified_dh"]["status"] == "mismatch", run


def _check_one_file(tmp_path, name: str, original: str, migrated: str):
    """``np2jax check`` of one original file against one migrated version of it."""
    for side, text in (("original", original), ("migrated", migrated)):
        (tmp_path / side).mkdir()
        (tmp_path / side / name).write_text(text)
    return check(tmp_path / "original", tmp_path / "migrated", tmp=tmp_path)


OBJECT_ARRAYS = '''\
import numpy as np


def gather(x):
    out = np.empty(2, dtype=object)
    out[0] = x * 2.0
    out[1] = x[:1] + 1.0
    return out


def ragged(x):
    return np.array([x, x[:2]], dtype=object)
'''


def test_arrays_of_objects_are_compared_item_by_item(tmp_path):
    """hunt47 C: an output array of dtype object (arrays of different lengths) was "not deterministic": `==` on
    it compares the arrays inside elementwise. Its items are compared one by one now, so a wrong item is found."""
    run = _check_one_file(tmp_path, "obj.py", OBJECT_ARRAYS, OBJECT_ARRAYS.replace("x[:1] + 1.0", "x[:1] + 1.5"))
    assert run.functions["obj.ragged"]["status"] == "equivalent", run
    gather = run.functions["obj.gather"]
    assert gather["status"] == "mismatch" and "output[1][0]" in gather["message"], gather


GRANULATE = '''\
import numpy as np


def granulate(x, scale):
    b = x.shape[0] // scale
    return np.mean(x[: b * scale].reshape(b, scale), axis=1)
'''


def test_a_parameter_named_like_a_float_gets_ints_too(tmp_path):
    """real33 C: `scale` (a float by its name) is an int here (`reshape(b, scale)`); only floats and float arrays
    were tried, so the function was skipped and pyentrp's one rewritten function went unchecked."""
    wrong = GRANULATE.replace("import numpy as np", "import jax.numpy as np").replace("axis=1)", "axis=1) * 1.01")
    run = _check_one_file(tmp_path, "gran.py", GRANULATE, wrong)
    assert run.functions["gran.granulate"]["status"] == "mismatch", run


INDEXED_BY_PARAMETERS = '''\
import numpy as np


def one_hot(y, k):
    return np.eye(k)[y]


def box_sum(ii, r0, c0, r1, c1):
    return ii[r1, c1] - ii[r0, c1] - ii[r1, c0] + ii[r0, c0]
'''


def test_parameters_used_as_indices_get_integers(tmp_path):
    """hunt50 C1: `one_hot(y, k)` (`np.eye(k)[y]`) and `box_sum(ii, r0, c0, r1, c1)` were skipped: `y`, `r0` ... got
    float arrays and numbers only. A parameter the function indexes with gets integer labels or ints first, so a
    wrong migration is found (the label one off here) and a right one passes."""
    wrong = INDEXED_BY_PARAMETERS.replace("np.eye(k)[y]", "np.eye(k)[y - 1]").replace("+ ii[r0, c0]", "+ ii[r0, c1]")
    run = _check_one_file(tmp_path, "idx.py", INDEXED_BY_PARAMETERS, wrong)
    assert run.functions["idx.one_hot"]["status"] == "mismatch", run
    assert run.functions["idx.box_sum"]["status"] == "mismatch", run
    right = tmp_path / "again"
    right.mkdir()
    run = _check_one_file(right, "idx.py", INDEXED_BY_PARAMETERS, INDEXED_BY_PARAMETERS)
    assert run.functions["idx.one_hot"]["status"] == "equivalent", run
    assert run.functions["idx.box_sum"]["status"] == "equivalent", run


UNPACKED_VECTOR = '''\
import math
import numpy as np


def axangle2mat(axis, angle):
    x, y, z = axis
    n = math.sqrt(x * x + y * y + z * z)
    x, y, z = x / n, y / n, z / n
    c, s = math.cos(angle), math.sin(angle)
    return np.array([[x * x * (1 - c) + c, x * y * (1 - c) - z * s], [y * x * (1 - c) + z * s, y * y * (1 - c) + c]])
'''


def test_a_parameter_unpacked_into_names_gets_a_vector_of_that_length(tmp_path):
    """real34 C1 (transforms3d's `axangle2mat`): `x, y, z = axis` got only ints for `axis` (its name) and arrays of
    the shape plans' lengths, never three numbers, so the function was skipped. A parameter unpacked into n names
    gets a vector of n values first: a wrong migration is found, a right one passes."""
    run = _check_one_file(tmp_path, "aa.py", UNPACKED_VECTOR, UNPACKED_VECTOR.replace("- z * s]", "+ z * s]"))
    assert run.functions["aa.axangle2mat"]["status"] == "mismatch", run
    right = tmp_path / "again"
    right.mkdir()
    run = _check_one_file(right, "aa.py", UNPACKED_VECTOR, UNPACKED_VECTOR.replace("np.array(", "np.asarray("))
    assert run.functions["aa.axangle2mat"]["status"] == "equivalent", run
