"""NPJ122: integer floor division by a divisor that can be zero at run time.

NumPy gives 0 for ``n // 0`` on integer arrays (with a RuntimeWarning);
XLA's integer division by zero gives -1, which ``jnp.floor_divide`` then
rounds to -1 or -2 (unsigned: the largest value).  ``%`` agrees (0 in both),
and float division agrees (inf/nan in both), so only integer ``//`` is
reported, and only where the divisor is a run-time integer value that is not
visibly kept away from zero (a non-zero literal, ``np.maximum(d, 1)``,
``np.where(d == 0, 1, d)``) or the quotient is not discarded where it is zero
(``np.where(d > 0, n // d, 0)``).
"""

from __future__ import annotations

import libcst as cst

from np2jax.analysis.scope import Scope
from np2jax.analysis.value_kinds import ValueClassifier
from np2jax.context import FileContext, FunctionInfo
from np2jax.cstutil import number_literal
from np2jax.diagnostics import Severity
from np2jax.rule import Example, RuleDoc
from np2jax.rules.hazard import HazardRule
from np2jax.visitors import child_nodes

DIVISION_FUNCTIONS = frozenset({"numpy.floor_divide", "numpy.divmod"})


class IntegerDivisionByZero(HazardRule):
    CODE = "NPJ122"
    NAME = "integer-division-by-zero"
    MESSAGE = (
        "integer `//` by `{divisor}`, a run-time value: where it is 0 NumPy gives 0 (with a RuntimeWarning), "
        "jax.numpy gives -1 or -2 (unsigned: the largest value)"
    )
    SEVERITY = Severity.WARNING
    DOC = RuleDoc(
        what=(
            "Reports integer floor division (`a // b`, `a //= b`, `np.floor_divide`, `np.divmod`) whose divisor is "
            "an integer computed at run time (counts, `np.bincount`, `np.count_nonzero`, `np.sum` of a comparison, "
            "`.astype(int)` ...) and not visibly kept away from zero: `np.maximum(d, 1)`, `np.clip(d, 1, ...)`, "
            "`np.where(d == 0, 1, d)`, or a quotient `np.where` throws away where `d` is 0 (`np.where(d > 0, n // d, 0)`; "
            "the test must compare `d` with a number so that it is false, or true for the other branch, at 0)."
        ),
        why=(
            "Integer division by zero has no value: NumPy returns 0 and warns, XLA returns -1 and `jnp.floor_divide` "
            "rounds that to -1 or -2. A migrated function that divides a count by an empty bin's 0 silently "
            "returns a different number."
        ),
        use_instead="jnp.where(d == 0, 0, n // jnp.where(d == 0, 1, d)), which is NumPy's result without the warning",
        known_problems=(
            "Only divisors with evidence of being integers are checked (an integer array passed in as an argument "
            "is not known to be one); a dividend of unknown kind (a parameter, `x.size`) counts as a possible "
            "integer, a float one is not reported (inf/nan in both libraries). Divisors known at trace time "
            "(sizes, `len(x)`) are not reported. `%` is not reported: both libraries give 0."
        ),
    )
    EXAMPLES = (
        Example(
            before="""
            import numpy as np

            def items_per_box(volumes, box_sizes):
                items = np.floor(volumes).astype(int)
                per_box = np.floor(box_sizes).astype(int)
                return items // per_box
            """,
            after="""
            import jax.numpy as jnp

            def items_per_box(volumes, box_sizes):
                items = jnp.floor(volumes).astype(int)
                per_box = jnp.floor(box_sizes).astype(int)
                return items // per_box
            """,
            diagnostics=("NPJ122",),
        ),
        Example(
            title="a dividend of unknown kind (a size, a parameter) may be an integer too",
            before="""
            import numpy as np

            def per_label(labels, weights):
                return np.floor_divide(labels.size, weights.astype(int))
            """,
            after="""
            import jax.numpy as jnp

            def per_label(labels, weights):
                return jnp.floor_divide(labels.size, weights.astype(int))
            """,
            diagnostics=("NPJ122",),
        ),
        Example(
            title="divisors kept away from zero, and literal or trace-time divisors, are not reported",
            before="""
            import numpy as np

            def per_row(mask, widths):
                counts = np.count_nonzero(mask, axis=1)
                items = np.floor(widths).astype(int)
                a = items // np.maximum(counts, 1)
                b = np.where(counts > 0, items // counts, 0)
                return a, b, items // 2, items // mask.shape[1]
            """,
            after="""
            import jax.numpy as jnp

            def per_row(mask, widths):
                counts = jnp.count_nonzero(mask, axis=1)
                items = jnp.floor(widths).astype(int)
                a = items // jnp.maximum(counts, 1)
                b = jnp.where(counts > 0, items // counts, 0)
                return a, b, items // 2, items // mask.shape[1]
            """,
        ),
    )

    NODE_TYPES = frozenset({cst.Call, cst.BinaryOperation, cst.AugAssign})

    def on_leave_function(self, info: FunctionInfo, ctx: FileContext) -> None:
        self._discarded: set[int] = set()  # divisions inside a `np.where` branch chosen only where the divisor is not 0
        super().on_leave_function(info, ctx)

    def check(self, node: cst.CSTNode, scope: Scope, ctx: FileContext) -> None:
        if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.FloorDivide):
            operands = (node.left, node.right)
        elif isinstance(node, cst.AugAssign) and isinstance(node.operator, cst.FloorDivideAssign):
            operands = (node.target, node.value)
        elif isinstance(node, cst.Call):
            qualname = ctx.resolver.qualname(node.func, scope)
            if qualname == "numpy.where":
                self._mark_guarded(node)
                return
            positional = [arg.value for arg in node.args if arg.keyword is None]
            if qualname not in DIVISION_FUNCTIONS or len(positional) < 2:
                return
            operands = (positional[0], positional[1])
        else:
            return
        dividend, divisor = operands
        if id(node) in self._discarded or not self._runtime_integer(divisor, scope, ctx):
            return
        if self._inexact(dividend, scope, ctx) or _nonzero(divisor, scope, ctx, 0):
            return
        self.report(ctx, node, self.MESSAGE.format(divisor=ctx.code(divisor).strip()), exact=True)

    def _mark_guarded(self, node: cst.Call) -> None:
        """``np.where(d > 0, n // d, 0)``: the quotients where ``d`` is 0 are thrown away by both libraries."""
        positional = [arg.value for arg in node.args if arg.keyword is None]
        if len(positional) != 3:
            return
        condition = positional[0]
        for chosen, branch in ((True, positional[1]), (False, positional[2])):
            for division in _divisions(branch):
                if _at_zero(condition, division.right) is (not chosen):  # the test never picks this branch where d is 0
                    self._discarded.add(id(division))

    def _runtime_integer(self, node: cst.BaseExpression, scope: Scope, ctx: FileContext) -> bool:
        return self._integer(node, scope, ctx) and not ctx.resolver.is_static(node, scope)

    def _integer(self, node: cst.BaseExpression, scope: Scope, ctx: FileContext) -> bool:
        """Evidence of an integer: ``values.is_integer``, or the value classifier's (``np.sum(mask)``, a count)."""
        if ctx.values.is_integer(node, scope):
            return True
        value = self._classifier(ctx).value(node, scope)
        return value.kind == "int" and not value.weak

    def _inexact(self, node: cst.BaseExpression, scope: Scope, ctx: FileContext) -> bool:
        """A float or complex dividend: float ``//`` by 0 gives inf/nan in both libraries.  A dividend of unknown
        kind (a parameter, ``x.size``) counts as a possible integer: the divisor is already known to be one."""
        if self._integer(node, scope, ctx):
            return False
        return self._classifier(ctx).value(node, scope).kind in ("float", "complex")

    def _classifier(self, ctx: FileContext) -> ValueClassifier:
        if getattr(self, "_classifier_of", (None, None))[0] is not ctx:
            self._classifier_of = (ctx, ValueClassifier(ctx.resolver))
        return self._classifier_of[1]


