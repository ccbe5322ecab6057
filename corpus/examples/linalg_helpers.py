"""Inputs for corpus/modules/linalg_helpers.py (see corpus/README.md for the format)."""

import numpy as np

rng = np.random.default_rng(7)


def f32(*shape):
    return rng.standard_normal(size=shape).astype(np.float32)


def spd(n, spread=1.0):
    """A well-conditioned symmetric positive definite matrix with a clear top eigenvalue."""
    q, _ = np.linalg.qr(rng.standard_normal((n, n)))
    eigenvalues = np.linspace(1.0, 1.0 + spread, n)
    eigenvalues[-1] *= 3.0
    return (q @ np.diag(eigenvalues) @ q.T).astype(np.float32)


A_TALL, B_TALL = f32(20, 3), f32(20)
A_SQ, B_SQ = spd(4) + np.eye(4, dtype=np.float32), f32(4)
V_4x3, V_6x6 = f32(4, 3), spd(6)
S5, S3 = spd(5), spd(3, spread=4.0)

EXAMPLES = {
    "least_squares": [(A_TALL, B_TALL), (A_SQ, B_SQ)],
    "ridge": [(A_TALL, B_TALL), (A_TALL, B_TALL, 1.0)],
    "gram_schmidt": [(V_4x3,), (V_6x6,)],
    "modified_gram_schmidt": [(V_4x3,), (V_6x6,)],
    "power_iteration": [(S5,), (S3, 100)],
    "projection_matrix": [(A_TALL,), (V_4x3,)],
    "condition_number": [(A_TALL,), (S5,)],
    "cosine_similarity": [(f32(5), f32(5)), (B_TALL, 2.0 * B_TALL)],
    "outer_product_sum": [(f32(10, 3),), (f32(4, 6),)],
    "log_det": [(S5,), (A_SQ,), (np.array([[0.0, 2.0], [1.0, 0.0]], dtype=np.float32),)],
}
