from __future__ import annotations

import libcst as cst

from np2jax.analysis.loops import contains
from np2jax.analysis.scope import ParamBinding, Scope, ValueBinding
from np2jax.analysis.values import STATIC
from np2jax.context import FileContext
from np2jax.diagnostics import Severity
from np2jax.rule import Example, RuleDoc
from np2jax.rules.hazard import HazardRule
from np2jax.visitors import inner_nodes

FLOAT32_EPS = 1.1920929e-07
# Positions of rtol and atol, and the default rtol (it bounds the test unless the values are near zero).
TOLERANCE_FUNCTIONS = {
    "numpy.allclose": (2, 3, 1e-05), "numpy.isclose": (2, 3, 1e-05), "numpy.testing.assert_allclose": (2, 3, 1e-07),
}
ORDERINGS = (cst.LessThan, cst.LessThanEqual, cst.GreaterThan, cst.GreaterThanEqual)
WIDE_FLOATS = frozenset({"numpy.float64", "numpy.double", "builtins.float", "numpy.complex128", "builtins.complex"})


class ToleranceBelowFloat32(HazardRule):
    CODE = "NPJ117"
    NAME = "tolerance-below-float32"
    MESSAGE = "tolerance `{value}` is below float32's resolution (eps ~1.2e-07): under JAX this test {effect}"
    ABSORBED_MESSAGE = ("`{value}` is below float32's resolution (eps ~1.2e-07): `{expression}` is exactly 1.0 once it "
                        "meets a float32 array under JAX (a clip to it, or a guard, does nothing)")
    SEVERITY = Severity.WARNING
    DOC = RuleDoc(
        what=(
            "Reports tolerances smaller than float32's machine epsilon compared with computed differences "
            "(`abs(a - b) < 1e-10`, `while err > tol` with `err = norm(x_new - x)` and `tol=1e-12` as default), "
            "`rtol=` of `allclose`/`isclose`/`assert_allclose`, their `atol=` where `rtol` does not dominate it "
            "(it is tiny too, or a compared value is 0), and `np.finfo(np.float64).eps` used the same way; and "
            "`1 - eps`/`1 + eps` with such an `eps` (`np.clip(p, eps, 1 - eps)` before `np.log(1 - p)`: in float32 the "
            "bound is 1.0 and the log gives -inf). "
            "The span is the constant's (a local name's or a parameter default's), or the use of a module constant."
        ),
        why=(
            "JAX computes in float32 unless `jax_enable_x64` is on: differences of values around 1 are multiples of "
            "~1.2e-7, so a test against 1e-10 holds only for exact equality. A convergence loop then runs to its "
            "iteration limit and a singularity check never fires, silently."
        ),
        use_instead="a tolerance scaled to the dtype: 10 * jnp.finfo(x.dtype).eps (or at least 1e-6 in float32), or enable x64",
        known_problems=(
            "Tolerances passed in by the caller are not seen; only literals, local names and defaults. Literal "
            "tolerances in comparisons of magnitudes (`det < 1e-12`, `m1 < m2 * 1e-8`) are not reported: float32 "
            "represents such small values."
        ),
    )
    EXAMPLES = (
        Example(
            before="""
            import numpy as np

            def fixed_point(f, x, tol=1e-10, max_iter=100):
                for _ in range(max_iter):
                    x_new = f(x)
                    if np.abs(x_new - x).max() < tol:
                        return x_new
                    x = x_new
                return x

            def same(a, b):
                return np.allclose(a, b, rtol=0.0, atol=1e-12)
            """,
            after="""
            import numpy as np
            import jax.numpy as jnp

            def fixed_point(f, x, tol=1e-10, max_iter=100):
                for _ in range(max_iter):
                    x_new = f(x)
                    if jnp.abs(x_new - x).max() < tol:
                        return x_new
                    x = x_new
                return x

            def same(a, b):
                return np.allclose(a, b, rtol=0.0, atol=1e-12)
            """,
            # (`same` is not jitted here, so np.allclose stays NumPy, whose Python bool `is True` sees: nothing changes;
            # jitted, it becomes jnp.allclose and is reported)
            diagnostics=("NPJ117",),
        ),
        Example(
            title="a bound next to 1 that float32 cannot hold",
            before="""
            import numpy as np

            def log_loss(y, p, eps=1e-15):
                p = np.clip(p, eps, 1 - eps)
                return -np.mean(y * np.log(p) + (1 - y) * np.log(1 - p))
            """,
            after="""
            import jax.numpy as jnp

            def log_loss(y, p, eps=1e-15):
                p = jnp.clip(p, eps, 1 - eps)
                return -jnp.mean(y * jnp.log(p) + (1 - y) * jnp.log(1 - p))
            """,
            diagnostics=("NPJ117",),
        ),
        Example(
            title="float32-sized tolerances, guards against division by zero, atol under a larger rtol and tests of magnitudes (not differences) are not reported",
            before="""
            import numpy as np

            def normalize(x, eps=1e-12):
                n = np.linalg.norm(x)
                return x / (n + eps), np.allclose(x, 0.0, atol=1e-6), np.allclose(x, 1.0, atol=1e-9), n < 1e-10
            """,
            after="""
            import numpy as np
            import jax.numpy as jnp

            def normalize(x, eps=1e-12):
                n = jnp.linalg.norm(x)
                return x / (n + eps), np.allclose(x, 0.0, atol=1e-6), np.allclose(x, 1.0, atol=1e-9), n < 1e-10
            """,
        ),
    )

    def __init__(self) -> None:
        self._reported: set[cst.CSTNode] = set()

    NODE_TYPES = frozenset({cst.Comparison, cst.Call, cst.BinaryOperation})

    def check(self, node: cst.CSTNode, scope: Scope, ctx: FileContext) -> None:
        if isinstance(node, cst.Comparison):
            operands = [node.left, *(target.comparator for target in node.comparisons)]
            if not any(isinstance(target.operator, ORDERINGS) for target in node.comparisons):
                return
            if all(ctx.values.origin(operand, scope) == STATIC for operand in operands):
                return  # Python numbers: compared in float64 under JAX too
            # A literal is a tolerance when it is compared with a difference; float64's eps always is one.
            literals = any(_difference(operand, scope, 0) for operand in operands)
            for operand in operands:
                self._check_tolerance(operand, scope, ctx, "holds only for exact equality", literals)
        elif isinstance(node, cst.Call):
            signature = TOLERANCE_FUNCTIONS.get(ctx.resolver.qualname(node.func, scope) or "")
            if signature is not None:
                self._check_call(node, signature, scope, ctx)
        elif isinstance(node.operator, (cst.Add, cst.Subtract)) and any(_number(side) == 1 for side in (node.left, node.right)):
            other = node.right if _number(node.left) == 1 else node.left
            for constant in _tiny_constants(other, scope, ctx, 0):
                if constant not in self._reported and (not isinstance(constant, cst.Float) or constant.evaluated_value < FLOAT32_EPS / 2):
                    self._reported.add(constant)
                    self.report(ctx, node, self.ABSORBED_MESSAGE.format(value=ctx.code(constant).strip(),
                                                                        expression=ctx.code(node).strip()), exact=True)
                    return

    def _check_call(self, node: cst.Call, signature: tuple, scope: Scope, ctx: FileContext) -> None:
        """``rtol`` below eps is always too strict; ``atol`` only when ``rtol`` does not dominate it:
        it is tiny too, or a compared value is zero."""
        rtol_position, atol_position, default_rtol = signature
        arguments = {"rtol": None, "atol": None}
        for index, arg in enumerate(node.args):
            keyword = arg.keyword.value if arg.keyword is not None else None
            name = keyword if keyword is not None else {rtol_position: "rtol", atol_position: "atol"}.get(index)
            if name in arguments:
                arguments[name] = arg.value
        rtol, atol = arguments["rtol"], arguments["atol"]
        if rtol is not None:
            self._check_tolerance(rtol, scope, ctx, "is as strict as exact equality")
        rtol_value = _number(rtol) if rtol is not None else default_rtol
        compared = [arg.value for arg in node.args[:2] if arg.keyword is None]
        if atol is not None and ((rtol_value is not None and rtol_value < FLOAT32_EPS) or any(_number(v) == 0 for v in compared)):
            self._check_tolerance(atol, scope, ctx, "is as strict as exact equality")

    def _check_tolerance(
        self, node: cst.BaseExpression, scope: Scope, ctx: FileContext, effect: str, literals: bool = True
    ) -> None:
        for constant in _tiny_constants(node, scope, ctx, 0):
            if not literals and not isinstance(constant, cst.Attribute):
                continue
            if constant in self._reported:
                continue
            self._reported.add(constant)
            target = constant if inside_function(constant, ctx) else node
            value = ctx.code(constant).strip()
            self.report(ctx, target, self.MESSAGE.format(value=value, effect=effect), exact=True)


