"""Parameters of a jitted function a caller may give as a list (analysis/list_arguments.py).

NumPy converts a list wherever it takes an array: ``cross([1., 0., 0.], [0., 1., 0.])`` works.  Under
``jax.jit`` the list arrives as a list of tracers, which jax.numpy refuses, so the migrated function converts
the parameter first (``v1 = jnp.asarray(v1)``) when every use of it converts a list as ``np.asarray`` does.
Where Python gives a list another meaning (``a + b`` concatenates, ``a * 2`` repeats, ``a[0]`` is a
Python number) the parameter is left as it is, but for an index by a fori_loop's step (no list takes that) and
a constant index beside one; so it is where the original refuses a list too (``x ** 2``,
``-x``): callers pass arrays there, and the conversion would be noise.
"""

from __future__ import annotations

import re
import textwrap

import jax
import numpy as np
import pytest

from np2jax.engine import Options, migrate_source
from tests.runtime_helpers import function_record, migrate_and_exec

SOURCE = textwrap.dedent(
    '''
    import numpy as np

    def cross(v1, v2):
        """Cross product.

        :param numpy.array v1: a vector
        """
        return np.cross(v1, v2)

    def softmax(x):
        e = np.exp(x - np.max(x))
        return e / np.sum(e)

    def dist(p, q):
        return np.sqrt(np.sum((p - q) ** 2))

    def mean_of(x): return np.mean(x)

    def scaled(w, x):
        return np.dot(w, x) * 2.0 + len(x)

    def above(x):
        return np.sum(x > np.mean(x))

    def joined(a, b):
        return np.sum(a + b)

    def repeated(a):
        return np.sum(a * 2)

    def with_first(a):
        return np.sum(a) + a[0]

    def shaped(a):
        return a.shape[0] * np.sum(a)

    def typed(x: np.ndarray):
        return np.sum(x)

    def stacked(parts):
        return np.sum(np.stack(parts)) - np.max(parts)

    def same(a, b):
        return np.sum(a == b)

    def returned(a):
        return np.sum(a), a

    def squared(x):
        return np.sum(x ** 2) / np.sum(x)

    def negated(x):
        return np.exp(-x)

    def energy(x):
        e = np.zeros(len(x))
        for n in range(len(x)):
            e[n] = x[n] * x[n]
        return e

    def first_three(x):
        s = 0.0
        for k in range(3):
            s += x[k]
        return np.sum(x) - s

    def hist2(sample):  # (NumPy reads a list `(xs, ys)` as coordinates, asarray as points: hunt56 S1)
        return np.histogramdd(sample, bins=2)[0]

    def mean_of_rows(v):
        return np.sum(v) / np.shape(v)[0]

    def one_line(v): """Doc."""; return np.sum(v) - np.max(v)

    def reduce_over(func, a):
        return np.apply_over_axes(func, a, [0, 1])

    def pick(m, a, b):
        return np.where(np.abs(m) > 1.0, a, b)

    def inertia(points, centroids, labels):
        return np.sum((points - centroids[labels]) ** 2)

    def at_level(thresholds, energies, level):
        k = np.searchsorted(thresholds, level)
        return energies[k] + energies[k - 1]

    def fir(b, x):
        y = np.zeros(len(x))
        for n in range(len(x)):
            acc = 0.0
            for k in range(len(b)):
                if n - k >= 0:
                    acc += b[k] * x[n - k]
            y[n] = acc
        return y

    def element(x, idx):
        return np.sum(x) - x[idx]  # (a tuple `idx` is a multi-axis index: never converted)

    def cluster_sizes(labels, k):
        return np.bincount(labels, minlength=k)

    def alpha_beta(zs, alpha=0.85):  # (hunt58 L1: `zs[0]` beside the fori_loop's `zs[k]` reads the same elements)
        n = len(zs)
        est = np.zeros(n)
        x = zs[0]
        for k in range(n):
            x = x + alpha * (zs[k] - x)
            est[k] = x
        return est

    def closure(a):
        def inner():
            return a + [1.0]
        return np.sum(a) + np.sum(inner())
    '''
)

CONVERTED = {"cross": ["v1", "v2"], "softmax": ["x"], "dist": ["p", "q"], "mean_of": ["x"], "scaled": ["w", "x"],
             "above": ["x"], "energy": ["x"], "mean_of_rows": ["v"],
             "one_line": ["v"], "pick": ["m", "a", "b"],
             "inertia": ["points"], "at_level": ["thresholds", "energies", "level"],
             "fir": ["b", "x"], "cluster_sizes": ["labels"], "alpha_beta": ["zs"]}
LEFT = ["joined", "repeated", "with_first", "shaped", "typed", "stacked", "same", "returned", "closure", "squared", "negated", "first_three",
        "hist2", "reduce_over", "element"]


@pytest.fixture(scope="module")
def migrated():
    return migrate_and_exec(SOURCE)


def _converted(output: bytes, name: str) -> list[str]:
    body = output.decode().split(f"def {name}(", 1)[1].split("\ndef ", 1)[0]
    return re.findall(r"\b(\w+) = jnp\.asarray\(\1\)", body)


@pytest.mark.parametrize("name", sorted(CONVERTED))
def test_converted_first_and_jitted(migrated, name):
    result, _, _ = migrated
    assert function_record(result, name).jit
    assert _converted(result.output, name) == CONVERTED[name]


