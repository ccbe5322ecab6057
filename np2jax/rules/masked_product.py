"""NPJ125: a product with a boolean mask, which XLA turns into a select.

Under ``jax.jit`` XLA rewrites ``convert(mask) * x`` as ``select(mask, x, 0)``:
where the mask is False the product is 0 even when ``x`` is NaN or infinite
there, where NumPy computes ``0.0 * nan`` (NaN) and ``0.0 * inf`` (NaN).
Measured with jax 0.10 on CPU: ``(p > 0) * np.log(p)`` of ``[0.0, 0.5]`` is
``[nan, -0.69]`` in NumPy and ``[0.0, -0.69]`` jitted, and so is the sum of it
(an entropy, a max-pool gradient ``mask * (dout / counts)`` with an empty
window).  ``jnp.where(mask, x, x * 0)`` keeps NumPy's NaN (XLA does not fold
``x * 0``).
"""

from __future__ import annotations

import libcst as cst

from np2jax.analysis.scope import ParamBinding, Scope, ValueBinding
from np2jax.context import FileContext
from np2jax.cstutil import number_literal
from np2jax.diagnostics import Severity
from np2jax.rule import Example, RuleDoc
from np2jax.rules.astype_narrowing import _boolean
from np2jax.rules.hazard import HazardRule

# NumPy functions whose value is -inf, inf or NaN for some finite arguments (the first of which keeps them finite
# when it is `np.clip`/`np.maximum` of a positive literal lower bound: `np.log(np.clip(p, 1e-12, 1))`).
NON_FINITE_FUNCTIONS = frozenset(f"numpy.{name}" for name in (
    "log", "log2", "log10", "log1p", "reciprocal", "arctanh", "divide", "true_divide", "sqrt", "arcsin", "arccos"))
GUARDS = frozenset({"numpy.clip", "numpy.maximum", "numpy.fmax"})
_FLOAT_DTYPES = frozenset({"builtins.float", "numpy.float64", "numpy.float32", "numpy.float16", "numpy.double", "numpy.single"})


