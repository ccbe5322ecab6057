"""A fresh array handed on to another name once it is written (analysis/hand_off.py).

``new = p.copy(); new[...] = v; p = new`` in a loop body (Jacobi sweeps, time stepping): every write into
``new`` happens before ``p`` gets its array, so the writes become ``.at[]`` updates and the function is
jitted; any mention of ``new`` outside that stretch keeps the write reported (NPJ201).
"""

from __future__ import annotations

import numpy as np
import pytest

from np2jax.engine import migrate_source

JACOBI = """\
import numpy as np


def jacobi(f, h, n_iter=50):
    p = np.zeros_like(f)
    for _ in range(n_iter):
        new = p.copy()
        new[1:-1, 1:-1] = 0.25 * (p[2:, 1:-1] + p[:-2, 1:-1] + p[1:-1, 2:] + p[1:-1, :-2] - h * h * f[1:-1, 1:-1])
        p = new
    return p


def heat_steps(u0, alpha, steps=20):
    u = np.array(u0, dtype=float)
    for _ in range(steps):
        nxt = np.empty_like(u)
        nxt[0] = u[0]
        nxt[-1] = u[-1]
        nxt[1:-1] = u[1:-1] + alpha * (u[2:] - 2 * u[1:-1] + u[:-2])
        u = nxt
    return u
"""


def test_writes_before_the_hand_off_are_functional_and_jitted():
    result = migrate_source(JACOBI.encode(), "m.py")
    assert not [d for d in result.diagnostics if d.code == "NPJ201"], result.diagnostics
    assert {r.qualname for r in result.functions if r.jit} == {"jacobi", "heat_steps"}
    original, migrated = {}, {}
    exec(compile(JACOBI, "original.py", "exec"), original)
    exec(compile(result.output, "migrated.py", "exec"), migrated)
    f = np.linspace(-1.0, 1.0, 36).reshape(6, 6).astype(np.float32)
    np.testing.assert_allclose(np.asarray(migrated["jacobi"](f, 0.1)), original["jacobi"](f, 0.1), rtol=1e-5, atol=1e-6)
    u0 = np.sin(np.linspace(0.0, 3.0, 9)).astype(np.float32)
    np.testing.assert_allclose(np.asarray(migrated["heat_steps"](u0, 0.2)), original["heat_steps"](u0, 0.2), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("body", [
    # written after it was handed on: NumPy changes `p` too
    "    new = p.copy()\n    p = new\n    new[0] = 1.0\n",
    # written again after the hand-off
    "    new = p.copy()\n    new[0] = 1.0\n    q = new\n    new[1] = 2.0\n    p = q\n",
    # made outside the loop: the second pass writes into the array `p` holds
    "    new = p.copy()\n    for i in range(3):\n        new[i] = float(i)\n        p = new\n",
])
def test_other_orders_stay_reported(body):
    source = f"import numpy as np\n\n\ndef f(x):\n    p = x.copy()\n{body}    return p\n"
    result = migrate_source(source.encode(), "m.py")
    assert any(d.code == "NPJ201" and "`new`" in d.message for d in result.diagnostics), result.diagnostics


def test_a_write_before_a_hand_off_inside_a_branch_is_functional():
    """The one write into `new` comes before any other name can hold it (analysis/fresh_rebinding.py): handing it
    on in a branch afterwards changes nothing that write did, in NumPy or in JAX."""
    source = ("import numpy as np\n\n\ndef f(x):\n    p = x.copy()\n    new = p.copy()\n    new[0] = 1.0\n"
              "    if p.sum() > 0:\n        p = new\n    return p\n")
    result = migrate_source(source.encode(), "m.py")
    assert not [d for d in result.diagnostics if d.code == "NPJ201"], result.diagnostics
    original, migrated = {}, {}
    exec(compile(source, "original.py", "exec"), original)
    exec(compile(result.output, "migrated.py", "exec"), migrated)
    for x in (np.array([2.0, 3.0, 4.0]), np.array([-2.0, -3.0, 4.0])):
        np.testing.assert_array_equal(np.asarray(migrated["f"](x)), original["f"](x))
