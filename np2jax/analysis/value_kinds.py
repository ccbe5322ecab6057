"""What kind of value an expression has: a bool, int, float or complex array or Python number, and is it 0-d?

``jax.lax.cond`` needs both branches to have one shape and dtype, and an ``if``
test is converted exactly only when we know it is a boolean (or a number,
tested as ``!= 0``).  ``ValueClassifier`` answers from the syntax alone:
literals, NumPy functions whose result kind follows from their arguments
(``np.mean`` of a real array is a float, ``np.sum`` of a comparison an int),
full reductions (0-d), arithmetic, and names bound only to such values.
Anything else is ``UNKNOWN``: perhaps not an array at all (a list, a tuple).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import libcst as cst

from np2jax.analysis.resolve import Resolver, is_numpy
from np2jax.analysis.scope import ParamBinding, Scope, ValueBinding

ORDER = ("bool", "int", "float", "complex")
NUMBER = "number"  # an array or a number whose dtype kind we cannot tell


@dataclass(frozen=True)
class Value:
    """``kind``: one of ORDER, NUMBER, or None (unknown: perhaps not an array).

    ``scalar``: certainly 0-d.  ``weak``: a Python number (a literal, a name
    bound to one, a parameter hinted ``float``): it takes the other operand's
    dtype in JAX and NumPy alike.  ``literal``: the node is a number literal.
    """

    kind: str | None
    scalar: bool = False
    weak: bool = False
    literal: bool = False

    @property
    def numeric(self) -> bool:
        return self.kind is not None


UNKNOWN = Value(None)

# Results 0-d when called with the array alone (no axis, keepdims, out...).
SAME_KIND_REDUCTIONS = frozenset("max min amax amin ptp nanmax nanmin".split())
SUM_REDUCTIONS = frozenset("sum prod nansum nanprod".split())
MEAN_REDUCTIONS = frozenset("mean std var median average nanmean nanstd nanvar nanmedian".split())
BOOL_REDUCTIONS = frozenset("any all".split())
INDEX_REDUCTIONS = frozenset("argmax argmin count_nonzero".split())
ALWAYS_SCALAR_BOOL = frozenset("allclose array_equal array_equiv".split())
FLOAT_FUNCTIONS = frozenset(
    """sqrt exp log log2 log10 log1p expm1 exp2 sin cos tan arcsin arccos arctan sinh cosh tanh arcsinh arccosh
    arctanh cbrt deg2rad rad2deg degrees radians""".split()
)
SAME_KIND_FUNCTIONS = frozenset("negative positive square sign conj conjugate copy asarray array".split())
BOOL_FUNCTIONS = frozenset(
    """isnan isinf isfinite isposinf isneginf signbit isclose logical_and logical_or logical_not logical_xor
    greater greater_equal less less_equal equal not_equal""".split()
)
JOIN_FUNCTIONS = frozenset("maximum minimum fmax fmin add subtract multiply clip where dot vdot inner matmul".split())
SCALAR_JOIN_FUNCTIONS = frozenset({"vdot"})
DTYPE_KINDS = {
    **{name: "float" for name in "float16 float32 float64 single double half float_ longdouble".split()},
    **{name: "int" for name in "int8 int16 int32 int64 uint8 uint16 uint32 uint64 intp int_ uint".split()},
    **{name: "complex" for name in "complex64 complex128 complex_ csingle cdouble".split()},
    "bool_": "bool", "bool": "bool",
}
BUILTIN_KINDS = {"float": "float", "int": "int", "bool": "bool", "complex": "complex"}
SHAPE_METHODS = frozenset("ravel flatten reshape squeeze transpose copy round conj conjugate cumsum cumprod".split())
ORDERING = (cst.LessThan, cst.GreaterThan, cst.LessThanEqual, cst.GreaterThanEqual, cst.Equal, cst.NotEqual)


def join(values: list[Value]) -> Value:
    """The value of an elementwise combination (NumPy's promotion, by kind)."""
    if not values or any(v.kind is None for v in values):
        return UNKNOWN
    scalar = all(v.scalar for v in values)
    weak = all(v.weak for v in values)
    if any(v.kind == NUMBER for v in values):
        return Value(NUMBER, scalar)
    kind = max((v.kind for v in values), key=ORDER.index)
    return Value(kind, scalar, weak)


def literal_value(node: cst.BaseExpression) -> Value | None:
    """The value of a number literal (``2``, ``-0.5``, ``True``), None for anything else."""
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, (cst.Minus, cst.Plus)):
        inner = literal_value(node.expression)
        return inner if inner is not None and inner.kind != "bool" else None
    if isinstance(node, cst.Integer):
        return Value("int", True, True, True)
    if isinstance(node, cst.Float):
        return Value("float", True, True, True)
    if isinstance(node, cst.Imaginary):
        return Value("complex", True, True, True)
    if isinstance(node, cst.Name) and node.value in ("True", "False"):
        return Value("bool", True, True, True)
    return None


