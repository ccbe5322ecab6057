"""NPJ121: a float constant that float32 cannot hold, meeting array values.

``np.log(p + 1e-300)`` guards against ``log(0)`` in float64; in float32 (JAX's
default) ``1e-300`` is 0 and the guard is gone: a zero probability gives
``-inf`` instead of -690.8, and a Viterbi path or a log-likelihood changes.
Below float32's smallest normal number (~1.2e-38) XLA on CPU flushes values to
zero; above its largest (~3.4e38) a constant is ``inf`` (``np.full(n, 1e300)``
as a sentinel becomes ``inf``, and ``inf - inf`` is NaN).

Powers to exponents as large as the data is long leave that range too: the weights ``(1 - alpha) **
np.arange(len(x))`` of an adjusted EWMA underflow to 0 past about 440 samples for a span of 10 (NumPy's float64
holds down to 1e-308), and the first outputs become 0/0 (hunt57 S3).
"""

from __future__ import annotations

import libcst as cst

from np2jax.analysis.branches import assigned_values, returned
from np2jax.analysis.scope import ParamBinding, Scope, ValueBinding
from np2jax.analysis.values import STATIC
from np2jax.context import FileContext, loop_plan
from np2jax.cstutil import number_literal, size_expression
from np2jax.diagnostics import Severity
from np2jax.rule import Example, RuleDoc
from np2jax.rules.hazard import HazardRule
from np2jax.rules.tolerance_below_float32 import inside_function

FLOAT32_TINY = 1.1754944e-38
FLOAT32_MAX = 3.4028235e38


class Float32Range(HazardRule):
    CODE = "NPJ121"
    NAME = "float32-range-constant"
    MESSAGE = "`{value}` is {effect} in float32, JAX's default: {consequence}"
    POWER_MESSAGE = ("`{power}` raises to exponents as large as an array's length: past a few hundred they leave "
                     "float32's range (1e-38 to 3e38, JAX's default; NumPy's float64 holds to 1e-308) and give 0 or "
                     "inf, and ratios of them NaN")
    SEVERITY = Severity.WARNING
    DOC = RuleDoc(
        what=(
            "Reports float constants (literals, or local names and parameter defaults bound to one) below float32's "
            "smallest normal number (~1.2e-38) or above its largest (~3.4e38) that are combined with array values "
            "by an operator or passed to a NumPy function, or to a builtin `max`/`min` of traced values that becomes "
            "`jnp.where` (`max(np.linalg.norm(b), 1e-300)`), or returned or assigned by a branch of an `if` that "
            "NPJ306 converts (`if s == 0: return 1e300`: the chosen value is a float32 array). Also powers of a float base "
            "to exponents as large as an array's length (`(1 - alpha) ** np.arange(len(x))`, `np.power(gamma, "
            "np.arange(n))` with `n = x.shape[0]`): past a few hundred elements they leave float32's range."
        ),
        why=(
            "JAX computes in float32 unless `jax_enable_x64` is on. `np.log(p + 1e-300)` then takes the log of 0 "
            "(`-inf` instead of -690.8) and `x / (n + 1e-300)` divides by zero: the guard silently disappears. "
            "A sentinel `1e300` becomes `inf`, and arithmetic on it gives `inf` or NaN."
        ),
        use_instead="a constant float32 can hold: jnp.finfo(x.dtype).tiny or 1e-30 as a guard, jnp.inf or jnp.finfo(x.dtype).max as a sentinel; or enable x64",
        known_problems="Constants passed in by the caller are not seen; comparisons with such constants are not reported.",
    )
    EXAMPLES = (
        Example(
            before="""
            import numpy as np

            def log_probs(p, floor=1e-300):
                return np.log(p + floor), np.full(p.shape, 1e300)
            """,
            after="""
            import jax.numpy as jnp

            def log_probs(p, floor=1e-300):
                return jnp.log(p + floor), jnp.full(p.shape, 1e300, dtype=float)
            """,
            diagnostics=("NPJ121", "NPJ121"),
        ),
        Example(
            title="powers to exponents as large as the data is long",
            before="""
            import numpy as np

            def ewma_weights(x, alpha=0.2):
                return (1 - alpha) ** np.arange(len(x))
            """,
            after="""
            import jax.numpy as jnp

            def ewma_weights(x, alpha=0.2):
                return (1 - alpha) ** jnp.arange(len(x))
            """,
            diagnostics=("NPJ121",),
        ),
        Example(
            title="constants float32 holds are not reported",
            before="""
            import numpy as np

            def safe_log(p):
                return np.log(p + 1e-30), np.clip(p, 1e-37, 3e38)
            """,
            after="""
            import jax.numpy as jnp

            def safe_log(p):
                return jnp.log(p + 1e-30), jnp.clip(p, 1e-37, 3e38)
            """,
        ),
    )

    NODE_TYPES = frozenset({cst.BinaryOperation, cst.Call, cst.If, cst.IfExp})

    def __init__(self) -> None:
        self._reported: set[cst.CSTNode] = set()

    def check(self, node: cst.CSTNode, scope: Scope, ctx: FileContext) -> None:
        if isinstance(node, (cst.If, cst.IfExp)):
            # `if s == 0: return 1e300` that NPJ306 turns into jax.lax.cond / jnp.where: the branch is a float32 array
            plan = loop_plan(ctx.function, ctx)
            if plan is not None and node in plan.conditionals:
                for value in _branch_values(node):
                    self._check(value, scope, ctx)
            return
        if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Power):
            self._check_power(node, node.left, node.right, scope, ctx)
        if isinstance(node, cst.BinaryOperation):
            sides = (node.left, node.right)
            for side, other in (sides, sides[::-1]):
                if ctx.values.origin(other, scope) != STATIC:
                    self._check(side, scope, ctx)
        else:
            qualname = ctx.resolver.qualname(node.func, scope) or ""
            if qualname in ("numpy.power", "numpy.float_power") and len(node.args) >= 2:
                self._check_power(node, node.args[0].value, node.args[1].value, scope, ctx)
            # builtin `max(norm(b), 1e-300)` of a traced value becomes jnp.where in a jitted function (NPJ301's doc)
            selection = qualname in ("builtins.max", "builtins.min") and ctx.tracing is not None and node in ctx.tracing.selections
            if selection or qualname.startswith("numpy.") and any(ctx.values.origin(a.value, scope) != STATIC for a in node.args) \
                    or qualname in ("numpy.full", "numpy.full_like"):
                for arg in node.args:
                    self._check(arg.value, scope, ctx)

    def _check(self, node: cst.BaseExpression, scope: Scope, ctx: FileContext) -> None:
        for constant in _out_of_range(node, scope, 0):
            if constant in self._reported:
                continue
            self._reported.add(constant)
            value = abs(constant.evaluated_value)
            effect, consequence = (
                ("0", "a guard against zero no longer guards (log gives -inf, a division gives inf)") if value < FLOAT32_TINY
                else ("inf", "arithmetic on it gives inf or NaN")
            )
            target = constant if inside_function(constant, ctx) else node
            self.report(ctx, target, self.MESSAGE.format(value=ctx.code(constant).strip(), effect=effect,
                                                         consequence=consequence), exact=True)


    def _check_power(self, node: cst.CSTNode, base: cst.BaseExpression, exponent: cst.BaseExpression, scope: Scope,
                     ctx: FileContext) -> None:
        """``b ** np.arange(len(x))`` with a float base other than 0 and 1 (an int one wraps instead: NPJ115)."""
        if node in self._reported or not _length_range(exponent, scope, 0) or not _float_base(base):
            return
        self._reported.add(node)
        self.report(ctx, node, self.POWER_MESSAGE.format(power=ctx.code(node).strip()), exact=True)


