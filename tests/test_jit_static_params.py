"""Which parameters jax.jit may keep static, and which ones it cannot take at all (real-package trial real8).

A static argument must be hashable: an array or a list there raises "Non-hashable static arguments" on every
call.  A parameter that is documented or annotated as an array (or a dict, list or set), or that the function
indexes, unpacks or iterates, is never static; a ``dtype`` parameter handed to NumPy must be (a traced one
raises); a parameter whose non-array attributes or methods the function uses is a Python object, which jax.jit
cannot trace at all.  The runtime tests call the migrated functions with real JAX on what the packages pass.
"""

from __future__ import annotations

import textwrap

import numpy as np
import pytest

from tests.test_jit import jit, migrate, outcome
from tests.runtime_helpers import assert_matches_numpy, function_record, migrate_and_exec

# transforms3d.quaternions.quat2mat, reduced: `q` is "4 element array-like", unpacked
QUAT2MAT = """
def quat2mat(q):
    w, x, y, z = q
    Nq = w * w + x * x + y * y + z * z
    if Nq < 1e-12:
        return np.eye(3)
    s = 2.0 / Nq
    return np.array([[1.0 - s * (y * y + z * z), s * x * y, s * x * z],
                     [s * x * y, 1.0 - s * (x * x + z * z), s * y * z],
                     [s * x * z, s * y * z, 1.0 - s * (x * x + y * y)]])
"""

CASES = [
    pytest.param(
        """
        import numpy as np

        eps = 1e-7
        unitz = np.array([0.0, 0.0, 1.0])

        def perpendicular_to_vector(a):
            \"\"\"A vector perpendicular to a.

            Parameters
            ----------
            a : array-like, shape (3,)
                3d vector
            \"\"\"
            if abs(a[2]) < eps:
                return np.copy(unitz)
            return np.array([1.0, 0.0, -a[0] / a[2]])

        def google_style(v, scale):
            \"\"\"Scale v.

            Args:
                v (np.ndarray): the vector
                scale (float): the factor
            \"\"\"
            if v[0] > 0:
                return np.asarray(v) * scale
            return -np.asarray(v) * scale
        """,
        # pytransform3d: static_argnums=(0,) raised "Non-hashable static arguments" for every ndarray or list;
        # the test on its element is a traced test: the early return becomes jax.lax.cond (NPJ306)
        {"perpendicular_to_vector": jit(), "google_style": jit()},
        id="documented-array-is-never-static-its-element-test-is-traced",
    ),
    pytest.param(
        """
        import math
        import numpy as np

        {QUAT2MAT}
        def angle(v):
            return math.atan2(v[1], v[0]) * np.ones(2)

        def weighted(x, weights):
            out = np.zeros_like(x[0])
            for i, w in enumerate(weights):
                if w > 0:
                    out = out + w * x[i]
            return out
        """.replace("{QUAT2MAT}", textwrap.indent(QUAT2MAT, " " * 8).lstrip()),
        # transforms3d: unpacked, indexed into math.atan2, iterated: arrays or lists, never hashable (the test
        # on an iterated element is a traced test: jax.lax.cond)
        {"quat2mat": ("NPJ301",), "angle": ("NPJ301",), "weighted": jit()},
        id="unpacked-indexed-or-iterated-parameter-is-never-static",
    ),
    pytest.param(
        """
        import numpy as np

        def total(x, items):
            if items:
                x = x * 2.0
            for v in items:
                x = x + v
            return np.asarray(x)
        """,
        # traced now, but the truth value of a list is its length, not `!= 0`: no jax.lax.cond
        {"total": ("NPJ301",)},
        id="truth-of-an-iterated-parameter-is-not-a-cond",
    ),
    pytest.param(
        """
        import numpy as np

        def first(x, sizes=(2, 3)):
            return np.zeros(sizes[0]) + np.sum(x)

        def head(x, shape):
            return np.zeros(shape[0]) + np.sum(x)

        def counted(x, counts: tuple):
            return np.zeros(counts[1]) + np.sum(x)
        """,
        # a tuple default, a shape-like name or a tuple hint says the indexed parameter is a (hashable) tuple
        {"first": jit(1), "head": jit(1), "counted": jit(1)},
        id="indexed-parameter-with-tuple-evidence-stays-static",
    ),
    pytest.param(
        """
        from typing import Dict, List, Optional, Union

        import numpy as np

        def to_dicts(x: np.ndarray, key_map: Dict[str, Union[int, List[int]]]):
            return [{key: xi[val] for key, val in key_map.items()} for xi in x]

        def pick(x: np.ndarray, key_map: dict):
            return {key: x[..., val] for key, val in key_map.items()}

        def rows(x, index: List[int]):
            return np.take(x, np.asarray(index), axis=0)

        def maybe(x, weights: Optional[Dict[str, int]] = None):
            return np.sum(x) * len(weights)
        """,
        # emcee: Dict[str, int] became static because of the `int` inside the subscript; a dict is never hashable
        {"to_dicts": jit(), "pick": jit(), "rows": jit(), "maybe": jit()},
        id="dict-and-list-annotations-are-never-static",
    ),
    pytest.param(
        """
        import numpy as np

        def identity(dtype=None):
            return np.identity(4, dtype=dtype)

        def shifted_eye(x, dtype=None):
            return np.eye(x.shape[0], dtype=dtype or x.dtype) + x

        def ramp(n, dtype):
            return np.arange(n, dtype=dtype)
        """,
        # pyrr: a traced dtype raised "Error interpreting argument ... as an abstract array" (the helper's
        # static dtype makes the caller's static too: see the runtime test)
        {"identity": jit(0), "shifted_eye": jit(1), "ramp": jit(0, 1)},
        id="dtype-parameter-of-identity-or-arange-is-static",
    ),
    pytest.param(
        """
        import numpy as np

        def compute_objective_function(swarm, objective_func, pool=None, **kwargs):
            if pool is None:
                return objective_func(swarm.position, **kwargs)
            return np.concatenate(pool.map(objective_func, np.array_split(swarm.position, 2)))

        def mean_position(swarm):
            return np.mean(swarm.position, axis=0)

        def matrices_equal(M1, M2):
            d = M1 - M2
            d.simplify()
            return np.all(np.array(d) == 0)

        def spread(x):
            return np.ptp(x, axis=0) + x.T.mean() + x.real.sum()
        """,
        # pyswarms, transforms3d: a Python object cannot be traced (and is not hashable as a rule); handed to
        # np.array it stays NumPy (NPJ304: jax.numpy cannot take it either)
        {"compute_objective_function": ("NPJ302",), "mean_position": ("NPJ302",), "matrices_equal": ("NPJ302", "NPJ304"),
         "spread": jit()},
        id="non-array-attribute-or-method-of-a-parameter-blocks-jit",
    ),
    pytest.param(
        """
        from typing import NamedTuple

        import numpy as np

        class State(NamedTuple):
            x: np.ndarray
            v: np.ndarray

        def step(state: State, dt: float):
            return State(state.x + dt * state.v, np.copy(state.v))

        def label(x, name: str, table: dict):
            return np.sum(x) * len(name.upper()) * len(table.keys())
        """,
        # a NamedTuple is a pytree jax.jit traces; str and dict methods are Python values' methods
        {"step": jit(), "label": jit(1)},
        id="namedtuple-fields-and-python-value-methods-do-not-block",
    ),
    pytest.param(
        """
        import numpy as np

        def select(data, keys):
            total = np.zeros(data.shape[1])
            for key in keys:
                if key == "a":
                    total += data[0]
                else:
                    total -= data[1]
            return total

        def pick(data, names, wanted):
            out = np.zeros(data.shape[1])
            for row, name in zip(data, names):
                if name in ("x", "y"):
                    out += row
            return out

        def select_default(data, keys=("a", "b")):
            total = np.zeros(data.shape[1])
            for key in keys:
                if key == "a":
                    total += data[0]
            return total
        """,
        # real18 L7: `key == "a"` became jax.lax.cond on a list of str (jax.jit cannot take one); a tuple default
        # is a static argument, unrolled; the loops of `select` and `pick` add jax.numpy results: left NumPy code (NPJ304)
        {"select": ("NPJ301", "NPJ304"), "pick": ("NPJ301", "NPJ304"), "select_default": jit(1)},
        id="elements-compared-with-strings-are-strings",
    ),
]


