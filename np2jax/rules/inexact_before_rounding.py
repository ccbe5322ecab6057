"""NPJ120: a last-bit difference of XLA's math turned into an off-by-one by rounding.

Measured with jax 0.10 on CPU, float64 (``jax_enable_x64``), against NumPy:
``jnp.log2`` is off at 14 of the powers 2**0..2**59 (``log2(8.0)`` is
2.9999999999999996), ``jnp.log10(1e15)`` is 14.999999999999998,
``jnp.cbrt(27.0)`` is 3.0000000000000004, ``jnp.exp2`` misses 92 of the
integers -50..59, ``x ** (1/3)`` 20 of the first 299 cubes, and a division of
an array by a broadcast value (``x / 49.0``, ``x / step``, ``a / b[:, None]``)
becomes a multiplication by the reciprocal, so ``(49 * k) / 49`` is below ``k``
for half of the ``k`` (``[49.0] / 49`` is 0.9999999999999999).  Without x64 float32 has the same kind of misses
(``jnp.log2(8192.0)`` is 12.999999).  ``log``, ``exp`` of integers that stay
integers, ``sqrt``, integer powers, ``//`` and divisions of same-shape arrays
agree.  Each miss is one unit in the last place: harmless, until a floor,
ceil, ``int()``, integer ``astype``, ``//``, ``%`` or ``==`` turns it into a
different integer or a different answer.
"""

from __future__ import annotations

import libcst as cst

from np2jax.analysis.param_hints import int_like
from np2jax.analysis.callees import callees
from np2jax.analysis.loops import descendants
from np2jax.analysis.values import nodes_of
from np2jax.analysis.scope import DefBinding, ImportBinding, ParamBinding, Scope, ValueBinding
from np2jax.context import FileContext
from np2jax.diagnostics import Severity
from np2jax.rule import Example, RuleDoc
from np2jax.rules.astype_narrowing import integer_writes
from np2jax.rules.hazard import HazardRule

# NumPy functions XLA does not round correctly, with what to write instead.
INEXACT_FUNCTIONS = {
    "log2": "jnp.frexp(x)[1] - 1 for floor(log2(x)) of x > 0 (exact), or int(n).bit_length() - 1 for a Python int",
    "log10": "compare with powers of ten (jnp.sum(x >= 10.0 ** jnp.arange(k))), or round with a margin",
    "cbrt": "jnp.round(jnp.cbrt(x)) when the root is known to be whole, or a margin before rounding",
    "exp2": "jnp.ldexp(1.0, k) for integer k (exact)",
    "linspace": "integer arithmetic for grid positions: jnp.arange(m) * (n - 1) // (m - 1) (exact), or round with a margin",
    "cross": "a tolerance: jnp.linalg.norm(c) <= 1e-12 * jnp.linalg.norm(a) * jnp.linalg.norm(b), not an exact zero test",
    "geomspace": "compute the integer positions with integer arithmetic, or round with a margin",
    "logspace": "compute the integer positions with integer arithmetic, or round with a margin",
    **dict.fromkeys(("std", "var", "nanstd", "nanvar"), "a tolerance: sd <= 1e-12 * jnp.abs(x).max(), or jnp.ptp(x) == 0 for "
                    "constant data (max and min are exact), not an exact test of the spread"),
}
SPREADS = frozenset({"std", "var", "nanstd", "nanvar"})
SPACING = frozenset({"linspace", "geomspace", "logspace"})  # inexact only when jax.numpy computes them
POWER_FUNCTIONS = frozenset({"power", "float_power"})
ROUNDING_FUNCTIONS = frozenset({
    "numpy.floor", "numpy.ceil", "numpy.trunc", "numpy.fix", "numpy.rint", "numpy.round", "numpy.around",
    "math.floor", "math.ceil", "math.trunc", "builtins.int", "builtins.round",
})
ROUNDING_METHODS = frozenset({"round", "is_integer"})
# Calls that test values for exact zeros (`np.count_nonzero(np.cross(a, b)) == 0`: parallel vectors).
ZERO_TESTS = frozenset({"numpy.count_nonzero", "numpy.nonzero", "numpy.flatnonzero", "numpy.argwhere", "numpy.any",
                        "numpy.all", "numpy.sign"})
