"""Python's ``min(a, b)`` / ``max(a, b)`` of traced values become ``jnp.where(b < a, b, a)`` /
``jnp.where(b > a, b, a)`` (analysis/call_checks.py, walker.py): the argument Python returns, ties and NaN
included; with static arguments (shapes, sizes) they stay Python's.  ``int(np.argmax(x))`` loses its cast
(the same integer, as a 0-d array)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from np2jax.engine import migrate_source

SOURCE = """\
import numpy as np


def silverman(x):
    n = x.shape[0]
    std = np.std(x)
    iqr = np.percentile(x, 75) - np.percentile(x, 25)
    return 0.9 * min(std, iqr / 1.34) * n ** -0.2


def cfl(u, dx, c=0.5):
    return c * dx / max(np.max(np.abs(u)), 1e-12)


def pick_min(a, b):
    return min(np.sum(a), np.sum(b))


def lagged_sum(x, lag):
    total = 0.0 * x[0]
    for i in range(x.shape[0]):
        total = total + x[max(i - lag, 0)]
    return total


def head(x, n):
    return np.cumsum(x)[: min(n, x.shape[0])]


def value_at_peak(x, y):
    i = int(np.argmax(y))
    j = int(y.argmin())
    return x[i] - x[j], i
"""


@pytest.fixture(scope="module")
def migrated():
    result = migrate_source(SOURCE.encode(), "m.py")
    original, new = {}, {}
    exec(compile(SOURCE, "original.py", "exec"), original)
    exec(compile(result.output, "migrated.py", "exec"), new)
    return result, original, new


def test_traced_selections_become_where_and_functions_jit(migrated):
    result, _, _ = migrated
    output = result.output.decode()
    assert "jnp.where(iqr / 1.34 < std, iqr / 1.34, std)" in output
    assert "[: min(n, x.shape[0])]" in output  # static: Python's min
    assert "i = jnp.argmax(y)" in output and "j = y.argmin()" in output
    assert {r.qualname for r in result.functions if r.jit} == {"silverman", "cfl", "pick_min", "lagged_sum", "head", "value_at_peak"}


@pytest.mark.parametrize("name, args", [
    ("silverman", (np.array([1.0, 2.0, 2.5, 7.0, 3.0, 4.0], dtype=np.float32),)),
    ("cfl", (np.array([0.5, -2.0, 1.0], dtype=np.float32), 0.1)),
    ("cfl", (np.zeros(3, dtype=np.float32), 0.1)),
    ("pick_min", (np.array([1.0, 2.0]), np.array([3.0]))),
    ("pick_min", (np.array([3.0]), np.array([1.0, 2.0]))),
    ("lagged_sum", (np.arange(6.0, dtype=np.float32), 2)),
    ("head", (np.arange(5.0, dtype=np.float32), 3)),
    ("value_at_peak", (np.arange(4.0, dtype=np.float32), np.array([2.0, 9.0, -1.0, 9.0], dtype=np.float32))),
])
def test_selections_match_python(migrated, name, args):
    _, original, new = migrated
    expected, got = original[name](*args), new[name](*args)
    for want, have in zip(expected, got) if isinstance(expected, tuple) else [(expected, got)]:
        np.testing.assert_allclose(np.asarray(have), want, rtol=1e-6)


def test_nan_and_ties_pick_what_python_picks(migrated):
    _, original, new = migrated
    nan = np.array([np.nan])
    one = np.array([1.0])
    assert math.isnan(original["pick_min"](nan, one)) and math.isnan(float(new["pick_min"](nan, one)))
    assert original["pick_min"](one, nan) == 1.0 == float(new["pick_min"](one, nan))


def test_three_way_min_in_a_dp_loop_and_strings_kept_out_of_jit():
    """hunt14 M: `dp[i, j] = min(a, b, c)` (edit distance) kept the function un-jitted, while the two-way
    `max` of LCS became jnp.where.  Three arguments pick as `min(min(a, b), c)` does, ties and NaN included.
    And a parameter used only through `len` and elements compared with `==` may be a str, which jax.jit
    cannot take: such a function is not jitted (NPJ301) and still takes strings."""
    from tests.runtime_helpers import function_record, migrate_and_exec

    source = (
        "import numpy as np\n\n"
        "def edit_distance(a, b):\n"
        "    n, m = len(a), len(b)\n"
        "    dp = np.zeros((n + 1, m + 1))\n"
        "    dp[:, 0] = np.arange(n + 1)\n"
        "    dp[0, :] = np.arange(m + 1)\n"
        "    for i in range(1, n + 1):\n"
        "        for j in range(1, m + 1):\n"
        "            cost = 0.0 if a[i - 1] == b[j - 1] else 1.0\n"
        "            dp[i, j] = min(dp[i - 1, j] + 1, dp[i, j - 1] + 1, dp[i - 1, j - 1] + cost)\n"
        "    return dp[n, m]\n\n"
        "def smallest(x, y, z):\n"
        "    return min(np.sum(x), np.sum(y), np.sum(z))\n"
    )
    result, original, new = migrate_and_exec(source)
    assert not function_record(result, "edit_distance").jit
    assert any(d.code == "NPJ301" and "`a` may be a str" in d.message for d in result.diagnostics)
    assert float(new["edit_distance"]("kitten", "sitting")) == original["edit_distance"]("kitten", "sitting") == 3.0
    assert function_record(result, "smallest").jit
    for args in ((np.ones(2), np.zeros(2), np.full(2, -1.0)), (np.ones(2), np.ones(2), np.array([np.nan, 0.0]))):
        want, got = original["smallest"](*args), float(new["smallest"](*args))
        assert (math.isnan(want) and math.isnan(got)) or want == got
