"""Faster equivalents of ``ast.walk`` and ``ast.iter_child_nodes`` for the analyses that read Python's ast.

The standard library's are generators over generators (``iter_child_nodes`` over ``iter_fields``): on a
large module, most of the time of a walk.  These build plain lists, in the same order.
"""

from __future__ import annotations

from ast import AST


def _add_children(found: list[AST], node: AST, fields: tuple[str, ...]) -> None:
    """Append the nodes ``node`` holds in ``fields`` to ``found``, in field order."""
    for name in fields:
        value = getattr(node, name, None)
        if isinstance(value, list):
            for item in value:
                if isinstance(item, AST):
                    found.append(item)
        elif isinstance(value, AST):
            found.append(value)


def child_nodes(node: AST) -> list[AST]:
    """``list(ast.iter_child_nodes(node))``."""
    found: list[AST] = []
    _add_children(found, node, node._fields)
    return found


def walk(node: AST) -> list[AST]:
    """``list(ast.walk(node))``: ``node`` and every node under it, breadth first."""
    found: list[AST] = [node]
    for current in found:  # (the loop reaches what it appends)
        _add_children(found, current, current._fields)
    return found


# Fields that hold only leaf nodes with nothing to find in them: expression contexts (Load, Store, Del) and operators.
_LEAF_FIELDS = frozenset({"ctx", "op", "ops"})
_CODE_FIELDS: dict[type, tuple[str, ...]] = {}


def _code_fields(cls: type) -> tuple[str, ...]:
    fields = _CODE_FIELDS.get(cls)
    if fields is None:
        fields = _CODE_FIELDS[cls] = tuple(name for name in cls._fields if name not in _LEAF_FIELDS)
    return fields


def code_children(node: AST) -> list[AST]:
    """``child_nodes(node)`` without the contexts and operators (``Load()``, ``Add()``): for searches that look at
    them only through their parents (``node.ctx``), a third fewer nodes."""
    found: list[AST] = []
    _add_children(found, node, _code_fields(type(node)))
    return found


def walk_code(node: AST) -> list[AST]:
    """``walk(node)`` without the contexts and operators (see ``code_children``), in the same order otherwise."""
    found: list[AST] = [node]
    for current in found:
        _add_children(found, current, _code_fields(type(current)))
    return found
