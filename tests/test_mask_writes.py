"""Boolean-mask writes with an exact ``jnp.where`` form (analysis/mask_writes.py): a named mask
(``improve = alt < dist; dist[improve] = alt[improve]``), augmented writes (``out[nz] /= norm[nz]``), masks
of a sibling array of the same shape (``np.full(lv.shape, -1)``, ``np.zeros(n)`` twice), cast to the
target's dtype as NumPy casts; and the writes that keep their diagnostics (a mask that may be of another
shape or not boolean, a value that may be an array)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from np2jax.engine import migrate_source
from tests.test_real_code_regressions import migrated_pair, record as record_of

SOURCE = """\
import numpy as np


def dijkstra(W, source):
    n = W.shape[0]
    dist = np.full(n, np.inf)
    dist[source] = 0.0
    done = np.zeros(n, dtype=bool)
    for _ in range(n):
        cand = np.where(done, np.inf, dist)
        u = np.argmin(cand)
        done[u] = True
        alt = dist[u] + W[u]
        improve = alt < dist
        dist[improve] = alt[improve]
    return dist


def overlap_norm(fr, window, hop):
    n_fft = fr.shape[1]
    n = n_fft + hop * (fr.shape[0] - 1)
    out = np.zeros(n)
    norm = np.zeros(n)
    for i in range(fr.shape[0]):
        out[i * hop:i * hop + n_fft] += fr[i]
        norm[i * hop:i * hop + n_fft] += window ** 2
    nz = norm > 1e-10
    out[nz] /= norm[nz]
    return out


def spread_norm(fr, window):
    n = fr.shape[0]
    out = np.zeros(n)
    norm = np.zeros(n)
    out += fr
    norm += window ** 2
    nz = norm > 1e-10
    out[nz] /= norm[nz]
    return out


def mark(lv, comp: int):
    labels = np.full(lv.shape, -1)
    labels[lv >= 0] = comp
    return labels


def take_larger(x, y):
    out = np.zeros_like(x, dtype=np.int64)
    better = (y > x) & ~np.isnan(y)
    out[better] = y[better]
    return out


def shift_positive(x, v: float):
    x = x.copy()
    m = x > 0
    x[m] += v
    x[x < -1] *= 2
    return x


def halve_odd(k):
    k = k.copy()
    odd = k % 2 == 1
    k[odd] //= 2
    return k


def unset(flags):
    flags = flags.copy()
    flags[flags == True] = 0  # an int into a bool array: NumPy keeps bool (jnp.where(m, 0, flags) is int32)
    return flags


def levels(adj, source):
    n = adj.shape[0]
    level = np.full(n, -1, dtype=np.int64)
    level[source] = 0
    for d in range(1, n):
        reached = ((adj * (level == d - 1)) != 0).any(axis=1) & (level < 0)
        level[reached] = d
    return level
