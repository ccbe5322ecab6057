"""Is a name an array of a dtype narrower than the one ``+=`` computes in?

``acc = np.zeros(n, dtype=np.int8); acc += counts`` adds in int64 (or int32)
and casts back into the int8 array: NumPy's in-place operators keep the
array's dtype (wrapping integers past 127).  JAX has no in-place operators:
``acc += counts`` rebinds ``acc`` to the promoted result, an int32 array that
does not wrap.  The difference is silent, so the rewriting rule spells out
NumPy's cast (``acc = (acc + counts).astype(acc.dtype)``) for names whose
every binding is a NumPy array made with such a dtype, or a copy of a parameter's array (whose dtype the caller
chooses: ``out = np.array(c)``, ``c.copy()``).  32-bit dtypes count
too: a float32 or int32 array meets wider operands under ``jax_enable_x64``,
where JAX's rebinding would give float64 (without it the cast changes nothing).
"""

from __future__ import annotations

import libcst as cst

from np2jax.analysis.resolve import Resolver, is_numpy
from np2jax.analysis.scope import ParamBinding, Scope, ValueBinding, every_value_made
from np2jax.cstutil import number_literal

NARROW_DTYPES = frozenset(
    "int8 int16 uint8 uint16 float16 byte short ubyte ushort half "
    "int32 uint32 intc uintc float32 single complex64 csingle".split()
)
# NumPy's type codes of those dtypes (np.dtype("f2").name == "float16")
DTYPE_CODES = {"f2": "float16", "e": "float16", "i1": "int8", "b": "int8", "u1": "uint8", "B": "uint8", "i2": "int16",
               "h": "int16", "u2": "uint16", "H": "uint16", "f4": "float32", "f": "float32", "i4": "int32", "i": "int32",
               "u4": "uint32", "I": "uint32", "u8": "uint64", "Q": "uint64", "c8": "complex64", "F": "complex64",
               "?": "bool", "b1": "bool"}
# ndarray methods whose result has the dtype of the array they are called on
_SAME_DTYPE_METHODS = frozenset({"copy", "reshape", "ravel", "flatten", "transpose", "squeeze", "swapaxes"})
# creation functions whose third positional argument is the dtype (np.full(shape, fill_value, dtype))
_DTYPE_THIRD = frozenset({"full", "full_like"})
# creation functions whose second positional argument is the dtype
_DTYPE_SECOND = frozenset({"zeros", "ones", "empty", "array", "asarray", "zeros_like", "ones_like", "empty_like"})


def is_narrow_array(name: str, scope: Scope, resolver: Resolver) -> bool:
    """Every (non-augmented) binding of ``name`` is a NumPy array made with a dtype narrower than 32 bits; a
    parameter counts when the function's first statement that mentions it rebinds it to one (``v = v.astype(np.float16)``)."""
    if every_value_made(name, scope, lambda value, found: _narrow_value(value, resolver, found)):
        return True
    found, bindings = scope.lookup(name)
    if found is None or not any(isinstance(b, ParamBinding) for b in bindings) or not rebound_first(found.node, name):
        return False
    made = [b for b in bindings if not isinstance(b, ParamBinding) and not (isinstance(b, ValueBinding) and b.augmented)]
    return bool(made) and all(isinstance(b, ValueBinding) and _narrow_value(b.value, resolver, found) for b in made)


def rebound_first(function: cst.CSTNode, name: str) -> bool:
    """Is the first top-level statement of ``function`` that mentions ``name`` a plain ``name = ...``?"""
    from np2jax.analysis.aliasing import mentions  # (aliasing imports much of analysis)

    body = getattr(function, "body", None)
    for statement in getattr(body, "body", ()):
        if not mentions(statement, name):
            continue
        if isinstance(statement, cst.SimpleStatementLine) and statement.body:
            first = statement.body[0]
            return (isinstance(first, cst.Assign) and len(first.targets) == 1
                    and isinstance(first.targets[0].target, cst.Name) and first.targets[0].target.value == name)
        return False
    return False


