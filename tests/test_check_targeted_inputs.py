"""`np2jax check` without EXAMPLES: targeted special inputs, probes that hang, data named `paths`.

mut1 (mutation testing of the corpus migration) found wrong migrations that probing rated equivalent:
C3 `w.sum() == 0` reached only when `w` alone is zero (every array zero gives 0 either way); C5 `>` for `>=` against
a threshold no input value equals; C4 an image-named parameter given only 8-bit or positive values, which
`clip(..., 0, 1)` saturates; C6 a loop ending on `max(hi - lo)` of an array that probing never gave (a number only);
C7 `np.asarray(x, dtype=np.float32)` without its dtype, seen only on a list of ints; C2 `nanmean` migrated as `mean`
before an argsort: integer outputs on the NaN input were compared in dtype and shape only (now by value where every
input array has at most 16 elements, which NumPy sorts keeping NaN ties in order, as JAX does).
hunt58 C1: a probe on which the original never ends (a cycle) turned the function into `error` although other
probes work; C2: a parameter `paths` (simulated price paths) was taken for file paths, and the function skipped.

Each case: a right migration is reported equivalent, a wrong one a mismatch (or error).
"""

from __future__ import annotations


import pytest

from tests.check_helpers import check_records

ORIGINAL = '''\
import time
import numpy as np


def weighted_center(x, w):
    total = w.sum()
    if total == 0:
        return x.mean(axis=0)
    return (w / total) @ x


def threshold(image, level=0.5):
    return np.where(image > level, 1.0, 0.0)


def adjust_contrast(image, gain, bias=0.0):
    return np.clip(gain * (image - 0.5) + 0.5 + bias, 0.0, 1.0)


def bisect_cube_root(c, tol=1e-4, max_steps=60):
    lo = np.zeros_like(c)
    hi = np.maximum(c, 1.0)
    steps = 0
    while True:
        mid = 0.5 * (lo + hi)
        below = mid * mid * mid < c
        lo = np.where(below, mid, lo)
        hi = np.where(below, hi, mid)
        steps += 1
        if np.max(hi - lo) < tol or steps >= max_steps:
            break
    return mid


def ensure_array(x):
    if isinstance(x, np.ndarray):
        return x
    return np.asarray(x, dtype=np.float32)


def column_totals(x):
    while x.ndim == 1:  # never ends on a vector (the first probes)
        time.sleep(0.01)
    return x.sum(axis=0)


def clean_and_rank(x):
    col_mean = np.nanmean(x, axis=0)
    return np.argsort(np.where(np.isnan(x), col_mean, x), axis=0)


def lookback_payoff(paths, call=True):
    if call:
        return paths[:, -1] - paths.min(axis=1)
    return paths.max(axis=1) - paths[:, -1]
'''

RIGHT = '''\
import jax
import jax.numpy as jnp
import numpy as np


@jax.jit
def weighted_center(x, w):
    total = w.sum()
    return jax.lax.cond(total == 0, lambda: x.mean(axis=0), lambda: (w / total) @ x)


@jax.jit
def threshold(image, level=0.5):
    return jnp.where(image > level, 1.0, 0.0)


@jax.jit
def adjust_contrast(image, gain, bias=0.0):
    return jnp.clip(gain * (image - 0.5) + 0.5 + bias, 0.0, 1.0)


@jax.jit
def bisect_cube_root(c, tol=1e-4, max_steps=60):
    lo = jnp.zeros_like(c)
    hi = jnp.maximum(c, 1.0)

    def step(carry):
        _, lo, hi, steps = carry
        mid = 0.5 * (lo + hi)
        below = mid * mid * mid < c
        return mid, jnp.where(below, mid, lo), jnp.where(below, hi, mid), steps + 1

    def going(carry):
        _, lo, hi, steps = carry
        return jnp.logical_not(jnp.logical_or(jnp.max(hi - lo) < tol, steps >= max_steps))

    first = step((lo, lo, hi, 0))
    return jax.lax.while_loop(going, step, first)[0]


def ensure_array(x):
    if isinstance(x, np.ndarray):
        return x
    return jnp.asarray(x, dtype=np.float32)


@jax.jit
def column_totals(x):
    return x.sum(axis=0)


@jax.jit
def clean_and_rank(x):
    col_mean = jnp.nanmean(x, axis=0)
    return jnp.argsort(jnp.where(jnp.isnan(x), col_mean, x), axis=0)


@jax.jit
def lookback_payoff(paths, call=True):
    return jnp.where(call, paths[:, -1] - paths.min(axis=1), paths.max(axis=1) - paths[:, -1])
'''

