"""Patterns met migrating new realistic code (optimizers, HMMs, splines, CSR, rank statistics, an RNN) that
once came out jitted but failing or different: each migrated module runs under real JAX against NumPy."""

from __future__ import annotations

import json
import textwrap

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from tests.test_real_code_regressions import migrated_pair, record


def test_draws_from_a_generator_passed_in_keep_the_function_numpy():
    """rng.integers / rng.choice on a Generator argument: jax.jit cannot take the generator, and a loop turned
    into fori_loop drew once for every step; the function now stays NumPy (NPJ110) and draws the same stream."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        def bootstrap_means(x, rng, n_boot=20):
            means = np.empty(n_boot)
            for b in range(n_boot):
                idx = rng.integers(0, len(x), size=len(x))
                means[b] = x[idx].mean()
            return means

        def jitter(x, gen):
            return x + gen.normal(0.0, 0.1)

        def draw_states(pi, A, length, rng):
            states = np.zeros(length, dtype=np.int64)
            states[0] = rng.choice(len(pi), p=pi)
            for t in range(1, length):
                states[t] = rng.choice(len(pi), p=A[states[t - 1]])
            return states

        def surface_dot(points, mesh):
            return points @ mesh.normal(0)
        """
    )
    for name in ("bootstrap_means", "jitter", "draw_states"):
        assert record(result, name).status == "unsupported" and not record(result, name).jit, name
    flagged = [d for d in result.diagnostics if d.code == "NPJ110"]
    assert [d.line for d in flagged] == [6, 11, 15, 17]
    assert "`rng.integers(...)` draws from a NumPy random generator object" in flagged[0].message
    assert not any(d.line == 21 for d in result.diagnostics if d.code == "NPJ110")  # a mesh's `normal(0)`
    x = np.arange(10.0)
    np.testing.assert_array_equal(migrated.bootstrap_means(x, np.random.default_rng(3)),
                                  original.bootstrap_means(x, np.random.default_rng(3)))
    pi, A = np.array([0.5, 0.5]), np.array([[0.9, 0.1], [0.2, 0.8]])
    np.testing.assert_array_equal(migrated.draw_states(pi, A, 12, np.random.default_rng(1)),
                                  original.draw_states(pi, A, 12, np.random.default_rng(1)))


@pytest.mark.parametrize("derive", ["probs.copy()", "probs.astype(np.float64)", "probs * 1.0", "-probs",
                                    "probs.T.copy().T"])
def test_numpy_code_writing_into_a_copy_of_a_result_keeps_the_callee_numpy(derive):
    """dy = probs.copy(); dy[t] -= 1 in a function left NumPy: a copy (or any array computed by a method or an
    operator) of a JAX result is a JAX array too, and the write raised; the callee now stays NumPy (NPJ202)."""
    result, original, migrated = migrated_pair(
        f"""
        import numpy as np

        def softmax(z):
            e = np.exp(z - z.max(axis=-1, keepdims=True))
            return e / e.sum(axis=-1, keepdims=True)

        def forward(W, xs):
            return softmax(xs @ W)

        def backward(W, xs, targets, step=1.0):
            probs = forward(W, xs)
            dy = {derive}
            dy[targets] -= step  # perhaps an array at a repeating index: NPJ201 keeps this function NumPy
            return xs.T @ dy.reshape(probs.shape)
        """
    )
    assert record(result, "backward").status == "unsupported"
    assert not record(result, "forward").jit and not record(result, "softmax").jit
    rng = np.random.default_rng(0)
    W, xs, targets = rng.normal(size=(3, 4)), rng.normal(size=(5, 3)), np.array([0, 3, 3, 1, 2])
    np.testing.assert_allclose(migrated.backward(W, xs, targets), original.backward(W, xs, targets))


def test_one_number_subtracted_at_the_targets_of_a_copied_result_migrates_the_whole_chain():
    """dy = probs.copy(); dy[np.arange(n), targets] -= 1.0: one number through an integer index
    (analysis/repeated_writes.py), so backward, forward and softmax are all jitted, and agree with NumPy."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        def softmax(z):
            e = np.exp(z - z.max(axis=-1, keepdims=True))
            return e / e.sum(axis=-1, keepdims=True)

        def backward(W, xs, targets):
            probs = softmax(xs @ W)
            dy = probs.copy()
            dy[np.arange(len(targets)), targets] -= 1.0
            return xs.T @ dy
        """
    )
    assert record(result, "backward").jit and record(result, "softmax").jit
    rng = np.random.default_rng(0)
    W, xs, targets = rng.normal(size=(3, 4)), rng.normal(size=(5, 3)), np.array([0, 3, 3, 1, 2])
    np.testing.assert_allclose(migrated.backward(W, xs, targets), original.backward(W, xs, targets), rtol=1e-5)


def test_a_numpy_copy_of_a_result_is_numpy():
    """np.array(p) / np.copy(p) make NumPy arrays: writing into them needs nothing from the callee."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        def scores(z):
            return np.tanh(z)

        def clipped(z):
            s = np.copy(scores(z))
            s[0] = 0.0
            print(s)
            return s
        """
    )
    assert record(result, "scores").jit
    z = np.linspace(-1, 1, 4)
    np.testing.assert_allclose(migrated.clipped(z), original.clipped(z))


def test_a_guard_float32_cannot_hold_is_flagged_and_real():
    """np.log(A + 1e-300) in a Viterbi decoder: 1e-300 is 0 in float32, so a zero probability gives -inf
    where NumPy gives -690.8 (NPJ121); 1e-30 is kept as a guard and not reported."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        def log_emissions(B, floor=1e-300):
            return np.log(B + floor)

        def log_safe(B):
            return np.log(B + 1e-30)
        """
    )
    assert [(d.code, d.line) for d in result.diagnostics if d.code == "NPJ121"] == [("NPJ121", 3)]
    assert record(result, "log_emissions").jit
    B = np.array([[0.5, 0.0], [0.25, 0.75]])
    assert np.isfinite(original.log_emissions(B)).all()
    assert np.isneginf(np.asarray(migrated.log_emissions(jnp.asarray(B, dtype=jnp.float32)))[0, 1])  # the hazard
    np.testing.assert_allclose(migrated.log_safe(jnp.asarray(B)), original.log_safe(B), rtol=1e-6)


def test_a_result_computed_from_a_migrated_result_is_a_jax_array_too():
    """normalize returns x / norm(x): with norm jitted that is a JAX array, and NumPy code writing into
    normalize's result raised; norm now stays NumPy along with normalize."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        def norm(x):
            return np.sqrt(np.sum(x * x))

        def normalize(x):
            out = x / norm(x)
            print("normalizing")
            return out

        def zero_entries(x, idx):
            y = normalize(x)
            y[idx] += 1.0
            return y
        """
    )
    assert not record(result, "norm").jit  # zero_entries stays NumPy: `y[idx] += 1.0` may repeat an index (NPJ201)
    x, idx = np.array([3.0, 4.0, 12.0]), np.array([0, 0])
    np.testing.assert_allclose(migrated.zero_entries(x, idx), original.zero_entries(x, idx))


@pytest.mark.parametrize("hand_over", ["add_ridge(G, lam)", "add_ridge(lam=lam, G=G)", "grow(G, lam)"])
def test_a_result_handed_to_a_numpy_function_that_writes_into_its_parameter_keeps_the_producer_numpy(hand_over):
    """gram's result went to add_ridge, which stays NumPy (`G += ...` on a parameter): on a JAX array the
    `+=` only rebound the local name and ridge_trace silently lost the ridge (5.0 instead of 6.0); also
    through another function that passes its parameter on (grow)."""
    result, original, migrated = migrated_pair(
        f"""
        import numpy as np

        def gram(x):
            return np.outer(x, x)

        def add_ridge(G, lam):
            G += lam * np.eye(G.shape[0])

        def grow(H, lam):
            add_ridge(H, lam)

        def ridge_trace(x, lam):
            G = gram(x)
            {hand_over}
            return np.trace(G)
        """
    )
    assert record(result, "gram").status == "unsupported"
    assert any(d.code == "NPJ202" and "`ridge_trace` stays NumPy code" in d.message for d in result.diagnostics)
    x = np.array([1.0, 2.0])
    assert migrated.ridge_trace(x, 0.5) == original.ridge_trace(x, 0.5) == 6.0


def test_numpy_code_writing_into_an_array_computed_from_its_parameter_keeps_the_producer_numpy():
    """regularize (NumPy: a fancy-index `+=` that may repeat) computes G = J @ J.T from its parameter and writes
    into it; step handed it jac's JAX result, so the write raised.  jac now stays NumPy."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        def jac(x):
            return np.outer(x, x)

        def regularize(J, lam, idx):
            G = J @ J.T
            G[idx, idx] += lam
            return G

        def step(x, lam, idx):
            return regularize(jac(x), lam, idx).sum()
        """
    )
    assert record(result, "jac").status == "unsupported"
    x, idx = np.array([1.0, 2.0, 3.0]), np.array([0, 0, 2])
    assert migrated.step(x, 0.5, idx) == original.step(x, 0.5, idx)


def test_running_sums_of_small_integers_widen_as_numpy_does():
    """np.cumsum of a uint8 image accumulates in uint64; jnp.cumsum kept uint8 and wrapped (an integral image
    gave 114 where NumPy gives 370).  The migrated calls pass dtype=jnp.sum(x).dtype."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        def integral(img):
            return img.cumsum(0).cumsum(1)

        def running(x):
            return np.cumsum(x)

        def products(a):
            return np.cumprod(a[1:] - a[:-1], axis=0)

        def scaled(x, dt):
            return np.cumsum(x / dt)

        def padded(y):
            return np.pad(y, (1, 0)).cumsum()

        def steps(y):
            return np.cumsum(np.abs(np.diff(y)))

        def accumulated(x):
            return np.add.accumulate(x)
        """
    )
    assert all(record(result, name).jit for name in ("integral", "running", "products", "scaled"))
    assert "jnp.cumsum(x, dtype=jnp.sum(x).dtype)" in result.output.decode()
    img = np.full((4, 5), 100, np.uint8)
    for dtype in (np.uint8, np.int8, np.int16, np.bool_, np.float32):
        data = img.astype(dtype)
        names = ("integral", "running", "products", "padded", "steps", "accumulated")
        for name in names if dtype is not np.bool_ else ("integral", "running", "padded", "accumulated"):
            np.testing.assert_array_equal(np.asarray(getattr(migrated, name)(data)), getattr(original, name)(data))


def test_a_vector_parameter_named_axis_is_traced_like_any_array():
    """rotate_about(v, axis, angle): `axis` is an axis-angle vector, used as data, so jit traces it; the call
    np.linalg.norm(axis) was kept NumPy (parameters named like shapes count as static) and raised on the tracer."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        def rotate_about(v, axis, angle):
            k = axis / np.linalg.norm(axis)
            return v * np.cos(angle) + np.cross(k, v) * np.sin(angle)

        def norm_along(x, axis):
            return np.linalg.norm(x, axis=axis)
        """
    )
    assert record(result, "rotate_about").jit and record(result, "norm_along").static_argnums == (1,)
    v, axis = np.array([1.0, 0.0, 0.0]), np.array([0.0, 0.0, 2.0])
    np.testing.assert_allclose(np.asarray(migrated.rotate_about(v, axis, 0.5)), original.rotate_about(v, axis, 0.5), rtol=1e-6)
    x = np.arange(6.0).reshape(2, 3)
    np.testing.assert_allclose(np.asarray(migrated.norm_along(x, 1)), original.norm_along(x, 1), rtol=1e-6)


def test_writes_that_cannot_repeat_an_element_and_masks_against_numbers_become_functional():
    """Left unmigrated on unseen code (NPJ201) although exact: an index that cannot repeat (np.arange, the index
    tuples of np.diag_indices_from / np.triu_indices), a mask of x against a number parameter or a reduction,
    np.abs(x) in a mask, a fresh array from either branch of a conditional expression."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        def bump_all(x):
            y = x.copy()
            y[np.arange(len(y))[::-1]] += 1.0
            return y

        def bump_window(x):
            y = x.copy()
            y[np.arange(-3, 3)] += 1.0  # -3 and 1 name one element of a length-4 array: NumPy adds once
            return y

        def ridge(K, lam):
            K = K.copy()
            K[np.diag_indices_from(K)] += lam
            return K

        def upper(A):
            B = np.zeros_like(A)
            iu = np.triu_indices(A.shape[0], 1)
            B[iu] = A[iu]
            return B

        def clip_top(y, limit=1.5):
            y = y.copy()
            y[y > limit] = limit
            return y

        def winsorize(x, k: float):
            y = x.copy()
            hi = x.mean() + k * x.std()
            y[y > hi] = hi
            return y

        def zero_small(x, tol=1.5):
            y = x.copy()
            y[np.abs(y) < tol] = 0.0
            return y

        def initial_state(b, x, zi=None):
            z = np.zeros(2) if zi is None else np.array(zi, dtype=float)
            z[0] = x[0] * b[0]
            return z
        """
    )
    for name in ("bump_all", "ridge", "upper", "clip_top", "winsorize", "zero_small", "initial_state"):
        assert record(result, name).jit and record(result, name).status == "migrated", name
    assert record(result, "bump_window").status == "unsupported"
    np.testing.assert_array_equal(migrated.bump_window(np.zeros(4)), original.bump_window(np.zeros(4)))
    x, K = np.array([3.0, -1.0, 0.5, 2.0]), np.arange(9.0).reshape(3, 3)
    cases = [("bump_all", (x,)), ("ridge", (K, 0.5)), ("upper", (K,)), ("clip_top", (x,)), ("winsorize", (x, 0.5)),
             ("zero_small", (x,)), ("initial_state", (x, x)), ("initial_state", (x, x, [1.0, 2.0]))]
    for name, args in cases:
        expected = getattr(original, name)(*args)
        got = np.asarray(getattr(migrated, name)(*args))
        np.testing.assert_allclose(got, expected, rtol=1e-6, err_msg=name)  # float32 unless x64 is on
        assert got.dtype == expected.dtype or got.dtype == np.float32, name
    counts = np.array([5, 1, 7, 2])  # NumPy casts the float bound into the int array: 3.6 -> 3
    np.testing.assert_array_equal(np.asarray(migrated.winsorize(counts, 0.3)), original.winsorize(counts, 0.3))


def test_ufuncs_written_where_a_mask_holds_become_jnp_where():
    """np.divide(a, b, out=np.zeros_like(a), where=b != 0), the safe-division idiom, kept every caller NumPy
    (NPJ103 `out=`); it is jnp.where(b != 0, jnp.divide(a, b), jnp.zeros_like(a)), and into a local array
    np.log(x, out=out, where=x > 0) rebinds out."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        def safe_ratio(a, b):
            return np.divide(a, b, out=np.zeros_like(a), where=b != 0)

        def safe_log(x):
            out = np.full(x.shape, -np.inf)
            np.log(x, out=out, where=x > 0)
            return out

        def row_probabilities(counts):
            totals = counts.sum(axis=1, keepdims=True)
            return np.divide(counts, totals, out=np.zeros(counts.shape), where=totals > 0).mean(axis=0)
        """
    )
    for name in ("safe_ratio", "safe_log", "row_probabilities"):
        assert record(result, name).jit and record(result, name).status == "migrated", name
    a, b = np.array([1.0, 2.0, 3.0, 4.0]), np.array([2.0, 0.0, -1.0, 0.0])
    counts = np.array([[1.0, 3.0], [0.0, 0.0], [2.0, 2.0]])
    for name, args in (("safe_ratio", (a, b)), ("safe_log", (b,)), ("row_probabilities", (counts,))):
        np.testing.assert_allclose(np.asarray(getattr(migrated, name)(*args)), getattr(original, name)(*args), rtol=1e-6)
    # NumPy casts into the constant array's dtype: float32 `a` gives float32 even with a float64 `b`
    a32 = a.astype(np.float32)
    assert np.asarray(migrated.safe_ratio(a32, b)).dtype == original.safe_ratio(a32, b).dtype == np.float32


def test_a_jitted_function_calling_a_parameter_says_the_callback_must_be_jax_code():
    """numeric_jacobian(np.sin, x) raised TracerArrayConversionError with nothing saying why: `f` is static and
    called on traced arrays.  An NPJ300 info at the def says so; with a jax.numpy callback it runs as NumPy does."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        def central_difference(f, x, h=1e-3):
            x = np.asarray(x, dtype=float)
            return (f(x + h) - f(x - h)) / (2 * h)

        def plain(x, n):
            return np.sum(x) * n
        """
    )
    infos = [d for d in result.diagnostics if d.code == "NPJ300"]
    assert [(d.line, d.message.split(":")[0]) for d in infos] == [(3, "`f`")] and "jax.numpy" in infos[0].message
    assert record(result, "central_difference").status == "migrated" and record(result, "central_difference").jit
    x = np.array([0.1, 0.5, 1.0])
    np.testing.assert_allclose(np.asarray(migrated.central_difference(jnp.sin, x)), original.central_difference(np.sin, x), rtol=1e-3)


def test_converted_loops_run_no_step_on_empty_arrays():
    """fori_loop traces its body even for zero steps, and x[i] of an empty array raised there (NumPy's loop
    simply runs no step): loops indexing at the index run under `if lower < upper:`."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        def doubled(x):
            out = np.zeros_like(x)
            for i in range(len(x)):
                out[i] = 2 * x[i]
            return out

        def row_sums(X):
            total = np.zeros(X.shape[1])
            for row in X:
                total = total + row
            return total

        def ema(x, alpha):
            out = np.zeros_like(x)
            out[0] = x[0]
            for t in range(1, x.shape[0]):
                out[t] = alpha * x[t] + (1 - alpha) * out[t - 1]
            return out
        """
    )
    assert all(record(result, name).jit for name in ("doubled", "row_sums", "ema"))
    for name, args in (("doubled", (np.zeros(0),)), ("doubled", (np.arange(3.0),)), ("row_sums", (np.zeros((0, 3)),)),
                       ("row_sums", (np.ones((2, 3)),)), ("ema", (np.array([2.0]), 0.5)), ("ema", (np.arange(4.0), 0.5))):
        np.testing.assert_allclose(np.asarray(getattr(migrated, name)(*args)), getattr(original, name)(*args), err_msg=name)


def test_a_parameter_normalised_first_by_atleast_2d_takes_lists_and_scalars():
    """filterpy's reshape_z: `z = np.atleast_2d(z)` first, then `z.shape`, `z.T`: the later array uses are of the
    normalised array, so callers' lists and numbers are read through jnp.asarray (jnp.atleast_2d refuses lists)."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        def reshape_z(z, dim_z, ndim):
            z = np.atleast_2d(z)
            if z.shape[1] == dim_z:
                z = z.T
            if ndim == 1:
                z = z[:, 0]
            return z
        """
    )
    assert "jnp.atleast_2d(jnp.asarray(z))" in result.output.decode() and record(result, "reshape_z").jit
    for args in (([1.0, 2.0], 2, 1), (3.0, 1, 2), (np.array([[1.0], [2.0]]), 2, 2)):
        np.testing.assert_array_equal(np.asarray(migrated.reshape_z(*args)), original.reshape_z(*args))


def test_an_array_augmented_after_a_loop_still_starts_the_loop_as_an_array():
    """`seasonal -= seasonal.mean()` after the loop made `seasonal` look like it might start as a Python value,
    so the second pass over the output peeled the loop and converted it although it slices at the index
    (`detr[k::period]`): the file was refused as not idempotent.  Now both passes keep the loop (NPJ303)."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        def seasonal_decompose(y, period):
            n = len(y)
            trend = np.convolve(y, np.ones(period) / period, mode="same")
            detr = y - trend
            seasonal = np.zeros(period)
            for k in range(period):
                seasonal[k] = detr[k::period].mean()
            seasonal -= seasonal.mean()
            full = np.tile(seasonal, n // period + 1)[:n]
            return trend, full, y - trend - full
        """
    )
    # not jitted, an element loop: left as NumPy code (NPJ304)
    assert [d.code for d in result.diagnostics if d.code.startswith("NPJ30")] == ["NPJ304", "NPJ303"]
    y = np.sin(np.arange(24.0)) + np.arange(24.0) * 0.1
    for got, expected in zip(migrated.seasonal_decompose(y, 4), original.seasonal_decompose(y, 4)):
        np.testing.assert_allclose(np.asarray(got), expected, rtol=1e-5, atol=1e-6)


def test_grid_positions_from_linspace_that_reach_a_floor_are_warned():
    """np.floor(np.linspace(0, n - 1, m)).astype(int): jnp.linspace's points differ from NumPy's in the last bit,
    so some floors differ (29 of 2204 (n, m) pairs in float32, some under x64 too): NPJ120."""
    result, _, _ = migrated_pair(
        """
        import numpy as np

        def grid_index(x, m):
            n = x.shape[0]
            pos = np.linspace(0, n - 1, m)
            return np.floor(pos).astype(int)

        def fixed_grid():
            return np.floor(np.linspace(0, 5, 26)).astype(int)
        """
    )
    assert [(d.code, d.line) for d in result.diagnostics if d.code == "NPJ120"] == [("NPJ120", 5)]


