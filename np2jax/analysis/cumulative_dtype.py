"""``np.cumsum``/``np.cumprod`` widen small integers; ``jnp.cumsum``/``jnp.cumprod`` do not.

NumPy accumulates bool, int8, int16, int32 (and their unsigned kin) in the platform integer
(int64/uint64): ``np.cumsum`` of a uint8 image never wraps.  jax.numpy keeps the input's dtype, so the
running total wraps at 256 (measured: an integral image gave 114 where NumPy gives 370).  ``jnp.sum``
widens the way NumPy does (to the widest integer JAX has enabled), so NPJ100 passes
``dtype=jnp.sum(x).dtype`` to the cumulative call: exact for every input dtype (floats keep theirs),
and free under jit (nothing uses the sum's value).

Only where ``x`` can be written twice without running anything twice: names, attributes, subscripts
and arithmetic on them (no call).  Through calls that keep their first argument's dtype (``np.pad(y, 1)``,
``np.abs(np.diff(y))``, ``y.ravel()``) the dtype is read off that argument instead: ``jnp.sum(y).dtype``.
An argument that is inexact anyway (a true division, a float literal factor) needs nothing.  Other
arguments are left as they are (docs: NPJ100's known problems).
"""

from __future__ import annotations

import libcst as cst

from np2jax.cstutil import call

CUMULATIVE = frozenset({"numpy.cumsum", "numpy.cumprod", "numpy.nancumsum", "numpy.nancumprod"})
CUMULATIVE_METHODS = frozenset({"cumsum", "cumprod"})


# functions and methods whose result has their first argument's dtype (whatever the other arguments)
DTYPE_KEEPING = frozenset(
    "pad diff abs absolute negative ravel flatten reshape transpose sort flip fliplr flipud roll repeat tile "
    "squeeze expand_dims atleast_1d atleast_2d copy take insert delete trim_zeros".split())


def widening_dtype(data: cst.BaseExpression, jnp: str, is_module, is_numpy_call=None, wrapped: bool = False) -> cst.BaseExpression | None:
    """``jnp.sum(data).dtype`` when ``data`` is pure (see the module's docstring), else None.
    ``is_module(name)``: whether a name is an imported module (``np.pi`` would be copied unmigrated);
    ``is_numpy_call(call)``: the NumPy function a call calls (``"pad"``), or None; ``wrapped``: the call reads
    ``data`` through ``jnp.asarray`` (a list parameter), and so does the sum (``jnp.sum`` refuses lists)."""
    data = _dtype_source(data, is_numpy_call)
    if data is None or not _pure(data, is_module) or _inexact(data):
        return None
    if wrapped:
        data = call(f"{jnp}.asarray", data)
    return cst.Attribute(value=call(f"{jnp}.sum", data), attr=cst.Name("dtype"))


def _dtype_source(expr: cst.BaseExpression, is_numpy_call) -> cst.BaseExpression | None:
    """The expression whose dtype ``expr`` has: itself, or through dtype-keeping calls their first argument."""
    while isinstance(expr, cst.Call) and is_numpy_call is not None:
        func = expr.func
        method = isinstance(func, cst.Attribute) and func.attr.value in DTYPE_KEEPING and not is_numpy_call(expr)
        if method:
            expr = func.value  # `y.ravel()`, `np.pad(y, 1).cumsum()`'s receiver
        elif is_numpy_call(expr) in DTYPE_KEEPING and expr.args and expr.args[0].keyword is None and not expr.args[0].star:
            expr = expr.args[0].value
        else:
            return None
    return expr


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

