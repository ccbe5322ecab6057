"""jax.jit decoration: which functions are jitted, with which static arguments, and why others are not.

Each case is a module; the expectation maps function names to ``static_argnums``
(jitted) or to the diagnostic code that explains why it is not jitted.  The
runtime tests execute the migrated module with real JAX and compare with NumPy.
"""

from __future__ import annotations

import textwrap

import numpy as np
import pytest

from np2jax.engine import migrate_source

PLAIN = "not decorated, no diagnostic"


def migrate(source: str):
    result = migrate_source(textwrap.dedent(source).lstrip("\n").encode(), "m.py")
    assert result.error is None, result.error
    again = migrate_source(result.output, "m.py")
    assert again.output == result.output, "not idempotent"
    return result


def outcome(result) -> dict[str, object]:
    """name -> ("jit", static_argnums) when jitted, else the sorted codes of the NPJ30x diagnostics in
    its span, or PLAIN when there are none."""
    found = {}
    for record in result.functions:
        if record.jit:
            found[record.qualname] = ("jit", record.static_argnums)
            continue
        codes = sorted({d.code for d in result.diagnostics if record.line <= d.line <= record.end_line and d.code.startswith("NPJ30")})
        found[record.qualname] = tuple(codes) or PLAIN
    return found


def jit(*static: int):
    return ("jit", static)