# Calls whose result is inexact when their argument is (and exactly 0 only when it is): `np.linalg.norm(c) == 0`.
MAGNITUDES = frozenset(f"numpy.{name}" for name in ("linalg.norm", "dot", "vdot", "inner", "sum", "sqrt", "square"))
# Calls a value passes through unchanged but for its type (or where it is inside their bounds: `np.clip(v, 0, 1)`).
PASS_THROUGH = frozenset({"numpy.asarray", "numpy.array", "numpy.abs", "numpy.absolute", "builtins.float", "builtins.abs",
                          "numpy.clip"})
_ORDERINGS = (cst.LessThan, cst.LessThanEqual, cst.GreaterThan, cst.GreaterThanEqual)
DIVISION_INSTEAD = "`a // b` (floor division is exact in XLA) instead of floor(a / b), or round with a margin"


class InexactBeforeRounding(HazardRule):
    CODE = "NPJ120"
    NAME = "inexact-before-rounding"
    MESSAGE = "`{expr}` can be one unit in the last place off under XLA ({example}), and {sink} turns that into a different result"
    SEVERITY = Severity.WARNING
    DOC = RuleDoc(
        what=(
            "Reports `np.log2`, `np.log10`, `np.cbrt`, `np.exp2`, `np.cross`, `np.std`/`np.var` (and the methods: XLA's "
            "spread of constant data need not be 0), `np.linspace`/`geomspace`/`logspace` (when "
            "jax.numpy computes them, not on Python values alone), fractional powers (`x ** (1/3)`), true "
            "divisions by a run-time value and float sums of a product (`alpha * a + (1 - alpha) * b`, which jit "
            "fuses into one multiply-add) whose result reaches, directly, through arithmetic or through a local "
            "name, a rounding: `np.floor`/`ceil`/`trunc`/`rint`/`round`, `math.floor`, `int()`, `round()`, an "
            "integer `astype` (also `astype(a.dtype)` of a parameter `a`, an integer cast for integer inputs such "
            "as uint8 images), a write into an array made with an integer dtype or of ints (`img[1:-1] = u + r * lap`, "
            "`np.full(n, 0)`, `np.arange(n)`), `//`, "
            "`%`, `==`/`!=`, an ordering against a literal zero (`if sd > 0:`, `np.cross(u, v) > 0`) or an exact test for zeros (`np.count_nonzero`, `np.any`, `np.all`, `np.nonzero`, `np.sign`, also of a norm, dot or sum: "
            "`np.count_nonzero(np.cross(a, b)) == 0` for parallel vectors). Also through a function of the module "
            "that returns such a value (`cross(v1, v2)`), reported where the caller rounds or tests it, also in "
            "another module of the project that imports it (`from .norm import minmax`, then `minmax(x) == 1.0`, or "
            "`from . import norm`, then `norm.minmax(x) == 1.0`: project.py's \"inexact\" facts), even when the caller "
            "itself is left as it is or its module does not import NumPy; and through a function a parameter defaults "
            "to (`def best(x, f=minmax): return f(x) == 1.0`, also a lambda) or a method of the class or of a base "
            "class in the module stores in the attribute called (`self.f = f` in `__init__(self, f=norm.minmax)`, "
            "annotated or unpacked from a tuple; a dataclass field's default)."
        ),
        why=(
            "NumPy's `log2(8.0)` is exactly 3.0; XLA's (jax on CPU, float64) is 2.9999999999999996, and "
            "`jnp.log10(1e15)` is 14.999999999999998, `jnp.cbrt(27.0)` 3.0000000000000004. XLA also turns a "
            "division by a broadcast value into a multiplication by its reciprocal: `(49.0 * k) / 49.0` is just "
            "below `k` for half of the integers `k`. One unit in the last place is harmless until it is rounded: "
            "`np.floor(np.log2(n))` is 2 instead of 3, `int(x / step)` lands in the previous bin, silently."
        ),
        use_instead=(
            "an exact formulation: jnp.frexp(x)[1] - 1 for floor(log2(x)) of x > 0, int(n).bit_length() - 1 for "
            "a Python int, a // b for floor(a / b), integer arithmetic, or a margin before rounding "
            "(jnp.floor(v + 1e-9)) when values near whole numbers must round up"
        ),
        known_problems=(
            "A division is reported whenever its divisor is not a power-of-two constant; a division of two arrays "
            "of the same shape is exact in XLA and reported all the same. Orderings (`<`, `>=`) at exact values "
            "and other functions whose results are rarely rounded (`exp`, `tanh`) are not reported. A write into "
            "a copy of a parameter (`new = u.copy(); new[1:-1] = ...`) truncates only for integer inputs and is "
            "not reported."
        ),
    )
    EXAMPLES = (
        Example(
            before="""
            import numpy as np

            def octave(n):
                return int(np.floor(np.log2(n)))

            def bin_index(x, width):
                return np.floor(x / width).astype(int)
            """,
            after="""
            import jax.numpy as jnp

            def octave(n):
                return int(jnp.floor(jnp.log2(n)))

            def bin_index(x, width):
                return jnp.floor(x / width).astype(int)
            """,
            diagnostics=("NPJ120", "NPJ120"),
        ),
        Example(
            title="through a local name and arithmetic",
            before="""
            import numpy as np

            def n_digits(x):
                digits = np.log10(x) + 1
                return np.floor(digits)
            """,
            after="""
            import jax.numpy as jnp

            def n_digits(x):
                digits = jnp.log10(x) + 1
                return jnp.floor(digits)
            """,
            diagnostics=("NPJ120",),
        ),
        Example(
            title="exact operations, unrounded results and Python arithmetic are not reported",
            before="""
            import numpy as np

            def levels(x, n):
                half = int(n / 2)
                return np.floor(np.log(x) + x / 4.0), np.log2(x), x // 3.0, np.floor(np.sqrt(x)), half
            """,
            after="""
            import jax.numpy as jnp

            def levels(x, n):
                half = int(n / 2)
                return jnp.floor(jnp.log(x) + x / 4.0), jnp.log2(x), x // 3.0, jnp.floor(jnp.sqrt(x)), half
            """,
        ),
    )

    NODE_TYPES = frozenset({cst.Call, cst.BinaryOperation, cst.Comparison, cst.Assign, cst.AugAssign})

    def on_leave_function(self, info, ctx: FileContext) -> None:
        self._reported: set[int] = set()
        super().on_leave_function(info, ctx)
        if not info.changed and not info.has_errors(ctx) and any(
                _called_source(node, scope, ctx, 0) is not None for node, scope in nodes_of(info.node, ctx.resolver, _CALLS)):
            # left as it is, it still computes with what a migrated function returns (one of another module, or one
            # handed in as a value: `def best(x, f=minmax)`)
            for node, scope in nodes_of(info.node, ctx.resolver, self.NODE_TYPES):
                self.check(node, scope, ctx)
        if info.changed and info.is_module_level and not info.has_errors(ctx):
            source = _returned_source(info.node.name.value, ctx.resolver.scopes[ctx.module], ctx, 0)
            info.inexact_return = tuple(source[1:]) if source is not None else None

    def check(self, node: cst.CSTNode, scope: Scope, ctx: FileContext) -> None:
        for operand, sink in _rounded_operands(node, scope, ctx):
            source = _inexact_source(operand, scope, ctx, 0)
            if source is None or id(source[0]) in self._reported:
                continue
            inexact, example, use_instead = source
            self._reported.add(id(inexact))
            expr = " ".join(ctx.code(inexact).split())
            message = self.MESSAGE.format(expr=expr if len(expr) <= 50 else expr[:47] + "...", example=example, sink=sink)
            self.report(ctx, inexact, message, use_instead=use_instead, exact=True)