def test_a_parameter_named_or_hinted_as_a_mask_keeps_its_indexing_function_unjitted():
    """`(P - R)[mask]` with a boolean mask passed in was jitted and raised NonConcreteBooleanIndexError; a
    parameter named like a mask (mask, valid, is_*, *_mask) or hinted bool is taken to be one (NPJ301)."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        def masked_error(P, R, mask):
            err = (P - R)[mask]
            return np.sum(err ** 2)

        def picked_total(x, idx):
            return np.sum(x[idx])
        """
    )
    assert not record(result, "masked_error").jit and record(result, "picked_total").jit
    P, R = np.arange(4.0), np.ones(4)
    mask = np.array([True, False, True, True])
    assert float(migrated.masked_error(P, R, mask)) == original.masked_error(P, R, mask)
    assert float(migrated.picked_total(P, np.array([0, 2]))) == original.picked_total(P, np.array([0, 2]))


def test_list_parameters_the_docstring_allows_keep_working():
    """From the real-package trial: np.cumsum(ys) of a documented list got dtype=jnp.sum(ys).dtype, which refuses
    the raw list (now `ys` is converted first, jitted); and a loop indexing a documented list-like parameter at its
    index (filterpy's rts_smoother `Fs[k]`) became a fori_loop, where a list cannot take a traced index."""
    result, original, migrated = migrated_pair(
        '''
        import numpy as np

        def discrete_cdf(ys):
            """
            Parameters
            ----------
            ys : array_like
                probabilities
            """
            return np.cumsum(ys)

        def smooth(Xs, Fs):
            """
            Parameters
            ----------
            Xs : numpy.array
            Fs : list-like collection of numpy.array
            """
            n = Xs.shape[0]
            x = Xs.copy()
            for k in range(n - 2, -1, -1):
                x[k] = x[k] + Fs[k] @ x[k + 1] * 0.5
            return x
        '''
    )
    assert "ys = jnp.asarray(ys)\n    return jnp.cumsum(ys, dtype=jnp.sum(ys).dtype)" in result.output.decode()
    np.testing.assert_allclose(np.asarray(migrated.discrete_cdf([0.1, 0.2, 0.7])), original.discrete_cdf([0.1, 0.2, 0.7]))
    assert not record(result, "smooth").jit
    Xs, Fs = np.ones((4, 2)), [np.eye(2) * (k + 1) for k in range(4)]
    np.testing.assert_allclose(np.asarray(migrated.smooth(Xs, Fs)), original.smooth(Xs, Fs))


def test_results_held_in_a_list_variable_and_augmented_in_a_loop_keep_the_producer_numpy():
    """`L = [make(n), make(n + 1)]; for v in L: v += 1`: NumPy updates the arrays in the list, JAX's `+=` only
    rebinds v ([0, 0, 0] instead of [1, 1, 1]); make now stays NumPy (the list display in the loop was covered)."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        def make(n):
            return np.zeros(n)

        def bump_all(n):
            L = [make(n), make(n + 1)]
            for v in L:
                v += 1
            return L[0]
        """
    )
    assert record(result, "make").status == "unsupported"
    np.testing.assert_array_equal(migrated.bump_all(3), original.bump_all(3))


def test_a_helper_sorting_its_parameter_in_place_stays_numpy_with_its_callers():
    """`def order_stats(y): y.sort(); return y` has no NumPy call; its jitted caller passed a JAX array, whose
    `.sort()` returns a copy: the helper silently did nothing (median 4.0 instead of 3.0). Now NPJ201 on the
    helper, NPJ202 on its callers; a list parameter (`names: list`) is left alone."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        def order_stats(y):
            y.sort()
            return y

        def sort_in_place(y):
            y.sort()
            return np.abs(y)

        def median_of_abs(x):
            a = np.abs(x)
            s = order_stats(a)
            return s[a.shape[0] // 2]

        def sorted_names(names: list):
            names.sort()
            return names
        """
    )
    codes = {(d.line, d.code) for d in result.diagnostics}
    assert (4, "NPJ201") in codes and (8, "NPJ201") in codes and (13, "NPJ202") in codes
    assert not any(line >= 16 for line, code in codes if code.startswith("NPJ2"))
    x = np.array([1.0, -5.0, 4.0, 0.5, 3.0])
    assert migrated.median_of_abs(jnp.asarray(x)) == original.median_of_abs(x.copy()) == 3.0
    assert migrated.sorted_names(["b", "a"]) == ["a", "b"]


def test_a_tuple_swap_of_rows_keeps_numpys_view_semantics():
    """`B[0], B[1] = B[1], B[0]`: NumPy's right-hand rows are views, read after the first write, so both rows
    end up equal to the old row 1; elements of a 1-D array are copies and swap. The migration did a real swap
    of rows; it now reads a non-0-d value again after the earlier writes. Views it cannot read again: NPJ201."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        def rows(A):
            B = A.copy()
            B[0], B[1] = B[1], B[0]
            return B

        def elements(x):
            y = x.copy()
            y[0], y[2] = y[2], y[0]
            return y

        def through_slice(A):
            B = A.copy()
            B[1], B[2] = B[0:2]
            return B

        def transposed(A):
            B = A.copy()
            B[0], B[1] = B.T[1], B.T[0]
            return B
        """
    )
    A = np.arange(9.0).reshape(3, 3)
    for name in ("rows", "elements"):
        assert record(result, name).jit, name
    np.testing.assert_array_equal(migrated.rows(jnp.asarray(A)), original.rows(A))
    np.testing.assert_array_equal(migrated.elements(jnp.arange(4.0)), original.elements(np.arange(4.0)))
    assert original.rows(A)[0].tolist() == original.rows(A)[1].tolist() == [3.0, 4.0, 5.0]
    for name in ("through_slice", "transposed"):
        assert record(result, name).status == "unsupported", name


def test_lstsq_residuals_read_keep_the_function_numpy():
    """NumPy's lstsq residuals are empty for a square system; jax.numpy's hold a value, so `if res.size == 0`
    took the other branch (-1.0 against 1e-13). Reading them is NPJ102 now; taking the solution migrates."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        def fit_error(A, b):
            x, res, rank, sv = np.linalg.lstsq(A, b, rcond=None)
            if res.size == 0:
                return -1.0
            return float(res[0])

        def solve(A, b):
            x, _, rank, _ = np.linalg.lstsq(A, b, rcond=None)
            return x, np.linalg.lstsq(A, b, rcond=None)[0]
        """
    )
    assert record(result, "fit_error").status == "unsupported"
    assert record(result, "solve").status == "migrated"
    A, b = np.array([[1.0, 2.0], [3.0, 4.0]]), np.array([1.0, 2.0])
    assert migrated.fit_error(jnp.asarray(A), jnp.asarray(b)) == original.fit_error(A, b) == -1.0
    for got, want in zip(migrated.solve(jnp.asarray(A), jnp.asarray(b)), original.solve(A, b)):
        np.testing.assert_allclose(np.asarray(got), want, atol=1e-5)  # float32: [0, 0.5] up to rounding


def test_results_used_as_operands_of_in_place_updates_in_numpy_code_keep_the_producer_numpy():
    """NumPy code updating its arrays in place (`p -= lr * g`, an optimizer's `m += (1 - b) * g` over
    `zip(params, grads, self.m)`) with a JAX array on the right stops updating them: NumPy gives way to JAX,
    which makes a new array and rebinds the name. The producers of those operands (a gradient function, and
    what it returns nested in a list) now stay NumPy; training moves the parameters as in NumPy."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        def relu(x):
            return np.maximum(x, 0)

        def gradients(w, x):
            h = relu(x * w)
            g = h * x
            return 0.5, [h * 2.0, g]

        class Momentum:
            def __init__(self, shapes, lr=0.1):
                self.lr = lr
                self.m = [np.zeros(s) for s in shapes]

            def step(self, params, grads):
                for p, g, m in zip(params, grads, self.m):
                    m *= 0.9
                    m += g
                    p -= self.lr * m

        def train(w, x, steps):
            params = [w.copy(), w.copy()]
            opt = Momentum([p.shape for p in params])
            for _ in range(steps):
                loss, grads = gradients(params[0], x)
                opt.step(params, grads)
            return params
        """
    )
    for name in ("relu", "gradients"):
        assert record(result, name).status == "unsupported", name
    w, x = np.array([1.0, 2.0, 3.0]), np.array([0.5, -1.0, 2.0])
    for got, want in zip(migrated.train(w, x, 3), original.train(w, x, 3)):
        np.testing.assert_allclose(np.asarray(got), want)
    assert not np.allclose(original.train(w, x, 3)[0], w)  # the parameters do move


def test_numpy_calls_jax_numpy_cannot_honour_under_jit_stay_numpy():
    """np.roots (its length depends on leading zeros), np.ravel_multi_index with its default mode="raise" and
    np.gradient(edge_order=2) were jitted and raised (ConcretizationTypeError, NotImplementedError); they are
    NPJ102/NPJ103 now and the functions stay NumPy, while the default edge order and mode="clip" migrate."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        def poly_roots(c):
            return np.sort(np.roots(c))

        def flat_index(i, j):
            return np.ravel_multi_index((i, j), (3, 4))

        def slope2(y):
            return np.gradient(y, edge_order=2)

        def slope1(y):
            return np.gradient(y), np.ravel_multi_index((y.astype(int), y.astype(int)), (9, 9), mode="clip")
        """
    )
    codes = {d.code for d in result.diagnostics}
    assert {"NPJ102", "NPJ103"} <= codes
    for name in ("poly_roots", "flat_index", "slope2"):
        assert record(result, name).status == "unsupported", name
    assert record(result, "slope1").jit
    y = np.array([0.0, 1.0, 4.0, 9.0])
    np.testing.assert_allclose(migrated.slope2(y), original.slope2(y))
    for got, want in zip(migrated.slope1(jnp.asarray(y)), original.slope1(y)):
        np.testing.assert_allclose(np.asarray(got), want)


def test_reversed_range_loops_peel_their_first_step_and_argpartition_kth_is_static():
    """A backward recurrence (`for t in range(n - 1, -1, -1)`) with a Python-float carry was left unjitted
    although the forward one peels its first step; `np.argpartition(w, k)[:k]` took `k` for an array."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        def discounted(rewards, gamma):
            G = np.zeros_like(rewards)
            acc = 0.0
            for t in range(rewards.shape[0] - 1, -1, -1):
                acc = rewards[t] + gamma * acc
                G[t] = acc
            return G

        def smallest(w, k):
            return np.sort(w[np.argpartition(w, k)[:k]])
        """
    )
    assert record(result, "discounted").jit
    assert record(result, "smallest").static_argnums == (1,)
    r = np.array([1.0, 0.0, 2.0, 3.0])
    for n in (4, 1):
        np.testing.assert_allclose(migrated.discounted(jnp.asarray(r[:n]), 0.5), original.discounted(r[:n], 0.5), rtol=1e-6)
    w = np.array([5.0, 1.0, 4.0, 2.0, 3.0])
    np.testing.assert_array_equal(migrated.smallest(jnp.asarray(w), 2), original.smallest(w, 2))


def test_sorting_rows_views_and_loop_elements_in_place_stays_numpy():
    """`ranked[i].sort()`, `a[:, 0].sort()`, `head = a[:2]; head.sort()`, `for row in a: row.sort()`: a JAX
    array's `.sort()` returns a copy, so the migrated functions silently sorted nothing. NPJ201 now."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        def sort_each_row(a):
            ranked = a.copy()
            for i in range(ranked.shape[0]):
                ranked[i].sort()
            return ranked

        def sort_first_column(a):
            b = a.copy()
            b[:, 0].sort()
            return b

        def sort_head(a):
            b = a.ravel().copy()
            head = b[:2]
            head.sort()
            return b

        def sort_rows_loop(a):
            b = a.copy()
            for row in b:
                row.sort()
            return b
        """
    )
    a = np.array([[3.0, 1.0], [0.0, 2.0]])
    for name in ("sort_each_row", "sort_first_column", "sort_head", "sort_rows_loop"):
        assert record(result, name).status == "unsupported", name
        np.testing.assert_array_equal(getattr(migrated, name)(a.copy()), getattr(original, name)(a.copy()))


def test_in_place_updates_through_loop_elements_and_views_keep_their_operands_numpy():
    """`for p in params: p -= 0.1 * unit(g)` and `row = W[0]; row -= unit(g)` in NumPy code: a JAX `unit(g)`
    made NumPy's `-=` give way to a new array bound to the name; `unit` now stays NumPy."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        def unit(g):
            return g / np.linalg.norm(g)

        def descend(params, G):
            for g in G:
                for p in params:
                    p -= 0.1 * unit(g)
            return params[0].sum()

        def descend_rows(G):
            W = np.zeros((2, 2))
            for g in G:
                row = W[0]
                row -= unit(g)
            return W
        """
    )
    assert record(result, "unit").status == "unsupported"
    G = np.array([[3.0, 4.0], [1.0, 0.0]])
    assert migrated.descend([np.zeros(2)], G) == original.descend([np.zeros(2)], G) != 0.0
    np.testing.assert_array_equal(migrated.descend_rows(G), original.descend_rows(G))


def test_an_if_that_changes_a_names_dtype_kind_is_not_converted():
    """`acc = 0; if c: acc += x[0]`: NumPy's acc is an int or a float depending on the branch; jax.lax.cond
    raised when tracing (NPJ306 only). It is NPJ301 now; an int counter (`count += 1`) still converts."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        def first_positive(x):
            acc = 0
            if np.sum(x) > 0:
                acc += x[0]
            return acc

        def halve_count(x):
            acc = np.sum(x > 0)
            if acc > 1:
                acc /= 2
            return acc

        def count_large(x):
            count = 0
            if np.max(x) > 1.0:
                count += 1
            return count
        """
    )
    v = np.array([1.0, 2.0, -0.5])
    for name in ("first_positive", "halve_count"):
        assert not record(result, name).jit, name
        assert getattr(migrated, name)(jnp.asarray(v)) == getattr(original, name)(v)
    assert record(result, "count_large").jit
    assert int(migrated.count_large(jnp.asarray(v))) == original.count_large(v) == 1


def test_slices_among_several_indices_are_evidence_of_array_code():
    """`pts[:, :-1] / pts[:, -1:]` has no NumPy call and no array method, but only an array takes a tuple
    of slices: the function is jitted as it is."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        def from_homogeneous(pts):
            return pts[:, :-1] / pts[:, -1:]

        def pair(d, key):
            return d[key, 0]

        def top_left(mat):
            return mat[0:3, 0:3]

        def shows_through():
            m = np.eye(4)
            v = top_left(m)
            m[0, 0] = 2.0
            return float(v[0, 0])
        """
    )
    assert record(result, "from_homogeneous").jit
    assert not record(result, "top_left").jit  # a view handed back: NumPy's caller writes show through it
    assert migrated.shows_through() == original.shows_through() == 2.0
    assert not record(result, "pair").jit  # a dict with tuple keys is indexed the same way
    pts = np.array([[2.0, 4.0, 2.0], [3.0, 6.0, 3.0]])
    np.testing.assert_allclose(np.asarray(migrated.from_homogeneous(jnp.asarray(pts))), original.from_homogeneous(pts))


def test_literal_aliases_are_static_and_python_values_of_data_block_jit():
    """numpy-groupies: `order: RavelOrder` with `RavelOrder: TypeAlias = Literal["C", "F"]` was traced (every
    call raised on the str); `.tobytes()` of a traced array was jitted (ConcretizationTypeError)."""
    result, original, migrated = migrated_pair(
        """
        from typing import Literal, TypeAlias

        import numpy as np

        RavelOrder: TypeAlias = Literal["C", "F"]

        def offset(group_idx, size: int, order: RavelOrder):
            return np.ravel(group_idx, order=order) + size

        def snapshot(x):
            return np.abs(x).tobytes()
        """
    )
    assert record(result, "offset").static_argnums == (1, 2)
    assert not record(result, "snapshot").jit
    g = np.array([[1, 2], [3, 4]])
    np.testing.assert_array_equal(migrated.offset(jnp.asarray(g), 3, "F"), original.offset(g, 3, "F"))
    got = migrated.snapshot(np.array([-1.0, 2.0]))  # float32 bytes unless x64 is on
    np.testing.assert_array_equal(np.frombuffer(got, np.float32 if len(got) == 8 else np.float64), [1.0, 2.0])


def test_type_aliases_that_admit_lists_and_every_variadic_argument_are_wrapped():
    """nvector/scikit-spatial: `points: array_like` with `array_like = Union[np.ndarray, Sequence]` (and an alias
    imported from the package) was taken for an array annotation, and `np.atleast_1d(x, y, z)` wrapped only
    `x`: lists raised TypeError in the migrated functions."""
    result, original, migrated = migrated_pair(
        """
        from typing import Sequence, Union

        import numpy as np
        from numpy.typing import ArrayLike

        array_like = Union[np.ndarray, Sequence]

        def doubled(points: array_like):
            return np.atleast_2d(points) * 2.0

        def total(x: ArrayLike, y: ArrayLike, z: ArrayLike):
            a, b, c = np.atleast_1d(x, y, z)
            return a + b + c

        def minutes(degrees: ArrayLike, minutes: ArrayLike):
            d, m = np.broadcast_arrays(degrees, minutes)
            return d + m / 60.0
        """
    )
    np.testing.assert_allclose(np.asarray(migrated.doubled([[1.0, 2.0]])), original.doubled([[1.0, 2.0]]))
    np.testing.assert_allclose(np.asarray(migrated.total([1.0], [2.0], [3.0])), original.total([1.0], [2.0], [3.0]))
    np.testing.assert_allclose(np.asarray(migrated.minutes([10.0, 20.0], [30.0, 6.0])), original.minutes([10.0, 20.0], [30.0, 6.0]))


def test_a_parameter_the_module_passes_a_list_display_is_wrapped():
    """colorspacious (real10 R2): `broadcasting_matvec([1, -12. / 11, 1. / 11], rgb)` gave a jitted helper a list,
    which `jnp.inner` refuses. A call in the module passing a list or tuple display marks the parameter."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        def broadcasting_matvec(A, B):
            return np.inner(B, A)

        def opponent(rgb):
            return broadcasting_matvec([1, -12. / 11, 1. / 11], rgb)

        def plain(A, B):
            return np.inner(B, A)
        """
    )
    rgb = np.array([[0.2, 0.5, 0.9], [0.7, 0.1, 0.3]])
    np.testing.assert_allclose(np.asarray(migrated.opponent(rgb)), original.opponent(rgb), rtol=1e-6)
    assert "jnp.inner(B, A)" in result.output.decode()  # no call passes `plain` a list: left as it is


def test_a_callable_parameter_given_an_unjittable_module_function_blocks_jit():
    """pymcdm (real10 R1): `correlation_matrix(m, pearson)` was jitted with `method` static, and `pearson` (a traced
    `if` with a warning) raised TracerBoolConversionError inside it. Now neither is jitted, and both run."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np
        from warnings import warn

        def pearson(x, y):
            sx = np.std(x)
            sy = np.std(y)
            if sx == 0 or sy == 0:
                warn("undefined for zero variance", UserWarning)
                return np.nan
            return np.mean((x - np.mean(x)) * (y - np.mean(y))) / (sx * sy)

        def correlation_matrix(rankings, method):
            n = rankings.shape[0]
            corr = np.zeros((n, n))
            for i in range(n):
                for j in range(n):
                    corr[i, j] = method(rankings[i], rankings[j])
            return corr

        def critic_like(matrix):
            return correlation_matrix(matrix.T, pearson)
        """
    )
    assert not record(result, "correlation_matrix").jit and not record(result, "critic_like").jit
    assert any(d.code == "NPJ302" and "`pearson`" in d.message for d in result.diagnostics)
    m = np.array([[1.0, 2.0, 3.0], [2.0, 1.0, 5.0], [4.0, 4.0, 1.0], [3.0, 7.0, 2.0]])
    np.testing.assert_allclose(np.asarray(migrated.critic_like(m)), original.critic_like(m), rtol=1e-5)


def test_polyfit_of_an_integer_x_gets_numpys_own_float_conversion():
    """hunt11 08: `np.polyfit(np.arange(n), x, deg)` (linear detrending): jnp.polyfit refuses an integer `x`
    ("not inexact"); NumPy converts both with `asarray(x) + 0.0`, and so does the rewrite."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        def detrend(x, deg: int = 1):
            t = np.arange(len(x))
            p = np.polyfit(t, x, deg)
            return x - np.polyval(p, t)
        """
    )
    assert "x = jnp.asarray(x)" in result.output.decode()  # (a caller's list: analysis/list_arguments.py)
    assert "jnp.polyfit(jnp.asarray(t) + 0.0, x + 0.0, deg)" in result.output.decode()
    x = np.array([1.0, 2.5, 2.9, 4.2, 5.1, 6.3])
    np.testing.assert_allclose(np.asarray(migrated.detrend(x)), original.detrend(x), atol=1e-5)


