from __future__ import annotations

import math

import libcst as cst

from np2jax.analysis.loops import descendants
from np2jax.analysis.scope import ParamBinding, Scope, ValueBinding
from np2jax.analysis.value_kinds import literal_value
from np2jax.analysis.values import DATA, STATIC
from np2jax.context import FileContext
from np2jax.diagnostics import Severity
from np2jax.rule import Example, RuleDoc
from np2jax.rules.hazard import HazardRule
from np2jax.visitors import child_nodes, inner_nodes

REDUCTIONS = frozenset({"sum", "mean", "nansum", "nanmean", "average", "cumsum", "nancumsum"})  # running sums too
JOINS = frozenset({"numpy.concatenate", "numpy.hstack", "numpy.append"})  # `concatenate([[0.0], np.cumsum(x)])`
INNER_PRODUCTS = frozenset({"dot", "vdot", "inner"})
# What a moment-like expression is: a sum of degree-2 products of data, or a product of two sums of data.
SECOND_MOMENT, PRODUCT_OF_MEANS, FIRST_MOMENT = "second", "product", "first"


class Float32Cancellation(HazardRule):
    CODE = "NPJ116"
    NAME = "float32-cancellation"
    MESSAGE = "`{expr}` subtracts two nearly equal sums (E[x*y] - E[x]E[y]): in float32 the difference can lose every digit"
    SEVERITY = Severity.WARNING
    DOC = RuleDoc(
        what=(
            "Reports variances and covariances computed by the one-pass formula: a sum or mean of squares or "
            "products minus the product of two sums or means (`np.sum(x*x) - np.sum(x)**2 / n`, "
            "`np.mean(x**2) - np.mean(x)**2`, `n*sxy - sx*sy`), also through local names and over windows of running "
            "sums (`c2 = np.cumsum(x * x); s2 = c2[w:] - c2[:-w]; s2 - s1 * s1 / w`); and sums over windows taken as the "
            "difference of two parts of one running sum of float data (`c[w:] - c[:-w]` of `c = np.cumsum(x)`, an "
            "integral image's `S[r:, r:] - S[:-r, r:]`), also when the running sum's name is rebound (`c = np.concatenate(([0.0], c))`); "
            "and sliding-window sums a loop keeps by adding elements of one array and subtracting others, read at "
            "another index (`acc += x[i]` ... `acc -= x[i - w]`): the partial sums grow with the data's length while the "
            "window's sum does not, so float32 keeps few of its digits (running counts of integers or booleans are exact); "
            "and finite differences with a small step: a difference divided by a step below 1e-3, a literal or a "
            "name bound to one (`(f(x + h) - f(x - h)) / (2 * h)` with `h=1e-6`), also scaled by a value's size "
            "(`step = eps * max(1.0, abs(x[j]))`: a relative step), that the function also moves a value by "
            "(`x + h`, `xp[i] += h`, `e[i] = h`), where float32's rounding of the two values, ~1e-7 of their size, is "
            "divided by the step too. A quotient by a small number nothing is moved by is a change of unit "
            "(`(v - v0) / 1e-6`), whose rounding stays relative, and is not reported."
        ),
        why=(
            "Both terms are large and nearly equal when the mean is large next to the spread. NumPy computes them in "
            "float64 (16 digits); JAX in float32 (7 digits) unless `jax_enable_x64` is on, so a variance of data "
            "around 1e4 comes out as noise, zero or negative, silently."
        ),
        use_instead=(
            "jnp.var / jnp.cov, or subtract the mean first (two passes: d = x - x.mean(); (d * d).sum()); sum each "
            "window afresh; jax.grad (or jax.jvp) instead of a finite difference; or enable x64"
        ),
        known_problems=(
            "Only these patterns are recognised; other differences of large nearly equal values are not, nor a running "
            "sum made in another function (`ii = integral_image(img)`)."
        ),
    )
    EXAMPLES = (
        Example(
            before="""
            import numpy as np

            def variance(x):
                n = x.shape[0]
                return (np.sum(x * x) - np.sum(x) ** 2 / n) / (n - 1)

            def covariance(x, y):
                mx, my = np.mean(x), np.mean(y)
                return np.mean(x * y) - mx * my
            """,
            after="""
            import jax.numpy as jnp

            def variance(x):
                n = x.shape[0]
                return (jnp.sum(x * x) - jnp.sum(x) ** 2 / n) / (n - 1)

            def covariance(x, y):
                mx, my = jnp.mean(x), jnp.mean(y)
                return jnp.mean(x * y) - mx * my
            """,
            diagnostics=("NPJ116", "NPJ116"),
        ),
        Example(
            title="two-pass formulas are not reported",
            before="""
            import numpy as np

            def variance(x):
                d = x - np.mean(x)
                return np.sum(d * d) / (len(x) - 1), np.sum(x ** 2) - 1.0
            """,
            after="""
            import jax.numpy as jnp

            def variance(x):
                d = x - jnp.mean(x)
                return jnp.sum(d * d) / (len(x) - 1), jnp.sum(x ** 2) - 1.0
            """,
        ),
        Example(
            title="windowed moments from running sums",
            before="""
            import numpy as np

            def rolling_var(x, w):
                c1 = np.concatenate([[0.0], np.cumsum(x)])
                c2 = np.concatenate([[0.0], np.cumsum(x * x)])
                s1 = c1[w:] - c1[:-w]
                s2 = c2[w:] - c2[:-w]
                return (s2 - s1 * s1 / w) / (w - 1)
            """,
            after="""
            import jax.numpy as jnp

            def rolling_var(x, w):
                c1 = jnp.concatenate([jnp.asarray([0.0]), jnp.cumsum(x, dtype=jnp.sum(x).dtype)])
                c2 = jnp.concatenate([jnp.asarray([0.0]), jnp.cumsum(x * x, dtype=jnp.sum(x * x).dtype)])
                s1 = c1[w:] - c1[:-w]
                s2 = c2[w:] - c2[:-w]
                return (s2 - s1 * s1 / w) / (w - 1)
            """,
            diagnostics=("NPJ116", "NPJ116", "NPJ116"),  # the two window sums, and the variance formula
        ),
        Example(
            title="a running sum rebound, and a sliding window kept by a loop",
            before="""
            import numpy as np

            def moving_average(x, w):
                c = np.cumsum(x)
                c = np.concatenate(([0.0], c))
                return (c[w:] - c[:-w]) / w

            def last_window_rms(x, w):
                acc = 0.0
                for i in range(len(x)):
                    acc += x[i] * x[i]
                    if i >= w:
                        acc -= x[i - w] * x[i - w]
                return np.sqrt(acc / w)
            """,
            after="""
            import jax.numpy as jnp

            def moving_average(x, w):
                c = jnp.cumsum(x, dtype=jnp.sum(x).dtype)
                c = jnp.concatenate((jnp.asarray([0.0]), c))
                return (c[w:] - c[:-w]) / w

            def last_window_rms(x, w):
                acc = 0.0
                for i in range(len(x)):
                    acc += x[i] * x[i]
                    if i >= w:
                        acc -= x[i - w] * x[i - w]
                return jnp.sqrt(acc / w)
            """,
            diagnostics=("NPJ116", "NPJ116"),
        ),
        Example(
            title="a finite difference with a small step",
            before="""
            import numpy as np

            def slope(x, h=1e-6):
                return (np.sin(x + h) - np.sin(x - h)) / (2 * h)
            """,
            after="""
            import jax.numpy as jnp

            def slope(x, h=1e-6):
                return (jnp.sin(x + h) - jnp.sin(x - h)) / (2 * h)
            """,
            diagnostics=("NPJ116",),
        ),
        Example(
            title="a change of unit is not a finite difference",
            before="""
            import numpy as np

            def to_microvolts(trace):
                return (trace - np.median(trace)) / 1e-6
            """,
            after="""
            import jax.numpy as jnp

            def to_microvolts(trace):
                return (trace - jnp.median(trace)) / 1e-6
            """,
        ),
    )

    NODE_TYPES = frozenset({cst.BinaryOperation, cst.For, cst.While})
    WINDOW_MESSAGE = (
        "`{expr}` subtracts two parts of one running sum (np.cumsum): in float32 the window's sum keeps only the "
        "digits the large partial sums leave it"
    )

    LOOP_MESSAGE = (
        "`{name}` is a running sum that a loop adds float data to and subtracts it from again (a sliding window): "
        "in float32 what is left keeps only the digits the largest partial sums leave it"
    )

    STEP_MESSAGE = (
        "`{expr}` divides a difference of nearby values by a step of `{step}` (a finite difference): float32 rounds "
        "each value to ~1e-7 of its size, so the quotient keeps about {digits} correct digit(s) where NumPy's float64 "
        "keeps about {digits64}"
    )

    def on_leave_function(self, info, ctx: FileContext) -> None:
        self._reported: set[int] = set()
        super().on_leave_function(info, ctx)

    def check(self, node: cst.CSTNode, scope: Scope, ctx: FileContext) -> None:
        if isinstance(node, (cst.For, cst.While)):
            for name, subtraction in _window_sums(node, scope, ctx):
                if id(subtraction) not in self._reported:
                    self._reported.add(id(subtraction))
                    self.report(ctx, subtraction, self.LOOP_MESSAGE.format(name=name), exact=True)
            return
        if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Divide):
            self._finite_difference(node, scope, ctx)
            return
        if not (isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Subtract)):
            return
        kinds = {_moment(node.left, scope, ctx, 0), _moment(node.right, scope, ctx, 0)}
        if kinds == {SECOND_MOMENT, PRODUCT_OF_MEANS}:
            self.report(ctx, node, self.MESSAGE.format(expr=_short(ctx.code(node))), exact=True)
            return
        base = _running_sum_part(node.left, scope, ctx, 0)
        if base is not None and base == _running_sum_part(node.right, scope, ctx, 0):
            self.report(ctx, node, self.WINDOW_MESSAGE.format(expr=_short(ctx.code(node))), exact=True)


    def _finite_difference(self, node: cst.BinaryOperation, scope: Scope, ctx: FileContext) -> None:
        """``(f(x + h) - f(x - h)) / (2 * h)`` with a step ``h`` below 1e-3 (a literal, a local name's or a
        parameter default's): float32's rounding of the two values is divided by the step too."""
        left = node.left
        if not (isinstance(left, cst.BinaryOperation) and isinstance(left.operator, cst.Subtract)):
            return
        if ctx.values.origin(left, scope) == STATIC:
            return  # Python numbers: float64 under JAX too
        step = _small_step(node.right, scope, 0)
        if step is None:
            return
        value = float(step.evaluated_value)
        if not _perturbed_by(node.right, value, scope):
            return  # `(trace - np.median(trace)) / 1e-6`: a change of unit, not a step something was moved by
        digits = max(0, round(math.log10(value / 1.2e-7)))
        digits64 = round(math.log10(value / 2.2e-16))
        self.report(ctx, node, self.STEP_MESSAGE.format(expr=_short(ctx.code(node)), step=ctx.code(step).strip(),
                                                        digits=digits, digits64=digits64), exact=True)


