"""Binning and lookup helpers for a detector-calibration pipeline.

Most of the indices here are computed from the data: a value's bin, the
position of a peak, a calibration table looked up by measured codes.  NumPy
raises IndexError when one falls outside the array; JAX clamps reads and drops
writes, so the migration must say where that can happen.
"""

import numpy as np


def bin_index(x, lo, hi, n_bins):
    """Bin of each value in [lo, hi); the maximum lands in bin n_bins (out of range)."""
    width = (hi - lo) / n_bins
    return np.floor((x - lo) / width).astype(int)


def safe_bin_index(x, lo, hi, n_bins):
    """Same, with the upper edge folded into the last bin."""
    width = (hi - lo) / n_bins
    idx = np.floor((x - lo) / width).astype(int)
    return np.clip(idx, 0, n_bins - 1)


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


def energy_at_threshold(thresholds, energies, level):
    """Energy of the first threshold above `level`."""
    k = np.searchsorted(thresholds, level)
    return energies[k]


def peak_window(spectrum, half_width):
    """Values right around the highest channel."""
    peak = np.argmax(spectrum)
    left = spectrum[peak - 1]
    right = spectrum[peak + 1]
    return left, spectrum[peak], right


def peak_value(spectrum, background):
    """Background-subtracted height of the highest channel."""
    peak = np.argmax(spectrum)
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


def neighbor_differences(x):
    diffs = np.zeros(len(x) - 1)
    for i in range(len(x) - 1):
        diffs[i] = x[i + 1] - x[i]
    return diffs
