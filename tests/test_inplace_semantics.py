"""In-place semantics that a rebinding would lose silently: checked by running both versions.

* ``acc += v`` on an int8 ... int32/float32 array keeps (and wraps in) the array's dtype in NumPy;
  JAX's rebinding would promote, so the migration spells out the cast.
* ``self.x += v`` on what a caller handed to the constructor changes the caller's array in NumPy:
  the class stays NumPy, and so does the function that creates the object and reads its own array.
* ``x += v`` on a name bound to a list or dict element, an attribute, a row, or a loop variable over a
  container changes that shared array in NumPy: NPJ201, the function stays NumPy; Python numbers,
  copies and items of arrays of known rank are not shared and migrate.
* NumPy code that writes into (or augments an alias of) what a same-module function returns or sets up
  keeps that function NumPy too (NPJ202 on it, naming the writer), transitively through what it returns.
* In a function that is not jitted, arrays that may still be the caller's NumPy arrays are read through
  ``jnp.asarray`` before ``.at`` (NumPy arrays have none).
"""

from __future__ import annotations

import numpy as np
import pytest

from np2jax.engine import migrate_source

NARROW = """
import numpy as np


def neighbours(board):
    n = np.zeros(board.shape, dtype=np.int8)
    for dy in (-1, 0, 1):
        for dx in (-1, 0, 1):
            n += np.roll(np.roll(board, dy, axis=0), dx, axis=1)
    return n


def column_totals(x):
    h = np.zeros(x.shape[1], "int16")
    for i in range(len(x)):
        h += x[i]
    return h


def plain(x):
    acc = np.zeros(x.shape)
    acc += x
    return acc


def single(x):
    acc = np.zeros(x.shape[1], dtype=np.float32)
    for i in range(x.shape[0]):
        acc += x[i]
    return acc
"""

SHARED = """
import numpy as np


class Accumulator:
    def __init__(self, total, scale=1.0):
        self.total = total
        self.scale = scale
        self.count = 0

    def add(self, x):
        self.total += self.scale * np.asarray(x)
        self.count += 1


def integrate(samples, dt=0.5):
    state = np.zeros(samples.shape[-1])
    acc = Accumulator(state, dt)
    for k in range(samples.shape[0]):
        acc.add(samples[k])
    return state
"""


def _run(source):
    result = migrate_source(source.encode(), "m.py")
    original, migrated = {}, {}
    exec(compile(source, "original.py", "exec"), original)
    exec(compile(result.output, "migrated.py", "exec"), migrated)
    return result, original, migrated


def test_augmented_assignment_keeps_a_narrow_dtype_and_wraps_like_numpy():
    jnp = pytest.importorskip("jax.numpy")
    result, original, migrated = _run(NARROW)
    output = result.output.decode()
    assert "n = (n + jnp.roll(" in output and ").astype(n.dtype)" in output, output
    assert "h = (h + x[i]).astype(h.dtype)" in output, output
    assert "acc += x" in output  # float64 arrays: nothing to keep
    assert "acc = (acc + x[i]).astype(acc.dtype)" in output, output  # float32: float64 under x64 otherwise
    assert {r.qualname for r in result.functions if r.jit} == {"neighbours", "column_totals", "plain", "single"}, output
    board = np.full((5, 5), 40)  # nine neighbours of 40: 360, which int8 wraps to 104
    x = np.random.default_rng(0).integers(0, 30000, size=(5, 3))
    for name, arg in (("neighbours", board), ("column_totals", x), ("plain", x), ("single", x)):
        want = original[name](arg)
        got = np.asarray(migrated[name](jnp.asarray(arg)))
        assert got.dtype == want.dtype or name == "plain", name
        np.testing.assert_array_equal(got, want, err_msg=name)


def test_augmented_attribute_holding_the_callers_array_keeps_the_class_and_its_creator_numpy():
    result, original, migrated = _run(SHARED)
    assert result.output.decode() == SHARED  # nothing changes: the caller relies on `total` being updated
    codes = sorted((d.line, d.code) for d in result.diagnostics if d.code in ("NPJ201", "NPJ202"))
    lines = SHARED.splitlines()
    assert codes == sorted([
        (lines.index("    def __init__(self, total, scale=1.0):") + 1, "NPJ202"),
        (lines.index("        self.total += self.scale * np.asarray(x)") + 1, "NPJ201"),
        (lines.index("    acc = Accumulator(state, dt)") + 1, "NPJ202"),
    ]), result.diagnostics
    xs = np.arange(6.0).reshape(3, 2)
    np.testing.assert_array_equal(migrated["integrate"](xs), original["integrate"](xs))
    assert migrated["integrate"](xs).sum() == 0.5 * xs.sum()


