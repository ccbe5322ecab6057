"""Arrays kept in containers and views made by other means than slicing (redteam9 S-05, S-02, S-01): an in-place
update of such an array changes what the container or the caller's array holds in NumPy, and a rebinding
`p = p * 3` would not. Each function must be refused (NPJ201) and stay NumPy, so it computes what it did."""

from __future__ import annotations

import textwrap

import numpy as np
import pytest

from np2jax.engine import Options, migrate_source

SOURCE = textwrap.dedent("""\
    import numpy as np


    def via_dict_call(w):
        p = np.abs(w) + 1.0
        d = dict(p=p)
        p *= 3
        return d["p"]


    def via_dict_call_write(w):
        p = np.abs(w) + 1.0
        state = dict(p=p)
        p[0] = 9.0
        return state["p"]


    def via_list_repeat(w):
        p = np.abs(w) + 1.0
        lst = [p] * 2
        p *= 3
        return lst[1]


    def via_comprehension(w):
        p = np.abs(w) + 1.0
        lst = [p for _ in range(2)]
        p *= 3
        return lst[0]


    def via_splat(w):
        p = np.abs(w) + 1.0
        d = {**{"p": p}}
        p *= 3
        return d["p"]


    def via_tuple_concat(w):
        p = np.abs(w) + 1.0
        t = () + (p,)
        p *= 3
        return t[0]


    def via_lambda_default(w):
        p = np.abs(w) + 1.0
        get = lambda q=p: q
        p *= 3
        return get()


    def via_walrus(w):
        lst = [(p := np.abs(w) + 1.0)]
        p *= 3
        return lst[0]


    def via_sorted(w):
        p = np.abs(w) + 1.0
        ps = sorted([p], key=len)
        p *= 3
        return ps[0]


    def astype_no_copy(X):
        Y = X.astype(float, copy=False)
        Y /= np.abs(Y).max()
        return Y


    def array_no_copy(X):
        Y = np.array(X, copy=False)
        Y -= 1
        return Y


    def chained_view(A):
        B = A.copy()
        B[0] = B[1] = B[0, ::-1]
        return B


    def einsum_diagonal(A):
        B = A.copy()
        d = np.einsum("ii->i", B)
        d += 1.0
        return B


    def window_view(A):
        B = A.copy()
        w = np.lib.stride_tricks.sliding_window_view(B, 2, axis=1)
        B[0] = 100.0
        return w.sum(axis=-1)
    """)

NAMES = ["via_dict_call", "via_dict_call_write", "via_list_repeat", "via_comprehension", "via_splat",
         "via_tuple_concat", "via_lambda_default", "via_walrus", "via_sorted", "astype_no_copy", "array_no_copy",
         "chained_view", "einsum_diagonal", "window_view"]


@pytest.fixture(scope="module")
def migrated():
    result = migrate_source(SOURCE.encode(), "containers.py", Options())
    assert result.error is None
    return result


def test_each_is_refused(migrated):
    status = {f.qualname: f.status for f in migrated.functions}
    assert {name: status[name] for name in NAMES} == {name: "unsupported" for name in NAMES}, migrated.output.decode()
    assert sum(d.code == "NPJ201" for d in migrated.diagnostics) >= len(NAMES)


def test_each_still_computes_what_numpy_does(migrated):
    original, new = {}, {}
    exec(compile(SOURCE, "original.py", "exec"), original)
    exec(compile(migrated.output, "migrated.py", "exec"), new)
    w = np.array([0.5, -1.0, 2.0, 3.0])
    X = np.array([[1.0, -2.0], [3.0, 4.0]])
    for name in NAMES:
        arg = w if name.startswith("via") else X if "copy" in name else np.arange(12.0).reshape(3, 4)
        arg = np.arange(9.0).reshape(3, 3) if name == "einsum_diagonal" else arg
        mine, theirs = arg.copy(), arg.copy()
        assert np.array_equal(np.asarray(new[name](mine)), original[name](theirs)), name
        assert np.array_equal(mine, theirs), name  # and the caller's array changed the same way


def test_plain_copies_and_arithmetic_still_migrate():
    source = textwrap.dedent("""\
        import numpy as np


        def scaled(w):
            p = np.abs(w) + 1.0
            q = p * 3
            p[0] = 9.0
            r = [q] * 2
            return p, r[0]
        """)
    result = migrate_source(source.encode(), "plain.py", Options())
    assert [f.status for f in result.functions] == ["migrated"] and result.functions[0].jit, result.output.decode()


def test_a_python_int_counter_copied_and_incremented_is_no_view():
    """`j = i` of a Python int counter, then `j += 1` (hunt10 08), was NPJ201 "`j` is a view of another array"."""
    source = textwrap.dedent("""\
        import numpy as np


        def run_lengths(xs):
            n = len(xs)
            out = np.zeros(n, dtype=int)
            i = 0
            while i < n:
                j = i
                while j + 1 < n and xs[j + 1] == xs[i]:
                    j += 1
                out[i] = j - i + 1
                i = j + 1
            return out
        """)
    result = migrate_source(source.encode(), "runs.py", Options())
    assert result.functions[0].status != "unsupported" and "NPJ201" not in {d.code for d in result.diagnostics}
    namespace: dict = {}
    exec(compile(result.output, "runs.py", "exec"), namespace)
    xs = np.array([1, 1, 2, 3, 3, 3, 1])
    assert np.asarray(namespace["run_lengths"](xs)).tolist() == [2, 0, 1, 3, 0, 0, 1]


def test_an_advanced_index_makes_a_copy_that_op_assign_may_update():
    """hunt13 FP: `d = B[np.arange(n), np.arange(n)]; d += 100` was NPJ201 ("a view into `B` unless it has exactly 2
    dimensions"): an integer-array (or list, or mask) index always copies, in NumPy as in JAX."""
    from tests.test_real_code_regressions import migrated_pair, record

    result, original, migrated = migrated_pair(
        """
        import numpy as np

        def diagonal_plus(A):
            B = A.copy()
            d = B[np.arange(B.shape[0]), np.arange(B.shape[0])]
            d += 100.0
            return B, d

        def picked(A):
            r = A[[0, 2], 1:]
            r *= 2.0
            return A, r

        def row_view(A):
            r = A[0]
            r += 1.0
            return A
        """
    )
    assert record(result, "diagonal_plus").jit and record(result, "picked").status == "migrated"
    assert record(result, "row_view").status == "unsupported"  # a basic index: a view, NPJ201 as before
    A = np.arange(12.0).reshape(3, 4)
    for name in ("diagonal_plus", "picked"):
        for got, want in zip(getattr(migrated, name)(A.copy()), getattr(original, name)(A.copy())):
            np.testing.assert_array_equal(got, want)
