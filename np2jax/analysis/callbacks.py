"""NumPy functions handed to the NumPy functions that call a function argument (``np.apply_along_axis(np.linalg.norm,
1, X)``): the jax.numpy twin of the caller calls it with traced arrays, so the argument moves to its jax.numpy twin too."""

from __future__ import annotations

import libcst as cst

from np2jax.analysis.resolve import Resolver, is_numpy
from np2jax.analysis.scope import Scope
from np2jax.tables import lookup_numpy

# NumPy functions that call a function argument: its position and keyword
CALLERS = {
    "numpy.vectorize": (0, "pyfunc"), "numpy.apply_along_axis": (0, "func1d"),
    "numpy.apply_over_axes": (0, "func"), "numpy.piecewise": (2, "funclist"),
}


def callback_arguments(call: cst.Call, resolver: Resolver, scope: Scope) -> list[cst.BaseExpression]:
    """The function arguments ``call`` (``np.apply_along_axis(f, ...)``) will call (each of a list: piecewise)."""
    found = CALLERS.get(resolver.qualname(call.func, scope) or "")
    if found is None:
        return []
    position, keyword = found
    argument = next((arg.value for arg in call.args if arg.keyword is not None and arg.keyword.value == keyword), None)
    positional = [arg.value for arg in call.args if arg.keyword is None and not arg.star]
    if argument is None and len(positional) > position:
        argument = positional[position]
    if isinstance(argument, (cst.List, cst.Tuple)):
        return [element.value for element in argument.elements]
    return [argument] if argument is not None else []


def numpy_twin(function: cst.BaseExpression, resolver: Resolver, scope: Scope) -> str | None:
    """The jax.numpy twin of the NumPy function ``function`` names (``np.linalg.norm``), if it has one."""
    qualname = resolver.qualname(function, scope)
    if not is_numpy(qualname):
        return None
    row = lookup_numpy(qualname)
    return row.jax if row is not None and row.kind == "function" and qualname == row.numpy else None