@pytest.mark.parametrize("source, expected", CASES)
def test_static_parameter_decisions(source, expected):
    result = migrate(source)
    found = outcome(result)
    for name, want in expected.items():
        assert found[name] == want, (name, found[name], [d.format() for d in result.diagnostics], result.output.decode())


def test_object_parameter_message_names_the_attribute():
    result = migrate(
        """
        import numpy as np

        def mean_position(swarm):
            return np.mean(swarm.position, axis=0)
        """
    )
    (diagnostic,) = [d for d in result.diagnostics if d.code == "NPJ302"]
    assert "`swarm.position`" in diagnostic.message and (diagnostic.line, diagnostic.col) == (4, 20), diagnostic.format()


RUNTIME_SOURCE = '''
import math
import numpy as np

eps = 1e-7
unitz = np.array([0.0, 0.0, 1.0])

def perpendicular_to_vector(a):
    """A vector perpendicular to a.

    Parameters
    ----------
    a : array-like, shape (3,)
    """
    if abs(a[2]) < eps:
        return np.copy(unitz)
    return np.array([1.0, 0.0, -a[0] / a[2]])
''' + QUAT2MAT + '''
def quat2trace(quaternion):
    return np.trace(quat2mat(np.asarray(quaternion)))

def create_identity(dtype=None):
    return np.identity(4, dtype=dtype)

def create_from_translation(vec, dtype=None):
    dtype = dtype or vec.dtype
    mat = create_identity(dtype)
    mat[3, 0:3] = vec[:3]
    return mat

def flip(v, scale):
    """Flip v.

    Args:
        v (np.ndarray): the vector
    """
    if v[0] > 0:
        return np.asarray(v) * scale
    return -np.asarray(v) * scale

def pick(x, items):
    total = np.zeros_like(x)
    for item in items:
        if item > 0:
            total = total + x
    return total

def ndarray_to_list_of_dicts(x: np.ndarray, key_map: "Dict[str, Union[int, List[int]]]"):
    return [{key: xi[val] for key, val in key_map.items()} for xi in x]
'''


