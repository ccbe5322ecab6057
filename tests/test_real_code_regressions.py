"""Patterns met migrating published packages (numdifftools, pykalman, findiff) that once came out
jitted but failing: each migrated module runs under real JAX against the NumPy original."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import types

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from np2jax.engine import migrate_source


def migrated_pair(source: str):
    source = textwrap.dedent(source).lstrip("\n")
    result = migrate_source(source.encode(), "m.py")
    assert result.error is None, result.error
    assert migrate_source(result.output, "m.py").output == result.output, "not idempotent"
    modules = []
    for code in (source, result.output.decode()):
        module = types.ModuleType("m")
        exec(compile(code, "m.py", "exec"), module.__dict__)
        modules.append(module)
    return result, *modules


def record(result, name):
    return next(f for f in result.functions if f.qualname == name)


def test_a_list_grown_with_run_time_values_is_traced_in_the_first_pass():
    """np.max(np.abs(diffs)) with diffs appended to: both calls migrate at once (the second pass once changed it)."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        def spread(a, b):
            diffs = []
            diffs.append(a)
            diffs.append(b)
            return np.max(np.abs(diffs))

        def size_of(x):
            dims = []
            dims.append(x.shape[0])
            return np.prod(dims)
        """
    )
    assert "jnp.max(jnp.abs(jnp.asarray(diffs)))" in result.output.decode()
    assert "np.prod(dims)" in result.output.decode()  # appended values are static: shape arithmetic stays NumPy
    a, b = np.array([1.0, -4.0]), np.array([2.0, 3.0])
    np.testing.assert_allclose(migrated.spread(jnp.asarray(a), jnp.asarray(b)), original.spread(a, b))


def test_functions_and_strings_are_never_returned_from_jitted_code():
    result, original, migrated = migrated_pair(
        """
        import numpy as np
        from numpy import sin, cos

        def derivative_sin(n):
            def dcos(x):
                return -sin(x)
            return (sin, cos, dcos)[n % 3]

        def summary(x, unit):
            return np.sum(x), "{} total".format(unit)

        def tagged(x, unit):
            return np.sum(x), "%s total" % unit
        """
    )
    for name in ("derivative_sin", "summary", "tagged"):
        assert not record(result, name).jit
        assert any(d.code == "NPJ302" and "returns a function or a string" in d.message for d in result.diagnostics
                   if record(result, name).line <= d.line <= record(result, name).end_line)
    assert float(migrated.derivative_sin(2)(0.5)) == pytest.approx(original.derivative_sin(2)(0.5))
    total, label = migrated.summary(jnp.arange(3.0), "m")
    assert float(total) == 3.0 and label == "m total"


def test_parameters_used_only_in_string_formatting_are_static():
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        def checked(arg, default, dim, name):
            if arg is None:
                result = np.asarray(default)
            else:
                result = arg
            if len(result.shape) > dim:
                raise ValueError("%s is not constant for all time." % (name,))
            return result * 2

        def checked_format(x, what):
            if x.ndim != 1:
                raise ValueError("{} must be a vector".format(what))
            return np.sum(x)
        """
    )
    assert record(result, "checked").jit and record(result, "checked").static_argnums == (2, 3)
    assert record(result, "checked_format").jit and record(result, "checked_format").static_argnums == (1,)
    eye = np.eye(2)
    np.testing.assert_allclose(migrated.checked(None, jnp.asarray(eye), 2, "transition matrix"), original.checked(None, eye, 2, "t"))
    with pytest.raises(ValueError, match="offsets is not constant"):
        migrated.checked(None, jnp.ones((2, 2, 2)), 2, "offsets")
    assert float(migrated.checked_format(jnp.arange(4.0), "x")) == 6.0


