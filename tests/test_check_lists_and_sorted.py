"""`np2jax check`: list inputs, and sorted values where NumPy wants them.

hunt56 C1: the checker generated arrays only, never Python lists, although callers often pass lists
(`cross([1., 0., 0.], [0., 1., 0.])`): a migration that raises on a list (`jnp.where` given one) or computes
something else (a list `x * 2` repeats it) was reported equivalent. Now one more input gives the small arrays of a
probed one as nested lists, when the original accepts that.
hunt56 C2: `np.searchsorted(a, v)` on a random, unsorted `a` is whatever NumPy's binary search finds: a faithful
migration was reported a mismatch. Now a parameter given directly where NumPy wants sorted values gets sorted arrays.

The real checker runs on one module against a right migration (all equivalent) and a wrong one (each caught).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.check_helpers import check_records


ORIGINAL = '''\
import numpy as np


def masked(mask, vals):
    return np.where(mask, vals, 0.0)


def cross3(a, b):
    return np.cross(a, b)


def double(x):
    return np.asarray(x) * 2.0


def bucket(edges, v):
    return np.searchsorted(edges, v)


def binned(x, bins):
    return np.digitize(x, bins)


def resampled(x, xp, fp):
    return np.interp(x, xp, fp)


def running(x):
    return np.cumsum(x)


def clamped(x):
    y = x.copy()
    y[0] = 0.0
    return y
'''

MIGRATED = '''\
import jax
import jax.numpy as jnp


@jax.jit
def masked(mask, vals):
    mask = jnp.asarray(mask)
    vals = jnp.asarray(vals)
    return jnp.where(mask, vals, 0.0)


@jax.jit
def cross3(a, b):
    a = jnp.asarray(a)
    b = jnp.asarray(b)
    return jnp.cross(a, b)


@jax.jit
def double(x):
    x = jnp.asarray(x)
    return x * 2.0


@jax.jit
def bucket(edges, v):
    edges = jnp.asarray(edges)
    v = jnp.asarray(v)
    return jnp.searchsorted(edges, v)


@jax.jit
def binned(x, bins):
    x = jnp.asarray(x)
    bins = jnp.asarray(bins)
    return jnp.digitize(x, bins)


@jax.jit
def resampled(x, xp, fp):
    x = jnp.asarray(x)
    xp = jnp.asarray(xp)
    fp = jnp.asarray(fp)
    return jnp.interp(x, xp, fp)


@jax.jit
def running(x):
    return jnp.cumsum(x)


@jax.jit
def clamped(x):
    y = jnp.array(x)
    return y.at[0].set(0.0)
'''

WRONG = (MIGRATED
         .replace("    vals = jnp.asarray(vals)\n", "")  # a list `vals` reaches jnp.where: TypeError
         .replace("    b = jnp.asarray(b)\n", "")  # a list `b` reaches jnp.cross: TypeError
         .replace("    x = jnp.asarray(x)\n    return x * 2.0", "    return x * 2.0")  # a list `x * 2.0`: TypeError
         .replace("jnp.searchsorted(edges, v)", "jnp.searchsorted(edges, v, side='right')")
         .replace("jnp.digitize(x, bins)", "jnp.digitize(x, bins, right=True)")
         .replace("jnp.interp(x, xp, fp)", "jnp.interp(x, xp, fp, left=0.0)"))

LISTS = ("masked", "cross3", "double")
SORTED = ("bucket", "binned", "resampled")
# neither side converts `x` from a list (an array-only migration, not checked with lists); a list's `x.copy()` is a
# list: the original does not take it as an array
UNLISTED = ("running", "clamped")


def _check(tmp: Path, migrated: str) -> dict[str, dict]:
    return check_records(tmp, "lists.py", ORIGINAL, migrated)


@pytest.fixture(scope="module")
def right(tmp_path_factory):
    return _check(tmp_path_factory.mktemp("right"), MIGRATED)


@pytest.fixture(scope="module")
def wrong(tmp_path_factory):
    return _check(tmp_path_factory.mktemp("wrong"), WRONG)


@pytest.mark.parametrize("name", LISTS + SORTED + UNLISTED)
def test_a_right_migration_is_equivalent(right, name):
    record = right[name]
    assert record["status"] == "equivalent" and record["inputs_tried"] >= 3, record


@pytest.mark.parametrize("name", LISTS)
def test_list_inputs_are_checked(right, name):
    assert "list input" in right[name]["input_sources"], right[name]


@pytest.mark.parametrize("name", LISTS)
def test_a_migration_failing_on_lists_is_caught(wrong, name):
    record = wrong[name]
    assert record["status"] == "error" and "given as" in record["message"], record


@pytest.mark.parametrize("name", UNLISTED)
def test_no_list_input_where_lists_are_not_taken_as_arrays(right, name):
    assert "list input" not in right[name]["input_sources"], right[name]


def test_functions_that_convert_a_parameter_from_a_list():
    from np2jax.check.discover import converts_from_lists

    def first(source):
        return ast.parse(source).body[0]

    assert converts_from_lists(first("def f(v):\n    v = jnp.asarray(v)\n    return v"))
    assert converts_from_lists(first("def f(v, w):\n    return np.asarray(w, dtype=float).sum()"))
    assert not converts_from_lists(first("def f(v):\n    return jnp.cumsum(v)"))
    assert not converts_from_lists(first("def f(v):\n    u = v + 1\n    return np.asarray(u)"))


@pytest.mark.parametrize("name", SORTED)
def test_a_wrong_migration_of_a_binary_search_is_caught(wrong, name):
    assert wrong[name]["status"] == "mismatch", wrong[name]


def test_parameters_given_where_numpy_wants_sorted_values():
    from np2jax.check.source_hints import sorted_uses

    source = '''
def f(a, v, x, bins, xp, fp, w, s, order):
    i = np.searchsorted(a, v)
    j = np.digitize(x, bins=bins)
    k = np.interp(x, xp, fp)
    m = s.searchsorted(v)
    n = np.searchsorted(w, v, sorter=order)
    return i, j, k, m, n
'''
    assert sorted_uses(ast.parse(source)) == {"a", "bins", "xp", "s"}


def test_fresh_and_special_values_of_a_sorted_array_stay_sorted():
    import numpy as np

    from np2jax.check.execute import resample, special_values
    from np2jax.check.inputs import Call

    rng = np.random.default_rng(0)
    edges = np.sort(rng.standard_normal(8).astype(np.float32))
    loose = rng.standard_normal(8).astype(np.float32)
    call = Call(None, (edges, loose))
    for new in (resample(call, rng), special_values(call, rng, "halves")):
        assert np.all(np.diff(new.args[0]) >= 0) and not np.array_equal(new.args[0], edges)
        assert not np.all(np.diff(new.args[1]) >= 0)
    with_nan = special_values(call, rng, "nan")
    assert not np.isnan(with_nan.args[0]).any() and np.isnan(with_nan.args[1]).sum() == 1