CASES = [
    pytest.param(
        """
        import numbers
        import numpy as np

        def wrap(value):
            if hasattr(value, "__len__"):
                return np.array(value)
            return np.array([value])

        def pair(value):
            if isinstance(value, numbers.Number):
                return np.array([value, value])
            return np.asarray(value) * 2

        def tile(x, n=2):
            if not isinstance(n, int):
                raise TypeError("n must be an int")
            return np.concatenate([x] * n)
        """,
        # under jit the argument is a tracer: the type check would answer for it, not for what the caller passed
        {"wrap": ("NPJ301",), "pair": ("NPJ301",), "tile": jit(1)},
        id="type-checks-of-a-traced-argument-block-jit-of-a-static-one-do-not",
    ),
    pytest.param(
        """
        import numpy as np

        def arg_or_default(arg, default, dim, name):
            result = np.asarray(default) if arg is None else arg
            if len(result.shape) > dim:
                raise ValueError(("%s is not constant." + " Specify it.") % (name,))
            return result

        def label_sum(x, name):
            if x.ndim > 1:
                raise ValueError("bad " + name)
            return np.sum(x)
        """,
        # a str argument can only be a Python value: traced, every call raised before the body ran (pykalman)
        {"arg_or_default": jit(2, 3), "label_sum": jit(1)},
        id="strings-concatenated-or-formatted-make-their-operands-static",
    ),
    pytest.param(
        """
        import numpy as np

        def f(x, n, mode="same", *, axis=0):
            k = np.ones(n) / n
            if mode == "same":
                x = x - np.mean(x, axis=axis)
            return np.convolve(x, k, mode=mode)
        """,
        {"f": jit(1, 2)},
        id="size-mode-and-kwonly-axis-are-static",
    ),
    pytest.param(
        """
        import numpy as np

        def f(x, i):
            return x[i] * np.sum(x)
        """,
        {"f": jit()},
        id="integer-index-stays-traced",
    ),
    pytest.param(
        """
        import numpy as np

        def f(x, k):
            return np.sort(x)[:k]
        """,
        {"f": jit(1)},
        id="slice-bound-is-static",
    ),
    pytest.param(
        """
        import numpy as np

        def f(x):
            if x.ndim == 1:
                x = x[:, None]
            if x.shape[0] > 3 and len(x) < 100:
                return np.sum(x, axis=0)
            return np.mean(x, axis=0)
        """,
        {"f": jit()},
        id="shape-tests-are-static",
    ),
    pytest.param(
        """
        import numpy as np

        def f(x, w=None):
            if w is None:
                w = np.ones_like(x)
            return np.sum(x * w)
        """,
        {"f": jit()},
        id="is-none-test-needs-no-static",
    ),
    pytest.param(
        """
        import numpy as np

        def f(x):
            s = np.sum(x)
            if s > 0:
                return s
            return -s
        """,
        {"f": jit()},
        id="if-on-array-result-becomes-cond",
    ),
    pytest.param(
        """
        import numpy as np

        def f(x, threshold):
            y = np.abs(x)
            if threshold > 0:
                y = np.minimum(y, threshold)
            return y + threshold * np.exp(threshold)
        """,
        {"f": ("NPJ301",)},
        id="param-tested-and-used-as-array-data",
    ),
    pytest.param(
        """
        import numpy as np

        def f(x, threshold: float):
            y = np.abs(x)
            if threshold > 0:
                y = np.minimum(y, threshold)
            return y + np.exp(threshold)
        """,
        {"f": jit(1)},
        id="float-hint-allows-static",
    ),
    pytest.param(
        """
        import numpy as np

        def f(x: np.ndarray):
            if x > 0:
                return np.sqrt(x)
            return np.zeros_like(x)
        """,
        {"f": ("NPJ301",)},
        id="array-hint-never-static",
    ),
    pytest.param(
        """
        import numpy as np

        def f(x):
            return float(np.max(x)) + np.sum(x).item()
        """,
        {"f": ("NPJ301",)},
        id="float-and-item-of-traced",
    ),
    pytest.param(
        """
        import numpy as np

        def f(x, order):
            rhs = [0.0] * 3
            rhs[order] = 1.0
            return np.asarray(rhs) * x
        """,
        {"f": jit(1)},
        id="python-list-index-is-static",
    ),
    pytest.param(
        """
        import numpy as np

        def f(x, func):
            return func(np.asarray(x))
        """,
        {"f": jit(1)},
        id="callable-parameter-is-static",
    ),
    pytest.param(
        """
        import numpy as np

        def helper(x, n):
            return np.pad(x, n)

        def caller(x, width):
            return helper(np.abs(x), width + 1)
        """,
        {"helper": jit(1), "caller": jit(1)},
        id="helper-static-propagates-to-caller",
    ),
    pytest.param(
        """
        import numpy as np

        def caller(x):
            return helper(x, np.argmax(x))

        def helper(x, n):
            return np.pad(x, n)
        """,
        {"caller": ("NPJ301",), "helper": jit(1)},
        id="traced-value-into-static-helper-argument",
    ),
    pytest.param(
        """
        import numpy as np

        def caller(x):
            return np.abs(noisy(x))

        def noisy(x):
            print(x)
            return np.sum(x)
        """,
        {"caller": ("NPJ302",), "noisy": ("NPJ302",)},
        id="caller-of-untraceable-helper",
    ),
    pytest.param(
        """
        import numpy as np

        SCALE = 2.0
        state = {"calls": 0}

        def bump():
            state["calls"] += 1

        def f(x):
            return np.multiply(x, SCALE)

        def g(x):
            return np.multiply(x, state["calls"])
        """,
        {"bump": PLAIN, "f": jit(), "g": ("NPJ302",)},
        id="mutated-global-blocks-constant-does-not",
    ),
    pytest.param(
        """
        import numpy as np

        def narrowed(x):
            x = np.array(x, dtype=float)
            m = x > 0
            m = m & (x < 5)
            x[m] = 0.0
            return x

        def flipped(x):
            m = x > 0
            m = ~m
            return np.sum(x[m])
        """,
        # a mask rebound from itself: looking through `m`'s bindings recursed forever and the whole file failed
        {"narrowed": ("NPJ301",), "flipped": ("NPJ301",)},
        id="mask-rebound-from-itself",
    ),
    pytest.param(
        """
        import numpy as np

        def interaction_codes(a, b, n_b):
            return a.astype(np.int64) * n_b + b
        """,
        # nothing to rewrite, only NPJ107's precision note: array code jitted as it is (it had neither jit nor NPJ304)
        {"interaction_codes": jit()},
        id="a-precision-note-does-not-keep-array-code-from-jit",
    ),
    pytest.param(
        """
        import numpy as np

        A = np.zeros((3, 3))
        A[1, 0] = 0.5
        B5 = A[1].copy()
        BT = A.T.copy()
        ROWS = A.tolist()
        OPTIONS = {"scale": 2.0}
        SCALES = OPTIONS.copy()

        def step(y):
            return np.sum(y + B5 @ y + BT[0] @ y)

        def from_list(y):
            return np.sum(y * ROWS[1][0])

        def from_dict(y):
            return np.sum(y * SCALES["scale"])
        """,
        # a Butcher tableau built at import and never written is a constant; tolist() and a dict's copy are not
        {"step": jit(), "from_list": ("NPJ302",), "from_dict": ("NPJ302",)},
        id="module-arrays-from-array-methods-are-constants",
    ),
    pytest.param(
        """
        import numpy as np

        A = np.zeros(3)
        B = np.ones(3)
        V = A[1:]
        W = B.reshape(3, 1)
        C = np.ones(3)
        K = C.copy()

        def set_v(x):
            V[0] = x

        def set_w(x):
            W[2, 0] = x

        def set_k(x):
            K[0] = x

        def read_a(y):
            return np.sum(A * y)

        def read_b(y):
            return np.sum(B * y)

        def read_c(y):
            return np.sum(C * y)
        """,
        # writing a module-level view changes the array it views: jit would keep the values it traced with
        {"set_v": PLAIN, "set_w": PLAIN, "set_k": PLAIN, "read_a": ("NPJ302",), "read_b": ("NPJ302",), "read_c": jit()},
        id="writes-through-module-level-views-block-reads-of-their-base",
    ),
    pytest.param(
        """
        import numpy as np

        def f(x, table):
            try:
                scale = table["scale"]
            except KeyError:
                scale = 1.0
            return np.multiply(x, scale)
        """,
        {"f": ("NPJ302",)},
        id="try-except",
    ),
    pytest.param(
        """
        import numpy as np

        def f(x):
            try:
                return np.linalg.inv(x)
            except np.linalg.LinAlgError:
                return np.zeros_like(x)
        """,
        {"f": PLAIN},  # left as NumPy (NPJ118): JAX never raises LinAlgError
        id="try-except-linalg-error-stays-numpy",
    ),
    pytest.param(
        """
        import numpy as np

        def f(x):
            total = np.zeros(3)
            for i in range(3):
                total = total + x[i]
            return total
        """,
        {"f": jit()},
        id="short-literal-loop-unrolls",
    ),
    pytest.param(
        """
        import numpy as np

        def f(x, n):
            total = np.zeros_like(x)
            for i in range(n):
                total = total + x * i
            return total
        """,
        {"f": jit(1)},
        id="loop-with-run-time-trip-count-becomes-fori",
    ),
    pytest.param(
        """
        import numpy as np

        def f(x, weights):
            for w, b in weights:
                x = np.tanh(x @ w + b)
            return x
        """,
        {"f": jit()},
        id="loop-over-python-container-unrolls",
    ),
    pytest.param(
        """
        import numpy as np

        def f(x):
            def inner(y):
                return np.exp(y)
            return inner
        """,
        {"f": ("NPJ302", "NPJ304"), "f.<locals>.inner": ("NPJ304",)},  # inner runs as part of f, not jitted
        id="returning-a-function",
    ),
    pytest.param(
        """
        import numpy as np
        from mypkg.helpers import smooth

        def f(x):
            return smooth(np.abs(x))
        """,
        {"f": ("NPJ302",)},
        id="call-into-another-module",
    ),
    pytest.param(
        """
        import numpy as np

        class Model:
            def predict(self, x):
                return np.tanh(x)

        def f(x):
            return np.abs(x)
        """,
        {"Model.predict": ("NPJ304",), "f": jit()},
        id="methods-are-not-jitted",
    ),
    pytest.param(
        """
        import functools
        import numpy as np

        @functools.lru_cache
        def f(n):
            return np.arange(n)
        """,
        {"f": ("NPJ304",)},
        id="other-decorators-are-kept-alone",
    ),
    pytest.param(
        """
        def pure_python(a, b):
            return max(a, b)
        """,
        {"pure_python": PLAIN},
        id="no-numpy-no-decorator-no-diagnostic",
    ),
    pytest.param(
        """
        import numpy as np

        def standardize(x):
            return (x - x.mean(axis=0)) / x.std(axis=0)

        def worst(prices):
            return standardize(prices).min(axis=0)

        def flat(x):
            return x.reshape((np.prod(x.shape),))

        def scaled(x, factor):
            return x * factor

        def rows(x):
            return x.shape[0]
        """,
        {"standardize": jit(), "worst": jit(), "flat": jit(), "scaled": ("NPJ304",), "rows": ("NPJ304",)},
        id="nothing-to-rewrite-array-code-jitted-as-is",
    ),
    pytest.param(
        """
        import numpy as np

        def rounded(x):
            return np.round(x, decimals=2)

        def head(xs, n):
            total = xs.sum()
            while total > n:
                half = total / 2
                total = half
            return total, half
        """,
        {"rounded": PLAIN, "head": ("NPJ304",)},  # rounded: NPJ104 says why np.round stays; head: `half` unbound after no step
        id="nothing-to-rewrite-but-not-traceable-says-why",
    ),
    pytest.param(
        """
        import numpy as np

        def outer(x):
            def inner(y):
                return y.sum()
            return inner(x) * 2.0
        """,
        {"outer": jit(), "outer.<locals>.inner": jit()},
        id="nested-function-of-a-jitted-one-is-traced-with-it",
    ),
    pytest.param(
        """
        import numpy as np

        def row(n, x):
            return np.array([x] * n)

        def dashes(x, width):
            return np.sum(x), width * "-"

        def by_data(x):
            return np.array([1.0] * int(np.sum(x)))
        """,
        {"row": jit(0), "dashes": jit(1), "by_data": ("NPJ301",)},
        id="list-and-string-repetition-counts-are-static",
    ),
    pytest.param(
        """
        import numpy as np

        def count_above(x, thr=0.5):
            count = np.zeros((), dtype=int)
            for v in x:
                if v > thr:
                    count += 1
            return count

        def weighted(x, weights=(0.25, 0.5, 0.25)):
            total = 0.0
            for w in weights:
                if w > 0.3:
                    total = total + w * np.sum(x)
            return total
        """,
        {"count_above": jit(), "weighted": jit(1)},  # (the `if` becomes jax.lax.cond around `count + 1`)
        id="an-iterated-parameter-is-never-static-unless-a-tuple-default-says-so",
    ),
]