UNJITTED = """
import numpy as np


def backward_cumsum(xs):
    x = xs.copy()
    for k in range(len(x) - 2, -1, -2):  # a step of -2: left as it is (NPJ303)
        x[k] += x[k + 1]
    return x


def zero_first(a, verbose=False):
    b = a * 1.0
    b[0] = 0.0
    print("zeroed", b.shape)
    return b


def ramp(n):
    out = np.zeros(n)
    out[1:] = 1.0
    print(n)
    return out


class Filter:
    def __init__(self, P):
        self.P = P.copy()
        self.Q = np.eye(len(P)) * 0.1

    def predict(self):
        self.P[0, 0] += 1.0
        self.Q[0, 0] *= 2.0
        return self.P + self.Q
"""


def test_updates_in_functions_that_are_not_jitted_work_on_numpy_arguments():
    # Not jitted (a `print`, a loop np2jax leaves as it is, a method): the function runs on the caller's
    # NumPy arrays, and `xs.copy()` of one has no `.at` -- it is read through jnp.asarray.
    result, original, migrated = _run(UNJITTED)
    output = result.output.decode()
    assert "        x[k] += x[k + 1]" in output, output  # an element loop, not jitted: left as NumPy code (NPJ304)
    assert "b = jnp.asarray(b).at[0].set(0.0)" in output, output
    assert "out = out.at[1:].set(1.0)" in output, output  # jnp.zeros: a JAX array already
    assert "self.P = jnp.asarray(self.P).at[0, 0]" in output and "self.Q = self.Q.at[0, 0]" in output, output
    assert not any(r.jit for r in result.functions), output
    xs = np.arange(5.0)
    for name, args in (("backward_cumsum", (xs,)), ("zero_first", (xs,)), ("ramp", (4,))):
        np.testing.assert_allclose(np.asarray(migrated[name](*args)), original[name](*args), err_msg=name)
    P = np.eye(2)
    want, got = original["Filter"](P.copy()), migrated["Filter"](P.copy())
    for _ in range(2):
        np.testing.assert_allclose(np.asarray(got.predict()), want.predict())


SHARED_NAMES = """
import numpy as np


def first_bumped(n):
    arrs = [np.zeros(n), np.ones(n)]
    a = arrs[0]
    a += 1.0
    return arrs[0]


def state_bumped(n):
    s = {"x": np.zeros(n)}
    x = s["x"]
    x += 1.0
    return s["x"]


def sgd_step(n):
    ws = [np.ones(n), np.ones(n)]
    gs = [np.ones(n), np.ones(n)]
    for w, g in zip(ws, gs):
        w -= 0.5 * g
    return ws[0] + ws[1]


def looked_up(n):
    s = {"x": np.zeros(n)}
    x = s.get("x")
    x += 2.0
    return s["x"]


def decay_all(n):
    buffers = [np.ones(n), 2.0 * np.ones(n)]
    for i, buf in enumerate(buffers):
        buf *= 0.5 + i
    return buffers[0] + buffers[1]


def first_row_total(n):
    grid = np.ones((n, n))
    acc = grid[0]
    for i in range(1, n):
        acc += grid[i]
    return grid.sum()


class Filter:
    def __init__(self, n):
        self.P = np.eye(n)
        self.steps = 0

    def inflate(self, q):
        P = self.P
        P += q
        k = self.steps
        k += 1
        return self.P.trace() + k


def inflated(n):
    return Filter(n).inflate(0.5)


def number_sum(x):
    s = 0.0
    for i in range(x.shape[0]):
        s += x[i]
    return s


def item_of_a_vector(n: int):
    v = np.arange(n) * 1.0
    t = v[0]
    t += 5.0
    return v + t


def scaled_copies(n):
    total = np.zeros(n)
    for c in (0.5, 2.0):
        c *= 2.0
        total = total + c
    return total


def copied_row(n):
    grid = np.ones((n, n))
    acc = grid[0].copy()
    for i in range(1, n):
        acc += grid[i]
    return grid.sum() + acc.sum()
"""


def test_augmented_assignment_on_a_shared_name_stays_numpy():
    """NumPy's `x += v` writes into the array `x` shares with a container, an object or another array;
    JAX's only rebinds `x`.  Such functions are NPJ201 and left NumPy; the unshared ones still migrate."""
    jnp = pytest.importorskip("jax.numpy")
    result, original, migrated = _run(SHARED_NAMES)
    lines = SHARED_NAMES.splitlines()
    flagged = sorted(d.line for d in result.diagnostics if d.code == "NPJ201")
    assert flagged == sorted(lines.index(text) + 1 for text in (
        "    a += 1.0", "    x += 1.0", "    x += 2.0", "        w -= 0.5 * g", "        buf *= 0.5 + i", "        acc += grid[i]", "        P += q",
    )), [d.format() for d in result.diagnostics]
    jitted = {r.qualname for r in result.functions if r.jit}
    assert {"number_sum", "item_of_a_vector", "scaled_copies", "copied_row"} <= jitted, result.output.decode()
    assert not jitted & {"first_bumped", "state_bumped", "looked_up", "sgd_step", "decay_all", "first_row_total"}
    for name, args in (("first_bumped", (3,)), ("state_bumped", (3,)), ("looked_up", (3,)), ("sgd_step", (3,)), ("decay_all", (3,)),
                       ("first_row_total", (3,)), ("inflated", (3,)), ("item_of_a_vector", (3,)),
                       ("scaled_copies", (3,)), ("copied_row", (3,))):
        np.testing.assert_array_equal(np.asarray(migrated[name](*args)), original[name](*args), err_msg=name)
    x = np.arange(4.0)
    assert float(migrated["number_sum"](jnp.asarray(x))) == original["number_sum"](x)