"""

JITTED = {"dijkstra", "spread_norm", "mark", "take_larger", "shift_positive", "halve_odd", "levels", "unset"}


@pytest.fixture(scope="module")
def migrated():
    result = migrate_source(SOURCE.encode(), "m.py")
    assert result.error is None, result.error
    assert migrate_source(result.output, "m.py").output == result.output
    original, new = {}, {}
    exec(compile(SOURCE, "original.py", "exec"), original)
    exec(compile(result.output, "migrated.py", "exec"), new)
    return result, original, new


def test_mask_writes_become_where_and_functions_jit(migrated):
    result, _, _ = migrated
    output = result.output.decode()
    assert "dist = jnp.where(improve, jnp.asarray(alt, dist.dtype), dist)" in output
    assert "out = jnp.where(nz, jnp.asarray(out / norm, out.dtype), out)" in output  # spread_norm
    # overlap-add writes a window that moves with the step, so it is not jitted: left as NumPy code (NPJ304)
    assert "out[i * hop:i * hop + n_fft] += fr[i]" in output and "    out[nz] /= norm[nz]" in output
    assert "labels = jnp.where(lv >= 0, jnp.asarray(comp, labels.dtype), labels)" in output
    assert "k = jnp.where(odd, jnp.asarray(k // 2, k.dtype), k)" in output
    assert not [d for d in result.diagnostics if d.code in ("NPJ201", "NPJ301")]
    assert JITTED <= {r.qualname for r in result.functions if r.jit}


CASES = """
rng = np.random.default_rng(0)
W = rng.uniform(0.5, 3.0, (6, 6))
W[rng.uniform(size=(6, 6)) < 0.4] = np.inf
adj = (rng.uniform(size=(7, 7)) < 0.3).astype(float)
y = np.array([0.4, 2.6, np.nan, -3.7, 9.9])
cases = [
    ("dijkstra", (W, 0)),
    ("overlap_norm", (rng.normal(size=(5, 8)), np.hanning(8), 3)),
    ("spread_norm", (rng.normal(size=8), np.hanning(8))),
    ("mark", (np.array([[-1, 0], [3, -2]]), 4)),
    ("take_larger", (np.array([1.0, 2.0, 3.0, -4.0, 5.0]), y)),  # float written into int64: truncated
    ("shift_positive", (np.array([-3.0, -0.5, 0.0, 2.0]), 1.5)),
    ("shift_positive", (np.array([-3, -1, 0, 2], dtype=np.int32), 2.0)),  # NumPy refuses a float into int
    ("halve_odd", (np.arange(-5, 6),)),
    ("levels", (adj, 0)),
    ("unset", (np.array([True, False, True]),)),
]
"""

_X64_SCRIPT = """
import json, sys
import numpy as np
import jax, jax.numpy as jnp
from np2jax.engine import migrate_source
from tests.test_real_code_regressions import migrated_pair, record as record_of
source, cases_code = sys.stdin.read().split("#---#")
original, new = {}, {}
exec(compile(source, "original.py", "exec"), original)
exec(compile(migrate_source(source.encode(), "m.py").output, "migrated.py", "exec"), new)
exec(cases_code, globals())
found = []
for name, args in cases:
    try:
        want = original[name](*[a.copy() if isinstance(a, np.ndarray) else a for a in args])
    except TypeError:
        found.append([name, "numpy raises", True])
        continue
    got = np.asarray(new[name](*[jnp.asarray(a) if isinstance(a, np.ndarray) else a for a in args]))
    found.append([name, f"{want.dtype} {got.dtype}", want.dtype == got.dtype and bool(np.array_equal(got, want, equal_nan=True))])
print(json.dumps(found))
"""


def test_where_writes_match_numpy_under_x64():
    """Values and dtypes (a float written into an int64 array, an int array halved) as NumPy's, jitted, with x64."""
    env = {**os.environ, "JAX_ENABLE_X64": "1", "JAX_PLATFORMS": "cpu"}
    completed = subprocess.run([sys.executable, "-c", _X64_SCRIPT], input=SOURCE + "#---#" + CASES, text=True,
                               capture_output=True, env=env, timeout=300)
    assert completed.returncode == 0, completed.stderr
    found = json.loads(completed.stdout.strip().splitlines()[-1])
    assert len(found) == 10
    assert all(same for _, _, same in found), found


REFUSED = """\
import numpy as np


def rows(x, y):
    out = x.copy()
    keep = y.sum(axis=1) > 0
    out[keep] = 0.0
    return out


def other_value(x, v):
    out = x.copy()
    out[out > 0] = v
    return out


def other_mask_value(x, y, z):
    out = x.copy()
    m = y > x
    out[m] = z[m]
    return out


def rebound(x, y):
    out = x.copy()
    m = out > 0
    out = y.copy()
    out[m] = 1.0
    return out


def counted(x, y):
    global CALLS  # a call could rebind a module-level name between the mask and the write: order not trusted
    CALLS = 1
    out = x.copy()
    m = y > out
    out[m] = y[m]
    return out


def flags(x, flag):
    y = x.copy()
    y[~flag] = 0.0
    return y


def unrelated(x, lv):
    labels = np.zeros(len(x))
    labels[lv >= 0] = 1
    return labels
"""


def test_unprovable_mask_writes_keep_their_diagnostics():
    result = migrate_source(REFUSED.encode(), "m.py")
    output = result.output.decode()
    assert "jnp.where" not in output
    by_function = {}
    for record in result.functions:
        by_function[record.qualname] = ({d.code for d in result.diagnostics if record.line <= d.line <= record.end_line}, record.jit)
    for name in ("other_value", "other_mask_value", "counted"):
        assert "NPJ201" in by_function[name][0], name
    # one number everywhere: `.at[mask].set(v)`, which only runs outside jit; `~flag` may be an integer index
    for name in ("rows", "rebound", "flags", "unrelated"):
        codes, jitted = by_function[name]
        assert "NPJ301" in codes and not jitted, name


