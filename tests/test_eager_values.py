"""Migrated code run eagerly (jitted or not) under real JAX against the NumPy original: patterns from published
packages (ahrs, pyDOE3) that once raised after migration with no diagnostic at the line responsible."""

from __future__ import annotations

import numpy as np

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
    assert result.output.decode().count("jnp.asarray(q1)") == 3
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
    assert "jnp.copy(jnp.asarray(q1)), jnp.copy(jnp.asarray(q2))" in output
    assert "x = jnp.copy(jnp.asarray(x))" in output
    assert "x = jnp.copy(x)" in output  # nothing says `sind` takes lists: no wrap
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
