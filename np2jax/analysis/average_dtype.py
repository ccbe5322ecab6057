"""The dtype NumPy averages integer and boolean arrays in, which jax.numpy does not choose by itself.

``np.mean``, ``np.std``, ``np.var`` (and their ``nan`` forms and methods) of an integer or boolean array compute
in float64 and return float64. jax.numpy (0.10) returns float32 for every integer or boolean dtype narrower than
64 bits *even under x64* (``jnp.mean(img)`` of a uint8 image is 122.99999 where NumPy's is 123.0), so
``img > img.mean()`` picks other pixels and ``(img - img.mean()) / img.std()`` loses half its digits (hunt50 S2).
A float array's average keeps its dtype in both. ``dtype=jnp.result_type(float, x)`` names NumPy's choice for
every dtype of ``x``: float64 for integers and booleans under x64 (float32 without x64, as before), and the
array's own dtype for floats (float16, float32, float64) and complex numbers.

``dtype_sources`` tells where an operand's dtype comes from: ``dtype=float`` for an integer or boolean one
(``np.mean(pred == y)``, ``np.mean(counts // 2)``), ``dtype=jnp.result_type(float, x)`` for one whose dtype follows
parameter ``x``'s (``img``, ``img[:, 0]``, ``x ** 2``), nothing for a float one (``x / n``, ``np.sqrt(x)``) or one it
cannot tell.
"""

from __future__ import annotations

import libcst as cst

from np2jax.analysis.dtype_sources import dtype_source
from np2jax.analysis.resolve import Resolver
from np2jax.analysis.scope import ParamBinding, Scope
from np2jax.analysis.value_kinds import ValueClassifier

_FLOAT_ANNOTATIONS = frozenset({"float", "complex"})


def average_dtype(operand: cst.BaseExpression, scope: Scope, resolver: Resolver, jnp_alias: str,
                  static: frozenset[str]) -> cst.BaseExpression | None:
    """The ``dtype=`` that makes jax.numpy average ``operand`` in NumPy's dtype, or None where none is needed or
    known (``static``: parameters jax.jit takes as Python values)."""
    values = resolver.memo.get("average_kinds")
    if values is None:
        values = resolver.memo["average_kinds"] = ValueClassifier(resolver)
    source = dtype_source(operand, scope, resolver, values)
    if source in (("fixed", "int"), ("fixed", "bool")):
        return cst.Name("float")
    if source is None or source[0] != "like" or source[1] in static or not _array_parameter(source[1], scope):
        return None
    result_type = cst.Attribute(value=cst.Name(jnp_alias), attr=cst.Name("result_type"))
    return cst.Call(func=result_type, args=[cst.Arg(cst.Name("float")), cst.Arg(cst.Name(source[1]))])


def _array_parameter(name: str, scope: Scope) -> bool:
    """``name`` is a parameter, never rebound, that may hold an array: not ``*args``, no float annotation."""
    found, bindings = scope.lookup(name)
    if found is None or found.kind != "function" or len(bindings) != 1 or not isinstance(bindings[0], ParamBinding):
        return False
    param = bindings[0].param
    annotation = param.annotation.annotation if param.annotation is not None else None
    return param.star not in ("*", "**") and not (isinstance(annotation, cst.Name) and annotation.value in _FLOAT_ANNOTATIONS)