PRODUCERS = """
import numpy as np


def make(n):
    return np.zeros(n)


def bump_through_alias(n):
    x = make(n)
    y = x
    y += 1.0
    return x


class Box:
    pass


def make_box(n):
    b = Box()
    b.x = np.zeros(n)
    b.F = np.eye(n)
    return b


def bump_attr(n):
    b = make_box(n)
    x = b.x
    x += 1.0
    return b.x


def frozen(n):
    b = make_box(n)
    b.F[0, 1] = 7.0
    return b.F


def transition(n):
    return np.eye(n) * 2.0


def make_holder(n):
    h = Box()
    h.F = transition(n)
    return h


def clear_first(n):
    h = make_holder(n)
    h.F.fill(0.0)
    return h.F


class Model:
    def __init__(self, n):
        self.W = np.ones((n, n))

    def apply(self, x):
        return self.W @ x


def pruned(n):
    m = Model(n)
    m.W[0, 0] = 0.0
    return m.apply(np.ones(n))


def ranked(n):
    return np.arange(n)[::-1] * 1.0


def in_order(n):
    p = ranked(n)
    p.sort()
    return p


def untouched(n):
    return np.ones(n) * 3.0


def reads_only(n):
    q = untouched(n)
    q = q + 1.0
    return q
"""


def test_numpy_code_writing_into_a_result_keeps_its_producer_numpy():
    """A function that stays NumPy and writes into (or augments an alias of) what a same-module function
    returns, or the arrays of an object it returns or sets up, keeps that function NumPy: migrated, it
    would hand back JAX arrays, which raise on `b.F[i] = v` and silently ignore `y += 1` and `.sort()`."""
    pytest.importorskip("jax")
    result, original, migrated = _run(PRODUCERS)
    status = {r.qualname: r for r in result.functions}
    kept = {"make": ("bump_through_alias",), "make_box": ("bump_attr", "frozen"), "transition": ("clear_first", "frozen"),
            "Model.__init__": ("pruned",), "ranked": ("in_order",)}  # make_holder, unchanged, hands on `transition`'s
    # (attributes are told apart by name only: `frozen`'s write into `b.F` counts for `h.F = transition(n)` too)
    for producer, writers in kept.items():
        assert status[producer].status == "unsupported" and not status[producer].jit, producer
        record = status[producer]
        # the writer is named as NumPy code writing into the result, or as code writing the attribute it is stored in
        assert any(d.code == "NPJ202" and any(f"`{w}` stays NumPy" in d.message or f"`{w}` writes `." in d.message
                                              for w in writers)
                   and record.line <= d.line <= record.end_line
                   for d in result.diagnostics), (producer, [d.format() for d in result.diagnostics])
    assert status["untouched"].jit and status["reads_only"].jit  # not written into: both migrate
    for name in ("bump_through_alias", "bump_attr", "frozen", "clear_first", "pruned", "in_order", "reads_only"):
        np.testing.assert_array_equal(np.asarray(migrated[name](3)), original[name](3), err_msg=name)


INPLACE_CALLS = """
import numpy as np


def scatter(idx, w, n):
    x = np.zeros(n)
    np.add.at(x, idx, w)
    np.subtract.at(x, idx[:2], 0.5)
    np.maximum.at(x, idx, 1.5)
    return x


def tally(n):
    x = np.zeros(n)
    np.add.at(x, [0, 2, 2], 1.0)  # a list index: JAX needs it as an array
    return x


def reset(a):
    y = np.zeros_like(a)
    np.copyto(y, a * 2)
    z = np.empty(a.shape)
    z.fill(3.0)
    return y + z


def ordered(a):
    y = np.abs(a)
    y.sort()
    g = np.ones((4, 4))
    np.fill_diagonal(g, 0.0)
    return y, g


def clipped(a):
    y = np.empty_like(a)
    np.multiply(a, 2.0, out=y)
    y.clip(-1.0, 1.0, out=y)
    np.putmask(y, y < 0, 0.0)
    return y


def on_parameter(x, idx):
    np.add.at(x, idx, 1.0)


def through_alias(n, idx):
    y = np.zeros(n)
    z = y
    np.add.at(y, idx, 1.0)
    return z
"""


