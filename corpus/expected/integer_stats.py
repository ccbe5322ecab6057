"""Counting statistics on integer data: combinatorics, checksums, rank sums.

NumPy computes these in int64; under JAX (without x64) integers are int32 and
products wrap around silently past 2**31 - 1.  The migration must point at the
arithmetic that can get there and leave the plain counting alone.
"""

import numpy as np
import functools
import jax
import jax.numpy as jnp


@functools.partial(jax.jit, static_argnums=(0,))
def factorial_table(n):
    """0!, 1!, ..., (n-1)! as integers."""
    k = jnp.arange(1, n)
    return jnp.concatenate([jnp.ones(1, dtype=int), jnp.cumprod(k, dtype=jnp.sum(k).dtype)])


@jax.jit
def n_choose_2(counts):
    """Number of unordered pairs in each group."""
    counts = jnp.asarray(counts)
    c = jnp.round(counts).astype(int)
    return c * (c - 1) // 2


@jax.jit
def pairs_total(counts):
    c = jnp.asarray(counts, dtype=np.int64)
    return jnp.sum(c * (c - 1)) // 2


@functools.partial(jax.jit, static_argnums=(0,))
def triangular_number(n):
    return jnp.arange(n + 1).sum()


@jax.jit
def checksum(values):
    """Polynomial rolling hash of integer codes, modulo the Mersenne prime 2**31 - 1."""
    h = jnp.zeros((), dtype=int)
    _seq = jnp.asarray(values, dtype=int)
    if 0 < len(_seq):
        def _loop_body(_i, h):
            v = _seq[_i]
            h = (h * 31 + v) % 2147483647
            return h
        h = jax.lax.fori_loop(0, len(_seq), _loop_body, h)
    return h


@functools.partial(jax.jit, static_argnums=(1,))
def label_counts(labels, k):
    """How many labels fall in each of k classes."""
    counts = jnp.zeros(k, dtype=int)
    if 0 < k:
        def _loop_body(c, counts):
            counts = counts.at[c].set(jnp.sum(labels == c))
            return counts
        counts = jax.lax.fori_loop(0, k, _loop_body, counts)
    return counts


@jax.jit
def flat_index(x):
    """Row and column of the largest entry."""
    k = jnp.argmax(x)
    return k // x.shape[1], k % x.shape[1]


@functools.partial(jax.jit, static_argnums=(0, 1))
def grid_ids(n_rows, n_cols):
    """Cell id of each grid cell, row-major."""
    rows = jnp.arange(n_rows).reshape(-1, 1)
    cols = jnp.arange(n_cols).reshape(1, -1)
    return rows * n_cols + cols


@jax.jit
def mean_count(counts):
    return jnp.mean(counts.astype(float))


@jax.jit
def pages_per_reader(pages, readers):
    """Whole pages each reader gets, per shelf; NumPy's 0 where a shelf has no reader."""
    p = jnp.asarray(pages, dtype=int)
    r = jnp.asarray(readers, dtype=int)
    with np.errstate(divide="ignore"):
        return p // r


@jax.jit
def pages_per_reader_guarded(pages, readers):
    """The same, with the empty shelves handled explicitly."""
    p = jnp.asarray(pages, dtype=int)
    r = jnp.asarray(readers, dtype=int)
    return jnp.where(r > 0, p // jnp.maximum(r, 1), 0)
