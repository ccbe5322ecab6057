"""Results stored in attributes, and arrays computed from results, that NumPy code writes into in place.

A class that stays NumPy stores ``self.P = predict(self.P)``; another method does ``self.P *= k``.  NumPy
updates the one array, which a caller holding ``f.P`` sees; were ``predict`` jitted, ``self.P`` would be a
JAX array, ``*=`` would only rebind the attribute and the caller would keep the old values (silently), and
``self.P[0, 0] = v`` would raise.  So ``predict`` stays NumPy (NPJ202 naming the writer).  The same holds for
a fresh array computed from a result (``s = M.sum(axis=1); s[s == 0] = 1``): on a JAX array the write raises.
Each case runs the original and the migrated module with real NumPy and JAX.
"""

from __future__ import annotations

import numpy as np
import pytest

from np2jax.engine import migrate_source

PREDICT = """\
import numpy as np


def predict(P, F, Q):
    return F @ P @ F.T + Q


def update(x, P, z):
    return x + z, P * 0.5

"""

FILTER = PREDICT + """\
class Filter:
    def __init__(self, P0):
        self.P = np.array(P0, dtype=float)
        self.x = np.zeros(2)
        self.F = np.eye(2)
        self.Q = 0.1 * np.eye(2)

    def step(self):
        {step}

    def inflate(self, k):
        {inflate}


def run():
    f = Filter(np.eye(2))
    f.step()
    P = f.P
    f.inflate(2.0)
    return float(P[0, 0]), float(f.P[0, 0])
"""

STATE_CASES = {
    "augmented in another method": ("self.P = predict(self.P, self.F, self.Q)", "self.P *= k"),
    "tuple unpacking": ("self.x, self.P = update(self.x, predict(self.P, self.F, self.Q), 1.0)", "self.P *= k"),
    "returned by a method": ("self.P = self._predicted()\n\n    def _predicted(self):\n        return predict(self.P, self.F, self.Q)",
                             "self.P *= k"),
    "through a second attribute": ("self.S = predict(self.P, self.F, self.Q)\n        self.P = self.S", "self.P *= k"),
    "subscript write": ("self.P = predict(self.P, self.F, self.Q)", "self.P[0, 0] *= k"),
    "fill": ("self.P = predict(self.P, self.F, self.Q)", "self.P.fill(k)"),
    "ufunc.at": ("self.P = predict(self.P, self.F, self.Q)", "np.add.at(self.P, (0, 0), k)"),
    "out=": ("self.P = predict(self.P, self.F, self.Q)", "np.multiply(self.P, k, out=self.P)"),
    "local alias": ("self.P = predict(self.P, self.F, self.Q)", "P = self.P\n        P *= k"),
    "same method": ("self.P = predict(self.P, self.F, self.Q)\n        self.P *= 1.0", "pass"),
}


def _run_both(source: str, expression: str):
    result = migrate_source(source.encode(), "m.py")
    original, migrated = {}, {}
    exec(compile(source, "original.py", "exec"), original)
    exec(compile(result.output, "migrated.py", "exec"), migrated)
    return result, eval(expression, original), eval(expression, migrated)


def _predict_kept(result) -> bool:
    return any(d.code == "NPJ202" and d.line == 4 for d in result.diagnostics)


@pytest.mark.parametrize("name", sorted(STATE_CASES))
def test_a_result_stored_in_an_attribute_and_written_in_place_keeps_its_producer_numpy(name):
    step, inflate = STATE_CASES[name]
    source = FILTER.format(step=step, inflate=inflate)
    result, expected, got = _run_both(source, "run()")
    assert got == expected
    assert _predict_kept(result), [str(d) for d in result.diagnostics]


def test_an_attribute_written_in_a_function_outside_the_class():
    source = FILTER.format(step="self.P = predict(self.P, self.F, self.Q)", inflate="pass") + """

def scale(f, k):
    f.P *= k


def run_outside():
    f = Filter(np.eye(2))
    f.step()
    P = f.P
    scale(f, 3.0)
    return float(P[0, 0])
"""
    result, expected, got = _run_both(source, "run_outside()")
    assert got == expected
    assert _predict_kept(result)


