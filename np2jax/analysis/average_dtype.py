"""The dtype NumPy averages integer and boolean arrays in, which jax.numpy does not choose by itself.

``np.mean``, ``np.std``, ``np.var`` (and their ``nan`` forms and methods) of an integer or boolean array compute
in float64 and return float64. jax.numpy (0.10) returns float32 for every integer or boolean dtype narrower than
64 bits *even under x64* (``jnp.mean(img)`` of a uint8 image is 122.99999 where NumPy's is 123.0), so
``img > img.mean()`` picks other pixels and ``(img - img.mean()) / img.std()`` loses half its digits (hunt50 S2).
A float array's average keeps its dtype in both (NumPy and jax.numpy sum float16 in float32), and the standard
deviation of a complex array is real in both.

``dtype_sources`` tells where an operand's dtype comes from:

* an integer or boolean one (``np.mean(pred == y)``, ``np.mean(counts > 0)``) gets ``dtype=float``;
* one whose dtype follows parameters' (``img``, ``img[:, 0]``, ``x ** 2``, ``np.abs(a - b)``) is multiplied by
  ``1.0`` (``jnp.mean(img * 1.0)``): ``x * 1.0`` has exactly the dtype NumPy averages ``x`` in, whatever it is
  (float64 for integers and booleans under x64, float32 without; a float or complex array's own), and the same
  values. A ``dtype=`` naming that dtype would make jax.numpy sum float16 in float16 (hunt53 S1: NaN for 100,000
  threes) and keep a complex standard deviation complex (hunt53 S2);
* a float one (``x / n``, ``np.sqrt(x)``), or one it cannot tell, is left alone.
"""

from __future__ import annotations

import libcst as cst

from np2jax.analysis.dtype_sources import PROMOTED, dtype_source
from np2jax.analysis.resolve import Resolver
from np2jax.analysis.scope import ParamBinding, Scope
from np2jax.analysis.value_kinds import ValueClassifier
from np2jax.cstutil import parenthesized

_FLOAT_ANNOTATIONS = frozenset({"float", "complex"})
FLOAT = "float"  # give `dtype=float`
SCALE = "scale"  # multiply the operand by 1.0


def average_fix(operand: cst.BaseExpression, scope: Scope, resolver: Resolver,
                static: frozenset[str]) -> tuple[str, tuple[str, ...]] | None:
    """(FLOAT, ()) or (SCALE, the parameters the operand's dtype follows) when jax.numpy would average ``operand``
    in another dtype than NumPy; None where it would not, or where it cannot tell (``static``: parameters jax.jit
    takes as Python values)."""
    values = resolver.memo.get("average_kinds")
    if values is None:
        values = resolver.memo["average_kinds"] = ValueClassifier(resolver)
    source = dtype_source(operand, scope, resolver, values)
    if source in (("fixed", "int"), ("fixed", "bool")):
        return FLOAT, ()
    if source is None or source[0] not in ("like", "real", PROMOTED):
        return None
    names = tuple(source[1].split(", "))
    if any(name in static or not _array_parameter(name, scope) for name in names):
        return None
    return SCALE, names


def _array_parameter(name: str, scope: Scope) -> bool:
    """``name`` is a parameter, never rebound, that may hold an array: not ``*args``, no float annotation."""
    found, bindings = scope.lookup(name)
    if found is None or found.kind != "function" or len(bindings) != 1 or not isinstance(bindings[0], ParamBinding):
        return False
    param = bindings[0].param
    annotation = param.annotation.annotation if param.annotation is not None else None
    return param.star not in ("*", "**") and not (isinstance(annotation, cst.Name) and annotation.value in _FLOAT_ANNOTATIONS)


def times_one(expr: cst.BaseExpression) -> cst.BinaryOperation:
    """``expr * 1.0``, ``expr`` in parentheses unless it is an atom."""
    return cst.BinaryOperation(left=parenthesized(expr), operator=cst.Multiply(), right=cst.Float("1.0"))
