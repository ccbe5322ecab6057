"""Convergence loops that become ``jax.lax.while_loop`` (NPJ308), and the ones that stay as they are.

The runtime test runs the migrated module under ``jax_enable_x64`` in a subprocess (the test session runs
without it) and compares values, dtypes and shapes with NumPy's: the zero-step case, the loop that stops at
its first step, and the one that runs out of steps.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from np2jax.engine import Options, migrate_source
from np2jax.rules.loop_to_while import LoopToWhile
from tests.test_jit import PLAIN, jit, migrate, outcome

CONVERTED = [
    pytest.param(
        """
        import numpy as np

        def f(x: np.ndarray, tol=1e-6, max_iter=20):
            converged = False
            k = 0
            while not converged and k < max_iter:
                g = 0.5 * x
                x = x - 0.1 * g
                converged = np.linalg.norm(g) < tol
                k += 1
            return x, k
        """,
        jit(2), id="not-a-flag-and-a-counter",
    ),
    pytest.param(
        """
        import numpy as np

        def f(x: np.ndarray, tol=1e-6):
            y = x.copy()
            for i in range(200):
                y = y - 0.5 / (1 + i) * y
                for j in range(y.shape[0]):
                    y[j] = y[j] * 0.99
                if np.linalg.norm(y) < tol:
                    break
            return y
        """,
        jit(), id="break-loop-with-an-inner-fori-loop",
    ),
    pytest.param(
        """
        import numpy as np

        def f(a: np.ndarray, b: np.ndarray, tol=1e-6):
            while True:
                a, b = 0.5 * (a + b), np.sqrt(a * b)
                if np.max(np.abs(a - b)) < tol:
                    break
            return a
        """,
        jit(), id="while-true-breaking-last",
    ),
    pytest.param(
        """
        import numpy as np

        def f(x: np.ndarray, tol=1e-6):
            y = x.copy()
            while 1:
                if not np.linalg.norm(y) > tol:
                    break
                y = 0.5 * y
            return y
        """,
        jit(), id="while-1-breaking-first",
    ),
]


@pytest.mark.parametrize("source, expected", CONVERTED)
def test_convergence_loops_become_while_loops(source, expected):
    result = migrate(source)
    assert outcome(result) == {"f": expected}, [d.format() for d in result.diagnostics]
    output = result.output.decode()
    assert output.count("jax.lax.while_loop(") == 1, output
    assert "break" not in output and "\n    while " not in output, output
    assert [d.code for d in result.diagnostics if d.code == "NPJ308"] == ["NPJ308"]


def test_while_true_keeps_its_comments():
    result = migrate("""
        import numpy as np

        def f(x: np.ndarray, tol=1e-6):
            y = x.copy()
            # halve until small
            while True:
                # small enough?
                if np.max(np.abs(y)) < tol:  # then stop
                    break
                y = 0.5 * y
            return y
        """)
    output = result.output.decode()
    assert "# halve until small\n    # small enough?\n    # then stop\n    def _loop_cond(y):" in output, output


REFUSED = [
    pytest.param(
        """
        def f(a: np.ndarray, tol=1e-6):
            x = a.copy()
            while np.max(np.abs(x * x - a)) > tol:
                step = 0.5 * (a / x - x)
                x = x + step
            return x, step
        """,
        "`step` is first set inside the loop and used after it", id="name-first-set-inside-used-after",
    ),
    pytest.param(
        """
        def f(x: np.ndarray, tol=1e-6):
            err = 0
            while np.max(np.abs(x)) > tol:
                x = 0.5 * x
                err = np.max(np.abs(x))
            return x, err
        """,
        "`err` may start as a Python value", id="int-start-float-body",
    ),
    pytest.param(
        """
        def f(x: np.ndarray, tol=1e-6):
            y = x.copy()
            while y > tol:
                y = 0.5 * y
            return y
        """,
        "cannot tell that `y` is 0-d", id="test-may-be-an-array",
    ),
    pytest.param(
        """
        def f(x: np.ndarray, tol=1e-6):
            y = x.copy()
            while np.max(y) > tol:
                y = 0.5 * y
                if np.min(y) < 0:
                    continue
            return y
        """,
        "it uses `continue`", id="continue-in-body",
    ),
    pytest.param(
        """
        def f(x: np.ndarray, tol=1e-6):
            y = x.copy()
            while np.max(y) > tol:
                y = 0.5 * y
            else:
                y = y + 1
            return y
        """,
        "it has an `else` clause", id="while-else",
    ),
    pytest.param(
        """
        def f(x: np.ndarray, tol=1e-6):
            y = x.copy()
            for i in range(100):
                y = 0.5 * y
                if np.max(y) < tol:
                    break
            return y, i
        """,
        "`i` is used after the loop", id="break-loop-index-used-after",
    ),
    pytest.param(
        """
        def f(x: np.ndarray, tol=1e-6):
            y = x.copy()
            for i in range(0, 100, 2):
                y = 0.5 * y
                if np.max(y) < tol:
                    break
            return y
        """,
        "not a loop over `range(n)` or `range(a, b)`", id="break-loop-with-a-step",
    ),
    pytest.param(
        """
        def f(x: np.ndarray, tol=1e-6):
            y = x.copy()
            it = 0
            while np.max(y) > tol:
                y = 0.5 * y
                it += 1
            return y[:it]
        """,
        "uses `it`, which jax.lax.while_loop makes a traced value", id="carried-counter-needed-as-a-python-value",
    ),
    pytest.param(
        """
        def f(x: np.ndarray, tol=1e-6):
            y = x.copy()
            while np.max(y) > tol:
                y = 0.5 * y
                print(np.max(y))
            return y
        """,
        "", id="side-effect-in-body",
    ),
    pytest.param(
        """
        def f(x: np.ndarray, tol=1e-6):
            y = x.copy()
            s = 1
            while np.max(y) > tol:
                y = 0.5 * y
                s /= 2
            return y, s
        """,
        "`s` may start as a Python value", id="int-start-true-division",
    ),
    pytest.param(
        """
        def f(x: np.ndarray, tol=1e-6):
            y = x.copy()
            while True:
                y = 0.5 * y
                if np.max(y) < 1.0:
                    if np.min(y) < tol:
                        break
            return y
        """,
        "`break` is not alone under one `if`", id="while-true-break-under-a-nested-if",
    ),
    pytest.param(
        """
        def f(x: np.ndarray, tol=1e-6):
            y = x.copy()
            while True:
                y = 0.5 * y
                if np.max(y) < tol:
                    break
                if np.min(y) < -1.0:
                    break
            return y
        """,
        "more than one `break`", id="while-true-two-breaks",
    ),
    pytest.param(
        """
        def f(x: np.ndarray, tol=1e-6):
            y = x.copy()
            while True:
                y = 0.5 * y
                if np.max(y) < tol:
                    break
                z = y + 1.0
            return y, z
        """,
        "`z` is first set after the `break` test", id="while-true-name-first-set-after-the-break",
    ),
    pytest.param(
        """
        def f(x: np.ndarray, tol=1e-6):
            y = x.copy()
            while True:
                if np.max(y) > 1.0:
                    z = 0.5 * y
                y = 0.5 * y
                if np.max(y) < tol:
                    break
            return y, z
        """,
        "`z` is first set after the `break` test (or only in some steps)", id="while-true-name-set-in-some-steps",
    ),
    pytest.param(
        """
        def f(x: np.ndarray, tol=1e-6):
            y = x.copy()
            err = 0
            while True:
                y = 0.5 * y
                if np.max(y) < tol:
                    break
                err = np.max(y)
            return y, err
        """,
        "`err` may start as a Python value", id="while-true-int-start-float-after-the-break",
    ),
    pytest.param(
        """
        def f(x: np.ndarray, tol=1e-6):
            y = x.copy()
            while True:
                y = 0.5 * y
                if np.max(y) < tol:
                    break
                print(np.max(y))
            return y
        """,
        "", id="while-true-side-effect",
    ),
    pytest.param(
        """
        def f(x: np.ndarray, tol=1e-6):
            y = x.copy()
            m = np.max(y)
            while True:
                y = 0.5 * y
                if np.max(m := 2 * y) < tol:
                    break
            return y, m
        """,
        "its test assigns a name (`:=`)", id="while-true-walrus-in-the-test",
    ),
]


@pytest.mark.parametrize("source, message", REFUSED)
def test_loops_that_stay_as_they_are_leave_the_function_unjitted(source, message):
    result = migrate("import numpy as np\n" + textwrap.dedent(source))
    found = outcome(result)["f"]
    assert found != jit() and "NPJ308" not in {d.code for d in result.diagnostics}, [d.format() for d in result.diagnostics]
    output = result.output.decode()
    assert "while_loop" not in output and "@jax.jit" not in output, output
    assert any(message in d.message for d in result.diagnostics if d.code in ("NPJ301", "NPJ302", "NPJ303", "NPJ304")), (
        [d.format() for d in result.diagnostics])


def test_loops_outside_jitted_functions_and_without_npj308_stay():
    source = LoopToWhile.EXAMPLES[0].source
    unjitted = migrate_source(source.encode(), "m.py", Options(jit=False))
    assert "while_loop" not in unjitted.output.decode() and "while jnp.max" in unjitted.output.decode()
    ignored = migrate_source(source.encode(), "m.py", Options(jit=True, ignore=("NPJ308",)))
    assert "while_loop" not in ignored.output.decode()
    assert any("NPJ308 is not enabled" in d.message for d in ignored.diagnostics)
    static = migrate("import numpy as np\n\ndef halvings(x, n: int):\n    k = 0\n    while n > 1:\n        n //= 2\n        k += 1\n    return x * k\n")
    assert "while_loop" not in static.output.decode()  # a Python test stays Python


# The rule's examples (newton_sqrt, jacobi, power_iteration, jacobi_until, fixed_point) and three more loops.
RUNTIME = "\n\n".join(example.source for example in LoopToWhile.EXAMPLES if "NPJ308" in example.diagnostics) + '''

def first_crossing(x: np.ndarray, level):
    total = np.zeros(())
    count = 0
    for i in range(x.shape[0]):
        total = total + np.sum(x[i])
        if total > level:
            break
        count += 1
    return total, count


def gradient_descent(scale, x0: np.ndarray, lr=0.1, tol=1e-6, max_iter=200):
    x = x0.copy()
    converged = False
    k = 0
    while not converged and k < max_iter:
        g = scale * x
        x = x - lr * g
        converged = np.linalg.norm(g) < tol
        k += 1
    return x, k, converged


def decaying_steps(scale, x0: np.ndarray, lr=0.5, tol=1e-6, max_iter=100):
    x = x0.copy()
    for i in range(max_iter):
        g = scale * x
        if np.linalg.norm(g) < tol:
            break
        x = x - lr / (1 + i) * g
    return x
'''

CALLS = '''
    ("newton_sqrt", (np.array([4.0, 9.0, 2.0]),)), ("newton_sqrt", (np.array([1.0, 1.0]),)),
    ("jacobi", (dominant, b)), ("jacobi", (dominant, np.zeros(5))), ("jacobi", (dominant, b, 1e-8, 3)),
    ("jacobi", (dominant, b, 1e-8, 0)), ("jacobi", (dominant, b, 1e-12)),
    ("power_iteration", (spd,)), ("power_iteration", (spd, 0)), ("power_iteration", (spd, 3)),
    ("power_iteration", (np.eye(3) * 2,)), ("power_iteration", (spd, 100, 1e9)),
    ("first_crossing", (rng.normal(size=8) + 1, 2.0)), ("first_crossing", (rng.normal(size=8), 100.0)),
    ("first_crossing", (np.ones(5), 0.5)), ("first_crossing", (np.zeros(0), 1.0)),
    ("gradient_descent", (0.5, rng.normal(size=3))), ("gradient_descent", (0.5, np.zeros(3))),
    ("gradient_descent", (0.5, rng.normal(size=3), 0.1, 1e-6, 4)),
    ("decaying_steps", (0.5, rng.normal(size=3))), ("decaying_steps", (0.5, np.zeros(3))),
    ("decaying_steps", (0.5, rng.normal(size=3), 0.5, 1e-6, 5)),
    ("fixed_point", (rng.normal(size=4), 1e-12)), ("fixed_point", (np.full(2, 0.7390851332151607), 1e-12)),
    ("fixed_point", (rng.normal(size=3), 10.0)),
    ("jacobi_until", (dominant, b, np.zeros(5))), ("jacobi_until", (dominant, b, np.zeros(5), 1e-8, 3)),
    ("jacobi_until", (dominant, b, np.zeros(5), 1e-5, 0)),
'''

COMPARE = '''
import sys
import numpy as np
import jax
jax.config.update("jax_enable_x64", True)
import jax.numpy as jnp

original, migrated = {}, {}
exec(open(sys.argv[1]).read(), original)
exec(open(sys.argv[2]).read(), migrated)
rng = np.random.default_rng(0)
M = rng.normal(size=(5, 5))
spd = M @ M.T + 5 * np.eye(5)
dominant = spd + np.diag(np.abs(spd).sum(1))
b = rng.normal(size=5)
calls = [CALLS]
for name, args in calls:
    want = original[name](*args)
    got = migrated[name](*(jnp.asarray(a) if isinstance(a, np.ndarray) else a for a in args))
    wants = want if isinstance(want, tuple) else (want,)
    gots = got if isinstance(got, tuple) else (got,)
    assert len(wants) == len(gots), name
    for w, g in zip(wants, gots):
        w, g = np.asarray(w), np.asarray(g)
        where = f"{name}{[np.shape(a) for a in args]}"
        assert g.shape == w.shape and g.dtype == w.dtype, (where, w.dtype, g.dtype, w.shape, g.shape)
        np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-12, err_msg=where)
print("compared", len(calls))
'''


def test_while_loops_run_under_jit_and_match_numpy_exactly(tmp_path):
    pytest.importorskip("jax")
    _compare(tmp_path, RUNTIME, CALLS, loops=8, compared=28)


# `while True` loops that stop at `if test: break`: the first step runs before the while_loop.
UNTIL = """
import numpy as np