def _narrow_value(value: cst.BaseExpression, resolver: Resolver, scope: Scope) -> bool:
    return _made_dtype(value, resolver, scope) in NARROW_DTYPES or _parameter_copy(value, resolver, scope)


def _parameter_copy(value: cst.BaseExpression, resolver: Resolver, scope: Scope) -> bool:
    """A copy of a parameter's array, whose dtype is the caller's (``np.array(c)``, ``np.copy(c)``,
    ``np.asarray(c).copy()``, and ``c.copy()`` of a parameter annotated or documented as an array: of a list it is a
    list, which has no ``.astype``): an int8 or float32 one is narrower than what ``+=`` with an int64 or float64
    operand computes in (hunt36: `out = np.array(c); out += steps.sum(axis=0)` wrapped in NumPy, widened in JAX)."""
    if not isinstance(value, cst.Call) or any(arg.star or (arg.keyword is not None and arg.keyword.value != "copy")
                                              for arg in value.args):
        return False
    func = value.func
    method = False  # `c.copy()`: an array's copy only when the function uses `c` as one (a list's is a list: hunt37)
    if isinstance(func, cst.Attribute) and func.attr.value == "copy" and not value.args and resolver.qualname(func, scope) is None:
        source = func.value
        method = True
        if isinstance(source, cst.Call) and (resolver.qualname(source.func, scope) or "") in ("numpy.asarray", "numpy.array") \
                and len(source.args) == 1:
            source, method = source.args[0].value, False
    elif (resolver.qualname(func, scope) or "") in ("numpy.array", "numpy.copy") and value.args and value.args[0].keyword is None:
        source = value.args[0].value
    else:
        return False
    if not isinstance(source, cst.Name):
        return False
    _, bindings = scope.lookup(source.value)
    if not bindings or not all(isinstance(b, ParamBinding) for b in bindings):
        return False
    if method:  # only a parameter annotated or documented as an array (its `.copy()` alone says nothing)
        from np2jax.analysis.aliasing import array_evidence  # (aliasing imports much of analysis)

        return isinstance(scope.node, cst.FunctionDef) and source.value in array_evidence(scope.node, resolver, scope).annotated
    return True


def made_dtype(name: str, scope: Scope, resolver: Resolver, defaults: bool = False) -> str | None:
    """The NumPy dtype name (``"int16"``) every (non-augmented) binding of ``name`` makes an array of, explicitly
    (``np.zeros(n, dtype=np.int16)``, ``x.astype("u1")``, ``np.full(n, 0, np.int8).copy()``), or None.
    ``defaults``: a dtype parameter counts as its default (``def pack(x, dtype=np.uint8)``: what callers that say
    nothing get), for diagnostics that say what may happen."""
    found, bindings = scope.lookup(name)
    made = [b for b in bindings if not (isinstance(b, ValueBinding) and b.augmented)]
    if found is None or not made or not all(isinstance(b, ValueBinding) for b in made):
        return None
    names = {_made_dtype(b.value, resolver, found, defaults=defaults) for b in made}
    return names.pop() if len(names) == 1 else None


