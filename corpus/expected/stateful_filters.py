"""Stateful filters and in-place helpers: objects that update their arrays, functions that update their arguments."""

import numpy as np
import jax
import jax.numpy as jnp


class KalmanFilter:
    """Constant-velocity Kalman filter in one dimension; predict and update work on the state in place."""

    def __init__(self, dt, q, r):
        self.x = jnp.zeros(2)
        self.P = jnp.eye(2) * 10.0
        self.F = jnp.array([[1.0, dt], [0.0, 1.0]], dtype=jnp.result_type(jnp.float64, dt))
        self.Q = q * jnp.eye(2)
        self.H = jnp.array([[1.0, 0.0]])
        self.R = jnp.array([[r]])
        self.steps = 0

    def predict(self):
        self.x = self.x.at[:].set(self.F @ self.x)
        self.P = self.P.at[:].set(self.F @ self.P @ self.F.T)
        self.P = self.P + self.Q
        self.steps += 1

    def update(self, z):
        """Fold in measurement ``z``; returns the squared innovation."""
        y = z - self.H @ self.x
        s = self.H @ self.P @ self.H.T + self.R
        gain = self.P @ self.H.T @ jnp.linalg.inv(s)
        self.x = self.x + (gain @ y)
        self.P = self.P - (gain @ self.H @ self.P)
        return jnp.sum(y ** 2)

    def position(self):
        return float(self.x[0])

    def state(self):
        return self.x.copy(), self.P.copy()


class ExponentialMovingAverage:
    """Running exponential average of arrays of a fixed shape."""

    def __init__(self, shape, alpha):
        self.value = jnp.zeros(shape)
        self.alpha = alpha
        self.count = 0

    def update(self, sample):
        self.value = self.value * (1.0 - self.alpha)
        self.value = self.value + (self.alpha * sample)
        self.count += 1
        return self.value.copy()

    def reset(self):
        self.value = self.value.at[...].set(0.0)
        self.count = 0


class RunningMax:
    """Elementwise running maximum; `current` hands out the array that `observe` then keeps changing."""

    def __init__(self, n):
        self.best = np.full(n, -np.inf)

    def observe(self, sample):
        self.best[...] = np.maximum(self.best, sample)

    def current(self):
        return self.best


@jax.jit
def normalize_rows_(m):
    """Scale each row of ``m`` to unit length, in place."""
    if 0 < m.shape[0]:
        i = 0
        m = m.at[i].divide(jnp.linalg.norm(m[i]))
        def _loop_body(i, m):
            m = m.at[i].divide(jnp.linalg.norm(m[i]))
            return m
        m = jax.lax.fori_loop(1, m.shape[0], _loop_body, m)
    return m


@jax.jit
def unit_directions(points, origin):
    points = jnp.asarray(points)
    origin = jnp.asarray(origin)
    d = points - origin
    d = normalize_rows_(d)
    return d


@jax.jit
def _center(x):
    x = x - x.mean(axis=0)
    return x


@jax.jit
def standardize(data):
    z = data.astype(float)
    z = _center(z)
    z /= z.std(axis=0)
    return z


def scale_inplace(v, k):
    v *= k


def energy_after_scaling(v, k):
    """Scales the caller's array as a side effect: stays NumPy, like `scale_inplace`."""
    scale_inplace(v, k)
    return np.sum(v ** 2)
