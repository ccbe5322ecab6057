"""Rigid-body kinematics: rotations, a vector class, and an integrator with a Butcher tableau.

Hazards: a class deriving from np.ndarray (stays NumPy), reads through `.flat`, a chained
assignment into a matrix, module-level constants built at import, np.testing inside a library
function, masked arrays.
"""

import math

import numpy as np

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


def rot_z(theta):
    c, s = math.cos(theta), math.sin(theta)
    R = np.eye(3)
    R[0, 0] = R[1, 1] = c
    R[0, 1] = -s
    R[1, 0] = s
    return R


def euler_zyx(R):
    r11, r12, r13, r21, r22, r23, r31, r32, r33 = np.asarray(R).flat
    yaw = np.arctan2(r21, r11)
    pitch = np.arcsin(-np.clip(r31, -1.0, 1.0))
    roll = np.arctan2(r32, r33)
    return np.array([yaw, pitch, roll])


def trace_of(R):
    total = 0.0
    for k, v in enumerate(np.asarray(R).flat):
        if k % 4 == 0:
            total += v
    return total


def rk4_step(f, t, y, h):
    k = np.zeros((4,) + y.shape)
    for i in range(4):
        yi = y + h * (RK4_A[i, :i] @ k[:i].reshape(i, -1)).reshape(y.shape) if i else y
        k[i] = f(t + RK4_C[i] * h, yi)
    return y + h * np.tensordot(RK4_B, k, axes=1)


def spin(t, y):
    return np.array([-y[1], y[0], 0.0])


def rotate_and_step(theta, y, h=0.1):
    return rk4_step(spin, 0.0, rot_z(theta) @ y, h)


def checked_unit(v):
    n = np.linalg.norm(v)
    np.testing.assert_array_less(1e-12, n)
    return v / n


def robust_mean(x, limit):
    m = np.ma.masked_greater(np.abs(x), limit)
    return np.ma.mean(m, axis=0).filled(0.0)