def test_a_list_valued_index_becomes_an_array_index():
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        def drop(x, j):
            a = np.array(x)
            idx = list(range(j)) + list(range(j + 1, len(a)))
            return a[idx].sum()

        def take(x, ids):
            a = np.array(x)
            return a[list(ids)].sum()

        def pair(x):
            return np.sum(x[(0, 1)])
        """
    )
    output = result.output.decode()
    assert "a[jnp.asarray(idx)]" in output and "a[jnp.asarray(list(ids))]" in output and "x[(0, 1)]" in output
    x = np.array([1.0, 2.0, 3.0, 4.0])
    assert float(migrated.drop(jnp.asarray(x), 1)) == original.drop(x, 1) == 8.0
    assert float(migrated.take(jnp.asarray(x), jnp.asarray([0, 2]))) == original.take(x, [0, 2]) == 4.0
    m = np.arange(6.0).reshape(2, 3)
    assert float(migrated.pair(jnp.asarray(m))) == original.pair(m)


def test_nested_zip_of_starred_arguments_is_analysed_without_endless_recursion():
    """Found on NumPy's own tests: the loop-origin analysis recursed forever on zip(buf, zip(*args))."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        def pairs(buf, rows):
            out = np.zeros(len(buf))
            for i, (s, arg) in enumerate(zip(buf, zip(*rows))):
                out[i] = s * int(arg[0])
            return out
        """
    )
    assert result.status == "unchanged"  # not jitted (int() of an item), an element loop: NumPy code (NPJ304)
    assert [d.code for d in result.diagnostics] == ["NPJ304", "NPJ301"]
    buf, rows = (1.0, 2.0), ((3, 4), (5, 6))
    np.testing.assert_allclose(migrated.pairs(buf, rows), original.pairs(buf, rows))


def test_a_parameter_callers_may_give_as_a_list_is_converted_where_jax_numpy_needs_an_array():
    """NumPy takes ``f([1.0, 2.0])`` for an array everywhere; jax.numpy raises TypeError on a list.  Where the
    code says callers may pass one (an ArrayLike/Sequence annotation, ``*args``, a docstring ``x : array_like``,
    ``np.atleast_1d(x)``), the argument is wrapped in jnp.asarray (what NumPy does inside the call), also
    under jax.jit."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np
        import numpy.typing as npt

        def total(x):
            \"\"\"Sum of all entries.

            x : array_like
            \"\"\"
            return np.sum(x)

        def first_axis(x: npt.ArrayLike, h=1e-3):
            x = np.atleast_1d(x)
            return np.cumsum(x) / h

        def biggest(*xs):
            return np.max(xs)

        def tail_max(rs: list, k):
            return np.max(np.atleast_1d(rs[k:]))

        def fit(xs: npt.ArrayLike, ys: npt.ArrayLike):
            return np.polyfit(xs, ys, 1)

        class Scaled:
            def __init__(self, factor):
                self.factor = factor

            def __call__(self, x):
                return self.factor * np.atleast_1d(x)
        """
    )
    output = result.output.decode()
    assert "x = jnp.asarray(x)\n    return jnp.sum(x)" in output  # jitted: converted first (list_arguments.py)
    assert "jnp.atleast_1d(jnp.asarray(x))" in output
    assert "xs = jnp.asarray(xs)\n    ys = jnp.asarray(ys)\n    return jnp.polyfit(xs + 0.0, ys + 0.0, 1)" in output
    assert record(result, "total").jit and record(result, "biggest").jit
    for name, args in [
        ("total", ([1, 2, 3],)), ("total", ([[1.5, 2.0], [3.0, 4.0]],)), ("total", ((1.0, 2.5),)),
        ("total", (np.arange(4.0),)), ("total", (2.5,)),
        ("first_axis", ([1.0, 2.0],)), ("first_axis", (3.0,)),
        ("biggest", (1.0, 4.0, 2.0)), ("tail_max", ([1.0, 5.0, 2.0], 1)),
        ("fit", ([0.0, 1.0, 2.0], [1.0, 3.0, 5.0])),
    ]:
        expected = getattr(original, name)(*args)
        actual = getattr(migrated, name)(*args)
        np.testing.assert_allclose(np.asarray(actual), expected, rtol=1e-6, err_msg=name)
        assert np.asarray(actual).shape == np.shape(expected), name
    np.testing.assert_allclose(migrated.Scaled(2.0)([1.0, 2.0]), original.Scaled(2.0)([1.0, 2.0]))


def test_parameters_used_as_arrays_or_static_are_not_converted():
    """No jnp.asarray where the code refuses a list anyway (``x.shape``, an array annotation), or where it would
    turn a static argument into a traced one (``np.arange(n)`` needs a concrete ``n`` under jax.jit).  A plain
    ``np.sum(x)`` or ``x - np.mean(x)`` takes a list in NumPy, so the jitted function converts ``x`` first."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np
        from typing import Any
        from numpy.typing import ArrayLike

        def plain(x):
            return np.sum(x)

        def centered(x: ArrayLike):
            return x - np.mean(x)

        def rows(x: ArrayLike):
            return np.sum(x) / x.shape[0]

        def typed(x: np.ndarray, y: float):
            return np.sum(x) * np.exp(y)

        def ramp(x, n: Any):
            return x[:n] * np.arange(n)
        """
    )
    output = result.output.decode()
    assert output.count("asarray") == 2
    assert "def plain(x):\n    x = jnp.asarray(x)\n" in output and "def centered(x: ArrayLike):\n    x = jnp.asarray(x)\n" in output
    for name in ("plain", "centered"):
        np.testing.assert_allclose(getattr(migrated, name)([1.0, 2.0, 4.0]), getattr(original, name)([1.0, 2.0, 4.0]), rtol=1e-6)
    assert record(result, "ramp").static_argnums == (1,)
    x = np.linspace(0.0, 1.0, 5)
    np.testing.assert_allclose(migrated.ramp(jnp.asarray(x), 3), original.ramp(x, 3))
    np.testing.assert_allclose(migrated.centered(jnp.asarray(x)), original.centered(x), atol=1e-7)


def test_symmetric_eigensolvers_read_one_triangle_as_numpy_does():
    """jnp.linalg.eigh/eigvalsh/cholesky average the matrix with its transpose by default; NumPy reads
    only the lower (or UPLO) triangle, so a not exactly symmetric input gave silently different results."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        def symmetric_sqrt(A):
            w, V = np.linalg.eigh(A)
            w = np.clip(w, 0, None)
            return (V * np.sqrt(w)) @ V.T

        def spectrum(A):
            return np.linalg.eigvalsh(A, UPLO="U")

        def factor(A):
            return np.linalg.cholesky(A)
        """
    )
    assert result.output.decode().count("symmetrize_input=False") == 3
    rng = np.random.default_rng(0)
    a = rng.normal(size=(4, 4)).astype(np.float32)
    spd = a @ a.T + 4 * np.eye(4, dtype=np.float32)
    spd[0, 3] += 0.5  # upper triangle only: NumPy's cholesky never reads it
    for name, x in (("symmetric_sqrt", a), ("spectrum", a), ("factor", spd)):
        np.testing.assert_allclose(np.asarray(getattr(migrated, name)(jnp.asarray(x))), getattr(original, name)(x),
                                   rtol=1e-4, atol=1e-4)


def test_lists_among_the_arrays_to_join_become_arrays():
    """jnp.concatenate/hstack/stack refuse a list among the arrays they join, NumPy takes it."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        def prefix_sum(x):
            c = np.cumsum(x)
            return np.concatenate([[0.0], c])

        def framed(x):
            edge = [1.0, 2.0]
            return np.hstack((edge, x, [3.0]))
        """
    )
    assert "jnp.concatenate([jnp.asarray([0.0]), c])" in result.output.decode()
    x = np.array([1.0, 2.0, 4.0], dtype=np.float32)
    for name in ("prefix_sum", "framed"):
        assert record(result, name).jit
        np.testing.assert_allclose(np.asarray(getattr(migrated, name)(jnp.asarray(x))), getattr(original, name)(x))


def test_a_write_through_a_mask_of_another_array_is_not_jitted():
    """`out[ref > t] = 1.0` with `ref` of unknown shape becomes out.at[mask].set(1.0): right outside jit, refused
    by jit (the mask's count is data).  With `out = np.zeros_like(img)` the mask `img > t` has out's shape
    whenever NumPy does not raise: an exact, jitted `jnp.where` (analysis/mask_writes.py)."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        def threshold(img, t):
            out = np.zeros_like(img)
            out[img > t] = 1.0
            return out

        def threshold_other(img, ref, t):
            out = np.zeros_like(img)
            out[ref > t] = 1.0
            return out

        def clamp(x):
            x = x.copy()
            x[x < 0] = 0.0
            return x
        """
    )
    output = result.output.decode()
    assert "out = out.at[ref > t].set(1.0)" in output
    assert "out = jnp.where(img > t, jnp.asarray(1.0, out.dtype), out)" in output
    assert "@jax.jit\ndef clamp" in output and "@jax.jit\ndef threshold(" in output
    assert "@jax.jit\ndef threshold_other" not in output
    assert any(d.code == "NPJ301" for d in result.diagnostics)
    img = np.array([[0.2, 0.7], [0.9, 0.1]], dtype=np.float32)
    np.testing.assert_array_equal(np.asarray(migrated.threshold(jnp.asarray(img), 0.5)), original.threshold(img, 0.5))
    np.testing.assert_array_equal(np.asarray(migrated.threshold_other(jnp.asarray(img), jnp.asarray(img.T), 0.5)),
                                  original.threshold_other(img, img.T, 0.5))
    np.testing.assert_array_equal(np.asarray(migrated.clamp(jnp.asarray(img - 0.5))), original.clamp(img - 0.5))


def test_arguments_that_land_in_star_args_are_not_taken_for_later_keywords():
    """jnp.meshgrid(*xi, copy, sparse, indexing): `y` in meshgrid(x, y) is an array, not `copy=` (once a static
    requirement that kept the function from jit); gradient's spacing is data, not `axis=`."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        def grid(x, y):
            X, Y = np.meshgrid(x, y, indexing="ij")
            return X + 2 * Y

        def slope(f, dx):
            return np.gradient(f, dx)
        """
    )
    assert record(result, "grid").jit and record(result, "grid").static_argnums == ()
    assert record(result, "slope").jit and record(result, "slope").static_argnums == ()
    x, y = np.linspace(0.0, 1.0, 3, dtype=np.float32), np.linspace(0.0, 2.0, 4, dtype=np.float32)
    np.testing.assert_allclose(np.asarray(migrated.grid(jnp.asarray(x), jnp.asarray(y))), original.grid(x, y))
    np.testing.assert_allclose(np.asarray(migrated.slope(jnp.asarray(y * y), 0.5)), original.slope(y * y, 0.5), rtol=1e-6)


def test_an_array_parameter_named_like_a_size_stays_traced():
    """jnp.linalg.matrix_rank(M): `M` is the matrix, not eye's column count; made static, every call failed
    (a NumPy array is not hashable)."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        def rank(A):
            return np.linalg.matrix_rank(A)
        """
    )
    assert record(result, "rank").jit and record(result, "rank").static_argnums == ()
    a = np.array([[1.0, 2.0], [2.0, 4.0], [0.0, 1.0]], dtype=np.float32)
    assert int(migrated.rank(jnp.asarray(a))) == original.rank(a) == 2


def test_numpy_code_that_writes_into_a_result_keeps_the_callee_numpy():
    """A function left as NumPy writes into what a same-module function returns: that function stays NumPy
    (NPJ202), so the write still works; a caller that only reads the result still migrates around it."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        def softmax(logits):
            shifted = np.exp(logits - np.max(logits))
            return shifted / np.sum(shifted)

        def gradient_step(W, x, label):
            probs = softmax(x @ W)
            probs[label] -= 1.0
            W -= 0.1 * np.outer(x, probs)
            return np.sum(probs * probs)

        def squash(z):
            return np.tanh(z)

        def reads_only(W, z):
            q = squash(z)
            W -= 1.0
            return q.sum()
        """
    )
    assert record(result, "softmax").status == "unsupported" and not record(result, "softmax").jit
    assert any(d.code == "NPJ202" and "writes in place into what this function returns" in d.message for d in result.diagnostics)
    assert record(result, "squash").jit  # not written into: migrates
    rng = np.random.default_rng(0)
    for _ in range(3):
        W, x = rng.normal(size=(4, 3)), rng.normal(size=4)
        W0, W1 = W.copy(), W.copy()
        np.testing.assert_allclose(migrated.gradient_step(W1, x, 1), original.gradient_step(W0, x, 1))
        np.testing.assert_allclose(W1, W0)


def test_numpy_functions_that_write_into_a_result_keep_the_callee_numpy():
    """np.fill_diagonal(d2, inf) and np.add.at(c, i, 1) in NumPy code on what a same-module function returned:
    migrated, that function handed back a JAX array and the NumPy call raised."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        def pairwise(x):
            return np.sum(x ** 2, axis=1)[:, None] - 2 * x @ x.T + np.sum(x ** 2, axis=1)[None, :]

        def neighbour_counts(x, eps, pins):
            d2 = pairwise(x)
            np.fill_diagonal(d2, np.inf)
            d2[pins] += 1.0
            return (d2 <= eps ** 2).sum(axis=1)

        def empty_counts(k):
            return np.zeros(k)

        def tally(labels, k):
            c = empty_counts(k)
            np.add.at(c, labels, 1)
            c[labels] *= 2.0
            return c
        """
    )
    # the writers stay NumPy (`d2[pins] += 1.0`, `c[labels] *= 2.0`: possibly repeated indices, NPJ201)
    assert record(result, "pairwise").status == "unsupported" and record(result, "empty_counts").status == "unsupported"
    x = np.random.default_rng(1).normal(size=(6, 2))
    pins = np.array([1, 1])
    np.testing.assert_array_equal(migrated.neighbour_counts(x, 1.0, pins), original.neighbour_counts(x, 1.0, pins))
    labels = np.array([0, 2, 2, 1, 2])
    np.testing.assert_array_equal(migrated.tally(labels, 3), original.tally(labels, 3))


def test_the_mean_of_a_boolean_array_keeps_numpys_float64_under_x64(tmp_path):
    """jax.numpy averages booleans in float32 even with jax_enable_x64 (NumPy: float64): `dtype=float` is added,
    to np.mean & co. and, in functions that are jitted, to the `.mean()`/`.std()`/`.var()` methods of comparisons,
    also through local names bound only to booleans (`correct = pred == y`, `m &= ...`) and of np.any/np.all."""
    source = textwrap.dedent(
        """
        import numpy as np

        def accuracy(pred, labels):
            return np.mean(pred == labels)

        def positive_share(x):
            return np.mean(np.isfinite(x) & (x > 0), axis=0)

        def hit_rate(x, lo):
            return ((x > lo) & (x < 1.0)).mean(axis=0)

        def noisy_hit_rate(x, lo):
            print(lo)  # not jitted: on NumPy arrays NumPy's method already averages in float64; left as it is
            return (x > lo).mean()

        def named_rates(x, lo):
            correct = x > lo
            both = correct & (x < 1.0)
            both &= ~np.isnan(x)
            return np.mean(correct), both.mean(axis=0), np.any(x > lo, axis=1).mean()
        """
    ).lstrip()
    result = migrate_source(source.encode(), "m.py")
    output = result.output.decode()
    assert "jnp.mean(correct, dtype=float), both.mean(axis=0, dtype=float), jnp.any(x > lo, axis=1).mean(dtype=float)" in output
    assert "jnp.mean(pred == labels, dtype=float)" in output
    assert "((x > lo) & (x < 1.0)).mean(axis=0, dtype=float)" in output and "(x > lo).mean()\n" in output, output
    (tmp_path / "original.py").write_text(source)
    (tmp_path / "migrated.py").write_bytes(result.output)
    script = textwrap.dedent(
        """
        import numpy as np, jax.numpy as jnp, original, migrated
        pred, labels = np.arange(7) % 3, np.arange(7) % 2
        x = np.linspace(-1.0, 2.0, 21).reshape(7, 3)
        for want, got in [(original.accuracy(pred, labels), migrated.accuracy(jnp.asarray(pred), jnp.asarray(labels))),
                          (original.positive_share(x), migrated.positive_share(jnp.asarray(x))),
                          (original.hit_rate(x, 0.1), migrated.hit_rate(jnp.asarray(x), 0.1)),
                          *zip(original.named_rates(x, 0.1), migrated.named_rates(jnp.asarray(x), 0.1))]:
            assert np.asarray(got).dtype == np.float64, np.asarray(got).dtype
            np.testing.assert_allclose(np.asarray(got), want, rtol=1e-15)  # float64 rounding, not float32's
        print("ok")
        """
    )
    env = {**os.environ, "JAX_ENABLE_X64": "1", "PYTHONPATH": str(tmp_path)}
    done = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr


def test_arrays_of_objects_or_strings_stay_numpy():
    """filterpy's `np.array([[None] * dim_z]).T` placeholder and object/str arrays: jax.numpy cannot hold them
    (`jnp.array([None])` raises), so the functions stay NumPy with an NPJ103 error and still run."""
    result, original, migrated = migrated_pair(
        """
        from decimal import Decimal

        import numpy as np

        def placeholder(dim_z):
            return np.array([[None] * dim_z]).T

        def prices():
            return np.array([Decimal("1.25"), Decimal("2.5")]) * 2

        def names(n):
            out = np.empty(n, dtype=object)
            out[0] = "first"
            return out

        def codes(x):
            return np.round(x).astype(str)
        """
    )
    errors = sorted((d.line, d.code) for d in result.diagnostics if d.severity.name == "ERROR")
    assert errors == [(6, "NPJ103"), (9, "NPJ103"), (12, "NPJ103"), (17, "NPJ103")], errors
    assert not any(record(result, name).jit for name in ("placeholder", "prices", "names", "codes"))
    with pytest.raises((TypeError, ValueError)):
        jnp.array([[None] * 3])
    assert migrated.placeholder(3).tolist() == original.placeholder(3).tolist() == [[None], [None], [None]]
    assert migrated.prices().tolist() == original.prices().tolist()
    assert migrated.names(2).tolist() == ["first", None]
    assert migrated.codes(np.array([1.2, 2.7])).tolist() == ["1.0", "3.0"]


def test_a_range_handed_to_a_jax_numpy_function_is_read_as_an_array():
    """scikit-fuzzy's interp10: `np.interp(t, range(L), x)`; jnp.interp takes no range object (TypeError)."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        def interp10(x):
            L = len(x)
            return np.interp(np.linspace(0, L - 1, 10 * L - 9), range(L), x)
        """
    )
    assert "jnp.asarray(range(L), dtype=float)" in result.output.decode() and record(result, "interp10").jit
    x = np.array([1.0, 3.0, 2.0, 5.0], dtype=np.float32)
    np.testing.assert_allclose(np.asarray(migrated.interp10(x)), original.interp10(x), rtol=1e-6)


def test_string_building_is_python_and_an_overload_stub_does_not_stop_the_file():
    """opt_einsum (real12): `subscripts = ",".join(...); subscripts += "->"` was NPJ201 "a view of another array",
    and with an `@overload` stub of a function that calls a NumPy helper the whole file failed with an internal
    error (KeyError in NPJ202's report). Strings built by concatenation are Python values (static)."""
    result, original, migrated = migrated_pair(
        """
        from typing import overload
        import numpy as np

        def build(subscript_list, output, x):
            subscripts = ",".join(subscript_list)
            if output is not None:
                subscripts += "->"
                subscripts += output
            return subscripts, np.asarray(x) * 2

        def _inner(s):
            s += "->"
            print(s)
            return np.asarray(len(s))

        @overload
        def contract(subscripts: str) -> np.ndarray: ...

        def contract(subscripts):
            return _inner(subscripts)
        """
    )
    assert not [d for d in result.diagnostics if d.code == "NPJ201"], [d.format() for d in result.diagnostics]
    assert not record(result, "build").jit  # it returns a str
    text, doubled = migrated.build(("ab", "b"), "a", np.arange(3))
    assert text == original.build(("ab", "b"), "a", np.arange(3))[0] == "ab,b->a"
    np.testing.assert_array_equal(np.asarray(doubled), [0, 2, 4])
    assert int(migrated.contract("ij")) == int(original.contract("ij")) == 4


def test_datetime64_arrays_stay_numpy():
    """pysolar (real12): `np.array(d, dtype='datetime64[D]')` became jnp.array under jax.jit, which raised for every
    date (15 of the package's 90 tests); datetime64/timedelta64 dtypes are like object and str ones (NPJ103)."""
    import datetime

    result, original, migrated = migrated_pair(
        """
        import numpy as np

        def day_of_year(d):
            dd = np.array(d, dtype='datetime64[D]')
            dy = np.array(d, dtype='datetime64[Y]')
            return (dd - dy).astype('int') + 1

        def as_days(d):
            return d.astype("<M8[D]")
        """
    )
    assert result.output == result.source
    assert [d.code for d in result.diagnostics if d.severity.value == "error"] == ["NPJ103"] * 3, [d.format() for d in result.diagnostics]
    assert migrated.day_of_year(datetime.datetime(2024, 3, 1, 12)) == original.day_of_year(datetime.datetime(2024, 3, 1, 12)) == 61


def test_numpy_asarray_of_a_jax_result_in_code_that_is_not_jitted_stays_numpy():
    """opt_einsum (real12) `backends/jax.py`: `return np.asarray(jax_expr(arrays))` hands a jitted function's
    result back to NumPy callers; it became `jnp.asarray` and every `isinstance(out, np.ndarray)` test failed (8)."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np
        import jax
        import jax.numpy as jnp

        def build_expression(fn):
            jfn = jax.jit(fn)

            def contract(*arrays):
                return np.asarray(jfn(*arrays))
            return contract

        def mapped(f, x):
            out = np.array(jax.vmap(f)(x))
            print("mapped", len(out))
            return out

        def total(x):
            return np.asarray(jnp.sum(x * 2.0))
        """
    )
    output = result.output.decode()
    assert "return np.asarray(jfn(*arrays))" in output and "out = np.array(jax.vmap(f)(x))" in output
    assert "return jnp.asarray(jnp.sum(x * 2.0))" in output and record(result, "total").jit  # jitted: a JAX array
    x = np.array([1.0, 2.0, 3.0])
    for module in (original, migrated):
        got = module.build_expression(jnp.sin)(x)
        assert isinstance(got, np.ndarray)
        np.testing.assert_allclose(got, np.sin(x), rtol=1e-6)
        out = module.mapped(jnp.cos, x)
        assert isinstance(out, np.ndarray) and out.flags.writeable  # np.array: a writable copy
    np.testing.assert_allclose(migrated.total(x), original.total(x))


def test_parameters_broadcast_together_may_be_lists_or_numbers():
    """rowan (real13 F4): `x, y, z = np.broadcast_arrays(x, y, z)` normalises array-likes (the docs call `from_mirror_plane([1., 2.], 3., 4.)`);
    jnp.broadcast_arrays refuses a list (TypeError), so its parameter arguments are wrapped like np.atleast_1d's."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        def from_mirror_plane(x, y, z):
            x, y, z = np.broadcast_arrays(x, y, z)
            return np.stack([x, y, z], axis=-1) * 2.0
        """
    )
    assert record(result, "from_mirror_plane").jit
    for args in (([1.0, 2.0], 3.0, 4.0), ((1, 2, 3), 0.5, [[1.0], [2.0]])):
        np.testing.assert_allclose(np.asarray(migrated.from_mirror_plane(*args)), original.from_mirror_plane(*args))


