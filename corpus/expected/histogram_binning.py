"""Binning and lookup helpers for a detector-calibration pipeline.

Most of the indices here are computed from the data: a value's bin, the
position of a peak, a calibration table looked up by measured codes.  NumPy
raises IndexError when one falls outside the array; JAX clamps reads and drops
writes, so the migration must say where that can happen.
"""

import numpy as np
import jax
import jax.numpy as jnp


@jax.jit
def bin_index(x, lo, hi, n_bins):
    """Bin of each value in [lo, hi); the maximum lands in bin n_bins (out of range)."""
    x = jnp.asarray(x)
    lo = jnp.asarray(lo)
    hi = jnp.asarray(hi)
    n_bins = jnp.asarray(n_bins)
    width = (hi - lo) / n_bins
    return jnp.floor((x - lo) / width).astype(int)


@jax.jit
def safe_bin_index(x, lo, hi, n_bins):
    """Same, with the upper edge folded into the last bin."""
    x = jnp.asarray(x)
    lo = jnp.asarray(lo)
    hi = jnp.asarray(hi)
    width = (hi - lo) / n_bins
    idx = jnp.floor((x - lo) / width).astype(int)
    return jnp.clip(idx, 0, n_bins - 1)


def bin_centers(edges):
    return 0.5 * (edges[1:] + edges[:-1])


def weighted_counts(x, weights, lo, hi, n_bins):
    """Sum of weights per bin, one value at a time."""
    counts = np.zeros(n_bins)
    width = (hi - lo) / n_bins
    for i in range(len(x)):
        b = int((x[i] - lo) / width)
        counts[b] += weights[i]
    return counts


def calibrate(codes, table):
    """Map raw ADC codes to energies through a calibration table."""
    return table[codes]


@jax.jit
def energy_at_threshold(thresholds, energies, level):
    """Energy of the first threshold above `level`."""
    thresholds = jnp.asarray(thresholds)
    energies = jnp.asarray(energies)
    level = jnp.asarray(level)
    k = jnp.searchsorted(thresholds, level).astype(int)
    return energies[k]


@jax.jit
def peak_window(spectrum, half_width):
    """Values right around the highest channel."""
    spectrum = jnp.asarray(spectrum)
    peak = jnp.argmax(spectrum)
    left = spectrum[peak - 1]
    right = spectrum[peak + 1]
    return left, spectrum[peak], right


@jax.jit
def peak_value(spectrum, background):
    """Background-subtracted height of the highest channel."""
    spectrum = jnp.asarray(spectrum)
    background = jnp.asarray(background)
    peak = jnp.argmax(spectrum)
    return spectrum[peak] - background[peak]


def rank_normalize(x):
    """Ranks scaled to (0, 1)."""
    order = np.argsort(x, kind="stable")
    ranks = np.empty(len(x))
    ranks[order] = np.arange(1, len(x) + 1)
    return ranks / (len(x) + 1)


def occupied_bins(counts):
    """Indices of the bins that saw at least one hit."""
    return np.flatnonzero(counts > 0)


@jax.jit
def neighbor_differences(x):
    x = jnp.asarray(x)
    diffs = jnp.zeros(len(x) - 1)
    if 0 < len(x) - 1:
        def _loop_body(i, diffs):
            diffs = diffs.at[i].set(x[i + 1] - x[i])
            return diffs
        diffs = jax.lax.fori_loop(0, len(x) - 1, _loop_body, diffs)
    return diffs