def _length_range(node: cst.BaseExpression, scope: Scope, depth: int) -> bool:
    """``np.arange(len(x))`` (also ``n = x.shape[0]; np.arange(n)``, reversed, negated or shifted): values up to a
    data length."""
    if depth > 4:
        return False
    if isinstance(node, cst.UnaryOperation):
        return _length_range(node.expression, scope, depth + 1)
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, (cst.Add, cst.Subtract, cst.Multiply)):
        return _length_range(node.left, scope, depth + 1) or _length_range(node.right, scope, depth + 1)
    if isinstance(node, cst.Subscript):
        return _length_range(node.value, scope, depth + 1)
    if isinstance(node, cst.Call):
        return (isinstance(node.func, cst.Attribute) and node.func.attr.value == "arange"
                and any(_data_length(a.value, scope, depth + 1) for a in node.args if a.keyword is None))
    return _bound_to(node, scope, lambda value: _length_range(value, scope, depth + 1))


def _data_length(node: cst.BaseExpression, scope: Scope, depth: int) -> bool:
    """``len(x)``, ``x.shape[0]``, ``x.size``, arithmetic on one, or a local name bound to one."""
    if depth > 4:
        return False
    if size_expression(node):
        return True
    if isinstance(node, cst.BinaryOperation):
        return _data_length(node.left, scope, depth + 1) or _data_length(node.right, scope, depth + 1)
    return _bound_to(node, scope, lambda value: _data_length(value, scope, depth + 1))


def _bound_to(node: cst.BaseExpression, scope: Scope, test) -> bool:
    """``node`` is a name bound only by plain assignments, one of whose values passes ``test``."""
    if not isinstance(node, cst.Name):
        return False
    _, bindings = scope.lookup(node.value)
    return bool(bindings) and all(isinstance(b, ValueBinding) and not b.augmented for b in bindings) and any(
        test(b.value) for b in bindings)


def _float_base(node: cst.BaseExpression) -> bool:
    """A base that is no integer literal nor 0.0/1.0 (``(1 - alpha)``, ``gamma``, ``0.99``)."""
    literal = number_literal(node)
    if literal is not None:
        return isinstance(literal, float) and abs(literal) not in (0.0, 1.0)
    return True


def _branch_values(node: cst.If | cst.IfExp) -> list[cst.BaseExpression]:
    """The values a converted conditional chooses between that its branches give directly (returns, assignments)."""
    if isinstance(node, cst.IfExp):
        return [node.body, node.orelse]
    values = []
    for body in (node.body, node.orelse.body if isinstance(node.orelse, cst.Else) else None):
        if body is None:
            continue
        value = returned(body)
        values.extend([value] if value is not None else assigned_values(body).values())
    return values


def _out_of_range(node: cst.BaseExpression, scope: Scope, depth: int):
    """The float literals outside float32's normal range that ``node`` is, or a name is bound to."""
    if depth > 4:
        return
    if isinstance(node, cst.UnaryOperation):
        yield from _out_of_range(node.expression, scope, depth + 1)
    elif isinstance(node, cst.Float):
        value = abs(node.evaluated_value)
        if 0 < value < FLOAT32_TINY or FLOAT32_MAX < value < float("inf"):
            yield node
    elif isinstance(node, cst.Name):
        found, bindings = scope.lookup(node.value)
        for binding in bindings:
            if isinstance(binding, ValueBinding) and not binding.augmented:
                yield from _out_of_range(binding.value, found, depth + 1)
            elif isinstance(binding, ParamBinding) and binding.param.default is not None:
                yield from _out_of_range(binding.param.default, found, depth + 1)

