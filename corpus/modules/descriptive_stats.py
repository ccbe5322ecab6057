"""Descriptive statistics for feature matrices (rows are samples).

A grab-bag of helpers from an exploratory-analysis notebook, tidied into a
module.  Some use ``numpy.linalg`` under a short alias.
"""

import numpy as np
import numpy.linalg as la

EPS = np.finfo(np.float32).eps
QUANTILES = (0.25, 0.5, 0.75)

# Log-odds of a probability, kept as a one-liner.
logit = lambda p: np.log(p / (1.0 - p))


def zscore(x, axis=0):
    """Standard scores along ``axis``; constant columns map to zero."""
    mu = np.mean(x, axis=axis, keepdims=True)
    sigma = np.std(x, axis=axis, keepdims=True)
    return (x - mu) / np.maximum(sigma, EPS)


def summary(x):
    """Per-column minimum, quartiles and maximum, stacked as rows."""
    qs = np.quantile(x, QUANTILES, axis=0)
    return np.vstack([x.min(axis=0), qs, x.max(axis=0)])


def iqr(x):
    q75, q25 = np.percentile(x, [75, 25], axis=0)
    return q75 - q25


def robust_scale(x):
    """Centre on the median and divide by the interquartile range."""
    med = np.median(x, axis=0)
    return (x - med) / (iqr(x) + EPS)


def covariance(x):
    """Sample covariance of the columns (``rowvar=False``)."""
    return np.cov(x, rowvar=False)


def correlation(x):
    return np.corrcoef(x, rowvar=False)


def mahalanobis(x, mean, cov):
    """Mahalanobis distance of every row of ``x`` to ``mean``."""
    delta = x - mean[np.newaxis, :]
    inv = la.inv(cov)
    return np.sqrt(np.einsum("ni,ij,nj->n", delta, inv, delta))


def weighted_mean(x, weights):
    return np.average(x, axis=0, weights=weights)


def to_float32(x):
    return np.float32(x)


def mean_float64(x):
    """Mean accumulated in double precision."""
    return np.mean(x, dtype=np.float64)


def histogram_density(x, bins=10):
    """Normalised histogram of a 1-D sample over its own range."""
    counts, edges = np.histogram(x, bins=bins, range=(x.min(), x.max()))
    widths = np.diff(edges)
    return counts / (counts.sum() * widths)


def ranks(x):
    """0-based rank of every entry of a 1-D array (ties by position)."""
    order = np.argsort(x, kind="stable")
    return np.argsort(order, kind="stable")


def standardized_moments(x):
    """Skewness and excess kurtosis of each column."""
    centred = x - x.mean(axis=0)
    var = np.mean(centred ** 2, axis=0)
    skew = np.mean(centred ** 3, axis=0) / var ** 1.5
    kurt = np.mean(centred ** 4, axis=0) / var ** 2 - 3.0
    return skew, kurt


def pairwise_corr_matrix(columns):
    """Correlation matrix from a list of 1-D columns."""
    return np.corrcoef(np.stack([c - c.mean() for c in columns]))


def coefficient_of_variation(x):
    """Standard deviation over mean per column; 0 where the mean is 0 (no division warning)."""
    mean = x.mean(axis=0)
    return np.divide(x.std(axis=0), np.abs(mean), out=np.zeros_like(mean), where=mean != 0)


def dispersion_index(counts):
    """Variance-to-mean ratio of a 1-D sample of counts; 1.0 (as for Poisson data) when every count is 0."""
    mean = counts.mean()
    if mean == 0:
        return 1.0
    centred = counts - mean
    var = np.mean(centred ** 2)
    return var / mean


def weighted_center(x, w):
    """Weighted mean of the rows of x; the plain mean when the weights sum to 0."""
    total = w.sum()
    if total == 0:
        return x.mean(axis=0)
    share = w / total
    return share @ x


def finite_summary(x):
    """Mean and sample deviation of the finite values, and the sum of the positive ones (NaN and inf dropped)."""
    ok = np.isfinite(x)
    return np.mean(x[ok]), x[ok].std(ddof=1), x[x > 0].sum()
