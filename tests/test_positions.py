"""Lines and columns come from a cheap line counter; they must equal libcst's exact positions."""

from __future__ import annotations

import ast
import textwrap

import libcst as cst
import pytest
from libcst.metadata import MetadataWrapper, PositionProvider

import np2jax.context as context_module
from np2jax.engine import Options, _transform, migrate_source

TRICKY = textwrap.dedent(
    '''
    """Module docstring
    spanning lines."""
    from numpy import (
        zeros,
        random,
    )
    import numpy as np


    def outer(x):
        s = """a
        b"""
        y = np.unique(x) + \\
            np.unique(x)
        class Inner:
            def method(self, v):
                return np.random.rand(3), np.int64, np.int64
        return (
            np.nonzero(
                x))
        # trailing comment inside the body


    @decorator(np.float64)
    def decorated(a, b=np.ones(3)):
        if a:
            return np.round(a, 2)
            # comment in the if block
    '''
).lstrip()


def exact_spans(source: str):
    recorded = []
    original = context_module.FileContext.span

    def spy(self, node):
        result = original(self, node)
        recorded.append((node, result))
        return result

    module = cst.parse_module(source)
    context_module.FileContext.span = spy
    try:
        _transform(module, "t.py", source.encode(), Options())
    finally:
        context_module.FileContext.span = original
    positions = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    return [
        (span, (p.start.line, p.start.column + 1, p.end.line, p.end.column + 1))
        for node, span in recorded
        for p in [positions[node]]
    ]


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_diagnostic_spans_equal_libcst_positions(newline):
    spans = exact_spans(TRICKY.replace("\n", newline))
    assert len(spans) >= 6
    for mine, exact in spans:
        assert mine == exact


def test_function_spans_equal_ast():
    result = migrate_source(TRICKY.encode(), "t.py")
    expected = []

    def walk(node, prefix):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef):
                expected.append((prefix + child.name, child.lineno, child.end_lineno))
                walk(child, prefix + child.name + ".<locals>.")
            elif isinstance(child, ast.ClassDef):
                walk(child, prefix + child.name + ".")
            else:
                walk(child, prefix)

    walk(ast.parse(TRICKY), "")
    assert [(f.qualname, f.line, f.end_line) for f in result.functions] == expected
    assert [f.qualname for f in result.functions] == ["outer", "outer.<locals>.Inner.method", "decorated"]