def test_in_place_numpy_calls_on_local_arrays_become_their_functional_results():
    jnp = pytest.importorskip("jax.numpy")
    result, original, migrated = _run(INPLACE_CALLS)
    output = result.output.decode()
    for line in ("x = x.at[idx].add(w)", "x = x.at[idx[:2]].subtract(0.5)", "x = x.at[idx].max(1.5)",
                 "y = jnp.broadcast_to(jnp.asarray(a * 2, y.dtype), y.shape)", "z = jnp.full_like(z, 3.0)",
                 "y = jnp.sort(y)", "g = jnp.fill_diagonal(g, 0.0, inplace=False)",
                 "y = jnp.multiply(a, 2.0).astype(y.dtype)", "y = y.clip(-1.0, 1.0)",
                 "y = jnp.where(y < 0, jnp.asarray(0.0, y.dtype), y)"):
        assert line in output, (line, output)
    # the caller's array, or another name's, would no longer change: still NPJ111 errors, left as NumPy
    assert sorted(d.code for d in result.diagnostics if d.severity.name == "ERROR") == ["NPJ111", "NPJ111"], result.diagnostics
    assert "x = x.at[jnp.asarray([0, 2, 2])].add(1.0)" in output, output
    assert migrate_source(result.output, "m.py").output == result.output  # a second pass changes nothing
    assert {r.qualname for r in result.functions if r.jit} == {"scatter", "tally", "reset", "ordered", "clipped"}, output
    idx = np.array([0, 2, 2, 4, 2])  # repeats: np.add.at accumulates them, and so does .at[].add
    a = np.linspace(-2.0, 2.0, 7)
    for name, args in (("scatter", (idx, np.arange(5.0), 6)), ("tally", (4,)), ("reset", (a,)), ("ordered", (a,)), ("clipped", (a,))):
        want = original[name](*args)
        got = migrated[name](*(jnp.asarray(x) if isinstance(x, np.ndarray) else x for x in args))
        for w, g in zip(want if isinstance(want, tuple) else (want,), got if isinstance(got, tuple) else (got,)):
            np.testing.assert_allclose(np.asarray(g), w, rtol=1e-6, err_msg=name)


SORTED_ARITHMETIC = """\
import numpy as np


def rolling_median(x, w):
    n_out = len(x) - w + 1
    out = np.zeros(n_out)
    for i in range(n_out):
        seg = x[i:i + w] - 0.0
        seg.sort()
        out[i] = seg[w // 2]
    return out


def losses_var(returns):
    losses = -returns
    losses.sort()
    return losses[-2]


def ranked(a, b):
    d = a - b
    d.sort(kind="stable")
    return np.cumsum(d)


def sort_rows(X):
    Y = X + 0.0
    Y.sort(axis=1)
    return Y[:, 0]


def user_of(x):
    return losses_var(x) + 1.0


def as_list(xs):
    v = xs + []
    v.sort()
    return v
"""


def test_sort_of_an_arithmetic_result_is_an_arrays_sort():
    """hunt15 S1: `v = -x` (`y - yhat`, `x[i:i + w] - base`, `x * 1.0`) can only be an array (a list refuses the
    arithmetic, a number has no `.sort()`): `v.sort()` becomes `v = jnp.sort(v)` (a JAX array's `.sort()` returns
    a copy), also with `kind=`; the function is array code, jitted, and so is its caller. `xs + []` may be a list."""
    from tests.runtime_helpers import assert_matches_numpy, migrate_and_exec

    result, original, new = migrate_and_exec(SORTED_ARITHMETIC)
    output = result.output.decode()
    assert output.count("= jnp.sort(") == 4 and "jnp.sort(Y, axis=1)" in output and "    v.sort()" in output
    assert {"rolling_median", "losses_var", "ranked", "sort_rows", "user_of"} <= {r.qualname for r in result.functions if r.jit}
    x = np.array([5.0, 1.0, 9.0, 3.0, 7.0, 2.0, 8.0], dtype=np.float32)
    assert_matches_numpy(original, new, "rolling_median", (x, 3))
    for name, args in (("losses_var", (x,)), ("user_of", (x,)), ("ranked", (x, x[::-1].copy())),
                       ("sort_rows", (x[:6].reshape(2, 3),))):
        assert_matches_numpy(original, new, name, args)
    assert new["as_list"]([3, 1, 2]) == [1, 2, 3]


def test_a_sort_of_what_may_be_a_list_in_jitted_code_is_refused():
    """hunt16 S1/S2: `v = x * 2` (`a + b`) may be a list in NumPy code, but jitted it is a tracer whose `.sort()`
    returns a copy: NPJ201, the function (and a caller of such a helper) stays NumPy and computes what it did. A
    list built in the function (`list(a) + list(b)`) is sorted as before."""
    source = """\
import numpy as np


def sort_kind(x):
    v = x * 2
    v.sort(kind="stable")
    return v


def spread(a, b):
    v = a + b
    v.sort()
    return v - np.min(a)


def helper(x):
    v = x * 2
    v.sort()
    return v


def caller(x):
    return np.cumsum(helper(x))


def merged(a, b):
    v = list(a) + list(b)
    v.sort()
    return v
"""
    from tests.runtime_helpers import migrate_and_exec

    result, original, new = migrate_and_exec(source)
    errors = {(d.line, d.code) for d in result.diagnostics if d.severity.value == "error"}
    assert {(6, "NPJ201"), (12, "NPJ201"), (18, "NPJ201"), (23, "NPJ202")} <= errors, errors
    assert not any(line >= 26 for line, _ in errors)
    x = np.array([3.0, -1.0, 2.0], dtype=np.float32)
    for name, args in (("sort_kind", (x,)), ("spread", (x, x * 0 + 0.5)), ("caller", (x,))):
        np.testing.assert_allclose(new[name](*[a.copy() for a in args]), original[name](*[a.copy() for a in args]))
    assert new["merged"]([3, 1], [2]) == [1, 2, 3]


