from __future__ import annotations

import libcst as cst

from np2jax.analysis.dtype_sources import dtype_argument, runtime_dtype
from np2jax.analysis.loops import all_names, contains, descendants
from np2jax.analysis.value_kinds import NUMBER, ValueClassifier
from np2jax.analysis.narrow_dtypes import made_dtype
from np2jax.analysis.scope import LoopBinding, ParamBinding, Scope, ValueBinding
from np2jax.context import FileContext, runs_on_jax_arrays
from np2jax.cstutil import number_literal
from np2jax.diagnostics import Severity
from np2jax.rule import Example, RuleDoc
from np2jax.rules.hazard import HazardRule

INT32_MAX = 2**31 - 1
PRODUCT_FUNCTIONS = frozenset({"prod", "cumprod", "nanprod", "nancumprod", "linalg.matrix_power"})
SUM_FUNCTIONS = frozenset({"sum", "cumsum", "nansum", "nancumsum"})


class Int32Overflow(HazardRule):
    CODE = "NPJ115"
    NAME = "int32-overflow"
    MESSAGE = "{what} of integers: int64 in NumPy, int32 under JAX, where it wraps past 2**31 - 1"
    CAST_MESSAGE = (
        "cast of `{data}` (scaled by {factor}) to the default integer: int64 in NumPy, int32 under JAX, where values "
        "past 2**31 - 1 do not fit (they saturate)"
    )
    SEVERITY = Severity.WARNING
    DOC = RuleDoc(
        what=(
            "Reports integer arithmetic on run-time values that can outgrow int32: products (`np.prod`, "
            "`np.cumprod`, `np.linalg.matrix_power` (walks counted on an adjacency matrix), `a * b` of two integer arrays, a run-time integer times constants whose product is at "
            "least 2**15, `i * 86400 * 1000`, also with `i` the index of a loop that becomes `jax.lax.fori_loop`, "
            "an int32 there where Python's int never overflows), integer powers, sums of `np.arange`, hash-like "
            "accumulations (`h = h * 31 + c`) and integer constants that do not fit in int32 (also `np.iinfo(np.int64).max`, "
            "a common sentinel); and comparisons of an "
            "array whose dtype is chosen at run time (`x.astype(dtype)`, `np.arange(n, dtype=d)`) with a Python int "
            "(`x.astype(dtype) == x`, `t[-1] != n - 1`: overflow checks of dtype-generic code), which jax.numpy makes "
            "after converting the int to that dtype (`int8 == 300` is True there); and casts to the default integer "
            "(`.astype(int)`, also after `np.round`/`np.floor`) of a value scaled by constants whose product is at least "
            "2**15 (`(t * 1e9).astype(int)`: nanoseconds), which saturate at 2**31 - 1 under JAX."
        ),
        why=(
            "NumPy's default integer is int64 on Linux and macOS; JAX's is int32 unless `jax_enable_x64` is on, "
            "and integer overflow wraps silently (`jnp.prod(jnp.arange(1, 14))` is 1932053504, not 6227020800). "
            "Constants above 2**31 - 1 raise OverflowError when they meet an int32 array."
        ),
        use_instead='jax.config.update("jax_enable_x64", True), or compute in float (x.astype(jnp.float32)) when exact integers are not needed',
        known_problems=(
            "Only expressions with evidence of being integers are checked (`dtype=int`, `.astype(int)`, `np.arange` "
            "with integer bounds, `np.argmax`, `//` ...); an argument of unknown dtype is reported only in a product "
            "(`np.prod(x)`, `np.cumprod(x)`: worded as conditional on integers), where int32 wraps soonest. Explicit `np.int64` dtypes are NPJ107's. Arithmetic of Python ints only (`int(...)`, `len(...)`, "
            "the index of a `range` loop that stays a Python loop, `fact *= k` with `fact = 1`) is not reported: "
            "it stays Python ints in the migrated code."
        ),
    )
    EXAMPLES = (
        Example(
            title="hunt44: walks counted with a matrix power (an integer adjacency matrix: 2.5e10 walks of length 16 on K6)",
            before="""
            import numpy as np

            def walk_counts(adj, k=3):
                return np.linalg.matrix_power(adj, k)
            """,
            after="""
            import jax.numpy as jnp

            def walk_counts(adj, k=3):
                return jnp.linalg.matrix_power(adj, k)
            """,
            diagnostics=("NPJ115",),
        ),
        Example(
            before="""
            import numpy as np

            def factorials(n):
                return np.cumprod(np.arange(1, n + 1))

            def pair_counts(counts):
                c = np.round(counts).astype(int)
                return np.sum(c * (c - 1) // 2)
            """,
            after="""
            import jax.numpy as jnp

            def factorials(n):
                return jnp.cumprod(jnp.arange(1, n + 1))

            def pair_counts(counts):
                c = jnp.round(counts).astype(int)
                return jnp.sum(c * (c - 1) // 2)
            """,
            diagnostics=("NPJ115", "NPJ115"),
        ),
        Example(
            title="index arithmetic and float products are not reported",
            before="""
            import numpy as np

            def flat_peak(x, ncols):
                k = np.argmax(x)
                return k // ncols, k % ncols, np.prod(x * 2.0), np.sum(x > 0)
            """,
            after="""
            import jax.numpy as jnp

            def flat_peak(x, ncols):
                k = jnp.argmax(x)
                return k // ncols, k % ncols, jnp.prod(x * 2.0), jnp.sum(x > 0)
            """,
        ),
        Example(
            title="a cast to the default integer of a value scaled by a large constant",
            before="""
            import numpy as np

            def to_nanoseconds(t):
                return np.round(t * 1e9).astype(int)
            """,
            after="""
            import jax.numpy as jnp

            def to_nanoseconds(t):
                return jnp.round(t * 1e9).astype(int)
            """,
            diagnostics=("NPJ115",),
        ),
    )

    UNKNOWN_MESSAGE = (
        "`{what}` of `{data}`, whose dtype is not known here: if it holds integers, they multiply in int64 in NumPy "
        "and in int32 under JAX, where the product wraps past 2**31 - 1"
    )
    NODE_TYPES = frozenset({cst.Call, cst.BinaryOperation, cst.AugAssign, cst.Comparison, cst.Attribute})
    COMPARISON_MESSAGE = (
        "`{array}` has a narrow or run-time integer dtype and is compared with the Python int `{number}`: jax.numpy first "
        "converts the int to that dtype (300 becomes 44 in int8, so `== 300` is True), NumPy compares exactly"
    )

    def check(self, node: cst.CSTNode, scope: Scope, ctx: FileContext) -> None:
        values = ctx.values
        if isinstance(node, cst.Attribute):
            if _wide_limit(node, scope, ctx):  # `INF = np.iinfo(np.int64).max // 2`: a sentinel no int32 holds
                self.report(ctx, node, self.MESSAGE.format(what=f"`{ctx.code(node).strip()}` (beyond int32)"), exact=True)
            return
        if isinstance(node, cst.Comparison):
            self._dtype_comparison(node, scope, ctx)
            return
        if isinstance(node, cst.Call):
            scaled = _scaled_cast(node, ctx, scope)
            if scaled is not None:
                data = cst.Module([]).code_for_node(scaled[0].with_changes(lpar=[], rpar=[]))
                self.report(ctx, node, self.CAST_MESSAGE.format(data=data, factor=f"{scaled[1]:g}"), exact=True)
                return
            data = self._reduced(node, scope, ctx)
            if data is None or _static(ctx, data[0], scope):
                return
            if not values.is_integer(data[0], scope):
                if data[1] in PRODUCT_FUNCTIONS and self._on_jax(node, ctx) and self._unknown_kind(data[0], scope, ctx):
                    self.report(ctx, node, self.UNKNOWN_MESSAGE.format(what=data[1], data=ctx.code(data[0]).strip()), exact=True)
                return
            name, argument = data[1], data[0]
            if name in PRODUCT_FUNCTIONS:
                self.report(ctx, node, self.MESSAGE.format(what=f"`{name}`"), exact=True)
            elif name in SUM_FUNCTIONS and _is_arange(argument, scope, ctx):
                self.report(ctx, node, self.MESSAGE.format(what=f"`{name}` of an `arange`"), exact=True)
        elif isinstance(node, cst.BinaryOperation) and not _static(ctx, node, scope) and (
                # a constant beyond int32 meets a JAX array of any dtype with OverflowError (without x64)
                values.is_integer(node, scope) or _too_big(node.left) or _too_big(node.right)):
            what = self._risky_operation(node, scope, ctx)
            if what is not None:
                self.report(ctx, node, self.MESSAGE.format(what=what), exact=True)
        elif isinstance(node, cst.AugAssign) and isinstance(node.operator, (cst.MultiplyAssign, cst.PowerAssign)):
            if values.is_integer(node.target, scope) and not _static(ctx, node.target, scope) and not _plain_int(node.target, scope, ctx):
                self.report(ctx, node, self.MESSAGE.format(what="a running product"), exact=True)

    def _dtype_comparison(self, node: cst.Comparison, scope: Scope, ctx: FileContext) -> None:
        """``x.astype(dtype) == x``, ``np.arange(n, dtype=d)[-1] != n - 1``: overflow checks of dtype-generic code."""
        if len(node.comparisons) != 1 or isinstance(node.comparisons[0].operator, (cst.Is, cst.IsNot, cst.In, cst.NotIn)):
            return
        sides = (node.left, node.comparisons[0].comparator)
        for array, number in (sides, sides[::-1]):
            if not runtime_dtype(array, scope, ctx.resolver, narrow=True):
                continue
            literal = _literal_int(number)
            if literal is not None and not _outside(literal, _narrow_name(array, scope, ctx)):
                continue  # `img == 255` on uint8: in range, compared exactly
            if literal is not None or _python_int(number, scope, ctx):
                self.report(ctx, node, self.COMPARISON_MESSAGE.format(array=ctx.code(array).strip(), number=ctx.code(number).strip()),
                            use_instead="compare in a wide type: x.astype(jnp.int64) == n (with x64), or check the range with jnp.iinfo(dtype)",
                            exact=True)
                return

    @staticmethod
    def _on_jax(node: cst.Call, ctx: FileContext) -> bool:
        """``jnp.prod(x)`` after the rewrite, or ``x.prod()`` in a function that runs on JAX arrays."""
        return node in ctx.jax_calls or (isinstance(node.func, cst.Attribute) and runs_on_jax_arrays(ctx.function, ctx))

    def _unknown_kind(self, data: cst.BaseExpression, scope: Scope, ctx: FileContext) -> bool:
        """``np.prod(x)`` of a parameter (or what is computed from one) whose dtype kind nothing tells: an integer
        array passed in multiplies in int32 under JAX."""
        classifier = ctx.resolver.memo.get("int32_overflow_kinds")
        if classifier is None:
            classifier = ctx.resolver.memo["int32_overflow_kinds"] = ValueClassifier(ctx.resolver)
        return classifier.value(data, scope).kind in (None, NUMBER, "int") and not ctx.values.is_float(data, scope)

    @staticmethod
    def _reduced(node: cst.Call, scope: Scope, ctx: FileContext) -> tuple[cst.BaseExpression, str] | None:
        """``np.prod(a)`` / ``a.prod()`` -> (a, "prod") for products and sums."""
        qualname = ctx.resolver.qualname(node.func, scope)
        names = PRODUCT_FUNCTIONS | SUM_FUNCTIONS
        if qualname is not None and qualname.startswith("numpy.") and qualname[len("numpy."):] in names:
            positional = [arg.value for arg in node.args if arg.keyword is None]
            return (positional[0], qualname[len("numpy."):]) if positional else None
        if qualname is None and isinstance(node.func, cst.Attribute) and node.func.attr.value in names:
            return node.func.value, node.func.attr.value
        return None

    def _risky_operation(self, node: cst.BinaryOperation, scope: Scope, ctx: FileContext) -> str | None:
        for side in (node.left, node.right):
            if _too_big(side):
                return f"`{ctx.code(side).strip()}` (beyond int32) in arithmetic"
        if _plain_int(node, scope, ctx):
            return None  # `s * step` of a `range` index and an `int(...)`: Python ints in NumPy and under jit alike
        runtime = [not _static(ctx, side, scope) and not _index_like(side, scope, ctx, 0) for side in (node.left, node.right)]
        if isinstance(node.operator, cst.Power) and runtime[0] and not _small_exponent(node.right):
            return "a power"
        if isinstance(node.operator, cst.Power) and runtime[1]:
            return "a power"
        if isinstance(node.operator, (cst.Multiply, cst.LeftShift)):
            if all(_narrow_array(side, scope, ctx) for side in (node.left, node.right)):
                return None  # `s[1:] * s[:-1]` of int8 arrays: int8 in NumPy and JAX alike
            if all(runtime) and not any(isinstance(side, cst.Comparison) for side in (node.left, node.right)):
                return "a product"
            if isinstance(node.operator, cst.Multiply) and not _static(ctx, node, scope) and _constant_factor(node) >= LARGE_FACTOR and all(
                    _constant_factor(side) < LARGE_FACTOR for side in (node.left, node.right) if not _static(ctx, side, scope)):
                return "a product with a large constant"  # `i * 86400 * 1000` (a fori_loop index is int32 too)
            if _accumulates(node, scope):
                return "a running product"
        return None