def test_a_sort_kind_given_to_a_jax_arrays_method_is_dropped_or_made_stable():
    """pyentrp (real13 F5): `x.argsort(kind="quicksort", axis=1)` on a JAX array raised TypeError ('kind' is not
    supported); the function form np.argsort(x, kind=...) was already rewritten.  Stable kinds become stable=True."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        def ranks(x):
            x = np.asarray(x)
            return x.argsort(kind="quicksort", axis=1), x.argsort(kind="stable", axis=1)
        """
    )
    output = result.output.decode()
    assert 'x.argsort(axis=1), x.argsort(stable=True, axis=1)' in output
    x = [[3.0, 1.0, 2.0], [0.0, 5.0, 4.0]]
    for got, want in zip(migrated.ranks(x), original.ranks(x)):
        np.testing.assert_array_equal(np.asarray(got), want)


def test_real16_tuples_returned_ndim_fallback_imports_nonzero_methods_and_none_defaults():
    """real16 (mplstereonet, pyorbital, acoustics): a helper's returned tuple handed to `np.cross` is wrapped (F1);
    `np.ndim(m)` makes nothing static (F3); `rfft` imported from pyfftw with NumPy's as the fallback is NPJ113
    (F4); `.nonzero()` of traced values keeps the function un-jitted, as `np.nonzero` does (F5); `np.asarray(p)` of
    a parameter defaulting to None, never tested, stays NumPy's object array (F8)."""
    source = textwrap.dedent("""
        import numpy as np
        try:
            from pyfftw.interfaces.numpy_fft import rfft
        except ImportError:
            from numpy.fft import rfft

        def _vec(azi):
            azi = np.radians(azi)
            return np.cos(azi), np.sin(azi)

        def rot_dir(first, second):
            return np.cross(_vec(first), _vec(second))

        def mnorm(m, axis=None):
            if axis is None:
                axis = np.ndim(m) - 1
            return np.sqrt((m**2).sum(axis))

        def spec(x):
            return np.abs(rfft(x, n=x.shape[-1])) / x.shape[-1]

        def zc(data):
            pos = data > 0
            return (pos[:-1] != pos[1:]).nonzero()[0]

        def as_arr(interval=None):
            return np.asarray(interval)

        def checked(interval=None):
            if interval is None:
                interval = [1.0]
            return np.asarray(interval) * 2
        """)
    result = migrate_source(source.encode(), "m.py")
    output = result.output.decode()
    jitted = {r.qualname: r.static_argnums for r in result.functions if r.jit}
    assert jitted.get("mnorm") == (1,) and "rot_dir" in jitted and "checked" in jitted
    assert not {"spec", "zc", "as_arr"} & jitted.keys()
    assert "jnp.cross(jnp.asarray(_vec(first)), jnp.asarray(_vec(second)))" in output
    assert "return np.asarray(interval)" in output
    assert any(d.code == "NPJ113" and "pyfftw" in d.message for d in result.diagnostics)
    original, migrated = {}, {}
    exec(compile(source, "o.py", "exec"), original)
    exec(compile(result.output, "n.py", "exec"), migrated)
    assert float(migrated["rot_dir"](0.0, 90.0)) == pytest.approx(original["rot_dir"](0.0, 90.0))
    m = np.arange(12.0).reshape(3, 4)
    np.testing.assert_allclose(np.asarray(migrated["mnorm"](m, 0)), original["mnorm"](m, 0), rtol=1e-6)
    data = np.array([1.0, -1.0, 2.0, 3.0, -4.0])
    np.testing.assert_array_equal(np.asarray(migrated["zc"](data)), original["zc"](data))
    assert migrated["as_arr"]().dtype == object