def test_an_array_a_constructor_stores_from_its_parameter():
    source = PREDICT + """\
class Holder:
    def __init__(self, P0):
        self.P = P0

    def inflate(self, k):
        self.P *= k


def run():
    P = predict(np.eye(2), np.eye(2), np.eye(2))
    h = Holder(P)
    h.inflate(2.0)
    return float(P[0, 0])
"""
    result, expected, got = _run_both(source, "run()")
    assert got == expected
    assert _predict_kept(result)


def test_an_attribute_rebound_to_a_fresh_array_does_not_keep_the_producer():
    source = FILTER.format(step="self.P = predict(self.P, self.F, self.Q)",
                           inflate="self.P = np.eye(2)\n        self.P *= k")
    result = migrate_source(source.encode(), "m.py")
    assert not _predict_kept(result)
    assert b"@jax.jit\ndef predict" in result.output


def test_reading_an_attribute_keeps_the_producer_migrated():
    source = FILTER.format(step="self.P = predict(self.P, self.F, self.Q)", inflate="return self.P * k")
    result = migrate_source(source.encode(), "m.py")
    assert not _predict_kept(result)
    assert b"@jax.jit\ndef predict" in result.output


DERIVED = """\
import numpy as np


def normalize_rows(M, out=None):
    s = {derive}
    s[s == 0] = 1.0
    return np.divide(M, s, out=out)


def transition_counts(seq, n):
    C = np.zeros((n, n))
    np.add.at(C, (seq[:-1], seq[1:]), 1)
    return C


def estimate_transition(seq, n):
    return normalize_rows(transition_counts(seq, n))
"""


@pytest.mark.parametrize("derive", [
    "M.sum(axis=1, keepdims=True)", "np.sum(M, axis=1, keepdims=True)", "M.max(axis=1, keepdims=True) + 0.0",
    "abs(M).mean(axis=1, keepdims=True)", "np.asarray(M).sum(axis=1, keepdims=True)",
])
def test_a_fresh_array_computed_from_a_result_and_written_in_place_keeps_its_producer_numpy(derive):
    source = DERIVED.format(derive=derive)
    result, expected, got = _run_both(source, "estimate_transition(np.array([0, 1, 1, 0, 1]), 3)")
    np.testing.assert_array_equal(got, expected)
    assert any(d.code == "NPJ202" and d.line == 10 for d in result.diagnostics)


def test_a_comparison_of_a_result_written_in_place():
    source = """\
import numpy as np


def scores(x):
    return np.sqrt(x) * 2.0


def keep_big(x):
    keep = scores(x) > 1.0
    keep[0] = False
    return np.logical_not(keep, out=keep)
"""
    result, expected, got = _run_both(source, "keep_big(np.arange(4.0))")
    np.testing.assert_array_equal(got, expected)
    assert any(d.code == "NPJ202" and d.line == 4 for d in result.diagnostics)


def test_a_ufunc_of_a_result_is_a_writable_numpy_array():
    source = DERIVED.format(derive="np.exp(M)").replace("np.add.at(C, (seq[:-1], seq[1:]), 1)", "C = C + 1.0")
    result = migrate_source(source.encode(), "m.py")
    assert not any(d.code == "NPJ202" and d.line == 10 for d in result.diagnostics)


CONTAINER = """\
import numpy as np


def init(n):
    return np.eye(n) * 0.5


class Model:
    def __init__(self, n):
        {init}

    def train(self, g):
        {train}


def run():
    m = Model(2)
    m.train(1.0)
    return [float(np.sum(p)) for p in {params}]
"""

CONTAINER_CASES = {
    "dict display": ('self.params = {"W": init(n), "b": init(n)[0]}', "for p in self.params.values():\n            p -= g",
                     'm.params.values()'),
    "list append": ("self.params = []\n        self.params.append(init(n))", "for p in self.params:\n            p -= g",
                    "m.params"),
    "dict item": ('self.params = {}\n        self.params["W"] = init(n)', "for p in self.params.values():\n            p -= g",
                  'm.params.values()'),
}


@pytest.mark.parametrize("name", sorted(CONTAINER_CASES))
def test_results_in_a_container_attribute_updated_in_place(name):
    init, train, params = CONTAINER_CASES[name]
    source = CONTAINER.format(init=init, train=train, params=params)
    result, expected, got = _run_both(source, "run()")
    assert got == expected
    assert any(d.code == "NPJ202" and d.line == 4 for d in result.diagnostics), [str(d) for d in result.diagnostics]


