"""Faster equivalents of ``ast.walk`` and ``ast.iter_child_nodes`` for the analyses that read Python's ast.

The standard library's are generators over generators (``iter_child_nodes`` over ``iter_fields``): on a
large module, most of the time of a walk.  These build plain lists, in the same order.
"""

from __future__ import annotations

from ast import AST


def child_nodes(node: AST) -> list[AST]:
    """``list(ast.iter_child_nodes(node))``."""
    found: list[AST] = []
    for name in node._fields:
        value = getattr(node, name, None)
        if isinstance(value, list):
            for item in value:
                if isinstance(item, AST):
                    found.append(item)
        elif isinstance(value, AST):
            found.append(value)
    return found


def walk(node: AST) -> list[AST]:
    """``list(ast.walk(node))``: ``node`` and every node under it, breadth first."""
    found: list[AST] = [node]
    index = 0
    while index < len(found):
        current = found[index]
        index += 1
        for name in current._fields:
            value = getattr(current, name, None)
            if isinstance(value, list):
                for item in value:
                    if isinstance(item, AST):
                        found.append(item)
            elif isinstance(value, AST):
                found.append(value)
    return found