def newton_counted(a: np.ndarray, tol=1e-10, max_iter=50):
    x = np.ones_like(a)
    it = 0
    while True:
        fx = x * x - a
        it += 1
        if np.max(np.abs(fx)) < tol or it >= max_iter:
            break
        x = x - fx / (2 * x)
    return x, fx, it


def bisect_sqrt(c: np.ndarray, tol=1e-9):
    lo = np.zeros_like(c)
    hi = np.maximum(c, 1.0)
    steps = 0
    while True:
        mid = 0.5 * (lo + hi)
        below = mid * mid < c
        lo = np.where(below, mid, lo)
        hi = np.where(below, hi, mid)
        steps += 1
        if np.max(hi - lo) < tol:
            break
    return mid, steps


def power_until(A: np.ndarray, tol=1e-9):
    v = np.ones(A.shape[0])
    lam = 0.0
    while True:
        w = A @ v
        new = np.linalg.norm(w)
        v = w / new
        if abs(new - lam) < tol:
            break
        lam = new
    return lam, new, v


def halve_until_small(x: np.ndarray, tol=1e-6):
    y = x.copy()
    k = 0
    while 1:
        if not np.linalg.norm(y) > tol:
            break
        y = 0.5 * y
        k += 1
    return y, k


def relax(y0: np.ndarray, tol=1e-6):
    y = y0.copy()
    n = y.shape[0]
    while True:
        old = y.copy()
        for i in range(1, n - 1):
            y[i] = 0.5 * (old[i - 1] + old[i + 1])
        y[0] = y[0] * 0.9
        if np.max(np.abs(y - old)) < tol:  # settled
            break
    return y


