"""Float NumPy functions of a loop index (``np.sin(0.1 * i)``) in loops that become fori_loop/scan.

Their arguments are Python values, so outside such a loop they stay NumPy (NPJ100); in a converted
loop the index is traced, so they move to jax.numpy and the loop converts (analysis/index_calls.py).
Any other NumPy call on the index, or integer products/powers of it, keeps the loop a Python loop (NPJ303).
"""

from __future__ import annotations

import re

import numpy as np
import pytest

from tests.test_jit import jit, migrate, outcome

REFUSED = """
import numpy as np

def f(x):
    out = np.zeros_like(x)
    for i in range(100):
        {line}
    return out
"""

CASES = [
    pytest.param(
        """
        import numpy as np

        def f(x):
            out = np.zeros_like(x)
            for i in range(x.shape[0]):
                out[i] = x[i] * np.sin(0.1 * i) + np.sqrt(i)
            return out
        """,
        {"f": jit()}, "jax.lax.fori_loop", ["jnp.sin(0.1 * i)", "jnp.sqrt(i)"],
        id="fori-index-float-functions",
    ),
    pytest.param(
        """
        import numpy as np

        def f(x: np.ndarray):
            step = 0.5
            for j in range(50):
                phase = step * j + 1.0
                x = x * np.tanh(phase)
            return x
        """,
        {"f": jit()}, "jax.lax.fori_loop", ["jnp.tanh(phase)"],
        id="fori-name-derived-from-index",
    ),
    pytest.param(
        """
        import numpy as np

        def f(x):
            acc = []
            for i in range(x.shape[0]):
                acc.append(x[i] * np.exp(-i / 3.0))
            return np.stack(acc)
        """,
        {"f": jit()}, "jax.lax.scan", ["jnp.exp(-i / 3.0)"],
        id="scan-index-float-function",
    ),
    *(
        pytest.param(REFUSED.format(line=line), {"f": codes}, None, [kept], id=name)
        for name, line, kept, codes in [
            # an array of a new length at every step: left as NumPy code too (NPJ304, analysis/eager_shapes.py)
            ("shape-from-index-still-refused", "out = out + np.sum(np.zeros(i))", "np.zeros(i)", ("NPJ303", "NPJ304")),
            ("integer-product-of-index-still-refused", "out = out + np.sin(i * i * i)", "np.sin(i * i * i)", ("NPJ303",)),
            ("integer-valued-function-still-refused", "out = out + np.abs(i - 50)", "np.abs(i - 50)", ("NPJ303",)),
        ]
    ),
    pytest.param(
        """
        import numpy as np

        def f(x):
            n = x.shape[0]
            out = np.zeros_like(x)
            for k in range(n):
                out = out + np.cos(2 * k * np.pi / n) + np.exp(k * n / 1e3)
            return out
        """,
        {"f": ("NPJ303",)}, None, ["np.exp(k * n / 1e3)"],
        id="index-times-a-python-int-still-refused",
    ),
    pytest.param(
        """
        import numpy as np

        def f(x):
            for i in range(3):
                x = x + np.sin(0.5 * i) * np.mean(x)
            return x
        """,
        {"f": jit()}, None, ["np.sin(0.5 * i)"],
        id="unrolled-loop-keeps-numpy-on-python-index",
    ),
]


@pytest.mark.parametrize("source, expected, loop, texts", CASES)
def test_index_call_decisions(source, expected, loop, texts):
    result = migrate(source)
    output = result.output.decode()
    assert outcome(result) == expected, [d.format() for d in result.diagnostics]
    for construct in ("jax.lax.fori_loop", "jax.lax.scan"):
        assert (construct in output) == (construct == loop), output
    for text in texts:
        assert text in (output or source), output


RUNTIME = """
import numpy as np

def chirp(x):
    out = x.copy()
    for i in range(1, x.shape[0]):
        out[i] = 0.5 * out[i - 1] + x[i] * np.sin(0.1 * i) - np.sqrt(i)
    return out

def decay(x):
    w = 0.25
    out = np.zeros_like(x)
    for i in range(100):
        t = w * i
        out = out + np.cos(t) / np.hypot(t, 1.0)
    return out

def dft_real(x):
    n = x.shape[0]
    out = np.zeros_like(x)
    for k in range(n):
        out[k] = np.sum(x * np.cos(2 * k * np.pi / n))
    return out

def windowed(x):
    acc = []
    for i in range(x.shape[0]):
        acc.append(x[i] * np.exp(-i / 3.0) + np.log1p(2.0 * i))
    return np.stack(acc)
"""


def test_index_calls_run_under_jit_and_match_numpy():
    jnp = pytest.importorskip("jax.numpy")
    result = migrate(RUNTIME)
    output = result.output.decode()
    assert all(record.jit for record in result.functions if "<locals>" not in record.qualname), output
    assert not re.search(r"(?<!j)np\.[a-z0-9]+\(", output), output  # every NumPy call moved
    original, migrated = {}, {}
    exec(compile(RUNTIME, "original.py", "exec"), original)
    exec(compile(result.output, "migrated.py", "exec"), migrated)
    rng = np.random.default_rng(1)
    for size in (1, 7, 40):
        x = rng.normal(size=size).astype(np.float32)
        for name in ("chirp", "decay", "dft_real", "windowed"):
            want = original[name](x)
            got = migrated[name](jnp.asarray(x))
            assert np.asarray(got).shape == want.shape, name
            np.testing.assert_allclose(np.asarray(got), want, rtol=2e-5, atol=1e-4, err_msg=name)