def test_mask_among_other_index_elements_is_not_jitted_and_runs_eagerly():
    """`B[:, B[0] < 0] = 0` (redteam9 L-04) became `.at[:, mask].set(0)` in a jitted function, which raises
    NonConcreteBooleanIndexError; unjitted it is exact."""
    source = "import numpy as np\n\n\ndef zero_neg_cols(A):\n    B = A.copy()\n    B[:, B[0] < 0] = 0\n    return B\n"
    result = migrate_source(source.encode(), "m.py")
    assert not result.functions[0].jit and "NPJ301" in {d.code for d in result.diagnostics}, result.output.decode()
    namespace: dict = {}
    exec(compile(result.output, "m.py", "exec"), namespace)
    A = np.array([[1.0, -2.0, 3.0], [4.0, 5.0, 6.0]], dtype=np.float32)
    want = A.copy()
    want[:, want[0] < 0] = 0
    assert np.array_equal(np.asarray(namespace["zero_neg_cols"](A)), want)


def test_numpy_constants_are_plain_numbers_for_mask_writes():
    """hunt14 FP (Otsu's threshold): `denom[denom == 0] = np.inf` was refused ("not a plain number"); `np.inf`,
    `np.nan`, `np.pi` are one number each: the write becomes jnp.where and the function is jitted."""
    from tests.runtime_helpers import assert_matches_numpy, function_record, migrate_and_exec

    result, original, new = migrate_and_exec(
        "import numpy as np\n\n"
        "def inverse_or_zero(omega):\n"
        "    denom = omega * (1 - omega)\n"
        "    denom[denom == 0] = np.inf\n"
        "    return 1.0 / denom\n"
    )
    assert function_record(result, "inverse_or_zero").jit
    assert "jnp.where(denom == 0, jnp.asarray(np.inf, denom.dtype), denom)" in result.output.decode()
    assert_matches_numpy(original, new, "inverse_or_zero", (np.array([0.0, 0.25, 0.5, 1.0], dtype=np.float32),))


ELEMENTWISE = """\
import numpy as np


def compressor_gain(env, knee_db=6.0, ratio=4.0):
    over = 20.0 * np.log10(env + 1e-9)
    gain_db = np.zeros_like(over)
    hard = over > knee_db / 2
    gain_db[hard] = (1.0 / ratio - 1.0) * over[hard]
    return gain_db


def inv_sqrt(d):
    inv = np.zeros(d.shape)
    nz = d > 0
    inv[nz] = 1.0 / np.sqrt(d[nz])
    return inv


def zscore_valid(x):
    z = np.zeros(x.shape)
    m = np.isfinite(x)
    z[m] = (x[m] - x[m].mean()) / x[m].std()
    return z


def like_input(d):
    inv = np.zeros_like(d)
    nz = d > 0
    inv[nz] = 1.0 / np.sqrt(d[nz])
    return inv


def bright(img):
    out = img.copy()
    m = img > 100
    out[m] = img[m] * 1.8
    return out


def reduced(d):
    inv = np.zeros_like(d)
    nz = d > 0
    inv[nz] = d[nz] / np.sum(d[nz])
    return inv


def other_array(d, w):
    inv = np.zeros_like(d)
    nz = d > 0
    inv[nz] = np.sqrt(d[nz]) * w
    return inv
"""


