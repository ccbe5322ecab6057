"""Arithmetic where NumPy's promotion of an int32/int64 array differs from jax.numpy's.

* A true division by (or of) such an array: ``np.cumsum(x) / np.arange(1, n + 1)``.  NumPy promotes a float16 or
  float32 array meeting an int32/int64 one to float64 (``float32 / int64`` is float64), where jax.numpy keeps the
  float's dtype: with ``jax_enable_x64`` a float32 ``x`` gives a float32 quotient instead of NumPy's float64.
* Such an array with a Python float or complex: ``2.0 * np.pi * k / (n - 1)`` with ``k = np.arange(n)``,
  ``-2j * np.pi * np.outer(k, k) / n``.  NumPy's result is a
  float64 array like any other; jax.numpy's is *weakly typed* float64, which a float32 array it then meets narrows
  (``frame * window`` float32 in JAX, float64 in NumPy).

Casting the integer operand to ``float`` (JAX's default float: float64 under x64, float32 without) gives NumPy's
dtype: a true division's result is inexact anyway (float16/float32/float64 ``/`` float64 is float64, an integer
or bool one too, complex64 becomes complex128), and an int array with a Python float is float64 in NumPy; without
x64 nothing changes (JAX converts the int32 to float32 itself).  The values are the same: NumPy converts the
integers to float64 for the operation too.

Integer arrays are recognised from how they are made, never guessed: ``np.arange`` of ints and sizes,
``np.bincount`` without weights, ``np.count_nonzero``, ``argmax``/``argmin``/``argsort``, a ``sum``/``cumsum`` of
a comparison or other boolean array, an explicit wide integer dtype (``dtype=int``, ``.astype(np.int64)``),
subscripts, ``np.maximum``/``minimum``/``clip``/``abs`` and ``+ - * // %`` of those with int literals, and names
bound only to such values.  Narrow ints (int8/int16/uint8/uint16) are left alone: NumPy keeps ``float32 / int16``
float32.  A quotient of two int64 arrays, or of one and a Python int, is float64 in both already (an int32 one is
float32 in jax.numpy under x64: it is cast too); Python floats
count only when certain (a float literal, ``np.pi``, a name bound only to one or to arithmetic of those, such as
``TWO_PI = 2.0 * np.pi`` at module level): a parameter defaulting to ``0.1``
may be given an int, with which NumPy's product stays an int array.
"""

from __future__ import annotations

import libcst as cst

from np2jax.analysis.loops import descendants
from np2jax.analysis.narrow_dtypes import _dtype_name, _made_dtype  # (the dtype spelling rules live there)
from np2jax.analysis.resolve import Resolver
from np2jax.analysis.scope import ParamBinding, Scope, ValueBinding
from np2jax.analysis.value_kinds import literal_value, python_number_kind
from np2jax.analysis.values import nodes_of
from np2jax.cstutil import size_expression

WIDE_INTS = frozenset("int int32 int64 intp int_ intc uint32 uint64 uint uintc uintp long longlong ulonglong".split())
_INDEX_FUNCTIONS = frozenset({"argmax", "argmin", "argsort", "count_nonzero"})
_SAME_INT_FUNCTIONS = frozenset({"maximum", "minimum", "clip", "abs", "absolute", "negative", "outer"})
_SAME_DTYPE_METHODS = frozenset({"copy", "reshape", "ravel", "flatten", "transpose", "squeeze", "clip"})
_COUNTS = frozenset({"sum", "cumsum"})
_BOOL_FUNCTIONS = frozenset("""isnan isinf isfinite isposinf isneginf signbit isclose logical_and logical_or
    logical_not logical_xor greater greater_equal less less_equal equal not_equal""".split())
_INT_OPERATORS = (cst.Add, cst.Subtract, cst.Multiply, cst.FloorDivide, cst.Modulo)


_WITH_FLOATS = (cst.Add, cst.Subtract, cst.Multiply, cst.Divide, cst.Power)