_PYTHON_FLOAT_CONSTANTS = frozenset({"numpy.inf", "numpy.nan", "numpy.pi", "numpy.e", "math.inf", "math.nan", "math.pi",
                                     "math.e", "math.tau"})


def python_number_kind(node: cst.BaseExpression, scope, resolver, depth: int = 0) -> str | None:
    """"float", "int", "bool" or "complex" when ``node`` is certainly a Python number: a literal, ``np.inf`` /
    ``math.pi`` ..., ``float("inf")``, or a name bound only to those (``INF = np.inf`` at module level)."""
    if depth > 4:
        return None
    literal = literal_value(node)
    if literal is not None:
        return literal.kind
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, (cst.Minus, cst.Plus)):
        inner = python_number_kind(node.expression, scope, resolver, depth + 1)
        return inner if inner in ("int", "float", "complex") else None
    if isinstance(node, cst.Call):
        called = resolver.qualname(node.func, scope)
        if called in ("builtins.float", "builtins.int") and len(node.args) == 1 and isinstance(
                node.args[0].value, (cst.SimpleString, cst.Integer, cst.Float)):
            return called[len("builtins."):]  # `float("inf")`
        return None
    qualname = resolver.qualname(node, scope)
    if qualname in _PYTHON_FLOAT_CONSTANTS:
        return "float"
    if isinstance(node, cst.Name) and qualname is None:
        found, bindings = scope.lookup(node.value)
        if found is None or not bindings or not all(isinstance(b, ValueBinding) and not b.augmented for b in bindings):
            return None
        kinds = {python_number_kind(b.value, found, resolver, depth + 1) for b in bindings}
        return kinds.pop() if len(kinds) == 1 and None not in kinds else None
    return None