@pytest.mark.parametrize("source, expected", CASES)
def test_jit_decisions(source, expected):
    result = migrate(source)
    found = outcome(result)
    assert set(found) == set(expected)
    for name, want in expected.items():
        assert found[name] == want, (name, found[name], [d.format() for d in result.diagnostics])


def test_no_numpy_function_is_not_decorated():
    result = migrate("def pure_python(a, b):\n    return max(a, b)\n")
    assert result.status == "unchanged"
    assert not result.functions[0].jit


def test_decorator_text_and_report_fields():
    result = migrate(
        """
        import numpy as np

        def f(x, n, *, axis=0):
            return np.sum(x[:n], axis=axis)
        """
    )
    assert "@functools.partial(jax.jit, static_argnums=(1,), static_argnames=(\"axis\",))\n" in result.output.decode()
    record = result.functions[0]
    assert record.jit and record.static_argnums == (1,) and record.status == "migrated"


def test_not_jitted_function_is_needs_review_with_the_blocking_line():
    result = migrate(
        """
        import numpy as np

        def f(x):
            s = np.sum(x)
            if s > 0:
                s = np.log(s)
                print(s)
            return -s
        """
    )
    diagnostic = next(d for d in result.diagnostics if d.code == "NPJ301")
    assert (diagnostic.code, diagnostic.line, diagnostic.col) == ("NPJ301", 5, 8)
    assert result.functions[0].status == "needs-review" and not result.functions[0].jit


