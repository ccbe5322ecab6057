"""Measurement helpers whose callers pass plain Python lists as often as arrays (``array_like``)."""

import jax
import jax.numpy as jnp
from numpy.typing import ArrayLike


@jax.jit
def weighted_average(values, weights):
    """Weighted mean.

    Parameters
    ----------
    values : array_like
        The measurements.
    weights : array_like
        One non-negative weight per measurement.
    """
    values = jnp.asarray(values)
    weights = jnp.asarray(weights)
    return jnp.sum(jnp.multiply(values, weights)) / jnp.sum(weights)


@jax.jit
def trapezoid_area(xs: ArrayLike, ys: ArrayLike):
    """Area under the polyline through (xs, ys)."""
    xs = jnp.asarray(xs)
    dx = jnp.diff(xs)
    return jnp.sum(dx * (jnp.asarray(ys)[1:] + jnp.asarray(ys)[:-1])) / 2.0


@jax.jit
def peak_to_peak(samples):
    samples = jnp.atleast_1d(jnp.asarray(samples))
    return jnp.max(samples) - jnp.min(samples)


@jax.jit
def linear_trend(times, readings):
    """Slope and intercept of the least-squares line through the readings.

    Args:
        times (array-like): when each reading was taken.
        readings (array-like): the readings.
    """
    times = jnp.asarray(times)
    readings = jnp.asarray(readings)
    slope, intercept = jnp.polyfit(times + 0.0, readings + 0.0, 1)
    return slope, intercept


@jax.jit
def clipped_rms(*channels, limit=1.0):
    stacked = jnp.clip(jnp.asarray(channels), -limit, limit)
    return jnp.sqrt(jnp.mean(jnp.square(stacked), axis=-1))


class Calibration:
    """Maps raw sensor counts to physical units with a gain and an offset."""

    def __init__(self, gain, offset):
        self.gain = gain
        self.offset = offset

    def __call__(self, counts):
        return self.gain * jnp.atleast_1d(jnp.asarray(counts)) + self.offset

    def inverse(self, values: ArrayLike):
        return (jnp.ravel(jnp.asarray(values)) - self.offset) / self.gain