class MaskedProduct(HazardRule):
    CODE = "NPJ125"
    NAME = "masked-product"
    MESSAGE = (
        "`{expr}` multiplies `{value}` by a boolean mask: under jax.jit XLA makes it a select, so where the mask is "
        "False the result is 0 even where `{value}` is NaN or infinite (NumPy: NaN, as 0.0 * inf)"
    )
    SEVERITY = Severity.WARNING
    DOC = RuleDoc(
        what=(
            "Reports products of a boolean mask (a comparison, `~m`, `m & n`, `np.isfinite(x)`..., a local name bound "
            "to one, a parameter named for one such as `mask` or `valid_mask`, or `.astype(float)`/`.astype(x.dtype)` "
            "of one; `*`, `np.multiply` or `*=`) with a value that can be NaN or infinite for finite inputs: a log "
            "(`np.log`, `log2`, `log10`, `log1p`), `np.sqrt`, `np.arcsin`/`arccos`, `np.reciprocal`, `np.arctanh`, a "
            "negative power or a true division, in the product itself or through a local name; not where the "
            "argument or divisor is kept positive (`np.log(np.clip(p, 1e-12, 1))`, `x / np.maximum(n, 1)`, a "
            "positive literal, `x / len(x)`). Also a boolean mask divided by a value not kept positive (`m / m.sum()`, "
            "`np.divide(m, n)`): XLA makes that a select too, 0 where NumPy's 0.0 / 0.0 is NaN (an empty mask)."
        ),
        why=(
            "XLA's simplifier rewrites `convert(mask) * x` as `select(mask, x, 0)`. NumPy multiplies: "
            "`(p > 0) * np.log(p)` of `[0.0, 0.5]` is `[nan, -0.69]` there (0.0 times -inf) and `[0.0, -0.69]` once "
            "jitted, and so is a sum or mean of it (an entropy, a gradient `mask * (dout / counts)` with an empty "
            "window): a NaN that NumPy code propagates silently becomes a number."
        ),
        use_instead=(
            "`jnp.where(mask, x, x * 0)` to keep NumPy's NaN (XLA does not fold `x * 0`), or, when 0 is what was "
            "meant, `np.where(mask, x, 0.0)` in the original too (computed in both as written)"
        ),
        known_problems=(
            "Values that are NaN or infinite on input (`mask * x` with a NaN in a parameter `x`) are not reported, "
            "nor masks that reach the product through a function call or `jnp.dot`/`@` (`mask.astype(float) @ "
            "np.log(p)`, also a select under XLA)."
        ),
    )
    EXAMPLES = (
        Example(
            before="""
            import numpy as np

            def masked_entropy(p):
                return -np.sum((p > 0) * p * np.log(p))

            def pool_grad(mask, dout, counts):
                share = np.asarray(dout) / counts
                return (mask > 0) * share

            def scaled(x, w):
                return (x > 0) * (x / 2.0) + w * x
            """,
            after="""
            import jax.numpy as jnp

            def masked_entropy(p):
                return -jnp.sum((p > 0) * p * jnp.log(p))

            def pool_grad(mask, dout, counts):
                share = jnp.asarray(dout) / counts
                return (mask > 0) * share

            def scaled(x, w):
                return (x > 0) * (x / 2.0) + w * x
            """,
            diagnostics=("NPJ125", "NPJ125"),
        ),
        Example(
            title="a boolean mask divided by its count (empty: NumPy's 0.0 / 0.0 is NaN, jitted 0); by a size, not",
            before="""
            import numpy as np

            def above_mean_weights(x):
                m = x > np.mean(x)
                return m / m.sum()

            def share(x):
                return (x > 0) / len(x)
            """,
            after="""
            import jax.numpy as jnp

            def above_mean_weights(x):
                m = x > jnp.mean(x)
                return m / m.sum()

            def share(x):
                return (x > 0) / len(x)
            """,
            diagnostics=("NPJ125",),
        ),
    )

    NODE_TYPES = frozenset({cst.BinaryOperation, cst.Call, cst.AugAssign})

    DIVIDE_MESSAGE = (
        "`{expr}` divides a boolean mask by `{value}`: under jax.jit XLA makes it a select, so where the mask is "
        "False the result is 0 even where `{value}` is 0 or NaN (NumPy: NaN, as 0.0 / 0.0; an empty mask's count)"
    )

    def check(self, node: cst.CSTNode, scope: Scope, ctx: FileContext) -> None:
        divided = _masked_division(node, scope, ctx)
        if divided is not None:  # `m / m.sum()` (hunt: np2jax check's NaN input), `np.divide(m, n)`
            self._report_with(self.DIVIDE_MESSAGE, node, divided, ctx)
            return
        if isinstance(node, cst.Call):  # `np.multiply(p > 0, np.log(p))`
            positional = [arg.value for arg in node.args if arg.keyword is None and not arg.star]
            if ctx.resolver.qualname(node.func, scope) != "numpy.multiply" or len(positional) != 2:
                return
            pairs = [(positional[0], positional[1]), (positional[1], positional[0])]
        elif isinstance(node, cst.AugAssign):  # `t *= p > 0`
            if not isinstance(node.operator, cst.MultiplyAssign):
                return
            pairs = [(node.value, node.target), (node.target, node.value)]
        else:
            if not isinstance(node.operator, cst.Multiply):
                return
            pairs = [(node.left, node.right), (node.right, node.left)]
            left = node.left
            if isinstance(left, cst.BinaryOperation) and isinstance(left.operator, cst.Multiply) and not left.lpar:
                pairs += [(left.left, node.right), (left.right, node.right)]  # `(p > 0) * p * np.log(p)`
        for mask, value in pairs:
            if _is_mask(mask, scope, ctx, 0) and _non_finite(value, scope, ctx, 0):
                self._report_with(self.MESSAGE, node, value, ctx)
                return

    def _report_with(self, message: str, node: cst.CSTNode, value: cst.CSTNode, ctx: FileContext) -> None:
        """Report ``node`` with ``message`` naming it and ``value`` (the factor or divisor), each on one short line."""
        expr, shown = (" ".join(ctx.code(n).split()) for n in (node, value))
        self.report(ctx, node, message.format(expr=_short(expr, 60), value=_short(shown, 40)), exact=True)


def _masked_division(node: cst.CSTNode, scope: Scope, ctx: FileContext) -> cst.BaseExpression | None:
    """The divisor of ``mask / d`` (``np.divide(mask, d)``) when it is not kept positive (``_guarded``)."""
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Divide):
        numerator, divisor = node.left, node.right
    elif isinstance(node, cst.Call) and ctx.resolver.qualname(node.func, scope) in ("numpy.divide", "numpy.true_divide"):
        positional = [arg.value for arg in node.args if arg.keyword is None and not arg.star]
        if len(positional) != 2:
            return None
        numerator, divisor = positional
    else:
        return None
    return divisor if _is_mask(numerator, scope, ctx, 0) and not _guarded(divisor, scope, ctx) else None


def _short(text: str, width: int) -> str:
    return text if len(text) <= width else text[:width - 3] + "..."


