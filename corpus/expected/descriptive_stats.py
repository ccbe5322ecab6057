"""Descriptive statistics for feature matrices (rows are samples).

A grab-bag of helpers from an exploratory-analysis notebook, tidied into a
module.  Some use ``numpy.linalg`` under a short alias.
"""

import numpy as np
import functools
import jax
import jax.numpy as jnp

EPS = np.finfo(np.float32).eps
QUANTILES = (0.25, 0.5, 0.75)

# Log-odds of a probability, kept as a one-liner.
logit = lambda p: jnp.log(p / (1.0 - p))


@functools.partial(jax.jit, static_argnums=(1,))
def zscore(x, axis=0):
    """Standard scores along ``axis``; constant columns map to zero."""
    x = jnp.asarray(x)
    mu = jnp.mean(x * 1.0, axis=axis, keepdims=True)
    sigma = jnp.std(x * 1.0, axis=axis, keepdims=True)
    return (x - mu) / jnp.maximum(sigma, EPS)


@jax.jit
def summary(x):
    """Per-column minimum, quartiles and maximum, stacked as rows."""
    qs = jnp.quantile(jnp.asarray(x, dtype=jnp.result_type(x, jnp.float64)), jnp.asarray(QUANTILES), axis=0)
    return jnp.vstack([x.min(axis=0), qs, x.max(axis=0)])


@jax.jit
def iqr(x):
    x = jnp.asarray(x)
    q75, q25 = jnp.percentile(jnp.asarray(x, dtype=jnp.result_type(x, jnp.float64)), jnp.asarray([75, 25]), axis=0)
    return q75 - q25


@jax.jit
def robust_scale(x):
    """Centre on the median and divide by the interquartile range."""
    med = jnp.median(x, axis=0)
    return (x - med) / (iqr(x) + EPS)


@jax.jit
def covariance(x):
    """Sample covariance of the columns (``rowvar=False``)."""
    x = jnp.asarray(x)
    return jnp.cov(jnp.asarray(x, dtype=jnp.result_type(x, jnp.float64)), rowvar=False)


@jax.jit
def correlation(x):
    x = jnp.asarray(x)
    return jnp.corrcoef(jnp.asarray(x, dtype=jnp.result_type(x, jnp.float64)), rowvar=False)


@jax.jit
def mahalanobis(x, mean, cov):
    """Mahalanobis distance of every row of ``x`` to ``mean``."""
    x = jnp.asarray(x)
    cov = jnp.asarray(cov)
    delta = x - mean[np.newaxis, :]
    inv = jnp.linalg.inv(cov)
    return jnp.sqrt(jnp.einsum("ni,ij,nj->n", delta, inv, delta))


@jax.jit
def weighted_mean(x, weights):
    return jnp.average(x, axis=0, weights=weights)


@jax.jit
def to_float32(x):
    return jnp.float32(x)


@jax.jit
def mean_float64(x):
    """Mean accumulated in double precision."""
    x = jnp.asarray(x)
    return jnp.mean(x, dtype=np.float64)


def histogram_density(x, bins=10):
    """Normalised histogram of a 1-D sample over its own range."""
    counts, edges = jnp.histogram(x, bins=bins, range=(x.min(), x.max()))
    widths = jnp.diff(edges)
    return counts / (counts.sum() * widths)


@jax.jit
def ranks(x):
    """0-based rank of every entry of a 1-D array (ties by position)."""
    x = jnp.asarray(x)
    order = jnp.argsort(x, stable=True)
    return jnp.argsort(order, stable=True)


@jax.jit
def standardized_moments(x):
    """Skewness and excess kurtosis of each column."""
    centred = x - (x * 1.0).mean(axis=0)
    var = jnp.mean(centred ** 2, axis=0)
    skew = jnp.mean(centred ** 3, axis=0) / var ** 1.5
    kurt = jnp.mean(centred ** 4, axis=0) / var ** 2 - 3.0
    return skew, kurt


@jax.jit
def pairwise_corr_matrix(columns):
    """Correlation matrix from a list of 1-D columns."""
    return jnp.corrcoef(jnp.stack([c - c.mean() for c in columns]))


@jax.jit
def coefficient_of_variation(x):
    """Standard deviation over mean per column; 0 where the mean is 0 (no division warning)."""
    mean = (x * 1.0).mean(axis=0)
    return jnp.where(mean != 0, jnp.divide((x * 1.0).std(axis=0), jnp.abs(mean)), jnp.zeros_like(mean)).astype(mean.dtype)


@jax.jit
def dispersion_index(counts):
    """Variance-to-mean ratio of a 1-D sample of counts; 1.0 (as for Poisson data) when every count is 0."""
    mean = (counts * 1.0).mean()
    centred = counts - mean
    var = jnp.mean(centred ** 2)
    return jnp.where(mean == 0, 1.0, var / mean)


@jax.jit
def weighted_center(x, w):
    """Weighted mean of the rows of x; the plain mean when the weights sum to 0."""
    total = w.sum()
    share = w / total
    return jax.lax.cond(total == 0, lambda: (x * 1.0).mean(axis=0), lambda: share @ x)


@jax.jit
def finite_summary(x):
    """Mean and sample deviation of the finite values, and the sum of the positive ones (NaN and inf dropped)."""
    ok = jnp.isfinite(x)
    return jnp.mean(x, where=ok), jnp.std(x, ddof=1, where=ok), jnp.sum(x, where=x > 0)
