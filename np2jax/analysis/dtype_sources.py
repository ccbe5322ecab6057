"""Where an array's dtype comes from, for the branches of a conditional that becomes ``jax.lax.cond``.

NumPy returns each branch's value with its own dtype: ``x / x.max() if t else x``
is a float array or, for an integer ``x``, an int array, depending on the data.
``jax.lax.cond`` needs one dtype; it raises when tracing an integer ``x``.  The
value classifier (value_kinds.py) cannot name the kind of a parameter's array,
but it does not need to: a branch whose dtype *follows* a parameter's (``x``,
``x - 1``, ``x[::-1]``, ``x.max()``) and a branch that is a float whatever the
parameter is (``x / s``, ``np.sqrt(x)``, ``x.mean()``) differ for integer
arrays.  ``dtype_source`` gives ``("like", name)`` or ``("fixed", kind)`` (None
when it cannot tell); a conditional whose branches mix the two, or two fixed
kinds, may change its result's dtype kind with the data, and is not converted.
"""

from __future__ import annotations

import libcst as cst

from np2jax.analysis.aliasing import has_array_evidence
from np2jax.analysis.resolve import Resolver, is_numpy
from np2jax.analysis.scope import ParamBinding, Scope, ValueBinding
from np2jax.analysis.value_kinds import (
    FLOAT_FUNCTIONS,
    MEAN_REDUCTIONS,
    ORDER,
    SAME_KIND_REDUCTIONS,
    SUM_REDUCTIONS,
    ValueClassifier,
)

Source = tuple[str, str]
FLOAT: Source = ("fixed", "float")
FLOAT64: Source = ("fixed", "float64")  # an explicit 64-bit dtype: under x64 it differs from a float32 input's floats
# Functions and methods whose result has their first argument's (or the array's) dtype.
SAME_DTYPE_FUNCTIONS = SAME_KIND_REDUCTIONS | frozenset(
    "negative positive square copy ravel flatten reshape squeeze transpose sort flip roll clip cumsum round".split()
)
# Functions of two operands whose result has their promoted dtype, as arithmetic's
PROMOTING_FUNCTIONS = frozenset({"minimum", "maximum", "fmin", "fmax", "add", "subtract", "multiply"})
# Arrays made with the dtype of their first argument, unless a dtype is given (``np.full_like(x, v, dtype)``).
LIKE_FUNCTIONS = frozenset({"zeros_like", "ones_like", "empty_like", "full_like"})
# The real dtype of their argument's: a complex `z` gives a float array (``("real", p)`` for a parameter's)
REAL_PART_FUNCTIONS = frozenset("abs absolute real imag".split())
SAME_DTYPE_METHODS = frozenset("max min ptp copy ravel flatten reshape squeeze transpose clip cumsum round".split())
# Sums and products keep an int's kind (a bool's becomes an int, no float either way): `x.sum()` is an int for an int `x`
SUM_KIND = SUM_REDUCTIONS | frozenset({"cumprod", "nancumsum", "nancumprod", "trace"})
FLOAT_METHODS = frozenset({"mean", "std", "var"})


_RESOLVING: set[tuple[int, str]] = set()  # the names whose source is being found (a cycle through bindings)