def test_array_and_dtype_parameters_run_under_jit_and_match_numpy():
    jax = pytest.importorskip("jax")
    result = migrate(RUNTIME_SOURCE)
    jitted = {record.qualname for record in result.functions if record.jit}
    # the array parameters tested by `if` stay un-jitted (NPJ301) or become jax.lax.cond, never static
    assert jitted == {"flip", "pick", "create_identity", "create_from_translation", "ndarray_to_list_of_dicts",
                      "perpendicular_to_vector"}, \
        result.output.decode()
    original, migrated = {}, {}
    exec(compile(RUNTIME_SOURCE, "original.py", "exec"), original)
    exec(compile(result.output, "migrated.py", "exec"), migrated)
    vec = np.array([1.0, 2.0, 3.0])
    calls = [
        ("perpendicular_to_vector", (vec,)),
        ("perpendicular_to_vector", ([1.0, 2.0, 0.0],)),
        ("perpendicular_to_vector", (np.array([1.0, 2.0, 1e-9]),)),
        ("quat2mat", (np.array([0.5, 0.5, 0.5, 0.5]),)),
        ("quat2mat", ([0.0, 0.0, 0.0, 0.0],)),
        ("quat2trace", ([1.0, 0.0, 0.0, 0.0],)),
        ("create_identity", (np.float32,)),
        ("create_identity", (np.dtype("float64"),)),
        ("create_identity", ()),
        ("create_from_translation", (vec,)),
        ("create_from_translation", (vec, np.float32)),
        ("flip", (vec, 2.0)),
        ("flip", ([-1.0, 2.0], 0.5)),
        ("pick", (vec, [1.0, -1.0, 2.0])),
        ("pick", (vec, np.array([-1.0, 3.0]))),
    ]
    with jax.enable_x64(True):
        for name, args in calls:
            want = original[name](*args)
            got = migrated[name](*args)
            assert np.asarray(got).dtype == want.dtype, (name, args, np.asarray(got).dtype, want.dtype)
            np.testing.assert_allclose(np.asarray(got), want, rtol=1e-12, atol=1e-12, err_msg=f"{name}{args}")
        x = np.arange(6.0).reshape(2, 3)
        key_map = {"a": 0, "b": 2}  # (a list value, xi[[1, 2]], is refused by jax.numpy with or without jit)
        want = original["ndarray_to_list_of_dicts"](x, key_map)
        got = migrated["ndarray_to_list_of_dicts"](x, key_map)
        assert [sorted(row) for row in got] == [sorted(row) for row in want]
        for row_got, row_want in zip(got, want):
            for key in row_want:
                np.testing.assert_array_equal(np.asarray(row_got[key]), row_want[key])


def test_member_tables_match_the_installed_numpy_jax_and_python():
    import jax

    from np2jax.analysis.tracing_tables import ARRAY_MEMBERS, PYTHON_VALUE_MEMBERS

    public = lambda kind: {name for name in dir(kind) if not name.startswith("_")}  # noqa: E731
    assert public(np.ndarray) | public(jax.Array) <= ARRAY_MEMBERS
    python = set().union(*(public(kind) for kind in (str, bytes, dict, list, tuple, set, frozenset, int, float, complex)))
    assert python - ARRAY_MEMBERS <= PYTHON_VALUE_MEMBERS


def test_a_function_whose_result_is_a_static_argument_of_another_is_not_jitted():
    """hunt13 L1: `one_hot(labels, n_classes(labels))` with `k` static in one_hot: n_classes was jitted and
    returned a JAX scalar, which a static argument cannot be (unhashable), so every call raised ValueError.
    n_classes now stays un-jitted and the NumPy calls computing its result stay NumPy."""
    from tests.test_real_code_regressions import migrated_pair, record

    result, original, migrated = migrated_pair(
        """
        import numpy as np

        def n_classes(labels):
            return np.max(labels) + 1

        def width(x):
            return x.shape[0] * 2

        def one_hot(labels, k):
            out = np.zeros((labels.shape[0], k))
            out[np.arange(labels.shape[0]), labels] = 1.0
            return out

        def encode(labels):
            return one_hot(labels, n_classes(labels))

        def encode_named(labels):
            k = n_classes(labels)
            return one_hot(labels, k)

        def padded(labels):
            return one_hot(labels, width(labels))
        """
    )
    output = result.output.decode()
    assert "return np.max(labels) + 1" in output
    assert not record(result, "n_classes").jit and record(result, "one_hot").jit
    assert any("static argument `k` of `one_hot`" in d.message for d in result.diagnostics)
    labels = np.array([0, 2, 1, 2])
    for name in ("encode", "encode_named", "padded"):
        np.testing.assert_array_equal(getattr(migrated, name)(labels), getattr(original, name)(labels))


def test_a_python_bool_tested_by_identity_stays_a_python_bool():
    """real13 F1 (nashpy): `self.zero_sum = np.array_equal(A, -B)` then `if self.zero_sum is False: raise`; and
    `return np.array_equal(A, -B) is True`.  jnp.array_equal returns a bool array, which is neither True nor False,
    so the check never fired and non-zero-sum games were solved without an error."""
    from tests.test_real_code_regressions import migrated_pair, record

    result, original, migrated = migrated_pair(
        """
        import numpy as np

        class Game:
            def __init__(self, A, B):
                self.A = np.asarray(A)
                self.B = np.asarray(B)
                self.zero_sum = np.array_equal(self.A, -self.B)

            def solve(self):
                if self.zero_sum is False:
                    raise ValueError("not zero sum")
                return self.A.sum(axis=0)

        def is_zero_sum(A, B):
            return np.array_equal(A, -B) is True

        def equal(a, b):
            return np.array_equal(a, -b)

        def check(a, b):
            if equal(a, b) is False:
                raise ValueError("not zero sum")
            return a.sum()
        """
    )
    assert not record(result, "equal").jit
    A, B = np.array([[-1, 0], [-1, 1]]), np.array([[3, 0], [1, -1]])
    for module in (original, migrated):
        with pytest.raises(ValueError):
            module.Game(A, B).solve()
        with pytest.raises(ValueError):
            module.check(A, B)
        assert module.is_zero_sum(A, -A) is True and module.is_zero_sum(A, B) is False
        np.testing.assert_array_equal(module.Game(A, -A).solve(), [-2, 1])


