"""``x[idx] op= number`` through an integer index array that may repeat entries (analysis/repeated_writes.py).

NumPy's ``x[idx] op= v`` is ``x[idx] = x[idx] op v``: a repeated position is written once, not accumulated.
np2jax writes ``x = x.at[idx].set(x[idx] op v)`` when ``v`` is provably one number (every copy of a repeated
position then gets the same value) and the index provably an integer array.  Each case runs the original and
the migrated function (jitted) on indices with repeats; the writes that stay NPJ201 are checked too.
"""

from __future__ import annotations

import jax
import numpy as np
import pytest

from np2jax.engine import migrate_source

SOURCE = """\
import numpy as np


def softmax_grad(scores, y):
    n = scores.shape[0]
    e = np.exp(scores - scores.max(axis=1, keepdims=True))
    probs = e / e.sum(axis=1, keepdims=True)
    probs[np.arange(n), y] -= 1
    return probs / n


def nll_grad(scores, y):
    p = np.exp(scores)
    p /= p.sum(axis=1, keepdims=True)
    p[np.arange(len(y)), y] -= 1.0
    return p


def hinge_grad(scores, y, margin: float):
    n = scores.shape[0]
    g = (scores > 0).astype(float)
    g[np.arange(n), y] -= margin * 2
    return g


def nearest_counts(x, centers):
    d = ((x[:, None, :] - centers[None, :, :]) ** 2).sum(axis=2)
    labels = np.argmin(d, axis=1)
    counts = np.zeros(centers.shape[0], dtype=np.int32)
    counts[labels] += 1
    return counts


def step_down(img, idx):
    out = img.astype(np.int32) % 256
    out = out.astype(np.uint8)
    sel = idx.astype(int)
    out[sel] -= 1
    return out


def bump_rows(a, rows):
    out = a.copy()
    r = rows.astype(np.int32)
    out[r, 1:] *= 2.0
    out[(r, 0)] **= 2
    out[r] //= 3
    out[r] %= -4
    out[r] /= 0.5
    return out


def int_ops(a, rows):
    out = a.astype(np.int32)
    r = rows.astype(np.int32)
    out[r] += 3
    out[r, ::2] //= -2
    out[r] %= 5
    out[r] &= 6
    out[r] |= 1
    return out


def flip(flags, idx):
    f = flags.astype(bool)
    k = np.asarray(idx, dtype=int)
    f[k] ^= True
    f[k[:2]] |= False
    return f


def shift_mean(x, idx):
    y = x.astype(float)
    j = np.sort(idx).astype(int)
    y[j] -= y.mean()
    y[j] += np.max(x)
    y[j] /= len(x)
    return y


def zero_divisor(x, idx):
    y = x.astype(int)
    j = idx.astype(int)
    y[j] //= 0
    return y


def array_value(x, idx, w):
    y = x.astype(float)
    j = idx.astype(int)
    y[j] += w
    return y


def defaulted_step(x, idx, step=1.0):
    y = x.astype(float)
    j = idx.astype(int)
    y[j] += step
    return y


def mask_parameter(x, mask):
    y = x.copy()
    y[mask] += 1
    return y


def abs_index(idx):
    h = np.zeros(5)
    h[abs(idx)] += 1  # abs of an array is an array (it was taken for one int, and .add accumulated repeats)
    h[round(idx) + 1] += 1
    return h


def random_index(x):
    y = x.copy()
    y[np.random.randint(0, 3, 5).astype(int)] += 1
    return y
"""

MIGRATED = {"softmax_grad", "nll_grad", "hinge_grad", "nearest_counts", "step_down", "bump_rows", "int_ops", "flip", "shift_mean"}
REFUSED = {"abs_index", "zero_divisor", "array_value", "defaulted_step", "mask_parameter", "random_index"}


@pytest.fixture(scope="module")
def modules():
    """The migration's result, the set of jitted functions, and both modules run (original, migrated)."""
    result = migrate_source(SOURCE.encode(), "m.py")
    namespaces = ({}, {})
    for namespace, code, name in zip(namespaces, (SOURCE, result.output), ("original.py", "migrated.py")):
        exec(compile(code, name, "exec"), namespace)
    return result, {r.qualname for r in result.functions if r.jit}, *namespaces


def test_writes_through_repeating_indices_reread_the_array_and_are_jitted(modules):
    result, jitted, _, _ = modules
    output = result.output.decode()
    # (`y` may be a column, which pairs every row with every label: positions may repeat, so the array is reread)
    assert "probs = probs.at[jnp.arange(n), y].set(probs[jnp.arange(n), y] - 1)" in output
    assert "g = g.at[jnp.arange(n), y].set(g[jnp.arange(n), y] - (margin * 2))" in output
    assert "p = p.at[jnp.arange(len(y)), y].set(p[jnp.arange(len(y)), y] - 1.0)" in output  # len() is evaluated twice
    assert "counts = counts.at[labels].set(counts[labels] + 1)" in output
    assert "out = out.at[r].set(out[r] % (-4))" in output
    assert MIGRATED <= jitted


def test_writes_that_may_differ_stay_reported(modules):
    result, jitted, _, _ = modules
    assert not REFUSED & jitted
    source_lines = SOURCE.splitlines()
    written = {source_lines[d.line - 1].strip() for d in result.diagnostics if d.code == "NPJ201"}
    assert {"y[j] //= 0", "y[j] += w", "y[j] += step", "y[mask] += 1"} <= written
    assert any("y[np.random.randint" in text for text in written)
    assert "h[abs(idx)] += 1  # abs of an array is an array (it was taken for one int, and .add accumulated repeats)" in written
    assert "h[round(idx) + 1] += 1" in written


