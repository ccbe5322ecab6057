"""Row and column swaps: `A[[k, p]] = A[[p, k]]` (partial pivoting) and `M[i], M[j] = M[j].copy(), M[i].copy()`
with `i: int` parameters are exact as `.at[]` updates, and were refused (NPJ201) before."""

from __future__ import annotations

import textwrap

import numpy as np

from np2jax.engine import Options, migrate_source

SOURCE = textwrap.dedent("""\
    import numpy as np


    def solve_pivoting(A, b):
        A = A.astype(float).copy()
        b = b.astype(float).copy()
        n = A.shape[0]
        for k in range(n):
            p = np.argmax(np.abs(A[k:, k])) + k
            A[[k, p]] = A[[p, k]]
            b[[k, p]] = b[[p, k]]
            for i in range(k + 1, n):
                f = A[i, k] / A[k, k]
                A[i, k:] -= f * A[k, k:]
                b[i] -= f * b[k]
        x = np.zeros(n)
        for i in range(n - 1, -1, -1):
            x[i] = (b[i] - A[i, i + 1:] @ x[i + 1:]) / A[i, i]
        return x


    def swap_rows(M, i: int, j: int):
        M = M.copy()
        M[[i, j]] = M[[j, i]]
        return M


    def swap_columns(M, i: int, j: int):
        out = M * 1.0
        out[:, [i, j]] = out[:, [j, i]]
        return out


    def swap_rows_tuple(M, i: int, j: int):
        M = M.copy()
        M[i], M[j] = M[j].copy(), M[i].copy()
        return M


    def rotate_three(M, i: int, j: int, k: int):
        M = M.copy()
        M[[i, j, k]] = M[[j, k, i]]
        return M


    def swap_with_arrays(M, rows, other):
        M = M.copy()
        M[[rows, other]] = M[[other, rows]]
        return M
    """)


def _migrated():
    result = migrate_source(SOURCE.encode(), "swaps.py", Options())
    assert result.error is None
    return result, result.output.decode()


def test_swaps_migrate_and_jit():
    result, output = _migrated()
    status = {f.qualname: f for f in result.functions}
    for name in ("swap_rows", "swap_columns", "swap_rows_tuple"):
        assert status[name].jit and status[name].status == "migrated", output
    # its slices at `k` keep it un-jitted, and they change length at every step (`A[k:, k]`): eager jax.numpy would
    # compile kernels at each, so it is left as NumPy code (NPJ304); the swap itself is swap_rows' rewrite
    assert status["solve_pivoting"].status != "unsupported" and not status["solve_pivoting"].jit, output
    assert "A[[k, p]] = A[[p, k]]" in output and any(
        d.code == "NPJ304" and "length changes with the step" in d.message for d in result.diagnostics)
    # three rows: a repeated index would get different rows; index arrays: pairs of arrays may repeat anything
    assert status["rotate_three"].status == "unsupported" and status["swap_with_arrays"].status == "unsupported"
    codes = {d.code for d in result.diagnostics if d.line >= SOURCE.splitlines().index("def rotate_three(M, i: int, j: int, k: int):")}
    assert "NPJ201" in codes


def test_swaps_match_numpy_also_for_equal_indices():
    _, output = _migrated()
    original, migrated = {}, {}
    exec(compile(SOURCE, "original.py", "exec"), original)
    exec(compile(output, "migrated.py", "exec"), migrated)
    rng = np.random.default_rng(4)
    M = rng.normal(size=(4, 3)).astype(np.float32)
    for i, j in [(0, 2), (1, 1), (3, 0), (-1, 0)]:
        for name, arg in (("swap_rows", M), ("swap_rows_tuple", M), ("swap_columns", M.T)):
            want = original[name](arg, i, j)
            assert np.array_equal(np.asarray(migrated[name](arg, i, j)), want), (name, i, j)
    A = rng.normal(size=(5, 5)).astype(np.float32)
    b = rng.normal(size=5).astype(np.float32)
    want = original["solve_pivoting"](A, b)
    np.testing.assert_allclose(np.asarray(migrated["solve_pivoting"](A, b)), want, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(want, np.linalg.solve(A.astype(float), b.astype(float)), rtol=1e-9)
