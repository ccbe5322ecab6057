"""Stateful filters and in-place helpers: objects that update their arrays, functions that update their arguments."""

import numpy as np


class KalmanFilter:
    """Constant-velocity Kalman filter in one dimension; predict and update work on the state in place."""

    def __init__(self, dt, q, r):
        self.x = np.zeros(2)
        self.P = np.eye(2) * 10.0
        self.F = np.array([[1.0, dt], [0.0, 1.0]])
        self.Q = q * np.eye(2)
        self.H = np.array([[1.0, 0.0]])
        self.R = np.array([[r]])
        self.steps = 0

    def predict(self):
        self.x[:] = self.F @ self.x
        self.P[:] = self.F @ self.P @ self.F.T
        self.P += self.Q
        self.steps += 1

    def update(self, z):
        """Fold in measurement ``z``; returns the squared innovation."""
        y = z - self.H @ self.x
        s = self.H @ self.P @ self.H.T + self.R
        gain = self.P @ self.H.T @ np.linalg.inv(s)
        self.x += gain @ y
        self.P -= gain @ self.H @ self.P
        return np.sum(y ** 2)

    def position(self):
        return float(self.x[0])

    def state(self):
        return self.x.copy(), self.P.copy()


class ExponentialMovingAverage:
    """Running exponential average of arrays of a fixed shape."""

    def __init__(self, shape, alpha):
        self.value = np.zeros(shape)
        self.alpha = alpha
        self.count = 0

    def update(self, sample):
        self.value *= 1.0 - self.alpha
        self.value += self.alpha * sample
        self.count += 1
        return self.value.copy()

    def reset(self):
        self.value[...] = 0.0
        self.count = 0


class RunningMax:
    """Elementwise running maximum; `current` hands out the array that `observe` then keeps changing."""

    def __init__(self, n):
        self.best = np.full(n, -np.inf)

    def observe(self, sample):
        self.best[...] = np.maximum(self.best, sample)

    def current(self):
        return self.best


def normalize_rows_(m):
    """Scale each row of ``m`` to unit length, in place."""
    for i in range(m.shape[0]):
        m[i] /= np.linalg.norm(m[i])


def unit_directions(points, origin):
    d = points - origin
    normalize_rows_(d)
    return d


def _center(x):
    x -= x.mean(axis=0)


def standardize(data):
    z = data.astype(float)
    _center(z)
    z /= z.std(axis=0)
    return z


def scale_inplace(v, k):
    v *= k


def energy_after_scaling(v, k):
    """Scales the caller's array as a side effect: stays NumPy, like `scale_inplace`."""
    scale_inplace(v, k)
    return np.sum(v ** 2)
