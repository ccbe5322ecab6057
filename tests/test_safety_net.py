"""The engine's safety net catches a faulty rewrite: output that does not parse leaves the file exactly as it
was and is reported as an error; a function that a second run would change again is left as it was (NPJ202)
and the rest of the file migrates (the whole file is given up when code outside functions would change).

The faulty rules are real rules run by the real walker on real libcst trees; they are added to the
engine's rule list for one test (``monkeypatch`` restores it), which is how a buggy rule would get there.
"""

from __future__ import annotations

import libcst as cst
import pytest

from np2jax import engine
from np2jax.diagnostics import Severity
from np2jax.engine import migrate_source
from np2jax.rule import Rule, RuleDoc

SOURCE = b"import numpy as np\n\ndef f(x):\n    y = np.sum(x)\n    return y\n"


class _Faulty(Rule):
    CODE = "NPJ998"
    NAME = "faulty"
    MESSAGE = "test rule"
    SEVERITY = Severity.INFO
    DOC = RuleDoc(what="a deliberately faulty rewrite", why="tests the safety net", use_instead="-")


class GrowsEveryRun(_Faulty):
    """``y = v`` -> ``y = v + 0``: a second run adds another ``+ 0``."""

    def rewrite_statement(self, original, updated, ctx):
        if isinstance(updated, cst.Assign):
            return updated.with_changes(value=cst.BinaryOperation(updated.value, cst.Add(), cst.Integer("0")))
        return None


class BreaksSyntax(_Faulty):
    """Renames ``y`` to a keyword (libcst only checks that a name is an identifier)."""

    def rewrite_statement(self, original, updated, ctx):
        if isinstance(updated, cst.Assign):
            return updated.with_changes(targets=[cst.AssignTarget(cst.Name("nonlocal"))])
        return None


def test_a_faulty_rewrite_leaves_the_file_as_it_was(monkeypatch):
    real = engine.instantiate
    monkeypatch.setattr(engine, "instantiate", lambda select=None, ignore=None: [*real(select, ignore), BreaksSyntax()])
    result = migrate_source(SOURCE, "m.py")
    assert result.status == "error" and "does not parse" in result.error
    assert result.output == SOURCE


def test_a_function_a_second_pass_would_change_again_is_left_as_it_was_and_the_rest_migrates(monkeypatch):
    real = engine.instantiate
    monkeypatch.setattr(engine, "instantiate", lambda select=None, ignore=None: [*real(select, ignore), GrowsEveryRun()])
    source = SOURCE + b"\ndef g(x):\n    return np.mean(x ** 2)\n"  # (no `x = jnp.asarray(x)`: an assignment)
    result = migrate_source(source, "m.py")
    assert result.status == "changed", result.error
    assert b"def f(x):\n    y = np.sum(x)\n    return y\n" in result.output  # f as it was
    assert b"return jnp.mean((x ** 2) * 1.0)" in result.output  # g migrated
    unstable = [d for d in result.diagnostics if d.code == "NPJ202" and d.line == 3]
    assert unstable and "second pass would rewrite it again" in unstable[0].message
    assert {r.qualname: r.status for r in result.functions} == {"f": "unsupported", "g": "migrated"}
    assert migrate_source(result.output, "m.py").output == result.output


def test_changed_functions_names_the_functions_whose_code_differs():
    before = cst.parse_module("import numpy as np\n\ndef f(x):\n    return x\n\nclass C:\n    def m(self):\n        return 1\n")
    after = cst.parse_module("import jax\n\ndef f(x):\n    return x\n\nclass C:\n    def m(self):\n        return 2\n")
    assert engine.changed_functions(before, after) == {"C.m"}
    moved = cst.parse_module("import numpy as np\nX = 1\n\ndef f(x):\n    return x\n\nclass C:\n    def m(self):\n        return 2\n")
    assert engine.changed_functions(before, moved) == frozenset()  # module-level code changed too: not only functions


def test_without_the_faulty_rule_the_same_file_migrates():
    result = migrate_source(SOURCE, "m.py")
    assert result.status == "changed" and b"jnp.sum(x)" in result.output
    assert migrate_source(result.output, "m.py").output == result.output


PIN = b"""\
import numpy as np


def pin(T, n):
    T = T.copy()
    for _ in range(n):
        T[0] = 0.0
    return T


def double_sum(x):
    return np.sum(x * 2)
"""


def test_a_real_file_with_a_function_found_unstable_still_migrates_the_rest():
    # `pin` once made the whole file fail (a second pass converted its loop); whatever becomes of `pin`,
    # the rest of the file migrates and a second run changes nothing
    result = migrate_source(PIN, "m.py")
    assert result.status == "changed", result.error
    assert {r.qualname for r in result.functions if r.jit} >= {"double_sum"}
    assert migrate_source(result.output, "m.py").output == result.output
