"""List and tuple displays beside arrays in arithmetic and comparisons (analysis/list_operands.py).

NumPy converts ``[cx, cy]`` in ``x - [cx, cy]`` and broadcasts; a jax.Array raises TypeError on a list
operand, so the display is wrapped in ``jnp.asarray``.  Where Python repeats, concatenates or compares
lists the display stays as it is.
"""

from __future__ import annotations

import textwrap

import numpy as np
import pytest

from np2jax.engine import Options, migrate_source
from tests.runtime_helpers import (
    assert_matches_numpy,
    function_record,
    migrate_and_exec,
)

SOURCE = textwrap.dedent(
    '''
    import numpy as np

    def centred(x, cx, cy):
        y = np.sin(x)
        return y - [cx, cy]

    def inside(p):
        q = np.abs(p)
        return np.all(q < (1.0, 2.0), axis=-1)

    def to_cells(points, nx, ny):
        ij = (points * [nx, ny]).astype(np.int64)
        return ij.sum(axis=0)

    def to_pixels(points, w, h):
        """points : ndarray of shape (n, 2)"""
        return np.floor(points * [w, h]).astype(int)

    def shifted(points):
        p = np.array(points, dtype=float)
        p += [0.5, -0.5]
        return p * [2.0, 3.0] + (1.0, 0.5)

    def padded(n):
        return np.array([0.0] * n)

    def repeated(mask):
        k = np.sum(mask)
        return np.array([1.0, 2.0] * 1) * k, [7] * int(k)

    def joined(values, extra):
        return np.asarray(values + [extra])
    '''
)

WRAPPED = ["centred", "inside", "to_cells", "to_pixels", "shifted"]


@pytest.fixture(scope="module")
def migrated():
    return migrate_and_exec(SOURCE, "lists.py")


def test_displays_beside_arrays_are_wrapped_and_jitted(migrated):
    result, _, _ = migrated
    text = result.output.decode()
    assert "y - jnp.asarray([cx, cy])" in text
    assert "q < jnp.asarray((1.0, 2.0))" in text
    assert "(points * jnp.asarray([nx, ny])).astype(np.int64)" in text
    assert "p += jnp.asarray([0.5, -0.5])" in text
    for name in WRAPPED:
        record = function_record(result, name)
        assert record.jit and record.static_argnums == (), name


def test_python_sequence_operations_are_left_alone(migrated):
    result, _, _ = migrated
    text = result.output.decode()
    assert "[0.0] * n" in text and "[1.0, 2.0] * 1" in text and "[7] * int(k)" in text
    assert "values + [extra]" in text
    assert function_record(result, "padded").static_argnums == (0,)


@pytest.mark.parametrize("name, args", [
    ("centred", (np.array([0.3, 1.2]), 0.5, -1.0)),
    ("inside", (np.array([[0.5, 1.5], [1.5, 0.5], [-0.2, -2.5]]),)),
    ("to_cells", (np.array([[0.1, 0.5], [0.9, 0.25]]), 4, 8)),
    ("to_pixels", (np.array([[0.1, 0.5], [0.9, 0.25]]), 640, 480)),
    ("shifted", (np.array([[1.0, 2.0], [3.0, 4.0]]),)),
    ("padded", (3,)),
    ("joined", ([1.0, 2.0], 3.0)),
])
def test_migrated_functions_compute_what_numpy_did(migrated, name, args):
    _, original, new = migrated
    assert_matches_numpy(original, new, name, args)


def test_integer_numpy_scalar_repeats_the_list(migrated):
    """``np.sum(mask) * [..]`` style products with a NumPy integer scalar are list repetitions: not wrapped."""
    _, original, new = migrated
    mask = np.array([True, False, True])
    expected = original["repeated"](mask)
    got = new["repeated"](mask)
    assert got[1] == expected[1] == [7, 7]
    np.testing.assert_allclose(np.asarray(got[0]), expected[0])


def test_a_parameter_rebound_to_an_array_first_thing_takes_wrapped_lists():
    """`x = np.asarray(x, dtype=float)` as the opening line: `x - [cx, cy]` raised TypeError under jit; a NumPy
    function that computes shapes (`np.broadcast_shapes(...) == (2, 2)`) gives a tuple, which is not wrapped;
    `p *= [2, 3]` on a parameter mutates the caller's array (NPJ201)."""
    source = textwrap.dedent(
        """
        import numpy as np

        def centre(x, cx, cy):
            x = np.asarray(x, dtype=float)
            return x - [cx, cy]

        def same_shape(a, b):
            s = np.broadcast_shapes(a.shape, b.shape)
            return a * (s == (2, 2))

        def scale(p):
            p = np.asarray(p, dtype=float)
            p *= [2, 3]
            return p
        """
    )
    result, original, new = migrate_and_exec(source)
    text = result.output.decode()
    assert "x - jnp.asarray([cx, cy])" in text and "s == (2, 2)" in text
    assert function_record(result, "scale").status == "unsupported"
    x = np.array([[0.1, 0.2], [0.3, 0.4]])
    assert_matches_numpy(original, new, "centre", (x, 1.0, 2.0))
    assert_matches_numpy(original, new, "same_shape", (x, x))


