"""Functions that stay NumPy because of code they share arrays with in the same module, beyond direct calls:
classes related by inheritance (they share `self`), functions passed as callbacks, and results written
through a list or tuple display.  Each once came out migrated and silently different; each migrated
module runs under real JAX against the NumPy original."""

from __future__ import annotations

import numpy as np
import pytest

from tests.test_real_code_regressions import migrated_pair, record

BASE = """
import numpy as np

class Base:
    def __init__(self, n):
        self.x = np.zeros(n)

    def total(self):
        return np.sum(self.x)
"""


def _family(result, *names):
    for name in names:
        assert record(result, name).status == "unsupported", name
    return [d for d in result.diagnostics if d.code == "NPJ202"]


@pytest.mark.parametrize("body", ["x = self.x\n        x += 2", "self.x[0] = 2"])
def test_a_subclass_writing_into_its_base_class_arrays_keeps_the_family_numpy(body):
    """Base.__init__ made jnp.zeros; Sub.alias (NumPy, NPJ201) did `x += 2` on it, which only rebound x:
    [0, 0, 0] instead of [2, 2, 2] (`self.x[0] = 2` raised)."""
    result, original, migrated = migrated_pair(
        BASE + f"""
class Sub(Base):
    def alias(self):
        {body}
        return self.x
"""
    )
    reports = _family(result, "Base.__init__", "Base.total", "Sub.alias")
    assert [d.line for d in reports] == [4, 7] and all("through inheritance" in d.message for d in reports)
    for module in (original, migrated):
        assert isinstance(module.Sub(3).x, np.ndarray)
    np.testing.assert_array_equal(migrated.Sub(3).alias(), original.Sub(3).alias())


@pytest.mark.parametrize(
    "classes",
    [
        "class Mid(Base):\n    pass\n\nclass Sub(Mid):",  # a chain through a class without methods
        "class Mixin:\n    def label(self):\n        return 'm'\n\nclass Sub(Mixin, Base):",  # several bases
        "class Sub(Base):\n    pass\n\nclass Other(Base):",  # a sibling: Base's methods run on both
    ],
)
def test_chains_several_bases_and_siblings_share_self(classes):
    result, original, migrated = migrated_pair(
        BASE + f"""
{classes}
    def bump(self):
        x = self.x
        x += 2
        return np.sum(self.x)
"""
    )
    _family(result, "Base.__init__", "Base.total")
    name = classes.rsplit("class ", 1)[1].split("(")[0]
    assert getattr(migrated, name)(3).bump() == getattr(original, name)(3).bump() == 6.0


@pytest.mark.parametrize("subclass", [True, False])
def test_a_method_left_as_it_was_that_updates_an_alias_of_the_state_keeps_the_class_numpy(subclass):
    """m needed no rewriting, so it stayed NumPy code: `self.y += 1` on the jnp.zeros Base.__init__ made only
    rebound self.y, and self.x stayed 0 (NumPy: both are the one array).  In a subclass or in the class."""
    result, original, migrated = migrated_pair(
        BASE + ("\nclass Sub(Base):" if subclass else "") + """
    def m(self):
        self.y = self.x
        self.y += 1
        return self.x
"""
    )
    owner = "Sub" if subclass else "Base"
    reports = _family(result, "Base.__init__", "Base.total")
    assert [d.line for d in reports] == [4, 7]
    assert all(f"`{owner}.m` stays NumPy code and shares `self` with this method" in d.message for d in reports)
    assert record(result, f"{owner}.m").status == "migrated"  # left as it was, nothing reported there
    np.testing.assert_array_equal(getattr(original, owner)(3).m(), [1.0, 1.0, 1.0])
    np.testing.assert_array_equal(getattr(migrated, owner)(3).m(), getattr(original, owner)(3).m())


def test_creating_an_object_of_a_subclass_without_methods_keeps_the_caller_numpy():
    result, original, migrated = migrated_pair(
        BASE + """
    def clear(self, i):
        self.x[i] = 5.0
        return self.x

class Leaf(Base):
    pass

def run(n):
    leaf = Leaf(np.ones(n).astype(int).sum())
    leaf.clear(0)
    return leaf.x
"""
    )
    assert record(result, "run").status == "unsupported"
    assert any(d.code == "NPJ202" and "creates a `Leaf`, whose base class `Base`" in d.message for d in result.diagnostics)
    np.testing.assert_array_equal(migrated.run(3), original.run(3))


