"""Assignment forms that write into an array without a plain ``x[i] = v``: chained assignments
(``F[0, 2] = F[1, 3] = dt``), an array's own attributes (``y.shape = s``, ``z.real = x``), and writes into
comparison results; also ``with np.errstate(...)`` under jit.  Each migrated module runs under real JAX
against NumPy; what cannot be rewritten exactly is reported (it once came out jitted and raised)."""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np
import pytest

from tests.test_real_code_regressions import migrated_pair, record


def errors(result, code="NPJ201"):
    return sorted(d.line for d in result.diagnostics if d.code == code and d.severity.value == "error")


def test_chained_subscript_assignments_become_one_update_per_target_and_run_under_jit():
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        def cv_matrix(dt):
            F = np.eye(4)
            F[0, 2] = F[1, 3] = dt
            return F

        def ends(n, v):
            a = np.zeros(n)
            a[0] = a[-1] = v * 2
            return a

        def from_itself(n):
            a = np.arange(n) * 1.0
            a[0] = a[1] = a[2] + a[0]
            return a

        def named_first(n, v):
            a = np.zeros(n)
            first = a[1] = a[2] = np.sqrt(v)
            return a, first

        def rebinds_value(n, v):
            a = np.zeros(n)
            v = a[0] = v + 1
            return a, v

        def masks(x):
            y = x.copy()
            y[y < 0] = y[y > 5] = 0
            return y

        def two_arrays(n, v):
            a = np.zeros(n)
            b = np.ones(n)
            a[1] = b[2] = a[0] = v
            return a, b

        def band(n, d):
            A = np.zeros((n, n))
            for i in range(1, n):
                A[i, i - 1] = A[i - 1, i] = d * i
            return A
        """
    )
    assert "jax.lax.fori_loop(1, n, _loop_body, A)" in result.output.decode()
    output = result.output.decode()
    assert "F = F.at[0, 2].set(dt)\n    F = F.at[1, 3].set(dt)" in output
    assert "value = v * 2\n    a = a.at[0].set(value)\n    a = a.at[-1].set(value)" in output
    assert "first = jnp.sqrt(v)\n    a = a.at[1].set(first)\n    a = a.at[2].set(first)" in output
    assert "v = v + 1\n    a = a.at[0].set(v)" in output
    assert [d.code for d in result.diagnostics] == ["NPJ305"], result.diagnostics
    for name in ("cv_matrix", "ends", "from_itself", "named_first", "rebinds_value", "masks", "two_arrays", "band"):
        assert record(result, name).jit, name
    calls = [("cv_matrix", (0.1,)), ("ends", (5, 1.5)), ("from_itself", (5,)), ("named_first", (4, 2.0)),
             ("rebinds_value", (3, 1.0)), ("masks", (np.array([-1.0, 2.0, 7.0, 3.0]),)), ("two_arrays", (4, 3.0)), ("band", (5, 0.5))]
    for name, args in calls:
        want, got = getattr(original, name)(*args), getattr(migrated, name)(*(jnp.asarray(a) if isinstance(a, np.ndarray) else a for a in args))
        for w, g in zip(want if isinstance(want, tuple) else (want,), got if isinstance(got, tuple) else (got,)):
            np.testing.assert_allclose(np.asarray(g), w, rtol=1e-6, err_msg=name)


def test_chained_assignments_that_cannot_be_split_exactly_are_reported():
    result, _, migrated = migrated_pair(
        """
        import numpy as np

        def through_a_view(n):
            a = np.zeros(n)
            b = a[1:]
            a[0] = b[0] = 1.0
            return a

        def kept_in_a_list(n):
            hist = [None, None]
            h = hist[0] = np.zeros(n)
            h[1] = 2.0
            return hist

        def one_line(n):
            a = np.zeros(n); a[0] = a[1] = 1.0
            return a

        def in_a_suite(n, c):
            a = np.zeros(n)
            if c: a[0] = a[1] = 1.0
            return a

        def tuple_in_a_suite(n, c):
            a = np.zeros(n)
            if c: a[0], a[1] = 1.0, 2.0
            return a

        def caller_array(x):
            x[0] = x[1] = 0.0
            return x.sum()
        """
    )
    assert errors(result) == [6, 12, 16, 21, 26, 30]
    for name in ("through_a_view", "kept_in_a_list", "one_line", "in_a_suite", "tuple_in_a_suite", "caller_array"):
        assert record(result, name).status == "unsupported" and not record(result, name).jit, name
    hist = migrated.kept_in_a_list(3)  # left NumPy: the list's array sees the write
    assert hist[0][1] == 2.0


def test_chained_write_into_a_parameter_is_returned_like_a_single_write():
    """NPJ203: the mutated argument is returned; both targets count as writes into it."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        def zero_ends(x):
            x[0] = x[-1] = 0.0
        """
    )
    assert "x = x.at[0].set(0.0)\n    x = x.at[-1].set(0.0)\n    return x" in result.output.decode()
    x = np.arange(1.0, 5.0)
    np.testing.assert_array_equal(np.asarray(migrated.zero_ends(jnp.asarray(x))), [0.0, 2.0, 3.0, 0.0])


def test_a_new_shape_for_an_unshared_local_array_becomes_reshape():
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        def pair_sums(x):
            y = x.copy()
            y.shape = (2, -1)
            return y.sum(axis=1)

        def rows(x, k):
            y = x * 2.0
            y.shape = k, -1
            return y
        """
    )
    output = result.output.decode()
    assert "y = y.reshape((2, -1))" in output and "y = y.reshape(k, -1)" in output
    assert record(result, "pair_sums").jit and record(result, "rows").jit
    x = np.arange(6.0)
    np.testing.assert_array_equal(np.asarray(migrated.pair_sums(jnp.asarray(x))), original.pair_sums(x))
    np.testing.assert_array_equal(np.asarray(migrated.rows(jnp.asarray(x), 3)), original.rows(x, 3))