def dtype_source(node: cst.BaseExpression, scope: Scope, resolver: Resolver, values: ValueClassifier, depth: int = 0) -> Source | None:
    """``("fixed", kind)`` when ``node``'s dtype kind is known, ``("like", p)`` when it is parameter ``p``'s, else None."""
    if depth > 8:
        return None
    if isinstance(node, cst.Call) and _explicit_float64(node, scope, resolver):
        return FLOAT64
    value = values.value(node, scope)
    if value.kind in ORDER and not value.weak:
        return ("fixed", value.kind)
    if isinstance(node, cst.Name):
        found, bindings = scope.lookup(node.value)
        key = (id(found), node.value)
        if found is None or not bindings or len(bindings) > 4 or key in _RESOLVING:
            return None  # (`m = m * 0.5` reads the name it binds: each name once per chain, so no blowup)
        _RESOLVING.add(key)
        try:
            sources = {_binding_source(node.value, binding, found, resolver, values, depth) for binding in bindings}
        finally:
            _RESOLVING.discard(key)
        if len(sources) == 1:
            return sources.pop()
        # `m = x.max()` and then `m = m * 0.5` in one branch: the other branch's `m` may be the first binding's,
        # whose kind follows `x`'s (an int for an int `x`) where the updated one is a float.
        return next((source for source in sorted(sources, key=str) if source is not None and source[0] == "like"), None)
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, (cst.Minus, cst.Plus)):
        return dtype_source(node.expression, scope, resolver, values, depth + 1)
    if isinstance(node, cst.Subscript):
        return dtype_source(node.value, scope, resolver, values, depth + 1)
    if isinstance(node, cst.Attribute) and node.attr.value in ("T", "mT"):
        return dtype_source(node.value, scope, resolver, values, depth + 1)
    if isinstance(node, cst.BinaryOperation):
        return _binary(node, scope, resolver, values, depth)
    if isinstance(node, cst.Call):
        return _call(node, scope, resolver, values, depth)
    return None


def _binding_source(name: str, binding: object, scope: Scope, resolver: Resolver, values: ValueClassifier,
                    depth: int) -> Source | None:
    if isinstance(binding, ParamBinding) and scope.kind == "function":
        default = binding.param.default
        if isinstance(default, cst.UnaryOperation):
            default = default.expression
        return FLOAT if isinstance(default, cst.Float) else ("like", name)  # `delta=1.0`: meant as a float
    if isinstance(binding, ValueBinding) and not binding.augmented:
        return dtype_source(binding.value, scope, resolver, values, depth + 1)
    return None


def _binary(node: cst.BinaryOperation, scope: Scope, resolver: Resolver, values: ValueClassifier, depth: int) -> Source | None:
    if isinstance(node.operator, cst.Divide):
        return FLOAT  # a true division is a float for real operands of any dtype
    return _promotion((node.left, node.right), scope, resolver, values, depth)


def _promotion(operands, scope: Scope, resolver: Resolver, values: ValueClassifier, depth: int) -> Source | None:
    """The source of the dtype ``operands`` promote to (arithmetic, ``np.minimum(x, 10)``)."""
    sides = []
    for side in operands:
        value = values.value(side, scope)
        if value.weak and value.kind == "int":
            continue  # a Python int takes the other operand's dtype
        if value.weak and value.kind == "float":
            sides.append(FLOAT)
            continue
        sides.append(dtype_source(side, scope, resolver, values, depth + 1))
    if not sides:
        return None
    if FLOAT in sides and all(side is not None for side in sides):
        return FLOAT if all(side in (FLOAT, ("fixed", "int"), ("fixed", "bool")) or side[0] == "like" for side in sides) else None
    if all(side == sides[0] for side in sides):
        return sides[0]
    if all(side is not None and side[0] in ("like", PROMOTED) for side in sides):
        # `x ** p`, `x * scale` of two parameters: their promotion, an int only when both are ints
        names = sorted({name for side in sides for name in side[1].split(", ")})
        return (PROMOTED, ", ".join(names))
    return None