def test_a_result_stored_as_an_item_of_an_array_attribute_is_copied():
    source = PREDICT + """\
class Bank:
    def __init__(self, n):
        self.state = np.zeros((n, 2, 2))

    def step(self, k):
        self.state[k] = predict(self.state[k], np.eye(2), np.eye(2))
        self.state[k] *= 2.0
"""
    result = migrate_source(source.encode(), "m.py")
    assert not _predict_kept(result)
    assert b"@jax.jit\ndef predict" in result.output


def test_a_result_added_in_place_into_an_attribute_next_to_another_attribute():
    source = """\
import numpy as np


def rhs(y):
    return np.array([y[1], -y[0]])


class Integrator:
    def __init__(self, y0, dt):
        self.y = np.asarray(y0, dtype=float).copy()
        self.dt = dt

    def step(self):
        self.y += self.dt * rhs(self.y)
        return self.y


def run():
    it = Integrator(np.array([1.0, 0.0]), 0.1)
    y = it.step()
    it.step()
    return y.tolist()
"""
    result, expected, got = _run_both(source, "run()")
    assert got == expected
    assert any(d.code == "NPJ202" and d.line == 4 for d in result.diagnostics)


HANDED_BACK = """\
import numpy as np


def make(n):
    return np.zeros((n, n)) + 1.0


def scale(x):
    return 2.0 * x


def add_jitter(K, j):
    K[np.diag_indices_from(K)] += j
    return K


def run(n):
    {body}
    return np.logical_not(K > 0, out=np.zeros(K.shape, dtype=bool)), K
"""


@pytest.mark.parametrize("body, code, line", [
    ("K = scale(make(n))\n    K[0, 0] = 5.0", "NPJ202", 4),  # a NumPy function hands back what it was handed
    # `add_jitter` returns the array it writes into and its caller rebinds it: it migrates (NPJ203), and the
    # NumPy caller gets its update back as a JAX array
    ("K = make(n) - 0.5\n    K = add_jitter(K, 1.0)", "NPJ203", 12),
    ("K = make(n) - 0.5\n    add_jitter(K, 1.0)", "NPJ202", 4),  # it relies on the write: `add_jitter` stays NumPy
])
def test_writes_into_what_a_numpy_function_hands_back(body, code, line):
    source = HANDED_BACK.format(body=body)
    result, expected, got = _run_both(source, "run(3)")
    np.testing.assert_array_equal(got[1], expected[1])
    assert any(d.code == code and d.line == line for d in result.diagnostics), [d.format() for d in result.diagnostics]



@pytest.mark.parametrize("write", ["state.coords += d", "state.coords *= d", "state.coords[0] = d"])
def test_an_attribute_written_in_place_on_another_object_keeps_what_is_stored_there_numpy(write):
    """emcee's State: ``__init__`` stores ``np.atleast_2d(coords)`` (migrated: a JAX array); a helper writes
    ``state.coords`` in place: ``op=`` then rebinds the attribute (the caller's ``before`` stays 0: silent),
    a subscript write raises.  The storing method stays NumPy (NPJ202 naming the writer)."""
    source = f"""\
import numpy as np


class State:
    def __init__(self, coords):
        self.coords = np.atleast_2d(coords)


def shift(state, d):
    {write}
    return state


def run(x):
    s = State(x)
    before = s.coords
    shift(s, 2.0)
    return float(before.sum())
"""
    result = migrate_source(source.encode(), "m.py")
    assert any("`shift` writes `.coords` of an object in place" in d.message for d in result.diagnostics)
    original, migrated = {}, {}
    exec(compile(source, "original.py", "exec"), original)
    exec(compile(result.output, "migrated.py", "exec"), migrated)
    x = np.ones((2, 2))
    assert migrated["run"](x.copy()) == original["run"](x.copy())