def test_a_parameter_the_module_passes_a_name_bound_to_a_list_is_wrapped():
    """similaritymeasures (real11 R1): `x = [p[0, 0], ...]; poly_area(x, y)` gave a jitted helper lists, which
    `jnp.roll` refuses."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        def poly_area(x, y):
            return 0.5 * np.abs(np.dot(x, np.roll(y, 1)) - np.dot(y, np.roll(x, 1)))

        def quad_area(p, q):
            x = [p[0, 0], p[1, 0], q[1, 0], q[0, 0]]
            y = [p[0, 1], p[1, 1], q[1, 1], q[0, 1]]
            return poly_area(x, y)
        """
    )
    p, q = np.array([[0.0, 0.0], [1.0, 0.0]]), np.array([[0.0, 1.0], [1.0, 1.0]])
    np.testing.assert_allclose(float(migrated.quad_area(p, q)), original.quad_area(p, q))


def test_a_parameter_tested_for_truth_is_a_number_its_op_assign_rebinds():
    """hunt14 FP: `while k: ...; k >>= 1` (exponentiation by squaring) got NPJ203's "updates its argument `k`
    with op=": a parameter used as a truth value is a number (an array of several elements has none), and
    `k >>= 1` only rebinds it in NumPy too."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        def matrix_power_loop(A, k):
            R = np.eye(A.shape[0])
            while k:
                if k & 1:
                    R = R @ A
                A = A @ A
                k >>= 1
            return R
        """
    )
    assert "NPJ203" not in {d.code for d in result.diagnostics}
    A = np.array([[1.0, 1.0], [1.0, 0.0]])
    np.testing.assert_allclose(np.asarray(migrated.matrix_power_loop(A, 10)), original.matrix_power_loop(A, 10))


def test_a_method_named_like_a_module_function_is_no_use_of_it_as_a_value():
    """hunt14 FP: `def step(self, ...)` in a class made the module-level `step` look "used as a value (a
    callback ...)", so its `params -= ...` could not be returned (NPJ201) and the function stayed NumPy."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        def step(params, grad):
            params -= 0.1 * np.asarray(grad)
            return params

        class Opt:
            def step(self, x):
                return np.sum(x)
        """
    )
    assert not any("used as a value" in d.message for d in result.diagnostics)
    assert record(result, "step").status != "unsupported"
    np.testing.assert_allclose(np.asarray(migrated.step(np.ones(3), np.ones(3))), original.step(np.ones(3), np.ones(3)))


@pytest.mark.parametrize("imports", [
    "try:\n    from scipy.integrate import simpson\nexcept ImportError:\n    from scipy.integrate import simps as simpson\n",
    "import scipy\nif int(scipy.__version__.split('.')[1]) >= 12:\n    from scipy.integrate import simpson\n"
    "else:\n    from scipy.integrate import simps as simpson\n",
    "try:\n    from scipy.integrate import simpson\nexcept ImportError:\n    simpson = None\n",
])
def test_a_scipy_function_imported_two_ways_is_still_scipy(imports):
    """real15 L1 (scikit-kinematics): a SciPy function imported under `try/except ImportError` or a version test
    has two bindings, so it had no one qualified name: no NPJ113, the function was jitted and raised
    TracerArrayConversionError.  Any foreign import among the bindings says it is SciPy's."""
    from np2jax.engine import Options, migrate_source

    source = ("import numpy as np\n" + imports + "\n\ndef make_gauss(dt=0.01):\n    t = np.arange(0, 1, dt)\n"
              "    g = np.exp(-(t - 0.5) ** 2 / 0.02)\n    return g / simpson(g, dx=dt)\n")
    result = migrate_source(source.encode(), "m.py", Options(jit=True))
    assert any(d.code == "NPJ113" for d in result.diagnostics)
    assert next(f for f in result.functions if f.qualname == "make_gauss").status == "unsupported"


def test_a_deque_keeps_the_function_unjitted_and_its_numpy_conversion():
    """real15 L3 (spectrum's cshift, reached by about 20 tests): `a = deque(data); a.rotate(offset);
    np.array(a)` was jitted (a traced offset raised) and `jnp.array` refuses a deque even eagerly.  A deque
    blocks jit (NPJ302) and the NumPy call on it stays NumPy."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np
        from collections import deque

        def cshift(data, offset):
            a = deque(data)
            a.rotate(offset)
            return np.array(a)

        def twosided(x, n):
            return cshift(np.asarray(x) * 2.0, n)
        """
    )
    assert not record(result, "cshift").jit and "return np.array(a)" in result.output.decode()
    assert any(d.code == "NPJ302" and "collections.deque" in d.message for d in result.diagnostics)
    for name, args in (("cshift", (np.arange(5.0), 2)), ("twosided", (np.arange(5.0), -1))):
        np.testing.assert_allclose(np.asarray(getattr(migrated, name)(*args)), getattr(original, name)(*args))


def test_a_full_array_of_a_python_number_keeps_numpys_64_bit_dtype_under_x64():
    """hunt15 S3: `np.full(n, INF)` (`INF = np.inf`) is float64 in NumPy; `jnp.full(n, INF)` is weakly typed, so
    `np.minimum` with a float32 row gave float32 under x64. `dtype=float` keeps NumPy's dtype, with x64 on and off;
    a fill that may be an array keeps its own dtype."""
    import os
    import subprocess
    import sys

    source = (
        "import numpy as np\n\nINF = np.inf\n\n\n"
        "def dist0(W):\n    d = np.full(W.shape[0], INF)\n    d[0] = 0.0\n    return np.minimum(d, W[0])\n\n\n"
        "def filled(W, v):\n    return np.full(W.shape[0], v)\n"
    )
    script = (
        "import json, sys\nimport numpy as np, jax.numpy as jnp\nfrom np2jax.engine import migrate_source\n"
        "source = sys.stdin.read()\nresult = migrate_source(source.encode(), 'm.py')\noriginal, new = {}, {}\n"
        "exec(compile(source, 'o.py', 'exec'), original)\nexec(compile(result.output, 'n.py', 'exec'), new)\n"
        "W = np.array([[1.0, 0.5, 9.0]] * 3, dtype=np.float32)\nfound = []\n"
        "for name, args in (('dist0', (W,)), ('filled', (W, np.float32(2.0)))):\n"
        "    want = original[name](*args)\n    got = np.asarray(new[name](*[jnp.asarray(a) for a in args]))\n"
        "    found.append([name, str(want.dtype), str(got.dtype), bool(np.array_equal(want, got))])\n"
        "print(result.output.decode().count('dtype=float') + 10 * result.output.decode().count('dtype=int'))\n"
        "print(json.dumps(found))\n"
    )
    env = {**os.environ, "JAX_ENABLE_X64": "1", "JAX_PLATFORMS": "cpu"}
    completed = subprocess.run([sys.executable, "-c", script], input=source, text=True, capture_output=True, env=env, timeout=300)
    assert completed.returncode == 0, completed.stderr
    added, found = completed.stdout.strip().splitlines()[-2:]
    assert added == "1"
    assert json.loads(found) == [["dist0", "float64", "float64", True], ["filled", "float32", "float32", True]]


def test_window_sums_and_integer_quotients_that_float32_or_xla_change_are_flagged():
    """hunt23 S1-S3: `labels.size // counts` (XLA: -1 where a count is 0), a running sum rebound before its window
    difference, and a loop keeping a sliding-window sum by `+=`/`-=` (float32 cancels) came out with no
    diagnostic; each now carries NPJ122/NPJ116, and each difference is real."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        def per_label(labels, sizes):
            return labels.size // sizes.astype(int)

        def moving_average(x, w=5):
            c = np.cumsum(x)
            c = np.concatenate(([0.0], c))
            return (c[w:] - c[:-w]) / w

        def rms_envelope(x, w=4):
            n = x.shape[0]
            env = np.zeros(n)
            acc = 0.0
            for i in range(n):
                acc += x[i] * x[i]
                if i >= w:
                    acc -= x[i - w] * x[i - w]
                env[i] = np.sqrt(max(acc, 0.0) / min(i + 1, w))
            return env
        """
    )
    codes = {(d.line, d.code) for d in result.diagnostics}
    assert {(4, "NPJ122"), (9, "NPJ116"), (18, "NPJ116")} <= codes
    sizes = np.array([2.0, 0.0, 3.0])
    assert original.per_label(np.arange(6), sizes).tolist() == [3, 0, 2]
    assert np.asarray(migrated.per_label(np.arange(6), sizes)).tolist() != [3, 0, 2]
    loud_then_quiet = np.array([1000.0] * 100 + [0.01] * 20)
    expected = original.rms_envelope(loud_then_quiet)
    assert expected[-1] == pytest.approx(0.01)
    assert abs(float(migrated.rms_envelope(jnp.asarray(loud_then_quiet, jnp.float32))[-1]) - 0.01) > 1e-3


def test_a_local_alias_of_a_math_function_is_a_math_call():
    """real21 L4 (transforms3d sympy_aa2mat): `sin = math.sin; sin(0.5 * theta)` was taken for a nested function
    traced with the caller, so jit raised a ConcretizationTypeError; it now makes `theta` static, as `math.sin`
    written out does, and a local alias of another module's function blocks jit."""
    result, original, migrated = migrated_pair(
        """
        import math
        import os.path

        import numpy as np

        def aa2mat(vec, theta):
            v0, v1, v2 = vec
            sin = math.sin
            return np.array([v0 * sin(0.5 * theta), v1, v2])

        def joined(x, name):
            join = os.path.join
            return np.sum(x), join("a", name)
        """
    )
    assert record(result, "aa2mat").jit and record(result, "aa2mat").static_argnums == (1,)
    assert not record(result, "joined").jit
    np.testing.assert_allclose(np.asarray(migrated.aa2mat(np.array([1.0, 2.0, 3.0]), 0.7)),
                               original.aa2mat(np.array([1.0, 2.0, 3.0]), 0.7), rtol=1e-6)


def test_a_constructor_left_numpy_for_its_random_draws_keeps_no_method_from_migrating():
    """hunt23 FP10: TinyMLP.__init__ draws its weights from np.random.default_rng (NPJ110, it stays NumPy) and only
    binds attributes; every other method was kept NumPy with it ("shares self"). Methods now migrate when such a
    method writes nothing in place; one that writes into an attribute's array still keeps the class NumPy."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        class TinyMLP:
            def __init__(self, n_in, n_out, seed=0):
                rng = np.random.default_rng(seed)
                self.W = rng.standard_normal((n_in, n_out)) * 0.1
                self.b = np.zeros(n_out)

            def forward(self, X):
                return np.tanh(X @ self.W + self.b)

            def step(self, X, Y, lr=0.1):
                g = (self.forward(X) - Y) * (1 - self.forward(X) ** 2) / X.shape[0]
                self.W -= lr * X.T @ g
                self.b -= lr * g.sum(axis=0)
                return 0.5 * np.mean((self.forward(X) - Y) ** 2)

        class Noisy:
            def __init__(self, n, seed=0):
                rng = np.random.default_rng(seed)
                self.x = np.zeros(n)
                self.x[0] = rng.standard_normal()

            def total(self):
                return np.sum(self.x)
        """
    )
    assert record(result, "TinyMLP.forward").status == "migrated"
    assert record(result, "TinyMLP.step").status != "unsupported"
    assert record(result, "Noisy.total").status == "unsupported"
    X, Y = np.linspace(0.0, 1.0, 12).reshape(4, 3), np.linspace(-1.0, 1.0, 8).reshape(4, 2)
    a, b = original.TinyMLP(3, 2), migrated.TinyMLP(3, 2)
    for _ in range(3):
        np.testing.assert_allclose(float(b.step(X, Y)), a.step(X, Y), rtol=1e-5)
    np.testing.assert_allclose(np.asarray(b.forward(X)), a.forward(X), rtol=1e-5)


def test_in_place_ops_keep_narrow_dtypes_however_they_are_spelled():
    """hunt25 S1: NumPy's `a += v` keeps a's int8/float16 dtype (wrapping, rounding); np2jax spells the cast out
    only for dtypes it sees, and missed np.full's third argument, astype(dtype=...), type codes, a dtype held in a
    name, .reshape()/.copy() chains, np.asarray(..., dtype=...).copy() and a parameter rebound first."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        def acc_full(x):
            a = np.full(x.shape, 100, np.int8)
            a += x
            return a

        def acc_kw(v, g):
            a = v.astype(dtype=np.float16)
            a += g
            return a

        def acc_str(g):
            a = np.ones(g.shape, dtype="f2")
            a += g
            return a

        def acc_var(g):
            dt = np.int8
            a = np.full(g.shape, 100, dtype=dt)
            a += g
            return a

        def acc_chain(g):
            a = np.ones(g.size, dtype=np.float16).reshape(g.shape).copy()
            a += g
            return a

        def adam_half(v, g):
            v = v.astype(np.float16)
            v -= 0.1 * g
            return v
        """
    )
    ints = np.array([10, 100, 27, -120], dtype=np.int8)
    floats = np.array([0.1234, 1.777, -3.3, 1e-3], dtype=np.float32)
    for name, args in (("acc_full", (ints,)), ("acc_var", (ints,)), ("acc_kw", (floats, floats)), ("acc_str", (floats,)),
                       ("acc_chain", (floats,)), ("adam_half", (floats, floats))):
        expected = getattr(original, name)(*args)
        got = np.asarray(getattr(migrated, name)(*args))
        assert got.dtype == expected.dtype, name
        np.testing.assert_array_equal(got, expected, err_msg=name)


def test_python_floats_in_an_array_display_give_numpys_float64_under_x64():
    """hunt26 S1: np.array([[c, -s, 0.0], ...]) of float32 c, s is float64 in NumPy (a list's Python floats are
    float64 to it) and was float32 in jax.numpy (weakly typed floats) under x64: `dtype=float` keeps NumPy's."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        def rot_z(a):
            c, s = np.cos(a), np.sin(a)
            return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])

        def to_homogeneous(p):
            return np.array((p[0], p[1], p[2], 1.0))

        def pair(p):
            return np.array([p[0], p[1]])
        """
    )
    output = result.output.decode()
    assert "dtype=jnp.result_type(jnp.float64, c, s))" in output and "jnp.array([p[0], p[1]])" in output
    assert "dtype=jnp.result_type(jnp.float64, p[0], p[1], p[2]))" in output
    import jax

    for x64 in (False, True):
        with jax.enable_x64(x64):
            for name, arg in (("rot_z", np.float32(0.3)), ("to_homogeneous", np.array([1.5, 2.0, 3.1], np.float32))):
                got, want = getattr(migrated, name)(arg), getattr(original, name)(arg)
                assert got.dtype == (want.dtype if x64 else np.float32), (name, x64, got.dtype)
                np.testing.assert_allclose(np.asarray(got), want, rtol=1e-6)


def test_complex_elements_of_an_array_display_stay_complex():
    """hunt27 S6: dtype=float dropped the imaginary part of a complex element a caller passed. Elements that are
    names or subscripts give the dtype through jnp.result_type(jnp.float64, ...), complex included; other elements
    get dtype=float only where the module shows no complex numbers."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        def homogeneous(p):
            return np.array([p[0], p[1], 1.0])

        def phasor(z):
            return np.array([np.abs(z), 0.0]) * np.exp(1j * 0.5)
        """
    )
    assert "jnp.array([jnp.abs(z), 0.0])" in result.output.decode()
    import jax

    p = np.array([1 + 2j, 3.0], dtype=np.complex64)
    for x64 in (False, True):
        with jax.enable_x64(x64):
            got, want = np.asarray(migrated.homogeneous(p)), original.homogeneous(p)
            np.testing.assert_allclose(got, want, rtol=1e-6)
            assert got.dtype == (want.dtype if x64 else np.complex64)


def test_float_writes_into_integer_arrays_are_reported():
    """hunt26 S2: a write into an array made with an integer dtype casts as .astype would: NumPy wraps a narrow
    type's out-of-range values where .at[].set saturates (NPJ105), and a fused multiply-add before the
    truncation can be one off (NPJ120). Integer values, values clipped into range and float arrays are not reported."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        def to_pcm(x):
            out = np.zeros(len(x), dtype=np.int16)
            out[:] = x * 32767.0
            return out

        def to_pcm_clipped(x):
            out = np.zeros(len(x), dtype=np.int16)
            out[:] = np.clip(x, -1.0, 1.0) * 32767
            return out

        def diffuse_u8(u, r):
            new = u.astype(np.uint8)
            new[1:-1] = u[1:-1] + r * (u[2:] - 2.0 * u[1:-1] + u[:-2])
            return new

        def counts(idx, n):
            c = np.zeros(n, dtype=np.int64)
            for i in range(idx.shape[0]):
                c[idx[i]] += 1
            return c

        def blend(a, b, t):
            out = np.zeros(a.shape, dtype=int)
            out[:] = t * a + (1 - t) * b
            return out

        def scaled(x):
            out = np.zeros(len(x))
            out[:] = x * 2.0 + 1.0
            return out
        """
    )
    found = {(d.code, d.line) for d in result.diagnostics if d.code in ("NPJ105", "NPJ120")}
    assert found == {("NPJ105", 5), ("NPJ105", 14), ("NPJ105", 15), ("NPJ120", 15), ("NPJ120", 26)}, found
    assert "writing into `out` casts the values to `int16`" in next(
        d.message for d in result.diagnostics if d.code == "NPJ105" and d.line == 5)
    x = np.array([0.5, 1.2, -1.3])
    assert not np.array_equal(np.asarray(migrated.to_pcm(x)), original.to_pcm(x))  # what the warning is about
    np.testing.assert_array_equal(np.asarray(migrated.to_pcm_clipped(x)), original.to_pcm_clipped(x))
    np.testing.assert_array_equal(np.asarray(migrated.counts(np.array([0, 2, 2]), 4)), original.counts(np.array([0, 2, 2]), 4))


def test_element_reads_of_arrays_of_known_dimensions_are_copies():
    """hunt26 FP5: `old = u[i]` of `u = np.zeros(n)` with `n = b.shape[0]` (a local name bound to a size), and
    `self.hist[k] = self.state[0]` with every store of `self.state` 1-D, read one element: a copy, not a view.
    A row of a 2-D attribute bound to a local name stays a view (NPJ201)."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        def sor(b, h, omega=1.5, sweeps=10):
            n = b.shape[0]
            u = np.zeros(n)
            for k in range(sweeps):
                for i in range(1, n - 1):
                    old = u[i]
                    u[i] = old + omega * (0.5 * (u[i - 1] + u[i + 1] + h * h * b[i]) - old)
            return u

        class AlphaBeta:
            def __init__(self):
                self.state = np.zeros(2)
                self.hist = np.zeros(4)
                self.count = 0

            def update(self, z):
                self.state[0] = z
                self.hist[self.count % 4] = self.state[0]
                self.count += 1

        class Rows:
            def __init__(self):
                self.state = np.zeros((2, 2))

            def update(self, z):
                first = self.state[0]
                self.state[0, 0] = z
                return first.sum()
        """
    )
    assert record(result, "sor").status == "migrated" and record(result, "sor").jit
    assert record(result, "AlphaBeta.update").status != "unsupported"
    assert record(result, "Rows.update").status == "unsupported"
    assert any(d.code == "NPJ201" and "`self.state` (or a view of it)" in d.message for d in result.diagnostics)
    b = np.linspace(-1.0, 1.0, 12)
    np.testing.assert_allclose(np.asarray(migrated.sor(b, 0.1)), original.sor(b, 0.1), rtol=1e-5, atol=1e-7)
    got, want = migrated.AlphaBeta(), original.AlphaBeta()
    for z in (0.5, -1.0, 2.0, 3.5, 4.0):
        got.update(z)
        want.update(z)
        np.testing.assert_allclose(np.asarray(got.hist), want.hist)


def test_signs_cast_to_int8_and_products_of_int8_arrays_are_not_reported():
    """hunt26 FP6: np.sign(...) holds -1, 0 and 1 (NPJ105 needs values past int8's range), and a product of two
    int8 arrays is int8 in NumPy and JAX alike (NPJ115 is about int64 against int32). The function is jitted and
    agrees with NumPy."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        def turning_points(x):
            s = np.sign(np.diff(x)).astype(np.int8)
            return s[1:] * s[:-1] < 0
        """
    )
    assert record(result, "turning_points").status == "migrated" and record(result, "turning_points").jit
    assert not result.diagnostics
    x = np.array([0.0, 1.0, 3.0, 2.0, 2.0, 5.0, np.nan, 1.0])
    np.testing.assert_array_equal(np.asarray(migrated.turning_points(x)), original.turning_points(x))