def test_real34_dtype_tests_of_a_converted_array_keep_numpys_dtype_or_are_reported():
    """real34 (ahrs `_assert_numerical_iterable`): `np.array(X).dtype == np.dtype(float)` became `jnp.array(X)...`,
    float32 without x64, so the test failed and the function raised on float64 input. In code that is not jitted an
    array made only for its dtype, shape or size stays NumPy's; in a jitted function the test is reported (NPJ107)."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        def assert_numerical(X, name):
            if not (np.array(X).dtype == np.dtype(float) or np.array(X).dtype == np.dtype(int)):
                raise TypeError(f"{name} must have numerical values. Got {np.array(X).dtype.name}")
            print(name)
            return np.sum(np.asarray(X, dtype=float))

        def kind_of(X):
            a = np.asarray(X)
            print(a.shape)
            return a.dtype.kind

        def is_numeric(item):
            item_copy = np.array(item)
            return item_copy.dtype == np.dtype(int) or item_copy.dtype == np.dtype(float)
        """
    )
    output = result.output.decode()
    assert "np.array(X).dtype == np.dtype(float)" in output and "a = np.asarray(X)" in output, output
    assert not record(result, "assert_numerical").jit and not record(result, "kind_of").jit
    jitted = record(result, "is_numeric")
    assert jitted.jit and jitted.status == "needs-review", jitted
    assert sum(d.code == "NPJ107" for d in result.diagnostics if jitted.line <= d.line <= jitted.end_line) == 2
    for X in (np.arange(3.0), [1.0, 2.0], np.arange(3)):
        assert float(migrated.assert_numerical(X, "X")) == float(original.assert_numerical(X, "X"))
        assert migrated.kind_of(X) == original.kind_of(X)
    assert not any(d.code == "NPJ107" for d in result.diagnostics if d.line < jitted.line), result.diagnostics