def test_starred_targets_and_split_results_are_lists_for_jax_numpy():
    """hunt14 L3: `first, *rest = M` makes `rest` a list, and `np.split`/`np.array_split` return lists of arrays:
    NumPy converts them, jax.numpy raised "sum requires ndarray or scalar arguments"."""
    source = textwrap.dedent(
        """
        import numpy as np

        def rest_sum(M):
            first, *rest = M
            return first + np.sum(rest, axis=0)

        def split_mean(x):
            return np.mean(np.split(x, 2), axis=1)

        def split_max(x):
            parts = np.array_split(x, 3)
            return np.max(parts, axis=1)
        """
    )
    result, original, new = migrate_and_exec(source)
    output = result.output.decode()
    assert "jnp.sum(jnp.asarray(rest), axis=0)" in output
    assert "jnp.mean(jnp.asarray(jnp.split(x, 2)), axis=1)" in output and "jnp.max(jnp.asarray(parts), axis=1)" in output
    assert_matches_numpy(original, new, "rest_sum", (np.arange(6.0).reshape(3, 2),))
    for name in ("split_mean", "split_max"):
        assert function_record(result, name).jit
        assert_matches_numpy(original, new, name, (np.array([4.0, 1.0, 3.0, 9.0, 2.0, 5.0]),))


@pytest.mark.parametrize("source", [
    "import numpy as np\n\ndef norm(p):\n    return lambda a, b: np.linalg.norm(np.atleast_1d(a) - np.atleast_1d(b), p)\n",
    "import numpy as np\n\ng = lambda b: np.atleast_1d(b)\n",
    "import numpy as np\n\ndef f(xs):\n    return sorted(xs, key=lambda b: np.atleast_1d(b)[0])\n",
])
def test_a_lambda_normalising_its_parameter_migrates(source):
    """real14 C1 (fastdtw): `lambda a, b: ... np.atleast_1d(a) ...` crashed the migrator ("'Call' object has no
    attribute 'body'": a lambda has no statements) and the whole file was left as it was.  Its parameter may be
    a list, like a function's: it is wrapped."""
    result, original, new = migrate_and_exec(source)
    assert result.error is None and "jnp.atleast_1d(jnp.asarray(" in result.output.decode()
    if "def norm" in source:
        distance = new["norm"](2)
        assert float(distance([0.0, 3.0], [4.0, 0.0])) == original["norm"](2)([0.0, 3.0], [4.0, 0.0]) == 5.0


def test_a_range_index_becomes_an_int_array():
    """real14 L1 (pymannkendall's pre-whitening): `x[range(1, n)]` indexes with an int array in NumPy and raised
    TypeError on a JAX array.  `jnp.asarray(range(...), dtype=int)` keeps an empty range an int index."""
    source = textwrap.dedent(
        """
        import numpy as np

        def lagdiff(x):
            x = np.asarray(x, dtype=float)
            n = len(x)
            return x[range(1, n)] - x[range(0, n - 1)]

        def tail(x, k):
            idx = range(k, len(x))
            return np.asarray(x)[idx] * 2.0
        """
    )
    result, original, new = migrate_and_exec(source)
    assert "x[jnp.asarray(range(1, n), dtype=int)]" in result.output.decode()
    for x in (np.array([1.0, 4.0, 2.0, 8.0], dtype=np.float32), np.array([3.0], dtype=np.float32)):
        assert_matches_numpy(original, new, "lagdiff", (x,))
    np.testing.assert_allclose(np.asarray(new["tail"](np.arange(5.0), 2)), original["tail"](np.arange(5.0), 2))


def test_a_list_operand_of_an_array_method_is_wrapped():
    """real15 L5 (scikit-kinematics' Madgwick filter): `J.T.dot(F)` with `F` a list: NumPy's method converts
    it, a jax.Array's refuses it ("dot requires ndarray or scalar arguments"), as `np.dot(J.T, F)` would have
    been wrapped."""
    source = textwrap.dedent(
        """
        import numpy as np

        def grad_step(q, a):
            F = [q[0] * q[1] - a[0], q[2] - a[1]]
            J = np.array([[q[1], q[0], 0.0], [0.0, 0.0, 1.0]])
            return J.T.dot(F)
        """
    )
    result, original, new = migrate_and_exec(source)
    assert "return J.T.dot(jnp.asarray(F))" in result.output.decode()
    assert_matches_numpy(original, new, "grad_step", (np.array([1.0, 2.0, 3.0], dtype=np.float32), np.array([0.5, 0.5], dtype=np.float32)))


