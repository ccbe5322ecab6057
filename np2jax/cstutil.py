"""Small builders for libcst nodes."""

from __future__ import annotations

import libcst as cst

_COMMA = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))


def dotted(name: str) -> cst.BaseExpression:
    """``"jnp.linalg.norm"`` -> the Attribute chain."""
    parts = name.split(".")
    node: cst.BaseExpression = cst.Name(parts[0])
    for part in parts[1:]:
        node = cst.Attribute(value=node, attr=cst.Name(part))
    return node


def call(func: str | cst.BaseExpression, *args: cst.BaseExpression) -> cst.Call:
    callee = dotted(func) if isinstance(func, str) else func
    arguments = [cst.Arg(arg, comma=_COMMA) for arg in args[:-1]] + [cst.Arg(arg) for arg in args[-1:]]
    return cst.Call(func=callee, args=arguments)