LIST_STATIC_ARGUMENTS = """
import numpy as np

def pad_to(x, shape):
    out = np.zeros(shape)
    out[: x.shape[0]] = x
    return out

def grid(x, reps):
    return np.tile(x, reps).reshape(len(reps), -1)

def padded(x):
    return pad_to(x, [4]) + pad_to(x, shape=[ 4 ])

def tiled(x):
    return grid(x, [2, 1])

def compares(x, reps):
    if reps == [2]:
        return x * 2.0
    return np.tile(x, reps)

def compared(x):
    return compares(x, [2])

def appends(x, shape):
    shape = list(shape) + [1]
    return np.zeros(shape) + x[0]

def appended(x):
    return appends(x, [2])

FOUR = pad_to(np.ones(2), [4])
"""


def test_list_displays_given_for_static_parameters_become_tuples_where_the_callee_cannot_tell():
    """jax.jit hashes static arguments: `pad_to(x, [4])` would raise "Non-hashable static arguments".  A list
    display the module passes for a static parameter becomes a tuple when the callee uses it only as NumPy
    reads a sequence (np.zeros, np.tile, len); `reps == [2]` or `list(shape) + [1]` tell them apart,
    so those calls stay as they are."""
    result, original, new = migrate_and_exec(LIST_STATIC_ARGUMENTS)
    output = result.output.decode()
    assert "return pad_to(x, (4,)) + pad_to(x, shape=( 4, ))" in output
    assert "return grid(x, (2, 1))" in output
    assert "FOUR = pad_to(np.ones(2), (4,))" in output
    assert "compares(x, [2])" in output and "appends(x, [2])" in output
    x = np.array([1.0, 2.0], dtype=np.float32)
    for name in ("padded", "tiled"):
        assert function_record(result, name).jit
        assert_matches_numpy(original, new, name, (x,))
    np.testing.assert_array_equal(np.asarray(new["FOUR"]), original["FOUR"])


def test_a_parameter_a_builtin_iterates_is_never_static():
    """hunt14 L4: `vals = sorted(x)` made `x` static (never used as array data), and every array argument raised
    "Non-hashable static arguments".  `sorted`/`list`/`sum`/`zip` ... of a parameter iterate its elements: an
    array or a container.  The list `sorted` returns is wrapped for jax.numpy; `shape` (a shape-like name)
    stays static."""
    source = textwrap.dedent(
        """
        import numpy as np

        def sorted_median(x):
            vals = sorted(x)
            return np.median(vals)

        def pad(x, shape):
            return np.zeros(list(shape)) + x
        """
    )
    result, original, new = migrate_and_exec(source)
    assert not function_record(result, "sorted_median").jit
    assert function_record(result, "pad").static_argnums == (1,)
    assert "jnp.median(jnp.asarray(vals))" in result.output.decode()
    assert float(new["sorted_median"](np.array([1.0, 5.0, 3.0, 2.0]))) == original["sorted_median"](np.array([1.0, 5.0, 3.0, 2.0]))
    assert_matches_numpy(original, new, "pad", (np.float32(1.5), (2, 3)))


def test_module_level_tables_are_constants_their_keys_static_and_their_rows_sequences():
    """real14 L2/FP (colormath's white points, seawater's coefficient lists): a module-level dict or list of
    literals no function changes is a table of constants, not mutable state (it blocked jit, NPJ302); a
    parameter used as its key is static (a JAX array is no dict key); a row of tuples handed to jax.numpy is
    wrapped (`jnp.dot` refuses a tuple).  A table some function changes still blocks jit."""
    source = textwrap.dedent(
        """
        import numpy as np

        WHITE = {"d65": (0.95047, 1.0, 1.08883), "c": (0.98074, 1.0, 1.18232)}
        COEFFS = [0.0080, -0.1692, 25.3851]
        STATE = {"calls": 0}

        def adapt(m, illum):
            wp = WHITE[illum]
            return np.dot(m, wp)

        def poly(x):
            return COEFFS[0] + COEFFS[1] * x + COEFFS[2] * np.square(x)

        def counted(x):
            STATE["calls"] += 1
            return np.sum(x)
        """
    )
    result, original, new = migrate_and_exec(source)
    assert function_record(result, "adapt").static_argnums == (1,) and function_record(result, "poly").jit
    assert not function_record(result, "counted").jit
    assert "jnp.dot(m, jnp.asarray(wp))" in result.output.decode()
    m = np.arange(9.0).reshape(3, 3)
    for illum in ("d65", "c"):
        np.testing.assert_allclose(np.asarray(new["adapt"](m, illum)), original["adapt"](m, illum), rtol=1e-6)
    assert_matches_numpy(original, new, "poly", (np.array([0.5, 2.0], dtype=np.float32),))


def test_keys_into_inline_dicts_and_dict_get_are_static():
    """hunt15 L1: `{0.95: 1.645, 0.99: 2.326}[level]` and `Z_TABLE.get(level, 3.0)` hash `level`: static under jit
    (a tracer is unhashable), as a key into a module-level dict is."""
    source = textwrap.dedent("""
        import numpy as np

        Z_TABLE = {0.95: 1.6448536, 0.99: 2.3263479}

        def parametric_var(returns, level=0.99):
            z = {0.95: 1.6448536, 0.99: 2.3263479, 0.975: 1.959964}[level]
            return -(returns.mean() - z * returns.std(ddof=1))

        def z_scale_get(x, level=0.99):
            return x.std() * Z_TABLE.get(level, 3.0)
        """)
    result, original, new = migrate_and_exec(source)
    assert outcome(result) == {"parametric_var": jit(1), "z_scale_get": jit(1)}
    r = np.array([0.01, -0.03, 0.02, -0.05, 0.004], dtype=np.float32)
    assert_matches_numpy(original, new, "parametric_var", (r, 0.95), rtol=1e-5)
    assert_matches_numpy(original, new, "z_scale_get", (r, 0.5), rtol=1e-5)