def test_sphinx_docstrings_that_admit_lists_wrap_the_parameter():
    """real15 L4 (spectrum): `:param array data: (list or numpy.array)` and `:type data: list or ndarray` say the
    caller may pass a list, as numpydoc's `data : array_like` does; `:param array data:` alone does not."""
    source = textwrap.dedent(
        '''
        import numpy as np

        def energy(data):
            """:param array data: (list or numpy.array) the samples"""
            return np.sum(np.square(data))

        def energy2(data):
            """:param data: the samples
            :type data: list or numpy.ndarray
            """
            return np.sum(np.square(data))

        def energy3(data):
            """:param array data: the samples"""
            return np.sum(np.square(data))
        '''
    )
    result, original, new = migrate_and_exec(source)
    output = result.output.decode()
    # jitted, each converts `data` first (analysis/list_arguments.py); un-jitted, the call wraps it where said
    assert output.count("    data = jnp.asarray(data)\n    return jnp.sum(jnp.square(data))") == 3
    unjitted = migrate_source(source.encode(), "m.py", Options(jit=False)).output.decode()
    assert unjitted.count("jnp.square(jnp.asarray(data))") == 2 and "return jnp.sum(jnp.square(data))" in unjitted
    for name in ("energy", "energy2", "energy3"):
        assert float(new[name]([1.0, 2.0])) == original[name]([1.0, 2.0]) == 5.0


def test_docstring_examples_that_pass_lists_wrap_the_parameter():
    """nashpy-like: nothing but the function's own doctest (`>>> rms([3, 4])`, a method's `>>> g.payoff([1, 0])`)
    says a caller passes a list; an example passing an array (`>>> peak(np.array(...))`) says nothing."""
    source = textwrap.dedent(
        '''
        import numpy as np

        def rms(x, axis=None):
            """Root mean square.

            >>> rms([3, 4])
            3.5355339059327378
            >>> rms(x=(1, 2),
            ...     axis=0)
            1.5811388300841898
            """
            return np.sqrt(np.mean(np.square(x), axis=axis))

        def peak(x):
            """>>> peak(np.array([1, 5, 2]))
            5
            """
            return np.max(np.abs(x))

        class Game:
            def __init__(self, A):
                self.A = np.asarray(A)

            def payoff(self, sigma):
                """>>> Game(np.eye(2)).payoff([1, 0])"""
                return np.dot(self.A, sigma)
        '''
    )
    result, original, new = migrate_and_exec(source)
    output = result.output.decode()
    assert "x = jnp.asarray(x)\n    return jnp.sqrt(jnp.mean(jnp.square(x), axis=axis))" in output
    assert "x = jnp.asarray(x)\n    return jnp.max(jnp.abs(x))" in output
    assert "jnp.dot(self.A, jnp.asarray(sigma))" in output  # (a method: never jitted, so wrapped where said)
    unjitted = migrate_source(source.encode(), "m.py", Options(jit=False)).output.decode()
    assert "jnp.square(jnp.asarray(x))" in unjitted and "return jnp.max(jnp.abs(x))" in unjitted
    assert float(new["rms"]([3, 4])) == pytest.approx(original["rms"]([3, 4]), rel=1e-6)
    assert float(new["rms"]((1, 2), axis=0)) == pytest.approx(original["rms"]((1, 2), axis=0), rel=1e-6)
    np.testing.assert_allclose(np.asarray(new["Game"](np.eye(2)).payoff([1, 0])), original["Game"](np.eye(2)).payoff([1, 0]))


def test_parameters_documented_as_sequences_are_wrapped():
    """real22 L3 (transforms3d's qnorm/qinverse, `q : 4 element sequence`): a tuple given for q reached jnp.dot,
    which refuses it; a parameter documented as a sequence, list or tuple is wrapped in jnp.asarray like an
    `ArrayLike` one. Jitted, both functions convert their parameters first (analysis/list_arguments.py): pyrr's
    tests pass lists to a `cross` documented as taking arrays."""
    from tests.test_real_code_regressions import migrated_pair

    result, original, migrated = migrated_pair(
        '''
        import numpy as np

        def qnorm(q):
            """Norm of a quaternion

            Parameters
            ----------
            q : 4 element sequence
               w, i, j, k of quaternion
            """
            return np.sqrt(np.dot(q, q))

        def cross(v1, v2):
            """:param numpy.array v1: a vector"""
            return np.cross(v1, v2)
        '''
    )
    output = result.output.decode()
    assert "q = jnp.asarray(q)\n    return jnp.sqrt(jnp.dot(q, q))" in output
    assert "v1 = jnp.asarray(v1)\n    v2 = jnp.asarray(v2)\n    return jnp.cross(v1, v2)" in output
    np.testing.assert_allclose(np.asarray(migrated.cross([1.0, 0.0, 0.0], [0.0, 1.0, 0.0])), [0.0, 0.0, 1.0])
    for q in ((1, 0, 0, 0), [0.5, 0.5, 0.5, 0.5], np.array([1.0, 2.0, 2.0, 4.0])):
        np.testing.assert_allclose(np.asarray(migrated.qnorm(q)), original.qnorm(q), rtol=1e-6)
