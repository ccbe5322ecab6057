"""In-place writes to a name that was just bound to a fresh array (analysis/fresh_rebinding.py), and element
reads that copy (``prev = y[i]`` of a 1-D ``y``): functional, jitted and equal to NumPy; the look-alikes that
share memory stay NumPy with NPJ201 (hunt23 FP1, FP2, FP4)."""

from __future__ import annotations

import numpy as np
import pytest

from tests.test_real_code_regressions import migrated_pair, record

SAFE = """
import numpy as np


def iir1(x, a=0.5):
    y = np.zeros(len(x))
    prev = 0.0
    for i in range(len(x)):
        y[i] = x[i] + a * prev
        prev = y[i]
    return y


def dilate(mask, iterations=2):
    m = mask.astype(bool)
    for _ in range(iterations):
        p = np.pad(m, 1)
        out = np.zeros_like(m)
        for di in (0, 1, 2):
            for dj in (0, 1, 2):
                out |= p[di:di + m.shape[0], dj:dj + m.shape[1]]
        m = out
    return m


def track(z, alpha=0.85, beta=0.005):
    est = np.zeros(len(z))
    xk = z[0]
    vk = 0.0
    for k in range(len(z)):
        xk = xk + vk
        r = z[k] - xk
        xk += alpha * r
        vk += beta * r
        est[k] = xk
    return est


def ema(z, alpha=0.5):
    xk = z[0]
    for k in range(1, len(z)):
        xk = alpha * xk + (1 - alpha) * np.abs(z[k])
    return xk
"""


def test_writes_after_a_fresh_rebinding_and_element_copies_are_jitted_and_equal():
    result, original, migrated = migrated_pair(SAFE)
    for name in ("iir1", "dilate", "track", "ema"):
        assert record(result, name).jit, (name, [d.message for d in result.diagnostics])
    assert not [d for d in result.diagnostics if d.code == "NPJ201"]
    x = np.linspace(-1.0, 2.0, 9)
    np.testing.assert_allclose(migrated.iir1(x), original.iir1(x), rtol=1e-6)
    mask = np.zeros((6, 7), dtype=bool)
    mask[2, 3] = mask[5, 0] = True
    np.testing.assert_array_equal(migrated.dilate(mask), original.dilate(mask))
    np.testing.assert_array_equal(migrated.dilate(mask, 1), original.dilate(mask, 1))
    z = np.array([1.0, 1.5, 1.2, 2.0, 2.4, 2.2])
    np.testing.assert_allclose(migrated.track(z), original.track(z), rtol=1e-5)
    zi = np.array([1, 3, 2, 5, 4])  # int data: the first step (xk + vk) makes xk a float
    np.testing.assert_allclose(migrated.track(zi), original.track(zi), rtol=1e-5)
    # hunt24 L1: a carry starting as an int element runs its first step before the fori_loop
    np.testing.assert_allclose(migrated.ema(np.array([1, 4, 2, 8])), original.ema(np.array([1, 4, 2, 8])), rtol=1e-6)
    np.testing.assert_allclose(migrated.ema(z), original.ema(z), rtol=1e-6)


@pytest.mark.parametrize("source, name", [
    ("""
    def rows(y):
        y = np.zeros((4, 2))
        for i in range(1, 4):
            prev = y[i - 1]
            y[i - 1] = 5.0
            y[i] = prev + 1.0
        return y
    """, "y"),
    ("""
    def handed_on(m):
        out = np.zeros_like(m)
        keep = out
        out |= m
        return keep
    """, "out"),
    ("""
    def kept_across_steps(m, k):
        out = np.zeros_like(m)
        for _ in range(k):
            out |= m
            m = out
        return m
    """, "out"),
    ("""
    def row_view(z):
        xk = z[0]
        xk += 1.0
        return np.sum(z)
    """, "xk"),
])
def test_writes_another_name_may_see_stay_numpy(source, name):
    import textwrap

    result, original, migrated = migrated_pair("import numpy as np\n" + textwrap.dedent(source))
    flagged = [d for d in result.diagnostics if d.code in ("NPJ201",)]
    assert flagged and f"`{name}`" in flagged[0].message, [d.message for d in result.diagnostics]


HUNT24 = '''
import numpy as np


def for_else(x):
    z = x * 1.0
    out = np.zeros(3)
    for _ in range(1):
        out = z          # `out` now IS z
    else:
        out[0] = 7.0     # NumPy writes into z
    return z


def try_except(x):
    out = np.zeros(3)
    try:
        keep = out
        raise ValueError("fallback")
    except ValueError:
        out += x         # NumPy: keep sees this
    return keep


def if_walrus(x):
    z = x * 1.0
    out = np.zeros(3)
    if (out := z) is not None:
        out += 1.0       # NumPy: z += 1
    return z


def for_over_list(x):
    out = np.zeros(3)
    for keep in [out]:
        out += x
    return keep


def match_guard(x):
    out = np.zeros(3)
    match 1:
        case 1 if (keep := out) is not None:
            out += x
    return keep


def closure(x):
    history = []
    record = lambda: history.append(out)
    for _ in range(2):
        out = np.zeros(3)
        record()
        out += x          # NumPy: history[-1] sees this
    return history[0]


def linspace_rows(a, b):
    y = np.linspace(a, b, 3)   # 2-D when a, b are vectors
    prev = y[0]                # a row view, not an element copy
    y[0] = 100.0
    return prev * 1.0


def shape_default(x, shape=3):
    y = np.zeros(shape)        # shape=(2, 3) is 2-D
    prev = y[0]
    y[0] = x.sum()
    return prev * 1.0


def enumerate_views(x):
    out = np.array(x, dtype=float)
    for i, v in enumerate(out[:-1]):
        out[i + 1] += v
    return out
'''


def test_what_the_fresh_rebinding_proof_must_not_follow_stays_npj201():
    """hunt24 S1-S7, S9: an alias taken in a loop's `else`, an `except`, an `if` test's walrus, a loop's iterable,
    a `match` guard or a closure; rows of np.linspace of vectors and of np.zeros(shape) with a tuple given for a
    number default; views a loop iterates over. Each came out functional and silently different for a while."""
    import ast

    result, original, migrated = migrated_pair(HUNT24)
    functions = [n for n in ast.parse(HUNT24).body if isinstance(n, ast.FunctionDef)]
    flagged = {d.line for d in result.diagnostics if d.code == "NPJ201"}
    for function in functions:
        assert any(function.lineno <= line <= function.end_lineno for line in flagged), function.name
