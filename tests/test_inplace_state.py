"""Functions that write into their arguments (NPJ203) and methods that write into `self.x` (NPJ200):
the migrated code, run with real JAX, leaves the same values where NumPy left them; every case
that is not provably equivalent stays NumPy code with an error."""

from __future__ import annotations

import textwrap

import numpy as np
import pytest

from np2jax.engine import Options, migrate_source

jnp = pytest.importorskip("jax.numpy")


def migrate(source: str, jit: bool = True):
    result = migrate_source(textwrap.dedent(source).lstrip().encode(), "m.py", Options(jit=jit))
    assert result.error is None, result.error
    return result


def load(source: str | bytes) -> dict:
    namespace: dict = {}
    exec(compile(source, "m.py", "exec"), namespace)
    return namespace


def both(source: str, jit: bool = True):
    """(original namespace, migrated namespace, result) for ``source``."""
    result = migrate(source, jit)
    return load(textwrap.dedent(source)), load(result.output), result


def codes(result) -> list[str]:
    return [d.code for d in result.diagnostics]


def statuses(result) -> dict[str, str]:
    return {f.qualname: f.status for f in result.functions}


def assert_close(actual, expected):
    np.testing.assert_allclose(np.asarray(actual, dtype=np.float64), np.asarray(expected, dtype=np.float64), rtol=1e-5, atol=1e-6)


# --- functions that write into their arguments -------------------------------------------------
ARGUMENTS = """
import numpy as np

def _normalize(x):
    x /= np.linalg.norm(x)

def clip_pair(lo, hi, limit):
    if limit is None:
        return
    lo[lo < 0] = 0.0
    hi[0] = np.minimum(hi[0], limit)

def clip_both(lo, hi):
    clip_pair(lo, hi, 1.0)

def _bump_first(x):
    x[0] += 1.0

def bump_loop(a0, n):
    a = a0.copy()
    for i in range(n):
        _bump_first(a)
    return a

def pipeline(v, w):
    a = v * 2.0
    b = w.copy()
    clip_both(a, b)
    _normalize(a)
    return a, b
"""


@pytest.mark.parametrize("jit", [True, False])
def test_functions_return_the_arguments_numpy_wrote_into(jit):
    original, migrated, result = both(ARGUMENTS, jit)
    assert all(status != "unsupported" for status in statuses(result).values()), result.diagnostics
    assert codes(result).count("NPJ203") == 4
    v = np.array([-1.0, 2.0, 3.0], dtype=np.float32)
    w = np.array([5.0, -2.0], dtype=np.float32)

    x = v.copy()
    original["_normalize"](x)
    assert_close(migrated["_normalize"](jnp.asarray(v)), x)

    lo, hi = v.copy(), w.copy()
    assert original["clip_pair"](lo, hi, 1.0) is None
    new_lo, new_hi = migrated["clip_pair"](jnp.asarray(v), jnp.asarray(w), 1.0)
    assert_close(new_lo, lo)
    assert_close(new_hi, hi)
    same_lo, same_hi = migrated["clip_pair"](jnp.asarray(v), jnp.asarray(w), None)  # the early return
    assert_close(same_lo, v)
    assert_close(same_hi, w)

    lo, hi = v.copy(), w.copy()
    original["clip_both"](lo, hi)
    for got, want in zip(migrated["clip_both"](jnp.asarray(v), jnp.asarray(w)), (lo, hi)):
        assert_close(got, want)

    assert_close(migrated["bump_loop"](jnp.asarray(v), 4), original["bump_loop"](v, 4))
    for got, want in zip(migrated["pipeline"](jnp.asarray(v), jnp.asarray(w)), original["pipeline"](v, w)):
        assert_close(got, want)


def test_call_sites_rebind_and_the_loop_carries_the_rebound_array():
    output = migrate(ARGUMENTS).output.decode()
    assert "    a = _bump_first(a)\n" in output
    assert "_loop_body(i, a)" in output and "a = jax.lax.fori_loop(0, n, _loop_body, a)" in output
    assert "    lo, hi = clip_pair(lo, hi, 1.0)\n    return lo, hi\n" in output
    assert "        return lo, hi\n" in output  # the bare `return`
    assert "    x = x / jnp.linalg.norm(x)\n    return x\n" in output