def test_a_dtype_test_of_a_value_jax_makes_is_reported_in_code_that_is_not_jitted():
    """hunt51 S3: `a = np.asarray(np.exp(X))` read only as `a.dtype` stays NumPy's array, but of a JAX value:
    `np.exp` became `jnp.exp`, float32 without x64, so `a.dtype == np.dtype(float)` turned False with no diagnostic in
    a function that is not jitted (its print). It is reported (NPJ107), as in a jitted function; a test of a
    parameter's dtype, or of NumPy's array of one, is not."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        def describe(X):
            Y = np.exp(X)
            a = np.asarray(Y)
            print(a.shape)
            if a.dtype == np.dtype(float):
                return Y * 2
            return Y

        def scaled(X):
            Z = np.asarray(X, dtype=float) * 2.0
            print(Z.shape)
            return Z.dtype == np.float64

        def of_parameter(X):
            a = np.asarray(X)
            print(a.shape)
            if X.dtype == np.float64 and a.dtype == np.float64:
                return np.exp(X)
            return X
        """
    )
    for name, line in (("describe", 7), ("scaled", 14)):
        info = record(result, name)
        tests = [d for d in result.diagnostics if d.code == "NPJ107" and "tests a dtype" in d.message]
        assert not info.jit and [d.line for d in tests if info.line <= d.line <= info.end_line] == [line], tests
    info = record(result, "of_parameter")
    assert "jnp.exp(X)" in result.output.decode() and not [d for d in tests if info.line <= d.line <= info.end_line]
    X = np.arange(3.0)
    np.testing.assert_allclose(np.asarray(migrated.of_parameter(X)), original.of_parameter(X), rtol=1e-6)
    with jax.enable_x64(True):
        np.testing.assert_allclose(np.asarray(migrated.describe(X)), original.describe(X))
        assert migrated.scaled(X) == original.scaled(X)