def test_a_family_with_nothing_left_numpy_migrates():
    """Inheritance alone keeps nothing NumPy; nor does a counter updated in a method left as it was."""
    result, original, migrated = migrated_pair(
        BASE + """
class Sub(Base):
    def scaled(self, k):
        return np.sum(self.x + 1) * k

    def tick(self):
        self.n = getattr(self, "n", 0)
        self.n += 1
        return self.n
"""
    )
    for name in ("Base.__init__", "Base.total", "Sub.scaled"):
        assert record(result, name).status == "migrated", name
    assert b"jnp.zeros" in result.output and not any(d.code == "NPJ202" for d in result.diagnostics)
    assert migrated.Sub(3).scaled(2.0) == original.Sub(3).scaled(2.0) == 6.0


@pytest.mark.parametrize(
    "use",
    [
        "return apply(inc, np.zeros(n))",
        "f = inc\n    return apply(f, np.zeros(n))",
        "return apply_default(np.zeros(n))",
        "return apply(table()['inc'], np.zeros(n))",
    ],
)
def test_a_function_passed_as_a_callback_that_stays_numpy_keeps_its_user_numpy(use):
    """inc stays NumPy (it writes into its parameter); h handed it to apply and was jitted: [0, 0, 0]
    instead of [1, 1, 1].  A reference to inc as a value counts like a call."""
    result, original, migrated = migrated_pair(
        f"""
import numpy as np

def inc(v):
    v += 1

def apply(f, x):
    f(x)
    return x

def apply_default(x, f=inc):
    f(x)
    return x

def table():
    return {{"inc": inc}}

def h(n):
    {use}
"""
    )
    assert record(result, "h").status == "unsupported"
    assert any(d.code == "NPJ202" for d in result.diagnostics if record(result, "h").line <= d.line)
    np.testing.assert_array_equal(migrated.h(3), original.h(3))
    np.testing.assert_array_equal(original.h(3), [1.0, 1.0, 1.0])


def test_a_result_handed_with_a_callback_that_writes_into_its_parameter_keeps_the_producer_numpy():
    result, original, migrated = migrated_pair(
        """
import numpy as np

def inc(v):
    v += 1

def make(n):
    return np.zeros(n)

def apply(f, x):
    f(x)
    return x

def h(n):
    return apply(inc, make(n))
"""
    )
    assert record(result, "make").status == "unsupported"
    np.testing.assert_array_equal(migrated.h(3), original.h(3))


@pytest.mark.parametrize(
    "body",
    [
        "out = []\n    for v in [make(n), make(n + 1)]:\n        v += 1\n        out.append(v)\n    return out",
        "out = []\n    for v in (make(n), make(n + 1)):\n        v[0] = 7\n        out.append(v)\n    return out",
        # (`b[[0, 0]] += 1`: a possibly repeated index keeps bump_all NumPy, NPJ201; `b[0] = 7` alone would migrate it)
        "a, b = make(n), make(n + 1)\n    b[0] = 7\n    b[[0, 0]] += 1\n    return [a, b]",
        "a, (b, c) = make(n), (make(n), make(n + 1))\n    c[0] = 7\n    c[[0, 0]] += 1\n    return [a, b, c]",
    ],
)
def test_results_written_through_a_display_keep_the_callee_numpy(body):
    """bump_all stays NumPy; its loop over [make(n), make(n + 1)] wrote into make's results: migrated, make
    returned JAX arrays, `v += 1` only rebound v and the list kept zeros (`v[0] = 7` raised)."""
    result, original, migrated = migrated_pair(
        f"""
import numpy as np

def make(n):
    return np.zeros(n)

def bump_all(n):
    {body}
"""
    )
    assert record(result, "make").status == "unsupported"
    for got, expected in zip(migrated.bump_all(3), original.bump_all(3)):
        np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("call", ["HANDLER(x)", "HANDLERS['inc'](x)"])