def test_cross_products_tested_for_exact_zeros_are_reported():
    """real22 S1 (pyrr's vector_parallel_vector): XLA fuses a1 * b2 - a2 * b1 into one multiply-add, so
    jnp.cross(v, 2 * v) is about 1e-17 where NumPy's is exactly 0, and `np.count_nonzero(cross) == 0` flips.
    NPJ120 now reports it, also through a function of the module that returns the cross product; a cross
    product used as a number (a normal, a torque) is not reported."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        def cross(v1, v2):
            return np.cross(v1, v2)

        def is_parallel(v1, v2):
            return np.count_nonzero(cross(v1, v2)) == 0

        def coplanar(a, b, c):
            return ~np.any(np.cross(b - a, c - a))

        def torque(r, f):
            return np.linalg.norm(np.cross(r, f))
        """
    )
    flagged = {(d.code, d.line) for d in result.diagnostics}
    assert ("NPJ120", 7) in flagged and ("NPJ120", 10) in flagged, flagged
    assert not any(d.line in (4, 13) for d in result.diagnostics)
    v = np.array([0.1, 0.7, 0.3])
    assert original.is_parallel(v, 2.0 * v)  # what the warning is about: the migrated copy may say False
    np.testing.assert_allclose(np.asarray(migrated.torque(v, v[::-1])), original.torque(v, v[::-1]), rtol=1e-6)


def test_indices_read_from_a_table_of_ints_are_single_elements():
    """real22 FP1 (transforms3d's euler2mat): `j = _NEXT_AXIS[i + parity]` of a list of int literals, with
    `i = firstaxis` a Python sequence's index (so an int): M[i, j] writes one element, not an index array that
    may repeat. The function is jitted (firstaxis and parity static) and agrees with NumPy."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np
        _NEXT_AXIS = [1, 2, 0, 1]

        def rot(c, s, firstaxis=0, parity=0):
            i = firstaxis
            j = _NEXT_AXIS[i + parity]
            M = np.eye(3)
            M[i, i] = c
            M[i, j] = -s
            M[j, i] = s
            M[j, j] = c
            return M
        """
    )
    assert record(result, "rot").status == "migrated" and record(result, "rot").static_argnums == (2, 3)
    for axis, parity in ((0, 0), (1, 1), (2, 1)):
        np.testing.assert_allclose(np.asarray(migrated.rot(0.6, 0.8, axis, parity)), original.rot(0.6, 0.8, axis, parity))


def test_a_dtype_parameter_is_static_even_unread():
    """real22 L4 (pyrr's plane.create_xy(invert=False, distance=0., dtype=None)): jax.jit traced the unread
    `dtype` and refused the np.float32 a caller passes; a parameter named dtype (or defaulting to a NumPy dtype)
    is now static."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        def create_xy(invert=False, distance=0., dtype=None):
            pl = np.array([0., 0., 1., distance])
            if invert:
                pl = -pl
            return pl

        def zeros_like_in(x, out_type=np.float32):
            return np.zeros(x.shape, dtype=out_type) + x.sum()
        """
    )
    assert record(result, "create_xy").static_argnums == (0, 2)
    assert record(result, "zeros_like_in").static_argnums == (1,)
    np.testing.assert_allclose(np.asarray(migrated.create_xy(True, 2.0, np.float32)), original.create_xy(True, 2.0, np.float32))
    x = np.arange(3.0)
    np.testing.assert_allclose(np.asarray(migrated.zeros_like_in(x, np.float64)), original.zeros_like_in(x, np.float64))


def test_a_function_whose_arguments_hold_python_objects_given_to_numpy_stays_numpy():
    """real22 L5 (transforms3d's derivations.utils.matrices_equal on SymPy matrices): un-jitted because M1, M2
    hold Python objects (NPJ302), it was still rewritten to eager jax.numpy, and jnp.array(d) refused the object.
    Such a function now stays NumPy (NPJ304); one that only reads an array attribute of its object migrates."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        class Symbolic:
            def __init__(self, terms):
                self.terms = list(terms)

            def __sub__(self, other):
                return Symbolic(a - b for a, b in zip(self.terms, other.terms))

            def simplify(self):
                self.terms = [round(t, 12) for t in self.terms]

            def __array__(self, dtype=None, copy=None):
                return np.array(self.terms, dtype=object)

        def matrices_equal(M1, M2):
            d = M1 - M2
            d.simplify()
            return np.all(np.array(d) == 0)

        def mean_position(swarm):
            return np.mean(swarm.position, axis=0)
        """
    )
    assert record(result, "matrices_equal").status != "migrated"
    assert "return np.all(np.array(d) == 0)" in result.output.decode()
    assert any(d.code == "NPJ304" and "left as NumPy code" in d.message and "Python objects" in d.message
               for d in result.diagnostics)
    assert "jnp.mean(swarm.position, axis=0)" in result.output.decode()
    a, b = migrated.Symbolic([1.0, 2.0]), migrated.Symbolic([1.0, 2.0])
    assert bool(migrated.matrices_equal(a, b)) == bool(original.matrices_equal(a, b)) is True


def test_unpacked_percentiles_are_numbers_for_mask_writes():
    """hunt26 FP6 (winsorize): `lo, hi = np.percentile(x, [5, 95])` unpacks two numbers, so `y[y < lo] = lo`
    becomes jnp.where instead of NPJ201; a percentile along an axis is not unpacked into numbers."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        def winsorize(x, lower=5.0, upper=95.0):
            y = x.copy()
            lo, hi = np.percentile(x, [lower, upper])
            y[y < lo] = lo
            y[y > hi] = hi
            return y

        def clip_rows(x):
            y = x.copy()
            lo, hi = np.percentile(x, [5, 95], axis=1)
            y[y < lo] = lo
            return y
        """
    )
    assert record(result, "winsorize").status == "migrated" and record(result, "winsorize").jit
    assert record(result, "clip_rows").status == "unsupported"
    x = np.random.default_rng(3).normal(size=200)
    np.testing.assert_allclose(np.asarray(migrated.winsorize(x)), original.winsorize(x), rtol=1e-6)
    np.testing.assert_allclose(np.asarray(migrated.winsorize(x.reshape(20, 10), 10.0, 90.0)),
                               original.winsorize(x.reshape(20, 10), 10.0, 90.0), rtol=1e-6)


def test_a_shift_within_an_attribute_array_is_a_copy():
    """hunt26 (trackers, an NLMS filter): `self.buf[1:] = self.buf[:-1]` copies values into the array (NumPy
    handles the overlap), it stores no reference, yet it kept the whole class NumPy (NPJ201). It now migrates. A
    method returning `self.x`, which a later in-place write changes under the caller, still keeps it NumPy."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        class Delay:
            def __init__(self):
                self.buf = np.zeros(4)
                self.w = np.ones(4)

            def push(self, sample):
                self.buf[1:] = self.buf[:-1]
                self.buf[0] = sample
                self.w[1:] = self.buf[1:] * 0.5

            def output(self):
                return float(self.w @ self.buf)

        class Leaky:
            def __init__(self):
                self.x = np.zeros(2)

            def peek(self):
                return self.x

            def add(self, z):
                self.x += z
        """
    )
    for name in ("Delay.push", "Delay.output"):
        assert record(result, name).status != "unsupported", name
    assert record(result, "Leaky.add").status == "unsupported"
    got, want = migrated.Delay(), original.Delay()
    for sample in (1.0, -2.0, 0.5, 3.0, 4.0):
        got.push(sample)
        want.push(sample)
        np.testing.assert_allclose(np.asarray(got.buf), want.buf)
        assert got.output() == want.output()


def test_hunt27_integer_targets_sign_tests_and_in_place_reshapes():
    """hunt27 S1/S3/S5: a float written into `np.full(n, 0)` / `np.arange(n)` (int64 by their ints) truncates after a
    fused multiply-add (NPJ120); `np.sign` of a cross product and `np.linalg.norm(cross) == 0` test it for an exact
    zero (NPJ120); after `u.shape = (n, 2)`, `old = u[0]` is a row (a view), not an element (NPJ201)."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        def bucket(x, w, b):
            idx = np.full(x.shape[0], 0)
            idx[:] = x * w + b
            return idx

        def ranks(x, w):
            r = np.arange(x.shape[0])
            r[:] = x * w + 1.0
            return r

        def orientation(a, b, c):
            return np.sign(np.cross(b - a, c - a))

        def collinear(a, b, c):
            return np.linalg.norm(np.cross(b - a, c - a)) == 0

        def first_row(x, z):
            n = x.shape[0]
            u = np.zeros(2 * n)
            u.shape = (n, 2)
            old = u[0]
            u[0, 0] = z
            return old
        """
    )
    flagged = {(d.code, d.line) for d in result.diagnostics}
    assert {("NPJ120", 5), ("NPJ120", 10), ("NPJ120", 14), ("NPJ120", 17), ("NPJ201", 24)} <= flagged, flagged
    assert record(result, "first_row").status == "unsupported"
    np.testing.assert_array_equal(np.asarray(migrated.first_row(np.ones(3), 5.0)), original.first_row(np.ones(3), 5.0))


def test_float_writes_into_an_array_made_like_an_image_are_reported():
    """hunt27 S4: `out = np.zeros_like(img); out[:] = img * gain` wraps in NumPy for an 8-bit image and saturates
    in JAX; a parameter named for an image is taken as possibly uint8 (NPJ105, and NPJ120 for a multiply-add)."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        def brighten(img, gain=1.5):
            out = np.zeros_like(img)
            out[:] = img * gain
            return out

        def smooth(signal, a):
            out = np.zeros_like(signal)
            out[1:] = a * signal[1:] + (1 - a) * signal[:-1]
            return out
        """
    )
    flagged = {(d.code, d.line) for d in result.diagnostics}
    assert ("NPJ105", 5) in flagged and not any(line > 7 for _, line in flagged), flagged
    img = np.array([10, 200], dtype=np.uint8)
    assert not np.array_equal(np.asarray(migrated.brighten(img)), original.brighten(img))  # what NPJ105 is about


def test_an_array_display_of_arithmetic_on_reads_gets_numpys_dtype():
    """hunt26 (dh_transform) under x64: elements computed from names by arithmetic (`-st * ca`, `a * ct`) beside
    float literals gave float32 where NumPy gives float64; the dtype is their reads' promoted with float64. An
    `angle_between` function name is not a sign of complex numbers."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        def dh_transform(theta, d, a, alpha):
            ct, st = np.cos(theta), np.sin(theta)
            ca, sa = np.cos(alpha), np.sin(alpha)
            return np.array([[ct, -st * ca, st * sa, a * ct],
                             [st, ct * ca, -ct * sa, a * st],
                             [0.0, sa, ca, d],
                             [0.0, 0.0, 0.0, 1.0]])

        def angle_between(u, v):
            return np.arccos(np.dot(u, v) / (np.linalg.norm(u) * np.linalg.norm(v)))
        """
    )
    assert "dtype=jnp.result_type(jnp.float64, ct, st, ca, sa, a, d))" in result.output.decode()
    import jax

    args = (np.float32(0.3), np.float32(0.5), np.float32(1.5), np.float32(0.2))
    with jax.enable_x64(True):
        got, want = np.asarray(migrated.dh_transform(*args)), original.dh_transform(*args)
    assert got.dtype == want.dtype == np.float64
    np.testing.assert_allclose(got, want, rtol=1e-6)


def test_numpy_functions_of_python_number_parameters_keep_numpys_float64():
    """hunt28 S1: `vol * np.sqrt(periods)` with `periods=252`: NumPy 2's np.sqrt of a Python number is a float64
    scalar (strongly typed), so a float32 `vol` gives float64; jax.numpy's of the traced number is weakly typed and
    kept float32 under x64. The result gets `.astype(float)`: NumPy's dtype, float32 without x64."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        def annualized(vol, periods=252):
            return vol * np.sqrt(periods)

        def discounted(x, rate: float):
            return x * np.exp(-rate)

        def scaled(x):
            return x * np.sqrt(x.shape[0])
        """
    )
    output = result.output.decode()
    assert "jnp.sqrt(periods).astype(float)" in output and "jnp.exp(-rate).astype(float)" in output
    assert "np.sqrt(x.shape[0])" in output  # static: it stays NumPy's own float64
    import jax

    v = np.array([0.1, 0.2], np.float32)
    for x64 in (False, True):
        with jax.enable_x64(x64):
            for got, want in ((migrated.annualized(v), original.annualized(v)),
                              (migrated.discounted(v, 0.05), original.discounted(v, 0.05))):
                assert np.asarray(got).dtype == (want.dtype if x64 else np.float32)
                np.testing.assert_allclose(np.asarray(got), want, rtol=1e-6)


def test_numpy_functions_of_parameters_used_only_as_numbers_keep_numpys_float64():
    """hunt55 S1: `a = np.exp(-dt / tau)` with `dt`, `tau` parameters without a default, given Python floats: NumPy's
    result is a float64 scalar (strongly typed), which makes `a * acc + x[i]` float64 for float32 samples; jax.numpy's
    of the traced numbers is weakly typed, and under x64 the filter ran in float32 (1.6e-4 off). The result is cast
    to its own dtype, `.astype(jnp.exp(-dt / tau).dtype)`: strongly typed, as NumPy's scalar; the dtype jax.numpy
    computes for arrays stays (hunt59 S1: `jnp.result_type(k, float)` made an int16 `k`'s float32 float64). Not
    where only literals and number parameters meet it (`alpha * np.exp(x) - alpha`)."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        def decay_trace(x, dt, tau):
            a = np.exp(-dt / tau)
            y = np.empty(len(x))
            acc = 0.0
            for i in range(len(x)):
                acc = a * acc + x[i]
                y[i] = acc
            return y

        def gain(x, gain_db):
            return x * np.power(10.0, gain_db / 20)

        def goertzel_power(x, k):
            n = len(x)
            coeff = 2 * np.cos(2 * np.pi * k / n)
            return np.sum(coeff * x)

        def selu(x, alpha=1.67, scale=1.05):
            return scale * np.where(x > 0, x, alpha * np.exp(x) - alpha)
        """
    )
    output = result.output.decode()
    assert "jnp.exp(-dt / tau).astype(jnp.exp(-dt / tau).dtype)" in output
    assert "jnp.power(10.0, gain_db / 20).astype(jnp.power(10.0, gain_db / 20).dtype)" in output
    assert "jnp.cos(2 * np.pi * k / n).astype(jnp.cos(2 * np.pi * k / n).dtype)" in output
    assert "alpha * jnp.exp(x) - alpha" in output
    import jax

    x = np.random.default_rng(1).normal(size=64).astype(np.float32)
    cases = [("decay_trace", (x, 0.01, 0.5)), ("gain", (x, -6.0)), ("goertzel_power", (x, 5)),
             ("decay_trace", (x, np.float32(0.01), np.float32(0.5))), ("gain", (x, np.array([-6.0, 3.0], np.float32)[:1])),
             ("goertzel_power", (x, np.int16(5))), ("goertzel_power", (x, np.uint8(5)))]
    for x64 in (False, True):
        with jax.enable_x64(x64):
            for name, args in cases:
                want, got = getattr(original, name)(*args), np.asarray(getattr(migrated, name)(*args))
                assert got.dtype == (want.dtype if x64 else np.float32), (name, args[1:], got.dtype, want.dtype)
                np.testing.assert_allclose(got, want, rtol=1e-5 if not x64 else 1e-12, atol=1e-6)


def test_a_wide_integer_array_divided_or_meeting_a_python_float_keeps_numpys_float64():
    """Corpus `cumulative_moving_average` under --x64 with float32 data: `np.cumsum(x) / np.arange(1, n + 1)` is
    float64 in NumPy (float32 meets int64) and was float32 in jax.numpy. The integer side gets `.astype(float)`
    (JAX's default float: float64 with x64, float32 without), for counts NumPy makes int64: `np.arange` of sizes,
    `np.bincount`, a comparison's `.sum()`, `np.count_nonzero`, `argsort`. An in-place `/=` keeps the array's dtype
    in NumPy and is left alone; so are quotients whose other side is a Python number or another int array."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        def running_mean(signal):
            counts = np.arange(1, signal.shape[0] + 1)
            return np.cumsum(signal) / counts

        def centroids(points, labels, k):
            sums = np.zeros((k, points.shape[1]), dtype=points.dtype)
            np.add.at(sums, labels, points)
            return sums / np.maximum(np.bincount(labels, minlength=k), 1)[:, None]

        def masked_mean(x, lo):
            mask = x > lo
            return (x * mask).sum(axis=0) / mask.sum(axis=0)

        def ranks(x):
            r = np.argsort(np.argsort(x))
            return r / (len(x) - 1)

        def in_place(x):
            x = x.copy()
            x /= np.arange(1, x.shape[0] + 1)
            return x

        def hann(n):
            k = np.arange(n)
            return 0.5 - 0.5 * np.cos(2.0 * np.pi * k / (n - 1))

        def energy(signal, n_fft=8):
            return np.sum(np.abs(np.fft.rfft(signal[:n_fft] * hann(n_fft))) ** 2)

        def times(x, dt=0.1):
            return x * (np.arange(x.shape[0]) * dt)

        TWO_PI = 2.0 * np.pi

        def hann_apply(x):
            k = np.arange(x.shape[0])
            return x * (0.5 - 0.5 * np.cos(TWO_PI * k / x.shape[0]))
        """
    )
    output = result.output.decode()
    assert "jnp.cos(TWO_PI * k.astype(float) / x.shape[0])" in output  # hunt33 S1: a module constant's arithmetic
    assert "/ counts.astype(float)" in output and "minlength=k, length=k), 1)[:, None].astype(float)" in output
    assert "/ mask.sum(axis=0).astype(float)" in output
    assert "r / (len(x) - 1)" in output and "x /= jnp.arange(1, x.shape[0] + 1)" in output
    # an int array with a Python float: float64 in NumPy, a *weakly typed* float64 in JAX (narrowed by float32 data)
    assert "2.0 * np.pi * k.astype(float) / (n - 1)" in output
    assert "jnp.arange(x.shape[0]) * dt" in output  # `dt` may be given an int: NumPy's product is then an int array
    import jax

    rng = np.random.default_rng(3)
    x = rng.random(10).astype(np.float32)
    points, labels = rng.random((9, 2)).astype(np.float32), np.array([0, 1, 2, 0, 1, 2, 0, 0, 1])
    calls = (("running_mean", (x,)), ("centroids", (points, labels, 3)), ("masked_mean", (points, np.float32(0.5))),
             ("ranks", (x,)), ("in_place", (x,)), ("energy", (x,)), ("hann_apply", (x,)))
    for x64 in (False, True):
        with jax.enable_x64(x64):
            for name, args in calls:
                got, want = np.asarray(getattr(migrated, name)(*args)), getattr(original, name)(*args)
                assert got.dtype == (want.dtype if x64 else np.float32), (name, x64, got.dtype)
                np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7)  # (a window's ends cancel in float32)


def test_a_float_function_of_a_parameter_defaulting_to_a_module_constant_keeps_numpys_float64():
    """Corpus `annualized_volatility(prices, periods=TRADING_DAYS)` with `TRADING_DAYS = 252`: as for `periods=252`,
    `np.sqrt(periods)` is NumPy's float64 scalar; a default bound to a NumPy float32 scalar is not a Python number."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        TRADING_DAYS = 252
        HALF = np.float32(0.5)

        def annualized(vol, periods=TRADING_DAYS):
            return vol * np.sqrt(periods)

        def halved(vol, h=HALF):
            return vol * np.sqrt(h)
        """
    )
    output = result.output.decode()
    assert "jnp.sqrt(periods).astype(float)" in output and "jnp.sqrt(h))" not in output and "jnp.sqrt(h)\n" in output
    import jax

    v = np.array([0.1, 0.2], np.float32)
    with jax.enable_x64(True):
        for name in ("annualized", "halved"):
            got, want = np.asarray(getattr(migrated, name)(v)), getattr(original, name)(v)
            assert got.dtype == want.dtype, name
            np.testing.assert_allclose(got, want, rtol=1e-6)


