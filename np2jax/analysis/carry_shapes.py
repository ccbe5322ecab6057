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
subscript write (``new[1:-1] = u[2:] - u[:-2]``) keeps the written array's shape and does not count.
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
    for node in descendants(value):
        if isinstance(node, cst.Subscript) and isinstance(node.value, cst.Name) and node.value.value in names:
            if any(_bounded_slice(element.slice) for element in node.slice):
                return node
        elif isinstance(node, cst.Call):
            qualname = resolver.qualname(node.func, scope) or ""
            if (is_numpy(qualname) or qualname.startswith("jax.numpy.")) and qualname.rsplit(".", 1)[-1] in RESHAPING_FUNCTIONS and any(
                    isinstance(n, cst.Name) and n.value in names for arg in node.args for n in descendants(arg.value)):
                return node
    return None


def _bounded_slice(element: cst.BaseSlice) -> bool:
    """``[:-1]``, ``[1:]``, ``[::2]``: a slice that may take fewer elements than the axis has (``[:]`` and
    ``[::-1]`` take all)."""
    if not isinstance(element, cst.Slice):
        return False
    reversed_all = element.lower is None and element.upper is None and isinstance(element.step, cst.UnaryOperation) and (
        isinstance(element.step.operator, cst.Minus) and isinstance(element.step.expression, cst.Integer)
        and element.step.expression.value == "1")
    return not reversed_all and any(part is not None for part in (element.lower, element.upper, element.step))