def _divisions(node: cst.CSTNode) -> list[cst.BinaryOperation]:
    found = []
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, cst.BinaryOperation) and isinstance(current.operator, cst.FloorDivide):
            found.append(current)
        stack.extend(child_nodes(current))
    return found


def _mentions(condition: cst.BaseExpression, divisor: cst.BaseExpression) -> list[cst.CSTNode]:
    """The nodes of ``condition`` that are the divisor again (same code: ``counts`` in ``counts > 0``)."""
    wanted = cst.Module(body=()).code_for_node(divisor)
    found = []
    stack: list[cst.CSTNode] = [condition]
    while stack:
        current = stack.pop()
        if type(current) is type(divisor) and cst.Module(body=()).code_for_node(current) == wanted:
            found.append(current)
            continue
        stack.extend(child_nodes(current))
    return found


def _nonzero(node: cst.BaseExpression, scope: Scope, ctx: FileContext, depth: int) -> bool:
    """Visibly never 0: a non-zero literal, ``np.maximum(d, k)`` / ``np.clip(d, k, ...)`` with ``k > 0``,
    ``np.where(c, k, d)`` with a non-zero ``k`` and ``d`` tested in ``c``, or a name bound only to those."""
    if depth > 6:
        return False
    value = number_literal(node)
    if value is not None:
        return value != 0
    if isinstance(node, cst.Name):
        found, bindings = scope.lookup(node.value)
        values = [getattr(binding, "value", None) for binding in bindings]
        return bool(values) and all(
            isinstance(value, cst.BaseExpression) and not getattr(binding, "augmented", False)
            and _nonzero(value, found, ctx, depth + 1)
            for binding, value in zip(bindings, values)
        )
    if not isinstance(node, cst.Call):
        return False
    qualname = ctx.resolver.qualname(node.func, scope)
    method = node.func.attr.value if qualname is None and isinstance(node.func, cst.Attribute) else None
    positional = [arg.value for arg in node.args if arg.keyword is None]
    if method == "clip" and positional:
        return _positive_literal(positional[0])
    if qualname == "numpy.clip" and len(positional) >= 2:
        return _positive_literal(positional[1])
    if qualname in ("numpy.maximum", "numpy.fmax", "builtins.max") and len(positional) == 2:
        return any(_positive_literal(value) for value in positional)
    if qualname == "numpy.where" and len(positional) == 3:  # `np.where(d == 0, 1, d)`: never 0
        condition = positional[0]
        return all(_nonzero(branch, scope, ctx, depth + 1) or _at_zero(condition, branch) is (not chosen)
                   for chosen, branch in ((True, positional[1]), (False, positional[2])))
    return False