def test_parameters_handed_to_range_and_unpacked_shapes_index_one_element():
    """hunt15 FP: `nxt[r * w + c, a] = ...` with `w` handed to `range` (an int) or unpacked from `grid.shape`
    writes one element: no repeats, so the write is made functional and the loops become fori_loops."""
    source = textwrap.dedent("""
        import numpy as np

        def table_a(h, w):
            nxt = np.zeros((h * w, 4), dtype=int)
            for r in range(h):
                for c in range(w):
                    s = r * w + c
                    for a in range(4):
                        nxt[s, a] = s + a
            return nxt

        def table_b(grid):
            h, w = grid.shape
            nxt = np.zeros((h * w, 2), dtype=int)
            for r in range(h):
                for c in range(w):
                    nxt[r * w + c, 0] = grid[r, c]
            return nxt
        """)
    result, original, new = migrate_and_exec(source)
    assert outcome(result) == {"table_a": jit(0, 1), "table_b": jit()}
    assert not [d for d in result.diagnostics if d.code == "NPJ201"]
    np.testing.assert_array_equal(np.asarray(new["table_a"](3, 4)), original["table_a"](3, 4))
    grid = np.arange(12).reshape(3, 4)
    np.testing.assert_array_equal(np.asarray(new["table_b"](grid)), original["table_b"](grid))


def test_module_numpy_arrays_indexed_by_traced_values_are_read_as_jax_arrays():
    """hunt16 L5/L6: `COMPLEMENT[seq[::-1]]` (a module-level NumPy array) and `surv[i]` (`surv=SURVIVAL`, which jax.jit
    leaves a NumPy array where the default is used) with a traced index raised TracerArrayConversionError: read
    through `jnp.asarray(...)`; indexing such a table is array code, so the helper is jitted too."""
    source = textwrap.dedent("""
        import numpy as np

        COMPLEMENT = np.array([3, 2, 1, 0])
        SURVIVAL = np.array([0.6, 0.7, 0.5])

        def reverse_complement(seq):
            return COMPLEMENT[seq[::-1]]

        def canonical(seq):
            return np.minimum(seq, reverse_complement(seq))

        def leslie(surv=SURVIVAL):
            n = surv.shape[0] + 1
            L = np.zeros((n, n))
            for i in range(n - 1):
                L[i + 1, i] = surv[i]
            return L
        """)
    result, original, new = migrate_and_exec(source)
    output = result.output.decode()
    assert "return jnp.asarray(COMPLEMENT)[seq[::-1]]" in output and "jnp.asarray(surv)[i]" in output
    assert all(record.jit for record in result.functions)
    seq = np.array([0, 1, 3, 2])
    assert_matches_numpy(original, new, "canonical", (seq,))
    np.testing.assert_allclose(np.asarray(new["leslie"]()), original["leslie"](), rtol=1e-6)
    np.testing.assert_allclose(np.asarray(new["leslie"](np.array([0.5, 0.25]))), original["leslie"](np.array([0.5, 0.25])))


def test_numpy_arrays_of_static_arguments_indexed_or_written_with_traced_values():
    """hunt17 L1-L3: `TABLE[labels]` (a module-level NumPy array indexed by a parameter, in a function whose jit plan
    was computed only after its walk), `f[np.argmax(p)]` with `f = np.fft.rfftfreq(n)` (a NumPy call of static
    arguments, which stays NumPy) raised TracerArrayConversionError; `w = np.hanning(n); w[0] = x[0]` became
    `w.at[0]` on a NumPy array (AttributeError). Reads go through `jnp.asarray`; a written result moves to jax.numpy."""
    source = textwrap.dedent("""
        import numpy as np

        TABLE = np.array([1.0, 2.0, 3.0, 4.0])

        def lookup(labels):
            return TABLE[labels % 4]

        def spectrum_peak(x):
            f = np.fft.rfftfreq(x.shape[0])
            p = np.abs(np.fft.rfft(x))
            return f[np.argmax(p)]

        def taper(x, k):
            w = np.hanning(x.shape[0])
            w[0] = x[0]
            w[k] = 1.0
            return w * x
        """)
    result, original, new = migrate_and_exec(source)
    output = result.output.decode()
    assert "jnp.asarray(TABLE)[labels % 4]" in output and "jnp.asarray(f)[jnp.argmax(p)]" in output
    assert "w = jnp.hanning(x.shape[0])" in output
    assert all(record.jit for record in result.functions), output
    x = np.sin(np.arange(16.0) * 0.7) + np.cos(np.arange(16.0) * 2.1)
    assert_matches_numpy(original, new, "lookup", (np.array([1, 6, 3, 7]),))
    assert_matches_numpy(original, new, "spectrum_peak", (x,))
    np.testing.assert_allclose(np.asarray(new["taper"](x, 3)), original["taper"](x, 3), rtol=1e-5, atol=1e-6)