SMALL_STEP = 1e-3  # a finite difference's step below this keeps fewer than ~4 digits in float32


def _small_step(node: cst.BaseExpression, scope: Scope, depth: int) -> cst.Float | None:
    """The float literal below ``SMALL_STEP`` that ``node`` (``h``, ``2 * h``, ``2.0 * eps``, ``eps * max(1.0,
    abs(x[j]))``) scales."""
    if depth > 4:
        return None
    if isinstance(node, cst.Float):
        return node if 0 < node.evaluated_value < SMALL_STEP else None
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Multiply):
        sides = (node.left, node.right)
        steps = [_small_step(side, scope, depth + 1) for side in sides]
        numbers = [(isinstance(side, (cst.Integer, cst.Float)) and 1 <= float(side.evaluated_value) <= 10)
                   or _magnitude(side) for side in sides]
        if steps[0] is not None and numbers[1]:
            return steps[0]
        return steps[1] if steps[1] is not None and numbers[0] else None
    if isinstance(node, cst.Name):
        found, bindings = scope.lookup(node.value)
        if len(bindings) != 1:
            return None
        binding = bindings[0]
        if isinstance(binding, ValueBinding) and not binding.augmented:
            return _small_step(binding.value, found, depth + 1)
        if isinstance(binding, ParamBinding) and binding.param.default is not None:
            return _small_step(binding.param.default, found, depth + 1)
    return None