HANDED_BACK = """
import numpy as np


def regularized(A, eps=1e-3):
    A[np.diag_indices_from(A)] += eps
    return A


def _clip_low(x):
    x[x < 0.5] = 0.5
    x += 1.0
    return x


def pipeline(v):
    w = v * 2.0
    w = _clip_low(w)
    return w


def solve(n, b):
    A = regularized(np.eye(n), 2.0)
    return np.linalg.solve(A, b)


def _zero_first(x, k):
    if k > 2:
        return x
    x[0] = k
    return x


def zeroed(v, k):
    return _zero_first(v.copy(), k) + v


def _bump(x):
    x[1] = 3.0
    return x


def reads_after(v):
    u = v * 1.0
    w = _bump(u)
    return u + w


def _tail(x):
    x[0] = 1.0
    if x.sum() > 0:
        return x


def as_value(v):
    return list(map(_bump_passed, [v]))[0]


def _bump_passed(x):
    x[2] = 7.0
    return x
"""


def test_a_function_returning_the_parameter_it_writes_into_migrates_unless_a_caller_relies_on_the_write():
    """``A[i] += eps; return A`` (hunt44 FP12): callers that use the result see the same array either way, so
    the writes become ``.at[]`` updates (NPJ203 says a caller elsewhere keeping its array no longer sees them);
    a caller in the module that may read its own array after the call, or hands the function on as a value,
    relies on the write, and then the function stays NumPy (NPJ201 naming that caller)."""
    jnp = pytest.importorskip("jax.numpy")
    result, original, migrated = _run(HANDED_BACK)
    output = result.output.decode()
    status = {r.qualname: (r.status, r.jit) for r in result.functions}
    for name in ("regularized", "_clip_low", "pipeline", "solve", "_zero_first"):
        assert status[name][1], (name, status[name], output)
    assert "A = A.at[jnp.diag_indices_from(A)].add(eps)" in output, output
    handed = sorted(d.line for d in result.diagnostics if d.code == "NPJ203")
    lines = HANDED_BACK.splitlines()
    assert handed == sorted(next(i + 1 for i, text in enumerate(lines) if text.startswith(f"def {name}("))
                            for name in ("regularized", "_clip_low", "_zero_first")), [d.format() for d in result.diagnostics]
    relied = {d.line: d.message for d in result.diagnostics if d.code == "NPJ201"}
    assert any("`reads_after` passes `u` to `_bump` and may read it after the call" in m for m in relied.values()), relied
    assert any("used as a value" in m for m in relied.values()), relied
    assert any("it also returns a value" in m for m in relied.values()), relied  # `_tail` falls off its end: None
    assert not status["reads_after"][1] and not status["_bump"][1] and not status["_tail"][1]
    rng = np.random.default_rng(3)
    v = rng.random(5)
    b = rng.random(4)
    for name, args in (("regularized", (rng.random((3, 3)),)), ("pipeline", (v,)), ("solve", (4, b)),
                       ("zeroed", (v, 1)), ("zeroed", (v, 3)), ("reads_after", (v,)), ("as_value", (v,))):
        want = original[name](*[a.copy() if isinstance(a, np.ndarray) else a for a in args])
        jax_input = status[name][1] or name == "zeroed"  # NumPy code left as it is takes NumPy arrays
        got = migrated[name](*[jnp.asarray(a) if isinstance(a, np.ndarray) and jax_input else a for a in args])
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-6, err_msg=name)


BUMP = """
import numpy as np


def _bump(x):
    x[1] += 3.0
    return x


def _halve(x):
    x *= 0.5
    return x

"""