def shrink(x: np.ndarray, tol=1e-6):
    y = x.copy()
    s = 1.0
    while True:
        y = 0.5 * y
        s /= 2
        if np.max(np.abs(y)) < tol:
            break
    return y, s
"""

UNTIL_CALLS = """
    ("newton_counted", (np.array([4.0, 9.0, 2.0]),)), ("newton_counted", (np.ones(3),)),
    ("newton_counted", (np.array([4.0, 9.0]), 0.0)), ("newton_counted", (np.array([4.0, 9.0]), 1e-10, 1)),
    ("bisect_sqrt", (np.array([2.0, 3.0, 0.5]),)), ("bisect_sqrt", (np.array([2.0]), 10.0)),
    ("power_until", (spd,)), ("power_until", (np.eye(3) * 2,)), ("power_until", (spd, 1e9)),
    ("halve_until_small", (rng.normal(size=3),)), ("halve_until_small", (np.zeros(3),)),
    ("relax", (rng.normal(size=6),)), ("relax", (np.zeros(4),)), ("relax", (np.ones(2),)),
    ("shrink", (np.ones(2),)), ("shrink", (np.zeros(2),)),
"""


def test_while_true_loops_run_under_jit_and_match_numpy_exactly(tmp_path):
    pytest.importorskip("jax")
    _compare(tmp_path, UNTIL, UNTIL_CALLS, loops=6, compared=16)


def _compare(tmp_path, source: str, calls: str, loops: int, compared: int) -> None:
    """Migrate ``source`` (every function jitted, ``loops`` while_loops) and run its original and migrated
    functions on ``calls`` under x64 in a subprocess: the same values, dtypes and shapes."""
    result = migrate(source)
    output = result.output.decode()
    assert output.count("jax.lax.while_loop(") == loops, output
    assert all(record.jit for record in result.functions if "<locals>" not in record.qualname), output
    (tmp_path / "original.py").write_text(source)
    (tmp_path / "migrated.py").write_text(output)
    (tmp_path / "compare.py").write_text(COMPARE.replace("CALLS", calls))
    run = subprocess.run([sys.executable, str(tmp_path / "compare.py"), str(tmp_path / "original.py"), str(tmp_path / "migrated.py")],
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr
    assert f"compared {compared}" in run.stdout


RETURNING = """\
import numpy as np


