"""``np.bincount(x, minlength=K)`` with a static K becomes ``jnp.bincount(x, minlength=K, length=K)`` (NPJ102
warning): exact when every value is in ``range(K)``; a K computed from the data stays an NPJ102 error."""

from __future__ import annotations

import numpy as np

from np2jax.engine import migrate_source

SOURCE = """\
import numpy as np


def label_counts(labels, k):
    return np.bincount(labels, minlength=k)


def centroids(points, labels, k):
    counts = np.bincount(labels, minlength=k)
    sums = np.zeros((k, points.shape[1]))
    for d in range(points.shape[1]):
        sums[:, d] = np.bincount(labels, weights=points[:, d], minlength=k)
    return sums / np.maximum(counts, 1)[:, None]


def byte_histogram(img):
    return np.bincount(img.ravel(), minlength=256)


def data_length(labels):
    return np.bincount(labels, minlength=labels.max() + 1)
"""


def test_bincount_with_a_static_minlength_is_jitted_and_matches_numpy():
    result = migrate_source(SOURCE.encode(), "m.py")
    by_line = {(d.line, d.code, d.severity.value) for d in result.diagnostics}
    assert {(5, "NPJ102", "warning"), (9, "NPJ102", "warning"), (12, "NPJ102", "warning"), (17, "NPJ102", "warning")} <= by_line
    assert (21, "NPJ102", "error") in by_line
    jitted = {r.qualname: r.static_argnums for r in result.functions if r.jit}
    assert jitted == {"label_counts": (1,), "centroids": (2,), "byte_histogram": ()}
    original, migrated = {}, {}
    exec(compile(SOURCE, "original.py", "exec"), original)
    exec(compile(result.output, "migrated.py", "exec"), migrated)
    labels = np.array([0, 2, 2, 1, 2, 0])
    points = np.arange(12.0, dtype=np.float32).reshape(6, 2)
    np.testing.assert_array_equal(np.asarray(migrated["label_counts"](labels, 4)), original["label_counts"](labels, 4))
    np.testing.assert_allclose(np.asarray(migrated["centroids"](points, labels, 3)), original["centroids"](points, labels, 3), rtol=1e-6)
    img = np.array([[0, 255], [3, 3]], dtype=np.uint8)
    np.testing.assert_array_equal(np.asarray(migrated["byte_histogram"](img)), original["byte_histogram"](img))