def test_no_jit_option_adds_nothing_and_reports_nothing():
    from np2jax.engine import Options

    source = b"import numpy as np\n\ndef f(x):\n    if np.sum(x) > 0:\n        return x\n    return -x\n"
    result = migrate_source(source, "m.py", Options(jit=False))
    assert b"jax.jit" not in result.output and not result.diagnostics


RUNTIME_SOURCE = """
import numpy as np

def smooth(x, width, center=True):
    kernel = np.ones(width) / width
    y = np.convolve(x, kernel, mode="same")
    if center:
        y = y - y.mean()
    return y

def head(x, k, *, axis=0):
    return np.sort(x, axis=axis)[:k]

def pick(x, order):
    rhs = [0.0] * 3
    rhs[order] = 1.0
    return np.asarray(rhs) * np.sum(x)

def apply(x, func):
    return func(np.asarray(x)) * 2.0

def taper(x, n):
    return np.sum(x[:n] * np.hanning(n))

def repeat_value(n, x):
    return np.array([[x] * n]) + np.sum(x)
"""


def test_jitted_functions_run_and_match_numpy():
    jax = pytest.importorskip("jax")
    jnp = pytest.importorskip("jax.numpy")
    result = migrate(RUNTIME_SOURCE)
    assert all(record.jit for record in result.functions), [(r.qualname, r.jit) for r in result.functions]
    original, migrated = {}, {}
    exec(compile(RUNTIME_SOURCE, "original.py", "exec"), original)
    exec(compile(result.output, "migrated.py", "exec"), migrated)
    x = np.linspace(-1.0, 2.0, 12).astype(np.float32)
    calls = [
        ("smooth", (x, 3), {}),
        ("smooth", (x, 5, False), {}),
        ("head", (x, 4), {}),
        ("head", (x.reshape(3, 4), 2), {"axis": 1}),
        ("pick", (x, 2), {}),
        ("apply", (x, np.cumsum), {}),
        ("taper", (x, 6), {}),
        ("repeat_value", (3, x[:2]), {}),
    ]
    for name, args, kwargs in calls:
        assert isinstance(migrated[name], jax.stages.Wrapped) or hasattr(migrated[name], "lower"), name
        want = original[name](*args, **kwargs)
        jax_args = tuple(jnp.asarray(a) if isinstance(a, np.ndarray) else a for a in args)
        got = migrated[name](*jax_args, **kwargs)
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-5, atol=1e-5, err_msg=name)


