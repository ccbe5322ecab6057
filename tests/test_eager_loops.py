"""Functions that cannot be jitted and loop over array elements stay NumPy code (NPJ304): eager jax.numpy
copies the whole array at every `.at[i].set` (an EMA of 2,000 samples took 6 s against NumPy's 2 ms).  Left
as NumPy code, a function must still return what its callers here were rewritten to expect, and write only
into arrays NumPy made."""

from __future__ import annotations

import numpy as np

from tests.test_real_code_regressions import migrated_pair, record


def _function_source(output: bytes, name: str) -> str:
    text = output.decode()
    start = text.index(f"def {name}(")
    end = text.find("\ndef ", start + 1)
    return text[start:end if end != -1 else len(text)].rstrip()


def test_an_element_loop_of_an_unjittable_function_stays_numpy():
    source = """
        import numpy as np

        def ema_until(x, alpha, tol):
            out = np.empty_like(x)
            out[0] = x[0]
            for i in range(1, len(x)):
                out[i] = alpha * x[i] + (1 - alpha) * out[i - 1]
                if abs(out[i] - out[i - 1]) < tol:
                    break
            return out

        def weighted_counts(x, weights, lo, width, n_bins):
            counts = np.zeros(n_bins)
            for i in range(len(x)):
                b = int((x[i] - lo) / width)
                counts[b] += weights[i]
            return counts

        def smooth_all(xs, alpha):
            return ema_until(xs, alpha, 0.0) * 2.0
        """
    result, original, migrated = migrated_pair(source)
    for name in ("ema_until", "weighted_counts"):
        assert "jnp" not in _function_source(result.output, name), name
        assert not record(result, name).jit
    notes = [d for d in result.diagnostics if d.code == "NPJ304" and "left as NumPy code" in d.message]
    assert [d.line for d in notes] == [3, 12]
    assert "a write into array elements inside a loop (line 7)" in notes[0].message
    x = np.linspace(0.0, 1.0, 50)
    np.testing.assert_array_equal(migrated.ema_until(x, 0.3, 1e-3), original.ema_until(x, 0.3, 1e-3))
    np.testing.assert_array_equal(migrated.weighted_counts(x, x, 0.0, 0.25, 5),
                                  original.weighted_counts(x, x, 0.0, 0.25, 5))
    np.testing.assert_allclose(np.asarray(migrated.smooth_all(x, 0.3)), original.smooth_all(x, 0.3), rtol=1e-6)


def test_a_short_literal_loop_or_a_fixed_slice_write_does_not_keep_numpy():
    """Whole-array work per step (`lap[1:-1] = ...`) or a few unrolled steps cost eager jax.numpy little."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        def heat(u, alpha, steps):
            history = []
            for n in range(steps):
                lap = np.zeros_like(u)
                lap[1:-1] = u[:-2] - 2.0 * u[1:-1] + u[2:]
                u = u + alpha * lap
                history.append(u)
            return history

        def corners(m):
            out = np.zeros(4)
            for k in range(4):
                out[k] = m[k % 2, k // 2]
            print(out)
            return out
        """
    )
    assert "jnp.zeros_like" in _function_source(result.output, "heat")
    assert "jnp.zeros(4)" in _function_source(result.output, "corners")
    u = np.linspace(0.0, 1.0, 9) ** 2
    for a, b in zip(migrated.heat(u, 0.1, 3), original.heat(u, 0.1, 3)):
        np.testing.assert_allclose(np.asarray(a), b, rtol=1e-6)


def test_a_function_returning_the_argument_it_mutates_is_not_left_numpy():
    """`bump(a, m)` became `a = bump(a, m)` in its caller: left as NumPy code, bump returned None to it."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        def bump(x, m):
            for i in range(len(x)):
                x[i:] += m[i]

        def caller(a, m):
            a = a.copy()
            bump(a, m)
            return a * 2
        """
    )
    assert "return x" in _function_source(result.output, "bump")
    assert "a = bump(a, m)" in _function_source(result.output, "caller")
    a, m = np.zeros(4), np.arange(1.0, 5.0)
    np.testing.assert_allclose(np.asarray(migrated.caller(a, m)), original.caller(a, m))