# Functions of a value's size: `eps * max(1.0, abs(x[j]))` is a step relative to x, as small against it as eps.
_MAGNITUDES = frozenset({"max", "abs", "maximum", "fmax", "absolute", "fabs", "norm"})


def _magnitude(node: cst.BaseExpression) -> bool:
    """``max(1.0, abs(x[j]))``, ``np.abs(x)``, ``np.linalg.norm(x)``, ``1 + abs(x)``: the size of a value, by which
    a relative step is scaled (hunt57 S1)."""
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Add):
        return any(isinstance(side, (cst.Integer, cst.Float)) and float(side.evaluated_value) == 1 for side in (node.left, node.right)) and (
            _magnitude(node.left) or _magnitude(node.right))
    if not isinstance(node, cst.Call):
        return False
    func = node.func
    name = func.attr.value if isinstance(func, cst.Attribute) else func.value if isinstance(func, cst.Name) else ""
    return name in _MAGNITUDES


def _perturbed_by(divisor: cst.BaseExpression, value: float, scope: Scope) -> bool:
    """Whether the function around ``scope`` moves something by the step ``divisor`` scales (its names, or a
    literal ``value``): ``x + h``, ``x - h * e``, ``xp[i] += eps``, ``e[i] = h`` (or by a name bound to an
    expression of the step, ``E = h * np.eye(n)``). A quotient by a small number that no perturbation goes with
    is a change of unit (``/ 1e-6`` for micro-units), whose float32 rounding is relative, as any other."""
    function = scope
    while function.kind != "function" and function.parent is not None:
        function = function.parent
    if function.kind != "function":
        return False
    divisor_nodes = list(descendants(divisor))
    names = {n.value for n in divisor_nodes if isinstance(n, cst.Name)}

    def mentions(node: cst.CSTNode) -> bool:
        return any((isinstance(n, cst.Name) and n.value in names)
                   or (isinstance(n, cst.Float) and math.isclose(n.evaluated_value, value, rel_tol=1e-12))
                   for n in descendants(node))

    inside = set(map(id, divisor_nodes))
    body = [n for n in descendants(function.node.body) if id(n) not in inside]
    for _ in range(3):  # names bound to expressions of the step: `E = h * np.eye(n)`, `dx = eps * d`
        more = {t.target.value for n in body if isinstance(n, cst.Assign) and mentions(n.value)
                for t in n.targets if isinstance(t.target, cst.Name)} - names
        if not more:
            break
        names |= more
    for n in body:
        if isinstance(n, cst.BinaryOperation) and isinstance(n.operator, (cst.Add, cst.Subtract)) and (
                mentions(n.left) or mentions(n.right)):
            return True
        if isinstance(n, cst.AugAssign) and isinstance(n.operator, (cst.AddAssign, cst.SubtractAssign)) and mentions(n.value):
            return True
        if isinstance(n, cst.Assign) and any(isinstance(t.target, cst.Subscript) for t in n.targets) and mentions(n.value):
            return True
    return False