def test_public_names_get_a_warning_private_ones_an_info():
    result = migrate(ARGUMENTS)
    severities = {d.message.split("`")[1]: d.severity.name for d in result.diagnostics if d.code == "NPJ203"}
    assert severities == {"_normalize": "INFO", "clip_pair": "WARNING", "clip_both": "WARNING", "_bump_first": "INFO"}


def test_one_line_body_gets_its_return_on_the_same_line():
    output = migrate("import numpy as np\n\ndef reset(x): x[0] = np.float32(0.0)\n", jit=False).output.decode()
    assert "def reset(x): x = jnp.asarray(x).at[0].set(np.float32(0.0)); return x\n" in output  # not jitted: x may be NumPy


NOT_REWRITTEN = {
    "result used": ("def user(n):\n    a = np.zeros(n)\n    y = f(a)\n    return a\n", "part of an expression"),
    "view seen by the caller": ("def user(n):\n    a = np.zeros(n)\n    v = a[1:]\n    f(a)\n    return v\n", "view"),
    "passed twice": ("def g(x, y):\n    x[0] = 1.0\n\ndef user(n):\n    a = np.zeros(n)\n    g(a, a)\n    return a\n", "twice", "g"),
    "callback": ("def user(n):\n    return list(map(f, [np.zeros(n)]))\n", "used as a value"),
    "partial": ("import functools\n\ndef user(n):\n    h = functools.partial(f)\n    a = np.zeros(n)\n    h(a)\n    return a\n", "used as a value"),
    "attribute argument": ("class K:\n    def __init__(self):\n        self.b = np.zeros(3)\n\n    def go(self):\n        f(self.b)\n        return self.b.sum()\n", "self.b"),
    "subscript argument": ("def user(n):\n    q = np.zeros((n, n))\n    f(q[0])\n    return q\n", "q[0]"),
    "module-level call": ("A = np.zeros(3)\nf(A)\n", "outside a function body"),
    "caller's parameter, caller returns a value": ("def user(a):\n    f(a)\n    return a.sum()\n", "also returns a value"),
    "caller stays NumPy": ("def user(n):\n    a = np.zeros(n)\n    f(a)\n    np.random.seed(0)\n    return a\n", "stays NumPy code"),
    "caller nested in a function that stays NumPy": (
        "def outer(n):\n    np.random.seed(0)\n\n    def inner():\n        a = np.zeros(n)\n        f(a)\n        return a\n\n    return inner()\n",
        "stays NumPy code",
    ),
    "global array": ("G = np.zeros(3)\n\ndef user():\n    f(G)\n    return G\n", "not a local array"),
}


@pytest.mark.parametrize("case", sorted(NOT_REWRITTEN))
def test_mutating_function_stays_numpy_when_a_call_cannot_rebind(case):
    extra, reason, name = (*NOT_REWRITTEN[case], "f")[:3]
    source = "import numpy as np\n\ndef f(x):\n    x[0] = 1.0\n\n" + extra
    result = migrate(source)
    assert f"def {name}(x" in result.output.decode() and "    x[0] = 1.0\n" in result.output.decode()
    messages = [d.message for d in result.diagnostics if d.code == "NPJ201"]
    assert messages and reason in messages[0], result.diagnostics
    assert statuses(result)[name] == "unsupported"


@pytest.mark.parametrize("body, reason", [
    ("def f(x, flag):\n    if flag:\n        x = x.copy()\n    x[0] = 1.0\n", "also rebound"),
    ("def f(x, out=np.zeros(3)):\n    out[0] = x\n", "default value"),
    ("def f(x):\n    x[0] = 1.0\n    return x.sum()\n", "also returns a value"),
    ("def f(x):\n    x[0] = 1.0\n    yield x\n", "generator"),
    ("import functools\n\n@functools.lru_cache\ndef f(x):\n    x[0] = 1.0\n", "decorated"),
])
def test_mutating_function_stays_numpy_when_it_cannot_return_its_argument(body, reason):
    result = migrate("import numpy as np\n\n" + body)
    assert result.output == result.source
    assert any(d.code == "NPJ201" and reason in d.message for d in result.diagnostics), result.diagnostics