def test_numpy_functions_that_compute_in_float64_get_float64_data():
    """Corpus descriptive_stats under --x64 with float32 data: `np.cov`/`np.corrcoef` compute in
    `np.result_type(m, np.float64)`, `np.interp` converts to float64, and `np.quantile`/`np.percentile` of a list of
    quantiles promote the data with that float64 array; jax.numpy kept float32. A plain-read argument is converted
    first (`jnp.asarray(x, dtype=jnp.result_type(x, jnp.float64))`: float32 without x64, complex stays complex)."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        QUANTILES = (0.25, 0.5, 0.75)

        def summary(x):
            return np.quantile(x, QUANTILES, axis=0)

        def iqr(x):
            q75, q25 = np.percentile(x, [75, 25], axis=0)
            return q75 - q25

        def middle(x):
            return np.quantile(x, 0.5)

        def covariance(x):
            return np.cov(x, rowvar=False)

        def correlation(x):
            return np.corrcoef(x, rowvar=False)

        def resample(t, tp, yp):
            return np.interp(t, tp, yp)
        """
    )
    output = result.output.decode()
    assert "jnp.cov(jnp.asarray(x, dtype=jnp.result_type(x, jnp.float64)), rowvar=False)" in output
    assert "jnp.interp(jnp.asarray(t, dtype=float), jnp.asarray(tp, dtype=float), jnp.asarray(yp, dtype=jnp.result_type(yp, jnp.float64)))" in output
    assert "jnp.quantile(x, 0.5)" in output  # a Python float keeps the data's dtype in NumPy too
    import jax

    rng = np.random.default_rng(5)
    for dtype in (np.float32, np.float64, np.int64):
        x = (rng.random((12, 3)) * 10).astype(dtype)
        t, tp, yp = (np.sort(rng.random(n) * 10).astype(dtype) for n in (5, 7, 7))
        calls = (("summary", (x,)), ("iqr", (x,)), ("middle", (x,)), ("covariance", (x,)), ("correlation", (x,)),
                 ("resample", (t, tp, yp)))
        for x64 in (False, True):
            with jax.enable_x64(x64):
                for name, args in calls:
                    got, want = np.asarray(getattr(migrated, name)(*args)), np.asarray(getattr(original, name)(*args))
                    if x64:
                        assert got.dtype == want.dtype, (name, dtype, got.dtype, want.dtype)
                    # NumPy's quantile subtracts neighbours in float32 before its float64 interpolation
                    np.testing.assert_allclose(got, want, rtol=1e-6 if x64 else 2e-5, atol=1e-6)


def test_pinv_keeps_numpys_default_cutoff():
    """hunt29 S1: NumPy's `pinv` cuts singular values below 1e-15 of the largest by default, jax.numpy's below
    10 * max(M, N) * eps: on nearly collinear columns the fit was [0.4, 0.8, ...] instead of NumPy's [-9644, 4823, ...]
    under x64. The cutoff is spelled out (`rtol=1e-15`); `rcond=` is renamed, `rcond=None` is NumPy's default too."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        def fit(X, y):
            return np.linalg.pinv(X.T @ X) @ (X.T @ y)

        def fit_none(X, y):
            return np.linalg.pinv(X, rcond=None) @ y

        def fit_rcond(X, y):
            return np.linalg.pinv(X, rcond=1e-10) @ y

        def fit_rtol(X, y):
            return np.linalg.pinv(X, rtol=None) @ y
        """
    )
    output = result.output.decode()
    assert "jnp.linalg.pinv(X.T @ X, rtol=1e-15)" in output and "jnp.linalg.pinv(X, rtol=1e-15)" in output
    assert "jnp.linalg.pinv(X, rtol=1e-10)" in output and "jnp.linalg.pinv(X, rtol=None)" in output
    import jax

    rng = np.random.default_rng(0)
    x1, x3, e = rng.normal(size=50), rng.normal(size=50), rng.normal(size=50)
    X = np.c_[x1, 2 * x1 + 3e-7 * e, x3, np.ones(50)]
    y = X @ np.array([1.0, 0.5, -2.0, 3.0]) + 0.01 * rng.normal(size=50)
    with jax.enable_x64(True):
        want, got = original.fit(X, y), np.asarray(migrated.fit(X, y))
        assert abs(want[0]) > 1000  # NumPy keeps the tiny singular value
        np.testing.assert_allclose(got, want, rtol=0.1)  # (an ill-conditioned solve: the SVDs differ in rounding)
        for name in ("fit_none", "fit_rcond", "fit_rtol"):
            np.testing.assert_allclose(np.asarray(getattr(migrated, name)(X, y)), getattr(original, name)(X, y),
                                       rtol=0.1, atol=1e-6)


def test_np_ix_becomes_jnp_ix():
    """hunt29/real23 FP: `np.ix_` was refused as having no jax.numpy twin (NPJ101), which kept properscoring's
    `crps_ensemble` NumPy through NPJ202; `jnp.ix_` builds the same open mesh."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        def sub_block(D, rows, cols):
            return D[np.ix_(rows, cols)].sum(axis=0)
        """
    )
    assert "D[jnp.ix_(rows, cols)]" in result.output.decode() and not result.diagnostics
    D = np.arange(20.0).reshape(4, 5)
    rows, cols = np.array([0, 2, 3]), np.array([4, 1])
    np.testing.assert_array_equal(np.asarray(migrated.sub_block(D, rows, cols)), original.sub_block(D, rows, cols))


def test_in_place_calls_on_a_parameter_rebound_to_its_copy_become_functional():
    """hunt29 FP: `counts = counts.copy(); np.add.at(counts, idx, 1)`, `M = M.copy(); np.fill_diagonal(M, 0)`,
    `x = x.astype(float); np.clip(x, 0, 1, out=x)` and `y = x.copy(); y.sort()` were refused (NPJ111/NPJ103/NPJ201):
    the parameter's own binding counted though the function rebinds it first thing. A view of the parameter
    (`counts = counts[1:]`) or the parameter itself (`M = M`) still is refused: NumPy writes into the caller's array."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        def hist_add(counts, idx):
            counts = counts.copy()
            np.add.at(counts, idx, 1)
            return counts

        def zero_diag(M):
            M = M.copy()
            np.fill_diagonal(M, 0)
            return M

        def unit_clip(x):
            x = x.astype(float)
            np.clip(x, 0, 1, out=x)
            return x

        def smallest3(x):
            y = x.copy()
            y.sort()
            return y[:3]

        def view_add(counts, idx):
            counts = counts[1:]
            np.add.at(counts, idx, 1)
            return counts

        def alias_fill(M):
            M = M
            np.fill_diagonal(M, 0)
            return M
        """
    )
    output = result.output.decode()
    assert "counts = counts.at[idx].add(1)" in output and "M = jnp.fill_diagonal(M, 0, inplace=False)" in output
    assert "y = jnp.sort(y)" in output
    assert sorted(d.code for d in result.diagnostics if d.severity.value == "error") == ["NPJ111", "NPJ111"]
    counts, idx = np.array([1, 0, 2, 0]), np.array([0, 0, 3])
    M, x = np.arange(9.0).reshape(3, 3), np.array([3.0, -1.0, 0.5, 2.0, 0.25])
    for name, args in (("hist_add", (counts, idx)), ("zero_diag", (M,)), ("unit_clip", (x,)), ("smallest3", (x,))):
        before = [a.copy() for a in args]
        np.testing.assert_array_equal(np.asarray(getattr(migrated, name)(*args)), getattr(original, name)(*args))
        for a, b in zip(args, before):
            np.testing.assert_array_equal(a, b)  # the caller's arrays stay as they were, in both


def test_a_number_parameter_beside_an_array_in_a_converted_if_gets_the_promoted_dtype():
    """hunt29 L1: `if s < margin: s = margin` with `margin=1` became `lax.cond(..., lambda: margin, lambda: s)`, which
    raises for float data (an int32 branch beside a float32 one). A parameter meant to be a number gets the dtype the
    two promote to, as literals already did."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        def hinge(x, margin=1):
            s = np.sum(x)
            if s < margin:
                s = margin
            return s
        """
    )
    output = result.output.decode()
    assert "lambda: jnp.asarray(margin, jnp.result_type(margin, s))" in output
    import jax

    for x64 in (False, True):
        with jax.enable_x64(x64):
            for x in (np.array([0.1, 0.2], np.float32), np.array([3.0, 2.0]), np.array([0.1, -0.5])):
                for margin in (1, 2.5):
                    np.testing.assert_allclose(float(migrated.hinge(x, margin)), original.hinge(x, margin), rtol=1e-6)


def test_exact_zero_tests_of_a_spread_are_reported():
    """hunt29 S4: `sd = returns.std(ddof=1); if sd == 0: return np.nan` gave 2.85e16 instead of NaN for constant returns
    under x64: XLA's mean of `np.full(250, 0.1)` misses by one unit in the last place, so the spread is 5.6e-17. NPJ120
    reports a std or var that reaches `==`, or an ordering against a literal zero (`if sd > 0:`, also
    `np.cross(...) > 0`, an orientation test)."""
    import jax

    with jax.enable_x64(True):
        assert float(jax.jit(jax.numpy.std)(np.full(250, 0.1))) != 0.0 == np.std(np.full(250, 0.1))
    source = """
        import numpy as np

        def sharpe(returns, periods=252):
            sd = returns.std(ddof=1)
            if sd == 0:
                return np.nan
            return np.sqrt(periods) * returns.mean() / sd

        def scaled(x):
            s = np.std(x)
            return np.where(s > 0, (x - x.mean()) / s, 0.0)

        def left_turn(a, b, c):
            return np.cross(b - a, c - a) > 0

        def spread_is_fine(x):
            return np.std(x) > 1e-3

        def flat(x):
            v = np.var(x)
            w = np.nanstd(x, axis=0)
            return v == 0, np.all(w == 0)
        """
    result, _, _ = migrated_pair(source)
    lines = textwrap.dedent(source).lstrip("\n").splitlines()
    flagged = {lines[d.line - 1].strip() for d in result.diagnostics if d.code == "NPJ120"}
    assert flagged == {"sd = returns.std(ddof=1)", "s = np.std(x)", "return np.cross(b - a, c - a) > 0", "v = np.var(x)",
                       "w = np.nanstd(x, axis=0)"}, flagged  # (hunt30 L3: np.var crashed the rule, file left unchanged)


def test_integer_convolutions_accumulate_in_numpys_dtype():
    """hunt29 S2: jax.numpy converts integer data to float before `convolve`/`correlate`, NumPy sums in the data's
    dtype: `[16777217, 0, 3]` (int32) gave `[16777216., 3.]`, a uint8 cross-correlation did not wrap (argmax moved).
    `preferred_element_type=jnp.result_type(a, v)` makes XLA accumulate in NumPy's dtype; floats keep theirs."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        def pair_sums(counts):
            return np.convolve(counts, np.ones(2, dtype=counts.dtype), mode="valid")

        def xcorr(a, b):
            return np.correlate(a, b, mode="full")

        def smooth(x):
            return np.convolve(x, np.ones(3), mode="same")

        def reversed_kernel(u, w):
            return np.convolve(u, w[::-1], mode="valid")
        """
    )
    output = result.output.decode()
    assert "preferred_element_type=jnp.result_type(counts, counts.dtype)" in output
    assert "preferred_element_type=jnp.result_type(a, b)" in output
    assert "preferred_element_type=jnp.result_type(x, jnp.float64)" in output
    assert "preferred_element_type=jnp.result_type(u, w[::-1])" in output
    import jax

    big = np.array([16777217, 0, 3], np.int32)
    u8a, u8b = np.array([0, 200, 250, 1, 0], np.uint8), np.array([1, 3, 1], np.uint8)
    f32 = np.array([0.5, 1.25, -2.0, 3.0], np.float32)
    for x64 in (False, True):
        with jax.enable_x64(x64):
            for name, args in (("pair_sums", (big,)), ("xcorr", (u8a, u8b)), ("xcorr", (f32, f32[:2])),
                               ("smooth", (f32,)), ("reversed_kernel", (big, big[:2])), ("reversed_kernel", (f32, f32[:3]))):
                got, want = np.asarray(getattr(migrated, name)(*args)), getattr(original, name)(*args)
                assert got.dtype.kind == want.dtype.kind and (not x64 or got.dtype == want.dtype), (name, got.dtype)
                if want.dtype.kind in "iu":
                    np.testing.assert_array_equal(got, want)
                else:
                    np.testing.assert_allclose(got, want, rtol=1e-6)


def test_a_bins_parameter_holding_edges_is_not_made_static():
    """hunt29 L3: `def binned(x, edges=EDGES): np.histogram(x, bins=edges)` got `static_argnums=(1,)`, and an array
    given there raised "Non-hashable static arguments". A `bins=` parameter named for edges or defaulting to an array
    stays traced (jnp.histogram takes traced edges); one defaulting to an int count stays static."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        EDGES = np.linspace(0, 1, 5)

        def binned(x, edges=EDGES):
            return np.histogram(x, bins=edges)[0].astype(float)

        def binned_noarg(x, edges):
            return np.histogram(x, bins=edges)[0].astype(float)

        def counted(x, bins=4):
            return np.histogram(x, bins=bins)[0].astype(float)
        """
    )
    output = result.output.decode()
    assert "@jax.jit\ndef binned(" in output and "@jax.jit\ndef binned_noarg(" in output
    assert "static_argnums=(1,))\ndef counted(" in output
    x = np.array([0.1, 0.3, 0.35, 0.9, 0.6])
    edges = np.array([0.0, 0.5, 1.0])
    np.testing.assert_array_equal(np.asarray(migrated.binned(x)), original.binned(x))
    np.testing.assert_array_equal(np.asarray(migrated.binned(x, edges)), original.binned(x, edges))
    np.testing.assert_array_equal(np.asarray(migrated.binned_noarg(x, edges)), original.binned_noarg(x, edges))
    np.testing.assert_array_equal(np.asarray(migrated.counted(x, 3)), original.counted(x, 3))


def test_np_copy_of_a_list_still_copies():
    """real23 L3: `np.copy(p)` became `jnp.copy(p)`, which refuses a list (ahrs passes quaternions as lists:
    `slerp([1, 0, 0, 0], ...)`); `jnp.array(p)` copies any array_like, under jit a list of tracers too."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        def blend(p, q, t):
            p = np.copy(p)
            t = np.copy(t)
            return p[None, :] * (1.0 - t[:, None]) + np.asarray(q)[None, :] * t[:, None]
        """
    )
    assert "p = jnp.array(p)" in result.output.decode()
    t = np.array([0.0, 0.5, 1.0])
    for p, q in (([1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0]), (np.array([1.0, 2.0]), np.array([3.0, 5.0]))):
        np.testing.assert_allclose(np.asarray(migrated.blend(p, q, t)), original.blend(p, q, t))


def test_int_array_casts_leave_in_place_updates_alone_and_cover_int32():
    """hunt30 S1/L2: `acc += 2.0 * np.arange(n)` got the cast, so a float32 `acc` (NumPy keeps its dtype in place)
    became float64, and a loop carrying it raised. Values of augmented assignments are left alone. hunt30 S6: an
    explicit int32 array (`np.arange(..., dtype=np.int32)`, `.astype(np.int32)`) divided by anything, another int or a
    Python int included, is float32 in jax.numpy under x64 and float64 in NumPy: it is cast."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        def ramp(frame):
            acc = np.zeros_like(frame)
            acc += 2.0 * np.arange(frame.shape[0])
            return acc

        def accumulate(frames, k):
            acc = np.zeros_like(frames[0])
            for i in range(frames.shape[0]):
                acc += frames[i] * (0.5 * np.arange(frames.shape[1]))
            return acc

        def running_mean(x):
            k = np.arange(1, x.shape[0] + 1, dtype=np.int32)
            return np.cumsum(x) / k

        def harmonic(x):
            acc = np.zeros(x.shape[-1])
            for i in range(x.shape[0]):
                acc += x[i] / np.arange(1, x.shape[-1] + 1)
            return acc

        def halves(t):
            s = t.astype(np.int32)
            return s / 2, s / s.max()

        def dft(x):
            n = x.shape[0]
            k = np.arange(n)
            return np.exp(-2j * np.pi * np.outer(k, k) / n) @ x
        """
    )
    output = result.output.decode()
    # in place, the cast is to the target's own float dtype (hunt32 S3: a float64 accumulator of float16 data)
    assert "acc += 2.0 * jnp.arange(frame.shape[0]).astype(jnp.result_type(acc, float))" in output
    assert "/ k.astype(float)" in output
    assert "s.astype(float) / 2" in output
    assert "-2j * np.pi * jnp.outer(k, k).astype(float) / n" in output  # (hunt30 L7: a weak complex128 met float32)
    import jax

    f32 = np.array([[0.5, 1.5, 2.5], [1.0, 2.0, 3.0]], np.float32)
    ints = np.array([3, 8, 5, 12])
    for x64 in (False, True):
        with jax.enable_x64(x64):
            for name, args in (("ramp", (f32[0],)), ("accumulate", (f32, 2)), ("running_mean", (f32[0],)),
                               ("halves", (ints,)), ("dft", (f32[1],)), ("harmonic", (f32.astype(np.float16),))):
                got, want = migrated.__dict__[name](*args), original.__dict__[name](*args)
                for g, w in zip(got if isinstance(got, tuple) else (got,), want if isinstance(want, tuple) else (want,)):
                    g = np.asarray(g)
                    narrow = np.complex64 if w.dtype.kind == "c" else np.float32
                    assert g.dtype == (w.dtype if x64 else narrow), (name, x64, g.dtype, w.dtype)
                    np.testing.assert_allclose(g, w, rtol=1e-6)


def test_same_kind_functions_of_python_number_parameters_keep_numpys_strong_dtype():
    """hunt30 S5: `img * np.square(k)` with `k=16` and a uint8 image: NumPy 2's `np.square(16)` is an int64 scalar, so
    the product is int64 (38144); jax.numpy's is weakly typed and the uint8 product wrapped to 0. The result gets
    `.astype(jnp.result_type(k))`: int64 for an int (int32 without x64), float64 for a float."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        def area_scale(img, k=16):
            return img * np.square(k)

        def gain(img, factor=-2):
            return img * np.abs(factor)
        """
    )
    assert "jnp.square(k).astype(jnp.result_type(k))" in result.output.decode()
    import jax

    img = np.array([149, 3, 255], np.uint8)
    for x64 in (False, True):
        with jax.enable_x64(x64):
            for name, extra in (("area_scale", ()), ("area_scale", (1.5,)), ("gain", ()), ("gain", (3,))):
                got, want = np.asarray(getattr(migrated, name)(img, *extra)), getattr(original, name)(img, *extra)
                np.testing.assert_allclose(got, want, rtol=1e-6)
                assert got.dtype.kind == want.dtype.kind and (not x64 or got.dtype == want.dtype), (name, got.dtype)


def test_float_functions_of_python_numbers_through_locals_and_static_parameters_keep_float64():
    """hunt31 S1 (a Goertzel filter): `w = 2.0 * np.pi * k / x.shape[0]; coeff = 2.0 * np.cos(w)` and
    `np.cos(2.0 * np.pi * k / 64)` with a static `k: int` are NumPy float64 scalars, which promote float32 data;
    jax.numpy's were weakly typed (1.4e-4 relative error on a weak bin under x64). Locals bound to arithmetic of
    number parameters, literals, `np.pi` and sizes count now. A parameter with no hint and no default may be an
    array, whose dtype `np.cos` keeps: its result is only made strongly typed, `.astype(jnp.cos(k).dtype)`."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        def coeff_static(x, k: int):
            return x * np.cos(2.0 * np.pi * k / 64)

        def goertzel(x, k=3):
            w = 2.0 * np.pi * k / x.shape[0]
            coeff = 2.0 * np.cos(w)
            s1 = s2 = 0.0
            for i in range(x.shape[0]):
                s1, s2 = x[i] + coeff * s1 - s2, s1
            return s2 ** 2 + s1 ** 2 - coeff * s1 * s2

        def unknown(x, k):
            return x * np.cos(k)
        """
    )
    output = result.output.decode()
    assert "jnp.cos(2.0 * np.pi * k / 64).astype(float)" in output and "2.0 * jnp.cos(w).astype(float)" in output
    assert "x * jnp.cos(k).astype(jnp.cos(k).dtype)\n" in output  # (the same dtype, strongly typed: hunt55 S1)
    import jax

    x = np.sin(np.arange(64) * 0.3).astype(np.float32)
    with jax.enable_x64(True):
        for name, args in (("coeff_static", (x, 5)), ("goertzel", (x,)), ("goertzel", (x, 7)),
                           ("unknown", (x, np.float32(0.3)))):
            got, want = np.asarray(getattr(migrated, name)(*args)), getattr(original, name)(*args)
            assert got.dtype == np.asarray(want).dtype, (name, got.dtype)
            np.testing.assert_allclose(got, want, rtol=1e-9 if got.dtype == np.float64 else 1e-5)


def test_a_column_index_computed_from_loop_indices_and_a_slice_length_parameter_is_one_int():
    """hunt34 FP7: `cols[:, r * n + i] = x[r, i:i + k]` (im2col) was refused as a possible index array (NPJ201)
    because `n` comes from the parameter `k`; `k` is a term of a slice bound, where NumPy takes nothing but an
    int, so `r * n + i` indexes one column."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        def unfold(x, k):
            n = x.shape[1] - k + 1
            cols = np.zeros((k, x.shape[0] * n))
            for r in range(x.shape[0]):
                for i in range(n):
                    cols[:, r * n + i] = x[r, i:i + k]
            return cols

        def spread(x, w):
            out = np.zeros(x.shape[0] * 2)
            for i in range(x.shape[0]):
                out[i * w] = x[i]
            return out
        """
    )
    assert record(result, "unfold").jit and not any(d.code == "NPJ201" and d.line < 11 for d in result.diagnostics)
    assert any(d.code == "NPJ201" and d.line > 11 for d in result.diagnostics)  # `w` may be an index array there
    x = np.arange(12.0).reshape(2, 6)
    np.testing.assert_array_equal(np.asarray(migrated.unfold(x, 3)), original.unfold(x, 3))