def _is_mask(node: cst.BaseExpression, scope: Scope, ctx: FileContext, depth: int) -> bool:
    """``node`` is certainly a boolean array or bool (``astype_narrowing._boolean``), a parameter named for one
    (``mask``), or ``.astype(float)`` of one."""
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value == "astype":
        if len(node.args) != 1 or depth > 4:
            return False
        dtype, value = ctx.resolver.qualname(node.args[0].value, scope), node.args[0].value
        floating = dtype in _FLOAT_DTYPES or (isinstance(value, cst.SimpleString) and value.evaluated_value.startswith(
            ("float", "f"))) or (isinstance(value, cst.Attribute) and value.attr.value == "dtype")  # `.astype(p.dtype)`
        return floating and _is_mask(node.func.value, scope, ctx, depth + 1)
    if isinstance(node, cst.Name):
        _, bindings = scope.lookup(node.value)
        if bindings and all(isinstance(b, ParamBinding) for b in bindings):
            return "mask" in node.value.lower()  # `def maxpool_backward(dout, mask)`: named for what it holds
    return _boolean(node, scope, ctx, depth)


def _non_finite(node: cst.BaseExpression, scope: Scope, ctx: FileContext, depth: int) -> bool:
    """``node`` holds an operation that may give NaN or an infinity for finite inputs (a log, a division)."""
    if depth > 4:
        return False
    if isinstance(node, cst.Call):
        positional = [arg.value for arg in node.args if arg.keyword is None and not arg.star]
        qualname = ctx.resolver.qualname(node.func, scope)
        if qualname not in NON_FINITE_FUNCTIONS:
            return False
        if qualname in ("numpy.divide", "numpy.true_divide"):  # the divisor is what must stay positive
            return len(positional) < 2 or not _guarded(positional[1], scope, ctx)
        if qualname in ("numpy.arcsin", "numpy.arccos", "numpy.arctanh"):  # defined inside [-1, 1] only
            return not (positional and _within_unit(positional[0], scope, ctx))
        return not (positional and _guarded(positional[0], scope, ctx))
    if isinstance(node, cst.BinaryOperation):
        if isinstance(node.operator, cst.Divide):
            return not _guarded(node.right, scope, ctx) or _non_finite(node.left, scope, ctx, depth + 1)
        if isinstance(node.operator, cst.Power):  # `p ** -1.0`
            return isinstance(node.right, cst.UnaryOperation) and isinstance(node.right.operator, cst.Minus)
        return isinstance(node.operator, (cst.Multiply, cst.Add, cst.Subtract)) and (
            _non_finite(node.left, scope, ctx, depth + 1) or _non_finite(node.right, scope, ctx, depth + 1))
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
        return _non_finite(node.expression, scope, ctx, depth + 1)
    if isinstance(node, cst.Name):
        found, bindings = scope.lookup(node.value)
        return found is not None and found.kind != "module" and any(
            isinstance(b, ValueBinding) and not b.augmented and _non_finite(b.value, found, ctx, depth + 1) for b in bindings)
    return False


def _guarded(node: cst.BaseExpression, scope: Scope, ctx: FileContext) -> bool:
    """``node`` is a positive number literal, a size known at trace time (``x.shape[0]``, ``len(x)``), or
    ``np.clip``/``np.maximum`` with a positive literal lower bound: a divisor or log argument that stays positive."""
    if isinstance(node, (cst.Integer, cst.Float)):
        return node.evaluated_value > 0
    if isinstance(node, cst.Call):
        positional = [arg.value for arg in node.args if arg.keyword is None and not arg.star]
        qualname = ctx.resolver.qualname(node.func, scope)
        if qualname in GUARDS and len(positional) >= 2:  # `np.maximum(n, 1)`, `np.maximum(1e-12, p)`, `np.clip(p, 1e-12, 1)`
            bounds = positional[1:2] if qualname == "numpy.clip" else positional[:2]
            return any((number_literal(bound) or 0) > 0 for bound in bounds)
    return ctx.resolver.is_static(node, scope) and not ctx.values.is_float(node, scope)


def _within_unit(node: cst.BaseExpression, scope: Scope, ctx: FileContext) -> bool:
    """``np.clip(c, lo, hi)`` with literal bounds inside [-1, 1]: an argument arcsin/arccos/arctanh take."""
    if not isinstance(node, cst.Call) or ctx.resolver.qualname(node.func, scope) != "numpy.clip":
        return False
    positional = [arg.value for arg in node.args if arg.keyword is None and not arg.star]
    bounds = [number_literal(bound) for bound in positional[1:3]]
    return len(bounds) == 2 and None not in bounds and -1 <= bounds[0] and bounds[1] <= 1