@pytest.mark.parametrize("name", LEFT)
def test_left_alone(migrated, name):
    result, _, _ = migrated
    assert _converted(result.output, name) == []


def test_docstring_stays_first(migrated):
    result, _, _ = migrated
    body = result.output.decode().split("def cross(v1, v2):", 1)[1]
    assert body.index('"""Cross product.') < body.index("v1 = jnp.asarray(v1)") < body.index("return jnp.cross")


CALLS = [
    ("cross", ([1.0, 0.0, 0.0], [0.0, 1.0, 0.0])),
    ("cross", ([[1.0, 0.0, 0.0], [0.0, 0.0, 1.0]], [[0.0, 1.0, 0.0], [1.0, 0.0, 0.0]])),
    ("softmax", ([1.0, 2.0, 3.0],)),
    ("dist", ([0.0, 0.0], np.array([3.0, 4.0]))),  # (two lists: `p - q` raises in NumPy too)
    ("mean_of", ([1, 2, 4],)),
    ("scaled", ([1.0, 2.0], [3.0, 4.0])),
    ("above", ([1.0, 5.0, 2.0, 8.0],)),
    ("energy", ([1.0, -2.0, 3.0, 0.5] * 5,)),  # (a fori_loop's traced index takes no list: hunt55 L1)
    ("mean_of_rows", ([[1.0, 2.0], [3.0, 4.0]],)),
    ("one_line", ([1.0, 5.0, 2.0],)),
    ("pick", ([0.5, -2.0], [1.0, 2.0], [3.0, 4.0])),  # (jnp.where refuses lists as x and y too: hunt56 FP1)
    # (chk3's list inputs on the corpus: an index by a NumPy result, by a fori_loop's `n - k`)
    ("inertia", ([[1.0, 1.0], [0.0, 2.0], [3.0, 1.0]], np.array([[0.0, 1.0], [2.0, 3.0]]), np.array([0, 1, 1]))),
    ("at_level", ([0.1, 0.5, 0.9, 1.3], [1.0, 2.0, 4.0, 8.0], 0.7)),
    ("fir", ([0.5, 0.25, 0.25], [1.0, 0.0, 2.0, -1.0] * 3)),
    ("cluster_sizes", ([0, 1, 1, 3], 4)),  # (np.bincount's twin jnp.bincount refuses a list too: hunt55 L2)
    ("alpha_beta", ([1.0, 2.0, 3.0, 2.5] * 4,)),
]


@pytest.mark.parametrize("name,args", CALLS, ids=[c[0] for c in CALLS])
def test_lists_work_as_in_numpy(migrated, name, args):
    _, original, new = migrated
    want = original[name](*args)
    got = new[name](*args)
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-6)
    # and arrays, and a Python number where one makes sense, pass through unchanged
    arrays = tuple(np.asarray(a) if isinstance(a, list) else a for a in args)
    np.testing.assert_allclose(np.asarray(new[name](*arrays)), np.asarray(original[name](*arrays)), rtol=1e-6)


def test_docstrings_stay_docstrings_on_one_line(migrated):
    """hunt56 DOC1: `def f(v): "doc"; return ...` keeps its docstring first."""
    result, _, new = migrated
    assert 'def one_line(v): """Doc."""; v = jnp.asarray(v); return' in result.output.decode()
    assert new["one_line"].__doc__ == "Doc."


def test_unconverted_would_refuse_lists():
    """Without the conversion jax.numpy refuses the list: the test above would fail."""
    with pytest.raises(TypeError, match="requires ndarray or scalar"):
        jax.jit(lambda v1, v2: jax.numpy.cross(v1, v2))([1.0, 0.0, 0.0], [0.0, 1.0, 0.0])


def test_left_alone_never_reads_a_list_as_an_array(migrated):
    """``a + b`` of two lists concatenates them, ``a * 2`` repeats one: converted first, they would add and
    double instead (``joined`` would give 7.0, silently); left alone, the migrated call refuses the list (loud)."""
    _, original, new = migrated
    assert original["joined"]([1.0], [2.0, 3.0]) == 6.0
    assert original["repeated"]([1, 2]) == 6
    with pytest.raises(TypeError):
        new["joined"]([1.0], [2.0, 3.0])
    with pytest.raises(TypeError):
        new["repeated"]([1, 2])


def test_python_number_stays_weak(migrated):
    """``x = jnp.asarray(x)`` keeps a Python float weakly typed: float32 data stays float32."""
    _, _, new = migrated
    got = new["dist"](np.float32(1.0), np.zeros(3, np.float32))
    assert got.dtype == np.float32
    assert new["dist"](2.0, np.zeros(3, np.float32)).dtype == np.float32


def test_second_run_changes_nothing(migrated):
    result, _, _ = migrated
    again = migrate_source(result.output, "m.py", Options(jit=True))
    assert again.output == result.output


def test_not_jitted_gets_no_conversion():
    source = textwrap.dedent(
        """
        import numpy as np

        def total(x):
            print(x)
            return np.sum(x)
        """
    )
    result = migrate_source(source.encode(), "m.py", Options(jit=False))
    assert "jnp.asarray(x)" not in result.output.decode()