def test_a_range_index_passed_to_a_function_updating_its_parameter_is_not_an_array():
    """real24 FP8 (pyDOE3's halton): `vdc(i, b)` with `i` from `range()` and `i //= base` in `vdc` was refused
    (NPJ201: the caller may read `i` after NumPy updated it in place), and `halton` with it (NPJ202); a Python
    int is rebound by `//=` in NumPy too."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        def vdc(i, base):
            f, r = 1.0, 0.0
            while i > 0:
                f /= base
                r += f * (i % base)
                i //= base
            return r

        def halton(num_points, bases):
            out = np.empty((num_points, len(bases)))
            for d, b in enumerate(bases):
                for i in range(num_points):
                    out[i, d] = vdc(i, b)
            return out
        """
    )
    assert not any(d.code in ("NPJ201", "NPJ202") for d in result.diagnostics)
    assert record(result, "vdc").status == "migrated"
    np.testing.assert_array_equal(np.asarray(migrated.halton(5, [2, 3])), original.halton(5, [2, 3]))


@pytest.mark.parametrize("index, unique", [
    ("[:, [0, 3], [1, 2]]", True), ("[[0, 2]]", True), ("[:, [0, 0], [1, 2]]", True), ("[[1], [0, 2]]", True),
    ("[[0, 0]]", False), ("[[0, -1]]", False), ("[:, [0, 1], [1, 1, 2]]", False), ("[[0, 1], [2, 2]]", True),
    ("[[0, 0], [2, 2]]", False),
])
def test_literal_index_lists_naming_distinct_positions_are_unique(index, unique):
    """real24 FP7 (rowan's skew matrices): `A[:, [0, 3], [1, 2]] = -X[:, [0]]` was refused as a possible index
    with repeats (NPJ201); lists of non-negative int literals naming distinct positions are migrated."""
    result, original, migrated = migrated_pair(
        f"""
        import numpy as np

        def put(X):
            A = np.zeros((4, 4, 4))
            A{index} = X
            return A
        """
    )
    assert (not any(d.code == "NPJ201" for d in result.diagnostics)) == unique
    if unique:
        np.testing.assert_array_equal(np.asarray(migrated.put(7.0)), original.put(7.0))


def test_a_fresh_copy_handed_to_a_function_that_keeps_no_reference_to_it_is_written_in_place():
    """hunt33 FP7 / hunt31 FP3: `pos = pos.copy(); acc = accel(pos); pos += dt * vel` was refused (NPJ201): the
    call's result was taken to be possibly `pos` or a view of it.  A function of the module that uses the parameter
    only in arithmetic, through its shape and in NumPy calls that make new arrays keeps no reference to it.  Not
    for one that stores it (`hist.append(p)`), returns NumPy's view of it (`np.diag(m)`), or whose name a `global`
    statement may rebind (hunt32 S1/S2/S7, why 3076e78 was reverted)."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        def accel(p, k=1.0):
            return -k * p / np.linalg.norm(p) ** 3

        def drift(pos, vel, dt=0.1, steps=3):
            pos = pos.astype(float).copy()
            for _ in range(steps):
                acc = accel(pos)
                pos += dt * vel
                vel = vel + dt * acc
            return pos, vel

        def get_diag(m):
            return np.diag(m)

        def run_diag(m):
            m = m.copy()
            d = get_diag(m)
            m += 1.0
            return d * 2.0

        def record(p, hist):
            hist.append(p)
            return p * 2.0

        def run_hist(x):
            hist = []
            y = np.array(x, dtype=float)
            z = record(y, hist)
            y += 1.0
            return np.stack(hist)[0] + z

        def force(p):
            return -p / np.linalg.norm(p)

        def use_raw():
            global force
            force = lambda p: p.reshape(p.shape)

        def run_global(x, v):
            y = x.copy()
            a = force(y)
            y += v
            return a
        """
    )
    assert record(result, "drift").jit
    flagged = {d.line for d in result.diagnostics if d.code == "NPJ201"}
    assert flagged == {20, 31, 44}, flagged  # `m += 1.0`, `y += 1.0`, `y += v`
    pos, vel = np.array([1.0, 2.0]), np.array([0.5, -0.25])
    for got, want in zip(migrated.drift(pos, vel), original.drift(pos, vel)):
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-6)


def test_a_static_method_neither_blocks_nor_is_blocked_by_its_class():
    """real25 FP4 (kneed's DataGenerator): `Gen.ramp`, a static method of linspace and sqrt, was left NumPy with
    NPJ202 because the static method `noisy` draws from np.random: static methods share no `self`."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        class Gen:
            def __init__(self, n):
                self.n = n

            @staticmethod
            def noisy(seed=42):
                np.random.seed(seed)
                return np.sort(np.random.normal(size=5))

            @staticmethod
            def ramp():
                x = np.linspace(0.0, 1.0, 10)
                return x, np.sqrt(x) + 1.0

            def grid(self):
                np.random.seed(self.n)
                return np.random.normal(size=self.n)
        """
    )
    assert record(result, "Gen.ramp").status == "migrated" and "jnp.sqrt(x)" in result.output.decode()
    assert record(result, "Gen.noisy").status == "unsupported" and record(result, "Gen.grid").status == "unsupported"
    for got, want in zip(migrated.Gen.ramp(), original.Gen.ramp()):
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-6)


def test_an_update_of_a_copy_of_a_parameter_keeps_the_callers_dtype():
    """hunt36 S1/L2: `out = np.array(c); out += steps.sum(axis=0)` with an int8 `c`: NumPy casts the sum back into
    int8 (it wraps: -120), the migrated rebinding widened it (136); in a loop the fori_loop carry changed dtype and
    raised.  `+=` on a copy of a parameter's array becomes `(out + v).astype(out.dtype)`."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        def add_counts(c, steps):
            out = np.array(c)
            out += steps.sum(axis=0)
            return out

        def tally(c: np.ndarray, steps):
            out = c.copy()
            for i in range(steps.shape[0]):
                out += steps[i]
            return out

        def extend(items, extra):
            out = items.copy()
            out += extra
            return np.array(out)
        """
    )
    output = result.output.decode()
    assert "out = (out + steps.sum(axis=0)).astype(out.dtype)" in output
    # hunt37 L1: `.copy()` of a parameter nothing says is an array may be a list's (which has no `.astype`)
    assert "    out += extra" in output
    assert np.array_equal(np.asarray(migrated.extend([1.0], [2.0, 3.0])), original.extend([1.0], [2.0, 3.0]))
    c, steps = np.array([120, -5, 100], np.int8), np.array([[5, 5, 5], [10, 0, 0], [1, 1, 1]])
    for name in ("add_counts", "tally"):
        got, want = np.asarray(getattr(migrated, name)(c, steps)), getattr(original, name)(c, steps)
        assert got.dtype == want.dtype and np.array_equal(got, want), (name, got, want)
    x = np.linspace(0.0, 1.0, 3)
    np.testing.assert_allclose(np.asarray(migrated.tally(x, steps)), original.tally(x, steps), rtol=1e-6)


def test_a_shifted_arange_index_is_unique():
    """hunt36 FP1: `idx = np.arange(n - 1); H[idx, idx + 1] = off` (a tridiagonal matrix) was refused as a
    possible index with repeats (NPJ201); a shift of distinct integers stays distinct."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        def tridiag(d, off):
            n = d.shape[0]
            H = np.zeros((n, n))
            idx = np.arange(n - 1)
            H[idx, idx + 1] = off
            H[idx + 1, idx] = off
            H[np.arange(n), np.arange(n)] = d
            return H

        def wrapped(v):
            H = np.zeros(3)
            idx = np.arange(6)
            H[idx - 3] = v
            return H
        """
    )
    assert record(result, "tridiag").jit
    # a shift down may name an element twice through negative positions (-3 is 0 for a length of 3)
    assert [d.code for d in result.diagnostics] == ["NPJ201"] and result.diagnostics[0].line > 12
    d, off = np.array([2.0, 3.0, 4.0]), np.array([-1.0, -0.5])
    np.testing.assert_array_equal(np.asarray(migrated.tridiag(d, off)), original.tridiag(d, off))


def test_a_method_left_numpy_called_through_its_class_keeps_the_caller_numpy():
    """hunt37 S1/S2: `Norm.center(w)`, a static method writing its argument in place (NPJ201), called through the
    class from a module function or a sibling static method: the caller was jitted and returned `w` uncentered.
    Such a call keeps the caller NumPy code, as a call by name does (NPJ202)."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        class Norm:
            @staticmethod
            def center(x):
                x -= x.mean()
                return x

            @staticmethod
            def centered_log(x):
                w = np.log(x)
                Norm.center(w)
                return w

        def centered_exp(x):
            w = np.exp(x)
            Norm.center(w)
            return w
        """
    )
    assert {d.line for d in result.diagnostics if d.code == "NPJ202"} == {12, 17}
    x = np.linspace(0.5, 2.0, 5)
    np.testing.assert_allclose(migrated.centered_exp(x), original.centered_exp(x))
    np.testing.assert_allclose(migrated.Norm.centered_log(x), original.Norm.centered_log(x))


def test_bincount_weights_are_summed_as_floats():
    """hunt46 S1/L5: NumPy sums `np.bincount`'s weights as float64 whatever their dtype; jax.numpy summed int32
    weights in int32 (2**30 three times wrapped to -2**30) and refused bool weights (`weights=(y_pred == y_true)`,
    per-class accuracy). The weights are converted with `jnp.asarray(w, dtype=float)`."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        def bytes_per_class(labels, nbytes, n_classes):
            return np.bincount(labels, weights=nbytes, minlength=n_classes)

        def per_class_accuracy(y_true, y_pred, n_classes):
            correct = np.bincount(y_true, weights=(y_pred == y_true), minlength=n_classes)
            total = np.bincount(y_true, minlength=n_classes)
            return correct / np.maximum(total, 1)
        """
    )
    output = result.output.decode()
    assert "weights=jnp.asarray(nbytes, dtype=float)" in output and "weights=jnp.asarray((y_pred == y_true), dtype=float)" in output
    labels = np.array([0, 0, 0, 1])
    nbytes = np.full(4, 2 ** 30, dtype=np.int32)
    got = np.asarray(migrated.bytes_per_class(labels, nbytes, 2))
    want = original.bytes_per_class(labels, nbytes, 2)
    assert got.dtype.kind == "f"
    np.testing.assert_allclose(got, want, rtol=1e-6)  # float32 without x64: 3.2e9 to 7 digits
    y_true, y_pred = np.array([0, 1, 1, 0]), np.array([0, 1, 0, 1])
    np.testing.assert_allclose(np.asarray(migrated.per_class_accuracy(y_true, y_pred, 2)), original.per_class_accuracy(y_true, y_pred, 2))


def test_bincount_weights_that_may_be_none_stay_none():
    """hunt47 L: `weights=w` with `w=None` became `jnp.asarray(None, dtype=float)`, which raises; a None weight
    is left alone and one that may be None is converted only when it is not (`w is None` is static under jit)."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        def histogram(labels, w=None):
            return np.bincount(labels, weights=w, minlength=4)

        def counts(labels):
            return np.bincount(labels, weights=None, minlength=4)

        def covariance(x, y=None):
            return np.cov(x, y)
        """
    )
    output = result.output.decode()
    assert "weights=None if w is None else jnp.asarray(w, dtype=float)" in output and "weights=None," in output, output
    labels = np.array([0, 3, 3, 1])
    x = np.array([[1.0, 2.0, 4.0], [0.5, 0.25, 3.0]])
    for name, args in (("histogram", (labels,)), ("histogram", (labels, labels == 3)), ("counts", (labels,)),
                       ("covariance", (x,)), ("covariance", (x[0], x[1]))):
        np.testing.assert_allclose(np.asarray(getattr(migrated, name)(*args)), getattr(original, name)(*args), rtol=1e-6, err_msg=name)


def test_a_finite_difference_with_a_small_step_is_reported():
    """hunt46 S2: a central difference with `eps=1e-6` runs in float32 without x64 and keeps about one digit
    (d/dx sum(sin(x)) came out 0.715 for cos(0.5) = 0.878); it was reported only as a converted loop. NPJ116 now
    reports a difference divided by a step below 1e-3 (a literal, a local or a parameter default), not a
    larger step nor Python-number arithmetic."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        def numerical_gradient(x, eps=1e-6):
            g = np.zeros(x.shape[0])
            for i in range(x.shape[0]):
                dx = np.zeros(x.shape[0])
                dx[i] = eps
                g[i] = (np.sum(np.sin(x + dx)) - np.sum(np.sin(x - dx))) / (2 * eps)
            return g

        def coarse_slope(x, h=0.01):
            return (np.sin(x + h) - np.sin(x - h)) / (2 * h)

        def rounding_at_one(x):
            h = 1e-6
            return x + ((1.0 + h) - 1.0) / h

        MICRO = 1e-6

        def to_micro(raw, offset):
            return (np.asarray(raw, dtype=float) - offset) / MICRO

        def detrended(trace):
            return (trace - np.median(trace)) / 1e-6

        def forward_slope(x):
            h = 1e-5
            return (np.exp(x + h) - np.exp(x)) / h

        def directional(x, d, eps=1e-7):
            step = eps * d
            return (np.sin(x + step) - np.sin(x)) / eps
        """
    )
    found = [(d.line, d.message) for d in result.diagnostics if d.code == "NPJ116"]
    # (hunt47 FP: a quotient by 1e-6 that nothing was moved by, to_micro's and detrended's, is a change of unit)
    assert [line for line, _ in found] == [8, 28, 32], found
    assert "a step of `eps`" in found[0][1] or "a step of `1e-6`" in found[0][1]
    assert "about 1 correct digit" in found[0][1]
    x = np.linspace(0.1, 1.0, 6)
    want = original.numerical_gradient(x)
    got = np.asarray(migrated.numerical_gradient(jnp.asarray(x, dtype=jnp.float32)))
    assert np.abs(got - want).max() > 1e-3  # what the diagnostic is about: float32 loses the digits


def test_a_class_method_named_like_an_array_method_is_not_an_in_place_write():
    """hunt47 FP: `c = Canvas(n); c.fill(v)` calls the class's own `fill`, not ndarray.fill: it was reported as
    an in-place write (NPJ201) and kept `paint` and `Canvas` NumPy. An array's `img.fill(0.5)` still becomes
    `jnp.full_like`."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        class Canvas:
            def __init__(self, n):
                self.pixels = np.zeros((n, n))

            def fill(self, value):
                self.pixels = np.full_like(self.pixels, value)
                return self

        def paint(n, v):
            c = Canvas(n)
            c.fill(v)
            return c.pixels.sum()

        def grey(n):
            img = np.zeros((n, n))
            img.fill(0.5)
            return img
        """
    )
    output = result.output.decode()
    assert not [d for d in result.diagnostics if d.code in ("NPJ201", "NPJ202")], [d.format() for d in result.diagnostics]
    assert "self.pixels = jnp.full_like(self.pixels, value)" in output and "img = jnp.full_like(img, 0.5)" in output, output
    assert float(migrated.paint(3, 2.0)) == original.paint(3, 2.0)
    np.testing.assert_array_equal(np.asarray(migrated.grey(2)), original.grey(2))


def test_meshgrid_without_copies_loses_the_keyword():
    """hunt49 L: `np.meshgrid(x, x, copy=False)` became `jnp.meshgrid(..., copy=False)`, which raises ("only
    supports copy=True"). NumPy's uncopied grids are broadcast views, read here; writes into them are NPJ201."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        def mesh(x):
            gx, gy = np.meshgrid(x, x, copy=False)
            return gx + 2.0 * gy
        """
    )
    assert "copy" not in result.output.decode().split("def mesh")[1], result.output.decode()
    x = np.arange(3.0)
    np.testing.assert_array_equal(np.asarray(migrated.mesh(x)), original.mesh(x))


def _codes_of(result, name):
    function = record(result, name)
    return {d.code for d in result.diagnostics if function.line <= d.line <= function.end_line}


def test_hunt50_loud_failures_and_a_missing_fixed_point():
    """hunt50: `ii.cumsum(axis=0, out=ii)` and `A.sum(axis=0, out=s)` kept `out=` (NotImplementedError under jit);
    `np.sort(w)[r]` in a loop made the fori_loop carry the module `np` (UnboundLocalError); `np.isscalar(x)` made
    `x` static (an array then is unhashable); `for i in range(len(x)): x[i] = ...` on a parameter was rewritten
    again by a second pass (no fixed point: NPJ202, left NumPy)."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        def integral_image(img):
            ii = np.zeros((img.shape[0] + 1, img.shape[1] + 1))
            ii[1:, 1:] = img
            ii.cumsum(axis=0, out=ii)
            ii.cumsum(axis=1, out=ii)
            return ii

        def col_sums(A):
            s = np.zeros(A.shape[1])
            A.sum(axis=0, out=s)
            return s

        def sums_into(A, s):
            A.sum(axis=0, out=s)
            return s

        def median_filter(x, k):
            r = k // 2
            xp = np.pad(x, r, mode="edge")
            out = np.empty_like(x)
            for i in range(len(x)):
                w = xp[i:i + k]
                out[i] = np.sort(w)[r]
            return out

        def as_vec(x):
            if np.isscalar(x):
                return x * np.ones(3)
            return x

        def relax(x, omega):
            for i in range(len(x)):
                x[i] = (1 - omega) * x[i]
            return x
        """
    )
    for name in ("integral_image", "col_sums", "median_filter", "relax"):
        assert record(result, name).jit and "NPJ202" not in _codes_of(result, name), (name, result.output.decode())
    assert "NPJ201" in _codes_of(result, "sums_into") and not record(result, "sums_into").jit  # the caller's array
    assert not record(result, "as_vec").jit and "NPJ301" in _codes_of(result, "as_vec")
    assert "np = " not in result.output.decode() and ", np)" not in result.output.decode()
    img = np.arange(12.0).reshape(3, 4)
    np.testing.assert_allclose(np.asarray(migrated.integral_image(img)), original.integral_image(img))
    np.testing.assert_allclose(np.asarray(migrated.col_sums(img)), original.col_sums(img))
    x = np.array([3.0, 1.0, 2.0, 5.0, 4.0, -1.0])
    np.testing.assert_array_equal(np.asarray(migrated.median_filter(x, 3)), original.median_filter(x, 3))
    for value in (2.0, np.array([1.0, 2.0])):
        np.testing.assert_array_equal(np.asarray(migrated.as_vec(value)), original.as_vec(value))
    np.testing.assert_allclose(np.asarray(migrated.relax(x.copy(), 0.3)), original.relax(x.copy(), 0.3))


def test_a_grid_of_static_values_keeps_numpys_exact_values():
    """hunt50 S1: `edges = np.linspace(0.1, 0.4, 4); np.digitize(x, edges)` became jnp.linspace, whose middle edge is
    0.3 where NumPy's is 0.30000000000000004, so x = 0.3 fell in the next bin. A grid of values known at trace time
    (linspace, logspace, geomspace, a float arange) is NumPy's own call held in a JAX array,
    `jnp.asarray(np.linspace(...))`: written into (`edges[0] = -np.inf` becomes `.at[]`) or indexed by a traced value
    (`centers[np.argmax(h)]`, hunt51 L7: a NumPy array refuses tracers) as a JAX array is."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        def digitize_bins(x):
            edges = np.linspace(0.1, 0.4, 4)
            return np.digitize(x, edges)

        def grid_sum(x):
            t = np.arange(0.0, 1.0, 0.1)
            return np.sum(x[:, None] * t, axis=1)

        def open_edges(x):
            edges = np.linspace(0.1, 0.4, 4)
            edges[0] = -np.inf
            return np.digitize(x, edges)

        def peak_location(h):
            centers = np.linspace(0.0, 1.0, 4)
            return centers[np.argmax(h)]
        """
    )
    output = result.output.decode()
    assert "edges = jnp.asarray(np.linspace(0.1, 0.4, 4))" in output, output
    assert "t = jnp.asarray(np.arange(0.0, 1.0, 0.1))" in output, output
    assert all(record(result, name).jit for name in ("digitize_bins", "grid_sum", "open_edges", "peak_location"))
    with jax.enable_x64(True):
        x = np.array([0.1, 0.2, 0.3, 0.4, 0.35])
        np.testing.assert_array_equal(np.asarray(migrated.digitize_bins(x)), original.digitize_bins(x))
        np.testing.assert_allclose(np.asarray(migrated.grid_sum(x)), original.grid_sum(x), rtol=1e-14)  # (sum order)
        np.testing.assert_array_equal(np.asarray(migrated.open_edges(x)), original.open_edges(x))
        h = np.array([0.1, 0.9, 0.2, 0.3])
        assert float(migrated.peak_location(h)) == original.peak_location(h)