# --- loops into jax.lax.fori_loop -----------------------------------------------

FORI_CASES = [
    pytest.param(
        """
        import numpy as np

        def f(x, n):
            total = np.zeros_like(x)
            for i in range(n):
                total = total + x * i
            return total
        """,
        {"f": jit(1)},
        id="range-of-a-static-argument",
    ),
    pytest.param(
        """
        import numpy as np

        def f(x):
            out = np.zeros_like(x)
            for i in range(1, len(x)):
                out[i] = out[i - 1] + x[i]
            for i in range(len(x)):
                out[i] = out[i] * 2.0
            return out
        """,
        {"f": jit()},
        id="two-loops-sharing-an-index-name",
    ),
    pytest.param(
        """
        import numpy as np

        def f(x):
            total = 0.0
            for i in range(len(x)):
                total = total + np.abs(x[i])
            return total, i
        """,
        {"f": ("NPJ303",)},
        id="index-used-after-the-loop",
    ),
    pytest.param(
        """
        import numpy as np

        def f(x):
            acc = np.zeros(2)
            for i in range(len(x)):
                last = x[i] * 2.0
                acc = acc + last
            return acc + last
        """,
        {"f": jit()},  # `last` is carried; the first step runs before the fori_loop, so it exists
        id="temporary-used-after-the-loop",
    ),
    pytest.param(
        """
        import numpy as np

        def f(x):
            out = np.zeros_like(x)
            for i in range(len(x)):
                if i > 0:
                    out[i] = x[i]
            return out
        """,
        {"f": jit()},  # the guarded write becomes jax.lax.cond(i > 0, lambda: out.at[i].set(x[i]), lambda: out)
        id="index-in-an-if-test",
    ),
    pytest.param(
        """
        import numpy as np

        def f(x):
            out = np.zeros_like(x)
            for i in range(len(x)):
                out[i] = np.median(x[:i + 1])
            return out
        """,
        {"f": ("NPJ303", "NPJ304")},  # a sum over it would read x whole, masked (tests/test_prefix_masks.py); left NumPy
        id="index-as-a-slice-bound",
    ),
    pytest.param(
        """
        import numpy as np

        def f(x: np.ndarray):
            best = x[0]
            for i, v in enumerate(x):
                best = np.maximum(best, v * i)
                if np.any(best > 10):
                    break
            return best
        """,
        {"f": ("NPJ301", "NPJ303")},
        id="break",
    ),
    pytest.param(
        """
        import numpy as np

        def f(x, seed=12345):
            out = np.zeros_like(x)
            s = seed
            for i in range(len(x)):
                s = (s * 16807) % 2147483647
                out[i] = x[i] + s / 2147483647.0
            return out
        """,
        {"f": ("NPJ303", "NPJ304")},
        id="python-int-carry-would-overflow-int32",
    ),
    pytest.param(
        """
        import numpy as np

        def f(x):
            step = np.zeros(())
            lr = np.ones(())
            for i in range(len(x)):
                step = step + 1
                if step % 10 == 0:
                    lr = lr * 0.5
            return lr * x
        """,
        {"f": jit()},
        id="carried-value-in-an-if-test-becomes-cond",
    ),
    pytest.param(
        """
        import numpy as np

        def f(x):
            total = np.zeros(x.shape[1:])
            tmp = None
            for i in range(len(x)):
                tmp = x[i] * 2.0
                total = total + tmp
            return total, tmp
        """,
        {"f": jit()},  # after the first step, run before the fori_loop, `tmp` is an array
        id="carry-starting-as-none",
    ),
    pytest.param(
        """
        import numpy as np

        def f(X, labels, C):
            newC = np.zeros_like(C)
            for k in range(3):
                newC[k] = X[labels == k].mean(0)
            return newC
        """,
        {"f": ("jit", ()), "converted": False},  # the rows a mask picks, reduced where it holds: one shape (3 steps, unrolled)
        id="boolean-mask-row-reduction",
    ),
    pytest.param(
        """
        import numpy as np

        def f(x, act=np.tanh):
            return act(np.asarray(x)) * 2.0

        def g(x):
            return f(x, np.sin)
        """,
        {"f": ("NPJ302",), "g": ("NPJ302",)},  # g: passes np.sin, which stays NumPy (and calls f)
        id="numpy-function-as-a-value",
    ),
    pytest.param(
        """
        import numpy as np

        def f(x, coeffs=(1.0, 0.5, 0.25)):
            y = np.zeros_like(x)
            for k in range(len(coeffs)):
                y = y * x + coeffs[k]
            return y
        """,
        {"f": jit(), "converted": False},
        id="loop-over-a-tuple-parameter-unrolls",
    ),
    pytest.param(
        """
        import numpy as np

        def f(x, seed=12345):
            s = (seed * 16807) % 2147483647
            return np.add(x, s / 2147483647.0)
        """,
        {"f": jit(1), "converted": False},
        id="int-default-stays-a-python-int",
    ),
    pytest.param(
        """
        import numpy as np

        def f(u, n=10):
            v = np.zeros_like(u)
            for _ in range(n):
                v[1:-1] = 0.5 * (u[:-2] + u[2:])
                u, v = v, u
            return u
        """,
        {"f": PLAIN},
        id="swapped-buffers-alias-a-parameter-reverted-whole",
    ),
    pytest.param(
        """
        import numpy as np

        def f(shape):
            return np.arange(np.prod(shape)).reshape(shape)
        """,
        {"f": jit(0), "converted": False},
        id="shape-parameter-read-through-a-static-numpy-call",
    ),
    pytest.param(
        """
        import numpy as np

        def f(rows):
            acc = rows[0]
            for i in range(1, rows.shape[0]):
                acc += rows[i]
            return acc
        """,
        {"f": PLAIN, "converted": False},  # NPJ201: `acc` may be a view of rows[0], which NumPy's `+=` updates
        id="accumulator-bound-to-a-row-of-a-parameter-is-not-converted",
    ),
    pytest.param(
        """
        import numpy as np

        def f(rows):
            acc = rows[0].copy()
            for i in range(1, rows.shape[0]):
                acc += rows[i]
            return acc
        """,
        {"f": jit()},
        id="accumulator-bound-to-a-copy-of-a-row-is-converted",
    ),
    pytest.param(
        """
        import numpy as np

        def f(x):
            s = 0.0
            for i in range(x.shape[0]):
                s += x[i]
            return s
        """,
        {"f": jit()},
        id="number-accumulator-of-items-is-converted",
    ),
]


