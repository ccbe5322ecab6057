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


@pytest.mark.parametrize("body", [
    "K = scale(make(n))\n    K[0, 0] = 5.0",  # a NumPy function hands back what it was handed
    "K = make(n) - 0.5\n    K = add_jitter(K, 1.0)",  # the write happens before the name is rebound
])
def test_writes_into_what_a_numpy_function_hands_back(body):
    source = HANDED_BACK.format(body=body)
    result, expected, got = _run_both(source, "run(3)")
    np.testing.assert_array_equal(got[1], expected[1])
    assert any(d.code == "NPJ202" and d.line == 4 for d in result.diagnostics)



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
