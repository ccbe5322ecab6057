"""Patterns met migrating published packages (numdifftools, pykalman, findiff) that once came out
jitted but failing: each migrated module runs under real JAX against the NumPy original."""

from __future__ import annotations

import textwrap
import types

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
    assert result.status == "changed"
    buf, rows = (1.0, 2.0), ((3, 4), (5, 6))  # both static (int() of rows' items): hashable tuples
    np.testing.assert_allclose(migrated.pairs(buf, rows), original.pairs(buf, rows))