def test_a_module_level_value_holding_a_function_that_stays_numpy_counts_as_a_reference(call):
    """h called inc through HANDLER = inc (or a dict of handlers) and came out migrated: x stayed zeros."""
    result, original, migrated = migrated_pair(
        f"""
import numpy as np

def inc(v):
    v += 1

def init(n):
    w = np.zeros(n)
    w[[0, 0]] += 1
    return w

HANDLER = inc
HANDLERS = {{"inc": inc}}
W = init(3)

def h(n):
    x = np.zeros(n)
    {call}
    return x

def weighted(x):
    return np.sum(W * x)
"""
    )
    assert record(result, "h").status == "unsupported"
    assert any(d.code == "NPJ202" and "which holds `inc`" in d.message for d in result.diagnostics)
    np.testing.assert_array_equal(migrated.h(3), original.h(3))
    # W holds init's result, not init: weighted migrates although init stays NumPy
    assert record(result, "init").status == "unsupported" and record(result, "weighted").status != "unsupported"


SGD = """
import numpy as np

def grad(w, x):
    return 2.0 * (np.dot(w, x) - 1.0) * x

def scale(h):
    return (h > 0).astype(h.dtype)

def sgd(params, grads, lr=0.1):
    for p, g in zip(params, grads):
        p -= lr * g

def train(w, x, steps=3):
    w = w.copy()
    for _ in range(steps):
        {body}
    return w
"""


@pytest.mark.parametrize(
    "body",
    [
        "sgd([w], [grad(w, x)])",  # the result inside a list display handed to the writer
        "grads = (grad(w, x),)\n        sgd([w], list(grads))",  # through list(...) of a tuple
        "g = 2.0 * (w @ x - 1.0) * x\n        g *= scale(x)\n        sgd([w], [g])",  # `g *= result` makes g a JAX array
    ],
)
def test_a_result_handed_to_numpy_code_that_updates_another_array_with_it_keeps_the_callee_numpy(body):
    """hunt12 S1: train stayed NumPy (NPJ202: sgd writes through the elements of its list) but grad came out
    jitted; with a JAX array on the right, NumPy's `p -= lr * g` gives way to JAX's and only rebinds p, so
    train returned its starting weights and no error was raised."""
    result, original, migrated = migrated_pair(SGD.format(body=body))
    assert record(result, "train").status == "unsupported"
    w, x = np.array([0.5, -0.2]), np.array([1.0, 2.0])
    expected = original.train(w, x)
    assert not np.allclose(expected, w)  # the NumPy original does move the weights
    np.testing.assert_allclose(migrated.train(w, x), expected, rtol=1e-6)


def test_a_result_read_with_a_numpy_boolean_mask_in_numpy_code_keeps_its_callee_numpy():
    """rowan log (real13 F6): `log` stays NumPy (NPJ201) and reads `q_norms[q_not_zero]` of the migrated `norm`'s
    result with a NumPy boolean mask; for one quaternion `q_norms` is 0-d and jax raised a bare AssertionError."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        def norm(q):
            q = np.asarray(q)
            return np.linalg.norm(q, axis=-1)

        def log_norm(q):
            q = np.asarray(q)
            out = np.empty(q.shape[:-1])
            n = norm(q)
            nz = np.logical_not(np.isclose(n, 0))
            out[nz] = np.log(n[nz])
            return out
        """
    )
    assert record(result, "norm").status == "unsupported"
    for q in ([1.0, 2.0, 2.0, 0.0], [[1.0, 0.0, 0.0, 0.0], [0.0, 3.0, 4.0, 0.0]]):
        np.testing.assert_allclose(migrated.log_norm(q), original.log_norm(q))


