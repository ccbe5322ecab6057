"""Data-preparation utilities full of things that cannot simply move to JAX.

Every function here relies on NumPy behaviour that jax.numpy does not have:
hidden random state, data-dependent shapes, in-place writes, file I/O, type
checks on ``np.ndarray`` and decimal rounding.  The migration must report
them and leave them as they are.
"""

import numpy as np
import functools
import jax
import jax.numpy as jnp

DATA_DTYPE = np.float32
rng = np.random.default_rng(42)  # module level: fine, runs once at import


def add_noise(x, scale=0.1):
    """Gaussian noise from NumPy's global generator."""
    return x + scale * np.random.randn(*x.shape)


def bootstrap_indices(n, seed=0):
    generator = np.random.default_rng(seed)
    return generator.integers(0, n, size=n)


def distinct_labels(labels):
    return np.unique(labels)


def positive_positions(x):
    """Indices of the strictly positive entries."""
    (idx,) = np.nonzero(x > 0)
    return idx


def scaled_into(x, factor, buffer):
    # Avoids an allocation by writing into a caller-provided buffer.
    np.multiply(x, factor, out=buffer)
    return buffer


@functools.partial(jax.jit, static_argnums=(1,))
def histogram_counts(indices, n_bins):
    indices = jnp.asarray(indices)
    # the one exception: np.add.at into a local array has an exact functional form (.at[].add)
    counts = jnp.zeros(n_bins)
    counts = counts.at[indices].add(1)
    return counts


@jax.jit
def zero_negatives(x):
    """Clamp negative entries to zero, in the caller's array."""
    x = jnp.where(x < 0, jnp.asarray(0, x.dtype), x)
    return x


def center_first_column(X):
    # ``col`` is a view: the in-place subtraction updates X itself.
    col = X[:, 0]
    col -= col.mean()
    return X


def load_matrix(path):
    return np.loadtxt(path, delimiter=",", dtype=DATA_DTYPE)


def ensure_array(x):
    """Accept lists as well as arrays."""
    if isinstance(x, np.ndarray):
        return x
    return jnp.asarray(x, dtype=DATA_DTYPE)


def round_prices(prices):
    """Round to cents for display."""
    return np.round(prices, decimals=2)


@jax.jit
def round_to_units(x):
    x = jnp.asarray(x)
    return jnp.round(x)


@jax.jit
def clean_and_rank(x):
    """Replace NaNs by the column mean, then rank every column."""
    x = jnp.asarray(x)
    col_mean = jnp.nanmean(x * 1.0, axis=0)
    filled = jnp.where(jnp.isnan(x), col_mean, x)
    return jnp.argsort(filled, axis=0)


def pick_positive(x):
    return x[np.where(x > 0)]
