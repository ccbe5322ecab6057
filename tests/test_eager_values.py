"""Migrated code run eagerly (jitted or not) under real JAX against the NumPy original: patterns from published
packages (ahrs, pyDOE3) that once raised after migration with no diagnostic at the line responsible."""

from __future__ import annotations

import numpy as np
import pytest

from tests.test_real_code_regressions import migrated_pair, record


# --- a parameter the code says may be a list, rebound by the call that converts it ------------------------------
def test_a_list_parameter_rebound_by_its_copy_is_wrapped_in_every_assignment_form():
    """``q1 = np.copy(q1)``: the later ``q1.shape`` / ``q1 - q2`` are uses of the copy, not of the list the
    annotation admits (only ``x, y = np.copy(q1), np.copy(q2)`` was wrapped)."""
    result, original, migrated = migrated_pair(
        """
        from typing import Union
        import numpy as np

        def single(q1: Union[list, np.ndarray]):
            q1 = np.copy(q1)
            return q1.shape

        def fresh(q1: Union[list, np.ndarray], q2: Union[list, np.ndarray]):
            x, y = np.copy(q1), np.copy(q2)
            return x - y

        def pair(q1: Union[list, np.ndarray], q2: Union[list, np.ndarray]):
            q1, q2 = np.copy(q1), np.copy(q2)
            return q1 - q2
        """
    )
    # `np.copy` is `jnp.array`, which takes a list itself: nothing to wrap
    assert result.output.decode().count("jnp.array(q1)") == 3 and "jnp.asarray(q1)" not in result.output.decode()
    a, b = [1.0, 2.0, 4.0], [0.5, 0.5, 0.5]
    assert migrated.single(a) == original.single(a)
    for name in ("fresh", "pair"):
        np.testing.assert_allclose(getattr(migrated, name)(a, b), getattr(original, name)(a, b))
        np.testing.assert_allclose(getattr(migrated, name)(np.array(a), np.array(b)), getattr(original, name)(a, b))


def test_an_isinstance_check_for_list_says_the_parameter_may_be_one():
    """ahrs ``_quaternions_guard_clauses`` and ``cosd``: the function's own ``isinstance(x, (list, ...))`` check,
    or a docstring type ``float or array-like``, says callers pass lists."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        DEG2RAD = np.pi / 180

        def guard(q1, q2):
            if not isinstance(q1, (list, np.ndarray)):
                raise TypeError("q1 must be an array")
            if not isinstance(q2, (list, np.ndarray)):
                raise TypeError("q2 must be an array")
            q1, q2 = np.copy(q1), np.copy(q2)
            return q1.shape == q2.shape

        def cosd(x):
            \"\"\"Cosine in degrees.

            Parameters
            ----------
            x : float or array-like
                Angle in degrees.
            \"\"\"
            if isinstance(x, (list, tuple, np.ndarray)):
                x = np.copy(x)
            return np.cos(x * DEG2RAD)

        def sind(x):
            x = np.copy(x)
            return np.sin(x * DEG2RAD)
        """
    )
    output = result.output.decode()
    assert "jnp.array(q1), jnp.array(q2)" in output  # (`np.copy` is `jnp.array`, which takes lists)
    assert output.count("x = jnp.array(x)") == 2
    assert migrated.guard([1.0, 0.0], [0.0, 1.0]) == original.guard([1.0, 0.0], [0.0, 1.0])
    for x in ([0.0, 90.0, -120.0], (60.0,), np.array([30.0]), 45.0):
        np.testing.assert_allclose(migrated.cosd(x), original.cosd(x), atol=1e-6)  # float32 without x64