def test_the_callers_of_a_function_left_numpy_stay_numpy_too():
    """hunt35: handed JAX arrays by migrated callers, NumPy code could neither write into them (`out = x.copy()` of
    one refuses `out[i:] += ...`), nor keep NumPy's dtypes (`np.cumsum` of a JAX uint8 array calls JAX's method,
    which wraps), nor take one through `map`: its callers, in this module or another, stay NumPy code (NPJ202)."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        def running(x):
            out = x.copy()
            for i in range(len(x)):
                out[i:] += x[i]
            return out

        def doubled(x):
            return running(np.cumsum(x)) * 2

        def counts_noise(mask, seed=7):
            c = np.cumsum(mask)
            out = np.zeros(len(c))
            s = seed
            for i in range(len(c)):
                s = (s * 16807) % 2147483647
                out[i] = c[i] + s / 2147483647.0
            return out

        def bright_noise(img):
            return counts_noise(np.greater(img, 0.5).astype(np.uint8))

        def mapped(rows):
            return np.array(list(map(running, np.exp(rows))))
        """
    )
    output = result.output.decode()
    assert "jnp" not in output, output
    for name in ("doubled", "bright_noise", "mapped"):
        assert any(d.code == "NPJ202" and d.line >= record(result, name).line for d in result.diagnostics), name
    x = np.arange(1.0, 6.0)
    np.testing.assert_array_equal(migrated.doubled(x), original.doubled(x))
    img = np.random.default_rng(0).random(1000)
    np.testing.assert_array_equal(migrated.bright_noise(img), original.bright_noise(img))
    rows = np.linspace(0.0, 1.0, 6).reshape(2, 3)
    np.testing.assert_array_equal(migrated.mapped(rows), original.mapped(rows))


def test_a_function_left_numpy_keeps_its_callers_in_other_modules_numpy(tmp_path):
    """hunt35 L1: `noise.lcg_copy` is left as NumPy code; `feats.scaled_noise` handed it `jnp.exp(x)`, into whose
    copy the NumPy code could not write. The project pass keeps that caller NumPy too."""
    import subprocess
    import sys
    import textwrap

    package = tmp_path / "src" / "pkg"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "noise.py").write_text(textwrap.dedent("""
        import numpy as np

        def lcg_copy(x, seed=3):
            out = x.copy()
            s = seed
            for i in range(len(x)):
                s = (s * 16807) % 2147483647
                out[i] = out[i] + s / 2147483647.0
            return out
        """))
    (package / "feats.py").write_text(textwrap.dedent("""
        import numpy as np
        from pkg.noise import lcg_copy

        def scaled_noise(x):
            return lcg_copy(np.exp(x)).sum()
        """))
    done = subprocess.run([sys.executable, "-m", "np2jax", "migrate", str(tmp_path / "src"), "--out", str(tmp_path / "out"),
                           "-q", "--no-cache"], capture_output=True, text=True, timeout=300)
    assert done.returncode in (0, 1), done.stderr
    script = "import numpy as np\nfrom pkg.feats import scaled_noise\nprint(float(scaled_noise(np.linspace(0, 1, 5))))"
    values = [subprocess.run([sys.executable, "-c", script], cwd=tmp_path / tree, capture_output=True, text=True,
                             timeout=300) for tree in ("src", "out")]
    assert values[1].returncode == 0, values[1].stderr
    assert values[0].stdout == values[1].stdout


def test_numba_and_vectorize_bodies_and_decorated_element_loops_stay_numpy():
    """real30 (mapclassify's `@njit` Fisher-Jenks): a function with a decorator jit does not combine with had no jit
    plan, so its element loop was not looked at and became eager `.at[]` writes (1000x slower); and numba cannot
    compile jax.numpy at all, nor np.vectorize run it fast element by element. Such bodies stay NumPy code, and
    their callers too (they would hand them JAX arrays)."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        try:
            from numba import njit
        except ImportError:
            def njit(*args, **kwargs):
                def wrap(f):
                    return f
                return wrap

        try:
            from numba import njit as _njit
        except ImportError:
            def _njit(*args, **kwargs):
                return args[0] if len(args) == 1 and callable(args[0]) else (lambda f: f)

        def deco(f):
            return f

        @_njit(cache=True)
        def sum_squares(x):
            s = 0.0
            for i in range(x.shape[0]):
                s += x[i] * x[i]
            return np.sqrt(s)

        @njit("f8[:](f8[:])")
        def cumulative(x):
            out = np.empty_like(x)
            acc = 0.0
            for i in range(x.shape[0]):
                acc += x[i]
                out[i] = acc
            return out

        @np.vectorize
        def step(v):
            return np.sign(v) * min(abs(v), 1.0)

        @deco
        def table(values, classes):
            mat = np.zeros((len(values) + 1, classes + 1))
            for l in range(2, len(values) + 1):
                for j in range(1, classes + 1):
                    mat[l, j] = mat[l - 1, j] + values[l - 1] * j
            return mat

        def total(x):
            return np.sum(cumulative(x)) + np.sum(step(x))
        """
    )
    output = result.output.decode()
    for name in ("sum_squares", "cumulative", "step", "table", "total"):
        assert "jnp." not in _function_source(result.output, name), name
        assert not record(result, name).jit, name
    messages = [d.message for d in result.diagnostics if d.code == "NPJ304"]
    assert any("decorated with `@njit(\"f8[:](f8[:])\")`" in m and "left as NumPy code" in m for m in messages), messages
    assert any("decorated with `@np.vectorize`" in m for m in messages), messages
    assert "jnp" not in output
    x = np.array([0.5, -2.0, 3.0])
    assert migrated.total(x) == original.total(x)
    np.testing.assert_array_equal(migrated.table(x, 3), original.table(x, 3))