def _window_sums(loop: cst.For | cst.While, scope: Scope, ctx: FileContext) -> list[tuple[str, cst.CSTNode]]:
    """Names the loop's body both adds elements of an array of float data to and subtracts elements of the same
    array, read at another index, from (``acc += x[i] ** 2`` ... ``acc -= x[i - w] ** 2``, or ``acc = acc + e`` /
    ``acc = acc - e``), with the subtracting statements."""
    added: dict[str, set[tuple[str, str]]] = {}  # name -> (array, index) pairs its additions read
    subtracted: list[tuple[str, cst.CSTNode, set[tuple[str, str]]]] = []
    stack: list[cst.CSTNode] = [loop.body]
    while stack:
        current = stack.pop()
        kind = type(current)
        if kind is cst.FunctionDef or kind is cst.ClassDef or kind is cst.Lambda:
            continue
        step = _accumulation(current) if kind is cst.AugAssign or kind is cst.Assign else None
        if step is not None:
            name, operator, value = step
            if ctx.values.from_data(value, scope) and not ctx.values.is_integer(value, scope):
                read = _subscripted(value)
                if operator == "+":
                    added.setdefault(name, set()).update(read)
                else:
                    subtracted.append((name, current, read))
        stack.extend(inner_nodes(current))  # (trivia holds no statement)
    # a window: the subtraction reads an array the additions read, at another index (`x[i - w]` against `x[i]`);
    # `if x[i] > t: acc += x[i] - t else: acc -= ...` reads the same elements and cancels nothing of the kind
    return [(name, node) for name, node, read in subtracted
            if {array for array, _ in read} & {array for array, _ in added.get(name, set())}
            and read - added.get(name, set())]


def _subscripted(node: cst.CSTNode) -> set[tuple[str, str]]:
    """The arrays whose elements ``node`` reads, with the index as written (``("x", "i - w")`` of ``x[i - w] ** 2``)."""
    found = set()
    stack = [node]
    module = cst.Module(body=())
    while stack:
        current = stack.pop()
        if isinstance(current, cst.Subscript) and isinstance(current.value, cst.Name):
            index = ", ".join(" ".join(module.code_for_node(element.slice).split()) for element in current.slice)
            found.add((current.value.value, index))
        stack.extend(child_nodes(current))
    return found


