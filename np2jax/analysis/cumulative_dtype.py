"""``np.cumsum``/``np.cumprod`` widen small integers; ``jnp.cumsum``/``jnp.cumprod`` do not.

NumPy accumulates bool, int8, int16, int32 (and their unsigned kin) in the platform integer
(int64/uint64): ``np.cumsum`` of a uint8 image never wraps.  jax.numpy keeps the input's dtype, so the
running total wraps at 256 (measured: an integral image gave 114 where NumPy gives 370).  ``jnp.sum``
widens the way NumPy does (to the widest integer JAX has enabled), so NPJ100 passes
``dtype=jnp.sum(x).dtype`` to the cumulative call: exact for every input dtype (floats keep theirs),
and free under jit (nothing uses the sum's value).

Only where ``x`` can be written twice without running anything twice: names, attributes, subscripts
and arithmetic on them (no call).  A call whose result is inexact anyway (a true division, a float
literal factor) needs nothing.  Other arguments are left as they are (docs: NPJ100's known problems).
"""

from __future__ import annotations

import libcst as cst

from np2jax.cstutil import call

CUMULATIVE = frozenset({"numpy.cumsum", "numpy.cumprod", "numpy.nancumsum", "numpy.nancumprod"})
CUMULATIVE_METHODS = frozenset({"cumsum", "cumprod"})


def widening_dtype(data: cst.BaseExpression, jnp: str, is_module) -> cst.BaseExpression | None:
    """``jnp.sum(data).dtype`` when ``data`` is pure (see the module's docstring), else None.
    ``is_module(name)``: whether a name is an imported module (``np.pi`` would be copied unmigrated)."""
    if not _pure(data, is_module) or _inexact(data):
        return None
    return cst.Attribute(value=call(f"{jnp}.sum", data), attr=cst.Name("dtype"))


def _pure(expr: cst.BaseExpression, is_module) -> bool:
    if isinstance(expr, cst.Name):
        return not is_module(expr)
    if isinstance(expr, (cst.Integer, cst.Float)):
        return True
    if isinstance(expr, cst.Attribute):
        return _pure(expr.value, is_module)
    if isinstance(expr, cst.Subscript):
        return _pure(expr.value, is_module) and all(_pure_index(element.slice, is_module) for element in expr.slice)
    if isinstance(expr, cst.BinaryOperation):
        return _pure(expr.left, is_module) and _pure(expr.right, is_module)
    if isinstance(expr, cst.UnaryOperation):
        return _pure(expr.expression, is_module)
    return False


def _pure_index(index, is_module) -> bool:
    if isinstance(index, cst.Index):
        return _pure(index.value, is_module)
    return all(part is None or _pure(part, is_module) for part in (index.lower, index.upper, index.step))


def _inexact(expr: cst.BaseExpression) -> bool:
    """Certainly a float or complex value: a true division, or a float literal in a product or sum."""
    if isinstance(expr, cst.Float):
        return True
    if isinstance(expr, cst.BinaryOperation):
        if isinstance(expr.operator, cst.Divide):
            return True
        return _inexact(expr.left) or _inexact(expr.right)
    return False