@pytest.mark.parametrize("source, expected", FORI_CASES)
def test_fori_decisions(source, expected):
    expected = dict(expected)
    want_converted = expected.pop("converted", expected["f"][0] == "jit")
    result = migrate(source)
    found = outcome(result)
    assert found == expected, [d.format() for d in result.diagnostics]
    converted = "jax.lax.fori_loop" in result.output.decode()
    assert converted == want_converted, result.output.decode()


FORI_RUNTIME = """
import numpy as np

def ema(x, alpha):
    out = np.zeros_like(x)
    out[0] = x[0]
    for t in range(1, x.shape[0]):
        out[t] = alpha * x[t] + (1 - alpha) * out[t - 1]
    return out

def running_stats(x):
    total = np.zeros(x.shape[1])
    for row in x:
        total = total + row
    return total / x.shape[0]

def weighted(x: np.ndarray):
    acc = np.zeros_like(x[0])
    for i, v in enumerate(x[::-1]):
        acc = acc + (i + 1) * np.abs(v)
    return acc

def power(a, steps):
    v = np.ones(a.shape[0]) / np.sqrt(a.shape[0])
    for _ in range(steps):
        w = a @ v
        v = w / np.linalg.norm(w)
    return v @ a @ v, v

def smooth_rows(img):
    out = img.copy()
    for r in range(1, img.shape[0] - 1):
        for c in range(1, img.shape[1] - 1):
            out[r, c] = (img[r - 1, c] + img[r + 1, c] + img[r, c - 1] + img[r, c + 1]) / 4.0
    return out
"""


