"""The fast-dispatch visitor bases behave like libcst's, and the walker's exact-type shortcuts cover every case."""

from __future__ import annotations

import libcst as cst
import pytest

from np2jax.analysis.scope import SCOPE_NODES, collect_scopes
from np2jax.visitors import FastTransformer, FastVisitor

SOURCE = (
    "import numpy as np\n"
    "class C:\n"
    "    def f(self, x):\n"
    "        g = lambda y: [a for a in y] + list({b for b in y}) + list({c: c for c in y}) + list(d for d in y)\n"
    "        return g(x)\n"
)


def test_scope_nodes_cover_every_scope_the_collector_creates():
    scopes = collect_scopes(cst.parse_module(SOURCE)).scopes
    assert {type(node) for node in scopes} == SCOPE_NODES


def _events(base):
    class Recorder(base):
        def __init__(self):
            super().__init__()
            self.events = []

        def visit_Name(self, node):
            self.events.append(("visit", node.value))

        def visit_Lambda(self, node):
            self.events.append(("lambda",))
            return False  # children skipped, as with libcst

    if base is FastTransformer or base is cst.CSTTransformer:
        def leave_Name(self, original, updated):
            self.events.append(("leave", original.value))
            return updated.with_changes(value=updated.value.upper()) if updated.value == "x" else updated
    else:
        def leave_Name(self, original):
            self.events.append(("leave", original.value))
    Recorder.leave_Name = leave_Name
    recorder = Recorder()
    result = cst.parse_module(SOURCE).visit(recorder)
    return recorder.events, result.code


@pytest.mark.parametrize("fast, libcst_base", [(FastVisitor, cst.CSTVisitor), (FastTransformer, cst.CSTTransformer)])
def test_fast_dispatch_matches_libcst(fast, libcst_base):
    assert _events(fast) == _events(libcst_base)
    events, code = _events(fast)
    assert ("lambda",) in events and ("visit", "a") not in events  # False skipped the lambda's children
    if fast is FastTransformer:
        assert "def f(self, X):" in code and "return g(X)" in code


def test_attribute_hooks_are_refused_rather_than_never_called():
    with pytest.raises(TypeError, match="attribute hooks"):

        class Bad(FastVisitor):
            def visit_Call_func(self, node):
                pass