def _call(node: cst.Call, scope: Scope, resolver: Resolver, values: ValueClassifier, depth: int) -> Source | None:
    func = node.func
    positional = [arg.value for arg in node.args if arg.keyword is None and not arg.star]
    qualname = resolver.qualname(func, scope)
    if qualname is not None and (is_numpy(qualname) or qualname.startswith("jax.numpy.")):
        short = qualname.rsplit(".", 1)[-1]
        if short in FLOAT_FUNCTIONS or short in MEAN_REDUCTIONS:
            return FLOAT
        if short in PROMOTING_FUNCTIONS and len(positional) == 2 and len(node.args) == 2:
            return _promotion(positional, scope, resolver, values, depth + 1)  # `np.minimum(x, 10)`: like x
        if (short in SAME_DTYPE_FUNCTIONS or short in SUM_KIND) and positional:
            return dtype_source(positional[0], scope, resolver, values, depth + 1)
        if short in LIKE_FUNCTIONS and positional and not any(
                arg.keyword is not None and arg.keyword.value == "dtype" for arg in node.args) and len(positional) <= 2:
            return dtype_source(positional[0], scope, resolver, values, depth + 1)  # `np.zeros_like(counts)`
        if short in ("asarray", "array", "asanyarray") and len(positional) == 1 and len(node.args) == 1:
            return dtype_source(positional[0], scope, resolver, values, depth + 1)  # no dtype: the argument's
        if short in REAL_PART_FUNCTIONS and positional:
            return _real_part(dtype_source(positional[0], scope, resolver, values, depth + 1))
        if short == "where" and len(positional) == 3:
            chosen = {dtype_source(arg, scope, resolver, values, depth + 1) for arg in positional[1:]}
            return chosen.pop() if len(chosen) == 1 else None
        return None
    if qualname == "builtins.abs" and positional:
        return _real_part(dtype_source(positional[0], scope, resolver, values, depth + 1))
    if qualname is None and isinstance(func, cst.Attribute):
        method = func.attr.value
        if method in FLOAT_METHODS:
            return FLOAT
        if method in SAME_DTYPE_METHODS or method in SUM_KIND:
            return dtype_source(func.value, scope, resolver, values, depth + 1)
    return None


def _explicit_float64(node: cst.Call, scope: Scope, resolver: Resolver) -> bool:
    """``np.zeros_like(x, dtype=float)``: float64 under x64, where a branch computed from a float32 ``x`` stays float32."""
    for arg in node.args:
        if arg.keyword is not None and arg.keyword.value == "dtype":
            value = arg.value
            if isinstance(value, cst.Name) and value.value == "float" and resolver.qualname(value, scope) == "builtins.float":
                return True
            if isinstance(value, cst.SimpleString):
                return str(value.evaluated_value) in ("float64", "f8", "d", "double")
            return (resolver.qualname(value, scope) or "") in ("numpy.float64", "numpy.double")
    return False


def _real_part(source: Source | None) -> Source | None:
    return ("real", source[1]) if source is not None and source[0] == "like" else source


PROMOTED = "promoted"  # ("promoted", "p, x"): the dtype the parameters named promote to (arithmetic of them)


def mixed_kinds(column: list[cst.BaseExpression], scope: Scope, resolver: Resolver, values: ValueClassifier) -> str | None:
    """Why the arrays ``column`` (one per branch) may have different dtype kinds, or None."""
    sources = [dtype_source(node, scope, resolver, values) for node in column]
    fixed = {source[1] for source in sources if source is not None and source[0] == "fixed"}
    if fixed == {"float", "float64"}:
        return ("one branch is float64 by its explicit dtype and the other follows the input's float width: under x64 "
                "a float32 input gives branches of two dtypes, which jax.lax.cond refuses")
    if len(fixed) > 1:
        return f"its branches are arrays of different kinds ({' and '.join(sorted(fixed))}), which NumPy returns as they are"
    reals = {source[1] for source in sources if source is not None and source[0] == "real"}
    for node, source in zip(column, sources):
        if source is not None and source[0] == "like" and source[1] in reals:
            return (f"`{_code(node)}` has the dtype of `{source[1]}` and another branch its absolute value or real part, "
                    f"which is real where `{source[1]}` is complex")
    likes = [(node, source[1]) for node, source in zip(column, sources) if source is not None and source[0] == "like"]
    for node, source in zip(column, sources):
        if source is not None and source[0] == PROMOTED and likes and _scalar_parameter(source[1], likes[0][1], scope, resolver):
            like_node, name = likes[0]
            return (f"`{_code(node)}` promotes {_names(source[1])} where `{_code(like_node)}` has the dtype of `{name}`: "
                    f"with an int `{name}` and a float other, NumPy's result kind would depend on the branch taken")
    if fixed and likes:
        kind = next(iter(fixed))
        node, name = likes[0]
        other = f"another is `{name}` as given" if _code(node) == name else f"`{_code(node)}` has the dtype of `{name}`"
        return (f"one branch is a {kind} and {other}: NumPy's result dtype "
                f"would depend on the branch taken (an int `{name}` gives an int)" if kind == "float" else
                f"one branch is a {kind} array and `{_code(node)}` has the dtype of `{name}`, which may differ")
    return None