def test_an_untyped_parameter_changed_by_augmented_assignment_is_flagged():
    source = """
    import numpy as np

    def scale(v, k):
        v *= k

    def energy(v, k):
        scale(v, k)
        return np.sum(v ** 2)

    def decay(total: float, n):
        total /= n
    """
    result = migrate(source)
    assert statuses(result) == {"scale": "unsupported", "energy": "unsupported", "decay": "migrated"}

RETURNS_ITS_ARGUMENT = """
import numpy as np

def propagate(p, noise, q):
    p += np.sqrt(q) * noise
    return p

def reads_after(p, noise):
    propagate(p, noise, 0.1)
    return p * 2

def copies_first(p, noise):
    p2 = p.copy()
    propagate(p2, noise, 0.1)
    return p2

def drift(x, v):
    x += v
    return x

def rebinds(x, v):
    y = x * 1.0
    y = drift(y, v)
    return drift(x * 2.0, v) + y

def advance(t, dt):
    t += dt
    return t

def clock(dt):
    t = 0.0
    t2 = advance(t, dt)
    return t2 + t
"""


def test_a_function_that_updates_and_returns_its_argument_stays_numpy_when_a_caller_reads_it_later():
    """`p += v; return p` updates an array argument in place in NumPy; the migrated function only rebinds `p`:
    a call that reads the argument afterwards keeps both NumPy, calls that rebind it (or pass a temporary) do not."""
    original, migrated, result = both(RETURNS_ITS_ARGUMENT)
    assert statuses(result) == {
        "propagate": "unsupported", "reads_after": "unsupported", "copies_first": "unsupported",
        "drift": "migrated", "rebinds": "migrated", "advance": "migrated", "clock": "migrated",
    }
    assert any(d.code == "NPJ201" and "passes `p` to `propagate` and may read it after the call" in d.message for d in result.diagnostics)
    rng = np.random.default_rng(0)
    p, noise = rng.normal(size=5), rng.normal(size=5)
    assert_close(migrated["rebinds"](jnp.asarray(p), jnp.asarray(noise)), original["rebinds"](p.copy(), noise))
    assert_close(migrated["clock"](0.5), original["clock"](0.5))
    for name in ("reads_after", "copies_first"):  # NumPy code on both sides
        assert_close(migrated[name](p.copy(), noise), original[name](p.copy(), noise))



# --- methods that write into self.x ---------------------------------------------------------
FILTER = """
import numpy as np

class Filter:
    def __init__(self, n):
        self.state = np.zeros(n)
        self.cov = np.eye(n)
        self.items = []
        self.count = 0

    def update(self, z):
        self.state[0] = z
        self.state *= 0.5
        self.cov[0, 0] += 1.0
        self.cov[1:, :] /= 2.0
        self.items.append(float(z))
        self.count += 1
        return self.state.sum()

    def reset(self):
        self.state[...] = 0.0

    def snapshot(self):
        return self.state.copy(), self.cov + 0.0
"""


def test_an_object_used_over_several_calls_matches_numpy():
    original, migrated, result = both(FILTER)
    assert statuses(result) == {"Filter.__init__": "migrated", "Filter.update": "needs-review",
                                "Filter.reset": "needs-review", "Filter.snapshot": "migrated"}, result.diagnostics
    public = [d.message for d in result.diagnostics if d.code == "NPJ200"]
    assert public[0].startswith("`self.state`, `self.cov` now get a new array") and len(public) == 2
    before, after = original["Filter"](3), migrated["Filter"](3)
    for step, z in enumerate([1.0, -2.0, 0.5, 4.0]):
        assert_close(after.update(z), before.update(z))
        if step == 2:
            before.reset()
            after.reset()
        for got, want in zip(after.snapshot(), before.snapshot()):
            assert_close(got, want)
    assert after.items == before.items and after.count == before.count == 4
    assert "self.state = self.state * 0.5" in result.output.decode()
    assert "self.cov = self.cov.at[1:, :].divide(2.0)" in result.output.decode()


def test_methods_that_write_self_state_are_never_jitted():
    result = migrate(FILTER)
    assert not any(f.jit for f in result.functions)
    assert codes(result).count("NPJ304") == 4  # every method says why, snapshot (nothing to migrate) too