# --- a local list of Python lists joined by vstack/concatenate --------------------------------------------------
def test_a_local_list_of_python_lists_is_joined_element_by_element():
    """pyDOE3 ``gsd``: ``np.vstack(mappings)`` with ``mappings.append(list(itertools.product(*sets)))``; jnp.vstack
    refuses a list among the arrays, so each element goes through jnp.asarray (exact for arrays too)."""
    result, original, migrated = migrated_pair(
        """
        import itertools
        import numpy as np

        def design(partition_sets_per_row):
            mappings = list()
            for sets in partition_sets_per_row:
                mapping = list(itertools.product(*sets))
                mappings.append(mapping)
            return np.vstack(mappings)

        def pairs(a, b):
            rows = [[0.0, 0.0]]
            for i in range(len(a)):
                rows.append((a[i], b[i]))
            return np.concatenate(rows)

        def stacked(x):
            rows = []
            for k in range(3):
                rows.append(np.sum(x, axis=0) * k)
            return np.vstack(rows)
        """
    )
    output = result.output.decode()
    assert "jnp.vstack([jnp.asarray(part) for part in mappings])" in output
    assert "jnp.concatenate([jnp.asarray(part) for part in rows])" in output
    assert "jnp.vstack(rows)" in output  # every element is a jax.numpy result: nothing to wrap
    sets = [[[0, 1], [2, 3]], [[4], [5, 6]]]
    np.testing.assert_array_equal(migrated.design(sets), original.design(sets))
    a, b = np.array([1.0, 2.0]), np.array([3.0, 4.0])
    np.testing.assert_array_equal(migrated.pairs(a, b), original.pairs(a, b))
    x = np.arange(6.0).reshape(2, 3)
    np.testing.assert_array_equal(migrated.stacked(x), original.stacked(x))


# --- NumPy results Python uses as Python values, in functions that are not jitted -------------------------------
def test_numpy_results_used_as_python_values_stay_numpy_where_the_function_is_not_jitted():
    """pyDOE3 ``fullfact`` (``list(...) * np.prod(levels)``) and ``_generate_sparse_grid_points`` (``round(x, 8)`` of
    ``np.linspace`` elements put in a set): a JAX scalar repeats no list, ``round()`` of one is an unhashable array."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        def fullfact(levels):
            \"\"\"levels : array_like\"\"\"
            n = len(levels)
            nb_lines = np.prod(levels)
            H = np.zeros((nb_lines, n))
            level_repeat = 1
            range_repeat = np.prod(levels)
            for i in range(n):
                range_repeat //= levels[i]
                lvl = []
                for j in range(levels[i]):
                    lvl += [j] * level_repeat
                rng = lvl * range_repeat
                level_repeat *= levels[i]
                H[:, i] = rng
            return H

        def grid_points(n):
            coords = np.linspace(0, 1, n)
            seen = set()
            for x in coords:
                key = round(x, 8)
                if key not in seen:
                    seen.add(key)
            return len(seen)

        def histogram(x):
            counts = {}
            for v in np.floor(x * 2):
                counts[v] = counts.get(v, 0) + 1
            return sorted(counts.items())

        def kind(x):
            total = np.sum(x)
            return "float" if isinstance(total, float) else "other"
        """
    )
    output = result.output.decode()
    assert "range_repeat = np.prod(levels)" in output
    assert "H[:, i] = rng" in output  # a loop writing columns, not jitted: left as NumPy code (NPJ304)
    for name in ("fullfact", "grid_points", "histogram", "kind"):
        assert not record(result, name).jit
    np.testing.assert_array_equal(migrated.fullfact([2, 4, 3]), original.fullfact([2, 4, 3]))
    assert migrated.grid_points(5) == original.grid_points(5) == 5
    x = np.array([0.1, 0.7, 0.8, 1.6])
    assert migrated.histogram(x) == original.histogram(x)
    assert migrated.kind(x) == original.kind(x) == "float"