def int_array_casts(function: cst.FunctionDef, resolver: Resolver) -> dict[cst.BinaryOperation, tuple[bool, bool, str | None]]:
    """Binary operations of ``function`` with a wide integer array on one side whose promotion differs (see the
    module docstring): which sides (left, right) to cast, and to what: ``None`` for ``float``, or the name of the
    array an augmented assignment writes into. Memoised per function.

    ``acc += 2.0 * k``: NumPy computes the right-hand side as usual (float64) and writes it into ``acc``, keeping
    ``acc``'s dtype; the migrated ``+=`` rebinds ``acc`` to the result's dtype. Cast to ``float``, a float32 ``acc``
    would become float64 (and a loop carrying it raise); not cast, a float64 ``acc`` would get a float16/float32 sum.
    So the cast there is ``jnp.result_type(acc, float)``: ``acc``'s own float dtype. Another target (an attribute)
    gets no cast."""
    cache = resolver.memo.setdefault("int_array_casts", {})
    found = cache.get(function)
    if found is None:
        found = cache[function] = {}
        in_place: dict[int, str | None] = {}
        for statement, _ in nodes_of(function, resolver, frozenset({cst.AugAssign})):
            target = statement.target.value if isinstance(statement.target, cst.Subscript) else statement.target
            name = target.value if isinstance(target, cst.Name) else None
            in_place.update((id(inner), name) for inner in descendants(statement.value))
        for node, scope in nodes_of(function, resolver, frozenset({cst.BinaryOperation})):
            if not isinstance(node.operator, _WITH_FLOATS) or (id(node) in in_place and in_place[id(node)] is None):
                continue
            into = in_place.get(id(node))
            left, right = (wide_int_array(side, scope, resolver) for side in (node.left, node.right))
            if isinstance(node.operator, cst.Divide) and (left or right) and any(
                    _int32_array(side, scope, resolver) for side in (node.left, node.right)):
                found[node] = (left, right, into)  # `t32 / 2`, `a32 / b32`: float32 in jax.numpy under x64, float64 in NumPy
                continue
            if left == right:
                continue  # neither (nothing to do), or both: int64 / int64 is float64 in both
            other = node.right if left else node.left
            number = _python_number(other, scope, resolver, 0)
            if number in ("float", "complex") or (isinstance(node.operator, cst.Divide) and number is None and not _int_number(
                    other, scope, resolver, 0)):
                found[node] = (left, right, into)  # (`counts / 2`, `r / (len(x) - 1)`: a Python int, float64 in both)
    return found


_INT32 = frozenset({"int32", "uint32", "intc", "uintc"})


def _int32_array(node: cst.BaseExpression, scope: Scope, resolver: Resolver, depth: int = 0) -> bool:
    """An array made with an explicit 32-bit integer dtype (``np.arange(n, dtype=np.int32)``, ``t.astype(np.int32)``),
    a subscript of one, or a name bound only to one: jax.numpy divides those in float32 even under x64."""
    if depth > 4:
        return False
    if isinstance(node, cst.Subscript):
        return _int32_array(node.value, scope, resolver, depth + 1)
    if isinstance(node, cst.Name):
        return _bound_only_to(node, scope, lambda value, found: _int32_array(value, found, resolver, depth + 1),
                              skip_augmented=True)
    if isinstance(node, cst.Call):
        if isinstance(node.func, cst.Attribute) and node.func.attr.value == "astype" and resolver.qualname(node.func, scope) is None:
            return _astype_dtype(node, resolver, scope) in _INT32
        return _made_dtype(node, resolver, scope) in _INT32
    return False


def _bound_only_to(node: cst.Name, scope: Scope, test, skip_augmented: bool) -> bool:
    """Every binding of the local name ``node`` is a value ``test(value, its scope)`` accepts. Augmented bindings are
    skipped with ``skip_augmented`` (``n += 1`` keeps an integer array's dtype), and fail otherwise."""
    found, bindings = scope.lookup(node.value)
    if skip_augmented:
        bindings = [b for b in bindings if not (isinstance(b, ValueBinding) and b.augmented)]
    return (found is not None and found.kind != "module" and bool(bindings)
            and all(isinstance(b, ValueBinding) and not b.augmented and test(b.value, found) for b in bindings))


