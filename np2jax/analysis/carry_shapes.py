"""Loop carries whose shape may change from one step to the next, which no JAX loop can carry.

``jax.lax.fori_loop``, ``scan`` and ``while_loop`` need every carried value to keep its shape and dtype;
NumPy's Python loop does not care::

    for r in range(1, n):
        pts = (1 - t) * pts[:-1] + t * pts[1:]     # one element fewer per step (de Casteljau)
    for n in range(steps - 1, -1, -1):
        values = disc * (p * values[:-1] + (1 - p) * values[1:])   # a binomial tree's backward pass

Converted, such a loop raises "carry input and carry output must have equal types" on every call.  A carried
name is taken to change shape when the body binds it to a value that reads a bounded slice of a carried array
(``pts[:-1]``, ``x[1:]``, ``x[::2]``) or that a NumPy function which grows or shrinks arrays builds from one
(``np.append(x, v)``, ``np.concatenate([x, y])``, ``np.diff(x)``, ``np.outer(x, x)``; jax.numpy's too, for a
second pass over the output: hunt54 FP1, `x = np.diff(x)` in a loop had no fixed point).  A slice read inside a
subscript write (``new[1:-1] = u[2:] - u[:-2]``) keeps the written array's shape and does not count; nor does a
window of one element per axis, ``D[:, k:k + 1]``, beside ``D`` itself in an elementwise operation
(Floyd–Warshall's ``D = np.minimum(D, D[:, k:k + 1] + D[k:k + 1, :])``): the window's shape is ``D``'s with
some axes 1, so the result broadcasts to ``D``'s shape.
"""

from __future__ import annotations

import libcst as cst

from np2jax.analysis.loops import descendants
from np2jax.analysis.resolve import Resolver, is_numpy
from np2jax.analysis.scope import Scope, target_names

# NumPy functions whose result's shape differs from their array argument's.
RESHAPING_FUNCTIONS = frozenset(
    "append concatenate hstack vstack dstack column_stack row_stack stack delete insert diff ediff1d pad repeat "
    "tile resize kron outer convolve correlate trim_zeros".split())
# Binary elementwise NumPy functions: the result has the broadcast shape of the operands.
ELEMENTWISE = frozenset("minimum maximum fmin fmax add subtract multiply divide true_divide power hypot where".split())


def shape_changing_carry(names: set[str], body: cst.CSTNode, resolver: Resolver, scope: Scope) -> tuple[str, cst.CSTNode] | None:
    """The first of ``names`` (carried by a loop whose body is ``body``) that the body may rebind to a value of
    another shape, with the expression that says so; None when there is none."""
    if not names:
        return None
    for node in descendants(body):
        if not isinstance(node, cst.Assign):
            continue
        bound = {n.value for target in node.targets for n in target_names(target.target)} & names
        if not bound:
            continue
        reason = _reshaping_part(node.value, names, resolver, scope)
        if reason is not None:
            return sorted(bound)[0], reason
    return None


def _reshaping_part(value: cst.BaseExpression, names: set[str], resolver: Resolver, scope: Scope) -> cst.CSTNode | None:
    anchors = _elementwise_operands(value, resolver, scope)
    for node in descendants(value):
        if isinstance(node, cst.Subscript) and isinstance(node.value, cst.Name) and node.value.value in names:
            if node.value.value in anchors and _window(node):
                continue  # `np.minimum(D, D[:, k:k + 1] + D[k:k + 1, :])`: broadcast back to D's own shape
            if any(_bounded_slice(element.slice) for element in node.slice):
                return node
        elif isinstance(node, cst.Call):
            qualname = resolver.qualname(node.func, scope) or ""
            if (is_numpy(qualname) or qualname.startswith("jax.numpy.")) and qualname.rsplit(".", 1)[-1] in RESHAPING_FUNCTIONS and any(
                    isinstance(n, cst.Name) and n.value in names for arg in node.args for n in descendants(arg.value)):
                return node
    return None


def _elementwise_operands(value: cst.BaseExpression, resolver: Resolver, scope: Scope) -> set[str]:
    """The names that are whole operands of the elementwise operation ``value`` (``D`` of ``np.minimum(D, ...)``,
    ``D + ...``): the result has at least their shape."""
    if isinstance(value, cst.BinaryOperation):
        operands = [value.left, value.right]
    elif isinstance(value, cst.Call) and (resolver.qualname(value.func, scope) or "").removeprefix("numpy.") in ELEMENTWISE:
        operands = [arg.value for arg in value.args if arg.keyword is None and not arg.star]
    else:
        return set()
    return {operand.value for operand in operands if isinstance(operand, cst.Name)}


def _window(node: cst.Subscript) -> bool:
    """``x[:, k:k + 1]``: whole axes and windows of one element, at least one (its shape is x's with some axes 1,
    or empty where the window is past the end, which NumPy's broadcasting then refuses)."""
    windows = 0
    for element in node.slice:
        index = element.slice
        if not isinstance(index, cst.Slice) or index.step is not None:
            return False
        if index.lower is None and index.upper is None:
            continue
        upper = index.upper
        if not (index.lower is not None and isinstance(upper, cst.BinaryOperation) and isinstance(upper.operator, cst.Add)
                and isinstance(upper.right, cst.Integer) and upper.right.value == "1" and upper.left.deep_equals(index.lower)):
            return False
        windows += 1
    return windows > 0


def _bounded_slice(element: cst.BaseSlice) -> bool:
    """``[:-1]``, ``[1:]``, ``[::2]``: a slice that may take fewer elements than the axis has (``[:]`` and
    ``[::-1]`` take all)."""
    if not isinstance(element, cst.Slice):
        return False
    reversed_all = element.lower is None and element.upper is None and isinstance(element.step, cst.UnaryOperation) and (
        isinstance(element.step.operator, cst.Minus) and isinstance(element.step.expression, cst.Integer)
        and element.step.expression.value == "1")
    return not reversed_all and any(part is not None for part in (element.lower, element.upper, element.step))
