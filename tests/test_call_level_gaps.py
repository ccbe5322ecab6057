"""Call-level gaps found on unseen NumPy code: ``np.r_[...]`` left NumPy in a jitted function, a tuple default
handed to ``np.quantile``, int32 ``searchsorted`` results under x64, and ``np.clip(x, lo, hi, out=x)``.
Each migrated function runs under real ``jax.jit`` against NumPy (and, for dtypes, with x64 in a subprocess)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import jax.numpy as jnp
import numpy as np

from tests.test_real_code_regressions import migrated_pair, record

CONCATENATIONS = """
import numpy as np

def label_runs(row):
    starts = row & ~np.r_[False, row[:-1]]
    return np.cumsum(starts)

def pad_ends(x):
    return np.r_[0.0, x, 1.0]

def columns(x, y):
    return np.c_[x, y]

def with_range(x):
    return np.r_[x, 0:3]

def stacked(x, y):
    return np.r_["0,2", x, y]

def head(n):
    return np.r_[0:n, n + 2]
"""


def test_r_and_c_of_traced_values_become_jnp_r_and_c():
    result, original, migrated = migrated_pair(CONCATENATIONS)
    output = result.output.decode()
    assert "~jnp.r_[False, row[:-1]]" in output and "jnp.c_[x, y]" in output
    for name in ("label_runs", "pad_ends", "columns"):
        assert record(result, name).jit, name
    row = np.array([True, True, False, True, False, False, True])
    for name, args in (("label_runs", (row,)), ("pad_ends", (np.arange(3, dtype=np.float32),)),
                       ("columns", (np.arange(3.0, dtype=np.float32), np.ones(3, dtype=np.float32)))):
        expected = getattr(original, name)(*args)
        got = getattr(migrated, name)(*(jnp.asarray(a) for a in args))
        assert got.dtype == expected.dtype or (got.dtype, expected.dtype) == (jnp.int32, np.int64), name
        np.testing.assert_array_equal(np.asarray(got), expected)


def test_r_with_a_slice_or_a_directive_among_traced_values_is_reported():
    """NumPy's slice is an int64 range (float32 + it is float64), a directive may make an np.matrix: NPJ103."""
    result, _, migrated = migrated_pair(CONCATENATIONS)
    flagged = {d.line: d.message for d in result.diagnostics if d.code == "NPJ103"}
    assert sorted(flagged) == [14, 17]
    assert "a slice" in flagged[14] and "string directive" in flagged[17]
    assert not record(result, "with_range").jit and not record(result, "stacked").jit
    assert "np.r_[x, 0:3]" in result.output.decode()
    assert "np.r_[0:n, n + 2]" in result.output.decode()  # known at trace time: NumPy computes it
    np.testing.assert_array_equal(migrated.head(3), [0, 1, 2, 5])


QUANTILES = """
import numpy as np

def quartiles(x, qs=(0.25, 0.5, 0.75)):
    return np.quantile(x, qs)

def deciles(x, qs=[10, 50, 90]):
    return np.percentile(x, qs), len(qs)

def lookup(x, xp=(0.0, 1.0, 2.0), fp=(0.0, 10.0, 5.0)):
    return np.interp(x, xp, fp)

def poly(x, coeffs=(1.0, -2.0, 0.5)):
    return np.polyval(coeffs, x)
"""