def same_value(x0, tol=1e-3, max_iter=50):
    x = np.asarray(x0, dtype=float)
    for it in range(max_iter):
        x = np.cos(x)
        if np.max(np.abs(x - np.cos(x))) < tol:
            return x
    return x


def next_value(x0, tol=1e-3, max_iter=50):
    x = np.asarray(x0, dtype=float)
    for it in range(max_iter):
        x_new = np.cos(x)
        if np.max(np.abs(x_new - x)) < tol:
            return x_new
        x = x_new
    return x


def eigen(A, n_iter=50, tol=1e-6):
    v = np.ones(A.shape[0])
    lam = 0.0
    for _ in range(n_iter):
        w = A @ v
        lam_new = np.linalg.norm(w)
        v = w / lam_new
        if abs(lam_new - lam) < tol:
            return lam_new, v
        lam = lam_new
    return lam, v


def other_value(x0, tol=1e-3, max_iter=50):
    x = np.asarray(x0, dtype=float)
    for it in range(max_iter):
        x_new = np.cos(x)
        if np.max(np.abs(x_new - x)) < tol:
            return x
        x = x_new
    return x


def computed_after(x0, tol=1e-3, max_iter=50):
    x = np.asarray(x0, dtype=float)
    for it in range(max_iter):
        x_new = np.cos(x)
        if np.max(np.abs(x_new - x)) < tol:
            return x_new
        x = 0.5 * x_new
    return x