WIDE_INTEGERS = frozenset({"numpy.int64", "numpy.uint64", "numpy.uint32", "numpy.longlong", "numpy.ulonglong", "numpy.intp", "numpy.uintp"})


def _wide_limit(node: cst.Attribute, scope: Scope, ctx: FileContext) -> bool:
    """``np.iinfo(np.int64).max`` (``.min``; also of ``'int64'``, ``np.uint32``): a limit outside int32, which
    jax.numpy refuses (OverflowError) or wraps without x64."""
    call = node.value
    if node.attr.value not in ("max", "min") or not isinstance(call, cst.Call) or len(call.args) != 1:
        return False
    if ctx.resolver.qualname(call.func, scope) != "numpy.iinfo":
        return False
    dtype = call.args[0].value
    if isinstance(dtype, cst.SimpleString):
        return dtype.evaluated_value in ("int64", "uint64", "uint32", "i8", "u8", "u4", "<i8", "<u8")
    if node.attr.value == "min" and (ctx.resolver.qualname(dtype, scope) or "").startswith("numpy.uint"):
        return False  # 0
    return ctx.resolver.qualname(dtype, scope) in WIDE_INTEGERS


def _static(ctx: FileContext, node: cst.BaseExpression, scope: Scope) -> bool:
    return ctx.resolver.is_static(node, scope)


