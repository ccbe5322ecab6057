"""Conditionals on traced values into ``jax.lax.cond`` (NPJ306), or left un-jitted with the reason (NPJ301).

Each case is a module with one function ``f``: either it is jitted and contains
``conversions`` calls of ``jax.lax.cond``, or it keeps its ``if`` and NPJ301
says why.  The runtime tests execute migrated code under real ``jax.jit`` and
compare it with the NumPy original on inputs that take every branch.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import textwrap

import numpy as np
import pytest
from test_jit import jit, migrate, outcome

from np2jax.engine import Options, migrate_source


def converted(notes: int, calls: int | None = None):
    """Jitted, with ``notes`` NPJ306 conversions writing ``calls`` jax.lax.cond calls (an elif chain nests them)."""
    return {"f": jit(), "notes": notes, "calls": notes if calls is None else calls}


def flagged(reason: str, codes: tuple[str, ...] = ("NPJ301",)):
    return {"f": codes, "reason": reason}


COND_CASES = [
    pytest.param(
        """
        import numpy as np

        def f(x, lo):
            return x if x.max() < lo else np.minimum(x, lo)
        """,
        converted(1),
        id="expression-arrays-on-both-sides",
    ),
    pytest.param(
        """
        import numpy as np

        def f(x):
            s = np.max(x)
            if s > 1.0:
                return s * 2
            elif s > 0.0:
                return s
            return -s
        """,
        converted(1, calls=2),
        id="early-return-elif-and-the-return-after-it",
    ),
    pytest.param(
        """
        import numpy as np

        def f(x):
            m = np.mean(x)
            if m > 1.0:
                a = m * 2
                b = m
            elif m > 0.0:
                a = m
                b = m * 3
            else:
                b = -m
                a = m
            return a, b
        """,
        converted(1, calls=2),
        id="elif-chain-assigning-two-names-in-any-order",
    ),
    pytest.param(
        """
        import numpy as np

        def f(x):
            lo, hi = np.min(x), np.max(x)
            if lo < 0:
                lo, hi = hi, lo
            return lo, hi
        """,
        converted(1),
        id="swap-without-else",
    ),
    pytest.param(
        """
        import numpy as np

        def f(x, w=None):
            step = np.mean(x)
            if w is not None and np.any(w < 0):
                step = step * 0.5
            return x - step
        """,
        converted(1),
        id="static-left-operand-keeps-short-circuit",
    ),
    pytest.param(
        """
        import numpy as np

        def f(x):
            out = np.zeros_like(x)
            peak = np.zeros(())
            for t in range(1, x.shape[0]):
                if x[t] > peak:
                    peak = x[t] + 0.0 * peak
                out[t] = peak
            return out
        """,
        converted(1),
        id="inside-a-fori-loop",
    ),
    pytest.param(
        """
        import numpy as np

        def f(x):
            return x if np.sum(x) > 0 else 0.0
        """,
        flagged("may not be 0-d"),
        id="python-float-beside-a-vector",
    ),
    pytest.param(
        """
        import numpy as np

        def f(x):
            k = np.argmax(x)
            return k if k > 2 else 0
        """,
        flagged("cannot tell is a float"),
        id="python-int-beside-an-int-array",
    ),
    pytest.param(
        """
        import numpy as np

        def f(x):
            return x if np.sum(x) > 0 else np.sum(x)
        """,
        flagged("may not be 0-d like"),
        id="array-beside-a-0-d-array",
    ),
    pytest.param(
        """
        import numpy as np

        def f(x):
            best = None
            if np.max(x) > 0:
                best = np.max(x)
            return best
        """,
        flagged("may be None"),
        id="name-that-may-be-none",
    ),
    pytest.param(
        """
        import numpy as np

        def f(x):
            m = np.mean(x)
            if m > 0:
                a = m * 2
                b = a + 1
            else:
                a = m
                b = m
            return a, b
        """,
        flagged("reads `a` after assigning it"),
        id="branch-reads-what-it-assigned",
    ),
    pytest.param(
        """
        import numpy as np

        def f(x):
            s = np.sum(x)
            y = x.copy()
            if s > 0:
                y[0] = s
            return y
        """,
        converted(1),  # y = jax.lax.cond(s > 0, lambda: y.at[0].set(s), lambda: y)
        id="write-in-a-branch",
    ),
    pytest.param(
        """
        import numpy as np

        def f(x):
            s = np.sum(x)
            y = x.copy()
            if s > 0:
                y[0] = s
                print(s)
            return y
        """,
        flagged("do more than assign", ("NPJ301", "NPJ302")),
        id="write-and-a-call-in-a-branch",
    ),
    pytest.param(
        """
        import numpy as np

        def f(x):
            def noise():
                return np.sum(x)

            s = np.sum(x)
            y = noise() if s > 0 else s
            return y
        """,
        flagged("free of side effects", ("NPJ301", "NPJ304")),  # NPJ304: noise() runs as part of f, not jitted
        id="call-with-side-effects-in-a-branch",
    ),
    pytest.param(
        """
        import numpy as np

        def f(x):
            parts = [np.max(x)]
            if parts:
                return x
            return -x
        """,
        flagged("a list's truth value"),
        id="truth-of-a-list",
    ),
    pytest.param(
        """
        import numpy as np

        def f(x, vals):
            m = np.max(x)
            if m in vals:
                return m
            return -m
        """,
        flagged("`in`/`is` test"),
        id="in-test",
    ),
    pytest.param(
        """
        import numpy as np

        def f(x):
            for i in range(len(x)):
                if np.sum(x) > i:
                    return x[i]
                x = x * 2
            return np.sum(x)
        """,
        flagged("something other than a `return` follows", ("NPJ301", "NPJ303")),
        id="early-return-inside-a-loop",
    ),
    pytest.param(
        """
        import numpy as np

        def f(x):
            m = np.mean(x)
            y = m if m > 0 else (m * 2 if m > -1 else "low")
            return y
        """,
        flagged("may be None or a string"),
        id="nested-conditional-with-a-string",
    ),
    pytest.param(
        """
        import numpy as np

        def f(x, scale=1.0):
            m = np.mean(x)
            return m if m > scale else scale
        """,
        converted(1),
        id="float-array-beside-a-float-default",
    ),
    pytest.param(
        """
        import numpy as np

        def f(x):
            y = x - 1
            return y if np.max(x) > 0 else x[::-1]
        """,
        converted(1),
        id="both-branches-keep-the-parameters-dtype",
    ),
    pytest.param(
        """
        import numpy as np

        def f(z):
            z_arr = np.asarray(z)
            if np.all(np.iscomplex(z_arr)):
                return np.where(np.real(z_arr) >= 0, z_arr, -z_arr)
            return np.abs(z_arr)
        """,
        flagged("absolute value or real part"),  # complex z: one branch complex, the other real (numdifftools' c_abs)
        id="a-parameters-dtype-and-its-absolute-value-may-differ",
    ),
    pytest.param(
        """
        import numpy as np

        def f(x):
            return np.abs(x) if np.max(x) > 0 else np.abs(x - 1)
        """,
        converted(1),
        id="absolute-values-on-both-sides",
    ),
    pytest.param(
        """
        import numpy as np

        def f(x):
            m = np.median(np.abs(x - np.median(x)))
            if m == 0:
                return np.zeros_like(x, dtype=float)
            return 0.6745 * (x - np.median(x)) / m
        """,
        flagged("explicit dtype"),  # under x64 a float32 x gives a float64 and a float32 branch: lax.cond raises
        id="an-explicit-float64-branch-and-an-input-width-branch",
    ),
    pytest.param(
        """
        import numpy as np

        def f(counts):
            n = counts.sum()
            if n == 0:
                return np.zeros_like(counts)
            return counts / n
        """,
        flagged("has the dtype of `counts`"),  # int counts: an int and a float branch, which lax.cond refuses (hunt14 L2)
        id="a-zeros-like-branch-and-a-division",
    ),
    pytest.param(
        """
        import numpy as np

        def f(x):
            if x.max() == 0:
                return np.zeros_like(x)
            return x * 2
        """,
        converted(1),  # both branches have the dtype of x
        id="a-zeros-like-branch-and-a-product-keep-the-dtype",
    ),
    pytest.param(
        """
        import numpy as np

        def f(x):
            xmax = np.max(np.abs(x))
            if xmax == 0:
                xmax = 1e-15
            return x / xmax
        """,
        # real32 L1 (similaritymeasures): an int `x` gives an int `xmax` beside the float branch, which lax.cond refused
        flagged("has the dtype of `x`"),
        id="a-float-beside-the-absolute-maximum-of-a-parameter",
    ),
]


@pytest.mark.parametrize("source, expected", COND_CASES)
def test_conditional_decisions(source, expected):
    check_decision(source, expected)


def check_decision(source: str, expected: dict) -> None:
    """``expected``: outcome() per function, plus ``notes``/``calls`` (NPJ306 notes, jax.lax.cond calls), ``reason``
    (in an NPJ301's "not converted" message) and ``error`` (a code among the diagnostics)."""
    expected = dict(expected)
    notes, calls = expected.pop("notes", 0), expected.pop("calls", 0)
    reason, error = expected.pop("reason", None), expected.pop("error", None)
    result = migrate(source)
    assert error is None or error in {d.code for d in result.diagnostics}
    output = result.output.decode()
    found = outcome(result)
    assert {k: v for k, v in found.items() if "<locals>" not in k} == expected, [d.format() for d in result.diagnostics]
    assert output.count("jax.lax.cond(") == calls, output
    assert sum(d.code == "NPJ306" for d in result.diagnostics) == notes
    if reason is not None:
        messages = [d.message for d in result.diagnostics if d.code == "NPJ301"]
        assert any(reason in m and "not converted to jax.lax.cond" in m for m in messages), messages


COND_RUNTIME = """
import numpy as np

EPS = 1e-6

def shrink(x, lo):
    return x if x.max() < lo else np.minimum(x, lo)

def pseudo_huber_step(r, delta):
    worst = np.max(np.abs(r))
    if worst > delta:
        scale = delta / worst
        clipped = np.clip(r, -delta, delta)
    else:
        clipped = r
        scale = 1.0 + 0.0 * worst
    return clipped * scale, scale

def relu_mean(x):
    m = np.mean(x)
    if m > 0:
        return m
    return 0.0

def band(x, lo, hi):
    m = np.median(x)
    if lo < m < hi:
        y = 1.0
    elif m >= hi:
        y = 2.0
    else:
        y = 0.0
    return x * y

def nonzero_truth(x):
    if np.sum(x):
        return x * 2
    return x

def negated(x):
    s = np.linalg.norm(x)
    if not np.isfinite(s) or s > 10.0:
        step = 1.0 / (s + EPS)
    else:
        step = 1.0
    return x * step

def guarded(x, w=None):
    step = np.mean(x)
    if w is not None and np.any(w < 0):
        step = step * 0.5
    return x - step

def running_peak(x):
    out = np.zeros_like(x)
    peak = np.zeros(())
    for t in range(1, x.shape[0]):
        if x[t] > peak:
            peak = x[t] + 0.0 * peak
        out[t] = peak
    return out

def ordered(x):
    lo, hi = np.min(x), np.max(x)
    if lo < 0:
        lo, hi = hi, lo
    return lo, hi
"""


def test_converted_conditionals_run_under_jit_and_match_numpy():
    jax = pytest.importorskip("jax")
    jnp = pytest.importorskip("jax.numpy")
    result = migrate(COND_RUNTIME)
    output = result.output.decode()
    names = [r.qualname for r in result.functions if "<locals>" not in r.qualname]
    assert all(r.jit for r in result.functions if r.qualname in names), output
    # every `if` became jax.lax.cond; what remains is the guard of a converted loop (`if 1 < x.shape[0]:`)
    unguarded = re.sub(r"\n\s*if \S+ < [^\n]+:\n", "\n", output)
    # 0-d branches where a Python number meets an array become jnp.where (relu_mean, negated); the rest jax.lax.cond
    # (a static left operand of `and` stays a Python conditional around the cond: guarded)
    unguarded = unguarded.replace(" if w is not None else step)", ")")
    assert output.count("jax.lax.cond(") == 8 and " if " not in unguarded.replace("if __name__", ""), output
    assert "return jnp.where(m > 0, m, 0.0)" in output and "1.0 / (s + EPS), 1.0)" in output, output
    original, migrated = {}, {}
    exec(compile(COND_RUNTIME, "original.py", "exec"), original)
    exec(compile(result.output, "migrated.py", "exec"), migrated)
    x = np.linspace(-1.0, 2.0, 7).astype(np.float32)
    calls = [
        ("shrink", (x, 0.5)), ("shrink", (x, 5.0)),
        ("pseudo_huber_step", (x, 0.1)), ("pseudo_huber_step", (x, 50.0)),
        ("relu_mean", (x,)), ("relu_mean", (-x,)),
        ("band", (x, 0.0, 1.0)), ("band", (x, -5.0, 0.2)), ("band", (x, -5.0, -2.0)),
        ("nonzero_truth", (x,)), ("nonzero_truth", (np.zeros(3, np.float32),)),
        ("nonzero_truth", (np.array([np.nan, 1.0], np.float32),)),  # NaN is true, in Python as in `!= 0`
        ("negated", (x,)), ("negated", (x * 100,)), ("negated", (np.array([np.inf, 1.0], np.float32),)),
        ("guarded", (x,)), ("guarded", (x, x)), ("guarded", (x, -x)),
        ("running_peak", (np.sin(np.arange(20)).astype(np.float32),)),
        ("ordered", (x,)), ("ordered", (x + 2,)),
    ]
    for name, args in calls:
        assert isinstance(migrated[name], jax.stages.Wrapped) or hasattr(migrated[name], "lower"), name
        with np.errstate(all="ignore"):
            want = original[name](*args)
        got = migrated[name](*(jnp.asarray(a) if isinstance(a, np.ndarray) else a for a in args))
        for w, g in zip(want if isinstance(want, tuple) else (want,), got if isinstance(got, tuple) else (got,)):
            assert np.shape(g) == np.shape(w), name
            np.testing.assert_allclose(np.asarray(g), w, rtol=1e-5, atol=1e-6, err_msg=f"{name}{args}")


def test_flagged_conditionals_stay_python_and_would_differ_as_jnp_where():
    """What `jnp.where` would do to the cases left alone: a shape or dtype NumPy never returns."""
    jnp = pytest.importorskip("jax.numpy")
    source = """
    import numpy as np

    def gate(x):
        return x if np.sum(x) > 0 else 0.0

    def pick(x):
        k = np.argmax(x)
        return k if k > 2 else 0.5
    """
    result = migrate(source)
    output = result.output.decode()
    assert "jax.lax.cond" not in output and "@jax.jit" not in output, output
    original = {}
    exec(compile(textwrap.dedent(source), "original.py", "exec"), original)
    x = np.array([-3.0, 1.0, 0.5], np.float32)
    assert original["gate"](x) == 0.0 and np.shape(jnp.where(np.sum(x) > 0, x, 0.0)) == (3,)
    y = np.array([0.0, 1.0, 2.0, 3.0], np.float32)
    assert original["pick"](y) == 3 and jnp.where(3 > 2, jnp.int32(3), 0.5).dtype.kind == "f"


def test_comments_in_branches_move_above_the_new_statement():
    result = migrate(
        """
        import numpy as np

        def f(x):
            m = np.mean(x)
            # choose the scale
            if m > 0:  # positive
                s = m  # as is
            else:
                # flipped
                s = -m
            return x / s
        """
    )
    body = result.output.decode().split("def f(x):\n")[1]
    assert body.splitlines()[:2] == ["    x = jnp.asarray(x)", "    m = jnp.mean(x * 1.0)"]
    assert body.splitlines()[2:7] == [
        "    # choose the scale",
        "    # positive",
        "    # as is",
        "    # flipped",
        "    s = jax.lax.cond(m > 0, lambda: m, lambda: -m)",
    ], body


def test_a_conditional_expression_with_comments_between_its_parts_is_not_converted():
    """Those comments belong to the expression's own whitespace: the lax.cond call has nowhere to keep them."""
    source = """
        import numpy as np

        def f(x, t):
            s = np.sum(x)
            y = (s  # the sum
                 if s > t  # big
                 else -s)  # small
            return y

        def g(x, t):
            s = np.sum(x)
            y = ((s  # kept inside the branch
                  ) if s > t else -s)
            return y
        """
    result = migrate(source)
    output = result.output.decode()
    for comment in ("# the sum", "# big", "# small", "# kept inside the branch"):
        assert comment in output
    assert outcome(result)["f"] == ("NPJ301",) and "comment" in next(d.message for d in result.diagnostics if d.code == "NPJ301")
    assert outcome(result)["g"] == jit()


def test_notes_point_at_each_converted_conditional():
    result = migrate(
        """
        import numpy as np

        def f(x):
            m = np.mean(x)
            if m > 0:
                return m
            return np.abs(m) if m < -1 else 0.0
        """
    )
    notes = sorted((d.line, d.col, d.end_col) for d in result.diagnostics if d.code == "NPJ306")
    assert notes == [(5, 5, 7), (7, 12, 40)], [d.format() for d in result.diagnostics]


def test_a_reverted_function_drops_the_conversion_and_its_notes():
    source = b"import numpy as np\n\ndef f(x):\n    m = np.mean(x)\n    x[0] = 1.0\n    return m if m > 0 else -m\n"
    result = migrate_source(source, "m.py")
    assert result.output == source
    assert {d.code for d in result.diagnostics} == {"NPJ201"}, [d.format() for d in result.diagnostics]


@pytest.mark.parametrize("options", [Options(ignore=frozenset({"NPJ306"})), Options(select=frozenset({"NPJ300", "NPJ301"}))])
def test_without_npj306_a_traced_conditional_blocks_jit(options):
    source = b"import numpy as np\n\ndef f(x):\n    m = np.mean(x)\n    return m if m > 0 else -m\n"
    result = migrate_source(source, "m.py", options)
    assert b"jax.lax.cond" not in result.output and b"@jax.jit" not in result.output
    if "NPJ301" in {d.code for d in result.diagnostics}:
        (message,) = [d.message for d in result.diagnostics if d.code == "NPJ301"]
        assert "NPJ306 is not enabled" in message


def test_no_jit_converts_nothing():
    source = b"import numpy as np\n\ndef f(x):\n    m = np.mean(x)\n    return m if m > 0 else -m\n"
    result = migrate_source(source, "m.py", Options(jit=False))
    assert b"jax.lax.cond" not in result.output and not result.diagnostics


def test_branches_of_data_dependent_dtype_kind_stay_python_and_match_numpy():
    """`s = 1` / `s = -1.5` and `x / x.max()` / `x`: NumPy's result kind follows the branch taken. As
    jax.lax.cond the first came out float for int `x` (silently), the second raised for int `x`."""
    jax = pytest.importorskip("jax")
    jnp = pytest.importorskip("jax.numpy")
    source = """
    import numpy as np

    def cond_mixed(x):
        if np.sum(x) > 0:
            s = 1
        else:
            s = -1.5
        return x * s

    def cond_return(x):
        if np.max(x) > 1.0:
            return x / np.max(x)
        return x
    """
    result = migrate(source)
    assert "jax.lax.cond" not in result.output.decode() and not any(r.jit for r in result.functions)
    reasons = " ".join(d.message for d in result.diagnostics if d.code in ("NPJ301", "NPJ304"))
    assert "a branch is an int and another a float" in reasons and "another is `x` as given" in reasons, reasons
    original, migrated = {}, {}
    exec(compile(textwrap.dedent(source), "original.py", "exec"), original)
    exec(compile(result.output, "migrated.py", "exec"), migrated)
    for name, x in [("cond_mixed", np.array([1, 2])), ("cond_mixed", np.array([-1, -2])),
                    ("cond_return", np.array([0, 1])), ("cond_return", np.array([1, 4]))]:
        want, got = original[name](x), migrated[name](jnp.asarray(x))
        assert np.asarray(got).dtype.kind == np.asarray(want).dtype.kind, (name, x)
        np.testing.assert_allclose(np.asarray(got), want)
    with pytest.raises(TypeError):  # what the conversion gave for int `x`
        jax.jit(lambda x: jax.lax.cond(x.max() > 1.0, lambda: x / x.max(), lambda: x))(jnp.array([0, 1]))


X64_SELECT = """\
import numpy as np


def dispersion(counts):
    mean = counts.mean()
    if mean == 0:
        return 1.0
    return np.mean((counts - mean) ** 2) / mean


def soft(x, lam: float):
    m = np.mean(x)
    return m - lam if m > lam else (m + lam if m < -lam else 0.0)


def pair(x):
    s = x.mean()
    if s > 1.0:
        lo, hi = s, 2.0
    else:
        lo, hi = 0.5, s * 2
    return lo, hi
"""

_X64_RUN = r"""
import json, sys
import numpy as np
import jax.numpy as jnp
source, migrated = sys.stdin.read().split("#---#")
original, new = {}, {}
exec(source, original)
exec(migrated, new)
found = []
for name, args in [("dispersion", (np.zeros(4, np.float32),)), ("dispersion", (np.arange(5, dtype=np.float32),)),
                   ("soft", (np.ones(3, np.float32), 0.5)), ("soft", (np.zeros(3, np.float32), 0.5)),
                   ("soft", (-np.ones(3, np.float32), 0.25)), ("pair", (np.ones(3, np.float32),)),
                   ("pair", (np.full(3, 0.1, np.float32),))]:
    want = original[name](*args)
    got = new[name](*[jnp.asarray(a) if isinstance(a, np.ndarray) else a for a in args])
    found.append([name, bool(np.allclose(np.asarray(got, dtype=np.float64), np.asarray(want, dtype=np.float64), rtol=1e-6))])
print(json.dumps(found))
"""


def test_number_beside_float32_scalar_becomes_where_and_runs_under_x64():
    """`return 1.0` beside a float32 0-d result: jax.lax.cond would refuse a float64 number under x64, jnp.where
    promotes it to float32 as NumPy does."""
    result = migrate(X64_SELECT)
    output = result.output.decode()
    assert all(r.jit for r in result.functions), output
    assert "jnp.where(mean == 0, 1.0, jnp.mean((counts - mean) ** 2) / mean)" in output or \
        "jnp.where(mean == 0, 1.0," in output, output
    assert "lo, hi = (jnp.where(s > 1.0, s, 0.5), jnp.where(s > 1.0, 2.0, s * 2))" in output, output
    env = {**os.environ, "JAX_ENABLE_X64": "1", "JAX_PLATFORMS": "cpu"}
    completed = subprocess.run([sys.executable, "-c", _X64_RUN], input=X64_SELECT + "#---#" + output, text=True,
                               capture_output=True, env=env, timeout=300)
    assert completed.returncode == 0, completed.stderr
    found = json.loads(completed.stdout.strip().splitlines()[-1])
    assert len(found) == 7 and all(ok for _, ok in found), found


def test_static_left_operand_of_and_keeps_python_short_circuit_around_the_cond():
    """`if w is not None and np.sum(w) > 0: x = x * w` (redteam9 L-03): jax.lax.cond traces both branches, so with
    `w` None `x * w` raised; the static part stays a Python conditional around the cond."""
    source = textwrap.dedent("""\
        import numpy as np


        def weight(x, w=None):
            if w is not None and np.sum(w) > 0:
                x = x * w
            return x


        def either(x, flag: bool = False):
            return x * 2 if flag or x.sum() > 0 else x
        """)
    result = migrate_source(source.encode(), "w.py", Options())
    output = result.output.decode()
    assert all(r.jit for r in result.functions), output
    assert "x = (jax.lax.cond(jnp.sum(w) > 0, lambda: x * w, lambda: x) if w is not None else x)" in output, output
    original, new = {}, {}
    exec(compile(source, "o.py", "exec"), original)
    exec(compile(output, "m.py", "exec"), new)
    x = np.arange(1.0, 4.0, dtype=np.float32)
    for args in [(x,), (x, np.full(3, 2.0, np.float32)), (x, -np.ones(3, np.float32))]:
        np.testing.assert_allclose(np.asarray(new["weight"](*args)), original["weight"](*args))
    for args in [(x,), (-x,), (-x, True)]:
        np.testing.assert_allclose(np.asarray(new["either"](*args)), original["either"](*args))


def test_an_in_place_helper_called_in_a_branch_is_an_assignment_of_its_argument():
    """`if np.sum(w) > 0: _fill_last(p)` (redteam9 FP-01): the call becomes `p = _fill_last(p)` (NPJ203), which a
    second pass turned into jax.lax.cond: NPJ202 "fixed point" kept both functions NumPy. Now in one pass."""
    source = textwrap.dedent("""\
        import numpy as np


        def _fill_last(x):
            x[-1] = np.mean(x[:-1])


        def pipeline_cond(w):
            p = np.abs(w) + 1.0
            if np.sum(w) > 0:
                _fill_last(p)
            return p
        """)
    result = migrate_source(source.encode(), "p.py", Options())
    output = result.output.decode()
    assert "NPJ202" not in {d.code for d in result.diagnostics} and all(r.jit for r in result.functions), output
    assert "p = jax.lax.cond(jnp.sum(w) > 0, lambda: _fill_last(p), lambda: p)" in output
    assert migrate_source(result.output, "p.py", Options()).output == result.output
    original, new = {}, {}
    exec(compile(source, "o.py", "exec"), original)
    exec(compile(output, "m.py", "exec"), new)
    for w in (np.array([1.0, 2.0, 3.0], np.float32), np.array([-1.0, -2.0, 0.5], np.float32)):
        np.testing.assert_allclose(np.asarray(new["pipeline_cond"](w)), original["pipeline_cond"](w))


def test_python_float_beside_a_sum_of_unknown_kind_stays_python():
    """redteam10 S-01: `t = x.sum(); if t < 0: return 0.5; return t` became jnp.where, which made an int64 sum a
    float32 silently (16777219 -> 16777220.0); as jax.lax.cond it raised for an int `x`. NumPy returns an int or a
    float depending on the branch taken, which no jitted function can: the `if` stays, and the function runs as NumPy's."""
    jnp = pytest.importorskip("jax.numpy")
    source = "import numpy as np\n\n\ndef f(x):\n    t = x.sum()\n    if t < 0:\n        return 0.5\n    return t\n"
    result = migrate_source(source.encode(), "f.py", Options())
    output = result.output.decode()
    assert "if t < 0:" in output and "jax.lax.cond" not in output and not result.functions[0].jit, output
    assert "`t` has the dtype of `x`" in " ".join(d.message for d in result.diagnostics if d.code in ("NPJ301", "NPJ304"))
    original, migrated = {}, {}
    exec(compile(source, "o.py", "exec"), original)
    exec(compile(output, "m.py", "exec"), migrated)
    for x in (np.array([16777219, 0]), np.array([-3, 1]), np.array([2.5, -0.5], dtype=np.float32)):
        want, got = original["f"](x), migrated["f"](jnp.asarray(x))
        assert np.asarray(got).dtype.kind == np.asarray(want).dtype.kind and np.asarray(got) == want, (x, got, want)


def test_a_name_a_branch_leaves_alone_has_the_kind_of_its_value_before_the_if():
    """`m = x.max(); if m > 10: m = m * 0.5` is an int or a float for an int `x` (redteam9 L-01: jax.lax.cond raised);
    after `m = np.mean(x)` both branches are floats, and the conversion stays."""
    source = textwrap.dedent("""\
        import numpy as np


        def half_if_big(x):
            m = x.max()
            if m > 10:
                m = m * 0.5
            return m


        def half_if_big_mean(x):
            m = x.max()
            m = np.mean(x)
            if m > 10:
                m = m * 0.5
            return m
        """)
    result = migrate_source(source.encode(), "h.py", Options())
    output = result.output.decode()
    assert [r.jit for r in result.functions] == [False, True], output
    assert "m = jax.lax.cond(m > 10, lambda: m * 0.5, lambda: m)" in output, output
    reasons = " ".join(d.message for d in result.diagnostics if d.code in ("NPJ301", "NPJ304"))
    assert "`x.max()` has the dtype of `x`" in reasons, reasons


def test_not_around_a_static_left_operand_keeps_python_short_circuit():
    """redteam10 L-01: `if not (w is None or w.sum() <= 0)` traced `w.sum()` with `w` None inside jax.lax.cond."""
    source = textwrap.dedent("""\
        import numpy as np


        def scaled(s, w=None):
            s = np.mean(s)
            if not (w is None or w.sum() <= 0):
                s = s / w.sum()
            return s


        def weighted_mean(x, w=None):
            if not (w is not None and w.sum() > 0):
                return x.mean()
            return (x * w).sum() / w.sum()
        """)
    result = migrate_source(source.encode(), "n.py", Options())
    output = result.output.decode()
    assert all(r.jit for r in result.functions), output
    original, new = {}, {}
    exec(compile(source, "o.py", "exec"), original)
    exec(compile(output, "m.py", "exec"), new)
    x = np.arange(1.0, 5.0, dtype=np.float32)
    for name in ("scaled", "weighted_mean"):
        for args in [(x,), (x, np.full(4, 0.5, np.float32)), (x, -np.ones(4, np.float32))]:
            np.testing.assert_allclose(np.asarray(new[name](*args)), original[name](*args), rtol=1e-6)


def test_branches_of_a_parameter_and_its_promotion_with_another_are_not_converted():
    """real17 L1 (hankel): `np.ones_like(x) if c else np.array(x ** p)` became jax.lax.cond, which raised TypeError
    for an int `x` and a float `p` (int32 beside float32 branches), where NumPy returns either. Not converted
    (NPJ301); branches of one parameter's dtype still are."""
    source = textwrap.dedent("""\
        import numpy as np


        def power(x, p):
            return np.ones_like(x) if np.all(x == 0) else np.array(x ** p)


        def doubled(x):
            return np.zeros_like(x) if np.all(x == 0) else x * 2
        """)
    result = migrate_source(source.encode(), "p.py", Options())
    records = {r.qualname: r for r in result.functions}
    assert not records["power"].jit and records["doubled"].jit, result.output.decode()
    reasons = [d.message for d in result.diagnostics if d.code == "NPJ301"]
    assert any("promotes `p` and `x`" in reason for reason in reasons), reasons
    namespace: dict = {}
    exec(compile(result.output, "m.py", "exec"), namespace)
    x = np.arange(4)
    np.testing.assert_allclose(np.asarray(namespace["power"](x, 0.5)), np.array(x ** 0.5), rtol=1e-6)
    np.testing.assert_array_equal(np.asarray(namespace["doubled"](x)), x * 2)


def test_a_python_number_beside_an_array_takes_their_common_dtype():
    """hunt26 L1: `if cmax == 0: return np.inf` beside `return courant * dx / cmax` (dx maybe an array, so not
    jnp.where): under x64 jax.lax.cond refused the float64 number beside the float32 branch; the number now
    gets the dtype the two promote to, and the results agree with NumPy with x64 off and on."""
    import jax

    from tests.test_real_code_regressions import migrated_pair

    result, original, migrated = migrated_pair(
        """
        import numpy as np

        def cfl_dt(c, dx, courant=0.9):
            cmax = np.max(np.abs(c))
            if cmax == 0:
                return np.inf
            return courant * dx / cmax

        def fallback(x, n):
            s = np.sum(x)
            return -1 if s < 0 else s * n
        """
    )
    output = result.output.decode()
    assert "lambda: jnp.asarray(np.inf, jnp.result_type(np.inf, courant * dx / cmax))" in output
    for x64 in (False, True):
        with jax.enable_x64(x64):
            for c in (np.array([0.5, -2.0], np.float32), np.zeros(2, np.float32), np.array([1.0, 3.0])):
                got, want = migrated.cfl_dt(c, 0.1), original.cfl_dt(c, 0.1)
                np.testing.assert_allclose(np.asarray(got), want, rtol=1e-6)
                assert np.asarray(got).dtype == (c.dtype if x64 else np.float32)
            for x in (np.array([1.5, 2.0], np.float32), np.array([-3.0, 1.0], np.float32)):
                np.testing.assert_allclose(np.asarray(migrated.fallback(x, 2.0)), original.fallback(x, 2.0), rtol=1e-6)


def test_a_name_that_starts_as_a_python_number_gets_the_promoted_dtype_in_a_cond():
    """hunt34 L4: `best = 0; if x.max() > best: best = x.max()` became a jax.lax.cond whose branches were a weak
    int and a float32 array, which raises; the branch leaving `best` alone now casts it to the dtype the two
    promote to with JAX's default int (a running maximum in a fori_loop, whose first step runs before the loop,
    too): a float or default-int branch's dtype; beside narrow ints it still raises."""
    from tests.test_real_code_regressions import migrated_pair

    result, original, migrated = migrated_pair(
        """
        import numpy as np

        def clip_low(x):
            best = 0
            if x.max() > best:
                best = x.max()
            return np.zeros(3) + best

        def running_max(x):
            best = 0
            out = np.zeros(len(x))
            for i in range(len(x)):
                if x[i] > best:
                    best = x[i]
                out[i] = best
            return out
        """
    )
    assert "lambda: jnp.asarray(best, jnp.result_type(jnp.int_, x.max()))" in result.output.decode()
    for x in (np.array([-1.0, 3.0, 2.0, 5.0], np.float32), np.array([-4.0, -2.0]), np.array([3, 1, 4], np.int32)):
        for name in ("clip_low", "running_max"):
            np.testing.assert_allclose(np.asarray(getattr(migrated, name)(x)), getattr(original, name)(x), rtol=1e-6)
    # hunt35 S2: beside uint8 data the int would become uint8, and `best - 1` wrap to 255 where NumPy gives -1: the
    # cond raises instead, as it did before
    with pytest.raises(TypeError):
        migrated.clip_low(np.zeros(4, np.uint8))
