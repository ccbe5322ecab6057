"""Finite differences on a 1-D grid: stencils, a Laplacian and a small implicit solver.

Written the way findiff-style code is: shape tuples passed around, Python lists
filled in loops and handed to NumPy, a SciPy call, and a class whose methods
share arrays through ``self``.
"""

import numpy as np
from scipy import linalg

COEFS_2ND = (1.0, -2.0, 1.0)


def grid_size(shape):
    """Number of grid points of a grid with this shape (shape arithmetic: stays NumPy)."""
    return int(np.prod(shape))


def central_weights(order):
    """Central-difference weights for d/dx (order 1) or d2/dx2 (order 2), solved from Taylor conditions."""
    offsets = np.arange(-1, 2)
    matrix = np.vander(offsets, 3, increasing=True).T
    rhs = [0.0] * 3
    rhs[order] = 1.0 if order == 1 else 2.0
    return np.linalg.solve(matrix.astype(np.float32), rhs)


def laplacian(u, dx):
    """Second derivative in the interior, zero at both ends."""
    out = np.zeros(u.shape)
    out[1:-1] = (u[:-2] - 2.0 * u[1:-1] + u[2:]) / dx ** 2
    return out


def apply_stencil(u, dx):
    """The same interior second derivative, through a weight tuple constant."""
    w = np.asarray(COEFS_2ND)
    return np.convolve(u, w[::-1], mode="valid") / dx ** 2


def explicit_heat(u0, alpha, steps=40):
    """Explicit heat steps into a fresh array each step, handed on once written (fixed ends)."""
    u = np.array(u0, dtype=float)
    for _ in range(steps):
        nxt = np.empty_like(u)
        nxt[0] = u[0]
        nxt[-1] = u[-1]
        nxt[1:-1] = u[1:-1] + alpha * (u[2:] - 2.0 * u[1:-1] + u[:-2])
        u = nxt
    return u


def implicit_step(u, dt, dx):
    """One backward-Euler step of u_t = u_xx with Dirichlet ends, solved with SciPy."""
    n = u.shape[0]
    a = np.eye(n) * (1.0 + 2.0 * dt / dx ** 2)
    a -= np.eye(n, k=1) * dt / dx ** 2
    a -= np.eye(n, k=-1) * dt / dx ** 2
    return linalg.solve(a, u)


def implicit_step_banded(u, dt, dx):
    """The same step through SciPy's banded solver, which jax.scipy lacks (NPJ113: it stays SciPy)."""
    n = u.shape[0]
    r = dt / dx ** 2
    ab = np.zeros((3, n))
    ab[0, 1:] = -r
    ab[1, :] = 1.0 + 2.0 * r
    ab[2, :-1] = -r
    return linalg.solve_banded((1, 1), ab, u)


class HeatRod:
    """Explicit heat equation on a rod; the boundary method writes into the state in place."""

    def __init__(self, u0, alpha):
        self.u = np.array(u0, dtype=float)
        self.alpha = alpha

    def energy(self):
        return np.sum(self.u ** 2)

    def clamp_ends(self, value):
        self.u[0] = value
        self.u[-1] = value
