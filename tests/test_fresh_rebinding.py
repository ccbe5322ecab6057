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
"""


def test_writes_after_a_fresh_rebinding_and_element_copies_are_jitted_and_equal():
    result, original, migrated = migrated_pair(SAFE)
    for name in ("iir1", "dilate", "track"):
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