_COMPARE = {
    cst.GreaterThan: lambda a, b: a > b, cst.GreaterThanEqual: lambda a, b: a >= b, cst.LessThan: lambda a, b: a < b,
    cst.LessThanEqual: lambda a, b: a <= b, cst.Equal: lambda a, b: a == b, cst.NotEqual: lambda a, b: a != b,
}


def _at_zero(condition: cst.BaseExpression, divisor: cst.BaseExpression) -> bool | None:
    """The value of ``condition`` where ``divisor`` is 0, for a comparison of the divisor with a number
    (``d > 0``, ``0 != d``); None when it cannot tell."""
    if not isinstance(condition, cst.Comparison) or len(condition.comparisons) != 1:
        return None
    target = condition.comparisons[0]
    compare = _COMPARE.get(type(target.operator))
    if compare is None:
        return None
    left, right = condition.left, target.comparator
    if _same(left, divisor) and (number := number_literal(right)) is not None:
        return compare(0, number)
    if _same(right, divisor) and (number := number_literal(left)) is not None:
        return compare(number, 0)
    return None


def _same(node: cst.BaseExpression, other: cst.BaseExpression) -> bool:
    return bool(_mentions(node, other)) and isinstance(node, type(other)) and (
        cst.Module(body=()).code_for_node(node) == cst.Module(body=()).code_for_node(other))


def _positive_literal(node: cst.BaseExpression) -> bool:
    value = number_literal(node)
    return value is not None and value > 0