RELIED_ON_BY_REBINDING = {
    # another name holds the caller's array: `a = _bump(a)` also changes `c` in NumPy
    "rebind_alias": "def rebind_alias(n):\n    a = np.ones(n)\n    c = a\n    a = _bump(a)\n    return c * 2.0\n",
    "halve_alias": "def halve_alias(n):\n    a = np.ones(n)\n    c = a\n    a = _halve(a)\n    return c * 2.0\n",
    # a view: the write shows through `M`
    "slice_view": "def slice_view(n):\n    M = np.zeros((n, 3))\n    v = M[0]\n    v = _bump(v)\n    return M\n",
    # a dict holds it
    "dict_item": "def dict_item(n):\n    d = {'a': np.zeros(n)}\n    a = d['a']\n    a = _bump(a)\n    return d['a']\n",
    # the caller's own parameter: its caller holds the array too
    "param_rebind": ("def param_rebind(v):\n    v = _bump(v)\n    return v.sum()\n\n\n"
                     "def outer(n):\n    a = np.zeros(n)\n    s = param_rebind(a)\n    return a + s\n"),
    # an attribute holding the caller's array
    "use_acc": ("class Acc:\n    def __init__(self, w):\n        self.w = w\n\n    def step(self):\n"
                "        self.w = _bump(self.w)\n        return self.w\n\n\n"
                "def use_acc(n):\n    w = np.zeros(n)\n    Acc(w).step()\n    return w\n"),
}


@pytest.mark.parametrize("name", sorted(RELIED_ON_BY_REBINDING))
def test_rebinding_the_result_of_a_handed_back_write_still_relies_on_it_when_the_array_is_shared(name):
    """hunt47 S1-S4/S6: `a = f(a)` was taken for "the caller only sees the result"; but an alias (`c = a`), a
    view (`v = M[0]`), a container, an attribute or the caller's own parameter holds the same array, and NumPy's
    write shows through it. The written function stays NumPy (NPJ201) and the caller computes what NumPy did."""
    source = BUMP + RELIED_ON_BY_REBINDING[name]
    result, original, migrated = _run(source)
    status = {r.qualname: r.jit for r in result.functions}
    callee = "_halve" if name == "halve_alias" else "_bump"
    assert not status[callee], result.output.decode()
    write = source.splitlines().index(f"def {callee}(x):") + 2  # its first statement
    assert any(d.code == "NPJ201" and d.line == write for d in result.diagnostics), [d.format() for d in result.diagnostics]
    entry = "outer" if name == "param_rebind" else name
    np.testing.assert_array_equal(np.asarray(migrated[entry](3)), original[entry](3))


def test_a_fresh_array_not_read_after_the_call_may_be_handed_to_a_writing_function():
    """hunt47 FP: `A = regularized(G, eps)` with `G = np.eye(n)` never read again observes nothing of the write."""
    source = (BUMP + "def regularized(A, eps):\n    A[np.diag_indices_from(A)] += eps\n    return A\n\n\n"
              "def solve(n, b):\n    G = np.eye(n)\n    A = regularized(G, 1e-3)\n    return np.linalg.solve(A, b)\n\n\n"
              "def solve_twice(n, b):\n    G = np.eye(n)\n    A = regularized(G, 1e-3)\n    return np.linalg.solve(A + G, b)\n")
    result, original, migrated = _run(source)
    status = {r.qualname: r.jit for r in result.functions}
    assert not status["solve_twice"] and not status["regularized"], result.output.decode()  # G is read after
    assert any("`solve_twice` passes `G` to `regularized`" in d.message for d in result.diagnostics)
    fresh, _ = _run(source.split("def solve_twice")[0])[:2]
    assert {r.qualname: r.jit for r in fresh.functions}["solve"], fresh.output.decode()
    b = np.arange(1.0, 5.0)
    np.testing.assert_allclose(np.asarray(migrated["solve_twice"](4, b)), original["solve_twice"](4, b), rtol=1e-6)
    # hunt48 S4: `return G, regularized(G, eps)`: the tuple holds `G` too, read before the call in its statement
    paired = source.split("def solve(")[0] + "def paired(n):\n    G = np.eye(n)\n    return G, regularized(G, 1e-3)\n"
    result, original, migrated = _run(paired)
    assert any("`paired` passes `G` to `regularized`" in d.message for d in result.diagnostics), result.output.decode()
    for got, want in zip(migrated["paired"](3), original["paired"](3)):
        np.testing.assert_array_equal(np.asarray(got), want)


