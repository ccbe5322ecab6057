"""Is a name an array of a dtype narrower than the one ``+=`` computes in?

``acc = np.zeros(n, dtype=np.int8); acc += counts`` adds in int64 (or int32)
and casts back into the int8 array: NumPy's in-place operators keep the
array's dtype (wrapping integers past 127).  JAX has no in-place operators:
``acc += counts`` rebinds ``acc`` to the promoted result, an int32 array that
does not wrap.  The difference is silent, so the rewriting rule spells out
NumPy's cast (``acc = (acc + counts).astype(acc.dtype)``) for names whose
every binding is a NumPy array made with such a dtype.  32-bit dtypes count
too: a float32 or int32 array meets wider operands under ``jax_enable_x64``,
where JAX's rebinding would give float64 (without it the cast changes nothing).
"""

from __future__ import annotations

import libcst as cst

from np2jax.analysis.resolve import Resolver, is_numpy
from np2jax.analysis.scope import Scope, every_value_made

NARROW_DTYPES = frozenset(
    "int8 int16 uint8 uint16 float16 byte short ubyte ushort half "
    "int32 uint32 intc uintc float32 single complex64 csingle".split()
)
# creation functions whose second positional argument is the dtype
_DTYPE_SECOND = frozenset({"zeros", "ones", "empty", "array", "asarray", "zeros_like", "ones_like", "empty_like"})


def is_narrow_array(name: str, scope: Scope, resolver: Resolver) -> bool:
    """Every (non-augmented) binding of ``name`` is a NumPy array made with a dtype narrower than 32 bits."""
    return every_value_made(name, scope, lambda value, found: _narrow_value(value, resolver, found))


def _narrow_value(value: cst.BaseExpression, resolver: Resolver, scope: Scope) -> bool:
    if not isinstance(value, cst.Call):
        return False
    dtype = None
    if isinstance(value.func, cst.Attribute) and value.func.attr.value == "astype":
        dtype = value.args[0].value if value.args and value.args[0].keyword is None else None
    else:
        qualname = resolver.qualname(value.func, scope) or ""
        if not is_numpy(qualname):
            return False
        for index, arg in enumerate(value.args):
            if (arg.keyword is not None and arg.keyword.value == "dtype") or (
                arg.keyword is None and index == 1 and qualname.rsplit(".", 1)[-1] in _DTYPE_SECOND
            ):
                dtype = arg.value
    return dtype is not None and _dtype_name(dtype, resolver, scope) in NARROW_DTYPES


def _dtype_name(node: cst.BaseExpression, resolver: Resolver, scope: Scope) -> str | None:
    if isinstance(node, cst.SimpleString):
        return str(node.evaluated_value)
    qualname = resolver.qualname(node, scope) or ""
    return qualname.rsplit(".", 1)[-1] if is_numpy(qualname) else None
