"""`np2jax check` probing: shapes and kinds of arguments that the names and total-rank order did not find.

Each function here was `skipped` (no generated input accepted by the original) before: real35 C2-C5, hunt52 C2.
The real checker runs on one module against a right migration (all equivalent) and a wrong one (each mismatches),
so a function that is skipped again fails the test.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.check_helpers import check_records

ROOT = Path(__file__).resolve().parent.parent

ORIGINAL = '''\
import numpy as np


def check_mrp(mrp):
    """Input validation of modified Rodrigues parameters.

    Parameters
    ----------
    mrp : array-like, shape (3,)
        Modified Rodrigues parameters.

    Returns
    -------
    mrp : array, shape (3,)
    """
    mrp = np.asarray(mrp)
    if mrp.ndim != 1 or mrp.shape[0] != 3:
        raise ValueError("Expected shape (3,), got %s" % (mrp.shape,))
    return mrp * 2.0


def transform(A2B, points):
    """Apply a transformation to points.

    Parameters
    ----------
    A2B : array-like, shape=(4, 4)
        Transformation.
    points : array, shape (n, 3)
        Points.
    """
    if A2B.shape != (4, 4) or points.ndim != 2 or points.shape[1] != 3:
        raise ValueError("wrong shapes")
    return points @ A2B[:3, :3].T + A2B[:3, 3]


def accumulation_max(*args):
    return np.fmax(*args)


def from_axis_rotation(axis, theta):
    s = np.sin(theta * 0.5)
    return np.array([s * axis[0], s * axis[1], s * axis[2], np.cos(theta * 0.5)], dtype=axis.dtype)


def look_at(eye, target, up):
    forward = target - eye
    side = np.cross(forward, up)
    return np.array([side[0], side[1], side[2], np.dot(side, eye)])


def nearest_resize(img, new_h, new_w):
    h, w = img.shape
    ys = np.arange(new_h) * h // new_h
    xs = np.arange(new_w) * w // new_w
    return img[ys][:, xs]


def maxpool_forward(x, size=2):
    n, c, h, w = x.shape
    oh, ow = h // size, w // size
    xr = x[:, :, :oh * size, :ow * size].reshape(n, c, oh, size, ow, size)
    return xr.max(axis=(3, 5))


def pcm16_to_float(x):
    if x.dtype != np.int16:
        raise TypeError("expected int16 PCM")
    return x.astype(np.float32) / 32768.0


def rasterize(pts, h, w):
    img = np.zeros((h, w), dtype=np.uint8)
    ij = np.floor(pts).astype(np.int64) % np.array([h, w])
    img[ij[:, 0], ij[:, 1]] = 1
    return img


def forward(params, X):
    return np.tanh(X @ params["W"] + params["b"])


def velocity_verlet(x0, v0, k, m, dt, steps):
    x = np.zeros(steps + 1)
    v = np.zeros(steps + 1)
    x[0], v[0] = x0, v0
    a = -k / m * x0
    for i in range(steps):
        x[i + 1] = x[i] + v[i] * dt + 0.5 * a * dt ** 2
        a_new = -k / m * x[i + 1]
        v[i + 1] = v[i] + 0.5 * (a + a_new) * dt
        a = a_new
    return x, v
'''

MIGRATED = '''\
import jax.numpy as jnp


def check_mrp(mrp):
    mrp = jnp.asarray(mrp)
    if mrp.ndim != 1 or mrp.shape[0] != 3:
        raise ValueError("Expected shape (3,), got %s" % (mrp.shape,))
    return mrp * 2.0


def transform(A2B, points):
    if A2B.shape != (4, 4) or points.ndim != 2 or points.shape[1] != 3:
        raise ValueError("wrong shapes")
    return points @ A2B[:3, :3].T + A2B[:3, 3]


def accumulation_max(*args):
    return jnp.fmax(*args)


def from_axis_rotation(axis, theta):
    s = jnp.sin(theta * 0.5)
    return jnp.array([s * axis[0], s * axis[1], s * axis[2], jnp.cos(theta * 0.5)], dtype=axis.dtype)


def look_at(eye, target, up):
    forward = target - eye
    side = jnp.cross(forward, up)
    return jnp.array([side[0], side[1], side[2], jnp.dot(side, eye)])


def nearest_resize(img, new_h, new_w):
    h, w = img.shape
    ys = jnp.arange(new_h) * h // new_h
    xs = jnp.arange(new_w) * w // new_w
    return img[ys][:, xs]


def maxpool_forward(x, size=2):
    n, c, h, w = x.shape
    oh, ow = h // size, w // size
    xr = x[:, :, :oh * size, :ow * size].reshape(n, c, oh, size, ow, size)
    return xr.max(axis=(3, 5))


def pcm16_to_float(x):
    if x.dtype != jnp.int16:
        raise TypeError("expected int16 PCM")
    return x.astype(jnp.float32) / 32768.0


def rasterize(pts, h, w):
    img = jnp.zeros((h, w), dtype=jnp.uint8)
    ij = jnp.floor(pts).astype(jnp.int64) % jnp.array([h, w])
    img = img.at[ij[:, 0], ij[:, 1]].set(1)
    return img


def forward(params, X):
    return jnp.tanh(X @ params["W"] + params["b"])


def velocity_verlet(x0, v0, k, m, dt, steps):
    x = jnp.zeros(steps + 1)
    v = jnp.zeros(steps + 1)
    x = x.at[0].set(x0)
    v = v.at[0].set(v0)
    a = -k / m * x0
    for i in range(steps):
        x = x.at[i + 1].set(x[i] + v[i] * dt + 0.5 * a * dt ** 2)
        a_new = -k / m * x[i + 1]
        v = v.at[i + 1].set(v[i] + 0.5 * (a + a_new) * dt)
        a = a_new
    return x, v
'''

# One wrong detail per function (each a plausible migration slip).
WRONG = (MIGRATED
         .replace("return mrp * 2.0", "return mrp * 2.0 + mrp[0] * 1e-2")
         .replace("+ A2B[:3, 3]", "+ A2B[3, :3]")
         .replace("jnp.fmax(*args)", "jnp.fmax(*args) * 1.01")
         .replace("s * axis[2], jnp.cos", "s * axis[1], jnp.cos")
         .replace("side[2], jnp.dot", "side[0], jnp.dot")
         .replace("img[ys][:, xs]", "img[ys][:, xs[::-1]]")
         .replace("0.5 * a * dt ** 2", "0.45 * a * dt ** 2")
         .replace('params["W"] + params["b"]', 'params["W"] - params["b"]')
         .replace("xr.max(axis=(3, 5))", "xr.max(axis=(3, 5)) + xr.min(axis=(3, 5)) * 1e-3")
         .replace("/ 32768.0", "/ 32767.0")
         .replace(".set(1)", ".set(2)"))

FUNCTIONS = ("check_mrp", "transform", "accumulation_max", "from_axis_rotation", "look_at", "nearest_resize",
             "velocity_verlet", "forward", "maxpool_forward", "pcm16_to_float", "rasterize")


def _check(tmp: Path, migrated: str) -> dict[str, dict]:
    return check_records(tmp, "shapes.py", ORIGINAL, migrated)


@pytest.fixture(scope="module")
def right(tmp_path_factory):
    return _check(tmp_path_factory.mktemp("right"), MIGRATED)


@pytest.fixture(scope="module")
def wrong(tmp_path_factory):
    return _check(tmp_path_factory.mktemp("wrong"), WRONG)


@pytest.mark.parametrize("name", FUNCTIONS)
def test_a_function_skipped_before_is_checked(right, name):
    """real35 C2-C5, hunt52 C2: a stated shape (`mrp : array-like, shape (3,)`, `shape=(4, 4)`, `shape (n, 3)`),
    a `*args` (`np.fmax(*args)`), an `axis` the code indexes, vectors that reach `np.cross`, an image with integer
    sizes, scalar initial conditions stored into an array with an int step count, a dict of parameters read by
    key (`params["W"]`, hunt51 C2), a 4-D array the code unpacks (`n, c, h, w = x.shape`), an int16 array the code
    tests for (`x.dtype != np.int16`), sizes in a shape tuple (`np.zeros((h, w))`; hunt54 C1): all were `skipped`."""
    record = right[name]
    assert record["status"] == "equivalent" and record["inputs_tried"] >= 1, record


@pytest.mark.parametrize("name", FUNCTIONS)
def test_a_wrong_migration_of_it_is_found(wrong, name):
    record = wrong[name]
    assert record["status"] == "mismatch", record


def test_docstring_shapes_are_read_from_the_parameters_section():
    from np2jax.check.source_hints import doc_shapes

    doc = """Summary.

    Parameters
    ----------
    x : array-like, shape (3,)
        Text.
    A, B : array, shape (4, 4)
    pts : array-like, shape (n, 3)
    q : array, shape=(3,)
    X : array-like of shape (n_samples, n_features)
    y : array, shape (3,) or (n, 3)
    w : float
    z : array, shape (..., 4, 4)
    bad : array, shape (2*n,)

    Returns
    -------
    out : array, shape (7,)
    """
    import inspect

    assert doc_shapes(inspect.cleandoc(doc)) == {
        "x": [(3,)], "A": [(4, 4)], "B": [(4, 4)], "pts": [("n", 3)], "q": [(3,)],
        "X": [("n_samples", "n_features")], "y": [(3,), ("n", 3)], "z": [(4, 4)]}


def test_body_uses_win_over_the_name_and_star_args_get_arrays():
    """`axis` indexed gets an array first; a name given to `range` an int first; one stored into one element a
    number first; `*args` none, then 2 or 3 arrays; a parameter reaching `np.cross` vectors of 3 first."""
    from np2jax.check.inputs import parameters

    namespace: dict = {}
    exec(compile(ORIGINAL, str(ROOT / "tests" / "_shapes_module.py"), "exec"), namespace)
    # (inspect reads the source from linecache: register it)
    import linecache

    linecache.cache[str(ROOT / "tests" / "_shapes_module.py")] = (len(ORIGINAL), None, ORIGINAL.splitlines(True),
                                                                   str(ROOT / "tests" / "_shapes_module.py"))
    first = {p.name: p.kinds[0] for f in ("from_axis_rotation", "velocity_verlet", "accumulation_max", "look_at")
             for p in parameters(namespace[f])}
    assert first["axis"][0] == "array" and first["x0"][0] == "float" and first["steps"][0] == "int"
    assert first["args"] == ("default",)
    assert [k for k in parameters(namespace["accumulation_max"])[0].kinds] == [("default",), ("arrays", 2), ("arrays", 3)]
    assert first["up"][:2] == ("shape", (3,)) and first["eye"][:2] == ("shape", (3,))