# one mutation per function (mut1's survivors, and a plain wrong axis for the last two)
WRONG = (RIGHT
         .replace("lambda: x.mean(axis=0)", "lambda: x.sum(axis=0)")
         .replace("image > level", "image >= level")
         .replace("(image - 0.5)", "(image - 0.49)")
         .replace("jnp.max(hi - lo) < tol", "jnp.min(hi - lo) < tol")
         .replace("jnp.asarray(x, dtype=np.float32)", "jnp.asarray(x)")
         .replace("return x.sum(axis=0)", "return x.sum(axis=0) + x[0]")
         .replace("paths.min(axis=1)", "paths.mean(axis=1)")
         .replace("jnp.nanmean(x, axis=0)", "jnp.mean(x, axis=0)"))

FUNCTIONS = ("weighted_center", "threshold", "adjust_contrast", "bisect_cube_root", "ensure_array", "column_totals",
             "lookback_payoff", "clean_and_rank")


@pytest.fixture(scope="module")
def right(tmp_path_factory) -> dict[str, dict]:
    return check_records(tmp_path_factory.mktemp("right"), "targeted.py", ORIGINAL, RIGHT)


@pytest.fixture(scope="module")
def wrong(tmp_path_factory) -> dict[str, dict]:
    return check_records(tmp_path_factory.mktemp("wrong"), "targeted.py", ORIGINAL, WRONG)


@pytest.mark.parametrize("name", FUNCTIONS)
def test_right_migration_is_equivalent(right, name):
    assert right[name]["status"] == "equivalent", right[name]["message"]


@pytest.mark.parametrize("name, seen_on", [
    ("weighted_center", "w all zeros"),
    ("threshold", "tied to a threshold"),
    ("adjust_contrast", "images in [0, 1)"),
    ("bisect_cube_root", "values from 0.25 to 32"),
    ("ensure_array", "integer list"),
    ("column_totals", ""),
    ("lookback_payoff", ""),
    ("clean_and_rank", "with a NaN"),
])
def test_wrong_migration_is_caught(wrong, name, seen_on):
    record = wrong[name]
    assert record["status"] == "mismatch", record["message"]
    assert seen_on in record["message"]


def test_hanging_probes_are_dropped(right):
    """The vectors the original never finishes on are dropped; the matrices it finishes on are compared."""
    record = right["column_totals"]
    assert record["inputs_accepted"] >= 3 and "timed out" not in record["message"]


def test_paths_of_prices_are_data(right):
    assert right["lookback_payoff"]["inputs_accepted"] >= 3


def test_nan_ties_are_left_only_to_long_sorts():
    """Up to 16 elements NumPy's argsort keeps NaN ties in their order, as JAX's stable sort; beyond, it does not."""
    import jax.numpy as jnp
    import numpy as np

    from np2jax.check.execute import nan_ties_possible
    from np2jax.check.inputs import Call

    rng = np.random.default_rng(0)
    for n in (5, 16):
        d = rng.standard_normal((3, n)).astype(np.float32)
        d[0] = np.nan
        d[1, ::2] = np.nan
        assert (np.argsort(d, axis=1) == np.asarray(jnp.argsort(jnp.asarray(d), axis=1))).all()
    assert not nan_ties_possible(Call(None, (np.zeros(16), np.zeros((4, 4)), 2.0)))
    assert nan_ties_possible(Call(None, (np.zeros(8), np.zeros((6, 4)))))