def test_a_mutator_called_by_a_function_left_numpy_for_its_decorator_keeps_mutating():
    """hunt45 S2: `build`, left NumPy code for its `@njit` (or for an element loop under any decorator), calls
    `set_head(buf, v)`, which np2jax made return `buf` (NPJ203): the call stayed as it was, so `buf` kept its zeros.
    Functions left NumPy code count as callers relying on the mutation, as reverted ones do."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        def njit(f):
            return f

        def deco(f):
            return f

        def set_head(buf, v):
            buf[:2] = v

        @njit
        def build(n):
            buf = np.zeros(n)
            set_head(buf, 3.0)
            return buf

        @deco
        def build2(x):
            buf = np.zeros(x.shape[0])
            set_head(buf, 3.0)
            for i in range(2, x.shape[0]):
                buf[i] = buf[i - 1] + x[i]
            return buf
        """
    )
    np.testing.assert_array_equal(migrated.build(4), original.build(4))
    x = np.arange(4.0)
    np.testing.assert_array_equal(migrated.build2(x), original.build2(x))
    assert "jnp" not in _function_source(result.output, "set_head")


def test_a_function_defining_a_helper_left_numpy_stays_numpy_too():
    """hunt45 L3: an `@njit` (or `@np.vectorize`) helper defined inside a function stayed NumPy code while the
    function around it was migrated, handing it JAX arrays (numba cannot take them; eagerly, one dispatch per
    element: 0.26 s against NumPy's 0.5 ms)."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        def njit(f):
            return f

        def outer(x):
            @njit
            def inner(v):
                out = np.empty(v.shape[0])
                acc = 0.0
                for i in range(v.shape[0]):
                    acc = 0.5 * acc + v[i]
                    out[i] = acc
                return out
            return inner(np.asarray(x, dtype=np.float64)) * 2.0

        def outer2(x):
            @np.vectorize
            def f(a):
                return a * 2.0 if a > 0 else -a
            return f(x) + np.sum(x)
        """
    )
    assert "jnp" not in result.output.decode()
    messages = [d.message for d in result.diagnostics if d.code == "NPJ304"]
    assert any("defines `inner`" in m for m in messages) and any("defines `f`" in m for m in messages), messages
    x = np.array([1.0, -2.0, 3.0])
    np.testing.assert_array_equal(migrated.outer(x), original.outer(x))
    np.testing.assert_array_equal(migrated.outer2(x), original.outer2(x))


def test_an_unjittable_function_called_in_a_loop_stays_numpy():
    """real33: pyentrp's `multiscale_entropy` calls `util_granulate_time_series(ts, i)` once per scale; the helper
    cannot be jitted (an isinstance test) and ran as eager jax.numpy, compiling `reshape(b, scale)` anew at every
    call: 0.03 s became 18.6 s. A module function that cannot be jitted and is called inside a loop of the module
    stays NumPy code (NPJ304); one called outside loops is still migrated."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        def granulate(ts, scale):
            if not isinstance(ts, np.ndarray):
                ts = np.array(ts)
            b = ts.shape[0] // scale
            return np.mean(ts[: b * scale].reshape(b, scale), axis=1)

        def multiscale(ts):
            return [granulate(ts, i + 1).sum() for i in range(3)]

        def normalised(x, scale):
            if not isinstance(x, np.ndarray):
                x = np.array(x)
            return np.mean(x) / scale

        def once(x):
            return normalised(x, 2.0)

        def pipeline(x, steps):
            for normalised in steps:  # a loop variable named like the function (hunt49 FP)
                x = normalised(x)
            return x
        """
    )
    kept = [d for d in result.diagnostics if d.code == "NPJ304" and "called inside a loop" in d.message]
    assert [d.line for d in kept] == [record(result, "granulate").line], [d.format() for d in result.diagnostics]
    assert "np.mean(ts[: b * scale]" in _function_source(result.output, "granulate")
    assert "jnp.mean(x)" in _function_source(result.output, "normalised")
    ts = np.arange(12.0)
    np.testing.assert_allclose(np.asarray(migrated.multiscale(ts)), original.multiscale(ts))
    assert float(migrated.once(ts)) == original.once(ts)
