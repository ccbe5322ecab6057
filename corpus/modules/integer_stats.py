"""Counting statistics on integer data: combinatorics, checksums, rank sums.

NumPy computes these in int64; under JAX (without x64) integers are int32 and
products wrap around silently past 2**31 - 1.  The migration must point at the
arithmetic that can get there and leave the plain counting alone.
"""

import numpy as np


def factorial_table(n):
    """0!, 1!, ..., (n-1)! as integers."""
    k = np.arange(1, n)
    return np.concatenate([np.ones(1, dtype=int), np.cumprod(k)])


def n_choose_2(counts):
    """Number of unordered pairs in each group."""
    c = np.round(counts).astype(int)
    return c * (c - 1) // 2


def pairs_total(counts):
    c = np.asarray(counts, dtype=np.int64)
    return np.sum(c * (c - 1)) // 2


def triangular_number(n):
    return np.arange(n + 1).sum()


def checksum(values):
    """Polynomial rolling hash of integer codes, modulo the Mersenne prime 2**31 - 1."""
    h = np.zeros((), dtype=int)
    for v in np.asarray(values, dtype=int):
        h = (h * 31 + v) % 2147483647
    return h


def label_counts(labels, k):
    """How many labels fall in each of k classes."""
    counts = np.zeros(k, dtype=int)
    for c in range(k):
        counts[c] = np.sum(labels == c)
    return counts


def flat_index(x):
    """Row and column of the largest entry."""
    k = np.argmax(x)
    return k // x.shape[1], k % x.shape[1]


def grid_ids(n_rows, n_cols):
    """Cell id of each grid cell, row-major."""
    rows = np.arange(n_rows).reshape(-1, 1)
    cols = np.arange(n_cols).reshape(1, -1)
    return rows * n_cols + cols


def mean_count(counts):
    return np.mean(counts.astype(float))


def pages_per_reader(pages, readers):
    """Whole pages each reader gets, per shelf; NumPy's 0 where a shelf has no reader."""
    p = np.asarray(pages, dtype=int)
    r = np.asarray(readers, dtype=int)
    with np.errstate(divide="ignore"):
        return p // r


def pages_per_reader_guarded(pages, readers):
    """The same, with the empty shelves handled explicitly."""
    p = np.asarray(pages, dtype=int)
    r = np.asarray(readers, dtype=int)
    return np.where(r > 0, p // np.maximum(r, 1), 0)
