"""Linear algebra helpers: least squares, orthonormalisation, eigenvalues."""

import numpy as np
from numpy.linalg import norm, solve, lstsq

# Iterations of the power method; fixed so the loop length is static.
POWER_STEPS = 50


def least_squares(A, b):
    """Minimum-norm solution of ``A x = b`` in the least-squares sense."""
    x, residuals, rank, sv = lstsq(A, b, rcond=None)
    return x


def ridge(A, b, lam=1e-2):
    """Ridge regression through the normal equations."""
    n = A.shape[1]
    gram = A.T @ A + lam * np.eye(n)
    return solve(gram, A.T @ b)


def gram_schmidt(V):
    """Orthonormalise the columns of ``V`` (classical Gram-Schmidt)."""
    n, k = V.shape
    basis = []
    for j in range(k):
        v = V[:, j]
        for q in basis:
            v = v - np.dot(q, v) * q
        basis.append(v / norm(v))
    return np.stack(basis, axis=1)


def modified_gram_schmidt(V):
    """Modified Gram-Schmidt: numerically kinder, filling ``Q`` column by column."""
    n, k = V.shape
    Q = np.zeros((n, k), dtype=V.dtype)
    for j in range(k):
        v = V[:, j].copy()
        for i in range(j):
            v -= np.dot(Q[:, i], v) * Q[:, i]
        Q[:, j] = v / norm(v)
    return Q


def power_iteration(A, steps=POWER_STEPS):
    """Dominant eigenvalue and eigenvector of a symmetric matrix."""
    v = np.ones(A.shape[0]) / np.sqrt(A.shape[0])
    for _ in range(steps):
        w = A @ v
        v = w / np.linalg.norm(w)
    return v @ A @ v, v


def projection_matrix(A):
    """Orthogonal projector onto the column space of ``A``."""
    return A @ np.linalg.inv(A.T @ A) @ A.T


def condition_number(A):
    s = np.linalg.svd(A, compute_uv=False)
    return s[0] / s[-1]


def cosine_similarity(u, v):
    return np.dot(u, v) / (norm(u) * norm(v))


def outer_product_sum(vectors):
    """``sum_i v_i v_i^T`` for the rows of ``vectors``."""
    return np.einsum("ni,nj->ij", vectors, vectors)


def log_det(A):
    sign, logabsdet = np.linalg.slogdet(A)
    return sign * logabsdet