def _too_big(node: cst.BaseExpression) -> bool:
    if isinstance(node, cst.Integer):
        return abs(node.evaluated_value) > INT32_MAX
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, (cst.Power, cst.LeftShift)):
        if isinstance(node.left, cst.Integer) and isinstance(node.right, cst.Integer) and node.right.evaluated_value < 200:
            value = node.left.evaluated_value ** node.right.evaluated_value if isinstance(node.operator, cst.Power) \
                else node.left.evaluated_value << node.right.evaluated_value
            return abs(value) > INT32_MAX
    return False


LARGE_FACTOR = 2 ** 15  # a run-time int of 65536 (an index into a modest array) times it passes 2**31
DEFAULT_INTEGERS = frozenset({"builtins.int", "numpy.int_", "numpy.intp", "numpy.long"})
ROUNDING = frozenset({"round", "around", "rint", "floor", "ceil", "trunc", "fix"})


def _scaled_cast(node: cst.Call, ctx: FileContext, scope: Scope) -> tuple[cst.BaseExpression, float] | None:
    """``(t * 1e9).astype(int)``, ``np.round(x * 65536).astype(int)``: a cast to the default integer of a value
    scaled by constants whose product is at least 2**15 (the data, the factor)."""
    func = node.func
    if not (isinstance(func, cst.Attribute) and func.attr.value == "astype" and node.args):
        return None
    dtype = node.args[0].value
    if isinstance(dtype, cst.SimpleString):
        if dtype.evaluated_value not in ("int", "int_", "intp", "long"):
            return None
    elif ctx.resolver.qualname(dtype, scope) not in DEFAULT_INTEGERS:
        return None
    data = func.value
    while True:  # through the rounding before it
        if isinstance(data, cst.Call) and data.args:
            qualname = ctx.resolver.qualname(data.func, scope) or ""
            if qualname.startswith("numpy.") and qualname[len("numpy."):] in ROUNDING:
                data = data.args[0].value
                continue
            if isinstance(data.func, cst.Attribute) and data.func.attr.value == "round" and qualname == "":
                data = data.func.value
                continue
        if isinstance(data, cst.Call) and not data.args and isinstance(data.func, cst.Attribute) and data.func.attr.value == "round":
            data = data.func.value
            continue
        break
    factor = _numeric_factor(data)
    return (data, factor) if factor >= LARGE_FACTOR else None