def test_a_tuple_or_list_default_reaches_jax_numpy_as_an_array():
    result, original, migrated = migrated_pair(QUANTILES)
    output = result.output.decode()
    # (interp's data is converted to NumPy's float64; a parameter's quantiles may be a float a caller gives instead)
    assert "jnp.quantile(x, jnp.asarray(qs))" in output
    assert ("jnp.interp(jnp.asarray(x, dtype=float), jnp.asarray(xp, dtype=float), "
            "jnp.asarray(fp, dtype=jnp.result_type(jnp.asarray(fp), jnp.float64)))") in output
    x = np.linspace(-1.0, 3.0, 9, dtype=np.float32)
    for name in ("quartiles", "deciles", "lookup", "poly"):
        assert record(result, name).jit, name
        expected, got = getattr(original, name)(x), getattr(migrated, name)(jnp.asarray(x))
        np.testing.assert_allclose(np.asarray(got[0] if name == "deciles" else got),
                                   expected[0] if name == "deciles" else expected, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(np.asarray(migrated.quartiles(jnp.asarray(x), (0.1, 0.9))),
                               original.quartiles(x, (0.1, 0.9)), rtol=1e-6)


CLIPS = """
import numpy as np

def stretch(img, lo, hi):
    out = (img.astype(float) - lo) / (hi - lo)
    np.clip(out, 0, 1, out=out)
    return out

def projected(x0, lo, hi, n_iter=5):
    x = np.clip(np.asarray(x0, dtype=float), lo, hi)
    for _ in range(n_iter):
        x -= 0.3 * (x - 2.0)
        np.clip(x, lo, hi, out=x)
    return x

def rounded(x):
    y = x * 10.0
    np.round(y, 1, out=y)
    return y
"""


def test_clip_and_round_with_out_a_fresh_local_array_assign_the_result():
    """np.clip(out, 0, 1, out=out) read as a method call `out.clip` on the name `np`: NPJ103 kept it NumPy."""
    result, original, migrated = migrated_pair(CLIPS)
    output = result.output.decode()
    assert "out = jnp.clip(out, 0, 1).astype(out.dtype)" in output
    assert "x = jnp.clip(x, lo, hi).astype(x.dtype)" in output
    assert not [d for d in result.diagnostics if d.code == "NPJ103"]
    img = np.array([[0, 50], [200, 255]], dtype=np.uint8)
    np.testing.assert_allclose(np.asarray(migrated.stretch(jnp.asarray(img), 20.0, 220.0)),
                               original.stretch(img, 20.0, 220.0), rtol=1e-6)
    x0 = np.array([-1.0, 0.5, 4.0], dtype=np.float32)
    np.testing.assert_allclose(np.asarray(migrated.projected(jnp.asarray(x0), 0.0, 1.5)),
                               original.projected(x0, 0.0, 1.5), rtol=1e-6)
    y = np.array([0.123, 0.456], dtype=np.float32)
    np.testing.assert_allclose(np.asarray(migrated.rounded(jnp.asarray(y))), original.rounded(y), rtol=1e-6)
    for name in ("stretch", "projected", "rounded"):
        assert record(result, name).jit, name


INDICES = """
import numpy as np

def ecdf_at(x, points):
    xs = np.sort(x)
    return np.searchsorted(xs, points, side="right") / xs.size

def ecdf_method(x, points):
    xs = np.sort(x)
    return xs.searchsorted(points) / xs.size

def bin_share(x, edges):
    return np.digitize(x, edges) / len(edges)

def two_smallest(x):
    return np.argpartition(x, 1)[:2] * 1.5
"""

_X64_SCRIPT = """
import json, sys, types
import jax.numpy as jnp
import numpy as np
from np2jax.engine import migrate_source
source = sys.stdin.read()
output = migrate_source(source.encode(), "m.py").output.decode()
modules = []
for code in (source, output):
    module = types.ModuleType("m")
    exec(compile(code, "m.py", "exec"), module.__dict__)
    modules.append(module)
x = np.array([3.0, 1.0, 2.0, 5.0, 4.0]); p = np.array([0.5, 2.5, 9.0]); edges = np.array([0.0, 2.0, 4.0])
calls = {"ecdf_at": (x, p), "ecdf_method": (x, p), "bin_share": (x, edges), "two_smallest": (x,)}
found = {}
for name, args in calls.items():
    want = getattr(modules[0], name)(*args)
    got = getattr(modules[1], name)(*(jnp.asarray(a) for a in args))
    found[name] = [str(want.dtype), str(got.dtype), bool(np.allclose(np.sort(np.asarray(got)), np.sort(want)))]
print(json.dumps(found))
"""


def test_index_results_cast_to_the_default_integer_as_numpy_gives_intp():
    result, original, migrated = migrated_pair(INDICES)
    output = result.output.decode()
    assert 'jnp.searchsorted(xs, points, side="right").astype(int) / xs.size' in output
    assert "xs.searchsorted(points).astype(int)" in output and "jnp.digitize(x, edges).astype(int)" in output
    x, p = np.array([3.0, 1.0, 2.0, 5.0], dtype=np.float32), np.array([0.5, 2.5], dtype=np.float32)
    got = migrated.ecdf_at(jnp.asarray(x), jnp.asarray(p))
    assert got.dtype == jnp.float32  # without x64: int32 / int, as before
    np.testing.assert_allclose(np.asarray(got), original.ecdf_at(x, p))


def test_index_results_under_x64_have_numpy_dtypes():
    """jnp.searchsorted / digitize / argpartition give int32 even with x64, so `/ n` was float32 (NumPy float64)."""
    env = {**os.environ, "JAX_ENABLE_X64": "1", "JAX_PLATFORMS": "cpu"}
    completed = subprocess.run([sys.executable, "-c", _X64_SCRIPT], input=textwrap.dedent(INDICES), text=True,
                               capture_output=True, env=env, timeout=120)
    assert completed.returncode == 0, completed.stderr
    found = json.loads(completed.stdout.strip().splitlines()[-1])
    for name, (want, got, same) in found.items():
        assert (want, got, same) == ("float64", "float64", True), (name, want, got, same)


def test_meshgrid_arguments_are_flattened_as_numpy_does():
    """real24 L4 (scikit-fuzzy's relation_min): NumPy's meshgrid flattens each argument (`reshape(-1)`), jax.numpy
    raises 'must be 1D' on a 2-D one: arguments not certainly 1-D get `jnp.ravel`."""
    from tests.test_real_code_regressions import migrated_pair

    result, original, migrated = migrated_pair(
        """
        import numpy as np

        def relation(a, b):
            x, y = np.meshgrid(a, b)
            return np.fmin(x, y)

        def grid(n):
            xs = np.linspace(0, 1, n)
            X, Y = np.meshgrid(xs, np.arange(3), indexing="ij")
            return X + Y
        """
    )
    output = result.output.decode()
    assert "jnp.meshgrid(jnp.ravel(a), jnp.ravel(b))" in output
    assert 'jnp.meshgrid(xs, jnp.arange(3), indexing="ij")' in output
    a, b = np.arange(4.0).reshape(2, 2), np.array([0.5, 1.5, 2.5])
    np.testing.assert_array_equal(np.asarray(migrated.relation(a, b)), original.relation(a, b))
    np.testing.assert_allclose(np.asarray(migrated.grid(4)), original.grid(4), rtol=1e-6)


def test_convolve_makes_an_element_of_an_iterated_array_1d_as_numpy_does():
    """check38 L2: `for taps in bank: np.convolve(x, taps)` with a 1-D `bank` convolves with 0-d taps in NumPy
    (`array(v, ndmin=1)`), and jnp.convolve raised "only support 1-dimensional inputs": such an element (a loop
    target, `bank[i]`) gets `jnp.atleast_1d`; other arguments are left as written."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        def apply_bank(bank, x):
            out = np.empty((len(bank), x.size))
            for i, taps in enumerate(bank):
                out[i] = np.convolve(x, taps, mode="same")
            return out

        def first(bank, x):
            return np.convolve(x, bank[0])

        def smooth(x, kernel):
            return np.convolve(x, kernel, mode="same")
        """
    )
    output = result.output.decode()
    assert "jnp.convolve(x, jnp.atleast_1d(taps)" in output and "jnp.convolve(x, jnp.atleast_1d(bank[0])" in output
    assert "jnp.convolve(x, kernel, " in output
    x = np.arange(6.0)
    for bank in (np.array([0.5, 2.0]), np.array([[0.25, 0.5, 0.25], [1.0, 0.0, -1.0]])):
        np.testing.assert_allclose(np.asarray(migrated.apply_bank(bank, x)), original.apply_bank(bank, x), rtol=1e-6)
        np.testing.assert_allclose(np.asarray(migrated.first(bank, x)), original.first(bank, x), rtol=1e-6)