_CALLS = frozenset({cst.Call})


def _imported_name(func: cst.BaseExpression) -> str | None:
    """``minmax`` or ``norm.minmax``: how an "inexact" fact names an imported function (project.py)."""
    if isinstance(func, cst.Name):
        return func.value
    if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name):
        return f"{func.value.value}.{func.attr.value}"
    return None


def _rounded_operands(node: cst.CSTNode, scope: Scope, ctx: FileContext):
    """(operand, how it is rounded) for each operand ``node`` rounds to a whole number or compares exactly."""
    if isinstance(node, cst.Call):
        qualname = ctx.resolver.qualname(node.func, scope)
        positional = [arg.value for arg in node.args if arg.keyword is None]
        if qualname in ROUNDING_FUNCTIONS and positional:
            yield positional[0], f"`{qualname.rsplit('.', 1)[-1]}`"
        elif qualname in ZERO_TESTS and positional:
            yield positional[0], f"`np.{qualname.rsplit('.', 1)[-1]}` (an exact test for zero)"
        elif qualname is None and isinstance(node.func, cst.Attribute):
            method = node.func.attr.value
            integer_cast = method == "astype" and positional and ctx.values.is_integer_dtype(positional[0], scope)
            if integer_cast or (method in ROUNDING_METHODS and not positional):
                yield node.func.value, f"`.{method}`"
            elif method == "astype" and positional and _parameter_dtype(positional[0], scope):
                # `(alpha * a + (1 - alpha) * b).astype(a.dtype)`: an integer cast for integer images
                yield node.func.value, f"`.astype({ctx.code(positional[0]).strip()})` (a truncation when it is an integer dtype)"
    elif isinstance(node, (cst.Assign, cst.AugAssign)):
        for name, dtype in integer_writes(node, scope, ctx):  # `img[1:-1] = u + r * lap`, img made uint8
            yield node.value, f"the write into `{name}` (a {dtype} array: a truncation)"
            break
    elif isinstance(node, cst.BinaryOperation) and isinstance(node.operator, (cst.FloorDivide, cst.Modulo)):
        yield node.left, "`//`" if isinstance(node.operator, cst.FloorDivide) else "`%`"
    elif isinstance(node, cst.Comparison):
        for index, target in enumerate(node.comparisons):
            left = node.left if index == 0 else node.comparisons[index - 1].comparator
            if isinstance(target.operator, (cst.Equal, cst.NotEqual)):
                yield left, "`==`"
                yield target.comparator, "`==`"
            elif isinstance(target.operator, _ORDERINGS) and (_literal(left) == 0 or _literal(target.comparator) == 0):
                # `if sd > 0:`: an exact test against zero too (1e-17 is above it, NumPy's exact 0 is not)
                sink = f"`{ctx.code(target.operator).strip()} 0` (an exact test against zero)"
                yield (target.comparator if _literal(left) == 0 else left), sink