ESCAPES = {
    "returned": "    def get(self):\n        return self.x\n",
    "returned view": "    def get(self):\n        return self.x[1:]\n",
    "transposed": "    def get(self):\n        return self.x.T\n",
    "yielded": "    def rows(self):\n        yield self.x\n",
    "aliased by a local": "    def peek(self):\n        y = self.x\n        self.x[0] = 2.0\n        return y.sum()\n",
    "stored in another attribute": "    def keep(self):\n        self.y = self.x\n",
    "stored in a list": "    def keep(self, out):\n        out.append(self.x)\n",
    "passed to a function": "    def keep(self):\n        register(self.x)\n",
    "iterated": "    def total(self):\n        return sum(float(r[0]) for r in self.x)\n",
    "stored by unpacking": "    def swap(self, a):\n        self.x, self.y = a, a\n",
    "from the caller": "    def load(self, x0):\n        self.x = x0\n",
    "from the caller through asarray": "    def load(self, x0):\n        self.x = np.asarray(x0)\n",
    "self passed out": "    def clone(self):\n        return copy.copy(self)\n",
    "used on another object": "    def merge(self, other):\n        return other.x.sum()\n",
}


@pytest.mark.parametrize("case", sorted(ESCAPES))
def test_a_self_array_that_may_be_shared_keeps_its_error(case):
    source = (
        "import copy\nimport numpy as np\n\nREGISTRY = []\n\n\ndef register(a):\n    REGISTRY.append(a)\n\n\n"
        "class Holder:\n    def __init__(self, n):\n        self.x = np.zeros(n)\n\n"
        "    def bump(self):\n        self.x[0] += 1.0\n        self.x *= 2.0\n\n" + ESCAPES[case]
    )
    result = migrate(source)
    assert "class Holder" in result.output.decode() and "self.x[0] += 1.0" in result.output.decode()
    assert statuses(result)["Holder.bump"] == "unsupported"
    assert any(d.code == "NPJ201" and "self.x" in d.message for d in result.diagnostics), result.diagnostics


@pytest.mark.parametrize("header, why", [
    ("import dataclasses\nimport numpy as np\n\n@dataclasses.dataclass\nclass Holder:\n    x: np.ndarray\n", "decorated"),
    ("import numpy as np\nfrom base import Base\n\nclass Holder(Base):\n    def __init__(self, n):\n        self.x = np.zeros(n)\n", "another module"),
    ("import numpy as np\n\nclass Holder:\n    x = np.zeros(3)\n", "class attribute"),
])
def test_a_class_np2jax_cannot_see_whole_keeps_its_error(header, why):
    result = migrate(header + "\n    def bump(self):\n        self.x[0] += 1.0\n        return np.sum(self.x)\n")
    assert result.output == result.source
    assert any(d.code == "NPJ201" and why in d.message for d in result.diagnostics), result.diagnostics


def test_subclasses_in_the_module_are_seen():
    source = """
    import numpy as np

    class Base:
        def __init__(self, n):
            self.x = np.zeros(n)

        def bump(self):
            self.x[0] += 1.0

    class Leaky(Base):
        def get(self):
            return self.x
    """
    result = migrate(source)
    assert result.output == result.source
    assert any(d.code == "NPJ201" and "returned" in d.message for d in result.diagnostics)


def test_in_place_array_methods_become_functional_on_local_arrays_flagged_on_attributes_and_list_methods_stay():
    source = """
    import numpy as np

    def ordered(n):
        x = np.arange(n)[::-1] * 1.0
        x.sort()
        return x

    def names(items):
        out = list(items)
        out.sort()
        return out, np.zeros(3)

    class S:
        def __init__(self, n):
            self.x = np.zeros(n)

        def go(self):
            self.x.fill(2.0)
            return np.sum(self.x)

        def show(self):
            return self.x
    """
    result = migrate(source)
    assert statuses(result) == {"ordered": "migrated", "names": "migrated", "S.__init__": "unsupported", "S.go": "unsupported",
                                "S.show": "unsupported"}
    output = result.output.decode()
    assert "x = jnp.sort(x)" in output and "out.sort()" in output, output
    # an attribute no other reference sees is filled functionally (hunt52 FP1); one a method returns is not
    result = migrate(source.replace("\n        def show(self):\n            return self.x\n", ""))
    assert statuses(result)["S.go"] != "unsupported" and "self.x = jnp.full_like(self.x, 2.0)" in result.output.decode()


