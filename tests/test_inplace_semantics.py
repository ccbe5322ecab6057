"""In-place semantics that a rebinding would lose silently: checked by running both versions.

* ``acc += v`` on an int8/uint8/int16/float16 array keeps (and wraps in) the array's dtype in NumPy;
  JAX's rebinding would promote, so the migration spells out the cast.
* ``self.x += v`` on what a caller handed to the constructor changes the caller's array in NumPy:
  the class stays NumPy, and so does the function that creates the object and reads its own array.
"""

from __future__ import annotations

import numpy as np
import pytest

from np2jax.engine import migrate_source

NARROW = """
import numpy as np


def neighbours(board):
    n = np.zeros(board.shape, dtype=np.int8)
    for dy in (-1, 0, 1):
        for dx in (-1, 0, 1):
            n += np.roll(np.roll(board, dy, axis=0), dx, axis=1)
    return n


def column_totals(x):
    h = np.zeros(x.shape[1], "int16")
    for i in range(len(x)):
        h += x[i]
    return h


def plain(x):
    acc = np.zeros(x.shape)
    acc += x
    return acc
"""

SHARED = """
import numpy as np


class Accumulator:
    def __init__(self, total, scale=1.0):
        self.total = total
        self.scale = scale
        self.count = 0

    def add(self, x):
        self.total += self.scale * np.asarray(x)
        self.count += 1


def integrate(samples, dt=0.5):
    state = np.zeros(samples.shape[-1])
    acc = Accumulator(state, dt)
    for k in range(samples.shape[0]):
        acc.add(samples[k])
    return state
"""


def _run(source):
    result = migrate_source(source.encode(), "m.py")
    original, migrated = {}, {}
    exec(compile(source, "original.py", "exec"), original)
    exec(compile(result.output, "migrated.py", "exec"), migrated)
    return result, original, migrated


def test_augmented_assignment_keeps_a_narrow_dtype_and_wraps_like_numpy():
    jnp = pytest.importorskip("jax.numpy")
    result, original, migrated = _run(NARROW)
    output = result.output.decode()
    assert "n = (n + jnp.roll(" in output and ").astype(n.dtype)" in output, output
    assert "h = (h + x[i]).astype(h.dtype)" in output, output
    assert "acc += x" in output  # float64 arrays: nothing to keep
    assert {r.qualname for r in result.functions if r.jit} == {"neighbours", "column_totals", "plain"}, output
    board = np.full((5, 5), 40)  # nine neighbours of 40: 360, which int8 wraps to 104
    x = np.random.default_rng(0).integers(0, 30000, size=(5, 3))
    for name, arg in (("neighbours", board), ("column_totals", x), ("plain", x)):
        want = original[name](arg)
        got = np.asarray(migrated[name](jnp.asarray(arg)))
        assert got.dtype == want.dtype or name == "plain", name
        np.testing.assert_array_equal(got, want, err_msg=name)


def test_augmented_attribute_holding_the_callers_array_keeps_the_class_and_its_creator_numpy():
    result, original, migrated = _run(SHARED)
    assert result.output.decode() == SHARED  # nothing changes: the caller relies on `total` being updated
    codes = sorted((d.line, d.code) for d in result.diagnostics if d.code in ("NPJ201", "NPJ202"))
    lines = SHARED.splitlines()
    assert codes == sorted([
        (lines.index("    def __init__(self, total, scale=1.0):") + 1, "NPJ202"),
        (lines.index("        self.total += self.scale * np.asarray(x)") + 1, "NPJ201"),
        (lines.index("    acc = Accumulator(state, dt)") + 1, "NPJ202"),
    ]), result.diagnostics
    xs = np.arange(6.0).reshape(3, 2)
    np.testing.assert_array_equal(migrated["integrate"](xs), original["integrate"](xs))
    assert migrated["integrate"](xs).sum() == 0.5 * xs.sum()


UNJITTED = """
import numpy as np


def backward_cumsum(xs):
    x = xs.copy()
    for k in range(len(x) - 2, -1, -1):
        x[k] += x[k + 1]
    return x


def zero_first(a, verbose=False):
    b = a * 1.0
    b[0] = 0.0
    print("zeroed", b.shape)
    return b


def ramp(n):
    out = np.zeros(n)
    out[1:] = 1.0
    print(n)
    return out


class Filter:
    def __init__(self, P):
        self.P = P.copy()
        self.Q = np.eye(len(P)) * 0.1

    def predict(self):
        self.P[0, 0] += 1.0
        self.Q[0, 0] *= 2.0
        return self.P + self.Q
"""


def test_updates_in_functions_that_are_not_jitted_work_on_numpy_arguments():
    # Not jitted (a `print`, a loop np2jax leaves as it is, a method): the function runs on the caller's
    # NumPy arrays, and `xs.copy()` of one has no `.at` -- it is read through jnp.asarray.
    result, original, migrated = _run(UNJITTED)
    output = result.output.decode()
    assert "x = jnp.asarray(x).at[k].add(x[k + 1])" in output, output
    assert "b = jnp.asarray(b).at[0].set(0.0)" in output, output
    assert "out = out.at[1:].set(1.0)" in output, output  # jnp.zeros: a JAX array already
    assert "self.P = jnp.asarray(self.P).at[0, 0]" in output and "self.Q = self.Q.at[0, 0]" in output, output
    assert not any(r.jit for r in result.functions), output
    xs = np.arange(5.0)
    for name, args in (("backward_cumsum", (xs,)), ("zero_first", (xs,)), ("ramp", (4,))):
        np.testing.assert_allclose(np.asarray(migrated[name](*args)), original[name](*args), err_msg=name)
    P = np.eye(2)
    want, got = original["Filter"](P.copy()), migrated["Filter"](P.copy())
    for _ in range(2):
        np.testing.assert_allclose(np.asarray(got.predict()), want.predict())
