"""`np2jax check` without EXAMPLES: methods on a non-zero state, shapes stated in other docstring forms, callables.

mut1 C1: methods were only run on freshly built objects, whose arrays were all zeros (`np.zeros`, a default of
`(0.0, 0.0, 0.0)`): `x[:] = F @ x` migrated as `.at[:].add(...)`, a reset adding 0 instead of setting 0, and `sum`
for `mean` in a vector class's norm all passed. Float array attributes the constructor leaves constant are now also
given random values before the method runs, and a tuple default of numbers gets other values too.
real38 C1: `v : 3 element sequence` (transforms3d's numpydoc) was not read as a shape, so `rotate_vector` was skipped.
real37 C1: Google-style `Args:` sections (`points (np.arraylike): A `kx3` stack`) were not read for shapes.
hunt57 C1: a parameter the function calls (`f(x)`) got no function, so such functions were skipped.

Each case: a right migration is reported equivalent, a wrong one a mismatch (or error).
"""

from __future__ import annotations

import inspect

import pytest

from tests.check_helpers import check_records

ORIGINAL = '''\
import numpy as np


class Filter:
    def __init__(self, dt, q):
        self.x = np.zeros(2)
        self.P = np.eye(2) * 10.0
        self.F = np.array([[1.0, dt], [0.0, 1.0]])
        self.Q = q * np.eye(2)

    def predict(self):
        self.x[:] = self.F @ self.x
        self.P[:] = self.F @ self.P @ self.F.T
        self.P += self.Q


class Average:
    def __init__(self, shape, alpha):
        self.value = np.zeros(shape)
        self.alpha = alpha

    def update(self, sample):
        self.value *= 1.0 - self.alpha
        self.value += self.alpha * sample
        return self.value.copy()

    def reset(self):
        self.value[...] = 0.0


class Vec3(np.ndarray):
    def __new__(cls, value=(0.0, 0.0, 0.0)):
        return np.array(value, dtype=float).view(cls)

    def norm(self):
        return np.sqrt(np.sum(self * self))


def rotate_vector(v, q):
    """Rotate vector `v` by quaternion `q`

    Parameters
    ----------
    v : 3 element sequence
        3 dimensional vector
    q : 4 element sequence
        w, i, j, k of quaternion
    """
    varr = np.zeros((4,))
    varr[1:] = v
    w, x, y, z = q
    qc = np.array([w, -x, -y, -z])
    return (varr * qc)[1:]


def within(points, radius, of_point, atol=1e-08):
    """Points within a radius of a point.

    Args:
        points (np.ndarray): A `kx3` stack of points in R^3.
        radius (float): The radius of the sphere of interest.
        of_point (np.ndarray): The `(3,)` point of interest.
        atol (float): The distance tolerance.
    """
    if points.ndim != 2 or points.shape[1] != 3:
        raise ValueError("expects nx3")
    if not isinstance(radius, float):
        raise ValueError("radius should be a float")
    if of_point.shape != (3,):
        raise ValueError("to_point should be (3,)")
    d = np.linalg.norm(points - of_point, axis=1)
    return np.where(d < radius + atol, d, 0.0)


def fd_slope(f, x, eps=1e-2):
    g = np.zeros(x.size)
    for j in range(x.size):
        xp = x.copy()
        xp[j] += eps
        g[j] = (f(xp) - f(x)) / eps
    return g


def apply_twice(f, x):
    return f(x) + f(2.0 * x)
'''