def test_elementwise_values_of_masked_arrays_become_where():
    """hunt15: `x[m] = f(y[m])` with `f` elementwise over arrays of the mask's shape (and numbers) writes, where `m`
    holds, what `f(y)` computes there: `jnp.where(m, f(y), x)`, jitted (the values `where` drops may be inf or
    NaN: never seen). A reduction of the selection inside the value is one number (hunt16 S3: it keeps its mask,
    `jnp.mean(x, where=m)`). A reduction over `y[m]` as the value, another array beside it, or a float value into an
    array that may hold integers (hunt16 S4: uint8 360.0 wraps to 104 in NumPy, saturates in JAX) keep the write
    refused."""
    from tests.runtime_helpers import assert_matches_numpy, migrate_and_exec

    result, original, new = migrate_and_exec(ELEMENTWISE)
    output = result.output.decode()
    assert "gain_db = jnp.where(hard, jnp.asarray((1.0 / ratio - 1.0) * over, gain_db.dtype), gain_db)" in output
    assert "inv = jnp.where(nz, jnp.asarray(1.0 / jnp.sqrt(d), inv.dtype), inv)" in output
    assert "z = jnp.where(m, jnp.asarray((x - jnp.mean(x, where=m)) / jnp.std(x, where=m), z.dtype), z)" in output
    jitted = {r.qualname for r in result.functions if r.jit}
    assert {"compressor_gain", "inv_sqrt", "zscore_valid"} <= jitted
    assert not {"reduced", "other_array", "like_input", "bright"} & jitted
    x = np.array([1.0, np.nan, 3.0, 6.0], dtype=np.float32)
    np.testing.assert_allclose(np.asarray(new["zscore_valid"](x)), original["zscore_valid"](x), rtol=1e-5)
    for name in ("reduced", "other_array", "like_input", "bright"):
        record = next(r for r in result.functions if r.qualname == name)
        assert any(d.code == "NPJ201" and record.line <= d.line <= record.end_line for d in result.diagnostics), name
    env = np.array([0.001, 0.5, 2.0, 10.0, 0.0], dtype=np.float32)
    assert_matches_numpy(original, new, "compressor_gain", (env,), rtol=1e-5)
    assert_matches_numpy(original, new, "inv_sqrt", (np.array([0.0, 4.0, -1.0, 9.0], dtype=np.float32),))


REDUCTIONS = """\
import numpy as np


def pos_sum(x, t):
    return x[x > t].sum()


def named(x):
    m = np.isfinite(x)
    return np.mean(x[m]), x[m].std(ddof=1), np.nansum(x[m])


def rebound(x, y):
    m = x > 0
    x = y
    return x[m].sum()


def rows(x):
    m = x[:, 0] > 0
    return x[m].sum()


def largest(x):
    return x[x > 0].max()
"""


def test_whole_reductions_of_a_boolean_selection_reduce_where_the_mask_holds():
    """The issue's `x[mask].sum()` -> a reduction `where=mask`: jitted, the same elements reduced (NaN and inf
    left out, an empty selection's sum 0 and mean NaN). A mask of another shape (rows), one made before `x` was
    rebound, and `max` (NumPy raises on an empty selection) keep the mask index and stay un-jitted."""
    from tests.runtime_helpers import migrate_and_exec

    result, original, new = migrate_and_exec(REDUCTIONS)
    output = result.output.decode()
    assert "return jnp.sum(x, where=x > t)" in output
    assert "return jnp.mean(x, where=m), jnp.std(x, ddof=1, where=m), jnp.nansum(x, where=m)" in output
    assert {r.qualname for r in result.functions if r.jit} == {"pos_sum", "named"}
    x = np.array([1.5, -2.0, np.nan, 4.0, 0.25, np.inf, 3.0], dtype=np.float32)
    for want, got in zip(original["named"](x), new["named"](x)):
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-6)
    y = x[np.isfinite(x)]
    for t in (0.5, 10.0):
        assert float(new["pos_sum"](y, t)) == pytest.approx(float(original["pos_sum"](y, t)))
    m = np.array([[1.0, 2.0], [-1.0, 5.0]], dtype=np.float32)
    assert float(new["rows"](m)) == original["rows"](m) == 3.0


def test_a_mask_summed_from_masks_is_a_mask():
    """hunt16 L2: `(x > 0) + (x < -1)` is a boolean array (`+` of booleans is `or`): its write is not jitted (jit
    refused `.at[m]` with NonConcreteBooleanIndexError) and runs eagerly as NumPy's does."""
    from tests.runtime_helpers import migrate_and_exec

    source = "import numpy as np\n\n\ndef clip_both(x):\n    x = x.copy()\n    m = (x > 0) + (x < -1)\n    x[m] = 9.0\n    return x\n"
    result, original, new = migrate_and_exec(source)
    assert not result.functions[0].jit
    x = np.array([1.0, -2.0, 3.0, -0.5])
    np.testing.assert_array_equal(np.asarray(new["clip_both"](x.copy())), original["clip_both"](x.copy()))


