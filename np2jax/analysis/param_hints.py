"""What a parameter's annotation and default say about it: an array, or a Python value jit may keep static."""

from __future__ import annotations

import libcst as cst

from np2jax.analysis.tracing_tables import ARRAY_HINTS
from np2jax.visitors import child_nodes


def hint_names(annotation: cst.Annotation | None) -> set[str]:
    """The names a hint mentions (``Optional[np.ndarray]``: Optional, ndarray), string annotations included."""
    if annotation is None:
        return set()
    names = set()
    stack: list[cst.CSTNode] = [annotation.annotation]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.Name):
            names.add(node.value)
        elif isinstance(node, cst.Attribute):
            names.add(node.attr.value)
        elif isinstance(node, cst.SimpleString):
            names.update(part.strip("'\" []") for part in node.value.replace("[", " ").replace("|", " ").split())
        if isinstance(node, (cst.Subscript, cst.BinaryOperation)):
            stack.extend(child_nodes(node))
        elif isinstance(node, (cst.SubscriptElement, cst.Index)):
            stack.extend(child_nodes(node))
    return names


def int_like(param: cst.Param) -> bool:
    """Hinted ``int`` (not float or complex), or unhinted with an integer default."""
    hints = hint_names(param.annotation)
    if hints & ARRAY_HINTS:
        return False
    if "int" in hints and not hints & {"float", "complex"}:
        return True
    default = param.default
    if isinstance(default, cst.UnaryOperation):
        default = default.expression
    return isinstance(default, cst.Integer) and not hints


def literal_default(node: cst.BaseExpression | None) -> bool:
    """A literal default (number, string, bool, or a tuple of those): the mark of a Python-value parameter."""
    if node is None:
        return False
    if isinstance(node, (cst.Integer, cst.Float, cst.SimpleString, cst.ConcatenatedString, cst.Imaginary)):
        return True
    if isinstance(node, cst.Name):
        return node.value in ("True", "False")
    if isinstance(node, cst.UnaryOperation):
        return literal_default(node.expression)
    if isinstance(node, cst.Tuple):
        return all(literal_default(e.value) or (isinstance(e.value, cst.Name) and e.value.value == "None") for e in node.elements)
    return False