def more_after(x0, tol=1e-3, max_iter=50):
    x = np.asarray(x0, dtype=float)
    for it in range(max_iter):
        x = np.cos(x)
        if np.max(np.abs(x - np.cos(x))) < tol:
            return x
    x = x * 2
    return x
"""


def test_a_return_that_stops_a_loop_with_the_value_after_it_becomes_while_loop():
    """`for it in range(n): ...; if done: return v; S2` before `return w`: a while_loop when `v` is `w` (as at a
    `break`: S2's values are taken back on the step that stops, `other_value`) or S2's renamings make `w` `v`
    (the loop stops after S2); a value S2 computes, or code between the loop and its `return` keep the loop
    (NPJ303), and the function runs as NumPy's."""
    import jax
    import numpy as np

    from tests.runtime_helpers import migrate_and_exec

    result, original, new = migrate_and_exec(RETURNING)
    output = result.output.decode()
    jitted = {r.qualname: r.jit for r in result.functions}
    assert jitted == {"same_value": True, "next_value": True, "eigen": True, "other_value": True,
                      "computed_after": False, "more_after": False}, output
    assert output.count("jax.lax.while_loop(") == 4 and output.count("= jnp.where(_done, _kept_") == 1, output
    notes = [d.message for d in result.diagnostics if d.code == "NPJ308"]
    assert len(notes) == 4 and all("its `if ...: return` ending it" in note for note in notes), notes
    with jax.enable_x64(True):
        A = np.array([[2.0, 1.0], [1.0, 3.0]])
        x0 = np.array([0.5, 1.0, -2.0])
        for name, args in [(n, (x0, tol, steps)) for n in ("same_value", "next_value", "other_value", "computed_after",
                                                            "more_after")
                           for tol, steps in ((1e-3, 50), (1e-3, 0), (1e-3, 1), (10.0, 5), (1e-12, 7))] + [
                ("eigen", (A,)), ("eigen", (A, 0)), ("eigen", (A, 1)), ("eigen", (np.eye(2), 10, 1e-3)), ("eigen", (A, 50, 1e-12))]:
            want, got = original[name](*args), new[name](*args)
            for w, g in zip(want if isinstance(want, tuple) else (want,), got if isinstance(got, tuple) else (got,)):
                np.testing.assert_allclose(np.asarray(g), w, rtol=1e-12, err_msg=f"{name}{args[1:]}")