def test_a_grid_whose_count_is_a_parameter_keeps_numpys_exact_values():
    """hunt51 S5: `np.digitize(x, np.linspace(0.1, 0.4, n))` with `n` a parameter still became jnp.linspace (a grid
    was NumPy's only when every argument was static, and a parameter is not): x = 0.3 fell in the next bin under
    x64. The number of points is a size, static under jit (`n` is in static_argnums) and a Python int outside it,
    so only start, stop and step must be static. A traced start keeps jnp.linspace (NumPy's call takes no tracer)."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        def bins(x, n):
            return np.digitize(x, np.linspace(0.1, 0.4, n))

        def log_bins(x, n):
            return np.digitize(x, np.logspace(-1.0, 0.0, num=n))

        def shifted(x, lo, n):
            return np.digitize(x, np.linspace(lo, 0.4, n))
        """
    )
    output = result.output.decode()
    assert "jnp.asarray(np.linspace(0.1, 0.4, n))" in output and "jnp.asarray(np.logspace(-1.0, 0.0, num=n))" in output
    assert "jnp.linspace(lo, 0.4, n)" in output, output
    assert all(record(result, name).jit for name in ("bins", "log_bins", "shifted"))
    with jax.enable_x64(True):
        x = np.array([0.05, 0.1, 0.2, 0.3, 0.4, 0.35])
        for n in (4, 7):
            np.testing.assert_array_equal(np.asarray(migrated.bins(x, n)), original.bins(x, n))
            np.testing.assert_array_equal(np.asarray(migrated.log_bins(x, n)), original.log_bins(x, n))
        np.testing.assert_array_equal(np.asarray(migrated.shifted(x, 0.0, 5)), original.shifted(x, 0.0, 5))


def test_a_while_loop_on_traced_values_keeps_its_function_numpy():
    """hunt52 L3: `while y >= 0.0:` stepping a projectile, with `vx = v0 * np.cos(th)`: not jitted (the loop's carry
    starts as Python floats), but `np.cos` became `jnp.cos`, so each of the 14,000 steps dispatched eager JAX
    operations on 0-d arrays (124x slower) and summed in float32 without x64. A function a `while` test on traced
    values keeps from being jitted stays NumPy code (NPJ304), as does one an `if` in a `for` loop keeps un-jitted
    (hunt54); one whose loop becomes a while_loop is jitted."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        def flight(v0, angle_deg, dt=0.001, g=9.81):
            th = np.deg2rad(angle_deg)
            vx, vy = v0 * np.cos(th), v0 * np.sin(th)
            x = y = 0.0
            n = 0
            while y >= 0.0:
                x += vx * dt
                vy -= g * dt
                y += vy * dt
                n += 1
            return x, n

        def halve(x, tol):
            s = np.sum(np.abs(x))
            while s > tol:
                s = s / 2.0
            return s

        def lower_hull(points):
            pts = points[np.argsort(points[:, 0])]
            lower = []
            for p in pts:
                while len(lower) >= 2 and (lower[-1][0] - lower[-2][0]) * (p[1] - lower[-2][1]) - (
                        lower[-1][1] - lower[-2][1]) * (p[0] - lower[-2][0]) <= 0:
                    lower.pop()
                lower.append(p)
            return np.array(lower)

        def bisect(f, a, b, tol=1e-10, maxiter=200):
            fa = f(a)
            for _ in range(maxiter):
                m = 0.5 * (a + b)
                fm = f(m)
                if fm == 0 or (b - a) < tol:
                    return m
                if np.sign(fm) == np.sign(fa):
                    a, fa = m, fm
                else:
                    b = m
            return 0.5 * (a + b)
        """
    )
    output = result.output.decode()
    assert "vx, vy = v0 * np.cos(th), v0 * np.sin(th)" in output, output
    for name in ("lower_hull", "bisect"):  # (hunt54 L1, L2: 1,600x and 24x slower as eager jax.numpy)
        assert "NPJ304" in _codes_of(result, name) and "jnp" not in output.split(f"def {name}")[1].split("\ndef ")[0]
    info = record(result, "flight")
    assert not info.jit and "NPJ304" in _codes_of(result, "flight"), result.diagnostics
    assert record(result, "halve").jit and "while_loop" in output
    assert migrated.flight(30.0, 45.0, dt=0.01) == original.flight(30.0, 45.0, dt=0.01)
    x = np.array([3.0, -9.0])
    assert float(migrated.halve(x, 1.0)) == original.halve(x, 1.0)


def test_a_method_its_class_calls_in_a_loop_keeps_the_class_numpy():
    """hunt52 L2: `for row in X: self.push(row)` and `for i, z in enumerate(zs): out[i] = self.step(z)` ran every
    step as eager jax.numpy (`.at[]` copies, 0-d arrays): 50-700x slower than NumPy, for methods that are never
    jitted. A method another method of its class calls inside a loop, and a method writing array elements in a
    loop, stay NumPy code (NPJ304), and so does the class, which shares `self` with them (NPJ202)."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        class Smoother:
            def __init__(self, x0):
                self.x = np.array(x0, dtype=float)

            def step(self, z):
                self.x = 0.5 * self.x + 0.5 * z
                return self.x

            def run(self, zs):
                out = np.zeros((len(zs), self.x.shape[0]))
                for i, z in enumerate(zs):
                    out[i] = self.step(z)
                return out

        class Welford:
            def __init__(self, dim):
                self.n = 0
                self.mean = np.zeros(dim)

            def push(self, x):
                self.n += 1
                self.mean += (x - self.mean) / self.n

            def push_batch(self, X):
                for row in X:
                    self.push(row)
        """
    )
    assert "jnp" not in result.output.decode(), result.output.decode()
    assert "NPJ304" in _codes_of(result, "Welford.push") and "NPJ304" in _codes_of(result, "Smoother.run")
    X = np.arange(12.0).reshape(4, 3)
    np.testing.assert_array_equal(migrated.Smoother(np.zeros(3)).run(X), original.Smoother(np.zeros(3)).run(X))
    mine, theirs = migrated.Welford(3), original.Welford(3)
    mine.push_batch(X)
    theirs.push_batch(X)
    np.testing.assert_array_equal(mine.mean, theirs.mean)


def test_classes_whose_arrays_stay_private_migrate():
    """hunt52 FP1: a particle filter's class stayed NumPy (NPJ201/NPJ202 on every method) for three needless
    reasons: `ess(self.w)`, a function of the module that only reads its argument into a new value, "may keep it" or
    "returns it"; `self.p = self.p[np.asarray(idx, dtype=int)]`, an array index, which gathers a copy, "may keep an
    array referenced elsewhere"; and `self.w.fill(c)` / `self.x.sort()` on an attribute were refused. They migrate."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        def ess(w):
            return 1.0 / np.sum(w ** 2)

        class ParticleFilter:
            def __init__(self, p):
                self.p = np.array(p, dtype=float)
                self.w = np.full(len(self.p), 1.0 / len(self.p))

            def update(self, lik):
                self.w *= lik
                self.w /= self.w.sum()
                return ess(self.w)

            def resample(self, idx):
                self.p = self.p[np.asarray(idx, dtype=int)]
                self.w.fill(1.0 / len(self.w))

            def tidy(self):
                self.p.sort()
                return self.p * 2.0
        """
    )
    output = result.output.decode()
    assert "self.w = jnp.full_like(self.w, 1.0 / len(self.w))" in output and "self.p = jnp.sort(self.p)" in output, output
    for name in ("update", "resample", "tidy"):
        assert record(result, f"ParticleFilter.{name}").status != "unsupported", result.diagnostics
    mine, theirs = migrated.ParticleFilter([0.3, 0.1, 0.2]), original.ParticleFilter([0.3, 0.1, 0.2])
    lik = np.array([0.5, 2.0, 1.0])
    assert float(mine.update(lik)) == pytest.approx(theirs.update(lik), rel=1e-6)
    mine.resample([2, 2, 0])
    theirs.resample([2, 2, 0])
    np.testing.assert_allclose(np.asarray(mine.w), theirs.w, rtol=1e-6)
    np.testing.assert_allclose(np.asarray(mine.tidy()), theirs.tidy(), rtol=1e-6)  # (float32 without x64)


def test_an_update_of_module_state_a_helper_returns_is_reported():
    """`y = get(); y -= 1.0` with `def get(): return STATE`: NumPy's `-=` updates the module's array in place, and
    every later call sees it; the migrated function rebound `y` and left STATE as it was, with no diagnostic (the
    helper takes no argument `y` could alias). A name bound to module-level state a module function returns is
    reported (NPJ201); a number it returns (`EPS = 1e-8`) is not."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        STATE = np.zeros(3)
        EPS = 1e-8

        def get():
            return STATE

        def eps():
            return EPS

        def use():
            y = get()
            y -= 1.0
            return np.sum(y)

        def tol(x):
            t = eps()
            t *= 2.0
            return np.sum(x) + t
        """
    )
    assert "NPJ201" in _codes_of(result, "use") and not record(result, "use").jit, result.diagnostics
    assert "NPJ201" not in _codes_of(result, "tol") and record(result, "tol").jit
    assert [migrated.use(), migrated.use()] == [original.use(), original.use()] == [-3.0, -6.0]
    assert float(migrated.tol(np.ones(2))) == pytest.approx(original.tol(np.ones(2)))


def test_a_mask_made_by_a_cast_to_bool_is_a_mask_index():
    """hunt52 L1: `np.all(win[se.astype(bool)])` (a morphological erosion's structuring element) was jitted and raised
    NonConcreteBooleanIndexError: a cast to bool (`.astype(bool)`, `np.asarray(m, dtype=bool)`) makes a mask, whose
    index has a data-dependent shape (NPJ301: not jitted)."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        def all_under(win, se):
            return np.all(win[se.astype(bool)])

        def picked(x, m):
            return np.sum(x[np.asarray(m, dtype=bool)] ** 2)
        """
    )
    for name in ("all_under", "picked"):
        assert not record(result, name).jit and "NPJ301" in _codes_of(result, name), result.diagnostics
    win, se = np.array([[1.0, 0.0], [2.0, 3.0]]), np.array([[1, 0], [1, 1]])
    assert bool(migrated.all_under(win, se)) == original.all_under(win, se)
    assert float(migrated.picked(np.arange(3.0), [1, 0, 1])) == original.picked(np.arange(3.0), [1, 0, 1])


def test_reading_the_items_of_a_helpers_list_in_a_loop_keeps_it_migrated():
    """hunt51 FP2: `for layer in layers: total = total + layer.sum()`, after `layers[i] -= X[i]` on a list of new
    arrays `init_layers` returns, counted as handing the list's arrays out (NPJ201 on the writes, NPJ202 on the
    helper): a loop whose variable is only read into new values takes nothing out. The loop is unrolled, as the list
    is (a fori_loop would index the list with a traced index). A loop storing its variable is still reported."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        def init_layers(n, k):
            return [np.zeros(n) for _ in range(k)]

        def train(X):
            layers = init_layers(X.shape[1], 3)
            for i in range(len(layers)):
                layers[i] -= X[i]
            total = 0.0
            for layer in layers:
                total = total + layer.sum() * layer.shape[0]
            return total

        def init_kept(n, k):
            return [np.zeros(n) for _ in range(k)]

        def kept(X):
            layers = init_kept(X.shape[1], 3)
            for i in range(len(layers)):
                layers[i] -= X[i]
            out = []
            for layer in layers:
                out.append(layer)
            return out
        """
    )
    assert record(result, "train").jit and record(result, "init_layers").jit, result.diagnostics
    assert "fori_loop" not in result.output.decode()
    assert "NPJ201" in _codes_of(result, "kept"), result.diagnostics
    X = np.arange(6.0).reshape(3, 2)
    assert float(migrated.train(X)) == original.train(X)


def test_a_helper_reading_views_of_its_argument_into_arithmetic_keeps_nothing_of_it():
    """hunt52 FP2: a leapfrog integrator (`pos = pos.copy()`, then `pos += dt * vel` and `acc = accel(pos)` in a loop)
    was refused (NPJ201: "`pos` is a parameter") because `accel` indexes `pos[None, :, :]`: a view, which counted as
    keeping it. A view that arithmetic reads into a new array keeps nothing; one a helper returns or stores does."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        def accel(pos):
            diff = pos[None, :, :] - pos[:, None, :]
            return np.sum(diff, axis=1)

        def leapfrog(pos, vel, dt, steps):
            pos = pos.copy()
            vel = vel.copy()
            acc = accel(pos)
            for _ in range(steps):
                vel += 0.5 * dt * acc
                pos += dt * vel
                acc = accel(pos)
                vel += 0.5 * dt * acc
            return pos, vel

        def head(pos):
            return pos[1:]

        def shifted(pos):
            pos = pos.copy()
            h = head(pos)
            pos += 1.0
            return h * 2.0
        """
    )
    assert record(result, "leapfrog").jit and record(result, "accel").jit, result.diagnostics
    assert not record(result, "shifted").jit and "NPJ201" in _codes_of(result, "shifted"), result.diagnostics
    pos, vel = np.arange(6.0).reshape(3, 2) / 5.0, np.ones((3, 2)) * 0.1
    with jax.enable_x64(True):
        for got, want in zip(migrated.leapfrog(pos, vel, 0.01, 20), original.leapfrog(pos, vel, 0.01, 20)):
            np.testing.assert_allclose(np.asarray(got), want, rtol=1e-12)
    np.testing.assert_array_equal(migrated.shifted(pos), original.shifted(pos))


def test_a_loop_shrinking_its_carry_with_jnp_diff_has_a_fixed_point():
    """hunt54 FP1: `for _ in range(d): x = np.diff(x)` became `x = jnp.diff(x)`, which a second pass took for a
    carry of one shape and turned into a fori_loop: "no fixed point, a bug in np2jax" (NPJ202). jax.numpy's
    reshaping functions change a carry's shape as NumPy's do."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        def difference(x, d=1):
            for _ in range(d):
                x = np.diff(x)
            return x
        """
    )
    assert "NPJ202" not in _codes_of(result, "difference") and "fori_loop" not in result.output.decode()
    x = np.array([1.0, 4.0, 9.0, 16.0, 25.0])
    np.testing.assert_array_equal(np.asarray(migrated.difference(x, 2)), original.difference(x, 2))


def test_averages_of_integer_arrays_are_float64_as_in_numpy():
    """hunt50 S2: jax.numpy averages every integer or boolean array narrower than 64 bits in float32, even under x64
    (`img.mean()` of a uint8 image is 122.99999 where NumPy's is 123.0), so `img > img.mean()` picked the pixel equal
    to the mean. The average of a value whose dtype follows parameters' is taken of `img * 1.0`
    (NumPy's dtype for every input: float64 for integers under x64, a float array's own), of an integer value
    `dtype=float`; a float value's is left alone."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        def binarize(img):
            out = np.zeros(img.shape, dtype=np.uint8)
            out[img > img.mean()] = 255
            return out

        def standardize(img):
            return (img - np.mean(img[:, 0])) / img.std()

        def half_counts(counts):
            return np.var(counts // 2)

        def scaled(x):
            return np.mean(x / 3.0)
        """
    )
    output = result.output.decode()
    assert "(img * 1.0).mean()" in output, output
    assert "jnp.mean(img[:, 0] * 1.0)" in output and "jnp.var((counts // 2) * 1.0)" in output, output
    assert "jnp.mean(x / 3.0)" in output
    row = np.array([123, 23, 234, 194, 6, 32, 119, 9, 134, 42, 206, 100, 71, 63, 184, 101, 89, 62, 120, 173, 238, 183,
                    72, 50, 76, 148, 238, 58, 65, 227, 135, 113, 133, 129, 227, 219, 243, 80, 139, 61, 124], dtype=np.uint8)
    img = row[:40].reshape(8, 5)
    with jax.enable_x64(True):
        np.testing.assert_array_equal(np.asarray(migrated.binarize(row)), original.binarize(row))
        for function, data in ((migrated.standardize, img), (migrated.half_counts, row.astype(np.int32)),
                               (migrated.scaled, img.astype(np.float32))):
            expected = getattr(original, function.__name__)(data)
            got = np.asarray(function(data))
            assert got.dtype == expected.dtype, (function.__name__, got.dtype, expected.dtype)
            np.testing.assert_allclose(got, expected, rtol=1e-6 if expected.dtype == np.float32 else 1e-14)
    np.testing.assert_allclose(np.asarray(migrated.standardize(img.astype(float))), original.standardize(img.astype(float)),
                               rtol=1e-5)


def test_hunt53_averages_keep_numpys_dtype_for_every_input_and_other_edges():
    """hunt53: `dtype=jnp.result_type(float, x)` (the first fix for integer averages) made jax.numpy sum float16 in
    float16 (NaN for 100,000 threes, S1) and keep a complex standard deviation complex (S2), and `np.mean(a - b)`,
    `np.mean(np.minimum(x, 10))` of int32 data stayed float32 (S3). `x * 1.0` has NumPy's average dtype for every
    input. Also: `np.linspace(0, 2, n, retstep=True)` returns a pair, no grid to wrap (L1); module state reached
    through a helper of a helper (S4); `x.mean(axis=0, out=None)` (FP2) and `np.add(x, y, dtype=None)` (FP1)."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        STATE = np.zeros(3)

        def get_state():
            return STATE

        def via_helper():
            return get_state()

        def center(x):
            return x - x.mean()

        def spread(z):
            return np.std(z)

        def mean_diff(a, b):
            return np.mean(a - b) + np.mean(np.minimum(a, 10))

        def grid(n):
            g, step = np.linspace(0.0, 2.0, n, retstep=True)
            return g * step

        def bump():
            y = via_helper()
            y -= 1.0
            return np.sum(y)

        def defaults(x, y):
            return x.mean(axis=0, out=None) + np.add(x, y, dtype=None)
        """
    )
    assert "NPJ201" in _codes_of(result, "bump") and record(result, "defaults").jit, result.diagnostics
    rng = np.random.default_rng(0)
    with jax.enable_x64(True):
        for function, args in ((migrated.center, (np.full(100_000, 3.0, np.float16),)),
                               (migrated.spread, ((rng.random(50) + 1j * rng.random(50)).astype(np.complex64),)),
                               (migrated.mean_diff, (rng.integers(-99, 99, 40).astype(np.int32), rng.integers(0, 9, 40).astype(np.int32))),
                               (migrated.grid, (5,)), (migrated.defaults, (np.ones((2, 3)), np.ones(3)))):
            expected = getattr(original, function.__name__)(*args)
            got = np.asarray(function(*args))
            assert got.dtype == np.asarray(expected).dtype, (function.__name__, got.dtype)
            np.testing.assert_allclose(got, expected, rtol=1e-6)


def test_out_given_by_position_is_reported_and_out_none_is_left_out():
    """hunt51 L3: `np.cumsum(b, 0, None, b)` passes `out` by position; it stayed in jnp.cumsum's call and raised
    NotImplementedError under jit (NPJ103 now: the function stays NumPy). `np.exp(a, out=None)`, NumPy's default,
    stayed in the call too, and jnp.exp takes no `out` (TypeError): it is left out, as `like=None` is."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        def running(b):
            np.cumsum(b, 0, None, b)
            return b * 2

        def explicit_none(a):
            return np.exp(a, out=None) + np.cumsum(a, 0, None, None)

        def like_none(a):
            return np.zeros(3, like=None) + a
        """
    )
    output = result.output.decode()
    assert "np.cumsum(b, 0, None, b)" in output and "jnp.exp(a) + jnp.cumsum(a, 0, None, None)" in output, output
    assert "NPJ103" in _codes_of(result, "running") and "jnp.zeros(3) + a" in output
    assert record(result, "explicit_none").jit and record(result, "like_none").jit
    a = np.arange(4.0)
    np.testing.assert_array_equal(np.asarray(migrated.like_none(a[:3])), original.like_none(a[:3]))
    np.testing.assert_allclose(np.asarray(migrated.explicit_none(a)), original.explicit_none(a), rtol=1e-6)
    b1, b2 = np.arange(4.0), np.arange(4.0)
    np.testing.assert_array_equal(migrated.running(b1), original.running(b2))
    np.testing.assert_array_equal(b1, b2)