def _made_dtype(value: cst.BaseExpression, resolver: Resolver, scope: Scope, depth: int = 0,
                defaults: bool = False) -> str | None:
    """The dtype name of the NumPy array or scalar ``value`` makes with a dtype given explicitly, or None."""
    if not isinstance(value, cst.Call) or depth > 4:
        return None
    dtype = None
    if isinstance(value.func, cst.Attribute) and value.func.attr.value == "astype":
        dtype = next((arg.value for arg in value.args if arg.keyword is None or arg.keyword.value == "dtype"), None)
    elif isinstance(value.func, cst.Attribute) and value.func.attr.value in _SAME_DTYPE_METHODS and (
            resolver.qualname(value.func, scope) is None):
        return _made_dtype(value.func.value, resolver, scope, depth + 1, defaults)  # `np.zeros(n, np.int8).reshape(2, -1)`
    else:
        qualname = resolver.qualname(value.func, scope) or ""
        if not is_numpy(qualname):
            return None
        short = qualname.rsplit(".", 1)[-1]
        if short in NARROW_DTYPES:
            return short  # `np.float16(v)`: a scalar of that type
        for index, arg in enumerate(value.args):
            if (arg.keyword is not None and arg.keyword.value == "dtype") or (
                arg.keyword is None and ((index == 1 and short in _DTYPE_SECOND) or (index == 2 and short in _DTYPE_THIRD))
            ):
                dtype = arg.value
    if dtype is None:
        return _inferred_int(value, resolver, scope)
    return _dtype_name(dtype, resolver, scope, defaults=defaults)


def _inferred_int(value: cst.Call, resolver: Resolver, scope: Scope) -> str | None:
    """``np.full(n, 0)``, ``np.arange(n)`` and ``np.array([0, 0, 0])`` without a dtype: int64 arrays (the dtype NumPy
    gives Python ints), by the int literals or sizes that make them."""
    qualname = resolver.qualname(value.func, scope) or ""
    positional = [a.value for a in value.args if a.keyword is None and not a.star]
    if any(a.keyword is not None or a.star for a in value.args):
        return None
    if qualname == "numpy.full" and len(positional) == 2 and _int_literal(positional[1]):
        return "int64"
    if qualname in ("numpy.array", "numpy.asarray") and len(positional) == 1 and isinstance(positional[0], (cst.List, cst.Tuple)):
        elements = positional[0].elements
        return "int64" if elements and all(isinstance(e, cst.Element) and _int_literal(e.value) for e in elements) else None
    if qualname == "numpy.arange" and positional and all(
            _int_literal(p) or _size(p) for p in positional):
        return "int64"
    return None


def _int_literal(node: cst.BaseExpression) -> bool:
    return type(number_literal(node)) is int


def _size(node: cst.BaseExpression) -> bool:
    """``len(x)``, ``x.size``, ``x.shape[k]``: an int."""
    if isinstance(node, cst.Call):
        return isinstance(node.func, cst.Name) and node.func.value == "len"
    if isinstance(node, cst.Attribute):
        return node.attr.value == "size"
    return (isinstance(node, cst.Subscript) and isinstance(node.value, cst.Attribute) and node.value.attr.value == "shape"
            and len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Index)
            and isinstance(node.slice[0].slice.value, cst.Integer))


def _dtype_name(node: cst.BaseExpression, resolver: Resolver, scope: Scope, depth: int = 0,
                defaults: bool = False) -> str | None:
    if isinstance(node, cst.SimpleString):
        text = str(node.evaluated_value).lstrip("<>=|")
        return DTYPE_CODES.get(text, text)
    if isinstance(node, cst.Name) and depth < 4 and resolver.qualname(node, scope) is None:
        found, bindings = scope.lookup(node.value)  # `dt = np.int8`, then `dtype=dt`

        def named(binding) -> str | None:
            if isinstance(binding, ValueBinding) and not binding.augmented:
                return _dtype_name(binding.value, resolver, found, depth + 1, defaults)
            if defaults and isinstance(binding, ParamBinding) and binding.param.default is not None:
                return _dtype_name(binding.param.default, resolver, found, depth + 1, defaults)
            return None

        names = {named(b) for b in bindings}
        return names.pop() if len(names) == 1 else None
    qualname = resolver.qualname(node, scope) or ""
    if qualname in _BUILTIN_DTYPES:
        return _BUILTIN_DTYPES[qualname]
    return qualname.rsplit(".", 1)[-1] if is_numpy(qualname) else None


_BUILTIN_DTYPES = {"builtins.int": "int64", "builtins.float": "float64", "builtins.bool": "bool", "builtins.complex": "complex128"}