def test_element_of_a_tuple_of_static_index_arrays_indexed_by_a_traced_value():
    """hunt58 L3: `iu = np.triu_indices(n, k=1)` stays NumPy (static arguments); `iu[0][k]` with a traced
    `k = np.argmin(...)` raised TracerArrayConversionError on every call. The element reads through jnp.asarray."""
    source = textwrap.dedent("""
        import numpy as np

        def closest_pair(pts):
            d = np.sum((pts[:, None] - pts[None]) ** 2, axis=-1)
            iu = np.triu_indices(len(pts), k=1)
            k = np.argmin(d[iu])
            return iu[0][k], iu[1][k]
        """)
    result, original, new = migrate_and_exec(source)
    output = result.output.decode()
    assert "return jnp.asarray(iu[0])[k], jnp.asarray(iu[1])[k]" in output
    assert function_record(result, "closest_pair").jit
    points = np.array([[0.0, 0.0], [3.0, 4.0], [1.0, 1.0], [5.0, 5.0]])
    assert tuple(int(v) for v in new["closest_pair"](points)) == tuple(int(v) for v in original["closest_pair"](points))


def test_a_module_arrays_method_taking_traced_values_and_masks_joined_with_literals():
    """real18 L4 (skyfield): `K.dot(fa)` of a module-level NumPy array raised TracerArrayConversionError under jit:
    the method is called on `jnp.asarray(K)`. real18 L3 (mir_eval): `mask = np.append(np.diff(a) != 0, [True])`
    was not seen as a mask, so `a[mask]` was jitted (NonConcreteBooleanIndexError): not jitted (NPJ301)."""
    source = textwrap.dedent("""
        import numpy as np

        K = np.array([[1.0, 2.0], [3.0, 4.0]])

        def rotate(t):
            fa = np.array([np.sin(t), np.cos(t)])
            return K.dot(fa)

        def dedup(a):
            mask = np.diff(a) != 0
            mask = np.append(mask, [True])
            return a[mask]
        """)
    result, original, new = migrate_and_exec(source)
    output = result.output.decode()
    assert "return jnp.asarray(K).dot(fa)" in output
    jitted = {record.qualname: record.jit for record in result.functions}
    assert jitted == {"rotate": True, "dedup": False}, output
    assert "NPJ301" in {d.code for d in result.diagnostics}
    np.testing.assert_allclose(np.asarray(new["rotate"](0.3)), original["rotate"](0.3), rtol=1e-6)
    a = np.array([1, 1, 2, 3, 3, 3, 4])
    np.testing.assert_array_equal(np.asarray(new["dedup"](a)), original["dedup"](a))


def test_shape_read_through_getattr_and_a_float_needed_as_an_int_are_not_static():
    """real18 L5 (skyfield, mir_eval): `getattr(x, 'shape', ())` made `x` static (an array argument then raised
    "Non-hashable static arguments"): it reads the shape, known at trace time. `int(power * 3600 * value + 0.5)`
    made the float `value` static: jax.jit compiled again for every value (50 calls: 1.7 s) and refused arrays;
    the function is left un-jitted (NPJ301). A count needed as a size stays static."""
    source = textwrap.dedent("""
        import numpy as np

        def stacked(x):
            shape = getattr(x, 'shape', ())
            out = np.zeros((2,) if shape == () else (2, shape[0]))
            out[0] = x
            out[1] = 2 * x
            return out

        def to_minutes(value, places=0):
            power = 10 ** places
            n = int((power * 3600 * value + 0.5) // 1.0)
            return np.divmod(n, 60)

        def hann(n):
            return 0.5 - 0.5 * np.cos(2.0 * np.pi * np.arange(n) / (n - 1))
        """)
    result, original, new = migrate_and_exec(source)
    records = {record.qualname: record for record in result.functions}
    assert records["stacked"].jit and records["hann"].jit and not records["to_minutes"].jit, result.output.decode()
    messages = [d.message for d in result.diagnostics if d.code == "NPJ301"]
    assert any("`value`, which meets float arithmetic" in m for m in messages), messages
    for x in (np.array([1.0, 2.0]), 3.0):
        np.testing.assert_allclose(np.asarray(new["stacked"](x)), original["stacked"](x))
    assert [int(v) for v in new["to_minutes"](1.25)] == [int(v) for v in original["to_minutes"](1.25)]
    np.testing.assert_allclose(np.asarray(new["hann"](8)), original["hann"](8), atol=1e-6)


def test_functions_handed_to_vectorize_and_apply_along_axis():
    """hunt18 L4/L5: `np.vectorize(_piecewise)` of a module function with a Python `if` (left as it is: nothing in it
    is array code) became `jnp.vectorize`, which calls it with tracers (TracerBoolConversionError): NPJ103, the
    call stays NumPy. `np.apply_along_axis(np.linalg.norm, 1, X)` became `jnp.apply_along_axis(np.linalg.norm, ...)`,
    which raised even un-jitted: the NumPy function handed in moves to its jax.numpy twin, and the caller is jitted."""
    source = textwrap.dedent("""
        import numpy as np

        def _piecewise(v):
            if v < 0:
                return 0.0
            return v * v

        def ramp_sq(x):
            return np.vectorize(_piecewise)(x)

        def _square(v):
            return v * v

        def squares(x):
            return np.vectorize(_square)(x)

        def row_norms(X):
            return np.apply_along_axis(np.linalg.norm, 1, X)
        """)
    result, original, new = migrate_and_exec(source)
    output = result.output.decode()
    assert "np.vectorize(_piecewise)(x)" in output and "NPJ103" in {d.code for d in result.diagnostics}
    assert "jnp.apply_along_axis(jnp.linalg.norm, 1, X)" in output and "jnp.vectorize(_square)(x)" in output
    jitted = {record.qualname: record.jit for record in result.functions}
    assert jitted["row_norms"] and jitted["squares"] and not jitted["ramp_sq"], output
    x = np.array([-1.0, 0.5, 2.0])
    X = np.arange(6.0).reshape(2, 3)
    for name, arg in (("ramp_sq", x), ("squares", x), ("row_norms", X)):
        np.testing.assert_allclose(np.asarray(new[name](arg)), original[name](arg), rtol=1e-6)