CONTAINER_ITEMS = """
import collections

import numpy as np


def dict_item(n):
    m = np.linspace(0.0, 1.0, n)
    d = {}
    d["a"] = m
    d["a"] += 1.0
    return m


def list_item(n):
    m = np.linspace(0.0, 1.0, n)
    parts = [m, m * 2]
    parts[0] += 1.0
    return m


def repeated(n):
    parts = [np.zeros(n)] * 2
    parts[0] += 1.0
    return parts[1]


def appended(n):
    m = np.zeros(n)
    parts = []
    parts.append(m)
    parts[0] += 1.0
    return m


def taken_out(n):
    parts = [np.zeros(n), np.ones(n)]
    first = parts[0]
    parts[0] += 1.0
    return first


def gradients(n):
    grads = {"w": np.zeros(n), "b": np.zeros(1)}
    for k in range(3):
        grads["w"] += np.arange(n) * k
        grads["b"] += k
    grads["w"] -= 0.5
    return grads["w"].sum() + grads["b"][0]


def view_taken_out(n):
    d = {"a": np.zeros(n)}
    v = d["a"][:2]
    d["a"] += 1.0
    return v


def converted_out(n):
    d = {"a": np.zeros(n)}
    v = np.asarray(d["a"])
    d["a"] += 1.0
    return v


def concatenated(n):
    d = {"a": np.zeros(n)}
    both = [np.ones(n)] + [d["a"]]
    d["a"] += 1.0
    return both[1]


def history(n):
    params = {"mu": np.zeros(n)}
    seen = []
    for k in range(3):
        params["mu"] += 1.5
        seen.append(params["mu"][:])
    return np.stack(seen)


def set_default(n):
    d = {}
    v = d.setdefault("a", np.zeros(n))
    d["a"] += 1.0
    return v


def updated(n):
    m = np.zeros(n)
    d = {"a": 0.0}
    d.update({"a": m})
    d["a"] += 1.0
    return m


def extended(n):
    m = np.zeros(n)
    parts = [0.0]
    parts.extend([m])
    parts[1] += 1.0
    return m


def loop_store(n):
    d = {}
    for i in range(3):
        res = np.arange(n) * (i + 0.5)
        d[i] = res
    d[0] -= 1.0
    return d[0] + d[1]


def summed_items(n):
    d = {"a": np.zeros(n), "b": np.ones(n)}
    d["a"] += 2.0
    return sum(d.values())


def loop_stored_twice(n):
    z = np.zeros(n)
    acc = {}
    for k in ("w", "b"):
        acc[k] = z
    acc["w"] += 1.0
    return acc["b"]


def star_passed(n):
    parts = [np.zeros(n), np.ones(n)]
    a, b = np.atleast_1d(*parts)
    parts[0] += 1.0
    return a


def largest(n):
    parts = [np.zeros(n), np.ones(n)]
    best = max(parts, key=np.sum)
    parts[1] += 1.0
    return best


def _keep(store, v):
    store.append(v)


def kept_by_helper(n):
    out = []
    d = {"a": np.zeros(n)}
    _keep(out, d["a"])
    d["a"] += 1.0
    return out[0]


def either(n, flag=True):
    d = {"a": np.zeros(n)}
    y = flag and d["a"]
    d["a"] += 1.0
    return y


def extended_new(n):
    parts = [np.zeros(n)]
    parts.extend([np.ones(n)])
    parts[1] += 1.0
    return parts[0] + parts[1]


def stored_then_read(n):
    parts = {}
    res = np.arange(n) - 1.0
    parts[0] = res
    parts[0] *= 2.0
    return res


def stored_last(n):
    parts = {}
    res = np.arange(n) - 1.0
    parts[0] = res
    parts[0] *= 2.0
    return parts[0]


def grown_shape(n):
    shape = [2, 3]
    shape[-1] += np.zeros(n).shape[-1]
    return np.zeros(shape) + 1.0


def tallies(n):
    counts = [0] * n
    totals = collections.defaultdict(lambda: np.zeros(2))
    for k in range(n):
        counts[k % 2] += 1
        totals[k % 3] += np.arange(2.0)
    return np.asarray(counts) + sum(totals[j][1] for j in range(3))
"""


def test_an_update_of_a_list_or_dict_item_that_another_reference_sees_stays_numpy():
    """`d["a"] += 1.0` adds into the array the item holds, in NumPy in place: a name bound to it before it was
    stored, another item holding the same array (`[a] * 2`) or a name taken out of the container sees the change.
    JAX rebinds the item, so such functions stay NumPy (NPJ201); items that are new arrays or numbers, read only
    in expressions (gradients in a dict, counts in a list, a new array stored as its last use), still migrate."""
    result, original, migrated = _run(CONTAINER_ITEMS)
    status = {r.qualname: r.jit for r in result.functions}
    kept = ("dict_item", "list_item", "repeated", "appended", "taken_out", "view_taken_out", "converted_out",
            "concatenated", "history", "set_default", "updated", "extended", "stored_then_read",
            # hunt49: a store run again by its loop, `*parts`, `max(..., key=)`, a helper keeping it, `and`
            "loop_stored_twice", "star_passed", "largest", "kept_by_helper", "either")
    assert not any(status[name] for name in kept), status
    migrating = ("gradients", "stored_last", "grown_shape", "loop_store", "summed_items", "extended_new")
    assert all(status[name] for name in migrating), (status, result.output.decode())
    lines = CONTAINER_ITEMS.splitlines()
    blocked = {d.line for d in result.diagnostics if d.code == "NPJ201"}
    assert not blocked & set(range(lines.index("def tallies(n):"), len(lines) + 1)), blocked  # (a loop keeps it NumPy)
    for name in kept:
        start = lines.index(next(line for line in lines if line.startswith(f"def {name}(")))
        write = next(i + 1 for i in range(start, len(lines)) if any(
            update in lines[i] for update in ("[0] += 1.0", '["a"] += 1.0', "[0] *= 2.0", '["mu"] += 1.5', "[1] += 1.0",
                                              '["w"] += 1.0')))
        assert write in blocked, (name, write, [d.format() for d in result.diagnostics])
    for name in (*kept, *migrating, "tallies"):
        np.testing.assert_allclose(np.asarray(migrated[name](4)), original[name](4), err_msg=name)