class ValueClassifier:
    """Kinds and 0-d-ness of expressions in one function (see the module docstring)."""

    def __init__(self, resolver: Resolver, size_one: frozenset[str] = frozenset()) -> None:
        """``size_one``: expressions (as code) to take for 0-d numbers when nothing else is known (see ``assuming``)."""
        self.resolver = resolver
        self.size_one = size_one
        self._cache: dict[tuple[int, int], Value] = {}
        self._assuming: dict[frozenset[str], ValueClassifier] = {}

    def assuming(self, size_one: frozenset[str]) -> ValueClassifier:
        """A classifier that takes ``size_one`` expressions (as code) for 0-d numbers: what an ``if`` test
        compares, which NumPy only accepts when it holds one element.  Never use it for tests (lists compare too)."""
        if not size_one:
            return self
        found = self._assuming.get(size_one)
        if found is None:
            found = self._assuming[size_one] = ValueClassifier(self.resolver, size_one)
        return found

    def value(self, node: cst.BaseExpression, scope: Scope) -> Value:
        key = (id(node), id(scope))
        found = self._cache.get(key)
        if found is not None:
            return found
        self._cache[key] = UNKNOWN  # a cycle (x = x + 1) tells nothing
        result = self._compute(node, scope)
        if self.size_one and not result.scalar and _code(node) in self.size_one:
            result = Value(result.kind or NUMBER, True)
        self._cache[key] = result
        return result

    def _compute(self, node: cst.BaseExpression, scope: Scope) -> Value:
        literal = literal_value(node)
        if literal is not None:
            return literal
        if isinstance(node, cst.Name):
            return self._name(node.value, scope)
        if isinstance(node, cst.Comparison):
            if not all(isinstance(c.operator, ORDERING) for c in node.comparisons):
                return UNKNOWN
            operands = [self.value(node.left, scope), *(self.value(c.comparator, scope) for c in node.comparisons)]
            if all(not v.numeric for v in operands):
                return UNKNOWN
            return Value("bool", all(v.scalar for v in operands))
        if isinstance(node, cst.UnaryOperation):
            inner = self.value(node.expression, scope)
            if isinstance(node.operator, cst.Not):
                return Value("bool", True) if inner.numeric and inner.scalar else UNKNOWN
            if isinstance(node.operator, cst.BitInvert):
                return replace(inner, literal=False) if inner.kind in ("bool", "int", NUMBER) else UNKNOWN
            return replace(inner, literal=False) if inner.kind != "bool" else Value(NUMBER, inner.scalar)
        if isinstance(node, cst.BinaryOperation):
            return self._binary(node, scope)
        if isinstance(node, cst.Call):
            return self._call(node, scope)
        if isinstance(node, cst.Attribute):
            return self._attribute(node, scope)
        if isinstance(node, cst.Subscript):
            base = self.value(node.value, scope)
            return Value(base.kind) if base.numeric and not base.weak else UNKNOWN
        if isinstance(node, cst.IfExp):
            return join([self.value(node.body, scope), self.value(node.orelse, scope)])
        return UNKNOWN

    def _name(self, name: str, scope: Scope) -> Value:
        found, bindings = scope.lookup(name)
        if found is None or not bindings:
            return UNKNOWN
        values = []
        for binding in bindings:
            if isinstance(binding, ParamBinding):
                values.append(_param_value(binding.param))
            elif isinstance(binding, ValueBinding) and not binding.augmented:
                values.append(replace(self.value(binding.value, found), literal=False))
            else:
                return UNKNOWN
        first = values[0]
        if all(v == first for v in values):
            return first
        if all(v.numeric for v in values):
            return Value(NUMBER, all(v.scalar for v in values))
        return UNKNOWN

    def _binary(self, node: cst.BinaryOperation, scope: Scope) -> Value:
        left, right = self.value(node.left, scope), self.value(node.right, scope)
        if not (left.numeric and right.numeric):
            return UNKNOWN  # `[0] * n` repeats a list
        operator = node.operator
        if isinstance(operator, (cst.BitAnd, cst.BitOr, cst.BitXor, cst.LeftShift, cst.RightShift)):
            joined = join([left, right])
            return joined if joined.kind in ("bool", "int", NUMBER) else UNKNOWN
        if isinstance(operator, cst.MatrixMultiply):
            return Value(join([left, right]).kind)
        joined = join([left, right])
        if isinstance(operator, cst.Divide):
            if joined.kind in ("bool", "int"):
                return Value("float", joined.scalar, joined.weak)
            return joined
        if joined.kind == "bool" or (isinstance(operator, cst.Power) and joined.kind == "int"):
            return Value(NUMBER, joined.scalar)  # True + True, 2 ** -1: the kind depends on the values
        return joined

    def _attribute(self, node: cst.Attribute, scope: Scope) -> Value:
        attr = node.attr.value
        if attr in ("ndim", "size") and self.resolver.qualname(node, scope) is None:
            return Value("int", True, True)
        base = self.value(node.value, scope)
        if not base.numeric or base.weak:
            return UNKNOWN
        if attr in ("T", "mT"):
            return Value(base.kind)
        if attr in ("real", "imag"):
            kind = "float" if base.kind == "complex" else base.kind
            return Value(kind, base.scalar)
        return UNKNOWN

    def _call(self, node: cst.Call, scope: Scope) -> Value:
        func = node.func
        qualname = self.resolver.qualname(func, scope)
        args = [a for a in node.args if not a.star]
        if len(args) != len(node.args):
            return UNKNOWN
        positional = [a.value for a in args if a.keyword is None]
        alone = len(args) == 1 and args[0].keyword is None
        if qualname is not None and (is_numpy(qualname) or qualname.startswith("jax.numpy.")):
            short = qualname.rsplit(".", 1)[-1]
            if qualname.endswith("linalg.norm"):
                return Value("float", alone)
            return self._function(short, positional, alone, args, scope)
        if qualname is not None and qualname.startswith("builtins."):
            short = qualname[len("builtins."):]
            if short in BUILTIN_KINDS and alone:
                return Value(BUILTIN_KINDS[short], True, True)
            if short == "abs" and alone:
                return self._same(positional[0], scope, keep_scalar=True)
            return UNKNOWN
        if isinstance(func, cst.Attribute) and qualname is None:
            return self._method(func.attr.value, func.value, args, positional, scope)
        return UNKNOWN

    def _same(self, node: cst.BaseExpression, scope: Scope, keep_scalar: bool) -> Value:
        value = self.value(node, scope)
        if not value.numeric:
            return UNKNOWN
        return Value(value.kind, value.scalar and keep_scalar)

    def _function(self, short: str, positional: list, alone: bool, args: list, scope: Scope) -> Value:
        dtype = next((a.value for a in args if a.keyword is not None and a.keyword.value == "dtype"), None)
        if dtype is not None:
            return Value(self._dtype_kind(dtype, scope) or NUMBER)
        if short in DTYPE_KINDS:
            return Value(DTYPE_KINDS[short], alone and self.value(positional[0], scope).scalar) if alone else UNKNOWN
        if short in ALWAYS_SCALAR_BOOL:
            return Value("bool", True)
        if short in ("zeros", "ones", "empty") and alone:
            shape = positional[0]
            return Value("float", isinstance(shape, cst.Tuple) and not shape.elements)
        if not positional:
            return UNKNOWN
        first = self.value(positional[0], scope)
        if short in BOOL_FUNCTIONS or short in BOOL_REDUCTIONS:
            scalar = alone if short in BOOL_REDUCTIONS else all(self.value(p, scope).scalar for p in positional) and len(positional) == len(args)
            return Value("bool", scalar)
        if short in INDEX_REDUCTIONS:
            return Value("int", alone)
        if short in SAME_KIND_REDUCTIONS:
            return Value(first.kind if first.numeric else NUMBER, alone)
        if short in SUM_REDUCTIONS:
            kind = "int" if first.kind in ("bool", "int") else (first.kind if first.numeric else NUMBER)
            return Value(kind, alone)
        if short in MEAN_REDUCTIONS:
            return Value(_inexact(first), alone)
        if short in FLOAT_FUNCTIONS:
            return Value(_inexact(first), alone and first.scalar)
        if short in ("abs", "absolute"):
            kind = "float" if first.kind == "complex" else (first.kind if first.numeric else NUMBER)
            return Value(kind, alone and first.scalar)
        if short in SAME_KIND_FUNCTIONS:
            kind = first.kind if first.numeric and alone else NUMBER  # np.asarray(x, np.float32): a dtype
            return Value(kind, alone and first.scalar)
        if short in JOIN_FUNCTIONS and len(positional) == len(args):
            operands = [self.value(p, scope) for p in (positional[1:] if short == "where" else positional)]
            joined = join(operands) if all(v.numeric for v in operands) else Value(NUMBER)
            scalar = short in SCALAR_JOIN_FUNCTIONS or (joined.scalar and short not in ("dot", "inner", "matmul"))
            return Value(joined.kind, scalar and (short != "where" or first.scalar))
        return UNKNOWN

    def _method(self, method: str, base_node: cst.BaseExpression, args: list, positional: list, scope: Scope) -> Value:
        base = self.value(base_node, scope)
        if base.weak:
            return UNKNOWN  # a Python number has no array methods
        kind = base.kind if base.numeric else NUMBER
        alone = not args
        if method in BOOL_REDUCTIONS:
            return Value("bool", alone)
        if method in ("argmax", "argmin"):
            return Value("int", alone)
        if method in ("max", "min", "ptp"):
            return Value(kind, alone)
        if method in ("sum", "prod"):
            return Value("int" if kind in ("bool", "int") else kind, alone)
        if method in ("mean", "std", "var"):
            return Value(_inexact(base), alone)
        if method == "astype" and len(positional) == 1:
            return Value(self._dtype_kind(positional[0], scope) or NUMBER, base.scalar)
        if method in SHAPE_METHODS:
            return Value(kind, base.scalar and method in ("copy", "round", "conj", "conjugate"))
        if method in ("clip", "dot"):
            operands = [base, *(self.value(p, scope) for p in positional)]
            return Value(join(operands).kind if all(v.numeric for v in operands) else NUMBER)
        return UNKNOWN

    def _dtype_kind(self, node: cst.BaseExpression, scope: Scope) -> str | None:
        qualname = self.resolver.qualname(node, scope) or ""
        short = qualname.rsplit(".", 1)[-1]
        if qualname.startswith("builtins."):
            return BUILTIN_KINDS.get(short)
        if is_numpy(qualname) or qualname.startswith("jax.numpy."):
            return DTYPE_KINDS.get(short)
        if isinstance(node, cst.SimpleString):
            text = node.evaluated_value
            return DTYPE_KINDS.get(text) if isinstance(text, str) else None
        return None


def _code(node: cst.CSTNode) -> str:
    return cst.Module([]).code_for_node(node)


def _inexact(argument: Value) -> str:
    """The kind of np.mean / np.sqrt of ``argument``: a float, unless we know it is complex.

    Taking an unknown array for a real one is safe here: a complex result beside a
    float branch makes ``jax.lax.cond`` raise when tracing, it cannot differ silently.
    """
    return "complex" if argument.kind == "complex" else "float"


def _param_value(param: cst.Param) -> Value:
    annotation = param.annotation.annotation if param.annotation is not None else None
    if isinstance(annotation, cst.Name) and annotation.value in BUILTIN_KINDS:
        return Value(BUILTIN_KINDS[annotation.value], True, True)
    return UNKNOWN
