"""Loops that fill a list one value per step become ``jax.lax.scan`` (NPJ307), or stay Python loops with NPJ303.

Decision cases assert what happens to each function (and that a second run changes nothing);
the runtime tests execute the migrated module under ``jax.jit`` and compare with NumPy.
"""

from __future__ import annotations

import textwrap

import numpy as np
import pytest

from np2jax.config import Options
from np2jax.engine import migrate_source
from tests.test_jit import jit, migrate, outcome

SCAN_CASES = [
    pytest.param(
        """
        import numpy as np

        def f(x, alpha):
            h = np.zeros(x.shape[1])
            hs = []
            for row in x:
                h = alpha * row + (1 - alpha) * h
                hs.append(h)
            return np.stack(hs)
        """,
        {"f": jit()},
        id="rows-carried-and-collected",
    ),
    pytest.param(
        """
        import numpy as np

        def f(x):
            ys = []
            zs = []
            for t in range(1, x.shape[0]):
                ys.append(x[t] - x[t - 1])
                zs.append(np.abs(x[t]))
            return np.stack(ys, axis=0).sum(0), np.stack(zs)
        """,
        {"f": jit()},
        id="two-lists-nothing-carried",
    ),
    pytest.param(
        """
        import numpy as np

        def f(a, v: np.ndarray, steps: int):
            vs = []
            for _ in range(steps):
                v = a @ v
                v = v / np.linalg.norm(v)
                vs.append(v)
            return np.stack(vs)
        """,
        {"f": jit(2)},
        id="index-unused-static-trip-count",
    ),
    pytest.param(
        """
        import numpy as np

        def f(x: np.ndarray):
            ys = []
            for t in range(20):
                ys.append(x * (t + 1.0))
            return np.array(ys)
        """,
        {"f": jit()},
        id="np-array-of-a-loop-that-surely-runs",
    ),
    pytest.param(
        """
        import numpy as np

        def f(x):
            ys = []
            for i in range(4):
                ys.append(x * i)
            return np.stack(ys)
        """,
        {"f": jit(), "converted": False},
        id="short-static-loop-stays-unrolled",
    ),
    pytest.param(
        """
        import numpy as np

        def f(x):
            h = np.zeros(x.shape[1])
            hs = []
            for row in x:
                h = h + row
                hs.append(h)
            return hs
        """,
        {"f": ("NPJ303",)},
        id="list-returned",
    ),
    pytest.param(
        """
        import numpy as np

        def f(x: np.ndarray):
            hs = []
            for row in x:
                hs.append(row * 2)
            return np.stack(hs), len(hs)
        """,
        {"f": ("NPJ303",)},
        id="len-of-the-list",
    ),
    pytest.param(
        """
        import numpy as np

        def f(x: np.ndarray):
            hs = []
            for row in x:
                if row.shape[0] > 2:
                    hs.append(row)
            return np.stack(hs)
        """,
        {"f": ("NPJ303",)},
        id="append-inside-if",
    ),
    pytest.param(
        """
        import numpy as np

        def f(x):
            hs = []
            for t in range(x.shape[0]):
                hs.append(x[t] * 2)
                if t > 5:
                    break
            return np.stack(hs)
        """,
        {"f": ("NPJ303",)},
        id="break",
    ),
    pytest.param(
        """
        import numpy as np

        def f(x):
            hs = []
            for t in range(x.shape[0]):
                hs.append(t * 0.5)
            return x * np.stack(hs)
        """,
        {"f": ("NPJ303",)},
        id="python-number-appended",
    ),
    pytest.param(
        """
        import numpy as np

        def f(x):
            hs = []
            for t in range(x.shape[0]):
                hs.append(x[t] * np.abs(t - 3))
            return np.stack(hs)
        """,
        {"f": ("NPJ303",)},
        id="numpy-call-on-the-index-would-stay-numpy",
    ),
    pytest.param(
        """
        import numpy as np

        def f(x):
            hs = []
            for t in range(x.shape[0]):
                hs.append((x[t], x[t] * 2))
            return np.stack(hs)
        """,
        {"f": ("NPJ303",)},
        id="tuple-appended",
    ),
    pytest.param(
        """
        import numpy as np

        def f(r):
            w = np.ones(())
            path = []
            for t in range(r.shape[0]):
                w = w * (1 + r[t])
                path.append(w)
            return np.array(path)
        """,
        {"f": ("NPJ303",)},
        id="np-array-of-a-loop-that-may-run-zero-times",
    ),
    pytest.param(
        """
        import numpy as np

        def f(x):
            hs = []
            for t in range(x.shape[0]):
                hs.append(x[t] + (hs[-1] if t else 0))
            return np.stack(hs)
        """,
        {"f": ("NPJ303",)},
        id="list-read-inside-the-loop",
    ),
    pytest.param(
        """
        import numpy as np

        def f(x):
            hs = []
            for t in range(x.shape[0]):
                hs.append(x[t])
                hs.append(-x[t])
            return np.stack(hs)
        """,
        {"f": ("NPJ303",)},
        id="two-appends-per-step",
    ),
    pytest.param(
        """
        import numpy as np

        def f(x):
            hs = [x[0]]
            for t in range(1, x.shape[0]):
                hs.append(x[t] + x[t - 1])
            return np.stack(hs)
        """,
        {"f": ("NPJ303",)},
        id="list-starts-with-a-value",
    ),
    pytest.param(
        """
        import numpy as np

        def f(x):
            hs = []
            for t in range(x.shape[0]):
                hs.append(x[t] * 2)
            return np.vstack(hs)
        """,
        {"f": ("NPJ303",)},
        id="vstack-consumer",
    ),
    pytest.param(
        """
        import numpy as np

        def f(x, flag):
            hs = []
            if flag:
                hs = []
            for t in range(x.shape[0]):
                hs.append(x[t] * 2)
            return np.stack(hs)
        """,
        {"f": ("NPJ303",)},
        id="list-bound-twice",
    ),
    pytest.param(
        """
        import numpy as np

        def f(x):
            h = np.zeros(x.shape[1])
            hs = []
            for row in x:
                h += row
                hs.append(h)
            return np.stack(hs)
        """,
        {"f": "NPJ201"},
        id="augmented-array-appended-every-step-aliases",
    ),
]