def test_private_attributes_are_rebound_without_a_warning():
    source = FILTER.replace("self.state", "self._state").replace("self.cov", "self._cov")
    result = migrate(source)
    assert "self._state = self._state.at[0].set(z)" in result.output.decode()
    assert set(statuses(result).values()) == {"migrated"}, result.diagnostics


def test_without_npj203_a_function_that_writes_into_its_arguments_keeps_doing_so():
    result = migrate_source(textwrap.dedent(ARGUMENTS).lstrip().encode(), "m.py", Options(ignore=frozenset({"NPJ203"})))
    assert result.output == result.source
    assert any(d.code == "NPJ201" and "NPJ203" in d.message for d in result.diagnostics)


def test_a_method_call_spelled_like_an_attribute_is_not_another_reference_to_it():
    """hunt12 FP1: `X.mean(axis=0)` in a module-level function made `self.mean += ...` NPJ201 ("`.mean` is also used on
    another object"), and the whole class stayed NumPy; an attribute holding an array is not callable, so a call
    names a method.  Reading `other.mean` as a value still counts."""
    source = textwrap.dedent(
        """
        import numpy as np

        class Acc:
            def __init__(self, d):
                self.n = 0
                self.mean = np.zeros(d)

            def push(self, x):
                self.n += 1
                self.mean += (x - self.mean) / self.n

        def centre(X):
            return X - X.mean(axis=0)
        """
    )
    original, migrated, result = both(source)
    assert statuses(result)["Acc.push"] != "unsupported", codes(result)  # (NPJ200 says the attribute is rebound)
    a, b = original["Acc"](2), migrated["Acc"](2)
    for x in ([1.0, 2.0], [3.0, -1.0], [0.5, 0.5]):
        a.push(np.array(x))
        b.push(np.array(x))
    assert_close(b.mean, a.mean)
    aliased = source + "\ndef peek(acc):\n    m = acc.mean\n    return m\n"
    assert statuses(migrate(aliased))["Acc.push"] == "unsupported"


def test_ufunc_at_on_an_array_attribute_becomes_an_exact_at_update():
    """hunt12 FP2: `np.add.at(self.counts, idx, 1)` was NPJ111 and the class stayed NumPy, while the same call on a
    local array became `.at[idx].add(1)`; unbuffered like np.add.at, repeated indices accumulate in both."""
    source = """
        import numpy as np

        class Hist:
            def __init__(self, nbins):
                self._counts = np.zeros(nbins)
                self.low = np.full(nbins, np.inf)

            def add(self, idx, w):
                np.add.at(self._counts, idx, w)
                np.minimum.at(self.low, idx, w)
                return self._counts.sum()
        """
    original, migrated, result = both(source)
    output = result.output.decode()
    assert "self._counts = self._counts.at[idx].add(w)" in output and "self.low = self.low.at[idx].min(w)" in output
    assert statuses(result)["Hist.add"] != "unsupported", codes(result)
    a, b = original["Hist"](4), migrated["Hist"](4)
    for idx, w in (([0, 1, 1, 3], [1.0, 2.0, 3.0, 4.0]), ([1, 1, 1], [0.5, -2.0, 0.25])):
        assert_close(b.add(np.array(idx), np.array(w)), a.add(np.array(idx), np.array(w)))
    assert_close(b._counts, a._counts)
    assert_close(np.where(np.isinf(a.low), 0, a.low), np.where(np.isinf(np.asarray(b.low)), 0, b.low))


RING = """
    import numpy as np

    class RingBuffer:
        def __init__(self, capacity, dim):
            self.data = np.zeros((capacity, dim))
            self.head = 0
            self.count = 0

        def append(self, value):
            self.data[self.head] = value
            self.head = (self.head + 1) % self.data.shape[0]
            self.count = min(self.count + 1, self.data.shape[0])

        def mean(self):
            return self.data[: self.count].mean(axis=0)
    """


