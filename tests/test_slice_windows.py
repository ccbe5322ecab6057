"""Slices at a fori_loop index: fixed-size windows proven inside the array become jax.lax.dynamic_slice_in_dim.

The decision cases say which loops convert (the function is jitted) and which keep NPJ303; the runtime
test runs the migrated functions under jax.jit against NumPy, on edge shapes too (a window as long as the
array, one window, no window at all: the loop then has no step and is not traced).
"""

from __future__ import annotations

import numpy as np
import pytest

from np2jax.rules.loop_to_fori import LoopToFori
from tests.test_jit import assert_same_results, jit, loops_migrated_and_run, migrate, outcome

WINDOW_CASES = [
    pytest.param(
        """
        import numpy as np

        def f(x, w):
            n = x.shape[0]
            out = np.zeros(n - w + 1)
            for i in range(n - w + 1):
                out[i] = x[i:i + w].mean()
            return out
        """,
        {"f": jit(1)},
        id="window-of-a-static-length",
    ),
    pytest.param(
        """
        import numpy as np

        def f(x):
            out = np.zeros(len(x))
            for i in range(1, len(x) - 1):
                out[i] = x[i - 1:i + 2].sum()
            return out
        """,
        {"f": jit()},
        id="centred-window-from-len",
    ),
    pytest.param(
        """
        import numpy as np

        def f(img):
            h, w = img.shape
            out = np.zeros((h - 2, w - 2))
            for i in range(h - 2):
                out[i] = img[i:i + 3, 1:-1].sum(axis=0)
            return out
        """,
        {"f": jit()},
        id="window-beside-a-static-slice-shape-unpacked",
    ),
    pytest.param(
        """
        import numpy as np

        def f(x, w):
            out = np.zeros((x.shape[0], x.shape[1] - w + 1))
            for j in range(x.shape[1] - w + 1):
                out[:, j] = x[:, j:j + w].mean(axis=1)
            return out
        """,
        {"f": jit(1)},
        id="window-along-the-second-axis",
    ),
    pytest.param(
        """
        import numpy as np

        def f(x, w):
            half = w // 2
            n = x.shape[0]
            out = np.zeros(n)
            for i in range(half, n - half):
                out[i] = np.median(x[i - half:i + half + 1])
            return out
        """,
        {"f": jit(1)},
        id="half-width-through-a-name",
    ),
    pytest.param(
        """
        import numpy as np

        def f(x, k):
            n, m = len(x), len(k)
            out = np.zeros(n)
            for i in range(m // 2, n - m // 2):
                out[i] = np.dot(x[i - m // 2:i + m // 2], k[:m // 2 * 2])
            return out
        """,
        {"f": jit()},
        id="half-width-written-out-twice",
    ),
    pytest.param(
        """
        import numpy as np

        def f(x, lag):
            n = x.shape[0]
            out = np.zeros(n)
            for i in range(lag, n):
                out[i] = x[i - lag:i].mean()
            return out
        """,
        {"f": jit(1)},
        id="trailing-window-ending-at-the-index",
    ),
    pytest.param(
        """
        import numpy as np

        def f(x):
            out = np.zeros((len(x) - 2, 1, 3))
            for i in range(len(x) - 2):
                out[i] = x[None, i:i + 3]
            return out
        """,
        {"f": ("NPJ303", "NPJ304")},  # after a None the window's axis is not its position
        id="window-after-a-new-axis",
    ),
    pytest.param(
        """
        import numpy as np

        def f(x):
            out = np.zeros(len(x))
            for i in range(len(x)):
                out[i] = x[i:i + 3].sum()
            return out
        """,
        {"f": ("NPJ303", "NPJ304")},  # the last windows run past the end: NumPy cuts them, dynamic_slice would move them
        id="window-past-the-end",
    ),
    pytest.param(
        """
        import numpy as np

        def f(x):
            out = np.zeros(len(x))
            for i in range(len(x) - 1):
                out[i] = x[i - 1:i + 2].sum()
            return out
        """,
        {"f": ("NPJ303", "NPJ304")},  # x[-1:2] at i = 0: NumPy wraps the negative start
        id="window-before-the-start",
    ),
    pytest.param(
        """
        import numpy as np

        def f(x, y, w):
            n = x.shape[0]
            out = np.zeros(n - w + 1)
            for i in range(n - w + 1):
                out[i] = y[i:i + w].sum()
            return out
        """,
        {"f": ("NPJ303", "NPJ304")},  # the range is x's length, not y's
        id="window-of-another-array",
    ),
    pytest.param(
        """
        import numpy as np

        def f(x, w):
            n = x.shape[0]
            x = x * 2
            out = np.zeros(n - w + 1)
            for i in range(n - w + 1):
                out[i] = x[i:i + w].sum()
            return out
        """,
        {"f": ("NPJ303", "NPJ304")},  # two values of x: its length is not proven the same
        id="array-assigned-twice",
    ),
    pytest.param(
        """
        import numpy as np

        def f(x):
            out = np.zeros(len(x))
            for i in range(len(x)):
                out[i] = x[i:].max() + x[:i + 1].max()
            return out
        """,
        {"f": ("NPJ303", "NPJ304")},  # the length changes with i (left as NumPy code, NPJ304) (sums of such slices: tests/test_prefix_masks.py)
        id="suffix-and-prefix",
    ),
    pytest.param(
        """
        import numpy as np

        def f(x, j):
            out = np.zeros(len(x))
            for i in range(len(x) - j):
                out[i] = x[i:i + j:2].sum()
            return out
        """,
        {"f": ("NPJ303", "NPJ304")},
        id="window-with-a-step",
    ),
    pytest.param(
        """
        import numpy as np

        def f(x, w):
            out = np.zeros(len(x) + w)
            for i in range(len(x)):
                out[i:i + w] += x[i]
            return out
        """,
        {"f": ("NPJ303", "NPJ304")},  # a write at the index: not converted
        id="write-into-a-window",
    ),
    pytest.param(
        """
        import numpy as np

        def f(x):
            out = np.zeros(len(x) - 2)
            for k in range(len(x) - 2):
                for i in range(len(x) - 2):
                    out[i] = out[i] + x[i:i + 3].sum()
            return out
        """,
        {"f": jit()},
        id="window-of-an-inner-loop",
    ),
    pytest.param(
        """
        import numpy as np

        def f(x, w):
            for s in range(3):
                n = x.shape[0]
                out = np.zeros(n - w + 1)
                for i in range(n - w + 1):
                    out[i] = x[i:i + w].sum()
            return out
        """,
        {"f": ("NPJ303", "NPJ304")},  # n is set in a loop: not one value per call (left as NumPy code)
        id="length-set-in-a-loop",
    ),
]


