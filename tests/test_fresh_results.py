"""Results of same-module functions that always return new arrays (analysis/fresh_results.py).

``rx = ranks(x); rx -= rx.mean()``: no other name can hold ``ranks``'s result, so the write is a rebinding
in JAX with the same effect; a function that may return its argument, a view, or an array it also keeps
elsewhere leaves the write reported (NPJ201).
"""

from __future__ import annotations

import numpy as np
import pytest

from np2jax.engine import migrate_source

SPEARMAN = """\
import numpy as np


def ranks(a):
    order = np.argsort(np.argsort(a, kind="stable"), kind="stable")
    r = order + 1.0
    return r


def centred(a):
    return a - a.mean()


def spearman(x, y):
    rx = ranks(x)
    ry = ranks(y)
    rx -= rx.mean()
    ry -= ry.mean()
    return np.sum(rx * ry) / np.sqrt(np.sum(rx ** 2) * np.sum(ry ** 2))


def clipped_scores(x):
    s = centred(x)
    s[s > 1.0] = 1.0
    s[0] = 0.0
    return s
"""


def test_writes_into_fresh_results_are_functional_and_jitted():
    result = migrate_source(SPEARMAN.encode(), "m.py")
    assert not [d for d in result.diagnostics if d.code in ("NPJ201", "NPJ202")], result.diagnostics
    assert {"spearman", "clipped_scores"} <= {r.qualname for r in result.functions if r.jit}
    original, migrated = {}, {}
    exec(compile(SPEARMAN, "original.py", "exec"), original)
    exec(compile(result.output, "migrated.py", "exec"), migrated)
    x = np.array([3.0, 1.0, 4.0, 1.5, 5.0, 9.0], dtype=np.float32)
    y = np.array([2.0, 7.0, 1.0, 8.0, 2.5, 8.5], dtype=np.float32)
    assert float(migrated["spearman"](x, y)) == pytest.approx(float(original["spearman"](x, y)), rel=1e-6)
    np.testing.assert_allclose(np.asarray(migrated["clipped_scores"](x)), original["clipped_scores"](x), rtol=1e-6)


@pytest.mark.parametrize("helper", [
    "def helper(a):\n    return a.T\n",  # a view of the argument
    "def helper(a):\n    return a\n",
    "KEPT = []\n\ndef helper(a):\n    out = a * 2.0\n    KEPT.append(out)\n    return out\n",  # kept elsewhere
    "def keep(v):\n    return None\n\ndef helper(a):\n    out = a * 2.0\n    keep(out)\n    return out\n",
    "def helper(a):\n    if a.sum() > 0:\n        return a * 2.0\n    return a\n",  # one return is the argument
])
def test_results_that_may_be_shared_keep_the_write_reported(helper):
    source = f"import numpy as np\n\n{helper}\n\ndef use(x):\n    y = helper(x)\n    y -= 1.0\n    return y\n"
    result = migrate_source(source.encode(), "m.py")
    assert any(d.code == "NPJ201" and "`y`" in d.message for d in result.diagnostics), result.diagnostics