def test_hunt51_a_helpers_list_round_into_another_array_and_isscalar_of_a_parameter():
    """hunt51: `layers = init_layers(n)` (a list of new arrays a helper returns) then `for i in range(len(layers)):
    layers[i] -= X[i]` became a fori_loop indexing the list with a traced index (L6): a Python container, the loop
    stays a Python loop (and `train`, with nothing else to rewrite, rebinds the items of JAX arrays `init_layers` now
    makes, as it did NumPy's: no other reference sees them); `x.round(1, out=y)` kept `out=` (L2);
    `s = np.isscalar(x)` in a jitted function is False for a traced number (S4): not jitted."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        def init_layers(n):
            return [np.zeros(n), np.zeros(n)]

        def train(X):
            layers = init_layers(X.shape[1])
            for i in range(len(layers)):
                layers[i] -= X[i]
            return layers[0] + layers[1]

        def rounded(x):
            y = np.empty_like(x)
            x.round(1, out=y)
            return y

        def flag(x, y):
            s = np.isscalar(x)
            return np.sum(y) + s
        """
    )
    assert "fori_loop" not in result.output.decode() and record(result, "rounded").jit
    assert record(result, "init_layers").jit and record(result, "train").status == "migrated", result.output.decode()
    assert not record(result, "flag").jit and "NPJ301" in _codes_of(result, "flag")
    X = np.arange(4.0).reshape(2, 2)
    np.testing.assert_array_equal(np.asarray(migrated.train(X)), original.train(X))
    x = np.array([0.123, 0.456, -2.25])
    np.testing.assert_allclose(np.asarray(migrated.rounded(x)), original.rounded(x))
    assert float(migrated.flag(3, np.arange(3.0))) == original.flag(3, np.arange(3.0))


def test_a_keyword_named_like_a_module_level_name_is_no_read_of_it():
    """hunt51 FP3: `axis = tempfile.mkdtemp()` under `if __name__ == "__main__":` made `np.sum(x, axis=0)` "read
    module-level `axis`" (NPJ302, not jitted), and `np.exp(a, out=b)` with a module-level `out` had no fixed point
    (its `out=` goes in the first pass): a keyword argument's name is no read of a variable."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        def col_sums(x):
            return np.sum(x, axis=0) * 2

        def explicit_out(a):
            b = np.empty_like(a)
            np.exp(a, out=b)
            return b

        if __name__ == "__main__":
            import tempfile
            out = tempfile.mkdtemp()
            axis = tempfile.mkdtemp()
        """
    )
    assert record(result, "col_sums").jit and record(result, "explicit_out").jit, result.output.decode()
    assert not result.diagnostics or all(d.code not in ("NPJ302", "NPJ202") for d in result.diagnostics)
    x = np.arange(6.0).reshape(3, 2)
    np.testing.assert_allclose(np.asarray(migrated.col_sums(x)), original.col_sums(x))
    np.testing.assert_allclose(np.asarray(migrated.explicit_out(x[0])), original.explicit_out(x[0]), rtol=1e-6)


def test_an_array_sum_method_with_initial_stays_numpy():
    """hunt51 S1: `A.sum(axis=0, initial=1.0)` was left as the method call, which a jax.Array takes and ignores
    (`[2, 4]` for NumPy's `[3, 5]`): reported (NPJ103), the function stays NumPy; `np.sum(..., initial=)` migrates."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        def col_sums(A):
            return np.abs(A).sum(axis=0, initial=1.0)

        def col_sums_fn(A):
            return np.sum(np.abs(A), axis=0, initial=1.0)
        """
    )
    assert "NPJ103" in _codes_of(result, "col_sums") and not record(result, "col_sums").jit
    assert record(result, "col_sums_fn").jit
    A = np.arange(4.0).reshape(2, 2)
    for name in ("col_sums", "col_sums_fn"):
        np.testing.assert_allclose(np.asarray(getattr(migrated, name)(A)), getattr(original, name)(A))


def test_an_overlapping_slice_of_the_array_itself_is_copied_in_as_numpy_does():
    """hunt55 FP1: `buf[:-1] = buf[1:]` was NPJ201 ("also reachable through another name"): NumPy copies an
    overlapping right side first, which is what `buf.at[:-1].set(buf[1:])` reads; both directions migrate.
    A view kept under another name (`y = buf[1:]`) is still reported: NumPy's `y` sees the write."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        def roll_left(buf, x):
            buf[:-1] = buf[1:]
            buf[-1] = x
            return buf

        def roll_right(buf):
            buf[1:] = buf[:-1]
            return buf

        def kept_view(buf):
            y = buf[1:]
            buf[:-1] = y
            return y
        """
    )
    assert record(result, "roll_left").jit and record(result, "roll_right").jit
    assert "NPJ201" in _codes_of(result, "kept_view") and not record(result, "kept_view").jit
    for name, args in (("roll_left", (9.0,)), ("roll_right", ())):
        want = getattr(original, name)(np.arange(6.0), *args)
        np.testing.assert_array_equal(np.asarray(getattr(migrated, name)(np.arange(6.0), *args)), want)


def test_a_result_a_numpy_caller_indexes_in_a_loop_stays_numpy():
    """real36 L4 (stochastic's Hosking method): a caller that stays NumPy (it draws from np.random) read a jitted
    helper's result `cov[i]` at each step of a double loop: each read of a JAX array dispatches to XLA, 140x
    NumPy's time. The helper stays NumPy (NPJ202); a caller reading it once outside a loop keeps it jitted."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        def autocov(h, n):
            ns = np.arange(n + 1) ** (2 * h)
            return (ns[:-2] - 2 * ns[1:-1] + ns[2:]) / 2

        def sample(h, n, seed):
            g = np.random.default_rng(seed).normal(0.0, 1.0, n)
            cov = autocov(h, n)
            out = np.zeros(n)
            for i in range(1, n - 2):
                out[i] = cov[i] * g[i]
            return out

        def ramp(n):
            return np.arange(n + 1) * 0.5

        def total(n, seed):
            g = np.random.default_rng(seed).normal(0.0, 1.0, n + 1)
            r = ramp(n)
            return float(r[-1]) + g.sum()
        """
    )
    assert not record(result, "autocov").jit and "NPJ202" in _codes_of(result, "autocov")
    assert record(result, "ramp").jit
    np.testing.assert_array_equal(migrated.sample(0.7, 20, 1), original.sample(0.7, 20, 1))
    assert migrated.total(5, 2) == pytest.approx(original.total(5, 2))


def test_delete_and_choose_that_need_concrete_indices_are_not_traced():
    """hunt56 L3/L4: `np.delete(x, idx)` and `np.choose(a, choices)` were jitted with traced indices, which
    jnp.delete and jnp.choose (mode='raise', NumPy's default) refuse: ConcretizationTypeError on every call.
    A parameter given as `delete`'s index is static (`insert`'s may be traced); one computed from data, and
    `choose`'s checked indices, keep the function un-jitted (NPJ301), where jax.numpy checks them as NumPy does."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        def drop(x, idx):
            return np.delete(x, idx)

        def drop_small(x):
            return np.delete(x, np.argmin(x))

        def pick(a, choices):
            return np.choose(a, choices)

        def pick_clip(a, choices):
            return np.choose(a, choices, mode="clip")

        def put_in(x, idx):
            return np.insert(x, idx, 9.0)
        """
    )
    assert record(result, "drop").static_argnums == (1,) and record(result, "pick_clip").jit
    assert record(result, "put_in").jit and record(result, "put_in").static_argnums == ()
    for name in ("drop_small", "pick"):
        assert not record(result, name).jit and "NPJ301" in _codes_of(result, name)
    x, a, choices = np.array([2.0, 0.5, 3.0]), np.array([0, 1, 0]), np.arange(6.0).reshape(2, 3)
    np.testing.assert_array_equal(np.asarray(migrated.drop(x, 1)), original.drop(x, 1))
    np.testing.assert_array_equal(np.asarray(migrated.drop_small(x)), original.drop_small(x))
    np.testing.assert_array_equal(np.asarray(migrated.pick(a, choices)), original.pick(a, choices))
    np.testing.assert_array_equal(np.asarray(migrated.pick_clip(a + 5, choices)), original.pick_clip(a + 5, choices))
    np.testing.assert_array_equal(np.asarray(migrated.put_in(x, np.array([0, 2]))), original.put_in(x, np.array([0, 2])))
    with pytest.raises(ValueError):
        original.pick(a + 5, choices)
    with pytest.raises(ValueError):
        migrated.pick(a + 5, choices)


def test_a_first_step_run_before_the_fori_loop_tests_its_index_in_python():
    """hunt57 L3: `lj = 1.0`, then `if k != 1: lj = lj * (t - xs[k])` in a loop: the first step, run before the
    fori_loop so that `lj` gets its array type, had `jax.lax.cond(k != 1, ...)` with a Python-float branch beside an
    array one, which jax.lax.cond refuses ("branches must have equal output types"). There the index is a Python
    int: the test is Python's own (`(a if k != 1 else b)`); inside the fori_loop it stays jax.lax.cond."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        def poly_basis(xs, t):
            xs = np.asarray(xs)
            lj = 1.0
            for k in range(len(xs)):
                if k != 1:
                    lj = lj * (t - xs[k])
            return lj
        """
    )
    output = result.output.decode()
    assert record(result, "poly_basis").jit and "if k != 1 else lj)" in output and "jax.lax.cond(k != 1" in output
    xs, t = np.array([0.0, 1.0, 2.0, 3.5]), np.array([0.5, 1.5])
    np.testing.assert_allclose(np.asarray(migrated.poly_basis(xs, t)), original.poly_basis(xs, t))


def test_a_copy_handed_to_a_helper_defined_in_the_function_is_written_in_place():
    """hunt58 FP1: a leapfrog integrator with its force law defined inside it (`def acc(p): return -p`) was refused
    (NPJ201: "`pos` is a parameter") because `a = acc(pos)` might keep `pos`: only functions of the module were known
    to keep no reference to an argument. A nested one that closes over `pos` still does (the closure sees the write)."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        def leapfrog(pos, vel, dt=0.01, steps=3):
            pos = pos.copy()
            vel = vel.copy()
            def acc(p):
                return -p / np.linalg.norm(p)
            a = acc(pos)
            for _ in range(steps):
                vel += dt * a
                pos += dt * vel
                a = acc(pos)
            return pos, vel

        def keeps(pos, vel):
            pos = pos.copy()
            def acc(p):
                return p - pos
            a = acc(pos)
            pos += vel
            return a + acc(vel)
        """
    )
    assert record(result, "leapfrog").jit, result.diagnostics
    assert not record(result, "keeps").jit and "NPJ201" in _codes_of(result, "keeps"), result.diagnostics
    pos, vel = np.array([1.0, 2.0, 2.0]), np.array([0.1, 0.0, -0.1])
    with jax.enable_x64(True):
        for got, want in zip(migrated.leapfrog(pos, vel, 0.01, 5), original.leapfrog(pos, vel, 0.01, 5)):
            np.testing.assert_allclose(np.asarray(got), want, rtol=1e-12)
    np.testing.assert_array_equal(migrated.keeps(pos, vel), original.keeps(pos, vel))


def test_a_result_reaching_a_writing_callee_on_the_next_loop_step_keeps_its_function_numpy():
    """hunt58 L2: k-means stays NumPy (its distance helper writes `out=d` into an array computed from its
    parameter). In its loop, `labels = assign(x, centers)` comes before `centers = update_centers(...)`, so
    `update_centers`'s result reaches the writing helper only from the second step: the walk of the loop's body
    saw it bound too late, `update_centers` was jitted, and the NumPy code's `np.maximum(d, 0, out=d)` raised
    TypeError on the jax.Array. A loop's body is now walked twice."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        def pairwise_sq_dists(a, b):
            d = np.sum(a * a, axis=1)[:, None] + np.sum(b * b, axis=1)[None, :] - 2 * a @ b.T
            np.maximum(d, 0, out=d)
            return d

        def assign(x, centers):
            return np.argmin(pairwise_sq_dists(x, centers), axis=1)

        def update_centers(x, labels, k):
            sums = np.zeros((k, x.shape[1]))
            np.add.at(sums, labels, x)
            return sums / np.maximum(np.bincount(labels, minlength=k), 1)[:, None]

        def kmeans(x, centers, iters=3):
            for _ in range(iters):
                labels = assign(x, centers)
                centers = update_centers(x, labels, centers.shape[0])
            return centers

        def noisy(x):
            d = pairwise_sq_dists(x, x)
            d[0, 0] = np.random.rand()
            return d
        """
    )
    assert not record(result, "update_centers").jit and "NPJ202" in _codes_of(result, "update_centers")
    x = np.random.default_rng(0).random((12, 2))
    np.testing.assert_allclose(migrated.kmeans(x, x[:3].copy()), original.kmeans(x, x[:3].copy()))


def test_views_of_a_new_array_nothing_else_holds_are_written_in_place():
    """real38 FP2 (transforms3d's decompose44): `M0, M1, M2 = np.array(RZS).T; M0 /= norm` and
    `Rmat = np.array([M0, M1, M2]).T; Rmat[:, 0] *= -1` were NPJ201: `.T` counted as an attribute of an object, or a
    binding that is not a fresh array. The transpose of a new array is a view of memory no other name holds. A
    transpose of a parameter still shares the caller's array."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        def unit_rows(RZS):
            RZS = np.asarray(RZS)
            M0, M1, M2 = np.array(RZS).T
            M0 /= np.sqrt(np.sum(M0 ** 2))
            M1 -= np.dot(M0, M1) * M0
            return np.array([M0, M1, M2]), RZS

        def flip(M0, M1, M2):
            Rmat = np.array([M0, M1, M2]).T
            Rmat[:, 0] *= -1
            return Rmat

        def shared(A):
            B = A.T
            B[0, 0] = 5.0
            return A
        """
    )
    assert record(result, "unit_rows").jit and record(result, "flip").jit, result.diagnostics
    assert "NPJ201" in _codes_of(result, "shared")
    A = np.random.default_rng(0).normal(size=(3, 3))
    before = A.copy()
    for got, want in zip(migrated.unit_rows(A), original.unit_rows(A)):
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(A, before)
    rows = (np.array([1.0, 2.0]), np.array([3.0, 4.0]), np.array([5.0, 6.0]))
    np.testing.assert_array_equal(np.asarray(migrated.flip(*rows)), original.flip(*rows))


def test_a_list_display_index_gathers_a_copy():
    """transforms3d's quaternion_from_matrix: `q = np.empty(4)`, then in one branch `q = q[[3, 0, 1, 2]]`, then
    `q *= 0.5 / ...`: NPJ201 ("may share memory with another array") because the reordering was not known to be a
    copy. A list display in an index is advanced indexing, which always gathers a new array; a slice is a view."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        def reorder(M, flip):
            q = np.empty((4,))
            q[0] = M[0, 0]
            q[1:] = M[1:, 0]
            if flip:
                q = q[[3, 0, 1, 2]]
            q *= 0.5
            return q

        def view(M, flip):
            q = np.empty((4,))
            q[:] = M[:, 0]
            if flip:
                q = q[1:]
            q *= 0.5
            return q, M
        """
    )
    assert "NPJ201" not in _codes_of(result, "reorder"), result.diagnostics
    M = np.arange(16.0).reshape(4, 4)
    for flip in (True, False):
        np.testing.assert_array_equal(np.asarray(migrated.reorder(M, flip)), original.reorder(M, flip))


def test_a_ufunc_given_its_output_array_by_position_assigns_its_result():
    """transforms3d's `np.negative(q, q)`: a ufunc's `out` given by position was NPJ103 ("called with 2 positional
    arguments"); it is written as `out=` is: the result, cast to the output's dtype, assigned to its name. And
    `np.add(a, b, out=s)` no longer counts as `set.add` storing `s` in a container (which refused the next write)."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        def neg_half(M):
            q = np.array(M, dtype=float)
            np.negative(q, q)
            q *= 0.5
            return q

        def root_of_sum(a, b):
            s = np.zeros_like(a)
            np.add(a, b, s)
            np.sqrt(s, s)
            return s

        def root_of_sum_kw(a, b):
            s = np.zeros_like(a)
            np.add(a, b, out=s)
            np.sqrt(s, out=s)
            return s

        def into_param(a, b):
            np.add(a, b, a)
            return a

        def quotient(a):
            q = np.zeros_like(a)
            np.divmod(a, 3, q)
            return q
        """
    )
    assert not record(result, "quotient").jit  # (hunt59 L1: two outputs, one given: jnp.divmod returns both)
    output = result.output.decode()
    assert "q = jnp.negative(q).astype(q.dtype)" in output and "s = jnp.sqrt(s).astype(s.dtype)" in output
    for name in ("neg_half", "root_of_sum", "root_of_sum_kw"):
        assert record(result, name).jit, (name, result.diagnostics)
    assert not record(result, "into_param").jit  # the caller's array: NumPy changes it (NPJ103 or NPJ201)
    a, b = np.array([1.0, 4.0, 9.0]), np.array([0.0, 5.0, 7.0])
    np.testing.assert_allclose(np.asarray(migrated.neg_half(a)), original.neg_half(a))
    for name in ("root_of_sum", "root_of_sum_kw"):
        np.testing.assert_allclose(np.asarray(getattr(migrated, name)(a, b)), getattr(original, name)(a, b), rtol=1e-6)


def test_pythons_sum_of_a_float_array_is_one_reduction_not_an_unrolled_loop():
    """real39 L1 (filterpy's `normalize`: `pdf /= sum(np.asarray(pdf, dtype=float))`): Python's sum iterates the
    array, which jax.jit unrolled into one addition per element: 10 s to compile at 4,000 elements. A sum of a float
    array becomes `jnp.sum(a, axis=0)` (the rows of a 2-D one, as Python adds them). Not of an integer array, which
    Python's sum adds in its own dtype (int8 wraps) where jnp.sum widens it."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        def normalize(pdf):
            pdf /= sum(np.asarray(pdf, dtype=float))
            return pdf

        def column_totals(x):
            x = np.asarray(x, dtype=float)
            return sum(x * x) / x.shape[0]

        def counts(labels):
            labels = np.asarray(labels, dtype=np.int8)
            return sum(labels * 2)
        """
    )
    output = result.output.decode()
    assert "pdf = pdf / jnp.sum(jnp.asarray(pdf, dtype=float), axis=0)" in output
    assert "jnp.sum(x * x, axis=0)" in output and "sum(labels * 2)" in output
    pdf = np.random.default_rng(0).random(4000)
    np.testing.assert_allclose(np.asarray(migrated.normalize(pdf.copy())), original.normalize(pdf.copy()), rtol=1e-5)
    M = np.arange(12.0).reshape(4, 3)
    np.testing.assert_allclose(np.asarray(migrated.column_totals(M)), original.column_totals(M), rtol=1e-6)


def test_a_convolution_with_an_integer_kernel_written_inline_sums_in_numpys_dtype():
    """hunt60 S3: `np.convolve(counts, np.array([1, 2, 1]))`, `np.correlate(x, [1, 1])` and
    `np.convolve(mask.astype(int), np.ones(3, dtype=int))` of integer data are int64 in NumPy; migrated they were
    float (jax.numpy converts integers first): `preferred_element_type` was added only for kernels named by a plain
    name. A display of number literals is int64 (float64 with a float), `dtype=int` NumPy's int64."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        def smooth_counts(counts):
            return np.convolve(counts, np.array([1, 2, 1]), mode="same")

        def run_length3(mask):
            return np.convolve(mask.astype(int), np.ones(3, dtype=int), mode="valid")

        def pair_sums(x):
            return np.correlate(x, [1, 1], mode="valid")
        """
    )
    output = result.output.decode()
    assert "preferred_element_type=jnp.result_type(counts, jnp.int64)" in output
    assert "preferred_element_type=jnp.result_type(jnp.int64, jnp.int64)" in output
    counts, mask = np.array([3, 200, 7, 1], np.uint8), np.array([True, True, False, True, True])
    with jax.enable_x64(True):
        for name, arg in (("smooth_counts", counts), ("run_length3", mask), ("pair_sums", counts),
                          ("pair_sums", np.array([2 ** 30, 2 ** 30, 5], np.int32))):
            got, want = np.asarray(getattr(migrated, name)(arg)), getattr(original, name)(arg)
            assert got.dtype == want.dtype and np.array_equal(got, want), (name, got, want)


def test_a_slice_or_real_part_of_a_new_array_is_written_in_place():
    """real40 FP1 (emcee's autocorrelation): `acf = np.fft.ifft(...)[: len(x)].real; acf /= acf[0]` was NPJ201 (".real
    of an object"): a slice, or the real part, of a new array is a view of memory no other name holds. A slice of a
    named array still shares that array's memory."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        def function_1d(x):
            f = np.fft.fft(x - np.mean(x), n=2 * len(x))
            acf = np.fft.ifft(f * np.conjugate(f))[: len(x)].real
            acf /= acf[0]
            return acf

        def shared(x):
            y = np.zeros(6)
            z = y[1:]
            z += 1.0
            return y + x
        """
    )
    assert record(result, "function_1d").jit, result.diagnostics
    assert not record(result, "shared").jit
    x = np.random.default_rng(0).standard_normal(64)
    with jax.enable_x64(True):
        np.testing.assert_allclose(np.asarray(migrated.function_1d(x)), original.function_1d(x), rtol=1e-9, atol=1e-12)
    np.testing.assert_array_equal(np.asarray(migrated.shared(np.ones(6))), original.shared(np.ones(6)))