def test_a_result_written_after_a_conditional_rebinding_keeps_its_producer_numpy():
    """vg `scale_factor` (real10 R3): `d = dot(v1, v1)`, `if np.isscalar(d): d = np.nan`, then `d[d == 0] = np.nan`
    in a function that stays NumPy: the rebinding in the branch dropped `dot`'s result, `dot` migrated, and the
    write raised on the JAX array. Bindings in branches and loops merge."""
    import textwrap

    from np2jax.engine import Options, migrate_source

    source = textwrap.dedent("""\
        import numpy as np


        def dot(v1, v2):
            return np.einsum("ij,ij->i", v1, v2)


        def scale_factor(v1, v2):
            d = dot(v1, v1)
            if np.isscalar(d):
                d = np.nan
            d[d == 0] = np.nan
            return dot(v1, v2) / d
        """)
    result = migrate_source(source.encode(), "vg.py", Options())
    assert {f.qualname: f.status for f in result.functions} == {"dot": "unsupported", "scale_factor": "unsupported"}
    namespace: dict = {}
    exec(compile(result.output, "vg.py", "exec"), namespace)
    v1 = np.array([[1.0, 2.0, 3.0], [0.0, 0.0, 0.0]])
    got = namespace["scale_factor"](v1, v1 * 2)
    assert got[0] == 2.0 and np.isnan(got[1])



COPIED_ITEMS = """\
import numpy as np


def make(x):
    return np.abs(x) * 2.0


def gather(x):
    m = make(x)
    out = {holder}
    for i in range(3):
        out[i] = m[i]
    return out


def first_set(x):
    r = gather(x)
    {write}
    return r


def tripled(x):
    return make(x) * 3.0
"""


def _numbers(value) -> np.ndarray:
    """An array of numbers (an object array's items stacked)."""
    value = np.asarray(value)
    return np.stack([np.asarray(item) for item in value]) if value.dtype == object else value


@pytest.mark.parametrize("holder, write, x, make_migrates", [
    # items stored into a new NumPy array are copied: `make`'s result is not handed back
    ("np.zeros(3)", "r[0] = 5.0", "[-1.0, 2.0, -3.0, 4.0]", True),
    # a list holds what is stored in it, here rows of `make`'s result, which the caller writes into
    ("[None, None, None]", "r[1][0] = 5.0", "[[-1.0, 2.0], [3.0, -4.0], [0.5, 0.25]]", False),
    # so does an array of objects (hunt47 L1), whatever makes it: a dtype of object, a None fill value
    ("np.empty(3, dtype=object)", "r[1][0] = 5.0", "[[-1.0, 2.0], [3.0, -4.0], [0.5, 0.25]]", False),
    ("np.full(3, None)", "r[1][0] = 5.0", "[[-1.0, 2.0], [3.0, -4.0], [0.5, 0.25]]", False),
    ("np.zeros(3, 'O')", "r[1][0] = 5.0", "[[-1.0, 2.0], [3.0, -4.0], [0.5, 0.25]]", False),
    ("np.zeros(3, dtype=x.dtype)", "r[0] = 5.0", "[-1.0, 2.0, -3.0, 4.0]", True),
])
def test_items_copied_into_a_new_array_do_not_hand_back_the_callee_result(holder, write, x, make_migrates):
    """hunt45 FP7: `gather` stays NumPy (its caller writes into its result), and `out[i] = m[i]` with
    `out = np.zeros(3)` copies numbers out of `make`'s result; `make` (and `tripled`) used to be kept NumPy
    as if `gather` returned `make`'s array."""
    source = COPIED_ITEMS.format(holder=holder, write=write)
    array = f"__import__('numpy').array({x})"
    result, expected, got = _run_both(source, f"first_set({array}), tripled({array})")
    for want, have in zip(expected, got):
        np.testing.assert_array_equal(_numbers(have), _numbers(want))
    records = {r.qualname: r for r in result.functions}
    assert records["make"].jit is make_migrates and records["tripled"].jit is make_migrates, result.output.decode()


ITEM_UPDATED = """
import numpy as np


def make(n):
    return np.linspace(0.0, 1.0, n) ** 2


def pair(n):
    out = np.empty(2, dtype=object)
    m = make(n)
    out[0] = m
    out[1] = m
    out[0] += 1.0
    return out[1]
"""


def test_an_item_updated_in_place_through_its_holder_keeps_its_producer_numpy():
    """hunt47 S5: `out[0] = m; out[0] += 1.0` in a function that stays NumPy (an object array) adds to `make`'s
    array in place, which `out[1]` shows; `make` migrated returned a JAX array, and `+=` rebound the item."""
    result, expected, got = _run_both(ITEM_UPDATED, "pair(3)")
    np.testing.assert_array_equal(np.asarray(got), expected)
    assert not {r.qualname: r for r in result.functions}["make"].jit, result.output.decode()