def _parameter_dtype(node: cst.BaseExpression, scope: Scope) -> bool:
    """``a.dtype`` of a parameter ``a``: the caller's dtype, an integer one for integer inputs."""
    if not (isinstance(node, cst.Attribute) and node.attr.value == "dtype" and isinstance(node.value, cst.Name)):
        return False
    _, bindings = scope.lookup(node.value.value)
    return any(isinstance(b, ParamBinding) for b in bindings)


def _inexact_source(node: cst.BaseExpression, scope: Scope, ctx: FileContext, depth: int):
    """(node, measured example, use instead) for the inexact operation ``node``'s value comes from, or None."""
    if depth > 8:
        return None
    if isinstance(node, cst.Name):
        found, bindings = scope.lookup(node.value)
        values = [b for b in bindings if isinstance(b, ValueBinding) and not b.augmented]
        for binding in values if len(values) == len(bindings) else ():
            source = _inexact_source(binding.value, found, ctx, depth + 1)
            if source is not None:
                return source
        return None
    if isinstance(node, cst.UnaryOperation):
        return _inexact_source(node.expression, scope, ctx, depth + 1)
    if isinstance(node, cst.BinaryOperation):
        return _binary_source(node, scope, ctx, depth)
    if isinstance(node, cst.Call):
        qualname = ctx.resolver.qualname(node.func, scope) or ""
        positional = [arg.value for arg in node.args if arg.keyword is None]
        name = qualname[len("numpy."):] if qualname.startswith("numpy.") else None
        if name in SPACING | {"cross"} and ctx.resolver.args_static(node, scope):
            return None  # Python values only: it stays NumPy's own call
        if name in INEXACT_FUNCTIONS:
            return node, _EXAMPLES["std" if name in SPREADS else name], INEXACT_FUNCTIONS[name]
        if name in POWER_FUNCTIONS and len(positional) == 2 and _fractional(positional[1]):
            return node, _EXAMPLES["power"], _POWER_INSTEAD
        if (qualname in PASS_THROUGH or qualname in MAGNITUDES) and positional:
            return _inexact_source(positional[0], scope, ctx, depth + 1)
        if not qualname and isinstance(node.func, cst.Attribute) and node.func.attr.value in SPREADS:
            return node, _EXAMPLES["std"], INEXACT_FUNCTIONS["std"]  # `r.std(ddof=1)`
        if not qualname and isinstance(node.func, cst.Attribute) and node.func.attr.value in ("clip", "copy"):
            return _inexact_source(node.func.value, scope, ctx, depth + 1)  # `minmax(x).clip(0, 1)`: as `np.clip`
        if not qualname or _imported_name(node.func) in ctx.resolver.inexact_imports:
            return _called_source(node, scope, ctx, depth)
    return None


