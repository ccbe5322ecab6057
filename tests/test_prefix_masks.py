"""Prefixes and suffixes at a fori_loop index inside sums of elementwise terms: full-length masked operands.

The decision cases say which loops convert (the function is jitted, its prefixes become
``jnp.where(jax.lax.broadcasted_iota(...) < i, ..., False)``) and which keep NPJ303; the runtime tests
run the migrated solvers under jax.jit against NumPy on well-conditioned matrices of several sizes and
dtypes, on inputs with inf past the cut (which a product with a mask of 0 would turn into nan), on integer
and boolean data, and on a 2-D operand whose prefix axis is not its last.
"""

from __future__ import annotations

import functools
from pathlib import Path

import numpy as np
import pytest

from np2jax.rules.loop_to_fori import LoopToFori
from tests.test_jit import jit, loops_migrated_and_run, migrate, outcome

SOLVERS_MODULE = Path(__file__).resolve().parents[1] / "corpus" / "modules" / "iterative_solvers.py"


def _case(body: str, expected, name: str, args: str = "a, b"):
    source = f"""
        import numpy as np

        def f({args}):
            out = np.zeros(len(a))
            for i in range(len(a)):
                {body}
            return out
        """
    return pytest.param(source, expected, id=name)


CONVERTED = [
    _case("out[i] = a[:i] @ b[:i]", jit(), "matmul-of-prefixes"),
    _case("out[i] = np.dot(a[i + 1:], b[i + 1:])", jit(), "dot-of-suffixes"),
    _case("out[i] = np.vdot(a[:i], b[:i]) + np.inner(a[:i + 1], b[:i + 1])", jit(), "vdot-and-inner"),
    _case("out[i] = np.sum(a[:i] * b[:i])", jit(), "sum-of-a-product"),
    _case("out[i] = np.sum(a[:i] ** 2) + np.sum(np.abs(a[0:i] - b[0:i]))", jit(), "sum-of-zero-preserving-terms"),
    _case("out[i] = a[:i].sum() + (2 * a[:i] * b[:i] / 3).sum()", jit(), "sum-methods-and-literal-factors"),
    _case("out[i] = np.linalg.norm(a[:i]) + a[:i].dot(b[:i])", jit(), "norm-and-dot-method"),
    _case("out[i] = np.dot(M[i, :i], a[:i]) + np.dot(M[:i, i], b[:i])", jit(), "row-and-column-of-a-matrix", "M, a, b"),
]

STAYS = [
    _case("out[i] = np.mean(a[:i])", ("NPJ303", "NPJ304"), "mean-divides-by-the-length"),
    _case("out[i] = np.dot(a[:i], b[:i + 1])", ("NPJ303", "NPJ304"), "different-bounds"),
    _case("out[i] = np.dot(a[:i], b[i:])", ("NPJ303", "NPJ304"), "prefix-times-suffix"),
    _case("out[i] = np.sum(a[:i - 1])", ("NPJ303", "NPJ304"), "bound-negative-at-the-first-step"),
    _case("out[i] = np.sum(c * a[:i])", ("NPJ303", "NPJ304"), "factor-that-may-be-inf", "a, c"),
    _case("out[i] = np.sum(a[:i] / b[:i])", ("NPJ303", "NPJ304"), "quotient-zero-over-zero"),
    _case("out[i] = np.sum(np.exp(a[:i]))", ("NPJ303", "NPJ304"), "function-not-zero-at-zero"),
    _case("out[i] = np.sum(a[:i] + 1)", ("NPJ303", "NPJ304"), "term-not-zero-past-the-cut"),
    _case("out[i] = np.sum(a[:i], axis=0)", ("NPJ303", "NPJ304"), "reduction-with-an-axis"),
    _case("out[i] = a[:i][::-1].sum()", ("NPJ303", "NPJ304"), "prefix-indexed-again"),
    _case("out[i] = np.sort(a[:i]).sum()", ("NPJ303", "NPJ304"), "prefix-sorted"),
    _case("out[i] = np.max(a[:i] * b[:i])", ("NPJ303", "NPJ304"), "max-is-not-a-sum"),
    _case("out[i] = np.sum(a[:i] * b[:i]) + a[:i].shape[0]", ("NPJ303", "NPJ304"), "prefix-length-used"),
    _case("out[i] = np.dot(M[i, :i], M[:i, :i])", ("NPJ303", "NPJ304"), "operands-of-different-rank", "M, a"),
]