REPEATS = np.array([0, 0, 2, 2, 2, -1])


@pytest.mark.parametrize("name, args", [
    ("softmax_grad", (np.arange(12.0).reshape(4, 3) / 7, np.array([0, 0, 2, 1]))),
    ("nll_grad", (np.arange(6.0).reshape(3, 2) / 5, np.array([1, 1, 1]))),
    ("hinge_grad", (np.arange(12.0).reshape(4, 3) - 5, np.array([2, 2, 2, 0]), 0.75)),
    ("nearest_counts", (np.array([[0.0, 0.1], [0.2, 0.0], [5.0, 5.0], [0.1, 0.1]]), np.array([[0.0, 0.0], [5.0, 5.0], [9.0, 9.0]]))),
    ("step_down", (np.array([0, 1, 255, 7, 0, 3]), REPEATS)),
    ("bump_rows", (np.arange(-6.0, 9.0).reshape(5, 3), np.array([1, 1, 4, 0, 4, 4]))),
    ("int_ops", (np.arange(-7, 8).reshape(5, 3), np.array([3, 3, 0, -2, 3]))),
    ("flip", (np.array([1, 0, 0, 1, 1]), [4, 4, 1, 0, 4])),
    ("shift_mean", (np.array([3.0, -1.0, 4.0, 1.5, 9.0, 2.0]), REPEATS)),
])
def test_migrated_writes_match_numpy_with_repeated_indices(modules, name, args):
    _, _, original, migrated = modules
    expected = original[name](*args)
    result = migrated[name](*args)
    assert isinstance(result, jax.Array)  # migrated and jitted, not left NumPy
    got = np.asarray(result)
    assert got.dtype.kind == expected.dtype.kind
    np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-6)


def test_uint8_wraps_below_zero_as_numpy_does(modules):
    _, _, original, migrated = modules
    args = (np.array([0, 1, 2]), np.array([0, 0, 1]))
    assert original["step_down"](*args).tolist() == [255, 0, 2]
    result = migrated["step_down"](*args)
    assert isinstance(result, jax.Array) and np.asarray(result).tolist() == [255, 0, 2]


def test_rows_paired_with_raveled_labels_are_unique_positions_and_parameters_or_columns_are_not():
    """hunt18 FP2: `t[np.arange(n), y.ravel()] = v` names each position once (its own row): `.at[...].set(v)`.
    A parameter `y` may be a column of shape (n, 1) (hunt21 S4: it pairs every row with every label, naming
    positions twice, and NumPy's buffered update differs from JAX's), as may `y[:, None]` or a reshaped column:
    NPJ201."""
    source = """\
import numpy as np


def pick_set(t, y, v):
    t = t.copy()
    t[np.arange(t.shape[0]), y.ravel()] = v
    return t


def pick_param(t, y, v):
    t = t.copy()
    t[np.arange(t.shape[0]), y] = v
    return t


def pairs_broadcast(t, y, v):
    t = t.copy()
    t[np.arange(t.shape[0]), y[:, None]] = v
    return t


def pairs_local(t, y, v):
    t = t.copy()
    yy = y.reshape(-1, 1)
    t[np.arange(t.shape[0]), yy] = v
    return t
"""
    result = migrate_source(source.encode(), "m.py")
    output = result.output.decode()
    assert "t = t.at[jnp.arange(t.shape[0]), y.ravel()].set(v)" in output
    assert {r.qualname for r in result.functions if r.jit} == {"pick_set"}
    assert {d.line for d in result.diagnostics if d.code == "NPJ201"} == {12, 18, 25}
    original, migrated = {}, {}
    exec(compile(source, "original.py", "exec"), original)
    exec(compile(result.output, "migrated.py", "exec"), migrated)
    t, y, v = np.zeros((5, 3)), np.array([2, 2, 0, 1, 2]), np.arange(5.0)
    np.testing.assert_array_equal(np.asarray(migrated["pick_set"](t, y, v)), original["pick_set"](t, y, v))


ONE_VALUE_WRITES = """
import numpy as np


def grid_transitions(n_rows, n_cols):
    P = np.zeros((n_rows * n_cols, n_cols))
    for s in range(n_rows * n_cols):
        r, c = divmod(s, n_cols)
        P[s, c] += 1.0
    return P


def exclude(x, q):
    row = x.copy()
    row[q] = -np.inf
    return np.argmax(row)


def cap_at_mean(x, idx):
    y = x.copy()
    y[idx] = y.mean()
    return y
"""


def test_one_value_written_through_any_index_and_divmod_of_ints_migrate():
    """hunt46 FP: `row[q] = -np.inf` (or `y.mean()`) writes one value wherever `q` points, so repeated positions
    cannot disagree; `r, c = divmod(s, n_cols)` of ints unpacks two ints, a basic index. Both were NPJ201."""
    result = migrate_source(ONE_VALUE_WRITES.encode(), "m.py")
    assert not [d for d in result.diagnostics if d.code == "NPJ201"], [d.format() for d in result.diagnostics]
    assert all(r.jit for r in result.functions), result.output.decode()
    original, migrated = {}, {}
    exec(compile(ONE_VALUE_WRITES, "original.py", "exec"), original)
    exec(compile(result.output, "migrated.py", "exec"), migrated)
    x = np.array([3.0, 1.0, 3.0, 2.0])
    np.testing.assert_array_equal(np.asarray(migrated["grid_transitions"](3, 4)), original["grid_transitions"](3, 4))
    for q in (0, 2, np.array([0, 0, 2])):
        assert int(migrated["exclude"](x, q)) == original["exclude"](x, q)
        np.testing.assert_allclose(np.asarray(migrated["cap_at_mean"](x, q)), original["cap_at_mean"](x, q))