def test_numpy_calls_computing_an_if_test_stay_numpy_where_the_function_is_not_jitted():
    """haversine ``_ensure_lat_lon_vector``: ``if numpy.abs(lat).max() > 90: raise`` became ``jnp.abs``; un-jitted,
    every call moved the array to JAX and waited to read the comparison back (40x slower per call, the package's
    performance test failed).  The calls computing a test (and their arguments' calls) now stay NumPy; a check
    function stays exactly as it was and is still reported (NPJ301)."""
    source = """
        import numpy as np

        def ensure_vector(lat, lon):
            lat = np.asarray(lat)
            lon = np.asarray(lon)
            if np.abs(lat).max() > 90:
                raise ValueError("latitude out of range")
            if float(np.max(np.abs(lon))) > 180:
                raise ValueError("longitude out of range")
            return lat, lon

        def scale(x, y):
            while np.any(np.isnan(x)):
                x = np.nan_to_num(x)
            if np.sum(y) > 0 and np.all(y >= 0):
                raise ValueError("y must not be all positive")
            return x * np.sum(y)
        """
    result, original, migrated = migrated_pair(source)
    output = result.output.decode()
    assert "lat = np.asarray(lat)" in output and "if float(np.max(np.abs(lon))) > 180:" in output
    assert "while np.any(np.isnan(x)):" in output and "if np.sum(y) > 0 and np.all(y >= 0):" in output
    assert "return x * jnp.sum(y)" in output  # the rest still moves
    codes = {(d.line, d.code) for d in result.diagnostics}
    assert {(6, "NPJ301"), (8, "NPJ301")} <= codes and not any(code == "NPJ304" for _, code in codes)
    lat, lon = np.array([10.0, -20.0]), np.array([100.0, 170.0])
    for got, want in zip(migrated.ensure_vector(lat, lon), original.ensure_vector(lat, lon)):
        assert isinstance(got, np.ndarray)
        np.testing.assert_array_equal(got, want)
    with pytest.raises(ValueError):
        migrated.ensure_vector(np.array([91.0]), lon[:1])
    x, y = np.array([1.0, np.nan]), np.array([-1.0, 2.0])
    np.testing.assert_allclose(migrated.scale(x, y), original.scale(x, y), rtol=1e-6)


def test_a_numpy_result_written_in_place_in_an_element_loop_stays_numpy():
    """``counts[v] += 1`` in a loop of a function that cannot be jitted: the function stays NumPy code (eager
    ``.at[v].add(1)`` copies the array at every step); ``width``, a repetition count, is NumPy either way."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        def tally(labels, k):
            counts = np.zeros(k, dtype=int)
            for v in labels:
                counts[v] += 1
            width = np.max(labels) + 1
            seen = set()
            seen.add(int(counts[0]))
            return counts, ["-"] * width, seen

        def keys(labels, k):
            counts = np.zeros(k, dtype=int)
            for v in labels:
                counts[v] += 1
            return {counts[0]: "first"}
        """
    )
    output = result.output.decode()
    # both loop over elements writing `counts` and cannot be jitted: they stay NumPy code (NPJ304), so the
    # dict key in `keys` is a NumPy scalar again (a JAX one is unhashable)
    assert output.count("counts = np.zeros(k, dtype=int)") == 2 and output.count("counts[v] += 1") == 2
    assert "width = np.max(labels) + 1" in output
    labels = np.array([0, 1, 1, 0, 0])
    for got, want in zip(migrated.tally(labels, 2), original.tally(labels, 2)):
        np.testing.assert_array_equal(got, want)
    assert migrated.keys(labels, 2) == original.keys(labels, 2)