def _astype_dtype(node: cst.Call, resolver: Resolver, scope: Scope) -> str | None:
    """The dtype name of ``x.astype(dtype)``, or None."""
    dtype = next((a.value for a in node.args if a.keyword is None or a.keyword.value == "dtype"), None)
    return None if dtype is None else _dtype_name(dtype, resolver, scope)


def wide_int_array(node: cst.BaseExpression, scope: Scope, resolver: Resolver, depth: int = 0) -> bool:
    """Is ``node`` certainly a NumPy int32/int64 array or scalar (see the module docstring)?"""
    if depth > 6:
        return False
    if isinstance(node, cst.Name):
        return _bound_only_to(node, scope, lambda value, found: wide_int_array(value, found, resolver, depth + 1),
                              skip_augmented=True)
    if isinstance(node, cst.Subscript):
        return wide_int_array(node.value, scope, resolver, depth + 1)
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, (cst.Minus, cst.Plus)):
        return wide_int_array(node.expression, scope, resolver, depth + 1)
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, _INT_OPERATORS):
        sides = (node.left, node.right)
        return any(wide_int_array(s, scope, resolver, depth + 1) for s in sides) and all(
            wide_int_array(s, scope, resolver, depth + 1) or _int_literal(s) for s in sides)
    if not isinstance(node, cst.Call) or any(a.star for a in node.args):
        return False
    func = node.func
    qualname = resolver.qualname(func, scope) or ""
    if qualname.startswith("numpy."):
        return _numpy_call(qualname[len("numpy."):], node, scope, resolver, depth)
    if not isinstance(func, cst.Attribute) or qualname:
        return False
    method, receiver = func.attr.value, func.value
    if method == "astype":
        return _astype_dtype(node, resolver, scope) in WIDE_INTS
    if method in _INDEX_FUNCTIONS - {"count_nonzero"}:
        return True  # `x.argmax(axis=1)`: int64 indices (a list has no such method)
    if method in _COUNTS and not _has_keyword(node, "dtype"):
        return _boolean(receiver, scope, resolver, depth + 1)
    if method in _SAME_DTYPE_METHODS:
        return wide_int_array(receiver, scope, resolver, depth + 1)
    return False


def _numpy_call(name: str, node: cst.Call, scope: Scope, resolver: Resolver, depth: int) -> bool:
    positional = [a.value for a in node.args if a.keyword is None]
    if name in _INDEX_FUNCTIONS:
        return True
    if name == "arange" and _has_keyword(node, "dtype"):
        return _made_dtype(node, resolver, scope) in WIDE_INTS
    if name == "arange":  # (a bare parameter counts: given a Python float, arange's float64 array takes the cast unchanged)
        return 0 < len(positional) == len(node.args) and all(
            _int_number(p, scope, resolver, depth + 1) or _bare_parameter(p, scope) for p in positional)
    if name == "bincount":
        return not _has_keyword(node, "weights") and len(positional) == 1
    if name in _COUNTS:
        return bool(positional) and not _has_keyword(node, "dtype") and _boolean(positional[0], scope, resolver, depth + 1)
    if name in _SAME_INT_FUNCTIONS:
        return bool(positional) and wide_int_array(positional[0], scope, resolver, depth + 1) and all(
            wide_int_array(p, scope, resolver, depth + 1) or _int_literal(p) for p in positional[1:]) and all(
            a.keyword.value not in ("dtype", "out") for a in node.args if a.keyword is not None)
    return _made_dtype(node, resolver, scope) in ("int64", *WIDE_INTS)


def _boolean(node: cst.BaseExpression, scope: Scope, resolver: Resolver, depth: int) -> bool:
    """A comparison, ``~``/``&``/``|`` of booleans, ``np.isnan(...)``..., or a name bound only to those."""
    if depth > 6:
        return False
    if isinstance(node, cst.Comparison):
        return all(not isinstance(t.operator, (cst.In, cst.NotIn, cst.Is, cst.IsNot)) for t in node.comparisons)
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.BitInvert):
        return _boolean(node.expression, scope, resolver, depth + 1)
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, (cst.BitAnd, cst.BitOr, cst.BitXor)):
        return _boolean(node.left, scope, resolver, depth + 1) and _boolean(node.right, scope, resolver, depth + 1)
    if isinstance(node, cst.Subscript):
        return _boolean(node.value, scope, resolver, depth + 1)
    if isinstance(node, cst.Call):
        qualname = resolver.qualname(node.func, scope) or ""
        return qualname.startswith("numpy.") and qualname[len("numpy."):] in _BOOL_FUNCTIONS
    if isinstance(node, cst.Name):
        return _bound_only_to(node, scope, lambda value, found: _boolean(value, found, resolver, depth + 1),
                              skip_augmented=False)
    return False