def _called_source(node: cst.Call, scope: Scope, ctx: FileContext, depth: int):
    """``node`` calls a function of this module or an imported one whose migrated result is inexact: (``node``,
    example, use instead), reported where the result is rounded. Also through a parameter's default (``def best(x,
    f=minmax): f(x) == 1.0``) and an attribute the class sets (``self.f = f`` in ``__init__(self, f=norm.minmax)``,
    pymcdm's stored normalization function): the function such code calls unless its caller says otherwise."""
    if depth >= 4:
        return None
    for callee, callee_scope in callees(node.func, scope, ctx.resolver, 0):
        if isinstance(callee, cst.Attribute) and _imported_name(callee) in ctx.resolver.inexact_imports:
            example, use_instead = ctx.resolver.inexact_imports[_imported_name(callee)]  # `norm.minmax(x)`
            return node, example, use_instead
        if isinstance(callee, cst.Name):
            source = _returned_source(callee.value, callee_scope, ctx, depth)
            if source is not None:
                return (node, *source[1:])
        if isinstance(callee, cst.Lambda) and ctx.resolver.scopes.get(callee) is not None:
            source = _inexact_source(callee.body, ctx.resolver.scopes[callee], ctx, depth + 4)  # `f=lambda v: ...`
            if source is not None:
                return (node, *source[1:])
    return None


def _returned_source(name: str, scope: Scope, ctx: FileContext, depth: int):
    """A function of this module called here (``cross(v1, v2)``) that returns an inexact value: its source; or one
    imported from a module of the project whose migrated version does (an "inexact" fact: ``(None, example,
    use_instead)``)."""
    found, bindings = scope.lookup(name)
    if found is not None and found.kind == "module" and name in ctx.resolver.inexact_imports and all(
            isinstance(b, ImportBinding) for b in bindings):
        example, use_instead = ctx.resolver.inexact_imports[name]
        return None, example, use_instead
    if found is None or found.kind != "module" or len(bindings) != 1 or not isinstance(bindings[0], DefBinding):
        return None
    callee = bindings[0].node
    callee_scope = ctx.resolver.scopes.get(callee)
    if not isinstance(callee, cst.FunctionDef) or callee_scope is None:
        return None
    for statement in descendants(callee.body):
        if isinstance(statement, cst.Return) and statement.value is not None:
            source = _inexact_source(statement.value, callee_scope, ctx, depth + 4)
            if source is not None:
                return source
    return None


def _binary_source(node: cst.BinaryOperation, scope: Scope, ctx: FileContext, depth: int):
    operator = node.operator
    if isinstance(operator, cst.Divide):
        if not _power_of_two(node.right) and not ctx.resolver.is_static(node, scope):
            return node, _EXAMPLES["divide"], DIVISION_INSTEAD
        return _inexact_source(node.left, scope, ctx, depth + 1) or _inexact_source(node.right, scope, ctx, depth + 1)
    if isinstance(operator, cst.Power):
        if _fractional(node.right):
            return node, _EXAMPLES["power"], _POWER_INSTEAD
        return _inexact_source(node.left, scope, ctx, depth + 1)
    if isinstance(operator, (cst.Add, cst.Subtract)) and not ctx.resolver.is_static(node, scope) and not ctx.values.is_integer(
            node, scope) and not _int_arithmetic(node, scope, ctx) and any(
            isinstance(side, cst.BinaryOperation) and isinstance(side.operator, cst.Multiply)
            and not ctx.resolver.is_static(side, scope) for side in (node.left, node.right)):
        return node, _EXAMPLES["fma"], FMA_INSTEAD  # `alpha * a + (1 - alpha) * b`: one fused multiply-add under jit
    if isinstance(operator, (cst.Add, cst.Subtract, cst.Multiply)):
        return _inexact_source(node.left, scope, ctx, depth + 1) or _inexact_source(node.right, scope, ctx, depth + 1)
    return None


