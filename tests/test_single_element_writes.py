"""Writes at one element taken from an array: ``h[idx[i]] += 1``, ``cm[t, p] += 1`` (analysis/indexing.py).

The index is an array element, a single number when the array has one axis per position, which is how such
code is written (histograms, confusion matrices, degree counts, Q-tables).  np2jax writes it
``h.at[jnp.reshape(idx[i], ())].add(1)``: the same element, or, for an index that is a row, a trace-time
error, never the repeated-index scatter where NumPy and JAX differ.  Each case runs the original and the
migrated function under jax.jit on the same inputs.
"""

from __future__ import annotations

import numpy as np
import pytest

from np2jax.engine import migrate_source

SOURCE = """\
import numpy as np


def histogram(idx, k):
    h = np.zeros(k)
    for i in range(len(idx)):
        h[idx[i]] += 1
    return h


def confusion(y_true, y_pred, k):
    cm = np.zeros((k, k), dtype=np.int32)
    for t, p in zip(y_true, y_pred):
        cm[t, p] += 1
    return cm


def degrees(edges, n):
    deg = np.zeros(n)
    for e in range(edges.shape[0]):
        u = edges[e, 0]
        v = edges[e, 1]
        deg[u] += 1.0
        deg[v] += 1.0
    return deg


def last_label(labels, n):
    seen = np.full(n, -1)
    for i, c in enumerate(labels):
        seen[c] = i
    return seen


def pairs(idx, vals):
    a = np.zeros(5)
    b = np.zeros(5)
    for i in range(len(idx)):
        a[idx[i]], b[idx[i]] = vals[i], -vals[i]
    return a, b


def scatter(x, idx, v):
    y = x.copy()
    y[idx] += v
    return y
"""


@pytest.fixture(scope="module")
def modules():
    result = migrate_source(SOURCE.encode(), "m.py")
    original, migrated = {}, {}
    exec(compile(SOURCE, "original.py", "exec"), original)
    exec(compile(result.output, "migrated.py", "exec"), migrated)
    return result, original, migrated


def test_element_indexed_writes_become_at_updates_and_are_jitted(modules):
    result, _, _ = modules
    output = result.output.decode()
    assert "h = h.at[jnp.reshape(idx[i], ())].add(1)" in output
    assert "cm = cm.at[jnp.reshape(t, ()), jnp.reshape(p, ())].add(1)" in output
    assert "a = a.at[jnp.reshape(idx[i], ())].set(new_a)" in output  # a tuple of targets too
    jitted = {r.qualname for r in result.functions if r.jit}
    assert {"histogram", "confusion", "degrees", "last_label", "pairs"} <= jitted


def test_a_parameter_used_as_an_index_still_may_repeat(modules):
    result, _, _ = modules
    assert any(d.code == "NPJ201" and "`y`" in d.message for d in result.diagnostics)
    assert "scatter" not in {r.qualname for r in result.functions if r.jit}


@pytest.mark.parametrize("call", [
    ("histogram", (np.array([0, 2, 2, 4, 2, -1]), 5)),
    ("histogram", (np.array([], dtype=np.int64), 3)),
    ("confusion", (np.array([0, 1, 1, 2]), np.array([0, 1, 2, 2]), 3)),
    ("degrees", (np.array([[0, 1], [1, 2], [1, 3], [3, 3]]), 4)),
    ("last_label", (np.array([2, 0, 2, 1, 0]), 3)),
    ("pairs", (np.array([4, 1, 4]), np.array([1.0, 2.0, 3.0]))),
])
def test_migrated_writes_match_numpy(modules, call):
    _, original, migrated = modules
    name, args = call
    expected = original[name](*args)
    got = migrated[name](*args)
    for want, have in zip(expected, got) if isinstance(expected, tuple) else [(expected, got)]:
        np.testing.assert_array_equal(np.asarray(have), want)
        assert np.asarray(have).dtype.kind == want.dtype.kind


def test_an_index_that_is_a_row_stops_the_trace_instead_of_repeating(modules):
    _, original, migrated = modules
    idx = np.array([[0, 0], [1, 2]])  # NumPy: a buffered fancy `+=` (each row's repeats count once)
    assert original["histogram"](idx, 3).tolist() == [1.0, 1.0, 1.0]
    with pytest.raises(TypeError):
        migrated["histogram"](idx, 3)
