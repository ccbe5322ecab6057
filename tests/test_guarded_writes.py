"""Writes into arrays under an ``if`` on traced values (``if out[i] < 0: out[i] = 0.0``).

The functional update makes the write ``out = out.at[i].set(0.0)``, a name assignment, so the ``if``
becomes ``out = jax.lax.cond(test, lambda: out.at[i].set(0.0), lambda: out)``: NumPy's write when the
test holds, the array unchanged otherwise.  Every case runs under ``jax.jit`` against NumPy.
"""

from __future__ import annotations

import textwrap

import numpy as np
import pytest

from np2jax.engine import Options, migrate_source
from tests.runtime_helpers import (
    assert_matches_numpy,
    function_record,
    migrate_and_exec,
)

SOURCE = textwrap.dedent(
    """
    import numpy as np

    def relu_loop(x):
        out = x.copy()
        for i in range(x.shape[0]):
            if out[i] < 0:
                out[i] = 0.0
        return out

    def clamp_loop(x, lo, hi):
        y = x.copy()
        for i in range(y.shape[0]):
            if y[i] > hi:
                y[i] = hi
            elif y[i] < lo:
                y[i] = lo
        return y

    def masked_accumulate(w, m):
        out = np.zeros_like(w)
        for i in range(w.shape[0]):
            if m[i] > 0.5:
                out[i] += 2.0 * w[i]
            else:
                out[i] -= w[i]
        return out

    def running_best(d):
        best = d[0]
        where = np.zeros(2)
        for i in range(1, d.shape[0]):
            if d[i] < best:
                best = d[i]
                where[0] = i
        return best, where

    def reset_if_large(x):
        y = x * 2.0
        if y.sum() > 10.0:
            y[0] = 0.0
        return y

    def hinge_total(x, t):
        acc = x[0] * 0.0
        for i in range(x.shape[0]):
            if x[i] > t:
                acc += x[i] - t
            else:
                acc -= 0.5 * t - x[i] + 1.0
        return acc

    def split_signs(x):
        pos = np.zeros_like(x)
        neg = np.zeros_like(x)
        for i in range(x.shape[0]):
            if x[i] > 0:
                pos[i] = x[i]
            else:
                neg[i] = -x[i]
        return pos, neg
    """
)

CONVERTED = ["relu_loop", "clamp_loop", "masked_accumulate", "running_best", "reset_if_large", "split_signs", "hinge_total"]


@pytest.fixture(scope="module")
def migrated():
    return migrate_and_exec(SOURCE, "guarded.py")


def test_guarded_writes_become_lax_cond_and_are_jitted(migrated):
    result, _, _ = migrated
    text = result.output.decode()
    assert "out = jax.lax.cond(out[i] < 0, lambda: out.at[i].set(0.0), lambda: out)" in text
    assert "lambda: acc + (x[i] - t), lambda: acc - (0.5 * t - x[i] + 1.0)" in text  # `acc op= v` as `acc op (v)`
    for name in CONVERTED:
        assert function_record(result, name).jit, name
        assert function_record(result, name).status == "migrated", name


def test_branches_assigning_different_names_keep_the_others(migrated):
    """A branch that leaves a name alone gives its value from before the `if`."""
    result, _, _ = migrated
    assert function_record(result, "split_signs").jit
    assert "lambda: (pos.at[i].set(x[i]), neg), lambda: (pos, neg.at[i].set(-x[i]))" in result.output.decode()


def test_name_set_only_in_one_branch_and_not_before_is_not_converted():
    source = textwrap.dedent(
        """
        import numpy as np

        def first_sign(x):
            s = x.sum()
            if s > 0:
                label = s * 2.0
            else:
                other = s
            return s
        """
    )
    result = migrate_source(source.encode(), "partial.py", Options(jit=True))
    assert not result.functions[0].jit
    assert any("is set only in some branches" in d.message for d in result.diagnostics)


rng = np.random.default_rng(3)
X = rng.normal(size=9).astype(np.float32)


@pytest.mark.parametrize("name, args", [
    ("relu_loop", (X,)),
    ("clamp_loop", (X, np.float32(-0.5), np.float32(0.4))),
    ("masked_accumulate", (X, rng.uniform(size=9).astype(np.float32))),
    ("running_best", (X,)),
    ("reset_if_large", (np.abs(X) * 4,)),
    ("reset_if_large", (X * 0.1,)),
    ("split_signs", (X,)),
    ("hinge_total", (X, np.float32(0.2))),
])
def test_migrated_matches_numpy(migrated, name, args):
    _, original, new = migrated
    assert_matches_numpy(original, new, name, args)
