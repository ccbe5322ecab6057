"""Arrays JAX cannot hold: NumPy's object, string, bytes, datetime64 and timedelta64 arrays.

``np.array([[None] * k])``, ``np.empty(n, dtype=object)``, ``np.array(["a", "b"])``
and ``np.array([Decimal("1.5")])`` make arrays of dtype object or str in NumPy;
``jax.numpy`` has only numeric and boolean dtypes and raises on them (``None is
not a valid value for jnp.array``).  A function that makes one has to stay
NumPy.  These helpers find the evidence in the source: a dtype argument that
names such a dtype, and data written as (nested) list or tuple literals, or
local names bound to them, holding ``None``, strings or ``Decimal``/``Fraction``
objects.
"""

from __future__ import annotations

import re

import libcst as cst

from np2jax.analysis.resolve import Resolver
from np2jax.analysis.scope import Scope, ValueBinding

OBJECT_DTYPE_NAMES = frozenset({"builtins.object", "builtins.str", "builtins.bytes", "numpy.object_", "numpy.str_",
                                "numpy.bytes_", "numpy.unicode_", "numpy.string_", "numpy.void", "numpy.character",
                                "numpy.datetime64", "numpy.timedelta64"})
# "O", "object", "U10", "<U5", "S3", "|S8", "a4", "V16", "str", "bytes", "datetime64[D]", "<M8[ns]", "m8"
_OBJECT_DTYPE_STRING = re.compile(
    r"^[<>|=]?(?:O|object|U\d*|S\d*|a\d*|V\d*|str|bytes|unicode|[Mm]8(?:\[\w+\])?|(?:datetime|timedelta)64(?:\[\w+\])?)$")
OBJECT_CLASSES = frozenset({"decimal.Decimal", "fractions.Fraction"})
# NumPy functions whose positional arguments (all, or from the given position) are array data.
DATA_FUNCTIONS = {
    **{name: 0 for name in """array asarray asanyarray ascontiguousarray asarray_chkfinite stack vstack hstack dstack
    column_stack row_stack concatenate block append atleast_1d atleast_2d atleast_3d""".split()},
    "full": 1, "full_like": 1,
}


def is_object_dtype(node: cst.BaseExpression, resolver: Resolver, scope: Scope) -> bool:
    """``object``, ``str``, ``np.object_``, ``"O"``, ``"U10"``, ``"datetime64[D]"``: a dtype jax.numpy does not have."""
    if isinstance(node, cst.SimpleString):
        value = node.evaluated_value
        return isinstance(value, str) and bool(_OBJECT_DTYPE_STRING.match(value))
    return resolver.qualname(node, scope) in OBJECT_DTYPE_NAMES


def object_element(node: cst.BaseExpression, resolver: Resolver, scope: Scope, depth: int = 0) -> cst.BaseExpression | None:
    """The first ``None``, string or Decimal/Fraction inside the list/tuple literal ``node`` is (or a local name is
    bound to), nested lists and ``[None] * k`` included; None when there is none."""
    if depth > 6:
        return None
    if isinstance(node, cst.Name):
        found, bindings = scope.lookup(node.value)
        if found is None or found.kind != "function" or not bindings:
            return None
        for binding in bindings:
            if isinstance(binding, ValueBinding) and not binding.augmented:
                element = object_element(binding.value, resolver, found, depth + 1)
                if element is not None:
                    return element
        return None
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Multiply):
        return object_element(node.left, resolver, scope, depth + 1) or object_element(node.right, resolver, scope, depth + 1)
    if not isinstance(node, (cst.List, cst.Tuple)):
        return None
    for element in node.elements:
        value = element.value
        if _object_value(value, resolver, scope):
            return value
        if isinstance(value, (cst.List, cst.Tuple, cst.BinaryOperation)):
            inner = object_element(value, resolver, scope, depth + 1)
            if inner is not None:
                return inner
    return None


def _object_value(node: cst.BaseExpression, resolver: Resolver, scope: Scope) -> bool:
    if isinstance(node, cst.Name) and node.value == "None":
        return True
    if isinstance(node, (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)):
        return True
    return isinstance(node, cst.Call) and resolver.qualname(node.func, scope) in OBJECT_CLASSES