@pytest.mark.parametrize("source, expected", CONVERTED + STAYS)
def test_prefix_decisions(source, expected):
    result = migrate(source)
    found = outcome(result)
    assert found == {"f": expected}, [d.format() for d in result.diagnostics]
    output = result.output.decode()
    assert ("jax.lax.broadcasted_iota(" in output) == (expected[0] == "jit"), output
    if expected[0] == "jit":
        assert ":i]" not in output and "+ 1:]" not in output, output
        assert "read the whole array, masked" in " ".join(d.message for d in result.diagnostics)


def test_prefix_of_an_unrolled_loop_stays_a_static_slice():
    result = migrate("""
        import numpy as np

        def f(a, b):
            out = np.zeros(3)
            for i in range(3):
                out[i] = a[:i] @ b[:i]
            return out
        """)
    assert outcome(result) == {"f": jit()}
    output = result.output.decode()
    assert "a[:i] @ b[:i]" in output and "broadcasted_iota" not in output, output


def test_reversed_range_becomes_a_fori_loop_over_the_negated_index():
    result = migrate("""
        import numpy as np

        def f(x):
            out = np.zeros(len(x))
            acc = np.zeros(())
            for i in range(len(x) - 1, -1, -1):
                acc = acc * 0.5 + x[i]
                out[i] = acc
            return out
        """)
    assert outcome(result) == {"f": jit()}
    output = result.output.decode()
    assert "i = -_minus_i" in output and "jax.lax.fori_loop(-(len(x) - 1), 1, " in output, output


def test_reversed_range_that_collects_values_keeps_npj303():
    result = migrate("""
        import numpy as np

        def f(x):
            ys = []
            for i in range(len(x) - 1, -1, -1):
                ys.append(x[i] * 2)
            return np.array(ys)
        """)
    assert outcome(result)["f"] == ("NPJ303",)


SOLVERS = """
def gauss_seidel_sweep(A, b, x0):
    x = np.array(x0, dtype=float)
    n = len(b)
    for i in range(n):
        s = A[i, :i] @ x[:i] + A[i, i + 1:] @ x[i + 1:]
        x[i] = (b[i] - s) / A[i, i]
    return x

def doolittle(A):
    n = A.shape[0]
    L = np.eye(n)
    U = np.zeros((n, n))
    for i in range(n):
        for k in range(i, n):
            U[i, k] = A[i, k] - np.dot(L[i, :i], U[:i, k])
        for k in range(i + 1, n):
            L[k, i] = (A[k, i] - np.dot(L[k, :i], U[:i, i])) / U[i, i]
    return L, U

def row_energy(X):
    out = np.zeros(X.shape[0])
    for i in range(X.shape[0]):
        out[i] = np.sum(X[:i] ** 2) + np.vdot(X[i + 1:], X[i + 1:])
    return out

def prefix_dots(a, b):
    out = np.zeros(len(a))
    for i in range(len(a)):
        out[i] = np.dot(a[:i], b[:i]) - np.sum(a[i + 1:] * b[i + 1:])
    return out
"""


@functools.lru_cache(maxsize=None)
def _migrated_solvers():
    """NPJ305's example (forward_sub, back_sub) and the solvers above, migrated and executed."""
    pytest.importorskip("jax")
    example = next(e for e in LoopToFori.EXAMPLES if e.title.startswith("sums over prefixes"))
    return loops_migrated_and_run(example.source + SOLVERS, loops=8)


@functools.lru_cache(maxsize=None)
def _migrated_corpus_solvers():
    """corpus/modules/iterative_solvers.py, whose cholesky_factor and cholesky_solve are jitted."""
    source = SOLVERS_MODULE.read_text()
    result = migrate(source)
    jitted = {record.qualname for record in result.functions if record.jit}
    assert {"cholesky_factor", "cholesky_solve"} <= jitted
    original, migrated = {}, {}
    exec(compile(source, "original.py", "exec"), original)
    exec(compile(result.output, "migrated.py", "exec"), migrated)
    return original, migrated


