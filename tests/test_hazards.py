"""The hazard rules (NPJ114-NPJ118, NPJ120, NPJ122, NPJ125) point at real differences, and only there.

Each flagged case is migrated, run with real JAX on an input at the edge and
compared with NumPy: the results must differ (else the diagnostic is a false
alarm) and the diagnostic must be there.  The same code on ordinary inputs
agrees, and the nearby safe code gets no diagnostic.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from np2jax.engine import Options, migrate_source

HAZARD_CODES = {"NPJ114", "NPJ115", "NPJ116", "NPJ117", "NPJ118", "NPJ120", "NPJ122", "NPJ125"}
CORPUS = Path(__file__).resolve().parent.parent / "corpus"

SOURCE = textwrap.dedent(
    """
    import numpy as np

    def after_peak(x):
        return x[np.argmax(x) + 1]

    def bin_counts(x, n_bins):
        counts = np.zeros(n_bins)
        idx = (x * n_bins).astype(int)
        for i in range(len(x)):
            counts[idx[i]] += 1
        return counts

    def factorials(n):
        return np.cumprod(np.arange(1, n + 1))

    def naive_variance(x):
        n = x.shape[0]
        return (np.sum(x * x) - np.sum(x) ** 2 / n) / (n - 1)

    def converged(a, b, tol=1e-10):
        return np.max(np.abs(a - b)) < tol
    """
)


@pytest.fixture(scope="module")
def migrated():
    result = migrate_source(SOURCE.encode(), "hazards.py", Options(jit=True))
    original, new = {}, {}
    exec(compile(SOURCE, "original.py", "exec"), original)
    exec(compile(result.output, "migrated.py", "exec"), new)
    return result, original, new


def _record(result, function: str):
    return next(r for r in result.functions if r.qualname == function)


def _codes_in(result, function: str) -> set[str]:
    record = next(r for r in result.functions if r.qualname == function)
    return {d.code for d in result.diagnostics if record.line <= d.line <= record.end_line}


# function, code, ordinary input (agree), edge input (differ)
CASES = [
    ("after_peak", "NPJ114", np.array([1.0, 5.0, 2.0], np.float32), np.array([1.0, 2.0, 5.0], np.float32)),
    ("factorials", "NPJ115", 10, 13),
    ("naive_variance", "NPJ116", np.array([1.0, 2.0, 4.0], np.float32), np.array([1e4, 1e4 + 1, 1e4 + 2], np.float32)),
]


@pytest.mark.parametrize("function, code, ordinary, edge", CASES, ids=[c[0] for c in CASES])
def test_flagged_hazard_is_real(migrated, function, code, ordinary, edge):
    result, original, new = migrated
    assert code in _codes_in(result, function)

    def run(namespace, arg):
        if namespace is new and isinstance(arg, np.ndarray):
            arg = jnp.asarray(arg)
        return np.asarray(namespace[function](arg))

    np.testing.assert_allclose(run(new, ordinary), run(original, ordinary), rtol=1e-5)
    if function == "after_peak":
        with pytest.raises(IndexError):
            run(original, edge)
        assert run(new, edge) == edge[-1]  # clamped to the last element
    else:
        assert not np.allclose(run(new, edge), run(original, edge), rtol=1e-3)


def test_out_of_range_update_is_dropped(migrated):
    result, original, new = migrated
    assert "NPJ114" in _codes_in(result, "bin_counts")
    x = np.array([0.1, 0.5, 1.0], np.float32)  # 1.0 lands in bin n_bins
    with pytest.raises(IndexError):
        original["bin_counts"](x, 2)
    assert float(np.asarray(new["bin_counts"](jnp.asarray(x), 2)).sum()) == 2.0  # the third count is lost


def test_tolerance_below_float32_never_holds(migrated):
    result, original, new = migrated
    assert "NPJ117" in _codes_in(result, "converged")
    a = np.array([0.1, 0.7])
    b = a + 1e-11  # the same values, up to rounding
    assert original["converged"](a, b)
    assert not bool(new["converged"](jnp.asarray(a + 1e-7), jnp.asarray(a)))  # float32: the nearest a float32 gets


def test_never_raised_error_leaves_the_function_as_numpy():
    source = textwrap.dedent(
        """
        import numpy as np

        def solve_or_lstsq(A, b):
            try:
                return np.linalg.solve(A, b)
            except np.linalg.LinAlgError:
                return np.linalg.lstsq(A, b, rcond=None)[0]
        """
    )
    result = migrate_source(source.encode(), "solvers.py", Options(jit=True))
    assert result.output.decode() == source
    assert [d.code for d in result.diagnostics] == ["NPJ118"]
    singular = jnp.zeros((2, 2))
    assert not bool(jnp.all(jnp.isfinite(jnp.linalg.solve(singular, jnp.ones(2)))))  # JAX: no LinAlgError


def test_no_hazard_diagnostics_on_the_ordinary_corpus_modules():
    """Modules written without these hazards get none of their diagnostics (false alarms are costly)."""
    hazard_modules = {"hazards", "histogram_binning", "integer_stats", "iterative_solvers", "online_variance", "robust_solvers"}
    # Real hazards in otherwise ordinary modules: window sums as differences of one float32 running sum
    # (rms_envelope's `c = np.cumsum(sq); c = np.concatenate([[0.0], c])`, box_blur's integral image).
    expected = {"filter_bank": ["94:NPJ116"], "image_ops": ["29:NPJ116"]}
    for path in sorted((CORPUS / "modules").glob("*.py")):
        if path.stem in hazard_modules:
            continue
        result = migrate_source(path.read_bytes(), str(path), Options(jit=True))
        found = [f"{d.line}:{d.code}" for d in result.diagnostics if d.code in HAZARD_CODES]
        assert found == expected.get(path.stem, []), f"{path.name}: {found}"


ROUNDED = textwrap.dedent(
    """
    import numpy as np

    def octave(x):
        return np.floor(np.log2(x))

    def bin_index(x, width):
        return np.floor(x / width).astype(int)

    def exact_octave(x):
        return np.floor(np.log(x)), x // 41.0
    """
)


def test_inexact_value_before_rounding_is_flagged_and_real():
    """NPJ120: XLA's log2 and its division by a broadcast value miss by one unit in the last place, which a
    floor turns into an off-by-one (float32 here, as the tests run; float64 under x64 misses the same way)."""
    result = migrate_source(ROUNDED.encode(), "rounded.py", Options(jit=True))
    original, new = {}, {}
    exec(compile(ROUNDED, "original.py", "exec"), original)
    exec(compile(result.output, "migrated.py", "exec"), new)
    assert "NPJ120" in _codes_in(result, "octave") and "NPJ120" in _codes_in(result, "bin_index")
    assert "NPJ120" not in _codes_in(result, "exact_octave")

    powers = np.array([2.0, 8.0, 8192.0, 32768.0], np.float32)
    assert np.asarray(original["octave"](powers)).tolist() == [1, 3, 13, 15]
    assert np.asarray(new["octave"](jnp.asarray(powers))).tolist() == [1, 3, 12, 14]
    on_edges = np.arange(1, 200, dtype=np.float32) * np.float32(41.0)
    expected = original["bin_index"](on_edges, np.float32(41.0))
    got = np.asarray(new["bin_index"](jnp.asarray(on_edges), np.float32(41.0)))  # 55 of 199 are one bin low
    assert (expected == np.arange(1, 200)).all() and (got != expected).any()
    logs, quotients = (np.asarray(v) for v in new["exact_octave"](jnp.asarray(on_edges)))
    np.testing.assert_array_equal(quotients, np.arange(1, 200))
    np.testing.assert_array_equal(logs, np.floor(np.log(on_edges)))


DIVIDED = textwrap.dedent(
    """
    import numpy as np

    def per_group(sizes, groups):
        items = np.floor(sizes).astype(int)
        n = np.floor(groups).astype(int)
        return items // n

    def per_group_weak_guard(sizes, groups):
        items = np.floor(sizes).astype(int)
        n = np.floor(groups).astype(int)
        return np.where(n >= 0, items // n, 0), np.sum(items) // np.sum(n > 5)

    def per_group_guarded(sizes, groups):
        items = np.floor(sizes).astype(int)
        n = np.floor(groups).astype(int)
        return np.where(n > 0, items // n, 0), items // np.maximum(n, 1), items % n
    """
)


def test_integer_division_by_zero_is_flagged_and_real():
    """NPJ122: NumPy's integer `n // 0` is 0, jax.numpy's -1 or -2; guarded divisions and `%` agree."""
    result = migrate_source(DIVIDED.encode(), "divided.py", Options(jit=True))
    original, new = {}, {}
    exec(compile(DIVIDED, "original.py", "exec"), original)
    exec(compile(result.output, "migrated.py", "exec"), new)
    assert "NPJ122" in _codes_in(result, "per_group")
    assert "NPJ122" not in _codes_in(result, "per_group_guarded")
    weak = [d for d in result.diagnostics if d.code == "NPJ122" and _record(result, "per_group_weak_guard").line <= d.line]
    assert len(weak) == 2  # `n >= 0` keeps n == 0; a count of a mask can be 0
    sizes, groups = np.array([7.0, 0.0, 9.0]), np.array([0.0, 0.0, 2.0])
    with np.errstate(divide="ignore"):
        expected = original["per_group"](sizes, groups)
        guarded = original["per_group_guarded"](sizes, groups)
    assert expected.tolist() == [0, 0, 4]
    assert np.asarray(new["per_group"](jnp.asarray(sizes), jnp.asarray(groups))).tolist() == [-2, -1, 4]
    for want, got in zip(guarded, new["per_group_guarded"](jnp.asarray(sizes), jnp.asarray(groups))):
        np.testing.assert_array_equal(np.asarray(got), want)


RANGES = textwrap.dedent(
    """
    import numpy as np

    def fits_dtype(x, dtype):
        return np.array(x).astype(dtype) == x

    def plain(x, t):
        y = np.abs(x)
        return y > t, y.astype(np.int32) == 3

    def white(img):
        a = np.asarray(img, dtype=np.uint8)
        return a == 255, a == 300
    """
)


def test_comparing_an_array_of_a_run_time_dtype_with_a_python_int_is_flagged_and_real():
    """NPJ115: jax.numpy converts the Python int to the array's dtype before comparing (300 -> 44 in int8);
    NumPy 2 compares exactly (numpy-groupies' minimum_dtype, PyEMD's get_timeline)."""
    result = migrate_source(RANGES.encode(), "ranges.py", Options(jit=True))
    original, new = {}, {}
    exec(compile(RANGES, "original.py", "exec"), original)
    exec(compile(result.output, "migrated.py", "exec"), new)
    assert "NPJ115" in _codes_in(result, "fits_dtype") and "NPJ115" not in _codes_in(result, "plain")
    assert not original["fits_dtype"](300, np.int8)
    assert bool(new["fits_dtype"](300, np.int8))
    white = [d for d in result.diagnostics if d.code == "NPJ115" and d.line >= _record(result, "white").line]
    assert len(white) == 1 and "300" in white[0].message  # 255 is a uint8: compared exactly
    img = np.array([44, 255], np.uint8)
    assert original["white"](img)[1].tolist() == [False, False]
    assert np.asarray(new["white"](jnp.asarray(img))[1]).tolist() == [True, False]  # 300 wrapped to 44


def test_loop_index_times_large_constant_is_flagged_and_real():
    """NPJ115: `i * 86400 * 1000` with `i` the index of a loop that becomes jax.lax.fori_loop: an int32 there, a
    Python int (that never wraps) in NumPy's loop (redteam9 S-04). Small constants stay unreported."""
    source = textwrap.dedent("""\
        import numpy as np


        def days_to_ms(t0):
            out = np.zeros(len(t0))
            for i in range(len(t0)):
                out[i] = t0[i] + i * 86400 * 1000
            return out


        def offsets(t0):
            out = np.zeros(len(t0))
            for i in range(len(t0)):
                out[i] = t0[i] + i * 60
            return out
        """)
    result = migrate_source(source.encode(), "ms.py", Options())
    assert "NPJ115" in _codes_in(result, "days_to_ms") and "NPJ115" not in _codes_in(result, "offsets")
    namespace: dict = {}
    exec(compile(result.output, "ms.py", "exec"), namespace)
    wrapped = np.asarray(namespace["days_to_ms"](np.zeros(40)))
    assert wrapped[39] != 39 * 86400 * 1000  # the hazard is real: int32 wraps where NumPy's int does not


def test_fused_multiply_add_before_a_cast_to_the_inputs_dtype_is_flagged_and_real():
    """NPJ120 (hunt11 01): `(alpha * a + (1 - alpha) * b).astype(a.dtype)` on uint8 images: jit fuses the
    multiply-add and rounds once, NumPy twice, and the truncation lands one lower for some pixels."""
    source = textwrap.dedent("""\
        import numpy as np


        def blend(a, b, alpha):
            return (alpha * a + (1 - alpha) * b).astype(a.dtype)
        """)
    result = migrate_source(source.encode(), "blend.py", Options())
    assert "NPJ120" in _codes_in(result, "blend") and result.functions[0].jit
    namespace: dict = {}
    exec(compile(result.output, "blend.py", "exec"), namespace)
    a, b = (v.astype(np.uint8).ravel() for v in np.meshgrid(np.arange(256), np.arange(256)))
    migrated = np.asarray(namespace["blend"](a, b, 0.3))
    original = (0.3 * a + (1 - 0.3) * b).astype(a.dtype)
    assert migrated.dtype == np.uint8 and np.count_nonzero(migrated != original) > 0  # the hazard is real


def test_tiny_floor_in_a_builtin_max_that_becomes_jnp_where_is_flagged():
    """NPJ121 (hunt11 02): `max(np.linalg.norm(b), 1e-300)` becomes jnp.where in a jitted function, where 1e-300 is
    0 in float32: a zero right-hand side gives 0/0 = nan where NumPy gives 0."""
    source = textwrap.dedent("""\
        import numpy as np


        def residual_norm(A, x, b):
            return np.linalg.norm(A @ x - b) / max(np.linalg.norm(b), 1e-300)
        """)
    result = migrate_source(source.encode(), "res.py", Options())
    assert "NPJ121" in _codes_in(result, "residual_norm")
    namespace: dict = {}
    exec(compile(result.output, "res.py", "exec"), namespace)
    A = np.eye(3, dtype=np.float32)
    assert np.isnan(float(namespace["residual_norm"](A, np.zeros(3, np.float32), np.zeros(3, np.float32))))  # real


def test_powers_to_exponents_as_long_as_the_data_are_flagged():
    """NPJ121 (hunt57 S3): pandas-style adjusted EWMA weights `(1 - alpha) ** np.arange(len(x))[::-1]` underflow to 0
    in float32 past about 440 samples (span 10): the first outputs are 0/0 = NaN where NumPy's float64 is exact.
    Powers to a short, fixed range (`x ** np.arange(3)`) and integer bases are not reported."""
    source = textwrap.dedent("""\
        import numpy as np


        def ewma_adjusted(x, span=10):
            alpha = 2.0 / (span + 1)
            w = (1 - alpha) ** np.arange(len(x))[::-1]
            return np.cumsum(w * x) / np.cumsum(w)


        def discounted(rewards, gamma=0.99):
            n = rewards.shape[0]
            return np.sum(rewards * np.power(gamma, np.arange(n)))


        def features(x):
            return x[:, None] ** np.arange(3) + 2 ** np.arange(len(x))[:, None]
        """)
    result = migrate_source(source.encode(), "ewm.py", Options())
    assert "NPJ121" in _codes_in(result, "ewma_adjusted") and "NPJ121" in _codes_in(result, "discounted")
    assert "NPJ121" not in _codes_in(result, "features")
    namespace: dict = {}
    exec(compile(result.output, "ewm.py", "exec"), namespace)
    x = 10 + np.cumsum(np.random.default_rng(0).normal(size=1000)).astype(np.float32)
    with jax.enable_x64(False):
        migrated = np.asarray(namespace["ewma_adjusted"](x))
    assert np.isnan(migrated).any() and not np.isnan(np.asarray(_exec_original(source)["ewma_adjusted"](x))).any()


def _exec_original(source: str) -> dict:
    namespace: dict = {}
    exec(compile(source, "original.py", "exec"), namespace)
    return namespace


def test_an_out_of_range_constant_a_converted_if_returns_is_flagged():
    """redteam10 S-02: `if s == 0: return 1e300` became a conditional whose float32 branch is inf. (A mean is
    a float whatever x holds; a sum of an integer x would be an int, and that `if` is not converted.)"""
    source = textwrap.dedent("""\
        import numpy as np


        def safe_scale(x):
            s = np.abs(x).mean()
            if s == 0:
                return 1e300
            return s
        """)
    result = migrate_source(source.encode(), "s.py", Options())
    assert "NPJ121" in _codes_in(result, "safe_scale") and result.functions[0].jit
    namespace: dict = {}
    exec(compile(result.output, "s.py", "exec"), namespace)
    with np.errstate(over="ignore"):  # jax casting 1e300 to float32 warns
        value = float(namespace["safe_scale"](np.zeros(3, np.float32)))
    assert np.isinf(value)  # the hazard is real


def test_an_index_clipped_with_room_for_the_step_added_to_it_is_not_reported():
    """hunt13 FP: `x[i0c + 1]` with `i0c = np.clip(i0, 0, len(x) - 2)` (linear interpolation) is in range by
    construction; `+ 2` on it, or `+ 1` on `np.clip(i0, 0, len(x) - 1)`, may not be and stays reported."""
    source = textwrap.dedent(
        """
        import numpy as np

        def lerp(x, t):
            i0 = np.floor(t).astype(int)
            i0c = np.clip(i0, 0, len(x) - 2)
            frac = t - i0c
            return (1 - frac) * x[i0c] + frac * x[i0c + 1]

        def past_the_room(x, t):
            i0 = np.floor(t).astype(int)
            i0c = np.clip(i0, 0, len(x) - 2)
            j = np.minimum(i0, len(x) - 1)
            return x[i0c + 2] + x[j + 1]
        """
    )
    result = migrate_source(source.encode(), "lerp.py", Options(jit=True))
    assert "NPJ114" not in _codes_in(result, "lerp")
    assert [d.line for d in result.diagnostics if d.code == "NPJ114"] == [14, 14]
    migrated, original = {}, {}
    exec(compile(result.output, "migrated.py", "exec"), migrated)
    exec(compile(source, "original.py", "exec"), original)
    x, t = np.array([0.0, 1.0, 4.0, 9.0]), np.array([-1.0, 0.5, 2.5, 7.0])
    np.testing.assert_allclose(np.asarray(migrated["lerp"](x, t)), original["lerp"](x, t), rtol=1e-6)


def test_a_window_sum_from_a_running_sum_is_flagged_and_real():
    """hunt12 S3 / hunt13 box_filter: `c[w:] - c[:-w]` of `c = np.cumsum(x)` keeps in float32 only the digits the
    large partial sums leave the window's sum; a running count of booleans is exact and is not reported."""
    source = textwrap.dedent(
        """
        import numpy as np

        def moving_sum(x, w):
            c = np.concatenate([[0.0], np.cumsum(x)])
            return c[w:] - c[:-w]

        def box(img, r):
            S = np.cumsum(np.cumsum(img, axis=0), axis=1)
            return S[r:, r:] - S[:-r, r:] - S[r:, :-r] + S[:-r, :-r]

        def moving_count(labels, w):
            c = np.cumsum(labels == 1)
            return c[w:] - c[:-w]
        """
    )
    result = migrate_source(source.encode(), "windows.py", Options(jit=True))
    assert "NPJ116" in _codes_in(result, "moving_sum") and "NPJ116" in _codes_in(result, "box")
    assert "NPJ116" not in _codes_in(result, "moving_count")
    migrated, original = {}, {}
    exec(compile(result.output, "migrated.py", "exec"), migrated)
    exec(compile(source, "original.py", "exec"), original)
    x = 1000.0 + np.sin(np.arange(100_000.0))
    want = original["moving_sum"](x, 5)
    got = np.asarray(migrated["moving_sum"](x, 5))
    assert np.max(np.abs(got - want) / np.abs(want)) > 1e-5  # beyond float32's own rounding of the result
    labels = np.arange(50) % 3
    np.testing.assert_array_equal(np.asarray(migrated["moving_count"](labels, 4)), original["moving_count"](labels, 4))


def test_a_64_bit_integer_limit_is_reported_and_real():
    """hunt12 L3: `INF = np.iinfo(np.int64).max // 2` as a dynamic-programming sentinel had only NPJ107 (info); without
    x64, jnp.full(..., INF, dtype=np.int64) wraps the sentinel to -1 (or raises OverflowError, by JAX version)."""
    source = textwrap.dedent(
        """
        import numpy as np

        def sentinel_table(n):
            INF = np.iinfo(np.int64).max // 2
            return np.full(n, INF, dtype=np.int64)

        def small(n):
            return np.full(n, np.iinfo(np.int32).max, dtype=np.int32), np.iinfo(np.uint64).min
        """
    )
    result = migrate_source(source.encode(), "dp.py", Options(jit=True))
    assert "NPJ115" in _codes_in(result, "sentinel_table") and "NPJ115" not in _codes_in(result, "small")
    migrated, original = {}, {}
    exec(compile(result.output, "migrated.py", "exec"), migrated)
    exec(compile(source, "original.py", "exec"), original)
    try:
        got = np.asarray(migrated["sentinel_table"](3))
    except OverflowError:
        return
    assert got[0] != original["sentinel_table"](3)[0]


def test_products_of_python_ints_are_not_int32_overflows():
    """NPJ115 is about int32 arrays: `s * step` of a `range` index and an `int(...)`, or `fact *= k` over
    `range(2, deriv + 1)`, are Python ints in NumPy and in the migrated code alike (hunt13 FP1).  (The index of a
    loop that becomes jax.lax.fori_loop is an int32 tracer: test_loop_index_times_large_constant_is_flagged_and_real.)"""
    source = textwrap.dedent("""\
        import numpy as np


        def segment_means(x, nperseg=64, overlap=0.5):
            step = int(nperseg * (1 - overlap))
            nseg = 1 + (len(x) - nperseg) // step
            out = []
            for s in range(nseg):
                out.append(x[s * step:s * step + nperseg].mean())
            return out


        def scaled(c, deriv=0):
            fact = 1
            for k in range(2, deriv + 1):
                fact *= k
            return c * fact

        """)
    result = migrate_source(source.encode(), "ints.py", Options(jit=True))
    assert "NPJ115" not in _codes_in(result, "segment_means") | _codes_in(result, "scaled")
    namespace: dict = {}
    exec(compile(result.output, "ints.py", "exec"), namespace)
    x = np.arange(256, dtype=np.float32)
    assert [float(v) for v in namespace["segment_means"](x)] == [31.5, 63.5, 95.5, 127.5, 159.5, 191.5, 223.5]
    assert float(namespace["scaled"](np.float32(2.0), deriv=4)) == 48.0


def test_a_constant_beyond_int32_is_reported_whatever_the_arrays_dtype():
    """hunt14 L5: `ids * 2654435761` (a multiplicative hash) raises OverflowError on a JAX array of any dtype
    without x64, integer or float: NPJ115 says so even when nothing says `ids` holds integers."""
    source = textwrap.dedent("""\
        import numpy as np


        def hash_ids(ids, buckets=1024):
            ids = np.asarray(ids)
            return (ids * 2654435761) % buckets


        def scaled(x):
            return np.asarray(x) * 1e10
        """)
    result = migrate_source(source.encode(), "h.py", Options(jit=True))
    assert "NPJ115" in _codes_in(result, "hash_ids") and "NPJ115" not in _codes_in(result, "scaled")
    namespace: dict = {}
    exec(compile(result.output, "h.py", "exec"), namespace)
    with pytest.raises(OverflowError):
        namespace["hash_ids"](np.array([1, 2, 3], dtype=np.int32))


def test_a_bound_next_to_one_below_float32_resolution_is_reported_and_real():
    """hunt14 S5: `np.clip(p, eps, 1 - eps)` with `eps=1e-15` guards `np.log(1 - p)` in NumPy; in float32 the
    bound is 1.0, so a probability of 1 gives log(0) and the loss is inf/nan.  NPJ117 says so."""
    source = textwrap.dedent("""\
        import numpy as np


        def log_loss(y, p, eps=1e-15):
            p = np.clip(p, eps, 1 - eps)
            return -np.mean(y * np.log(p) + (1 - y) * np.log(1 - p))
        """)
    result = migrate_source(source.encode(), "loss.py", Options(jit=True))
    assert "NPJ117" in _codes_in(result, "log_loss")
    namespace: dict = {}
    exec(compile(result.output, "loss.py", "exec"), namespace)
    y, p = np.array([1.0, 0.0, 1.0, 0.0]), np.array([1.0, 0.0, 0.9, 0.2])
    original: dict = {}
    exec(compile(source, "original.py", "exec"), original)
    assert np.isfinite(original["log_loss"](y, p))
    assert not np.isfinite(float(namespace["log_loss"](y.astype(np.float32), p.astype(np.float32))))


def test_integer_shape_arithmetic_is_no_fused_multiply_add():
    """hunt14 FP: `(h + 2 * pad - kh) // stride + 1` of shape sizes and int-defaulted parameters is exact integer
    arithmetic (static under jit): NPJ120's fused multiply-add note does not apply.  A float `alpha * a + b`
    floored still gets it."""
    source = textwrap.dedent("""\
        import numpy as np


        def out_size(x, kh, stride=1, pad=0):
            n, c, h, w = x.shape
            oh = (h + 2 * pad - kh) // stride + 1
            return np.zeros((n, oh))


        def blend_floor(a, b, alpha):
            return np.floor(alpha * a + b)
        """)
    result = migrate_source(source.encode(), "sizes.py", Options(jit=True))
    assert "NPJ120" not in _codes_in(result, "out_size") and "NPJ120" in _codes_in(result, "blend_floor")


def test_poly_of_conjugate_roots_is_reported_and_really_complex_in_jax():
    """real15 S1 (spectrum's lsf2poly): NumPy's `np.poly` drops the imaginary parts when the complex roots come in
    conjugate pairs; `jnp.poly` returns complex coefficients, and code after it (sorting, angles) differs."""
    source = "import numpy as np\n\n\ndef coefficients(r):\n    return np.poly(r)\n"
    result = migrate_source(source.encode(), "p.py", Options(jit=True))
    assert "NPJ119" in _codes_in(result, "coefficients")
    namespace: dict = {}
    exec(compile(result.output, "p.py", "exec"), namespace)
    roots = np.array([0.5 + 0.5j, 0.5 - 0.5j])
    assert np.poly(roots).dtype.kind == "f" and np.asarray(namespace["coefficients"](roots)).dtype.kind == "c"


def test_a_product_of_an_argument_of_unknown_dtype_is_flagged_and_real():
    """hunt17 S2: `np.prod(x)` of a parameter nothing types: handed integers, NumPy multiplies in int64 and JAX
    (without x64) in int32, which wraps. A product of visibly float values stays unreported."""
    source = textwrap.dedent("""\
        import numpy as np


        def total(x):
            return np.prod(x)


        def scaled(x):
            return np.prod(x / 2)
        """)
    result = migrate_source(source.encode(), "prod.py", Options())
    assert "NPJ115" in _codes_in(result, "total") and "NPJ115" not in _codes_in(result, "scaled")
    namespace: dict = {}
    exec(compile(result.output, "migrated.py", "exec"), namespace)
    x = np.arange(1, 40)
    wraps = not jax.config.jax_enable_x64  # int32 wraps (to 0 here) without x64
    assert (int(np.prod(x)) != int(namespace["total"](x))) == wraps


def test_eigenvectors_and_singular_vectors_in_use_are_flagged_and_agree_only_up_to_sign():
    """hunt17 S3: `w, V = np.linalg.eigh(C)` then `X @ V[:, ::-1]`: jax.numpy's eigenvectors may come out negated
    (NPJ123). Eigenvalues alone (`w, _ = ...`, `[0]`, `compute_uv=False`) are not reported; the vectors alone (`U = ...[0]`) are."""
    source = textwrap.dedent("""\
        import numpy as np


        def axes(C):
            w, V = np.linalg.eigh(C)
            return V


        def directions(X):
            U, s, Vt = np.linalg.svd(X, full_matrices=False)
            return Vt


        def values_only(C, X):
            w, _ = np.linalg.eigh(C)
            return w, np.linalg.eigh(C)[0], np.linalg.svd(X, compute_uv=False)


        def sign_free(C, X):
            w, V = np.linalg.eigh(C)
            U, s, Vt = np.linalg.svd(X, full_matrices=False)
            return (V * w) @ V.T, U[:, :2] @ np.diag(s[:2]) @ Vt[:2]


        def leading(X):
            U, s, Vt = np.linalg.svd(X, full_matrices=False)
            return U @ np.diag(s) @ Vt, Vt[0]


        def left_vectors(X):
            U = np.linalg.svd(X, full_matrices=False)[0]  # real34 (mne-connectivity): crashed the rule
            return U[:, :2]
        """)
    result = migrate_source(source.encode(), "decomp.py", Options())
    assert result.error is None and "NPJ123" in _codes_in(result, "left_vectors")
    assert "NPJ123" in _codes_in(result, "axes") and "NPJ123" in _codes_in(result, "directions")
    assert "NPJ123" not in _codes_in(result, "values_only") | _codes_in(result, "sign_free")
    assert "NPJ123" in _codes_in(result, "leading")
    namespace: dict = {}
    exec(compile(result.output, "migrated.py", "exec"), namespace)
    rng = np.random.default_rng(0)
    for _ in range(10):
        X = rng.normal(size=(20, 4))
        C = np.cov(X.T)
        for name, arg, expected in (("axes", C, np.linalg.eigh(C)[1]),
                                    ("directions", X, np.linalg.svd(X, full_matrices=False)[2].T)):
            got = np.asarray(namespace[name](arg))
            got = got if name == "axes" else got.T
            signs = np.sign(np.sum(got * expected, axis=0))  # each vector equals NumPy's or its negation
            np.testing.assert_allclose(got * signs, expected, atol=1e-4)


def test_argsort_of_integers_is_a_warning_of_ties():
    """hunt17 S4: ties in an integer operand are common; NPJ108 is a warning there, a note for other data."""
    source = textwrap.dedent("""\
        import numpy as np


        def by_count(x):
            return np.argsort((x * 10).astype(int))


        def by_value(x):
            return np.argsort(x)
        """)
    result = migrate_source(source.encode(), "ties.py", Options())
    severities = {d.line: d.severity.value for d in result.diagnostics if d.code == "NPJ108"}
    assert severities == {5: "warning", 9: "info"}, severities


def test_process_pools_warn_and_the_functions_they_are_handed_stay_unjitted():
    """real20 (PyEMD): a multiprocessing.Pool forked after migrated code ran deadlocked, and a jitted module function
    handed to `pool.map` cannot be pickled by name. NPJ124 warns at pools and processes made without a spawn or
    forkserver context; the functions handed to them (map, submit, target=) are not jitted (NPJ302)."""
    source = textwrap.dedent('''
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor
        import numpy as np

        def trial(seed):
            return np.sum(np.linspace(0.0, 1.0, 50) * seed)

        def job(x):
            return np.mean(x * 2.0)

        def work(x):
            return np.std(x)

        def alone(x):
            return np.std(x) + 1.0

        def run(seeds, xs):
            with multiprocessing.Pool(2) as pool:
                a = pool.map(trial, seeds)
            with ProcessPoolExecutor(2) as executor:
                b = executor.submit(job, xs).result()
            with ProcessPoolExecutor(2, mp_context=multiprocessing.get_context("spawn")) as executor:
                c = executor.submit(job, xs).result()
            p = multiprocessing.Process(target=work, args=(xs,))
            return a, b, c, p
        ''').lstrip()
    result = migrate_source(source.encode(), "m.py")
    lines = source.splitlines()
    warned = {lines[d.line - 1].strip() for d in result.diagnostics if d.code == "NPJ124"}
    assert warned == {"with multiprocessing.Pool(2) as pool:", "with ProcessPoolExecutor(2) as executor:",
                      "p = multiprocessing.Process(target=work, args=(xs,))"}, warned
    jitted = {f.qualname for f in result.functions if f.jit}
    assert "alone" in jitted and not {"trial", "job", "work"} & jitted, jitted
    assert all("pickles it by name" in d.message for d in result.diagnostics if d.code == "NPJ302")


def test_repeat_counts_from_int_parameters_are_static_and_jitted():
    """hunt20 FP: `np.repeat(x[:1], k // 2)` with `k=3` was NPJ102 (an error: the function stayed NumPy), though the
    jit plan makes `k` static. A count of literals and int parameters (a default or an `int` hint) is static;
    `np.repeat(x, counts)` of an unknown parameter keeps NPJ102."""
    source = textwrap.dedent('''
        import numpy as np

        def edge_pad(x, k=3):
            r = k // 2
            return np.concatenate([np.repeat(x[:1], r), x, np.repeat(x[-1:], r)])

        def hinted(x, times: int):
            return np.repeat(x, times + 1)

        def by_counts(x, counts):
            return np.repeat(x, counts)

        def embedded(x, emb_dim=3, lag=1):
            m = len(x) - (emb_dim - 1) * lag
            return np.repeat(x[:1], m)
        ''').lstrip()
    result = migrate_source(source.encode(), "m.py")
    jitted = {f.qualname: f.static_argnums for f in result.functions if f.jit}
    # (real33 FP: a count mixing `len(x)` with int parameters, nolds' delay_embedding, is static too)
    assert jitted == {"edge_pad": (1,), "hinted": (1,), "embedded": (1, 2)}, jitted
    assert [d.line for d in result.diagnostics if d.code == "NPJ102"] == [11]
    original, migrated = {}, {}
    exec(compile(source, "original.py", "exec"), original)
    exec(compile(result.output, "migrated.py", "exec"), migrated)
    x = np.arange(5.0)
    for k in (3, 4, 5):
        np.testing.assert_array_equal(np.asarray(migrated["edge_pad"](x, k)), original["edge_pad"](x, k))
    np.testing.assert_array_equal(np.asarray(migrated["hinted"](x, 2)), original["hinted"](x, 2))
    np.testing.assert_array_equal(np.asarray(migrated["embedded"](x, 2, 2)), original["embedded"](x, 2, 2))


def test_narrowing_casts_of_arrays_written_after_a_boolean_start_and_of_dtype_codes_are_flagged():
    """hunt24 S8: `m = np.where(x > 0, 1.0, 0.0)` then `m[1:] = x[1:] * 100`: the cast to uint8 wraps in NumPy and
    saturates in JAX; the boolean range of `m`'s binding must not hide the write. `.astype("u1")` and
    `np.dtype(np.uint8)` are uint8 too. A boolean cast alone stays unreported, `~` of a boolean too; `~` of a 0/1
    int array is -1/-2, which wraps to 255/254 in NumPy and under XLA alike (an int cast to a narrower int: hunt43
    FP1), so it is not reported either."""
    source = textwrap.dedent(
        """
        import numpy as np

        def written(x):
            m = np.where(x > 0, 1.0, 0.0)
            m[1:] = x[1:] * 100
            return m.astype(np.uint8)

        def coded(x):
            return (x * 100.0).astype("u1"), (x * 100.0).astype(np.dtype(np.uint8))

        def threshold(img, t):
            mask = img > t
            return (img > t).astype(np.uint8), np.where(mask, True, False).astype(np.uint8), (~mask).astype(np.uint8)

        def inverted_ints(x):
            m = (x > 0).astype(int)
            return (~m).astype(np.uint8)
        """
    )
    result = migrate_source(source.encode(), "casts.py", Options(jit=True))
    assert sorted(d.line for d in result.diagnostics if d.code == "NPJ105") == [7, 10, 10]
    ints = np.array([0, 1])
    assert np.asarray(jax.jit(lambda m: (~m).astype(jnp.uint8))(ints)).tolist() == (~ints).astype(np.uint8).tolist()
    x = np.array([0.5, 0.5, 4.4, 1.44])
    m = np.where(x > 0, 1.0, 0.0)
    m[1:] = x[1:] * 100
    assert m.astype(np.uint8).tolist() != np.asarray(jnp.asarray(m).astype(jnp.uint8)).tolist()


def test_singular_vectors_returned_side_by_side_are_flagged():
    """real21 S (transforms3d shears.inverse_outer): `u.T[0]` and `vh[0]` are read as often as each other, but
    returned apart, so their signs (which LAPACK and XLA choose differently) never cancel; a product of them does."""
    source = textwrap.dedent(
        """
        import numpy as np

        def inverse_outer(mat):
            u, s, vh = np.linalg.svd(mat)
            return s[0], u.T[0], vh[0]

        def rebuild(mat):
            u, s, vh = np.linalg.svd(mat)
            return u @ np.diag(s) @ vh
        """
    )
    result = migrate_source(source.encode(), "svd.py", Options(jit=True))
    assert [d.line for d in result.diagnostics if d.code == "NPJ123"] == [5]


MASKED = textwrap.dedent(
    """
    import numpy as np

    def masked_logsum(p):
        return np.sum((p > 0).astype(float) * np.log(p))

    def pool_backward(dout, mask, counts):
        return mask * (np.asarray(dout) / counts)

    def entropy(p):
        return -np.sum((p > 0) * p * np.log(p))

    def halves(x):
        keep = x > 0
        return keep * (x / 2.0) + keep * np.abs(x)
    """
)


def test_a_boolean_mask_times_a_log_or_a_division_is_flagged_and_real():
    """NPJ125 (hunt39 S1): under jax.jit XLA turns `mask * x` into a select, so a masked-out -inf or NaN is 0 where
    NumPy's `0.0 * -inf` is NaN; `jnp.where(mask, x, x * 0)`, the advice, keeps NumPy's NaN."""
    result = migrate_source(MASKED.encode(), "masked.py", Options(jit=True))
    original, new = {}, {}
    exec(compile(MASKED, "original.py", "exec"), original)
    exec(compile(result.output, "migrated.py", "exec"), new)
    for name in ("masked_logsum", "pool_backward", "entropy"):
        assert "NPJ125" in _codes_in(result, name), name
    assert "NPJ125" not in _codes_in(result, "halves")
    p = np.array([0.0, 0.5, 0.5], np.float32)
    with np.errstate(all="ignore"):
        assert np.isnan(original["masked_logsum"](p)) and np.isnan(original["entropy"](p))
        expected = original["pool_backward"](np.ones(3, np.float32), np.array([False, True, True]), np.array([0.0, 2.0, 2.0], np.float32))
    assert np.isfinite(np.asarray(new["masked_logsum"](p)))  # the difference reported
    got = np.asarray(new["pool_backward"](np.ones(3, np.float32), np.array([False, True, True]), np.array([0.0, 2.0, 2.0], np.float32)))
    assert np.isnan(expected[0]) and got[0] == 0.0
    kept = jax.jit(lambda p: jnp.sum(jnp.where(p > 0, jnp.log(p), jnp.log(p) * 0)))(p)
    assert np.isnan(np.asarray(kept))
    x = np.array([-1.0, 0.0, 3.0], np.float32)
    np.testing.assert_allclose(np.asarray(new["halves"](x)), original["halves"](x), rtol=1e-6)


def test_a_clipped_inexact_value_before_an_integer_cast_is_flagged_and_real():
    """check38 follow-up (found by np2jax check's special inputs): `np.clip(scaled, 0, 1) * 255` then `.astype(np.uint8)`
    lost NPJ120 at the clip; a tie of the 99th percentile made NumPy's 254.99999 into 254 and XLA's 255.0 into 255."""
    source = textwrap.dedent(
        """
        import numpy as np

        def normalize_uint8(img):
            lo, hi = np.percentile(img, [1, 99])
            scaled = (img - lo) / (hi - lo + 1e-12)
            return (np.clip(scaled, 0, 1) * 255).astype(np.uint8)

        def minmax(x):
            return (x - x.min()) / (x.max() - x.min())

        def clip_method(x):
            return (minmax(x).clip(0, 1) * 255).astype(np.uint8)
        """
    )
    result = migrate_source(source.encode(), "norm.py", Options(jit=True))
    assert "NPJ120" in _codes_in(result, "normalize_uint8")
    assert "NPJ120" in _codes_in(result, "clip_method")  # (hunt40 S3: the method form)


def test_masked_product_variants_and_guarded_values():
    """hunt40 S4/FP2: `np.multiply(mask, np.log(p))`, a square root, `.astype(p.dtype)` of a mask and `t *= mask`
    are the same select under XLA and reported; a log of a clipped value and a division by `np.maximum(n, 1)` or
    a size stay finite and are not."""
    source = textwrap.dedent(
        """
        import numpy as np

        def v_multiply(p):
            return np.sum(np.multiply(p > 0, np.log(p)))

        def v_sqrt(d):
            return np.sum((d >= 0) * np.sqrt(d))

        def v_astype(p):
            return np.sum((p > 0).astype(p.dtype) * np.log(p))

        def v_aug(p):
            t = np.log(p)
            t *= p > 0
            return t.sum()

        def v_numerator(a, b):
            m = b > 0
            return np.sum(m * np.divide(np.maximum(a, 1.0), b))

        def v_arcsin(c):
            return np.sum((c > 0) * np.arcsin(np.clip(c, 0.5, 2.0)))

        def fine_bounds(c, p, a, b):
            return np.sum((c > 0) * np.arccos(np.clip(c, -1.0, 1.0))) + np.sum((p > 0) * np.log(np.maximum(1e-12, p))) \
                + np.sum((b > 0) * np.divide(a, np.maximum(b, 1.0)))

        def fine(y, p, k, x, n):
            return -np.sum((y == k) * np.log(np.clip(p, 1e-12, 1.0))) + np.sum((x > 0) * (x / np.maximum(n, 1))) \\
                + np.sum((x > 0) * (x / x.shape[0]))
        """
    )
    result = migrate_source(source.encode(), "variants.py", Options(jit=True))
    for name in ("v_multiply", "v_sqrt", "v_astype", "v_aug", "v_numerator", "v_arcsin"):  # (hunt41 S3/S4)
        assert "NPJ125" in _codes_in(result, name), name
    assert "NPJ125" not in _codes_in(result, "fine") and "NPJ125" not in _codes_in(result, "fine_bounds")
    new = {}
    exec(compile(result.output, "migrated.py", "exec"), new)
    d = np.array([-1.0, 0.25, 4.0], np.float32)
    with np.errstate(all="ignore"):
        assert np.isnan(np.sum((d >= 0) * np.sqrt(d)))
    assert np.isfinite(np.asarray(new["v_sqrt"](d)))  # the difference reported


STORED_FUNCTIONS = textwrap.dedent(
    """
    from dataclasses import dataclass, field
    from typing import Callable

    import numpy as np


    def minmax(x):
        return (x - x.min()) / (x.max() - x.min())


    class Base:
        def __init__(self, f=minmax):
            self.f = f


    class Sub(Base):
        def rank(self, x):
            return np.floor(self.f(x) * 10).astype(int)


    class Annotated:
        def __init__(self, f=minmax, g=np.abs):
            self.f: Callable = f
            self.h, self.g = f, g

        def rank(self, x):
            return np.floor(self.f(x) * 10).astype(int), np.floor(self.h(x) * 10).astype(int), np.floor(self.g(x) * 10)


    @dataclass
    class Config:
        f: Callable = minmax
        g: Callable = field(default=minmax)

        def rank(self, x):
            return np.floor(self.f(x) * 10).astype(int) + np.floor(self.g(x) * 10).astype(int)


    def lam(x, f=lambda v: (v - v.min()) / (v.max() - v.min())):
        return np.sum(f(x) == 1.0)
    """
)


def test_an_inexact_function_stored_or_defaulted_in_other_forms_is_followed():
    """hunt40 S1/S2: NPJ120 followed `self.f = f` of the class itself only; an inherited constructor, an annotated
    or unpacked store, a dataclass field (also `field(default=...)`) and a lambda default went unreported, each one
    level off at the maximum (`floor(self.f(x) * 10)` is 9 where NumPy has 10)."""
    result = migrate_source(STORED_FUNCTIONS.encode(), "stored.py", Options(jit=True))
    found = sorted((d.line, d.col) for d in result.diagnostics if d.code == "NPJ120")
    assert found == [(19, 25), (28, 25), (28, 63), (37, 25), (37, 64), (41, 19)], found


def test_a_finite_difference_step_scaled_by_the_values_size_is_flagged():
    """NPJ116 (hunt57 S1): `step = eps * max(1.0, abs(x[j]))` is a relative step as small as eps; only `/ eps` and
    steps scaled by number literals were followed, and the float32 gradient came out [0, 19.07, 25.43] for
    [3, 12, 27]. A step scaled by a size (`max`, `abs`, `np.linalg.norm`, `1 + abs(x)`) is followed too."""
    source = textwrap.dedent("""\
        import numpy as np


        def fd_grad(f, x, eps=1e-7):
            x = np.asarray(x, dtype=float)
            g = np.zeros(x.size)
            for j in range(x.size):
                xp = x.copy()
                step = eps * max(1.0, abs(x[j]))
                xp[j] += step
                g[j] = (f(xp) - f(x)) / step
            return g


        def slope(f, x, h=1e-6):
            d = h * (1 + np.abs(x))
            return (f(x + d) - f(x)) / d


        def coarse(f, x, h=0.01):
            d = h * max(1.0, abs(x))
            return (f(x + d) - f(x)) / d
        """)
    result = migrate_source(source.encode(), "fd.py", Options())
    assert "NPJ116" in _codes_in(result, "fd_grad") and "NPJ116" in _codes_in(result, "slope")
    assert "NPJ116" not in _codes_in(result, "coarse")
    namespace: dict = {}
    exec(compile(result.output, "fd.py", "exec"), namespace)
    with jax.enable_x64(False):
        got = np.asarray(namespace["fd_grad"](lambda v: (v ** 3).sum(), np.array([1.0, 2.0, 3.0])))
    assert np.max(np.abs(got - [3.0, 12.0, 27.0])) > 1.0  # the hazard is real
