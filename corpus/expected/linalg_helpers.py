"""Linear algebra helpers: least squares, orthonormalisation, eigenvalues."""

import numpy as np
import functools
import jax
import jax.numpy as jnp

# Iterations of the power method; fixed so the loop length is static.
POWER_STEPS = 50


@jax.jit
def least_squares(A, b):
    """Minimum-norm solution of ``A x = b`` in the least-squares sense."""
    A = jnp.asarray(A)
    b = jnp.asarray(b)
    x, residuals, rank, sv = jnp.linalg.lstsq(A, b, rcond=None)
    return x


@jax.jit
def ridge(A, b, lam=1e-2):
    """Ridge regression through the normal equations."""
    b = jnp.asarray(b)
    n = A.shape[1]
    gram = A.T @ A + lam * jnp.eye(n)
    return jnp.linalg.solve(gram, A.T @ b)


def gram_schmidt(V):
    """Orthonormalise the columns of ``V`` (classical Gram-Schmidt)."""
    n, k = V.shape
    basis = []
    for j in range(k):
        v = V[:, j]
        for q in basis:
            v = v - jnp.dot(q, v) * q
        basis.append(v / jnp.linalg.norm(v))
    return jnp.stack(basis, axis=1)


@jax.jit
def modified_gram_schmidt(V):
    """Modified Gram-Schmidt: numerically kinder, filling ``Q`` column by column."""
    n, k = V.shape
    Q = jnp.zeros((n, k), dtype=V.dtype)
    if 0 < k:
        def _loop_body_2(j, Q):
            v = V[:, j].copy()
            def _loop_body(i, v):
                v -= jnp.dot(Q[:, i], v) * Q[:, i]
                return v
            v = jax.lax.fori_loop(0, j, _loop_body, v)
            Q = Q.at[:, j].set(v / jnp.linalg.norm(v))
            return Q
        Q = jax.lax.fori_loop(0, k, _loop_body_2, Q)
    return Q


@functools.partial(jax.jit, static_argnums=(1,))
def power_iteration(A, steps=POWER_STEPS):
    """Dominant eigenvalue and eigenvector of a symmetric matrix."""
    v = jnp.ones(A.shape[0]) / np.sqrt(A.shape[0])
    def _loop_body(_, v):
        w = A @ v
        v = w / jnp.linalg.norm(w)
        return v
    v = jax.lax.fori_loop(0, steps, _loop_body, v)
    return v @ A @ v, v


@jax.jit
def projection_matrix(A):
    """Orthogonal projector onto the column space of ``A``."""
    return A @ jnp.linalg.inv(A.T @ A) @ A.T


@jax.jit
def condition_number(A):
    A = jnp.asarray(A)
    s = jnp.linalg.svd(A, compute_uv=False)
    return s[0] / s[-1]


@jax.jit
def cosine_similarity(u, v):
    u = jnp.asarray(u)
    v = jnp.asarray(v)
    return jnp.dot(u, v) / (jnp.linalg.norm(u) * jnp.linalg.norm(v))


@jax.jit
def outer_product_sum(vectors):
    """``sum_i v_i v_i^T`` for the rows of ``vectors``."""
    return jnp.einsum("ni,nj->ij", vectors, vectors)


@jax.jit
def log_det(A):
    A = jnp.asarray(A)
    sign, logabsdet = jnp.linalg.slogdet(A)
    return sign * logabsdet
