"""The engine's safety net catches a faulty rewrite: output that does not parse, or that a second
run would change again, leaves the file exactly as it was and is reported as an error.

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


@pytest.mark.parametrize("faulty, reason", [(GrowsEveryRun, "second migration pass"), (BreaksSyntax, "does not parse")])
def test_a_faulty_rewrite_leaves_the_file_as_it_was(monkeypatch, faulty, reason):
    real = engine.instantiate
    monkeypatch.setattr(engine, "instantiate", lambda select=None, ignore=None: [*real(select, ignore), faulty()])
    result = migrate_source(SOURCE, "m.py")
    assert result.status == "error" and reason in result.error
    assert result.output == SOURCE


def test_without_the_faulty_rule_the_same_file_migrates():
    result = migrate_source(SOURCE, "m.py")
    assert result.status == "changed" and b"jnp.sum(x)" in result.output
    assert migrate_source(result.output, "m.py").output == result.output