PEELED_RUNTIME = """
import numpy as np

def welford(x):
    avg, spread = 0.0, 0.0
    for i in range(x.shape[0]):
        step = x[i] - avg
        avg = avg + step / (i + 1)
        spread = spread + step * (x[i] - avg)
    return avg, spread

def last_scaled(x, n_iter=12):
    total = None
    for k in range(n_iter):
        scaled = np.multiply(x, k + 1)
        total = scaled if total is None else total
    return scaled

def sor_sweep(A, b, x, omega=1.5):
    for i in range(A.shape[0]):
        sigma = np.dot(A[i], x) - A[i, i] * x[i]
        x[i] = (1 - omega) * x[i] + omega * (b[i] - sigma) / A[i, i]

def count_positive(x):
    count = 0
    for i in range(x.shape[0]):
        count = count + (x[i] > 0)
    return count

def int_total(n):
    total = 0
    for i in range(n):
        total += i * i
    return total
"""


def test_loops_whose_carry_starts_as_a_python_value_run_their_first_step_first():
    """The first step runs in Python (the carry gets its array type), then the fori_loop: same values, and a
    zero-step loop stays a zero-step loop. A carry that stays a Python int (exact) is never converted."""
    jnp = pytest.importorskip("jax.numpy")
    result = migrate(PEELED_RUNTIME)
    output = result.output.decode()
    assert output.count("jax.lax.fori_loop(") == 4, output
    assert "if 0 < x.shape[0]:" in output and "jax.lax.fori_loop(1, x.shape[0]" in output
    jitted = {r.qualname for r in result.functions if r.jit and "<locals>" not in r.qualname}
    assert jitted == {"welford", "last_scaled", "sor_sweep", "count_positive"}, output
    int_total = PEELED_RUNTIME.lstrip("\n").splitlines().index("def int_total(n):") + 1
    assert [d.code for d in result.diagnostics if d.line == int_total] == ["NPJ304"]  # Python ints only: exact
    original, migrated = {}, {}
    exec(compile(PEELED_RUNTIME, "original.py", "exec"), original)
    exec(compile(result.output, "migrated.py", "exec"), migrated)
    rng = np.random.default_rng(1)
    x = rng.normal(size=30).astype(np.float32)
    a = (rng.normal(size=(6, 6)) + 8 * np.eye(6)).astype(np.float32)
    b = rng.normal(size=6).astype(np.float32)
    swept = np.zeros(6, np.float32)
    original["sor_sweep"](a, b, swept)  # in place; the migrated one returns it (NPJ203)
    np.testing.assert_allclose(np.asarray(migrated["sor_sweep"](jnp.asarray(a), jnp.asarray(b), jnp.zeros(6))), swept, rtol=2e-5)
    calls = [("welford", (x,)), ("welford", (x[:1],)), ("last_scaled", (x,)), ("count_positive", (x,)), ("count_positive", (x[:0],))]
    for name, args in calls:
        want = original[name](*args)
        got = migrated[name](*(jnp.asarray(a) if isinstance(a, np.ndarray) else a for a in args))
        for w, g in zip(want if isinstance(want, tuple) else (want,), got if isinstance(got, tuple) else (got,)):
            np.testing.assert_allclose(np.asarray(g), w, rtol=2e-5, atol=2e-5, err_msg=name)
    with pytest.raises((UnboundLocalError, NameError)):
        migrated["last_scaled"](jnp.asarray(x), 0)  # as the original does: no step, no `scaled`
    with pytest.raises((UnboundLocalError, NameError)):
        original["last_scaled"](x, 0)


def test_fori_loops_run_under_jit_and_match_numpy():
    pytest.importorskip("jax")
    output, original, migrated = loops_migrated_and_run(FORI_RUNTIME, loops=6)
    rng = np.random.default_rng(0)
    x = rng.normal(size=40).astype(np.float32)
    m = rng.normal(size=(12, 5)).astype(np.float32)
    spd = (m.T @ m + np.eye(5, dtype=np.float32)).astype(np.float32)
    calls = [("ema", (x, 0.3)), ("running_stats", (m,)), ("weighted", (x,)), ("power", (spd, 20)), ("smooth_rows", (m,))]
    assert_same_results(original, migrated, calls)