def _number(node: cst.BaseExpression | None) -> float | None:
    return float(node.evaluated_value) if isinstance(node, (cst.Integer, cst.Float)) else None


def inside_function(node: cst.CSTNode, ctx: FileContext) -> bool:
    """``node`` is in the function being left (a parameter default or its body), not at module level."""
    function = ctx.function
    return function is not None and contains(function.node, node)


def _tiny_constants(node: cst.BaseExpression, scope: Scope, ctx: FileContext, depth: int):
    """The float literals below float32 eps (and ``np.finfo(np.float64).eps``) that ``node``'s value comes from."""
    if depth > 6:
        return
    if isinstance(node, cst.Float):
        if 0 < node.evaluated_value < FLOAT32_EPS:
            yield node
    elif isinstance(node, cst.Attribute) and node.attr.value in ("eps", "resolution", "epsneg"):
        if _wide_finfo(node.value, scope, ctx):
            yield node
    elif isinstance(node, cst.Name):
        found, bindings = scope.lookup(node.value)
        for binding in bindings:
            if isinstance(binding, ValueBinding):
                yield from _tiny_constants(binding.value, found, ctx, depth + 1)
            elif isinstance(binding, ParamBinding) and binding.param.default is not None:
                yield from _tiny_constants(binding.param.default, found, ctx, depth + 1)
    elif isinstance(node, cst.BinaryOperation) and isinstance(node.operator, (cst.Multiply, cst.Divide)):
        for side in (node.left, node.right):
            yield from _tiny_constants(side, scope, ctx, depth + 1)
    elif isinstance(node, cst.UnaryOperation):
        yield from _tiny_constants(node.expression, scope, ctx, depth + 1)


def _difference(node: cst.CSTNode, scope: Scope, depth: int) -> bool:
    """The value is computed with a subtraction (``abs(a - b)``, ``norm(r)`` with ``r = b - A @ x``): an error
    or a change, whose float32 size is set by the rounding of the values subtracted."""
    if depth > 4:
        return False
    kind = type(node)
    if kind is cst.BinaryOperation and type(node.operator) is cst.Subtract:
        return True
    if kind is cst.Name:
        found, bindings = scope.lookup(node.value)
        return any(isinstance(b, ValueBinding) and _difference(b.value, found, depth + 1) for b in bindings)
    if kind is cst.FunctionDef or kind is cst.Lambda:
        return False
    return any(_difference(child, scope, depth) for child in inner_nodes(node))  # (trivia computes nothing)


def _wide_finfo(node: cst.BaseExpression, scope: Scope, ctx: FileContext) -> bool:
    if not (isinstance(node, cst.Call) and ctx.resolver.qualname(node.func, scope) == "numpy.finfo" and node.args):
        return False
    return ctx.resolver.qualname(node.args[0].value, scope) in WIDE_FLOATS