@pytest.mark.parametrize("source, expected", SCAN_CASES)
def test_scan_decisions(source, expected):
    expected = dict(expected)
    want_converted = expected.pop("converted", expected["f"][0] == "jit")
    result = migrate(source)
    if expected["f"] == "NPJ201":  # reverted whole: NumPy's in-place += changes every stored step
        assert "NPJ201" in {d.code for d in result.diagnostics}
        assert result.output.decode() == textwrap.dedent(source).lstrip("\n")
        return
    found = outcome(result)
    assert found == expected, [d.format() for d in result.diagnostics]
    output = result.output.decode()
    assert ("jax.lax.scan" in output) == want_converted, output
    assert ("NPJ307" in {d.code for d in result.diagnostics}) == want_converted
    assert "jax.lax.fori_loop" not in output


def test_scan_is_off_without_npj307():
    source = textwrap.dedent(SCAN_CASES[0].values[0]).lstrip("\n").encode()
    result = migrate_source(source, "m.py", Options(jit=True, ignore=("NPJ307",)))
    assert "jax.lax.scan" not in result.output.decode()
    assert "NPJ303" in {d.code for d in result.diagnostics}


SCAN_RUNTIME = """
import numpy as np

def ema_path(x, alpha):
    h = np.zeros(x.shape[1])
    hs = []
    for row in x:
        h = alpha * row + (1 - alpha) * h
        hs.append(h)
    return np.stack(hs)

def decay_path(x, rate):
    level = np.ones(())
    levels = []
    gains = []
    for t in range(x.shape[0]):
        level = level * np.exp(-rate * t) + x[t]
        levels.append(level)
        gains.append(x[t] / level)
    return np.stack(levels), np.stack(gains)

def lagged(x, k: int):
    ys = []
    for t in range(k + 1, x.shape[0]):
        ys.append(x[t] - x[t - k])
    return np.stack(ys, axis=0)

def scaled_by_step(x: np.ndarray):
    ys = []
    for i, row in enumerate(x):
        ys.append(row * (i + 1))
    return np.stack(ys)

def power_path(a, v: np.ndarray, steps: int):
    vs = []
    for _ in range(steps):
        v = a @ v
        v = v / np.linalg.norm(v)
        vs.append(v)
    return np.stack(vs)

def rnn_states(xs: np.ndarray, w, u):
    h = np.zeros(u.shape[0])
    states = []
    outputs = []
    for x_t in xs:
        h = np.tanh(w @ x_t + u @ h)
        states.append(h)
        outputs.append(h.sum())
    return np.stack(states), np.stack(outputs).mean()

def cosine_bank(x: np.ndarray):
    ys = []
    for t in range(12):
        ys.append(np.cos(x * (0.25 * t)))
    return np.array(ys)
"""


