"""Piecewise rules written with `if` on array values: thresholds, robust losses, step-size control."""

import numpy as np
import jax
import jax.numpy as jnp


def shrink_to_ball(x, max_norm):
    """Scale x onto the ball of radius max_norm when it lies outside (projected gradient methods)."""
    norm = np.linalg.norm(x)
    if norm > max_norm:
        x = x * (max_norm / norm)
    return x


@jax.jit
def clip_if_outside(x, lo, hi):
    """Clip x to [lo, hi] only when some value leaves the range."""
    x = jax.lax.cond(jnp.logical_or(x.min() < lo, x.max() > hi), lambda: jnp.clip(x, lo, hi), lambda: x)
    return x


@jax.jit
def huber(residuals, delta=1.0):
    """Huber loss of the mean absolute residual, and its derivative."""
    residuals = jnp.asarray(residuals)
    r = jnp.mean(jnp.abs(residuals) * 1.0)
    loss, slope = jax.lax.cond(r <= delta, lambda: (0.5 * r ** 2, r), lambda: (delta * (r - 0.5 * delta), jnp.asarray(delta, jnp.result_type(delta, r))))
    return loss, slope


@jax.jit
def soft_threshold_mean(x, lam: float):
    """Soft-threshold of the mean: the proximal operator of lam * |m|."""
    x = jnp.asarray(x)
    m = jnp.mean(x * 1.0)
    return jax.lax.cond(m > lam, lambda: m - lam, lambda: (jnp.where(m < -lam, m + lam, 0.0)))


@jax.jit
def backtracking_step(x, direction, step=1.0, c=1e-4, shrink=0.5):
    """One Armijo decision of a line search on f(x) = |x|^2: keep the step or shrink it."""
    f0 = jnp.sum(x ** 2)
    f1 = jnp.sum((x + step * direction) ** 2)
    slope = jnp.dot(2.0 * x, direction)
    return jax.lax.cond(f1 <= f0 + c * step * slope, lambda: jnp.asarray(step, jnp.result_type(step, step * shrink)), lambda: step * shrink)


def trust_radius(actual, predicted, step, radius: float, max_radius: float = 10.0):
    """Trust-region radius update from the agreement between actual and predicted reduction."""
    rho = np.sum(actual) / np.sum(predicted)
    step_norm = np.linalg.norm(step)
    if rho < 0.25:
        radius = 0.25 * step_norm
    elif rho > 0.75 and np.abs(step_norm - radius) < 1e-6 * radius:
        radius = np.minimum(2.0 * radius, max_radius)
    return radius


def safe_normalize(v, eps=1e-12):
    """v / |v|, and zeros for a zero vector."""
    n = np.linalg.norm(v)
    if n < eps:
        return jnp.zeros_like(v)
    return v / n


def positive_part_or_zero(x):
    """x when its sum is positive, else the number 0.0 (NumPy returns an array or a float)."""
    return x if np.sum(x) > 0 else 0.0


def first_crossing(x, level):
    """Index of the first sample above level, -1 if none."""
    for i in range(x.shape[0]):
        if x[i] > level:
            return i
    return -1
