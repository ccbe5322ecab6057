"""Running moments for sensor streams: means, variances, correlations, drift tests.

The textbook one-pass formulas (sum of squares minus square of the sum) are
exact enough in float64 but lose every digit in float32 when the mean is large
next to the spread; tolerances written for float64 are below float32's
resolution.  The two-pass and Welford versions below are safe.
"""

import functools
import jax
import jax.numpy as jnp

DRIFT_TOL = 1e-12


@jax.jit
def naive_variance(x):
    """Sample variance from running sums (one pass)."""
    n = x.shape[0]
    s = jnp.sum(x)
    ss = jnp.sum(x * x)
    return (ss - s * s / n) / (n - 1)


@jax.jit
def naive_std(x):
    return jnp.sqrt(jnp.mean((x ** 2) * 1.0) - jnp.mean(x * 1.0) ** 2)


@jax.jit
def naive_covariance(x, y):
    x = jnp.asarray(x)
    y = jnp.asarray(y)
    n = len(x)
    return (n * jnp.dot(x, y) - jnp.sum(x) * jnp.sum(y)) / (n * (n - 1))


@jax.jit
def two_pass_variance(x):
    x = jnp.asarray(x)
    d = x - jnp.mean(x * 1.0)
    return jnp.sum(d * d) / (len(x) - 1)


@jax.jit
def welford(x):
    """Mean and variance in one numerically stable pass."""
    mean = 0.0
    m2 = 0.0
    if 0 < x.shape[0]:
        i = 0
        delta = x[i] - mean
        mean = mean + delta / (i + 1)
        m2 = m2 + delta * (x[i] - mean)
        def _loop_body(i, _carry):
            mean, m2 = _carry
            delta = x[i] - mean
            mean = mean + delta / (i + 1)
            m2 = m2 + delta * (x[i] - mean)
            return mean, m2
        mean, m2 = jax.lax.fori_loop(1, x.shape[0], _loop_body, (mean, m2))
    return mean, m2 / (x.shape[0] - 1)


@jax.jit
def zscore(x, eps=1e-12):
    """Standardized values; eps only guards against a zero spread."""
    x = jnp.asarray(x)
    return (x - jnp.mean(x * 1.0)) / (jnp.std(x * 1.0) + eps)


@jax.jit
def has_drifted(previous_mean, x):
    """Did the stream's mean move since the last window?"""
    previous_mean = jnp.asarray(previous_mean)
    x = jnp.asarray(x)
    return jnp.abs(jnp.mean(x * 1.0) - previous_mean) > DRIFT_TOL


@jax.jit
def same_calibration(a, b):
    a = jnp.asarray(a)
    b = jnp.asarray(b)
    return jnp.allclose(a, b, rtol=1e-10, atol=0.0)


@jax.jit
def moments_converged(m_old, m_new, tol=1e-9):
    m_old = jnp.asarray(m_old)
    m_new = jnp.asarray(m_new)
    return jnp.max(jnp.abs(m_new - m_old)) < tol


@functools.partial(jax.jit, static_argnums=(1,))
def rolling_mean(x, window):
    x = jnp.asarray(x)
    c = jnp.cumsum(x, dtype=jnp.sum(x).dtype)
    return (c[window - 1:] - jnp.concatenate([jnp.zeros(1), c[:-window]])) / window