# --- `.flat`: a jax.Array has none (NotImplementedError) ----------------------------------------------------
def test_reads_through_flat_become_ravel_and_writes_through_it_stay_flagged():
    """transforms3d's ``r11, ..., r33 = M.flat``: every read (unpacking, iteration, list(), len()) gives the same
    elements through ``.ravel()``; ``y.flat[1] = v`` is an in-place write and keeps its diagnostic."""
    result, original, migrated = migrated_pair(
        """
        import math
        import numpy as np

        def angles(M):
            M = np.asarray(M)
            r11, r12, r13, r21, r22, r23, r31, r32, r33 = M.flat
            return math.atan2(-r12, r11) + math.sqrt(r23 * r23 + r33 * r33)

        def trace2(M):
            a, b, c, d = np.asarray(M).flat
            return a + d

        def summary(x):
            s = 0.0
            for v in (x * 2).flat:
                s += v
            return s, list(x.flat), len(x.flat), x.flat[3]

        def poke(n):
            y = np.zeros(n)
            y.flat[1] = 2.0
            return y
        """
    )
    assert ".flat" not in result.output.decode().replace("y.flat[1]", "")
    assert record(result, "trace2").jit and record(result, "poke").status == "unsupported"
    m = np.arange(9.0).reshape(3, 3) / 7
    assert migrated.angles(m) == pytest.approx(original.angles(m), rel=1e-6)  # float32 without x64
    assert float(migrated.trace2([[1.0, 2.0], [3.0, 4.0]])) == 5.0
    s, items, n, fourth = migrated.summary(m)
    s0, items0, n0, fourth0 = original.summary(m)
    assert (float(s), float(fourth), n) == pytest.approx((s0, fourth0, n0), rel=1e-6)
    assert [float(v) for v in items] == pytest.approx(items0, rel=1e-6)
    assert migrated.poke(3).tolist() == [0.0, 2.0, 0.0]


# --- classes deriving from np.ndarray (pyrr's Vector3/Matrix44) -------------------------------------------------
def test_an_ndarray_subclass_and_its_subclasses_stay_numpy():
    """``np.array(v).view(cls)`` in ``__new__``: a jax.Array cannot be viewed as a subclass (TypeError), and
    NumPy hands every method objects of the class; the functions beside it still migrate."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        class Vec3(np.ndarray):
            def __new__(cls, value=None):
                obj = np.zeros(3) if value is None else np.array(value, dtype=float)
                return obj.view(cls)

            def norm(self):
                return np.sqrt(np.sum(self * self))

        class Unit(Vec3):
            def scaled(self, s):
                return np.multiply(self, s)

        def plain(v):
            return np.linalg.norm(v)
        """
    )
    assert {f.qualname: f.status for f in result.functions if "." in f.qualname} == {
        "Vec3.__new__": "unsupported", "Vec3.norm": "unsupported", "Unit.scaled": "unsupported",
    }
    assert "derives from np.ndarray" in str([d.message for d in result.diagnostics])
    assert record(result, "plain").jit
    v = migrated.Unit([3.0, 4.0, 0.0])
    assert type(v) is migrated.Unit and float(v.norm()) == 5.0
    assert type(v.scaled(2.0)) is migrated.Unit and v.scaled(2.0).tolist() == original.Unit([3.0, 4.0, 0.0]).scaled(2.0).tolist()


# --- np.einsum's operands ------------------------------------------------------------------------------------
def test_einsum_operands_documented_array_like_are_wrapped():
    """pytransform3d's ``np.einsum("nij,jk->nik", B2Cs, A2B)`` with ``array-like`` parameters: jnp.einsum raises
    on a list operand (the generated signature table probes leading parameters only, not ``*operands``)."""
    result, original, migrated = migrated_pair(
        '''
        import numpy as np

        def concat(A2B, B2Cs):
            """Compose.

            Parameters
            ----------
            A2B : array-like, shape (2, 2)
            B2Cs : array-like, shape (n, 2, 2)
            """
            return np.einsum("nij,jk->nik", B2Cs, A2B)
        '''
    )
    assert 'jnp.einsum("nij,jk->nik", jnp.asarray(B2Cs), jnp.asarray(A2B))' in result.output.decode()
    a2b, b2cs = [[0.0, 1.0], [1.0, 0.0]], [[[1.0, 2.0], [3.0, 4.0]]]
    assert migrated.concat(a2b, b2cs).tolist() == original.concat(a2b, b2cs).tolist()