def _numeric_factor(node: cst.BaseExpression) -> float:
    """The product of the number literals of a chain of multiplications (``t * 1e9``: 1e9)."""
    if isinstance(node, (cst.Integer, cst.Float)):
        return abs(float(node.evaluated_value))
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Multiply):
        return _numeric_factor(node.left) * _numeric_factor(node.right)
    return 1.0


def _constant_factor(node: cst.BaseExpression) -> int:
    """The product of the integer literals of a chain of multiplications (``i * 86400 * 1000``: 86400000)."""
    if isinstance(node, cst.Integer):
        return abs(int(node.evaluated_value))
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Multiply):
        return _constant_factor(node.left) * _constant_factor(node.right)
    return 1


def _small_exponent(node: cst.BaseExpression) -> bool:
    """``x ** 2``: overflows only past 46340, like a product of two values already checked elsewhere."""
    return False if not isinstance(node, cst.Integer) else node.evaluated_value <= 1


def _accumulates(node: cst.BinaryOperation, scope: Scope) -> bool:
    """``h * 31`` inside the value that ``h`` is rebound to (``h = h * 31 + c``): a hash or running product."""
    if not isinstance(node.left, cst.Name):
        return False
    name = node.left.value
    _, bindings = scope.lookup(name)
    return len(bindings) > 1 and any(
        isinstance(b, ValueBinding) and contains(b.value, node) for b in bindings
    )