def _scalar_parameter(joined: str, like: str, scope: Scope, resolver: Resolver) -> bool:
    """Is one of the parameters ``joined`` names, other than ``like``, used as no array in the function (``p`` of
    ``x ** p``: a number the caller may give as an int or a float), rather than data of ``like``'s kind (the
    weights ``w`` of ``x * w``, summed with ``np.sum(w)``)?"""
    function = scope.node
    if not isinstance(function, cst.FunctionDef):
        return False
    return any(name != like and not has_array_evidence(function, name, resolver, scope) for name in joined.split(", "))


def _names(joined: str) -> str:
    names = [f"`{name}`" for name in joined.split(", ")]
    return " and ".join(names) if len(names) < 3 else ", ".join(names[:-1]) + " and " + names[-1]


def _code(node: cst.CSTNode) -> str:
    text = cst.Module([]).code_for_node(node)
    return text if len(text) <= 40 else text[:37] + "..."


def dtype_argument(node: cst.BaseExpression) -> cst.BaseExpression | None:
    """The dtype a call makes its array with: ``dtype=`` (``np.arange(n, dtype=d)``) or ``.astype(d)``'s argument."""
    if not isinstance(node, cst.Call):
        return None
    dtype = next((a.value for a in node.args if a.keyword is not None and a.keyword.value == "dtype"), None)
    if dtype is None and isinstance(node.func, cst.Attribute) and node.func.attr.value == "astype" and node.args:
        dtype = node.args[0].value
    return dtype


NARROW_INTEGERS = frozenset("int8 int16 uint8 uint16 uint32 uint64 byte short ubyte ushort uintc".split())


def runtime_dtype(node: cst.BaseExpression, scope: Scope, resolver: Resolver, depth: int = 0, narrow: bool = False) -> bool:
    """An array whose dtype a run-time value chooses: ``a.astype(d)``, ``np.arange(n, dtype=d)`` (``d`` neither a
    literal nor a NumPy or Python type), an element or slice of one, or a name bound to one somewhere; with
    ``narrow``, also one made with a narrow integer dtype (``dtype=np.int8``)."""
    if depth > 6:
        return False
    if isinstance(node, cst.Subscript):
        return runtime_dtype(node.value, scope, resolver, depth + 1, narrow)
    if isinstance(node, cst.Name):
        found, bindings = scope.lookup(node.value)
        return found is not None and any(  # (one such binding may be the one the use sees)
            isinstance(b, ValueBinding) and not b.augmented and runtime_dtype(b.value, found, resolver, depth + 1, narrow)
            for b in bindings)
    dtype = dtype_argument(node)
    if not isinstance(dtype, (cst.Name, cst.Attribute)):
        return narrow and isinstance(dtype, cst.SimpleString) and dtype.evaluated_value in NARROW_INTEGERS
    qualname = resolver.qualname(dtype, scope)
    if narrow and qualname and qualname.startswith("numpy.") and qualname[len("numpy."):] in NARROW_INTEGERS:
        return True
    return not (qualname and (qualname.startswith("numpy.") or qualname.startswith("builtins.")))
