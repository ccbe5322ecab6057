"""Rigid-body kinematics: rotations, a vector class, and an integrator with a Butcher tableau.

Hazards: a class deriving from np.ndarray (stays NumPy), reads through `.flat`, a chained
assignment into a matrix, module-level constants built at import, np.testing inside a library
function, masked arrays.
"""

import math

import numpy as np
import functools
import jax
import jax.numpy as jnp

# Classic RK4 tableau, built at import and never written afterwards: a constant for jitted code.
RK4_A = np.zeros((4, 4))
RK4_A[1, 0] = 0.5
RK4_A[2, 1] = 0.5
RK4_A[3, 2] = 1.0
RK4_B = np.array([1.0, 2.0, 2.0, 1.0]) / 6.0
RK4_C = RK4_A.sum(axis=1).copy()


class Vec3(np.ndarray):
    """A 3-vector with named components (an ndarray subclass: stays NumPy)."""

    def __new__(cls, value=(0.0, 0.0, 0.0)):
        return np.array(value, dtype=float).view(cls)

    @property
    def x(self):
        return self[0]

    def norm(self):
        return np.sqrt(np.sum(self * self))


@functools.partial(jax.jit, static_argnums=(0,))
def rot_z(theta):
    c, s = math.cos(theta), math.sin(theta)
    R = jnp.eye(3)
    R = R.at[0, 0].set(c)
    R = R.at[1, 1].set(c)
    R = R.at[0, 1].set(-s)
    R = R.at[1, 0].set(s)
    return R


@jax.jit
def euler_zyx(R):
    r11, r12, r13, r21, r22, r23, r31, r32, r33 = jnp.asarray(R).ravel()
    yaw = jnp.arctan2(r21, r11)
    pitch = jnp.arcsin(-jnp.clip(r31, -1.0, 1.0))
    roll = jnp.arctan2(r32, r33)
    return jnp.array([yaw, pitch, roll])


def trace_of(R):
    total = 0.0
    for k, v in enumerate(np.asarray(R).ravel()):
        if k % 4 == 0:
            total += v
    return total


@functools.partial(jax.jit, static_argnums=(0,))
def rk4_step(f, t, y, h):
    k = jnp.zeros((4,) + y.shape)
    for i in range(4):
        yi = y + h * (RK4_A[i, :i] @ k[:i].reshape(i, -1)).reshape(y.shape) if i else y
        k = k.at[i].set(f(t + RK4_C[i] * h, yi))
    return y + h * jnp.tensordot(RK4_B, k, axes=1)


@jax.jit
def spin(t, y):
    return jnp.array([-y[1], y[0], 0.0], dtype=jnp.result_type(jnp.float64, y[1], y[0]))


@functools.partial(jax.jit, static_argnums=(0,))
def rotate_and_step(theta, y, h=0.1):
    y = jnp.asarray(y)
    return rk4_step(spin, 0.0, rot_z(theta) @ y, h)


def checked_unit(v):
    n = np.linalg.norm(v)
    np.testing.assert_array_less(1e-12, n)
    return v / n


def robust_mean(x, limit):
    m = np.ma.masked_greater(np.abs(x), limit)
    return np.ma.mean(m, axis=0).filled(0.0)