def test_an_int_attribute_index_writes_one_element():
    """hunt12 FP4: `self.data[self.head] = value` was NPJ201 ("the index may be an integer array with repeated
    entries") and the ring buffer stayed NumPy: every value the class gives `self.head` is an int.  Set from
    elsewhere in the module (`rb.head = idx`), it may be anything and stays reported."""
    original, migrated, result = both(RING)
    assert "self.data = self.data.at[self.head].set(value)" in result.output.decode(), codes(result)
    a, b = original["RingBuffer"](3, 2), migrated["RingBuffer"](3, 2)
    for k in range(5):
        a.append(np.array([k, -k], float))
        b.append(np.array([k, -k], float))
        assert_close(b.mean(), a.mean())
    assert_close(b.data, a.data)
    elsewhere = migrate(RING + "\n    def rewind(rb, idx):\n        rb.head = idx\n")
    assert statuses(elsewhere)["RingBuffer.append"] == "unsupported"


def test_op_assign_on_parameters_of_a_function_that_returns_nothing_returns_them():
    """hunt12 M: `adam_update(p, g, m, v, t)` updates p, m, v with `op=` and returns nothing: on numbers it would
    change nothing a caller sees, so it is written for arrays.  It now returns them and its calls rebind them
    (NPJ203), when each call passes an array there; `bump(s, 1.0)` with `s = 0.0` keeps it NumPy (rebinding `s`
    would change the caller's number, which NumPy leaves alone)."""
    source = """
        import numpy as np

        def adam_update(p, g, m, v, t, lr=1e-3, beta1=0.9, beta2=0.999, eps=1e-8):
            m *= beta1
            m += (1 - beta1) * g
            v *= beta2
            v += (1 - beta2) * g * g
            m_hat = m / (1 - beta1 ** t)
            v_hat = v / (1 - beta2 ** t)
            p -= lr * m_hat / (np.sqrt(v_hat) + eps)

        def train(p, g):
            p = p.copy()
            m = np.zeros_like(p)
            v = np.zeros_like(p)
            for t in range(1, 4):
                adam_update(p, g, m, v, t)
            return p

        def bump(x, d):
            x += d

        def use_bump(a):
            s = 0.0
            bump(s, 1.0)
            b = np.ones(3)
            bump(b, a)
            return s, b
        """
    original, migrated, result = both(source)
    output = result.output.decode()
    assert "p, m, v = adam_update(p, g, m, v, t)" in output and "    return p, m, v" in output, codes(result)
    assert statuses(result)["bump"] == "unsupported" and statuses(result)["use_bump"] == "unsupported"
    p, g = np.array([0.5, -1.0, 2.0]), np.array([0.1, -0.3, 0.2])
    assert_close(migrated["train"](p, g), original["train"](p, g))
    assert not np.allclose(original["train"](p, g), p)


def test_out_into_an_array_attribute_becomes_its_result():
    """hunt14 M: `np.minimum(self.low, x, out=self.low)` was NPJ103 and the class stayed NumPy, while `out=` a
    local array became the assigned result: an attribute no other reference sees gets it too, cast to its dtype
    as NumPy casts what it writes.  Returned (`return self.low`), the caller shares it: still refused."""
    source = """
        import numpy as np

        class Extremes:
            def __init__(self, n):
                self.low = np.full(n, np.inf)
                self.high = np.zeros(n, dtype=np.float32)

            def update(self, x):
                np.minimum(self.low, x, out=self.low)
                np.maximum(self.high, x, out=self.high)
                return self.low.sum()
        """
    original, migrated, result = both(source)
    output = result.output.decode()
    assert "self.low = jnp.minimum(self.low, x).astype(self.low.dtype)" in output
    assert statuses(result)["Extremes.update"] != "unsupported", codes(result)
    a, b = original["Extremes"](3), migrated["Extremes"](3)
    for x in ([3.0, 1.5, 2.0], [1.0, 5.0, -0.5]):
        assert_close(b.update(np.array(x)), a.update(np.array(x)))
    assert_close(b.high, a.high)
    assert np.asarray(b.high).dtype == np.float32
    shared = source.replace("return self.low.sum()", "return self.low")
    assert statuses(migrate(shared))["Extremes.update"] == "unsupported"