@pytest.mark.parametrize("source, expected", WINDOW_CASES)
def test_window_decisions(source, expected):
    """(NPJ304 with NPJ303: a function not jitted whose loop writes elements at the index is left as NumPy code.)"""
    result = migrate(source)
    found = outcome(result)
    assert found == expected, [d.format() for d in result.diagnostics]
    output = result.output.decode()
    assert ("jax.lax.dynamic_slice_in_dim(" in output) == (expected["f"][0] == "jit"), output


WINDOW_RUNTIME = """
def moving_max(x):
    n = len(x)
    out = np.empty(n - 2)
    for i in range(n - 2):
        out[i] = np.max(x[i:i + 3])
    return out

def column_means(x, w):
    out = np.zeros((x.shape[0], x.shape[1] - w + 1))
    for j in range(x.shape[1] - w + 1):
        out[:, j] = x[:, j:j + w].mean(axis=1)
    return out

def patch_max(img):
    h, w = img.shape
    out = np.zeros((h - 2, w - 2))
    for i in range(h - 2):
        for j in range(w - 2):
            out[i, j] = img[i:i + 3, j:j + 3].max()
    return out

def centred_median(x, w):
    half = w // 2
    n = x.shape[0]
    out = x.copy()
    for i in range(half, n - half):
        out[i] = np.median(x[i - half:i + half + 1])
    return out

def window_total(x):
    total = 0.0
    for i in range(len(x) - 2):
        total = total + x[i:i + 3].sum()
    return total

def row_windows(x, k):
    n, m = x.shape
    out = np.zeros((n - k + 1, k, m))
    for i in range(n - k + 1):
        out[i] = x[i:i + k] - x[i:i + k].mean(axis=0)
    return out
"""


def test_windows_run_under_jit_and_match_numpy():
    """The functions above and those of NPJ305's window example (rolling_mean, local_sums)."""
    pytest.importorskip("jax")
    example = next(e for e in LoopToFori.EXAMPLES if e.title.startswith("a window at the index"))
    output, original, migrated = loops_migrated_and_run(example.source + WINDOW_RUNTIME, loops=9)
    assert "jax.lax.dynamic_slice_in_dim(x, j, w, axis=1)" in output
    assert "jax.lax.dynamic_slice_in_dim(x, i - half, 2 * half + 1)" in output
    rng = np.random.default_rng(3)
    x = rng.normal(size=12).astype(np.float32)
    img = rng.normal(size=(6, 7)).astype(np.float32)
    assert_same_results(original, migrated, [
        ("rolling_mean", (x, 3)), ("rolling_mean", (x, 12)), ("rolling_mean", (x, 1)), ("rolling_mean", (x, 13)),
        ("moving_max", (x,)), ("moving_max", (x[:3],)), ("moving_max", (x[:2],)),
        ("local_sums", (img,)), ("local_sums", (img[:3],)), ("local_sums", (img[:2],)),
        ("column_means", (img, 2)), ("column_means", (img, 7)), ("column_means", (img, 8)),
        ("patch_max", (img,)), ("patch_max", (img[:3, :3],)), ("patch_max", (img[:2],)),
        ("centred_median", (x, 5)), ("centred_median", (x, 1)), ("centred_median", (x[:5], 5)), ("centred_median", (x[:3], 5)),
        ("window_total", (x,)), ("window_total", (x[:3],)), ("window_total", (x[:2],)),
        ("row_windows", (img, 3)), ("row_windows", (img, 6)), ("row_windows", (img, 7)),
    ])