def test_static_arguments_used_as_shapes_or_axes_say_callers_must_pass_tuples():
    """hunt18 L3: `np.zeros(shape)`, `np.transpose(X, perm)` make `shape`/`perm` static; a caller passing a list
    gets "Non-hashable static arguments" from jax.jit. An NPJ300 info says so; counts (`n_bins`, `k`) are not named."""
    source = textwrap.dedent("""
        import numpy as np

        def pad_to(x, shape):
            out = np.zeros(shape)
            out[: x.shape[0], : x.shape[1]] = x
            return out

        def transpose_axes(X, perm):
            return np.transpose(X, perm) + 0.0

        def counts(idx, n_bins):
            c = np.zeros(n_bins)
            c[idx] = 1.0
            return c
        """)
    result, original, new = migrate_and_exec(source)
    infos = {d.line: d.message for d in result.diagnostics if d.code == "NPJ300" and "static argument used as" in d.message}
    assert [m.split(":")[0] for m in infos.values()] == ["`shape`", "`perm`"], infos
    x = np.ones((2, 3))
    np.testing.assert_array_equal(np.asarray(new["pad_to"](x, (3, 4))), original["pad_to"](x, (3, 4)))
    with pytest.raises(ValueError, match="Non-hashable static arguments"):
        new["pad_to"](x, [3, 4])  # what the info warns about


def test_parameters_an_operand_of_matmul_is_computed_from_are_never_static():
    """hunt33 L1: `ab = b - a; denom = ab @ ab; t = 0.0 if denom == 0 else ...` made `a` and `b` static (they
    looked like numbers reaching a test), so every ndarray there raised "Non-hashable static arguments".  An
    operand of `@` is an array: the parameters it is computed from by arithmetic stay traced."""
    source = textwrap.dedent(
        """
        import numpy as np

        def segment_distance(p, a, b):
            ab = b - a
            denom = ab @ ab
            t = 0.0 if denom == 0 else np.clip((p - a) @ ab / denom, 0, 1)
            return np.linalg.norm(p - (a + t * ab))

        def project(v, scale, k):
            w = scale * v
            return (w @ w) * np.ones(k)
        """
    )
    result = migrate(source)
    assert "static_argnums=(1, 2)" not in result.output.decode()
    assert "an operand of `@`" in next(d.message for d in result.diagnostics if d.code == "NPJ301")
    assert function_record(result, "project").static_argnums == (2,)  # `scale` stays traced too, `k` a size
    _, original, new = migrate_and_exec(source)
    p, a = np.array([1.0, 2.0]), np.array([0.0, 0.0])
    for b in (np.array([3.0, 0.0]), np.array([0.0, 0.0])):
        assert_matches_numpy(original, new, "segment_distance", (p, a, b))
    assert_matches_numpy(original, new, "project", (p, 2.0, 3))


def test_a_parameter_whose_elements_hold_objects_is_not_jitted():
    """real24 L1 (mcerp's correlation_matrix, 3 tests): `np.vstack([v._mcpts for v in items])` was jitted, and
    every call raised 'Error interpreting argument ... as an abstract array': `items` holds Python objects."""
    source = textwrap.dedent(
        """
        import numpy as np

        class Var:
            def __init__(self, pts):
                self._mcpts = np.asarray(pts, dtype=float)

        def correlation_matrix(items):
            data = np.vstack([v._mcpts for v in items])
            return np.corrcoef(data)

        def stacked_rows(rows):
            return np.vstack([r.T for r in rows])
        """
    )
    result, original, new = migrate_and_exec(source)
    assert not function_record(result, "correlation_matrix").jit
    assert any(d.code == "NPJ302" and "`._mcpts` is not an array attribute" in d.message for d in result.diagnostics)
    assert function_record(result, "stacked_rows").jit  # `.T` is an array attribute: a list of arrays
    items = [original["Var"]([1, 2, 3]), original["Var"]([2, 4, 7])]
    got = new["correlation_matrix"]([new["Var"]([1, 2, 3]), new["Var"]([2, 4, 7])])
    np.testing.assert_allclose(np.asarray(got), original["correlation_matrix"](items), rtol=1e-6)


def test_a_slice_bound_stays_static_though_it_meets_an_operand_of_matmul():
    """hunt35 FP1: `Xn = X[:n] / n; Xn.T @ Xn`: `n` bounds a slice, where only a Python int goes; the `@`
    evidence does not make it an array (it was jitted with static_argnums=(1,) before)."""
    source = textwrap.dedent(
        """
        import numpy as np

        def head_gram(X, n):
            Xn = X[:n] / n
            return Xn.T @ Xn
        """
    )
    result, original, new = migrate_and_exec(source)
    assert function_record(result, "head_gram").static_argnums == (1,)
    assert_matches_numpy(original, new, "head_gram", (np.arange(12.0).reshape(4, 3), 3))