def test_scans_run_under_jit_and_match_numpy():
    jnp = pytest.importorskip("jax.numpy")
    result = migrate(SCAN_RUNTIME)
    output = result.output.decode()
    assert output.count("jax.lax.scan(") == 7, output
    assert "= []" not in output, output
    assert all(record.jit for record in result.functions if "<locals>" not in record.qualname), output
    original, migrated = {}, {}
    exec(compile(SCAN_RUNTIME, "original.py", "exec"), original)
    exec(compile(result.output, "migrated.py", "exec"), migrated)
    rng = np.random.default_rng(0)
    for rows in (1, 7, 30):
        x = rng.normal(size=(rows, 4)).astype(np.float32)
        m = rng.normal(size=(4, 4)).astype(np.float32)
        spd = (m.T @ m + np.eye(4, dtype=np.float32)).astype(np.float32)
        calls = [
            ("ema_path", (x, 0.3)), ("decay_path", (x[:, 0], 0.1)), ("scaled_by_step", (x,)),
            ("power_path", (spd, x[0], rows)), ("rnn_states", (x, m * 0.5, spd * 0.1)), ("cosine_bank", (x[0],)),
        ]
        if rows > 3:
            calls.append(("lagged", (x, 2)))
        for name, args in calls:
            want = original[name](*args)
            got = migrated[name](*(jnp.asarray(a) if isinstance(a, np.ndarray) else a for a in args))
            for w, g in zip(want if isinstance(want, tuple) else (want,), got if isinstance(got, tuple) else (got,)):
                assert np.shape(g) == np.shape(w), name
                assert np.asarray(g).dtype == np.asarray(w).astype(np.float32).dtype, name
                np.testing.assert_allclose(np.asarray(g), w, rtol=2e-5, atol=2e-5, err_msg=name)


def test_scan_keeps_the_dtype_of_sub_32_bit_arrays_times_the_index():
    """The index is a weakly typed counter, as in fori_loop: int8 * t stays int8 as in NumPy."""
    jnp = pytest.importorskip("jax.numpy")
    source = """
import numpy as np

def ramp(x):
    ys = []
    for t in range(x.shape[0]):
        ys.append(x[t] * t)
    return np.stack(ys)
"""
    result = migrate(source)
    assert "jax.lax.scan(" in result.output.decode()
    original, migrated = {}, {}
    exec(compile(source, "original.py", "exec"), original)
    exec(compile(result.output, "migrated.py", "exec"), migrated)
    x = np.arange(12, dtype=np.int8).reshape(6, 2)
    want, got = original["ramp"](x), migrated["ramp"](jnp.asarray(x))
    assert np.asarray(got).dtype == want.dtype == np.int8
    np.testing.assert_array_equal(np.asarray(got), want)


def test_zero_steps_raise_in_both_for_np_stack():
    jnp = pytest.importorskip("jax.numpy")
    result = migrate(SCAN_RUNTIME)
    original, migrated = {}, {}
    exec(compile(SCAN_RUNTIME, "original.py", "exec"), original)
    exec(compile(result.output, "migrated.py", "exec"), migrated)
    x = np.zeros((0, 4), dtype=np.float32)
    with pytest.raises(ValueError):
        original["ema_path"](x, 0.3)
    with pytest.raises((ValueError, IndexError)):  # JAX refuses to trace x[i] on an empty axis first
        migrated["ema_path"](jnp.asarray(x), 0.3)
    x = np.ones((3, 4), dtype=np.float32)  # range(3, 3): no steps over a non-empty array
    with pytest.raises(ValueError):
        original["lagged"](x, 2)
    with pytest.raises(ValueError):
        migrated["lagged"](jnp.asarray(x), 2)
