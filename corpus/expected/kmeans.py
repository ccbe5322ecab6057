"""One Lloyd iteration of k-means, vectorised with broadcasting.

``points`` is ``(n, d)``, ``centroids`` is ``(k, d)``.
"""

import numpy as np
import functools
import jax
import jax.numpy as jnp


@jax.jit
def pairwise_sq_distances(points, centroids):
    """Squared Euclidean distance from every point to every centroid, ``(n, k)``."""
    diff = points[:, None, :] - centroids[None, :, :]
    return jnp.sum(diff * diff, axis=-1)


@jax.jit
def assign(points, centroids):
    """Index of the nearest centroid for each point."""
    return jnp.argmin(pairwise_sq_distances(points, centroids), axis=1)


@functools.partial(jax.jit, static_argnums=(2,))
def update_centroids(points, labels, k):
    """Mean of the points assigned to each cluster.

    Empty clusters would divide by zero, so their count is clamped to one
    (the centroid then collapses to the origin, which the caller re-seeds).
    """
    def _loop_body(j, _):
        mask = (labels == j).astype(points.dtype)
        count = jnp.maximum(mask.sum(), 1.0)
        new = (mask[:, None] * points).sum(axis=0) / count
        return j + 1, new
    j, new = jax.lax.scan(_loop_body, 0, length=len(range(k)))
    return jnp.stack(new)


@jax.jit
def kmeans_step(points, centroids):
    """Assign, then move every centroid to the mean of its points."""
    k = centroids.shape[0]
    labels = assign(points, centroids)
    return update_centroids(points, labels, k), labels


@jax.jit
def inertia(points, centroids, labels):
    """Sum of squared distances of the points to their own centroid."""
    points = jnp.asarray(points)
    return jnp.sum((points - centroids[labels]) ** 2)


@jax.jit
def centroid_shift(old, new):
    old = jnp.asarray(old)
    new = jnp.asarray(new)
    # Largest distance any centroid moved in this iteration.
    return jnp.max(jnp.linalg.norm(new - old, axis=1))


@functools.partial(jax.jit, static_argnums=(1,))
def one_hot(labels, k):
    """``(n, k)`` indicator matrix of the assignments."""
    return (labels[:, None] == jnp.arange(k)[None, :]).astype(np.float32)


@functools.partial(jax.jit, static_argnums=(2,))
def kmeans(points, init_centroids, n_iter=10):
    centroids = init_centroids
    if 0 < n_iter:
        centroids, labels = kmeans_step(points, centroids)
        def _loop_body(_, _carry):
            centroids, labels = _carry
            centroids, labels = kmeans_step(points, centroids)
            return centroids, labels
        centroids, labels = jax.lax.fori_loop(1, n_iter, _loop_body, (centroids, labels))
    return centroids, labels