def _accumulation(node: cst.CSTNode) -> tuple[str, str, cst.BaseExpression] | None:
    """``acc += e`` / ``acc -= e`` / ``acc = acc + e`` / ``acc = acc - e``: (name, "+" or "-", e)."""
    if isinstance(node, cst.AugAssign) and isinstance(node.target, cst.Name):
        if isinstance(node.operator, cst.AddAssign):
            return node.target.value, "+", node.value
        if isinstance(node.operator, cst.SubtractAssign):
            return node.target.value, "-", node.value
        return None
    if (isinstance(node, cst.Assign) and len(node.targets) == 1 and isinstance(node.targets[0].target, cst.Name)
            and isinstance(node.value, cst.BinaryOperation) and isinstance(node.value.left, cst.Name)
            and node.value.left.value == node.targets[0].target.value):
        if isinstance(node.value.operator, cst.Add):
            return node.value.left.value, "+", node.value.right
        if isinstance(node.value.operator, cst.Subtract):
            return node.value.left.value, "-", node.value.right
    return None


def _short(code: str) -> str:
    code = " ".join(code.split())
    return code if len(code) <= 60 else code[:57] + "..."


def _moment(node: cst.BaseExpression, scope: Scope, ctx: FileContext, depth: int) -> str | None:
    """SECOND_MOMENT, PRODUCT_OF_MEANS or FIRST_MOMENT for sums/means and their products, scaled by anything static."""
    if depth > 8:
        return None
    if isinstance(node, cst.Name):
        found, bindings = scope.lookup(node.value)
        if len(bindings) == 1 and isinstance(bindings[0], ValueBinding) and not bindings[0].augmented:
            return _moment(bindings[0].value, found, ctx, depth + 1)
        return None
    if isinstance(node, cst.Subscript):  # `c[w:]` of running sums: sums over windows
        return _moment(node.value, scope, ctx, depth + 1)
    if isinstance(node, cst.Call) and ctx.resolver.qualname(node.func, scope) in JOINS:
        kinds = {_moment(e.value, scope, ctx, depth + 1) for arg in node.args if isinstance(arg.value, (cst.List, cst.Tuple))
                 for e in arg.value.elements if literal_value(e.value) is None and not isinstance(e.value, (cst.List, cst.Tuple))}
        return kinds.pop() if len(kinds) == 1 else None
    if isinstance(node, cst.Call):
        reduced = _reduction(node, scope, ctx)
        if reduced is None:
            return None
        degree = _degree(reduced, scope, ctx, depth)
        return {1: FIRST_MOMENT, 2: SECOND_MOMENT}.get(degree)
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.MatrixMultiply):
        return SECOND_MOMENT if _degree(node.left, scope, ctx, depth) == 1 == _degree(node.right, scope, ctx, depth) else None
    if not isinstance(node, cst.BinaryOperation):
        return None
    left, right = _moment(node.left, scope, ctx, depth + 1), _moment(node.right, scope, ctx, depth + 1)
    if isinstance(node.operator, cst.Power) and left == FIRST_MOMENT and _is_two(node.right):
        return PRODUCT_OF_MEANS
    if isinstance(node.operator, cst.Multiply) and left == right == FIRST_MOMENT:
        return PRODUCT_OF_MEANS
    if isinstance(node.operator, cst.Subtract) and left == right and left in (FIRST_MOMENT, SECOND_MOMENT):
        return left  # `c2[w:] - c2[:-w]`: the sum over a window
    if isinstance(node.operator, (cst.Multiply, cst.Divide)):
        scaled, factor = (left, node.right) if left is not None else (right, node.left)
        if scaled is not None and ctx.values.origin(factor, scope) != DATA and _moment(factor, scope, ctx, depth + 1) is None:
            return scaled
    return None


def _running_sum_part(node: cst.BaseExpression, scope: Scope, ctx: FileContext, depth: int) -> cst.CSTNode | None:
    """The ``np.cumsum`` call (of float data: integer running sums are exact) whose elements ``node`` reads:
    ``c[w:]``, ``S[y1][:, x0]``, through names bound once, joins (``np.concatenate([[0.0], np.cumsum(x)])``) and
    nested running sums (``np.cumsum(np.cumsum(img, axis=0), axis=1)``: an integral image)."""
    return _running_sum(node, scope, ctx, depth, part=True)