ROW_REDUCTIONS = """\
import numpy as np


def centroids(X, labels, k):
    centers = np.zeros((k, X.shape[1]))
    for j in range(k):
        centers[j] = X[labels == j].mean(axis=0)
    return centers


def class_totals(X, y, k):
    out = np.zeros((k, X.shape[1]))
    for c in range(k):
        out[c] = np.sum(X[y == c], 0)
    return out


def spread(x, labels):
    return np.std(x[labels > 0], axis=0, ddof=1)
"""


def test_reductions_over_the_rows_a_mask_picks_reduce_where_it_holds():
    """`X[labels == j].mean(axis=0)` (k-means' centroid update; also `np.sum(X[y == c], 0)`) -> the reduction of `X`
    over axis 0 `where` the mask, spread over the other axes: jitted (the loop a fori_loop), the same values,
    an empty cluster's mean NaN as in NumPy."""
    import warnings

    from tests.runtime_helpers import migrate_and_exec

    result, original, new = migrate_and_exec(ROW_REDUCTIONS)
    output = result.output.decode()
    assert "jnp.mean(X, axis=0, where=jnp.reshape(labels == j, (X.shape[0],) + (1,) * (X.ndim - 1)))" in output
    assert all(r.jit for r in result.functions), output
    rng = np.random.default_rng(3)
    X = rng.normal(size=(40, 3)).astype(np.float32)
    labels = rng.integers(0, 4, 40)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # NumPy's mean of the empty cluster 4
        for name, args in (("centroids", (X, labels, 5)), ("class_totals", (X, labels, 5)),
                           ("spread", (X, labels - 2)), ("spread", (X[:, 0], labels - 2))):
            np.testing.assert_allclose(np.asarray(new[name](*args)), original[name](*args), rtol=1e-5, atol=1e-5)


THROUGH_NAMES = """\
import numpy as np


def rebalance(weights, target, band=0.05):
    w = weights.copy()
    drift = np.abs(w - target)
    need = drift > band
    w[need] = target[need]
    return w / w.sum()


def inline_mask(weights, target, band=0.05):
    w = weights.copy()
    gap = w - target
    drift = np.abs(gap)
    w[drift > band] = target[drift > band]
    return w


def reshaped_after(w0, band):
    w = w0.copy()
    drift = np.abs(w)
    w = np.tile(w[:, None], 3)
    need = drift > band
    w[need] = 0.0
    return w


def drift_rebound(w0, other, band):
    w = w0.copy()
    drift = np.abs(w)
    drift = other.sum(axis=1)
    need = drift > band
    w[need] = 0.0
    return w
"""


def test_a_mask_made_through_intermediate_names_covers_the_written_array():
    """hunt42 FP1: `drift = np.abs(w - target); need = drift > band; w[need] = target[need]` was refused (NPJ201)
    although `need` has `w`'s and `target`'s axes through `drift`. Followed through the nearest bindings in the
    block, and only where nothing after them rebinds the arrays they read (`w = np.tile(...)` makes `need` pick
    rows of a 2-D `w`: refused) or the name itself."""
    result = migrate_source(THROUGH_NAMES.encode(), "m.py")
    output = result.output.decode()
    by_function = {r.qualname: r for r in result.functions}
    assert by_function["rebalance"].jit and by_function["inline_mask"].jit, output
    assert "w = jnp.where(need, jnp.asarray(target, w.dtype), w)" in output
    assert "w = jnp.where(drift > band, jnp.asarray(target, w.dtype), w)" in output
    for name in ("reshaped_after", "drift_rebound"):
        assert not by_function[name].jit, name
    assert output.count("jnp.where") == 2
    namespace: dict = {}
    exec(compile(output, "m.py", "exec"), namespace)
    original: dict = {}
    exec(compile(THROUGH_NAMES, "orig.py", "exec"), original)
    rng = np.random.default_rng(0)
    weights, target = rng.uniform(0, 1, 8).astype(np.float32), rng.uniform(0, 1, 8).astype(np.float32)
    for name in ("rebalance", "inline_mask"):
        np.testing.assert_allclose(np.asarray(namespace[name](weights, target, 0.2)),
                                   original[name](weights, target, 0.2), rtol=1e-6)
    w0 = rng.standard_normal(4).astype(np.float32)
    assert original["reshaped_after"](w0, 0.5).shape == (4, 3)  # NumPy picks rows there
    np.testing.assert_array_equal(np.asarray(namespace["reshaped_after"](w0, 0.5)), original["reshaped_after"](w0, 0.5))


