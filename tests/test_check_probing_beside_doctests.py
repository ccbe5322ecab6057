"""`np2jax check`: inputs found beside a doctest, and parameters a name prefix took for flags.

real36 C1: a function with a doctest was checked only on the doctest's call and two variants of it (same shapes);
a doctest of 3 rows took one branch, and the migration broke the other (more rows), which probing reaches: the
check said "equivalent". Its caller's note said "unchanged by the migration" although the callee it runs was
rewritten. hunt55 C2: `centers` was probed as a bool only (`center` is a flag's name), so `assign_labels(points,
centers)` was skipped ("no accepted input").

The real checker runs on one module against a right migration (all equivalent) and a wrong one (each caught).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.check_helpers import check_records


ORIGINAL = '''\
import numpy as np


def rectify(x):
    """Negative values to zero; a long signal is also doubled.

    >>> rectify(np.array([1.0, -2.0, 3.0]))
    array([1., 0., 3.])
    """
    x = np.asarray(x, dtype=np.float32)
    if x.shape[0] > 4:
        return np.where(x > 0, x, 0.0) * 2.0
    return np.where(x > 0, x, 0.0)


def _scaled(a):
    return a * 3.0 - 1.0


def offset_sum(x):
    return _scaled(x).sum(axis=0) + 1.0


def pairwise_sqdist(a, b):
    aa = (a * a).sum(axis=1)[:, None]
    bb = (b * b).sum(axis=1)[None, :]
    d = aa + bb - 2 * a @ b.T
    np.maximum(d, 0, out=d)
    return d


def assign_labels(points, centers):
    return pairwise_sqdist(points, centers).argmin(axis=1)
'''

MIGRATED = '''\
import jax
import jax.numpy as jnp
import numpy as np


def rectify(x):
    """Negative values to zero; a long signal is also doubled.

    >>> rectify(np.array([1.0, -2.0, 3.0]))
    array([1., 0., 3.])
    """
    x = jnp.asarray(x, dtype=jnp.float32)
    if x.shape[0] > 4:
        return jnp.where(x > 0, x, 0.0) * 2.0
    return jnp.where(x > 0, x, 0.0)


@jax.jit
def _scaled(a):
    return a * 3.0 - 1.0


def offset_sum(x):
    return _scaled(x).sum(axis=0) + 1.0


@jax.jit
def pairwise_sqdist(a, b):
    aa = (a * a).sum(axis=1)[:, None]
    bb = (b * b).sum(axis=1)[None, :]
    d = aa + bb - 2 * a @ b.T
    d = jnp.maximum(d, 0)
    return d


@jax.jit
def assign_labels(points, centers):
    return pairwise_sqdist(points, centers).argmin(axis=1)
'''

WRONG = (MIGRATED
         .replace("jnp.where(x > 0, x, 0.0) * 2.0", "jnp.where(x > 0, x, 0.0) * 2.5")
         .replace("a * 3.0 - 1.0", "a * 3.0 - 1.5")
         .replace("pairwise_sqdist(points, centers).argmin(axis=1)", "pairwise_sqdist(points, centers[::-1]).argmin(axis=1)"))

FUNCTIONS = ("rectify", "offset_sum", "assign_labels")


def _check(tmp: Path, migrated: str) -> dict[str, dict]:
    return check_records(tmp, "probing.py", ORIGINAL, migrated)


@pytest.fixture(scope="module")
def right(tmp_path_factory):
    return _check(tmp_path_factory.mktemp("right"), MIGRATED)


@pytest.fixture(scope="module")
def wrong(tmp_path_factory):
    return _check(tmp_path_factory.mktemp("wrong"), WRONG)


@pytest.mark.parametrize("name", FUNCTIONS)
def test_a_right_migration_is_equivalent(right, name):
    record = right[name]
    assert record["status"] == "equivalent" and record["inputs_tried"] >= 3, record


@pytest.mark.parametrize("name", FUNCTIONS)
def test_a_wrong_migration_is_caught(wrong, name):
    record = wrong[name]
    assert record["status"] in ("mismatch", "error"), record


def test_probes_run_beside_the_doctest(right, wrong):
    """The doctest's input is kept, and generated ones are added: the wrong branch (more than 4 elements) is one
    only probes reach."""
    sources = right["rectify"]["input_sources"]
    assert sources[0] == "doctest" and "probe" in sources, sources
    assert wrong["rectify"]["first_diff_input"] > 1, wrong["rectify"]


def test_a_caller_of_a_rewritten_function_is_not_only_unchanged(right):
    record = right["offset_sum"]
    assert record["unchanged"] and "calls the migrated _scaled" in record["message"], record
    assert "unchanged by the migration" not in right["_scaled"]["message"]


def test_a_plural_of_a_flag_name_is_an_array():
    """`centers` is not the flag `center`; `center` and `normalize` may still be flags, or arrays after that."""
    from np2jax.check.inputs import _name_kinds

    assert _name_kinds("centers")[0] == ("array", "float")
    assert _name_kinds("center_x")[0] == ("array", "float")
    assert _name_kinds("center")[:2] == [("bool", (True, False)), ("array", "float")]
    assert _name_kinds("centered")[0] == ("bool", (True, False))
    assert _name_kinds("normalize")[0] == ("bool", (True, False))
    assert _name_kinds("is_sorted") == [("bool", (True, False))]


def test_points_and_centres_of_another_count_are_probed(tmp_path):
    """Beside `(n, d), (n, d)`, the pair `(n, d), (k, d)` that `assign_labels(points, centers)` is written for."""
    import importlib.util

    from np2jax.check.discover import Target
    from np2jax.check.execute import Prober

    path = tmp_path / "probing_original.py"
    path.write_text(ORIGINAL)
    spec = importlib.util.spec_from_file_location("probing_original", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    prober = Prober(module, Target("assign_labels", "function", 1), {}, False, 30.0, 3)
    prober.probe(module.assign_labels)
    shapes = [entry["description"] for entry in prober.accepted]
    assert "(float32[6,4], float32[3,4])" in shapes, shapes