INDEX_FUNCTIONS = frozenset({"arange", "argmax", "argmin", "argsort", "searchsorted", "digitize", "indices"})
SHAPING_METHODS = frozenset({"reshape", "ravel", "flatten", "T", "squeeze", "transpose"})


def _index_like(node: cst.BaseExpression, scope: Scope, ctx: FileContext, depth: int) -> bool:
    """Positions in an array (``np.arange(n)``, ``np.argmax(x)``, reshaped): a product of two of them is
    bounded by the number of elements of an array that fits in memory."""
    if depth > 6:
        return False
    if isinstance(node, cst.Name):
        found, bindings = scope.lookup(node.value)
        return bool(bindings) and all(
            isinstance(b, ValueBinding) and _index_like(b.value, found, ctx, depth + 1) for b in bindings
        )
    if isinstance(node, cst.Attribute) and node.attr.value in SHAPING_METHODS:
        return _index_like(node.value, scope, ctx, depth + 1)
    if not isinstance(node, cst.Call):
        return False
    qualname = ctx.resolver.qualname(node.func, scope)
    if qualname is None and isinstance(node.func, cst.Attribute):
        return node.func.attr.value in SHAPING_METHODS and _index_like(node.func.value, scope, ctx, depth + 1)
    return qualname is not None and qualname.startswith("numpy.") and qualname[len("numpy."):] in INDEX_FUNCTIONS


def _is_arange(node: cst.BaseExpression, scope: Scope, ctx: FileContext) -> bool:
    if isinstance(node, cst.Name):
        _, bindings = scope.lookup(node.value)
        return len(bindings) == 1 and isinstance(bindings[0], ValueBinding) and _is_arange(bindings[0].value, scope, ctx)
    return isinstance(node, cst.Call) and ctx.resolver.qualname(node.func, scope) == "numpy.arange"


def _literal_int(node: cst.BaseExpression) -> int | None:
    value = number_literal(node)
    return value if isinstance(value, int) else None


_RANGES = {"int8": (-128, 127), "byte": (-128, 127), "int16": (-32768, 32767), "short": (-32768, 32767),
           "uint8": (0, 255), "ubyte": (0, 255), "uint16": (0, 65535), "ushort": (0, 65535),
           "uint32": (0, 2**32 - 1), "uintc": (0, 2**32 - 1), "uint64": (0, 2**64 - 1)}


def _outside(value: int, dtype: str | None) -> bool:
    """Outside ``dtype``'s range (a dtype chosen at run time: outside int8's)."""
    low, high = _RANGES.get(dtype or "int8", (-128, 127))
    return not low <= value <= high


NARROW_INTEGER_NAMES = frozenset({"int8", "int16", "uint8", "uint16", "byte", "short", "ubyte", "ushort"})


def _narrow_array(node: cst.BaseExpression, scope: Scope, ctx: FileContext) -> bool:
    """An int8/int16/uint8/uint16 array (or a slice or element of one), by the dtype it is made with: products of
    two keep that dtype in NumPy and in JAX (and wrap alike)."""
    while isinstance(node, cst.Subscript):
        node = node.value
    if isinstance(node, cst.Name):
        return made_dtype(node.value, scope, ctx.resolver) in NARROW_INTEGER_NAMES
    return False


