"""Module-level code of a module, and module-level names holding results, write into what its functions return.

``Y = make(3); Y[0] = 5`` at module level, or ``BUF = make(3)`` and ``BUF[0] = v`` in a function, need
``make`` to return a NumPy array: migrated, it would return an immutable JAX array (the write raises) or, for
``a = BUF; a += 1``, the update would only rebind ``a``.  Each case runs the original and the migrated module.
"""

from __future__ import annotations

import pytest

from np2jax.engine import migrate_source

CASES = {
    "top-level write": ("""\
import numpy as np

def make(n):
    return np.zeros(n) + 1.0

Y = make(3)
Y[0] = 5.0

def total():
    return np.sum(Y)
""", "total()"),
    "function writes a global": ("""\
import numpy as np

def make(n):
    return np.zeros(n) + 1.0

BUF = make(3)

def poke(v):
    BUF[0] = v
    return np.sum(BUF)
""", "poke(7.0), poke(2.0)"),
    "augmented alias of a global through a pass-through": ("""\
import numpy as np

def make(n):
    return np.zeros(n) + 1.0

def passthru(n):
    return make(n)

ALIAS = passthru(2)

def bump():
    a = ALIAS
    a += 1.0
    return np.sum(ALIAS)
""", "bump(), bump()"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_producers_of_results_written_at_module_level_stay_numpy(name):
    source, expression = CASES[name]
    result = migrate_source(source.encode(), "m.py")
    assert "NPJ202" in {d.code for d in result.diagnostics}
    original, migrated = {}, {}
    exec(compile(source, "original.py", "exec"), original)
    exec(compile(result.output, "migrated.py", "exec"), migrated)
    assert eval(expression, migrated) == eval(expression, original)


def test_reading_a_global_holding_a_result_keeps_the_producer_migrated():
    source = CASES["function writes a global"][0].replace("    BUF[0] = v\n", "")
    result = migrate_source(source.encode(), "m.py")
    assert "NPJ202" not in {d.code for d in result.diagnostics}
    assert b"jnp.zeros(n)" in result.output


def test_a_local_name_shadowing_the_global_is_not_the_global():
    source = CASES["function writes a global"][0].replace("    BUF[0] = v\n", "    BUF = np.ones(3)\n    BUF[0] = v\n")
    result = migrate_source(source.encode(), "m.py")
    assert "`poke` stays NumPy" not in "\n".join(d.message for d in result.diagnostics)
    assert b"jnp.zeros(n)" in result.output


ACCUMULATE = """\
import numpy as np


def act(x):
    return np.maximum(x, 0.0)


def accumulate(total, xs):
    for x in xs:
        total += act(x)
    return len(xs)  # (returning a value: it cannot return `total` instead, NPJ203)


def run(xs):
    total = np.zeros(xs.shape[1])
    accumulate(total, xs)
    return total
"""


def test_a_result_added_in_place_into_a_parameter_keeps_its_producer_numpy():
    # `total += act(x)` with a JAX array on the right rebinds `total`: the caller's array stayed zero
    result = migrate_source(ACCUMULATE.encode(), "m.py")
    assert any(d.code == "NPJ202" and d.line == 4 for d in result.diagnostics)
    original, migrated = {}, {}
    exec(compile(ACCUMULATE, "original.py", "exec"), original)
    exec(compile(result.output, "migrated.py", "exec"), migrated)
    import numpy as np

    xs = np.array([[1.0, -2.0], [3.0, 4.0]])
    assert migrated["run"](xs).tolist() == original["run"](xs).tolist() == [4.0, 4.0]
