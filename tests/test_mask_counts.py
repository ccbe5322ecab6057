"""``len(X[m])`` and ``X[m].shape[0]`` with ``m`` certainly boolean: the number of ``True`` in ``m``, which
``jnp.count_nonzero(m)`` gives under jax.jit without the data-dependent selection (analysis/function_tracing
counted_mask). The count is traced, so an ``if`` on it is a traced test. Each case runs the original and the
migrated function (jitted) on the same inputs."""

from __future__ import annotations

import numpy as np
import pytest

from tests.test_real_code_regressions import migrated_pair, record


def test_counts_of_a_boolean_selection_become_count_nonzero_and_are_traced():
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        def kmeans_step(X, C):
            labels = np.argmin(((X[:, None] - C[None]) ** 2).sum(-1), axis=1)
            newC = C.copy()
            for j in range(C.shape[0]):
                if len(X[labels == j]) > 0:
                    newC[j] = X[labels == j].mean(axis=0)
            return newC, labels

        def share_positive(x):
            return x[x > 0].shape[0] / x.shape[0]

        def share_flagged(x, flags):
            return len(x[~flags]) / len(x)
        """)
    output = result.output.decode()
    assert record(result, "kmeans_step").jit and "jnp.count_nonzero(labels == j) > 0" in output, output
    assert record(result, "share_positive").jit and "jnp.count_nonzero(x > 0) / x.shape[0]" in output, output
    # `~flags` of a parameter may be an integer complement (positions): its selection's length is not a count
    assert "len(x[~flags])" in output and not record(result, "share_flagged").jit
    rng = np.random.default_rng(5)
    X, C = rng.normal(size=(30, 2)), rng.normal(size=(4, 2)) * 3
    C[3] = 100.0  # a centre no point is nearest to: its `if` is False
    for got, want in zip(migrated.kmeans_step(X, C), original.kmeans_step(X, C)):
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-5)
    x = rng.normal(size=11)
    np.testing.assert_allclose(float(migrated.share_positive(x)), original.share_positive(x), rtol=1e-6)


def test_a_named_selection_only_counted_and_reduced_over_rows_is_read_in_place():
    """`members = X[labels == j]`, then `len(members)`, `members.shape[0]` and `members.mean(axis=0)`: each use
    reads the selection in its shape-fixed form and the binding goes (analysis/named_selections.py). A selection
    used otherwise (`pts[0]`), one whose mask's names change before a use, or one on a line with a comment stays."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        def kmeans_named(X, C):
            labels = np.argmin(((X[:, None] - C[None]) ** 2).sum(-1), axis=1)
            newC = C.copy()
            for j in range(C.shape[0]):
                members = X[labels == j]
                if len(members) > 0:
                    newC[j] = members.mean(axis=0)
            return newC, labels

        def class_stats(X, labels, k):
            means = np.zeros((k, X.shape[1]))
            counts = np.zeros(k)
            for c in range(k):
                pts = X[labels == c]
                counts[c] = pts.shape[0]
                if len(pts):
                    means[c] = np.mean(pts, axis=0)
            return means, counts

        def relabelled(X, labels):
            pts = X[labels == 0]
            labels = labels + 1
            return pts.sum(axis=0)

        def first_point(X, labels):
            pts = X[labels == 0]
            return pts.sum(axis=0), pts[0]

        def commented(X, labels):
            pts = X[labels == 0]  # the class-0 rows
            return pts.sum(axis=0)
        """)
    output = result.output.decode()
    assert record(result, "kmeans_named").jit and "members" not in output, output
    assert record(result, "class_stats").jit and "counts = counts.at[c].set(jnp.count_nonzero(labels == c))" in output
    assert "jax.lax.cond(jnp.count_nonzero(labels == c) != 0," in output  # `if len(pts):` is a count's truth
    for name in ("relabelled", "first_point", "commented"):
        assert not record(result, name).jit, name
    assert "pts = X[labels == 0]  # the class-0 rows" in output
    rng = np.random.default_rng(6)
    X, C = rng.normal(size=(25, 3)), rng.normal(size=(4, 3)) * 2
    C[2] = 50.0
    for got, want in zip(migrated.kmeans_named(X, C), original.kmeans_named(X, C)):
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-5)
    labels = rng.integers(0, 3, size=25)
    for got, want in zip(migrated.class_stats(X, labels, 4), original.class_stats(X, labels, 4)):
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-5)
    np.testing.assert_allclose(np.asarray(migrated.relabelled(X, labels)), original.relabelled(X, labels), rtol=1e-5)


def test_hunt21_selections_read_late_or_under_shadowing_names_and_masks_of_the_array_shape_are_not_silent():
    """hunt21 S1: `X[Y > 0].sum(axis=0)` with `Y` of `X`'s shape was rewritten for a mask over rows, and
    `expand_dims` let the 2-D mask broadcast: a sum over everything, silently. The mask is now reshaped to one
    value per row, which raises for it. S2/S3: a named selection read in a lambda or nested function (which may run
    after `X` is rebound, or name `X`/`j` as its own parameters) stays as written. L10/L11: `m = mask.copy()` of a
    parameter (perhaps positions) is no mask; `m = np.zeros(n, dtype=bool); m[idx] = True` reaches a fixed point."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        def rows_of_2d_mask(X, Y):
            return X[Y > 0].sum(axis=0)

        def late_lambda(X, t):
            sel = X[X[:, 0] > t]
            g = lambda: sel.sum(axis=0)
            X = X * 2.0
            return g()

        def shadowed(X, labels, k):
            members = X[labels == 0]
            weigh = lambda labels: len(members) * labels
            return weigh(k)

        def or_copy(X, mask):
            m = mask.copy()
            m |= X[:, 0] > 100
            return X[m].sum(axis=0)

        def filled(X, idx):
            m = np.zeros(X.shape[0], dtype=bool)
            m[idx] = True
            return X[m].sum(axis=0) + len(X[m])
        """)
    assert not any(d.code == "NPJ202" for d in result.diagnostics), [d.message for d in result.diagnostics]
    X = np.array([[1.0, 5.0], [3.0, -1.0], [7.0, 2.0], [2.0, 2.0]])
    with pytest.raises(TypeError, match="reshape"):
        migrated.rows_of_2d_mask(X, X - 2.0)  # loud, where it was 34.0 against NumPy's [12., 3.]
    np.testing.assert_allclose(np.asarray(migrated.late_lambda(X, 2.0)), original.late_lambda(X, 2.0))
    labels = np.array([0, 1, 0, 2])
    np.testing.assert_allclose(np.asarray(migrated.shadowed(X, labels, 3)), original.shadowed(X, labels, 3))
    np.testing.assert_allclose(np.asarray(migrated.or_copy(X, np.array([1, 0, 1, 1]))), original.or_copy(X, np.array([1, 0, 1, 1])))
    np.testing.assert_allclose(np.asarray(migrated.filled(X, np.array([0, 2, 2]))), original.filled(X, np.array([0, 2, 2])))