def _check(original, migrated, name, *args, rtol=2e-4, atol=2e-5):
    import jax.numpy as jnp

    want = original[name](*args)
    got = migrated[name](*(jnp.asarray(a) for a in args))
    for w, g in zip(want if isinstance(want, tuple) else (want,), got if isinstance(got, tuple) else (got,)):
        assert np.shape(g) == np.shape(w), name
        assert np.all(np.isfinite(np.asarray(g))) == np.all(np.isfinite(w)), (name, g, w)
        np.testing.assert_allclose(np.asarray(g), w, rtol=rtol, atol=atol, err_msg=f"{name}{[np.shape(a) for a in args]}")


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n", [1, 2, 5, 9])
def test_solvers_run_under_jit_and_match_numpy(n, dtype):
    """forward_sub and back_sub (NPJ305's example), a Gauss-Seidel sweep, Doolittle, and the corpus's Cholesky
    factor and solve on random well-conditioned matrices; float32 tolerances (JAX computes in float32 unless
    x64 is on)."""
    output, original, migrated = _migrated_solvers()
    corpus_original, corpus_migrated = _migrated_corpus_solvers()
    assert "jax.lax.broadcasted_iota(int, U[:, k].shape, 0) < i" in output  # a column: masked along axis 0
    rng = np.random.default_rng(n)
    M = rng.normal(size=(n, n))
    spd = (M @ M.T + n * np.eye(n)).astype(dtype)
    lower = (np.tril(M) + (n + 1) * np.eye(n)).astype(dtype)
    b = rng.normal(size=n).astype(dtype)
    _check(original, migrated, "forward_sub", lower, b)
    _check(original, migrated, "back_sub", lower.T.copy(), b)
    _check(original, migrated, "gauss_seidel_sweep", spd, b, np.zeros(n, dtype))
    _check(original, migrated, "gauss_seidel_sweep", spd, b, b)
    _check(corpus_original, corpus_migrated, "cholesky_factor", spd)
    _check(corpus_original, corpus_migrated, "cholesky_solve", spd, b)
    _check(original, migrated, "doolittle", spd)
    X = rng.normal(size=(n, n)).astype(dtype)  # square: a mask along the wrong axis would go unnoticed by shapes
    _check(original, migrated, "row_energy", X)
    _check(original, migrated, "row_energy", rng.normal(size=(n, 3, 2)).astype(dtype))


def test_values_past_the_cut_never_leak_in():
    """inf and nan in the part of the matrix NumPy never reads: masked with jnp.where, not multiplied by 0."""
    _, original, migrated = _migrated_solvers()
    rng = np.random.default_rng(7)
    n = 6
    lower = np.tril(rng.normal(size=(n, n))) + 8 * np.eye(n)
    lower[np.triu_indices(n, 1)] = np.inf
    lower[0, -1] = np.nan
    b = rng.normal(size=n)
    _check(original, migrated, "forward_sub", lower.astype(np.float32), b.astype(np.float32))
    _check(original, migrated, "back_sub", lower.T.astype(np.float32), b.astype(np.float32))


@pytest.mark.parametrize("dtype", [np.int32, np.int16, np.bool_])
def test_integer_and_boolean_operands_keep_their_dtype(dtype):
    """False, the fill value, is the zero of every dtype: int and bool prefixes are summed as NumPy sums them
    (a dot of bools is a logical or of ands, True, where a mask of 0 would have made them ints: a count)."""
    _, original, migrated = _migrated_solvers()
    rng = np.random.default_rng(2)
    a = rng.integers(0, 3, size=7).astype(dtype)
    b = a.copy() if dtype is np.bool_ else rng.integers(0, 3, size=7).astype(dtype)
    if dtype is np.bool_:
        assert original["prefix_dots"](a, b).max() == 1 and a[:-1].sum() > 1  # would count past 1 if promoted
    _check(original, migrated, "prefix_dots", a, b, rtol=0, atol=0)


@pytest.mark.parametrize("bounds, expected", [
    ("range(k + 1, n)", jit()),  # n = A.shape[0]: a Python value
    ("range(k + 1, m)", jit(1)),  # the parameter m becomes static
    ("range(k, k + int(A[k, k]))", ("NPJ303", "NPJ304")),  # an array value (A is carried): not a fori_loop bound
    # (not jitted, its loop writes elements: left as NumPy code)
])
def test_inner_range_bounds_from_the_outer_index(bounds, expected):
    """A loop inside a fori_loop may run from the outer index: jax.lax.fori_loop takes traced bounds."""
    result = migrate(f"""
        import numpy as np

        def f(A, m):
            A = np.array(A, dtype=float)
            n = A.shape[0]
            for k in range(n):
                for i in {bounds}:
                    A[i] = A[i] - A[k] * 0.5
            return A
        """)
    assert outcome(result) == {"f": expected}, [d.format() for d in result.diagnostics]
    assert (f"jax.lax.fori_loop({bounds[6:-1]}, _loop_body, A)" in result.output.decode()) == (expected[0] == "jit")
