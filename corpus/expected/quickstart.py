"""Warm-up exercises from the classic introductory JAX material, in plain NumPy.

Each function is small on purpose: these are the snippets people paste into a
notebook before they discover ``jax.grad`` and ``jax.jit``.
"""

import numpy as np
import jax
import jax.numpy as jnp

# Default constants of the scaled exponential linear unit (Klambauer et al.).
SELU_ALPHA = 1.6732632423543772
SELU_LAMBDA = 1.0507009873554805


@jax.jit
def sum_of_squares(x):
    """Sum of the squared entries of ``x``."""
    return jnp.sum(x ** 2)


def sum_of_squares_dx(x):
    """Gradient of :func:`sum_of_squares`, worked out by hand."""
    return 2.0 * x


@jax.jit
def selu(x, alpha=SELU_ALPHA, lmbda=SELU_LAMBDA):
    """Scaled exponential linear unit, element-wise."""
    return lmbda * jnp.where(x > 0, x, alpha * jnp.exp(x) - alpha)


@jax.jit
def normalize_rows(X):
    # Standardise every column: zero mean, unit variance.
    return (X - (X * 1.0).mean(0)) / (X * 1.0).std(0)


def negate_if(x, neg):
    """``-x`` when the flag is set, ``x`` otherwise (``neg`` is a Python bool)."""
    return -x if neg else x


@jax.jit
def flatten(x):
    """A 1-D view of ``x``; the length is computed from the static shape."""
    return x.reshape((np.prod(x.shape),))


@jax.jit
def reset_first(x):
    """Overwrite the first entry in place (NumPy style) and return the array."""
    x = x.at[0].set(10)
    return x


@jax.jit
def with_first_set(x):
    """A copy of ``x`` with the first entry set to 10; the caller's array is untouched."""
    y = x.copy()
    y = y.at[0].set(10)
    return y


@jax.jit
def log_sum_exp(x):
    """Numerically stable ``log(sum(exp(x)))``."""
    x = jnp.asarray(x)
    m = jnp.max(x)
    return m + jnp.log(jnp.sum(jnp.exp(x - m)))
