"""Measurement helpers whose callers pass plain Python lists as often as arrays (``array_like``)."""

import numpy as np
from numpy.typing import ArrayLike


def weighted_average(values, weights):
    """Weighted mean.

    Parameters
    ----------
    values : array_like
        The measurements.
    weights : array_like
        One non-negative weight per measurement.
    """
    return np.sum(np.multiply(values, weights)) / np.sum(weights)


def trapezoid_area(xs: ArrayLike, ys: ArrayLike):
    """Area under the polyline through (xs, ys)."""
    dx = np.diff(xs)
    return np.sum(dx * (np.asarray(ys)[1:] + np.asarray(ys)[:-1])) / 2.0


def peak_to_peak(samples):
    samples = np.atleast_1d(samples)
    return np.max(samples) - np.min(samples)


def linear_trend(times, readings):
    """Slope and intercept of the least-squares line through the readings.

    Args:
        times (array-like): when each reading was taken.
        readings (array-like): the readings.
    """
    slope, intercept = np.polyfit(times, readings, 1)
    return slope, intercept


def clipped_rms(*channels, limit=1.0):
    stacked = np.clip(channels, -limit, limit)
    return np.sqrt(np.mean(np.square(stacked), axis=-1))


class Calibration:
    """Maps raw sensor counts to physical units with a gain and an offset."""

    def __init__(self, gain, offset):
        self.gain = gain
        self.offset = offset

    def __call__(self, counts):
        return self.gain * np.atleast_1d(counts) + self.offset

    def inverse(self, values: ArrayLike):
        return (np.ravel(values) - self.offset) / self.gain