HELPER_CONTAINERS = '''\
import numpy as np

CACHE = []


def init_params(n_in, n_out):
    return {"W": np.full((n_in, n_out), 0.1), "b": np.zeros(n_out)}


def init_built(n_in, n_out):
    params = {}
    params["W"] = np.full((n_in, n_out), 0.1)
    params["b"] = np.zeros(n_out)
    return params


def init_shared(n_in, n_out):
    return {"W": np.full((n_in, n_out), 0.1), "b": np.zeros(n_out)}


def init_cached(n_in, n_out):
    params = {"W": np.full((n_in, n_out), 0.1), "b": np.zeros(n_out)}
    CACHE.append(params)
    return params


def init_from(W0):
    return {"W": W0, "b": np.zeros(W0.shape[1])}


def forward(params, X):
    return np.tanh(X @ params["W"] + params["b"])


def grads_of(params, X, y):
    d = (forward(params, X) - y) * (1 - forward(params, X) ** 2) / X.shape[0]
    return {"W": X.T @ d, "b": d.sum(axis=0)}


def grads_shared(params, X, y):
    d = (np.tanh(X @ params["W"] + params["b"]) - y) / X.shape[0]
    return {"W": X.T @ d, "b": d.sum(axis=0)}


def first_weights(params):
    return params["W"]


def bump(params):
    params["W"] += 1.0


def train(X, y, steps, lr=0.5):
    params = init_params(X.shape[1], y.shape[1])
    for _ in range(steps):
        grads = grads_of(params, X, y)
        for k in params:
            params[k] -= lr * grads[k]
    return params["W"].sum() + params["b"].sum()


def train_built(X, y, steps, lr=0.5):
    params = init_built(X.shape[1], y.shape[1])
    for _ in range(steps):
        grads = grads_of(params, X, y)
        params["W"] -= lr * grads["W"]
        params["b"] -= lr * grads["b"]
    return params["W"] @ params["b"]


def cached(X, y):
    params = init_cached(X.shape[1], y.shape[1])
    params["W"] -= 0.5 * grads_shared(params, X, y)["W"]
    return CACHE[-1]["W"].sum()


def given(X, y, W0):
    params = init_from(W0)
    params["W"] -= 0.5 * X[: W0.shape[0], : W0.shape[1]]
    return W0.sum()


def taken_out(X, y):
    params = init_shared(X.shape[1], y.shape[1])
    W = params["W"]
    params["W"] -= 0.5 * grads_shared(params, X, y)["W"]
    return W.sum()


def handed_back(X, y):
    params = init_shared(X.shape[1], y.shape[1])
    W = first_weights(params)
    params["W"] -= 0.5 * grads_shared(params, X, y)["W"]
    return W.sum()


def bumped(X, y):
    params = init_shared(X.shape[1], y.shape[1])
    bump(params)
    params["b"] -= 0.5 * grads_shared(params, X, y)["b"]
    return params["W"].sum() + params["b"].sum()
'''


def test_a_dict_of_new_arrays_that_a_helper_returns_is_updated_item_by_item():
    """`params = init_params(n, m)` with `init_params` returning a dict display of new arrays, then
    `params[k] -= lr * grads[k]` in a training loop: no other reference can see the items, so the updates stay
    Python dict updates of JAX arrays and the loop is jitted. A helper that keeps the dict (CACHE), hands in an
    existing array (`{"W": W0}`), a name taken out, a helper returning an item or writing into one keep NumPy
    (and so do the helper whose dict they write into, `init_shared`, and `grads_shared`, whose result on the right
    of `params["W"] -= ...` would make NumPy's in-place subtraction JAX's, which rebinds the item)."""
    result, original, migrated = _run(HELPER_CONTAINERS)
    jitted = {r.qualname: r.jit for r in result.functions}
    assert all(jitted[name] for name in ("init_params", "init_built", "train", "train_built")), (jitted, result.output.decode())
    kept = ("cached", "given", "taken_out", "handed_back", "bumped", "init_shared", "grads_shared")
    assert not any(jitted[name] for name in kept), jitted
    rng = np.random.default_rng(0)
    X, y, W0 = rng.normal(size=(12, 3)), rng.normal(size=(12, 2)), rng.normal(size=(3, 2))
    for name, args in (("train", (X, y, 5)), ("train_built", (X, y, 5)), ("cached", (X, y)), ("given", (X, y, W0)),
                       ("taken_out", (X, y)), ("handed_back", (X, y)), ("bumped", (X, y))):
        want = original[name](*[a.copy() if isinstance(a, np.ndarray) else a for a in args])
        got = migrated[name](*args)
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-5, atol=1e-6, err_msg=name)