def _python_number(node: cst.BaseExpression, scope: Scope, resolver: Resolver, depth: int) -> str | None:
    """"int", "float" (or "complex", "bool") when ``node`` is certainly a Python number: what ``python_number_kind``
    knows, and ``+ - * / **`` of those (``2.0 * np.pi``)."""
    if isinstance(node, cst.BinaryOperation) and depth < 6 and isinstance(node.operator, _WITH_FLOATS):
        kinds = {_python_number(side, scope, resolver, depth + 1) for side in (node.left, node.right)}
        if None in kinds or kinds - {"int", "float", "complex"}:
            return None
        if "complex" in kinds:
            return "complex"  # `-2j * np.pi`
        return "float" if "float" in kinds or isinstance(node.operator, cst.Divide) else "int"
    kind = python_number_kind(node, scope, resolver)
    if kind is None and isinstance(node, cst.Name) and depth < 6 and resolver.qualname(node, scope) is None:
        # `TWO_PI = 2.0 * np.pi` at module level, or a local name bound only to such arithmetic
        found, bindings = scope.lookup(node.value)
        if found is not None and bindings and all(isinstance(b, ValueBinding) and not b.augmented for b in bindings):
            kinds = {_python_number(b.value, found, resolver, depth + 1) for b in bindings}
            kind = kinds.pop() if len(kinds) == 1 else None
    return kind


def _int_number(node: cst.BaseExpression, scope: Scope, resolver: Resolver, depth: int) -> bool:
    """A Python int: an int literal, ``len(x)``, ``x.size``, ``x.shape[k]``, ``+ - * //`` of those, a parameter hinted
    ``int`` or defaulting to an int, or a name bound only to those."""
    if depth > 6:
        return False
    if _int_literal(node):
        return True
    if size_expression(node):
        return not isinstance(node, cst.Call) or scope.lookup("len")[0] is None  # (`len` not shadowed)
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, (cst.Add, cst.Subtract, cst.Multiply, cst.FloorDivide)):
        return _int_number(node.left, scope, resolver, depth + 1) and _int_number(node.right, scope, resolver, depth + 1)
    if isinstance(node, cst.Name):
        if python_number_kind(node, scope, resolver) == "int":
            return True
        found, bindings = scope.lookup(node.value)
        if found is None or not bindings:
            return False
        for binding in bindings:
            if isinstance(binding, ParamBinding):
                hint = binding.param.annotation
                if not (hint is not None and isinstance(hint.annotation, cst.Name) and hint.annotation.value == "int") and not (
                        binding.param.default is not None and _int_literal(binding.param.default)):
                    return False
            elif not (isinstance(binding, ValueBinding) and not binding.augmented
                      and _int_number(binding.value, found, resolver, depth + 1)):
                return False
        return True
    return False


def _bare_parameter(node: cst.BaseExpression, scope: Scope) -> bool:
    """A parameter never rebound, without a default or with an int one."""
    if not isinstance(node, cst.Name):
        return False
    _, bindings = scope.lookup(node.value)
    return len(bindings) == 1 and isinstance(bindings[0], ParamBinding) and (
        bindings[0].param.default is None or _int_literal(bindings[0].param.default)) and bindings[0].param.star not in ("*", "**")


def _int_literal(node: cst.BaseExpression) -> bool:
    value = literal_value(node)
    return value is not None and value.kind == "int"


def _has_keyword(node: cst.Call, name: str) -> bool:
    return any(a.keyword is not None and a.keyword.value == name for a in node.args)