def loops_migrated_and_run(source: str, loops: int) -> tuple[str, dict, dict]:
    """The migrated text of ``source`` (every function jitted, ``loops`` fori_loops) and the namespaces of the
    original and of the migrated module, executed."""
    result = migrate(source)
    output = result.output.decode()
    assert output.count("jax.lax.fori_loop(") == loops, output
    assert all(record.jit for record in result.functions if "<locals>" not in record.qualname), output
    original, migrated = {}, {}
    exec(compile(source, "original.py", "exec"), original)
    exec(compile(result.output, "migrated.py", "exec"), migrated)
    return output, original, migrated


def assert_same_results(original: dict, migrated: dict, calls) -> None:
    """Each (name, args) of ``calls`` gives the same values (and shapes) from the migrated function, called with
    jax arrays, as from the original with the NumPy arrays."""
    import jax.numpy as jnp

    for name, args in calls:
        want = original[name](*args)
        got = migrated[name](*(jnp.asarray(a) if isinstance(a, np.ndarray) else a for a in args))
        for w, g in zip(want if isinstance(want, tuple) else (want,), got if isinstance(got, tuple) else (got,)):
            assert np.shape(g) == np.shape(w), (name, [np.shape(a) for a in args])
            np.testing.assert_allclose(np.asarray(g), w, rtol=2e-5, atol=2e-5, err_msg=f"{name}{[np.shape(a) for a in args]}")


def test_argsort_method_of_a_jitted_function_is_noted_and_still_jitted():
    """`x.argsort()` on what becomes a JAX array sorts stably (NumPy's default quicksort need not keep ties in
    order): NPJ108 says so, and the note alone does not keep a function with nothing to rewrite un-jitted."""
    result = migrate(
        """
        import numpy as np

        def ranks(x):
            return x.argsort()

        def fast_ranks(x):
            return x.argsort(kind="quicksort")

        def stable_ranks(x):
            return x.argsort(kind="stable")
        """
    )
    assert outcome(result) == {"ranks": jit(), "fast_ranks": jit(), "stable_ranks": jit()}
    assert sorted((d.line, d.code) for d in result.diagnostics) == [(4, "NPJ108"), (7, "NPJ108")]
    output = result.output.decode()
    assert "return x.argsort()\n\n@jax.jit\ndef fast_ranks(x):\n    return x.argsort()" in output
    assert "return x.argsort(stable=True)" in output


def test_functions_whose_defaults_the_module_reads_are_not_jitted():
    """A jitted function has no ``__defaults__``/``__code__`` (spectrum's ``create_window`` reads a window's default
    parameter): the function read by name is not jitted; where the function is named at run time
    (``eval(name).__defaults__``) none with defaults is, and the reads still work."""
    source = textwrap.dedent("""
        import numpy as np

        NAMES = {"kaiser": "window_kaiser", "tukey": "window_tukey"}

        def window_kaiser(N, beta=8.6):
            return np.kaiser(N, beta)

        def window_tukey(N, r=0.5):
            return np.ones(N) * r

        def window_hann(N):
            return np.hanning(N)

        def arity(x):
            return np.sum(x) * window_hann.__code__.co_argcount

        def default_beta():
            return window_kaiser.__defaults__[0]

        def default_of(name):
            return eval(NAMES[name]).__defaults__[0]

        def scale(x, s=6.0):
            return np.sqrt(x) * s

        def default_scale():
            return getattr(scale, "__defaults__")[0]
        """)
    result = migrate(source)
    found = outcome(result)
    assert found["window_kaiser"] == found["window_tukey"] == found["window_hann"] == ("NPJ304",)
    assert found["arity"] == jit() and found["scale"] == ("NPJ304",)
    assert "window_hann.__code__` (line 15) reads an attribute" in "".join(d.message for d in result.diagnostics)
    original, migrated = {}, {}
    exec(compile(source, "original.py", "exec"), original)
    exec(compile(result.output, "migrated.py", "exec"), migrated)
    assert migrated["default_beta"]() == original["default_beta"]() == 8.6
    assert migrated["default_of"]("tukey") == original["default_of"]("tukey") == 0.5
    assert migrated["default_scale"]() == original["default_scale"]() == 6.0
    assert float(migrated["arity"](np.ones(3))) == float(original["arity"](np.ones(3))) == 3.0
    np.testing.assert_allclose(np.asarray(migrated["window_kaiser"](5)), original["window_kaiser"](5), rtol=1e-6)