def test_a_method_left_as_it_was_that_adds_the_state_into_a_parameter_keeps_the_class_numpy():
    """hunt14 S3: `params += self.v` in a method with nothing to rewrite, `self.v = np.zeros(n)` in `__init__`:
    migrated, `self.v` is a JAX array, NumPy's `+=` gives way to JAX's `+`, which only rebinds `params`, and
    the caller's parameters never moved.  The class stays NumPy, and so does the function creating one;
    a class whose rewritten methods set no attribute such a method reads (`params -= self.lr * grad`, `self.lr`
    a Python float) is not affected."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        class Momentum:
            def __init__(self, n, lr=0.1, mu=0.9):
                self.v = np.zeros(n)
                self.lr = lr
                self.mu = mu

            def step(self, params, grad):
                self.v = self.mu * self.v - self.lr * grad
                params += self.v
                return params

        def train(params, grads):
            opt = Momentum(params.shape[0])
            for g in grads:
                opt.step(params, g)
            return params

        class Plain:
            def __init__(self, lr=0.1):
                self.lr = lr

            def step(self, params, grad):
                params -= self.lr * grad
                return params

            def size(self, params):
                return np.linalg.norm(params)
        """
    )
    assert record(result, "Momentum.__init__").status == "unsupported" and record(result, "train").status == "unsupported"
    assert record(result, "Plain.size").status == "migrated"
    grads = np.array([[0.1, 0.2, -0.3], [0.5, -0.5, 0.0]])
    want = original.train(np.array([1.0, -2.0, 0.5]), grads)
    np.testing.assert_allclose(np.asarray(migrated.train(np.array([1.0, -2.0, 0.5]), grads)), want)


def test_a_rewritten_method_whose_update_of_a_parameter_a_call_relies_on_keeps_the_class_numpy():
    """hunt14 S3 (second form): `self.velocity *= m` makes `step` a rewritten method, `params += self.velocity`
    then only rebinds `params`, and `opt.step(params, g)` (the result dropped) relied on the update: NPJ201.
    With every call using the result (`params = opt.step(params, g)`) the method migrates."""
    source = """
        import numpy as np

        class SGDMomentum:
            def __init__(self, n, lr=0.1, momentum=0.9):
                self.lr = lr
                self.momentum = momentum
                self.velocity = np.zeros(n)

            def step(self, params, grad):
                self.velocity *= self.momentum
                self.velocity -= self.lr * grad
                params += self.velocity
                return params

        def train(params, grads):
            opt = SGDMomentum(params.shape[0])
            for g in grads:
                {call}
            return params
        """
    grads = np.array([[0.1, 0.2, -0.3], [0.5, -0.5, 0.0]])
    dropped, original, migrated = migrated_pair(source.replace("{call}", "opt.step(params, g)"))
    assert any(d.code == "NPJ201" and "drops the method's result" in d.message for d in dropped.diagnostics)
    assert record(dropped, "SGDMomentum.step").status == "unsupported"
    want = original.train(np.array([1.0, -2.0, 0.5]), grads)
    np.testing.assert_allclose(np.asarray(migrated.train(np.array([1.0, -2.0, 0.5]), grads)), want)
    used, original, migrated = migrated_pair(source.replace("{call}", "params = opt.step(params, g)"))
    assert record(used, "SGDMomentum.step").status == "needs-review"  # (NPJ200: `self.velocity` gets a new array)
    want = original.train(np.array([1.0, -2.0, 0.5]), grads)
    np.testing.assert_allclose(np.asarray(migrated.train(np.array([1.0, -2.0, 0.5]), grads)), want, rtol=1e-6)


def test_a_result_masked_in_a_loop_of_numpy_code_keeps_its_producer_numpy():
    """real14 P1 (pymannkendall): `mk_score` stays NumPy (a mask index in a loop, NPJ304), but `prep`'s JAX
    result reached it through `test`, and every step compared JAX slices of a new shape, compiling each
    (0.02 s became 586 s).  A mask made from a result in a loop keeps the producer NumPy, and its callers."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np

        def prep(x):
            return np.asarray(x).astype(float)

        def mk_score(x, n):
            s = 0
            demo = np.ones(n)
            for k in range(n - 1):
                s = s + np.sum(demo[k + 1:n][x[k + 1:n] > x[k]]) - np.sum(demo[k + 1:n][x[k + 1:n] < x[k]])
            return s

        def test(x):
            x = prep(x)
            return mk_score(x, len(x))
        """
    )
    assert record(result, "prep").status == "unsupported" and record(result, "test").status == "unsupported"
    x = np.random.default_rng(0).normal(size=40)
    assert migrated.test(x) == original.test(x)
    assert isinstance(migrated.prep(x), np.ndarray)