def _narrow_name(node: cst.BaseExpression, scope: Scope, ctx: FileContext) -> str | None:
    """The narrow NumPy integer dtype ``node`` is made with (``dtype=np.uint8``), when it is one literally."""
    while isinstance(node, cst.Subscript):
        node = node.value
    if isinstance(node, cst.Name):
        _, bindings = scope.lookup(node.value)
        values = [b.value for b in bindings if isinstance(b, ValueBinding) and not b.augmented]
        node = values[0] if len(values) == 1 else node
    dtype = dtype_argument(node)
    if isinstance(dtype, cst.SimpleString):
        return dtype.evaluated_value
    qualname = ctx.resolver.qualname(dtype, scope) if dtype is not None else None
    return qualname[len("numpy."):] if qualname and qualname.startswith("numpy.") else None


# Python's own calls that return a Python int whatever they are given (or raise): never an int32 array.
PLAIN_INT_CALLS = frozenset({"builtins.int", "builtins.len"})
PLAIN_INT_OPERATORS = (cst.Add, cst.Subtract, cst.Multiply, cst.FloorDivide, cst.Modulo, cst.Power)


def _plain_int(node: cst.BaseExpression, scope: Scope, ctx: FileContext, depth: int = 0) -> bool:
    """``node`` is a Python int at run time, in NumPy and in the migrated code alike (so never an int32 that
    wraps): an int literal, ``int(...)``/``len(...)``, the index of a ``range`` loop that stays a Python loop, a
    name every binding of which is one (``fact = 1`` then ``fact *= k``), their sums and products."""
    if depth > 8:
        return False
    if isinstance(node, cst.Integer):
        return True
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, PLAIN_INT_OPERATORS):
        return _plain_int(node.left, scope, ctx, depth + 1) and _plain_int(node.right, scope, ctx, depth + 1)
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, (cst.Minus, cst.Plus)):
        return _plain_int(node.expression, scope, ctx, depth + 1)
    if isinstance(node, cst.Call):
        return ctx.resolver.qualname(node.func, scope) in PLAIN_INT_CALLS and len(node.args) == 1
    if not isinstance(node, cst.Name):
        return False
    found, bindings = scope.lookup(node.value)
    if found is None or found.kind != "function" or not bindings or node.value in _loop_carried(found.node, ctx):
        return False
    for binding in bindings:
        if isinstance(binding, ValueBinding):
            if not _plain_int(binding.value, found, ctx, depth + 1):
                return False
        elif isinstance(binding, LoopBinding):
            iterable = binding.iterable
            if binding.position or iterable in ctx.resolver.traced_loops or not (
                    isinstance(iterable, cst.Call) and ctx.resolver.qualname(iterable.func, found) == "builtins.range"):
                return False  # a fori_loop index is an int32 tracer
        else:
            return False
    return True


def _loop_carried(function: cst.CSTNode, ctx: FileContext) -> frozenset[str]:
    """The names used in the body of a loop of ``function`` that may become a fori_loop, scan or while_loop
    (a carry there is an int32 tracer, whatever its first value)."""
    traced = ctx.resolver.traced_loops
    memo = ctx.resolver.memo.setdefault("loop_carried", {})
    key = (function, len(traced))
    if key not in memo:
        memo[key] = frozenset(
            name.value for loop in descendants(function)
            if isinstance(loop, cst.While) or (isinstance(loop, cst.For) and loop.iter in traced)
            for name in all_names(loop.body))
    return memo[key]


def _python_int(node: cst.BaseExpression, scope: Scope, ctx: FileContext) -> bool:
    """A Python int that may lie outside a narrow dtype, not a literal: a value known at trace time (``n - 1``,
    ``len(x)``) or a parameter compared as an int."""
    if ctx.values.is_float(node, scope):
        return False
    if ctx.resolver.is_static(node, scope):
        return True
    if isinstance(node, cst.Name):
        return any(isinstance(b, ParamBinding) for b in scope.lookup(node.value)[1])
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, (cst.Add, cst.Subtract, cst.Multiply)):
        return all(_python_int(side, scope, ctx) or isinstance(side, cst.Integer) for side in (node.left, node.right))
    return False