def test_setting_an_array_attribute_without_an_exact_functional_form_is_reported():
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        def to_complex(x, y):
            z = np.zeros(len(x), dtype=complex)
            z.real = x
            z.imag = y
            return z

        def shared_reshape(x):
            y = x * 2.0
            v = y[:2]
            y.shape = (2, -1)
            return y.sum(axis=1), v

        def flat_fill(n):
            a = np.zeros(n)
            a.flat = 3.0
            return a

        def bump_imag(x):
            z = x.astype(complex)
            z.imag += 1.0
            return z

        def reinterpret(n):
            a = np.arange(n, dtype=np.float64)
            a.dtype = np.int64
            return a

        class Box:
            def __init__(self, shape):
                self.shape = shape

        def boxed(n):
            b = Box((n,))
            b.shape = (n, 1)
            return np.zeros(b.shape)
        """
    )
    assert errors(result) == [5, 6, 12, 17, 22, 27]
    for name in ("to_complex", "shared_reshape", "flat_fill", "bump_imag", "reinterpret"):
        assert record(result, name).status == "unsupported", name
    assert "jnp.zeros(b.shape)" in result.output.decode()  # a class's own `shape` is no array attribute
    np.testing.assert_array_equal(migrated.to_complex(np.ones(2), np.ones(2)), original.to_complex(np.ones(2), np.ones(2)))


def test_a_comparison_result_is_a_fresh_array():
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        def keep_big(sizes, k):
            keep = sizes >= k
            keep[0] = False
            return keep

        def not_in(a, items):
            found = a in items
            found[0] = True
            return found
        """
    )
    assert record(result, "keep_big").jit and "keep = keep.at[0].set(False)" in result.output.decode()
    assert errors(result) == [10]  # `in` gives a Python bool (or whatever __contains__ returns): not an array
    sizes = np.array([5, 1, 7, 3])
    np.testing.assert_array_equal(np.asarray(migrated.keep_big(jnp.asarray(sizes), 3)), original.keep_big(sizes, 3))


def test_augmented_copy_of_a_parameter_says_how_to_mark_it_a_number():
    result, _, _ = migrated_pair(
        """
        import numpy as np

        def advance(f, y0, t0, h, n):
            t = t0
            y = np.array(y0, dtype=float)
            for i in range(n):
                y = y + h * f(t, y)
                t += h
            return y
        """
    )
    [diagnostic] = [d for d in result.diagnostics if d.code == "NPJ201"]
    assert "`t` is the parameter `t0`, which may be an array" in diagnostic.message
    assert "annotate `t0: float`" in diagnostic.message


@pytest.mark.parametrize("settings, jitted", [
    ('divide="ignore", invalid="ignore"', True),
    ('all="warn"', True),
    ('over="print", under="log"', True),
    ('divide="raise"', False),
    ('all="call", call=print', False),
    ("all=mode", False),
])
def test_errstate_that_only_silences_warnings_is_jitted(settings, jitted):
    result, original, migrated = migrated_pair(
        f"""
        import numpy as np

        def safe_log_ratio(a, b, mode="ignore"):
            with np.errstate({settings}):
                r = np.where(b != 0, np.log(np.abs(a) / b), 0.0)
            return r
        """
    )
    assert record(result, "safe_log_ratio").jit == jitted
    if jitted:
        assert not result.diagnostics, result.diagnostics
        a, b = np.array([1.0, 2.0, 0.0]), np.array([2.0, 0.0, 1.0])
        with np.errstate(all="ignore"):
            want = original.safe_log_ratio(a, b)
        np.testing.assert_allclose(np.asarray(migrated.safe_log_ratio(jnp.asarray(a), jnp.asarray(b))), want)
    else:
        assert [d.code for d in result.diagnostics if d.severity.value == "error"] == ["NPJ118"]
