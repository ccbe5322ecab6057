"""Running moments for sensor streams: means, variances, correlations, drift tests.

The textbook one-pass formulas (sum of squares minus square of the sum) are
exact enough in float64 but lose every digit in float32 when the mean is large
next to the spread; tolerances written for float64 are below float32's
resolution.  The two-pass and Welford versions below are safe.
"""

import numpy as np

DRIFT_TOL = 1e-12


def naive_variance(x):
    """Sample variance from running sums (one pass)."""
    n = x.shape[0]
    s = np.sum(x)
    ss = np.sum(x * x)
    return (ss - s * s / n) / (n - 1)


def naive_std(x):
    return np.sqrt(np.mean(x ** 2) - np.mean(x) ** 2)


def naive_covariance(x, y):
    n = len(x)
    return (n * np.dot(x, y) - np.sum(x) * np.sum(y)) / (n * (n - 1))


def two_pass_variance(x):
    d = x - np.mean(x)
    return np.sum(d * d) / (len(x) - 1)


def welford(x):
    """Mean and variance in one numerically stable pass."""
    mean = 0.0
    m2 = 0.0
    for i in range(x.shape[0]):
        delta = x[i] - mean
        mean = mean + delta / (i + 1)
        m2 = m2 + delta * (x[i] - mean)
    return mean, m2 / (x.shape[0] - 1)


def zscore(x, eps=1e-12):
    """Standardized values; eps only guards against a zero spread."""
    return (x - np.mean(x)) / (np.std(x) + eps)


def has_drifted(previous_mean, x):
    """Did the stream's mean move since the last window?"""
    return np.abs(np.mean(x) - previous_mean) > DRIFT_TOL


def same_calibration(a, b):
    return np.allclose(a, b, rtol=1e-10, atol=0.0)


def moments_converged(m_old, m_new, tol=1e-9):
    return np.max(np.abs(m_new - m_old)) < tol


def rolling_mean(x, window):
    c = np.cumsum(x)
    return (c[window - 1:] - np.concatenate([np.zeros(1), c[:-window]])) / window