MIGRATED = '''\
import functools

import jax
import jax.numpy as jnp
import numpy as np


class Filter:
    def __init__(self, dt, q):
        self.x = jnp.zeros(2)
        self.P = jnp.eye(2) * 10.0
        self.F = jnp.array([[1.0, dt], [0.0, 1.0]])
        self.Q = q * jnp.eye(2)

    def predict(self):
        self.x = self.x.at[:].set(self.F @ self.x)
        self.P = self.P.at[:].set(self.F @ self.P @ self.F.T)
        self.P = self.P + self.Q


class Average:
    def __init__(self, shape, alpha):
        self.value = jnp.zeros(shape)
        self.alpha = alpha

    def update(self, sample):
        self.value = self.value * (1.0 - self.alpha)
        self.value = self.value + self.alpha * sample
        return self.value.copy()

    def reset(self):
        self.value = self.value.at[...].set(0.0)


class Vec3(np.ndarray):
    def __new__(cls, value=(0.0, 0.0, 0.0)):
        return np.array(value, dtype=float).view(cls)

    def norm(self):
        return np.sqrt(np.sum(self * self))


@jax.jit
def rotate_vector(v, q):
    """Rotate vector `v` by quaternion `q`

    Parameters
    ----------
    v : 3 element sequence
        3 dimensional vector
    q : 4 element sequence
        w, i, j, k of quaternion
    """
    varr = jnp.zeros((4,))
    varr = varr.at[1:].set(v)
    w, x, y, z = q
    qc = jnp.array([w, -x, -y, -z])
    return (varr * qc)[1:]


def within(points, radius, of_point, atol=1e-08):
    """Points within a radius of a point.

    Args:
        points (np.ndarray): A `kx3` stack of points in R^3.
        radius (float): The radius of the sphere of interest.
        of_point (np.ndarray): The `(3,)` point of interest.
        atol (float): The distance tolerance.
    """
    if points.ndim != 2 or points.shape[1] != 3:
        raise ValueError("expects nx3")
    if not isinstance(radius, float):
        raise ValueError("radius should be a float")
    if of_point.shape != (3,):
        raise ValueError("to_point should be (3,)")
    d = jnp.linalg.norm(points - of_point, axis=1)
    return jnp.where(d < radius + atol, d, 0.0)


@functools.partial(jax.jit, static_argnums=(0,))
def fd_slope(f, x, eps=1e-2):
    g = jnp.zeros(x.size)
    for j in range(x.size):
        xp = x.at[j].add(eps)
        g = g.at[j].set((f(xp) - f(x)) / eps)
    return g


@functools.partial(jax.jit, static_argnums=(0,))
def apply_twice(f, x):
    return f(x) + f(2.0 * x)
'''

# each wrong migration: (the right line, the wrong one)
WRONG = {
    "Filter.predict": ("self.x = self.x.at[:].set(self.F @ self.x)", "self.x = self.x.at[:].add(self.F @ self.x)"),
    "Average.reset": ("self.value = self.value.at[...].set(0.0)", "self.value = self.value.at[...].add(0.0)"),
    "Vec3.norm": ("return np.sqrt(np.sum(self * self))", "return np.sqrt(np.mean(self * self))"),
    "rotate_vector": ("qc = jnp.array([w, -x, -y, -z])", "qc = jnp.array([w, x, -y, -z])"),
    "within": ("jnp.where(d < radius + atol, d, 0.0)", "jnp.where(d < radius + atol, d, 1.0)"),
    "fd_slope": ("g = g.at[j].set((f(xp) - f(x)) / eps)", "g = g.at[j].set((f(xp) - f(x)) / (2 * eps))"),
    "apply_twice": ("return f(x) + f(2.0 * x)", "return f(x) + f(x)"),
}
FUNCTIONS = list(WRONG)


@pytest.fixture(scope="module")
def right(tmp_path_factory):
    return check_records(tmp_path_factory.mktemp("right"), "things.py", ORIGINAL, MIGRATED)


@pytest.fixture(scope="module")
def wrong(tmp_path_factory):
    migrated = MIGRATED
    for good, bad in WRONG.values():
        assert migrated.count(good) == 1, good
        migrated = migrated.replace(good, bad)
    return check_records(tmp_path_factory.mktemp("wrong"), "things.py", ORIGINAL, migrated)


@pytest.mark.parametrize("name", FUNCTIONS + ["Average.update"])
def test_a_right_migration_is_equivalent(right, name):
    record = right[name]
    assert record["status"] == "equivalent" and record["inputs_tried"] >= 1, record


@pytest.mark.parametrize("name", FUNCTIONS)
def test_a_wrong_migration_is_found(wrong, name):
    record = wrong[name]
    assert record["status"] in ("mismatch", "error"), record


def test_other_docstring_shape_forms_are_read():
    from np2jax.check.source_hints import doc_shapes

    numpydoc = """Summary.

    Parameters
    ----------
    v : 3 element sequence
    q : 4-element array
    M : (N, M) array
    A : array shape (4, 4)
    B : 4x4 array
    w : float
    """
    google = """Summary.

    Args:
        points (np.arraylike): A `kx3` stack of points.
        radius (float): The radius.
        of_point (np.arraylike): The `(3,)` point.
        x: array of shape (N, 2)
        y (np.ndarray): values, given as
            an array of shape (n, 3)

    Returns:
        out (array): shape (7,)
    """
    assert doc_shapes(inspect.cleandoc(numpydoc)) == {"v": [(3,)], "q": [(4,)], "M": [("N", "M")], "A": [(4, 4)],
                                                      "B": [(4, 4)]}
    assert doc_shapes(inspect.cleandoc(google)) == {"points": [("k", 3)], "of_point": [(3,)], "x": [("N", 2)],
                                                    "y": [("n", 3)]}