def _int_arithmetic(node: cst.BaseExpression, scope: Scope, ctx: FileContext) -> bool:
    """Sums and products of int literals, values known at trace time and parameters hinted or defaulted as ints
    (``h + 2 * pad`` with ``pad=0``: static under jit): exact integers, nothing for XLA to fuse."""
    if isinstance(node, cst.Integer) or ctx.resolver.is_static(node, scope) and not ctx.values.is_float(node, scope):
        return True
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, (cst.Add, cst.Subtract, cst.Multiply, cst.FloorDivide)):
        return _int_arithmetic(node.left, scope, ctx) and _int_arithmetic(node.right, scope, ctx)
    if isinstance(node, cst.Name):
        _, bindings = scope.lookup(node.value)
        return len(bindings) == 1 and isinstance(bindings[0], ParamBinding) and int_like(bindings[0].param)
    return False


_EXAMPLES = {
    "log2": "jnp.log2(8.0) is 2.9999999999999996",
    "log10": "jnp.log10(1e15) is 14.999999999999998",
    "cbrt": "jnp.cbrt(27.0) is 3.0000000000000004",
    "exp2": "jnp.exp2(-49.0) is 1.7763568394002524e-15, not 2**-49",
    "power": "jnp.power(27.0, 1/3) is 3.0 where NumPy's is 2.9999999999999996",
    "linspace": "jnp.linspace(0, 5, 8) differs from NumPy's in the last bit at 5 of 8 points",
    "cross": "XLA fuses a1 * b2 - a2 * b1 into one multiply-add: jnp.cross(v, 2 * v) is about 1e-17, not 0, for "
             "v = [0.1, 0.7, 0.3]",
    "geomspace": "jnp.geomspace's points differ from NumPy's in the last bit",
    "logspace": "jnp.logspace's points differ from NumPy's in the last bit",
    "std": "XLA's mean of constant data can miss by one unit in the last place (a division by n done as a "
           "multiplication by 1/n, another summation order): jnp.std(jnp.full(250, 0.1)) is 5.6e-17 where NumPy's "
           "is 0.0",
    "divide": "dividing an array by a value multiplies by its reciprocal: jnp.array([49.0]) / 49.0 is [0.9999999999999999]",
    "fma": "under jax.jit XLA fuses `a * b + c` into one fused multiply-add, rounding once where NumPy rounds twice: "
           "12% of random float64 triples differ",
}
FMA_INSTEAD = "round before truncating (jnp.round(v).astype(...)) or add a margin, when the value is meant to be whole"
_POWER_INSTEAD = "jnp.cbrt / jnp.sqrt for the roots, or jnp.round of the root when it is known to be whole"


def _literal(node: cst.BaseExpression) -> float | None:
    """The value of a numeric constant (``3``, ``-0.5``, ``1 / 3``), else None."""
    if isinstance(node, (cst.Integer, cst.Float)):
        return float(node.evaluated_value)
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
        value = _literal(node.expression)
        return None if value is None else -value
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Divide):
        left, right = _literal(node.left), _literal(node.right)
        return None if left is None or not right else left / right
    return None


def _fractional(exponent: cst.BaseExpression) -> bool:
    """A constant exponent that is not whole nor one half (``x ** 0.5`` is a correctly rounded sqrt)."""
    value = _literal(exponent)
    return value is not None and not value.is_integer() and value != 0.5


def _power_of_two(divisor: cst.BaseExpression) -> bool:
    """Dividing by 2**k is exact: its reciprocal is."""
    value = _literal(divisor)
    if value is None or value == 0:
        return False
    mantissa = abs(value)
    while mantissa >= 2.0:
        mantissa /= 2.0
    while mantissa < 1.0:
        mantissa *= 2.0
    return mantissa == 1.0