def test_a_function_decorated_with_np_vectorize_keeps_its_callers_unjitted():
    """real29 L1 (scikit-commpy's `signal_power`): `@np.vectorize` on a helper, nested or at module level, called
    from a function that was jitted: np.vectorize converted the tracer to a NumPy array and the call raised. Callers
    of a function with any decorator but jax.jit now stay un-jitted (NPJ302); callers of jitted helpers are still
    jitted."""
    result, original, migrated = migrated_pair(
        """
        import functools
        import jax
        import numpy as np

        def signal_power(signal):
            @np.vectorize
            def square_abs(s):
                return abs(s) ** 2
            return np.mean(square_abs(signal))

        @np.vectorize
        def clipped(s):
            return s if s > 0 else 0.0

        def positive_mean(x):
            return np.mean(clipped(x))

        @jax.jit
        def sq(s):
            return s * s

        @functools.partial(jax.jit, static_argnums=(1,))
        def powk(s, k):
            return s ** k

        def moments(x):
            return np.mean(sq(x)) + np.mean(powk(x, 2))
        """
    )
    for name in ("signal_power", "positive_mean"):
        assert not record(result, name).jit, name
        assert any(d.code == "NPJ302" and "np.vectorize" in d.message for d in result.diagnostics), result.diagnostics
    assert record(result, "moments").jit
    signal = np.array([1 + 1j, 2, 3j])
    assert migrated.signal_power(signal) == original.signal_power(signal) == 5.0
    x = np.array([-1.0, 2.0, 4.0], np.float32)
    np.testing.assert_allclose(np.asarray(migrated.positive_mean(x)), original.positive_mean(x))
    np.testing.assert_allclose(np.asarray(migrated.moments(x)), original.moments(x), rtol=1e-6)


def test_callers_of_overload_stubs_and_jax_decorated_functions_are_still_jitted():
    """hunt45 FP6: `@typing.overload` stubs and JAX's own decorators (`jax.custom_jvp`, `jax.checkpoint`) are
    traceable: their callers stay jitted (other decorators keep them un-jitted, NPJ302)."""
    result, original, migrated = migrated_pair(
        """
        from typing import overload
        import jax
        import numpy as np

        @overload
        def f(x: float) -> float: ...
        @overload
        def f(x: np.ndarray) -> np.ndarray: ...
        def f(x):
            return np.sin(x) * 2.0

        def g(x):
            return f(x) + np.mean(x)

        @jax.checkpoint
        def h(x):
            return x * 2.0

        def uses_h(x):
            return np.sum(h(x))
        """
    )
    assert record(result, "g").jit and record(result, "uses_h").jit
    x = np.array([0.5, 1.0], np.float32)
    np.testing.assert_allclose(np.asarray(migrated.g(x)), original.g(x), rtol=1e-6)
