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


def exact_spans(source: str, method: str = "span"):
    """(what ``FileContext.<method>`` returned, libcst's exact position) for every call during a migration."""
    recorded = []
    original = getattr(context_module.FileContext, method)

    def spy(self, node):
        result = original(self, node)
        recorded.append((node, result))
        return result

    module = cst.parse_module(source)
    setattr(context_module.FileContext, method, spy)
    try:
        _transform(module, "t.py", source.encode(), Options())
    finally:
        setattr(context_module.FileContext, method, original)
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


BLOCKERS = textwrap.dedent(
    '''
    import numpy as np


    class Model:
        @staticmethod
        @some.decorator(
            1,
        )
        def step(x, n):
            # a comment line
            if x.sum() > 0:
                print(x)
            for i in range(n):
                x = x * 2
                if x[0] > 1:
                    break
            return x

    def outer(x):
        def inner(y):
            while y.max() > 1:
                y = y / 2
            return y
        with open("f") as handle:
            pass
        return inner(x) if x.mean() > 0 else np.sqrt(x)


    def tabbed(x):
    \tif np.any(x > 0):
    \t\treturn  np.abs(x)
    \treturn x
    '''
).lstrip()


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_exact_spans_from_function_positions_equal_whole_file_positions(newline):
    """Blockers found by the jit analysis get exact spans computed for their function alone."""
    spans = exact_spans(BLOCKERS.replace("\n", newline), "exact_span")
    assert len(spans) >= 5
    for mine, exact in spans:
        assert mine == exact


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_code_and_positions_equal_module_code_and_libcst_positions(newline):
    source = TRICKY.replace("\n", newline)
    for module in (cst.parse_module(source), cst.parse_module(source.rstrip())):
        code, positions = context_module.code_and_positions(module)
        assert code == module.code
        expected = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
        assert positions == dict(expected)
