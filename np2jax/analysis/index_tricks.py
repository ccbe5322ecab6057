"""``np.r_[...]``, ``np.c_[...]``, ``np.mgrid[...]``, ``np.ogrid[...]``: NumPy names used by subscripting.

They are not calls, so the call-level rules never see them.  Kept as NumPy in a
jitted function, ``np.r_[False, row[:-1]]`` hands a tracer to NumPy, which raises
``TracerArrayConversionError`` when the function runs.

``jnp.r_`` and ``jnp.c_`` concatenate as NumPy's do, and give the same dtype when
the parts are arrays, Python numbers and lists (a number is weak in both: ``r_[0,
x]`` keeps ``x``'s float32; ``r_[False, row]`` keeps a bool row bool).  They differ on
two forms, which are reported instead of rewritten:

* a slice (``r_[x, 0:n]``): NumPy expands it to an int64 range, which promotes a
  float32 ``x`` to float64; ``jnp.r_`` to a range that JAX promotes to float32;
* a string directive (``r_["0,2", a, b]``, ``r_["r", x]``): ``"r"``/``"c"`` make an
  ``np.matrix`` in NumPy (``*`` is then a matrix product) and a plain array in JAX.

When every part is known at trace time (``np.r_[0:3, 7]``), NumPy computes the
value while JAX traces: it stays NumPy, like a NumPy call on static arguments.
A parameter jax.jit takes as a static argument counts as known.  (``mgrid`` and
``ogrid`` take only bounds: static ones keep them NumPy, traced ones are a slice
bound the jit analysis reports, NPJ301.)
"""

from __future__ import annotations

import libcst as cst

from np2jax.analysis.resolve import Resolver
from np2jax.analysis.scope import Scope
from np2jax.visitors import FastVisitor, visit

CONCATENATORS = frozenset({"numpy.r_", "numpy.c_"})
STATIC = "static"  # every part is known at trace time: NumPy computes it


def subscript_of(node: cst.BaseExpression, statement: cst.CSTNode | None) -> cst.Subscript | None:
    """The subscript ``node[...]`` in ``statement``, if ``node`` is subscripted there."""
    if statement is None:
        return None
    finder = _SubscriptOf(node)
    visit(statement, finder)
    return finder.found


def concatenation_problem(subscript: cst.Subscript, resolver: Resolver, scope: Scope,
                          static_names: frozenset[str] = frozenset()) -> str | None:
    """Why ``np.r_[...]``/``np.c_[...]`` has no exact ``jnp`` twin; ``STATIC`` when NumPy computes it at
    trace time (``static_names``: the parameters jax.jit takes as static); None when ``jnp.r_``/``jnp.c_``
    computes the same."""
    if all(_static_element(element.slice, resolver, scope, static_names) for element in subscript.slice):
        return STATIC
    for element in subscript.slice:
        part = element.slice
        if isinstance(part, cst.Slice):
            return ("a slice: NumPy expands it to an int64 range, which promotes float32 arrays to float64 "
                    "where `jnp.r_` keeps float32")
        if isinstance(part.value, (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)):
            return "a string directive: `\"r\"`/`\"c\"` make an `np.matrix` in NumPy, a plain array in JAX"
        if getattr(part, "star", None) is not None:
            return "a starred part"
    return None


def _static_element(part: cst.BaseSlice, resolver: Resolver, scope: Scope, static_names: frozenset[str]) -> bool:
    if isinstance(part, cst.Index):
        return getattr(part, "star", None) is None and _static(part.value, resolver, scope, static_names)
    return all(bound is None or _static(bound, resolver, scope, static_names) for bound in (part.lower, part.upper, part.step))


def _static(expr: cst.BaseExpression, resolver: Resolver, scope: Scope, static_names: frozenset[str]) -> bool:
    """Known at trace time: static for the resolver, or arithmetic on static parameters (``n + 2``)."""
    if resolver.is_static(expr, scope):
        return True
    if isinstance(expr, cst.Name):
        return expr.value in static_names
    if isinstance(expr, cst.BinaryOperation):
        return _static(expr.left, resolver, scope, static_names) and _static(expr.right, resolver, scope, static_names)
    if isinstance(expr, cst.UnaryOperation):
        return _static(expr.expression, resolver, scope, static_names)
    return False


class _SubscriptOf(FastVisitor):
    def __init__(self, target: cst.BaseExpression) -> None:
        self.target = target
        self.found: cst.Subscript | None = None

    def visit_Subscript(self, node: cst.Subscript) -> bool:
        if node.value is self.target:
            self.found = node
        return self.found is None