# --- a function that stays NumPy code handed to another as a callback ------------------------------------------
def test_a_function_handed_a_numpy_callback_stays_numpy():
    """pytransform3d's frechet_mean(samples, inv=check_transform): ``check`` writes into its argument and returns
    it (NPJ201, stays NumPy); the jitted ``frechet`` called it on tracers (TracerArrayConversionError)."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        def check(m):
            m[np.abs(m) < 1e-12] = 0.0
            return m

        def frechet(samples, inv, n_iter=3):
            mean = np.asarray(samples[0])
            for _ in range(n_iter):
                mean = np.mean(np.stack([mean, inv(mean)]), axis=0)
            return mean

        def estimate(samples):
            return frechet(np.asarray(samples), inv=check)

        def smooth(samples):
            return frechet(np.asarray(samples), inv=np.abs)
        """
    )
    assert {f.qualname: f.status for f in result.functions}["frechet"] == "unsupported"
    assert any("`estimate` hands it `check`" in d.message for d in result.diagnostics)
    samples = np.array([[1e-13, 2.0], [3.0, 4.0]])
    assert migrated.estimate(samples).tolist() == original.estimate(samples).tolist()
    assert migrated.smooth(-samples).tolist() == original.smooth(-samples).tolist()


def test_a_result_viewed_as_an_ndarray_subclass_keeps_its_function_numpy():
    """real20 (pyrr): `obj = create() if value is None else np.array(value); return obj.view(cls)` in an ndarray
    subclass's `__new__`: `create` was migrated, and a JAX array cannot be viewed as a subclass (TypeError on every
    construction). A result viewed with a class (`cls`, a CapWords name, `type=`) counts as written, through an
    `if`-expression too, so `create` stays NumPy; `.view(np.int32)`, a dtype, does not."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        def create(dtype=None):
            return np.array([0., 0., 0., 1.], dtype=dtype)

        class Quaternion(np.ndarray):
            def __new__(cls, value=None):
                obj = create() if value is None else np.array(value)
                return obj.view(cls)

        def as_bits(x):
            return scaled(x).view(np.int32)

        def scaled(x):
            return np.asarray(x, dtype=np.float32) * 2
        """
    )
    assert "return np.array([0., 0., 0., 1.], dtype=dtype)" in result.output.decode()
    assert any(d.code == "NPJ202" and "`Quaternion.__new__` stays NumPy" in d.message for d in result.diagnostics)
    assert record(result, "scaled").jit and record(result, "as_bits").jit
    q = migrated.Quaternion()
    assert type(q) is migrated.Quaternion and q.tolist() == original.Quaternion().tolist()
    np.testing.assert_array_equal(np.asarray(migrated.as_bits([1.0, 2.0])), original.as_bits([1.0, 2.0]))


def test_values_reaching_a_set_through_itertools_keep_their_numpy_producer():
    """real24 (pyDOE3's sparse grid): `itertools.product(grid_vals, repeat=k)` then `round(x, 8)` of each item put
    in a set: `jnp.linspace` made the items JAX scalars, whose rounding is an unhashable array."""
    result, original, migrated = migrated_pair(
        """
        import itertools
        import numpy as np

        def unique_grid(n_factors, target_count):
            seen = set()
            pts = []
            grid_vals = np.linspace(0, 1, target_count // n_factors + 3)
            for combo in itertools.product(grid_vals, repeat=n_factors):
                t = tuple(round(x, 8) for x in combo)
                if t not in seen:
                    seen.add(t)
                    pts.append(combo)
            return np.array(pts)
        """
    )
    assert "grid_vals = np.linspace(0, 1, target_count // n_factors + 3)" in result.output.decode()
    np.testing.assert_array_equal(np.asarray(migrated.unique_grid(2, 4)), original.unique_grid(2, 4))
