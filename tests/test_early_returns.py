"""Guard clauses on traced values (``if test: return a``, more statements, ``return b``) into ``jax.lax.cond`` (NPJ306).

The statements between the guard and the final ``return`` stay where they are,
so they now also run when the test holds (analysis/early_returns.py says when
that is exact); the decision tests check what is converted and why the rest is
not, the runtime test runs the migrated code under ``jax.jit`` with x64 and
compares values and dtypes with NumPy on inputs that take every branch.
"""

from __future__ import annotations

import textwrap

import numpy as np
import pytest
from test_conditionals import check_decision, converted, flagged
from test_jit import PLAIN, migrate

# `f` starts with a guard clause on a traced 0-d test; each case adds what follows it
GUARD = """
import numpy as np

def f(x):
    s = np.sum(x)
    if s < 0:
        return x / 2.0
"""


def guarded(rest: str) -> str:
    return GUARD + textwrap.indent(textwrap.dedent(rest).strip("\n"), "    ") + "\n"


CASES = [
    pytest.param(guarded("m = np.max(x)\ny = x / (m + 1.0)\nreturn y"), converted(1), id="statements-then-the-return"),
    pytest.param(guarded("m = np.max(x)\nif m > 10.0:\n    return x / m\nreturn x * 3.0"), converted(2),
                 id="two-guards-in-a-row"),
    pytest.param(
        guarded(
            """
            m = np.max(x)
            if m > 1.0:
                scale = 1.0 / m
            else:
                scale = 1.0
            return x * scale
            """
        ),
        converted(2, calls=1),  # `scale`: 0-d values, a Python number among them: jnp.where
        id="a-converted-if-in-the-statements-after-it",
    ),
    pytest.param(
        GUARD + "    else:\n        y = x * 3.0\n        y[0] = 1.0\n        return y\n",
        converted(1),
        id="an-else-that-computes-before-returning",
    ),
    pytest.param(guarded("x = x * 3.0\nreturn x"), flagged("`x` is assigned after the early `return`"),
                 id="a-name-the-early-value-reads-is-assigned-after-it"),
    pytest.param(guarded("s = s * 2.0\nreturn x * s"), flagged("`s` is assigned after the early `return`"),
                 id="a-name-the-test-reads-is-assigned-after-it"),
    pytest.param(
        GUARD.replace("return x / 2.0", "return y") + "    y = x * 2.0\n    return y\n",
        flagged("`y` is assigned after the early `return`"),
        id="the-early-value-is-not-bound-yet-in-numpy",
    ),
    pytest.param(guarded("print(s)\nreturn x * 3.0"), flagged("`print(s)` follows it", ("NPJ301", "NPJ302")),
                 id="a-side-effect-after-it"),
    pytest.param(guarded("for i in range(3):\n    x = x * 2.0\nreturn x"), flagged("a compound statement"),
                 id="a-loop-after-it"),
    pytest.param(guarded("y = x * 2.0"), flagged("does not end with a `return`"), id="the-function-falls-through"),
    pytest.param(
        GUARD.replace("if s < 0", "if np.sum(x, axis=0) > 0") + "    return x * 2.0\n",
        converted(1),  # the return right after it (as before): jax.lax.cond raises on a test that is not 0-d
        id="a-test-that-may-not-be-0-d-then-the-return",
    ),
    pytest.param(
        GUARD.replace("if s < 0", "if np.sum(x, axis=0) > 0") + "    y = x * 2.0\n    return y\n",
        flagged("is 0-d"),
        id="a-test-that-may-not-be-0-d-then-statements",
    ),
    pytest.param(GUARD.replace("x / 2.0", "x, s") + "    y = x * 2.0\n    return y\n", flagged("is a tuple or list"),
                 id="branches-of-different-structures"),
    pytest.param(GUARD.replace("x / 2.0", "x.astype(np.int32)") + "    y = x * 2.5\n    return y\n",
                 flagged("different kinds"), id="branches-of-different-dtype-kinds"),
    pytest.param(
        """
        import numpy as np

        def f(x, flag):
            s = np.sum(x)
            if flag:
                if s < 0:
                    return x / 2.0
                y = x * 2.0
                return y
            return x
        """,
        flagged("inside a block"),
        id="a-guard-in-a-nested-block",
    ),
    pytest.param(
        guarded("x[0] = 0.0\nreturn x * 1.0"),
        {"f": PLAIN, "error": "NPJ201"},  # the write into the caller's array keeps the whole function NumPy
        id="a-write-into-a-parameter-after-it",
    ),
]