def _running_sum(node: cst.BaseExpression, scope: Scope, ctx: FileContext, depth: int, part: bool = False,
                 visiting: frozenset = frozenset()) -> cst.CSTNode | None:
    """(``part``: ``node`` must read elements of it, a subscript or a name bound to one.)  A name bound more than
    once (``c = np.cumsum(x); c = np.concatenate(([0.0], c))``) is a running sum when its bindings lead to one
    running sum and nothing else does."""
    if depth > 8:
        return None
    if isinstance(node, cst.Subscript):
        return _running_sum(node.value, scope, ctx, depth + 1, visiting=visiting)
    if isinstance(node, cst.Name):
        found, bindings = scope.lookup(node.value)
        key = (node.value, id(found))
        if key in visiting or not bindings or not all(
                isinstance(binding, ValueBinding) and not binding.augmented for binding in bindings):
            return None
        sums = set()
        for binding in bindings:
            value = binding.value
            if part and not isinstance(value, (cst.Subscript, cst.Name)):
                return None
            sums.add(_running_sum(value, found, ctx, depth + 1, part, visiting | {key}))
        sums.discard(None)
        return sums.pop() if len(sums) == 1 else None
    if part:
        return None
    if not isinstance(node, cst.Call):
        return None
    qualname = ctx.resolver.qualname(node.func, scope) or ""
    positional = [arg.value for arg in node.args if arg.keyword is None]
    if qualname in JOINS and positional and isinstance(positional[0], (cst.List, cst.Tuple)):
        found = {_running_sum(e.value, scope, ctx, depth + 1, visiting=visiting) for e in positional[0].elements} - {None}
        return found.pop() if len(found) == 1 else None
    method = node.func.attr.value if not qualname and isinstance(node.func, cst.Attribute) else None
    data = positional[0] if qualname in ("numpy.cumsum", "numpy.nancumsum") and positional else (
        node.func.value if method == "cumsum" else None)
    if data is None or isinstance(data, cst.Comparison) or ctx.values.is_integer(data, scope):
        return None  # (a running count of booleans is exact too)
    return _running_sum(data, scope, ctx, depth + 1, visiting=visiting) or node


def _reduction(node: cst.Call, scope: Scope, ctx: FileContext) -> cst.BaseExpression | None:
    """The summed expression of ``np.sum(e)``, ``e.mean()``, ``sum(e)``; ``a * b`` for ``np.dot(a, b)``."""
    qualname = ctx.resolver.qualname(node.func, scope)
    positional = [arg.value for arg in node.args if arg.keyword is None]
    if any(arg.keyword is not None and arg.keyword.value in ("axis", "weights") for arg in node.args):
        return None  # per-row moments: shapes too varied to judge
    if qualname is not None and qualname.startswith("numpy."):
        name = qualname[len("numpy."):]
        if name in REDUCTIONS and len(positional) == 1:
            return positional[0]
        if name in INNER_PRODUCTS and len(positional) == 2:
            return cst.BinaryOperation(left=positional[0], operator=cst.Multiply(), right=positional[1])
        return None
    if qualname == "builtins.sum" and len(positional) == 1:
        return positional[0]
    if qualname is None and isinstance(node.func, cst.Attribute) and node.func.attr.value in REDUCTIONS and not positional:
        return node.func.value
    return None


def _degree(node: cst.BaseExpression, scope: Scope, ctx: FileContext, depth: int) -> int | None:
    """1 for data, 2 for a product of two data factors (x*x, x**2, x*y); None for anything else."""
    if depth > 8:
        return None
    values = ctx.values
    if isinstance(node, cst.BinaryOperation):
        left, right = _degree(node.left, scope, ctx, depth + 1), _degree(node.right, scope, ctx, depth + 1)
        if isinstance(node.operator, cst.Multiply) and left == right == 1:
            return 2
        if isinstance(node.operator, cst.Power) and left == 1 and _is_two(node.right):
            return 2
        if isinstance(node.operator, (cst.Multiply, cst.Divide)) and values.origin(node.right, scope) == STATIC:
            return left
        return None
    if isinstance(node, cst.Name):
        found, bindings = scope.lookup(node.value)
        if len(bindings) == 1 and isinstance(bindings[0], ValueBinding) and isinstance(bindings[0].value, cst.BinaryOperation):
            return _degree(bindings[0].value, found, ctx, depth + 1)
    if isinstance(node, (cst.Name, cst.Subscript, cst.Attribute)) and values.origin(node, scope) != STATIC:
        return 1
    return None


def _is_two(node: cst.BaseExpression) -> bool:
    return isinstance(node, (cst.Integer, cst.Float)) and float(node.evaluated_value) == 2.0
