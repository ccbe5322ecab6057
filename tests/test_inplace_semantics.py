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