@pytest.mark.parametrize("source, expected", CASES)
def test_guard_clause_decisions(source, expected):
    check_decision(source, expected)


RUNTIME = """
import numpy as np


def centroid(poly):
    x, y = poly[:, 0], poly[:, 1]
    xn, yn = np.roll(x, -1), np.roll(y, -1)
    c = x * yn - xn * y
    a = c.sum() / 2.0
    # degenerate polygon
    if abs(a) < 1e-15:
        return poly.mean(axis=0)
    cx = ((x + xn) * c).sum() / (6.0 * a)
    cy = ((y + yn) * c).sum() / (6.0 * a)
    return np.array([cx, cy])


def mean_positive(x):
    n = np.count_nonzero(x > 0)
    if n == 0:
        return 0.0
    total = np.sum(np.maximum(x, 0))
    return total / n


def guards(x):
    s = np.sum(x)
    if s < 0:
        return x / 2.0
    m = np.max(x)
    if m > 10.0:
        return x / m
    y = x * 3.0
    return y


def with_else(x):
    s = np.sum(x)
    if s < 0:
        return x / 2.0
    elif s > 100.0:
        return x / s
    else:
        # scale, and pin the first element
        y = x * 3.0
        y[0] = 1.0
        return y


def scaled(x):
    s = np.sum(x)
    if s < 0:
        return x / 2.0
    m = np.max(x)
    if m > 1.0:
        scale = 1.0 / m
    else:
        scale = 1.0
    z = x * scale
    z[-1] += 1.0
    return z
"""


def test_the_guard_becomes_the_final_return():
    """The statements after the guard stay in place; its comment moves with it to the final `return`."""
    expected = (
        "    a = c.sum() / 2.0\n"
        "    cx = ((x + xn) * c).sum() / (6.0 * a)\n"
        "    cy = ((y + yn) * c).sum() / (6.0 * a)\n"
        "    # degenerate polygon\n"
        "    return jax.lax.cond(abs(a) < 1e-15, lambda: (poly * 1.0).mean(axis=0), lambda: jnp.array([cx, cy]))\n"
    )
    assert expected in migrate(RUNTIME).output.decode()


def test_guard_clauses_run_under_jit_and_match_numpy():
    jax = pytest.importorskip("jax")
    jnp = pytest.importorskip("jax.numpy")
    result = migrate(RUNTIME)
    output = result.output.decode()
    assert all(r.jit for r in result.functions), [d.format() for d in result.diagnostics]
    # two choose 0-d values, a Python number among them: jnp.where (`n == 0` -> 0.0, `scale`)
    assert " if " not in output and output.count("jax.lax.cond(") == 6 and output.count("jnp.where(") == 2, output
    original, migrated = {}, {}
    exec(compile(RUNTIME, "original.py", "exec"), original)
    exec(compile(result.output, "migrated.py", "exec"), migrated)
    square = np.array([[0.0, 0.0], [2.0, 0.0], [2.0, 1.0], [0.0, 1.0]])
    x = np.linspace(-1.0, 2.0, 7)
    calls = [
        ("centroid", square), ("centroid", np.array([[0.0, 0.0], [1.0, 1.0], [2.0, 2.0]])),  # collinear: a == 0
        ("centroid", np.array([[0, 0], [4, 0], [0, 3]])),  # ints: float64 either way
        ("mean_positive", x), ("mean_positive", -np.abs(x)), ("mean_positive", np.array([0, 3, 4])),
        ("guards", x), ("guards", -x), ("guards", x * 10),
        ("with_else", x), ("with_else", -x), ("with_else", x * 100),
        ("scaled", x), ("scaled", -x), ("scaled", x / 4 + 0.5),
    ]
    with jax.enable_x64(True):
        for name, arg in calls:
            with np.errstate(all="raise"):  # NumPy never runs the statements the guard skips
                want = np.asarray(original[name](arg.copy()))
            got = np.asarray(migrated[name](jnp.asarray(arg)))
            assert (got.shape, got.dtype) == (want.shape, want.dtype), (name, arg, got.dtype, want.dtype)
            np.testing.assert_array_equal(got, want, err_msg=f"{name}({arg})")