def test_a_parameter_whose_elements_a_loop_reads_object_attributes_of_is_not_jitted():
    """real25 L2 (mcerp, 3 tests): `for v in map(to_v, items): np.mean(v.pts - 1.0)` was still jitted: the
    elements reached through a `for` loop (also over `map(f, items)`, `list(items)`, a name bound to one,
    `enumerate(vs)`) hold Python objects too."""
    source = textwrap.dedent(
        """
        import numpy as np

        class V:
            def __init__(self, a):
                self.pts = np.asarray(a, dtype=float)

        def to_v(x):
            return x if isinstance(x, V) else V([x, x])

        def means(items):
            out = []
            for v in map(to_v, items):
                out.append(np.mean(v.pts - 1.0))
            return out

        def firsts(items):
            return [np.sum(v.pts) for v in list(items)]

        def corr(items):
            vs = list(items)
            data = np.vstack([v.pts for v in vs])
            return np.corrcoef(data.T, rowvar=0)

        def squares(items):
            vs = list(map(to_v, items))
            out = []
            for i, v in enumerate(vs):
                out.append(np.mean(v.pts * v.pts))
            return out
        """
    )
    result, original, new = migrate_and_exec(source)
    for name in ("means", "firsts", "corr", "squares"):  # (real26: `vs = list(items)`, `enumerate(vs)`: mcerp)
        assert not function_record(result, name).jit, name
    items = [original["V"]([1.0, 2.0]), 3.0]
    got = new["means"]([new["V"]([1.0, 2.0]), 3.0])
    np.testing.assert_allclose(np.asarray(got), original["means"](items), rtol=1e-6)


def test_functions_taken_from_a_parameter_and_called_are_not_jitted():
    """hunt38 L6: `for fn in fns: x = fn(x)` and `[f(x) for f in fns]` were jitted with `fns` traced, so every call
    passing functions raised ("Error interpreting argument"), and a tuple of NumPy functions as the default raised
    on the tracer; such functions stay un-jitted now, as do NumPy functions in a tuple the function writes (they stay
    NumPy's: as values they may also be compared, hashed or returned, hunt41). Other functions listed in the
    function, also through zip, enumerate or reversed, are traced with it."""
    source = textwrap.dedent(
        """
        import numpy as np

        def pre(x, coef=0.97):
            return np.concatenate([x[:1], x[1:] - coef * x[:-1]])

        def chain(x, fns=None):
            if fns is None:
                fns = [lambda v: pre(v, 0.5), pre]
            for fn in fns:
                x = fn(x)
            return np.asarray(x) * 1.0

        def stacked(x, fns=(np.abs, np.sqrt)):
            return np.stack([f(x) for f in fns])

        def trig(x):
            return np.stack([f(x) for f in (np.sin, np.cos)])

        def features(x):
            fs = [np.mean, np.std, np.max]
            return np.array([f(x) for f in fs]) * 1.0

        def counts(x):
            return [len(f(x)) for f in (np.unique, np.flatnonzero)] + [np.sum(x)]

        ACTS = (pre,)
        NP_ACTS = (np.negative, pre)

        def wrapped(x):
            x = np.asarray(x, dtype=float)
            for f, w in zip((pre, lambda v: v * v), (0.5, 2.0)):
                x = x + w * f(x)
            for i, f in enumerate(reversed([pre, lambda v: v + 1.0])):
                x = x + i * f(x)
            for f in ACTS:
                x = f(x)
            return x

        def module_numpy(x):
            return np.stack([f(x) for f in NP_ACTS])

        def weighted(x, funcs, weights):
            return np.sum([w * f(x) for f, w in zip(funcs, weights)], axis=0)

        def powers(x):
            fs = (pre, lambda v: v * v)
            return np.stack([f(x) for f in fs])
        """
    )
    result, original, new = migrate_and_exec(source)
    for name in ("chain", "stacked", "counts", "weighted", "module_numpy", "trig", "features"):
        assert not function_record(result, name).jit, name
    for name in ("powers", "wrapped"):  # (hunt40 FP1: zip, enumerate, reversed, module-level)
        assert function_record(result, name).jit, name
    x = np.arange(1.0, 5.0)
    for name, args in (("chain", (x, [original["pre"]])), ("chain", (x,)), ("stacked", (x,)), ("trig", (x,)),
                       ("powers", (x,)), ("features", (x,)), ("wrapped", (x,)), ("module_numpy", (x,))):
        passed = (x, [new["pre"]]) if len(args) == 2 else args
        np.testing.assert_allclose(np.asarray(new[name](*passed)), original[name](*args), rtol=1e-6)


def test_a_function_that_cannot_be_jitted_passed_as_a_value_or_builtins_in_a_loop_block_jit():
    """real28 L2: `list(map(g, xs))` in a jitted caller, `g` refused jit for `float(x.sum())`, raised on the tracer;
    hunt40 L8: `for cls in (float, int): cls(x.sum())` needs concrete values. Both callers stay un-jitted now."""
    source = textwrap.dedent(
        """
        import numpy as np

        def g(x):
            if float(x.sum()) > 0:
                return x * 2.0
            return x

        def run(xs):
            return np.stack(list(map(g, xs)))

        def classes(x):
            return [cls(np.sum(x)) for cls in (float, int)]

        def scalar_types(x):
            return [t(x.sum()) for t in (np.float32, np.int64)]

        def next_pow2(n):
            return 1 << int(np.ceil(np.log2(n)))

        def padded(x):
            rows, cols = map(next_pow2, x.shape)
            return np.zeros((rows, cols)) + x.sum()
        """
    )
    result, original, new = migrate_and_exec(source)
    for name in ("run", "classes", "scalar_types"):
        assert not function_record(result, name).jit, name
    assert function_record(result, "padded").jit  # (hunt41 FP1: the helper only ever gets static sizes)
    np.testing.assert_allclose(np.asarray(new["padded"](np.ones((3, 5)))), original["padded"](np.ones((3, 5))))
    xs = [np.ones(3), -np.ones(3)]
    np.testing.assert_allclose(np.asarray(new["run"](xs)), original["run"](xs))
    assert new["classes"](np.arange(4.0)) == original["classes"](np.arange(4.0))