def test_a_shape_set_in_place_between_the_mask_and_the_write_is_a_rebinding():
    """hunt43 S1: `col.shape = (-1, 1)` after the mask was made: `need` now has fewer axes than `col` and NumPy
    picks rows, which jnp.where would not (it gave a 4x4 result for NumPy's 4x1)."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        def zero_outlier_rows(x, band):
            col = x.copy()
            drift = np.abs(col - col.mean())
            need = drift > band
            col.shape = (-1, 1)
            col[need] = 0.0
            return col
        """
    )
    assert "jnp.where" not in result.output.decode() and not record_of(result, "zero_outlier_rows").jit
    x = np.array([0.1, 0.9, -0.7, 0.2], np.float32)
    assert original.zero_outlier_rows(x, 0.3).shape == (4, 1)
    np.testing.assert_array_equal(np.asarray(migrated.zero_outlier_rows(x, 0.3)), original.zero_outlier_rows(x, 0.3))


def test_copyto_where_keeps_the_destination_shape_and_takes_a_list_mask():
    """hunt43 S2/L1: NumPy's copyto drops extra leading axes of length 1 of `src` (a keepdims row), and takes a
    list as `where`; jnp.where broadcast them into a (1, 3) result and refused the list."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        def fill_from_row_max(a, M):
            x = a.copy()
            np.copyto(x, M.max(axis=0, keepdims=True), where=a > 0.5)
            return x

        def keep_first_and_last(a, b):
            x = a.copy()
            np.copyto(x, b, where=[True, False, True])
            return x
        """
    )
    assert record_of(result, "fill_from_row_max").jit and record_of(result, "keep_first_and_last").jit
    a, M = np.array([0.1, 0.9, 0.3], np.float32), np.arange(6.0, dtype=np.float32).reshape(2, 3)
    np.testing.assert_array_equal(np.asarray(migrated.fill_from_row_max(a, M)), original.fill_from_row_max(a, M))
    assert np.asarray(migrated.fill_from_row_max(a, M)).shape == (3,)
    b = np.ones(3, np.float32)
    np.testing.assert_array_equal(np.asarray(migrated.keep_first_and_last(a, b)), original.keep_first_and_last(a, b))


def test_a_finfo_number_written_through_a_mask_is_one_number():
    """real30 FP4 (pycpd's EM step, which kept four registration classes NumPy): `den[den == 0] =
    np.finfo(float).eps` was refused as "not a plain number"; the literal it stands for was not."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        def normalize(P, c):
            den = np.sum(P, axis=0)
            den[den == 0] = np.finfo(float).eps
            den += c
            return P / den
        """
    )
    assert record_of(result, "normalize").jit, result.diagnostics
    P = np.array([[0.0, 1.0], [0.0, 2.0]], np.float32)
    np.testing.assert_allclose(np.asarray(migrated.normalize(P, 0.5)), original.normalize(P, 0.5), rtol=1e-6)
    np.testing.assert_allclose(np.asarray(migrated.normalize(P, 0.0)), original.normalize(P, 0.0), rtol=1e-6)


def test_a_python_int_written_through_a_mask_is_one_number():
    """hunt57 FP1: `bins[x == edges[-1]] = 3` migrated, `bins[x == edges[-1]] = len(edges)` and
    `bins[x > 0] = edges.size - 2` were NPJ201 ("the index may be an integer array with repeated entries"): one
    Python int is one value everywhere, whatever the index repeats, as a literal is."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        def mark_last(x, edges):
            bins = np.searchsorted(edges, x, side="right") - 1
            bins[x == edges[-1]] = len(edges)
            return bins

        def mark_positive(x, edges):
            bins = np.searchsorted(edges, x, side="right") - 1
            bins[x > 0] = edges.size - 2
            return bins
        """
    )
    assert not any(d.code == "NPJ201" for d in result.diagnostics), result.diagnostics
    assert ".set(len(edges))" in result.output.decode()
    x, edges = np.array([0.5, 3.0, -1.0, 2.0]), np.array([0.0, 1.0, 2.0, 3.0])
    for name in ("mark_last", "mark_positive"):
        np.testing.assert_array_equal(np.asarray(getattr(migrated, name)(x, edges)), getattr(original, name)(x, edges))
