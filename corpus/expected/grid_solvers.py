"""Finite differences on a 1-D grid: stencils, a Laplacian and a small implicit solver.

Written the way findiff-style code is: shape tuples passed around, Python lists
filled in loops and handed to NumPy, a SciPy call, and a class whose methods
share arrays through ``self``.
"""

import numpy as np
import functools
import jax
import jax.scipy.linalg
import jax.numpy as jnp
from scipy import linalg

COEFS_2ND = (1.0, -2.0, 1.0)


def grid_size(shape):
    """Number of grid points of a grid with this shape (shape arithmetic: stays NumPy)."""
    return int(np.prod(shape))


@functools.partial(jax.jit, static_argnums=(0,))
def central_weights(order):
    """Central-difference weights for d/dx (order 1) or d2/dx2 (order 2), solved from Taylor conditions."""
    offsets = jnp.arange(-1, 2)
    matrix = jnp.vander(offsets, 3, increasing=True).T
    rhs = [0.0] * 3
    rhs[order] = 1.0 if order == 1 else 2.0
    return jnp.linalg.solve(matrix.astype(np.float32), jnp.asarray(rhs))


@jax.jit
def laplacian(u, dx):
    """Second derivative in the interior, zero at both ends."""
    out = jnp.zeros(u.shape)
    out = out.at[1:-1].set((u[:-2] - 2.0 * u[1:-1] + u[2:]) / dx ** 2)
    return out


@jax.jit
def apply_stencil(u, dx):
    """The same interior second derivative, through a weight tuple constant."""
    u = jnp.asarray(u)
    w = jnp.asarray(COEFS_2ND)
    return jnp.convolve(u, w[::-1], mode="valid", preferred_element_type=jnp.result_type(u, w[::-1])) / dx ** 2


@functools.partial(jax.jit, static_argnums=(2,))
def explicit_heat(u0, alpha, steps=40):
    """Explicit heat steps into a fresh array each step, handed on once written (fixed ends)."""
    u = jnp.array(u0, dtype=float)
    def _loop_body(_, u):
        nxt = jnp.empty_like(u)
        nxt = nxt.at[0].set(u[0])
        nxt = nxt.at[-1].set(u[-1])
        nxt = nxt.at[1:-1].set(u[1:-1] + alpha * (u[2:] - 2.0 * u[1:-1] + u[:-2]))
        u = nxt
        return u
    u = jax.lax.fori_loop(0, steps, _loop_body, u)
    return u


@jax.jit
def implicit_step(u, dt, dx):
    """One backward-Euler step of u_t = u_xx with Dirichlet ends, solved with SciPy."""
    n = u.shape[0]
    a = jnp.eye(n) * (1.0 + 2.0 * dt / dx ** 2)
    a -= jnp.eye(n, k=1) * dt / dx ** 2
    a -= jnp.eye(n, k=-1) * dt / dx ** 2
    return jax.scipy.linalg.solve(a, u)


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
        self.u = jnp.array(u0, dtype=float)
        self.alpha = alpha

    def energy(self):
        return jnp.sum(self.u ** 2)

    def clamp_ends(self, value):
        self.u = self.u.at[0].set(value)
        self.u = self.u.at[-1].set(value)
