from __future__ import annotations

import libcst as cst

from np2jax.analysis.aliasing import has_number_hint
from np2jax.analysis.branches import assigned_values, assignments, if_chain, returned
from np2jax.analysis.conditionals import Conversion, Truth
from np2jax.analysis.scope import ParamBinding, ValueBinding
from np2jax.analysis.value_kinds import python_number_kind
from np2jax.context import FileContext, loop_plan
from np2jax.diagnostics import Diagnostic, FixSafety, Severity
from np2jax.rule import Example, Rule, RuleDoc
from np2jax.visitors import FastVisitor, visit

ATOMS = (cst.Name, cst.Attribute, cst.Call, cst.Subscript, cst.Integer, cst.Float)


class TracedConditional(Rule):
    CODE = "NPJ306"
    NAME = "conditional-to-cond"
    MESSAGE = "{what} on traced values became {call}"
    SEVERITY = Severity.INFO
    FIX_SAFETY = FixSafety.SAFE
    EXAMPLES_JIT = True
    DOC = RuleDoc(
        what=(
            "In a function that gets `jax.jit`, turns a conditional whose test depends on array values into "
            "`jax.lax.cond(pred, lambda: a, lambda: b)`: a conditional expression `a if test else b`; an `if`/`elif`/"
            "`else` statement whose branches only assign names (`y, z = jax.lax.cond(...)`; a name a branch, or a "
            "missing `else`, leaves alone keeps its value), update them (`acc += v` is `acc + (v)`) or write array "
            "elements (`out[i] = 0.0` becomes `out.at[i].set(0.0)`, so the `if` chooses between the updated array "
            "and the array as it was); or one that returns in every branch, including a guard clause `if test: return a` followed by "
            "`return b`, or by statements that only bind local names and then the function's final `return b` (they "
            "stay where they are and now run whatever the test; the `return` becomes `jax.lax.cond`), and an `else:` "
            "that computes before its `return`. The test keeps Python's truth value: a comparison or a boolean array as it is, "
            "a number as `!= 0`, `and`/`or`/`not` as `jnp.logical_and`/`logical_or`/`logical_not` (a static left "
            "operand stays a Python conditional around the call, `(jax.lax.cond(w.sum() > 0, ...) if w is not None else step)`, also under `not`: Python short-circuits, and a branch that needs it, `x * w`, is never traced with `w` None). Where every branch value is 0-d and a Python number stands beside "
            "a float array (`return 1.0` beside `return var / mean`; beside `x.sum()`, whose kind np2jax cannot tell, it stays `jax.lax.cond`, which raises for an int), it becomes `jnp.where(test, a, b)` instead (one "
            "per position of a tuple): `jnp.where` promotes the number to the array's dtype as NumPy does, where "
            "`jax.lax.cond` would refuse a float64 number beside a float32 array under x64; with 0-d values it "
            "cannot broadcast, and the branch not taken only costs its arithmetic."
        ),
        why=(
            "Under `jax.jit` Python cannot look at a traced value, so an `if` on one would stop the whole function "
            "from being jitted (NPJ301). `jax.lax.cond` runs only the chosen branch, like Python; unlike "
            "`jnp.where` it never broadcasts or promotes the branches: if their shapes or dtypes differ it raises "
            "when the function is traced instead of returning a shape or dtype NumPy would not (see Known problems "
            "for weak types)."
        ),
        use_instead="nothing to do: the conditional is converted for you",
        known_problems=(
            "Left as they are (NPJ301 says why): branches that choose between tuples or lists (`best = (s, i)` "
            "beside `best = (-np.inf, None)`: jax.lax.cond needs one structure and one dtype per element), "
            "branches with calls np2jax cannot prove free of side effects, "
            "statements other than assignments, augmented assignments and element writes (one per name and branch), "
            "branches reading a name they assigned just before, tests "
            "that are not known to be booleans or numbers (a parameter, a list), `in`/`is` tests, and a Python "
            "number beside an array that may not be 0-d or may be an integer array (NumPy returns either one; "
            "`jax.lax.cond` needs one type), and branches whose dtype kinds can differ with the data (`1` beside "
            "`-1.5`, `x / s` beside an array parameter `x`, `m * 0.5` beside the `m = x.max()` a branch leaves alone, `0.5` beside `x.sum()`, `np.ones_like(x)` beside `x ** p` with `p` a parameter used as no array, which an int `x` and a float `p` promote to float: NumPy returns an int for one, a float for the other). When one "
            "branch is a Python float and the other a float32 array that may not be 0-d, the result is weakly typed, so "
            "combined later with float16 data it stays float16 where NumPy would give float32. A Python number (a literal, `np.inf`, a name bound only to one, a parameter meant to be one: `margin=1`) beside "
            "an array in a `jax.lax.cond` takes the dtype the two promote to (`jnp.asarray(np.inf, "
            "jnp.result_type(np.inf, dx / c))`: under x64 a float64 number beside a float32 array would make "
            "`jax.lax.cond` raise); NumPy returns the Python number itself from that branch. So does a name left alone "
            "by a branch when one of its bindings is a Python int (`best = 0; if x.max() > best: best = x.max()`, a "
            "running maximum: `lambda: jnp.asarray(best, jnp.result_type(jnp.int_, x.max()))`; jax.lax.cond refuses an "
            "int beside a float array); beside a narrow integer array (uint8) it still raises, as the int would "
            "wrap there (`best - 1` is -1 in NumPy). Comments inside the branches of an "
            "`if` statement move above the new statement; a conditional expression with comments between its "
            "parts is left as it is (the call would have nowhere to keep them). A guard clause is left as it is "
            "when a statement after it does more than bind local names from expressions free of side effects (a "
            "loop, a call np2jax cannot prove pure, a write into an argument), rebinds a name the test or the early "
            "value reads, or when its test may not be 0-d or it sits in a nested block; the comments of a guard "
            "clause move to the final `return`. Both branches are traced, so an error in the branch not taken (an index out "
            "of range for the shape) now shows when tracing."
        ),
    )
    EXAMPLES = (
        Example(
            before="""
            import numpy as np

            def shrink(x, lo):
                return x if x.max() < lo else np.minimum(x, lo)
            """,
            after="""
            import jax
            import jax.numpy as jnp

            @jax.jit
            def shrink(x, lo):
                return jax.lax.cond(x.max() < lo, lambda: x, lambda: jnp.minimum(x, lo))
            """,
            diagnostics=("NPJ306",),
        ),
        Example(
            title="an if/else that assigns the same names; a Python number beside a 0-d float of its kind",
            before="""
            import numpy as np

            def huber(r, delta):
                a = np.abs(np.sum(r))
                if a <= delta:
                    loss = 0.5 * a ** 2
                    slope = a
                else:
                    loss = delta * (a - 0.5 * delta)
                    slope = delta
                return loss, slope

            def relu_mean(x):
                m = np.mean(x)
                if m > 0:
                    return m
                return 0.0
            """,
            after="""
            import jax
            import jax.numpy as jnp

            @jax.jit
            def huber(r, delta):
                r = jnp.asarray(r)
                a = jnp.abs(jnp.sum(r))
                loss, slope = jax.lax.cond(a <= delta, lambda: (0.5 * a ** 2, a), lambda: (delta * (a - 0.5 * delta), delta))
                return loss, slope

            @jax.jit
            def relu_mean(x):
                x = jnp.asarray(x)
                m = jnp.mean(x * 1.0)
                return jnp.where(m > 0, m, 0.0)
            """,
            diagnostics=("NPJ306", "NPJ306"),
        ),
        Example(
            title="a guard clause, then statements that bind local names, then the final return",
            before="""
            import numpy as np

            def damped_step(x, g):
                norm = np.linalg.norm(g)
                if norm < 1e-6:
                    return x - 0.1 * g
                unit = g / norm
                return x - 1e-3 * unit
            """,
            after="""
            import jax
            import jax.numpy as jnp

            @jax.jit
            def damped_step(x, g):
                x = jnp.asarray(x)
                norm = jnp.linalg.norm(g)
                unit = g / norm
                return jax.lax.cond(norm < 1e-6, lambda: x - 0.1 * g, lambda: x - 1e-3 * unit)
            """,
            diagnostics=("NPJ306",),
        ),
        Example(
            title="branches whose dtype kind depends on the data are left as they are",
            before="""
            import numpy as np

            def scaled(x):
                if x.sum() > 0:
                    s = 1
                else:
                    s = -1.5
                return x * s

            def normalized(x):
                if x.max() > 1.0:
                    return x / x.max()
                return x
            """,
            diagnostics=("NPJ304", "NPJ304"),
        ),
        Example(
            title="a number tested for truth, `and`, and an if without else",
            before="""
            import numpy as np

            def damp(x, w=None):
                step = np.mean(x)
                if np.sum(x) and step > 1.0:
                    step = step / 2
                if w is not None and w.sum() > 0:
                    step = step * 2
                return x - step
            """,
            after="""
            import jax
            import jax.numpy as jnp

            @jax.jit
            def damp(x, w=None):
                x = jnp.asarray(x)
                step = jnp.mean(x * 1.0)
                step = jax.lax.cond(jnp.logical_and(jnp.sum(x) != 0, step > 1.0), lambda: step / 2, lambda: step)
                step = (jax.lax.cond(w.sum() > 0, lambda: step * 2, lambda: step) if w is not None else step)
                return x - step
            """,
            diagnostics=("NPJ306", "NPJ306"),
        ),
        Example(
            title="a Python number beside an array that may not be 0-d: not converted, not jitted",
            before="""
            import numpy as np

            def gate(x):
                return x if np.sum(x) > 0 else 0.0
            """,
            diagnostics=("NPJ301",),
        ),
        Example(
            title="branches that assign different names: a name a branch leaves alone keeps its value",
            before="""
            import numpy as np

            def clipped(x):
                s = np.max(np.abs(x))
                count = 0
                if s > 1.0:
                    x = np.clip(x, -1.0, 1.0)
                else:
                    count += 1
                return x, count
            """,
            after="""
            import jax
            import jax.numpy as jnp

            @jax.jit
            def clipped(x):
                s = jnp.max(jnp.abs(x))
                count = 0
                x, count = jax.lax.cond(s > 1.0, lambda: (jnp.clip(x, -1.0, 1.0), count), lambda: (x, count + 1))
                return x, count
            """,
            diagnostics=("NPJ306",),
        ),
        Example(
            title="a name set in one branch only, and not before: not converted, not jitted",
            before="""
            import numpy as np

            def scaled(x):
                s = np.max(np.abs(x))
                if s > 1.0:
                    x = x / s
                else:
                    peak = s
                    x = x * peak
                return x
            """,
            diagnostics=("NPJ301",),
        ),
    )

    def __init__(self) -> None:
        # the final `return` of a block -> the guard clauses before it, in order (the `if`s are gone already)
        self._early_returns: dict[cst.SimpleStatementLine, list[tuple[Conversion, cst.If, list[cst.EmptyLine]]]] = {}

    def rewrite_conditional(self, original, updated, ctx: FileContext):
        plan = loop_plan(ctx.function, ctx)
        conversion = plan.conditionals.get(original) if plan is not None else None
        if conversion is None:
            return None
        ctx.function.needs.add("jax")
        self._note(original, ctx, "`jnp.where`" if conversion.select else "`jax.lax.cond`")
        if isinstance(updated, cst.IfExp):
            body, orelse = (self._value(v) for v in (updated.body, updated.orelse))
            call = cst.parse_expression(self._choice(conversion.truths[0], updated.test, body, orelse, ctx, conversion.select))
            return call.with_changes(lpar=updated.lpar, rpar=updated.rpar)
        if conversion.moved:
            return self._moved_else(conversion, updated, ctx)
        leading = [*updated.leading_lines, *comment_lines(updated)]
        if conversion.form == "early-return":
            # The `return` that ends the block is the if's else branch; it becomes one `return` there (the
            # statements between them, which only bind local names, now run first: analysis/early_returns.py).
            self._early_returns.setdefault(conversion.following, []).append((conversion, updated, leading))
            return []
        if conversion.form == "assign" and not _only_assignments(updated):
            # A write in a branch was not rewritten to `x = x.at[i].set(v)` (never expected): the function stays NumPy
            # rather than lose the write.
            ctx.report(self.CODE, Severity.ERROR, original, "a write in a branch of this `if` did not become a functional "
                       "update; the function is left as it is", "report this case to np2jax")
            return None
        chain = self._chain(conversion, updated, ctx)
        if conversion.form == "return":
            line = cst.parse_statement(f"return {chain}\n")
        else:
            line = cst.parse_statement(f"{', '.join(conversion.names)} = {chain}\n")
        return [line.with_changes(leading_lines=leading)]

    def rewrite_line(self, original: cst.SimpleStatementLine, updated: cst.SimpleStatementLine, ctx: FileContext):
        pending = self._early_returns.pop(original, None)
        if pending is None:
            return None
        final: cst.BaseExpression | str = updated.body[0].value
        leading: list[cst.EmptyLine] = []
        for conversion, conditional, lines in reversed(pending):  # the last guard is the innermost jax.lax.cond
            final = self._chain(conversion, conditional, ctx, final)
            leading = [*lines, *leading]
        line = cst.parse_statement(f"return {final}\n")
        return [line.with_changes(leading_lines=[*leading, *updated.leading_lines])]

    def _moved_else(self, conversion: Conversion, updated: cst.If, ctx: FileContext) -> list[cst.BaseStatement]:
        """``if t: return a`` / ``else: <statements>; return b``: the statements, then ``return jax.lax.cond(...)``."""
        else_body = if_chain(updated)[2]
        *moved, last = else_body.body
        kept = else_body.with_changes(body=[last.with_changes(leading_lines=[])])  # what becomes the call
        comments = comment_lines(_with_else(updated, kept))
        line = cst.parse_statement(f"return {self._chain(conversion, updated, ctx, last.body[0].value)}\n")
        first = moved[0].with_changes(leading_lines=[*updated.leading_lines, *moved[0].leading_lines])
        return [first, *moved[1:], line.with_changes(leading_lines=[*comments, *last.leading_lines])]

    def _note(self, original, ctx: FileContext, call: str) -> None:
        line, col, end_line, end_col = ctx.exact_span(original)
        if isinstance(original, cst.If):
            what, end_line, end_col = "`if`", line, col + 2
        else:
            what = "conditional expression"
        ctx.diagnostics.append(
            Diagnostic(self.CODE, self.SEVERITY, self.MESSAGE.format(what=what, call=call), ctx.path, line, col, end_line, end_col, self.DOC.use_instead)
        )

    def _chain(self, conversion: Conversion, updated: cst.If, ctx: FileContext, final: cst.BaseExpression | str | None = None) -> str:
        """``jax.lax.cond(t1, lambda: v1, lambda: jax.lax.cond(t2, ...))`` for the if/elif/else chain."""
        tests, bodies, else_body = if_chain(updated)
        branches = [self._branch(conversion, body) for body in bodies]
        if final is not None:
            branches.append([final])
        elif else_body is not None:
            branches.append(self._branch(conversion, else_body))
        else:
            branches.append([cst.Name(name) for name in conversion.names])
        if conversion.select:  # 0-d values: one jnp.where per position (analysis/conditionals.py)
            columns = []
            for column in zip(*branches):
                result = self._value(column[-1])
                for test, truth, value in reversed(list(zip(tests, conversion.truths, column))):
                    result = self._choice(truth, test, self._value(value), result, ctx, select=True)
                columns.append(result)
            return columns[0] if len(columns) == 1 else f"({', '.join(columns)})"
        rendered = [self._packed(values) for values in _typed_numbers(branches, ctx)]
        result = rendered[-1]
        for test, truth, value in reversed(list(zip(tests, conversion.truths, rendered))):
            result = self._choice(truth, test, value, result, ctx)
        return result

    def _choice(self, truth: Truth, test: cst.BaseExpression, value: str, otherwise: str, ctx: FileContext,
                select: bool = False) -> str:
        """``value`` if ``test`` else ``otherwise``, as ``jax.lax.cond`` (or ``jnp.where``).  A static left operand
        of ``and``/``or`` (``w is not None and w.sum() > 0``) stays a Python conditional around it: Python
        short-circuits, and a branch that may not even trace then (``x * w`` with ``w`` None) is never built."""
        if truth.how in ("python-and", "python-or"):
            left = _python_operand(truth.parts[0], test.left, ctx)
            inner = self._choice(truth.parts[1], test.right, value, otherwise, ctx, select)
            return f"({inner} if {left} else {otherwise})" if truth.how == "python-and" else f"({value} if {left} else {inner})"
        if truth.how == "not" and truth.parts[0].how in ("python-and", "python-or"):
            # `not (w is None or w.sum() <= 0)`: the branches swap, and the static operand still decides first
            return self._choice(truth.parts[0], test.expression, otherwise, value, ctx, select)
        code = truth_code(truth, test, ctx)
        return f"{ctx.use_jnp()}.where({code}, {value}, {otherwise})" if select else f"jax.lax.cond({code}, lambda: {value}, lambda: {otherwise})"

    @staticmethod
    def _branch(conversion: Conversion, body: cst.BaseSuite) -> list[cst.BaseExpression]:
        if conversion.form in ("return", "early-return"):
            return [returned(body)]
        values = assigned_values(body)
        return [values.get(name, cst.Name(name)) for name in conversion.names]  # a name the branch leaves alone

    def _packed(self, values: list[cst.BaseExpression]) -> str:
        parts = [self._value(v) for v in values]
        return parts[0] if len(parts) == 1 else f"({', '.join(parts)})"

    @staticmethod
    def _value(node: cst.BaseExpression | str) -> str:
        if isinstance(node, str):
            return node  # an inner jax.lax.cond call
        code = _code(node)
        if isinstance(node, cst.Tuple) and not node.lpar:
            return f"({code})"
        return code


# Names of float constants (`return np.inf` beside an array)
NUMBER_CONSTANTS = frozenset({"numpy.inf", "numpy.nan", "numpy.pi", "numpy.e", "math.inf", "math.nan", "math.pi", "math.e"})


def _number_constant(node: cst.BaseExpression | str, ctx: FileContext) -> bool:
    """A Python number: a literal (``0.0``, ``-1``), ``np.inf``, ``math.pi``, ``float("inf")``, a name bound only to
    one, or a parameter meant to be one (``margin=1``, ``tol: float``)."""
    if isinstance(node, str):
        return False
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, (cst.Minus, cst.Plus)):
        node = node.expression
    if isinstance(node, (cst.Integer, cst.Float)):
        return True
    if isinstance(node, cst.Call) and ctx.qualname(node.func) == "builtins.float" and len(node.args) == 1:
        return isinstance(node.args[0].value, (cst.SimpleString, cst.Integer, cst.Float))
    if isinstance(node, cst.Name) and ctx.scope is not None and ctx.qualname(node) is None:
        # `margin` of `margin=1` (hunt29 L1: `lambda: margin` beside a float array), `LIMIT = 1.0` at module level
        if python_number_kind(node, ctx.scope, ctx.resolver) in ("int", "float"):
            return True
        _, bindings = ctx.scope.lookup(node.value)
        return bool(bindings) and all(isinstance(b, ParamBinding) and has_number_hint(b.param) for b in bindings)
    return ctx.qualname(node) in NUMBER_CONSTANTS


def _typed_numbers(branches: list[list], ctx: FileContext) -> list[list]:
    """``jax.lax.cond(t, lambda: np.inf, lambda: dx / c)``: a Python number is weakly typed, a float64 under x64,
    which jax.lax.cond refuses beside a float32 array (its branches need one dtype). The number gets the dtype
    the two promote to, as NumPy would when combining them: ``jnp.asarray(np.inf, jnp.result_type(np.inf, dx / c))``
    (only the other branch's dtype is used: XLA drops its arithmetic)."""
    typed = [list(values) for values in branches]
    for column in range(len(typed[0]) if typed else 0):
        values = [values[column] for values in typed]
        numbers = [_number_constant(v, ctx) or _may_hold_number(v, ctx) for v in values]
        reference = next((v for v, number in zip(values, numbers) if not number and not isinstance(v, str)), None)
        if reference is None:
            continue
        numbers = [number and (_number_constant(v, ctx) or not _int_step(reference, v)) for v, number in zip(values, numbers)]
        for values, number in zip(typed, numbers):
            if number:
                code = _code(values[column])
                jnp = ctx.use_jnp()
                # a name that may hold a Python int takes a float branch's dtype, or JAX's default int beside default
                # ints; beside narrow ints the cond still raises (a Python int next to uint8 data stays a Python int in
                # NumPy: `best - 1` is -1, where uint8 would wrap to 255)
                first = f"{jnp}.int_" if _may_hold_number(values[column], ctx) and not _number_constant(values[column], ctx) else code
                values[column] = f"{jnp}.asarray({code}, {jnp}.result_type({first}, {_code(reference)}))"
    return typed


def _int_step(value: cst.BaseExpression, name: cst.BaseExpression) -> bool:
    """``count + 1`` beside ``count``: an int stays an int (no cast needed)."""
    return (isinstance(value, cst.BinaryOperation) and isinstance(value.operator, (cst.Add, cst.Subtract, cst.Multiply))
            and isinstance(name, cst.Name) and any(isinstance(side, cst.Name) and side.value == name.value for side in (value.left, value.right))
            and any(isinstance(side, cst.Integer) for side in (value.left, value.right)))


def _may_hold_number(node: cst.BaseExpression | str, ctx: FileContext) -> bool:
    """A local name one of whose bindings is a Python int (``best = 0`` before ``if x.max() > best: best =
    x.max()``): the branch leaving it alone may hand jax.lax.cond that int beside a float array, which it refuses
    (a weakly typed Python float it promotes to the other branch's float dtype itself)."""
    if not isinstance(node, cst.Name) or ctx.scope is None or ctx.qualname(node) is not None:
        return False
    found, bindings = ctx.scope.lookup(node.value)
    return found is ctx.scope and any(
        isinstance(b, ValueBinding) and not b.augmented and python_number_kind(b.value, found, ctx.resolver) == "int"
        for b in bindings)


class _Comments(FastVisitor):
    def __init__(self) -> None:
        super().__init__()
        self.found: list[cst.Comment] = []

    def visit_Comment(self, node: cst.Comment) -> None:
        self.found.append(node)


def _only_assignments(updated: cst.If) -> bool:
    """Every branch of the rewritten ``if`` only assigns names (writes became ``x = x.at[i].set(v)``)."""
    tests, bodies, else_body = if_chain(updated)
    return all(assignments(body) is not None for body in [*bodies, *([else_body] if else_body is not None else [])])


def _with_else(node: cst.If, body: cst.BaseSuite) -> cst.If:
    """``node`` with the body of the ``else`` that ends its if/elif chain replaced."""
    if isinstance(node.orelse, cst.If):
        return node.with_changes(orelse=_with_else(node.orelse, body))
    return node.with_changes(orelse=node.orelse.with_changes(body=body))


def comment_lines(node: cst.If) -> list[cst.EmptyLine]:
    """The comments inside an ``if`` statement (not above it), as lines to keep above its replacement."""
    visitor = _Comments()
    visit(node.with_changes(leading_lines=[]), visitor)
    return [cst.EmptyLine(comment=comment) for comment in visitor.found]


def _code(node: cst.CSTNode) -> str:
    return cst.Module([]).code_for_node(node)


def truth_code(truth: Truth, node: cst.BaseExpression, ctx: FileContext) -> str:
    """The code of a converted test (analysis/conditionals.py's ``Truth``): a traced boolean, Python's truth value."""
    how = truth.how
    if how in ("as-is", "python"):
        return _code(node)
    if how == "bool":
        return f"bool({_code(node)})"
    if how == "nonzero":
        return f"{_code(node) if isinstance(node, ATOMS) else f'({_code(node)})'} != 0"
    if how == "not":
        return f"{ctx.use_jnp()}.logical_not({truth_code(truth.parts[0], node.expression, ctx)})"
    if how in ("and", "or"):
        left, right = (truth_code(t, n, ctx) for t, n in zip(truth.parts, (node.left, node.right)))
        return f"{ctx.use_jnp()}.logical_{how}({left}, {right})"
    if how in ("python-and", "python-or"):
        left, right = (_python_operand(t, n, ctx) for t, n in zip(truth.parts, (node.left, node.right)))
        return f"{left} {how[len('python-'):]} {right}"
    # "chain": a < b < c -> jnp.logical_and(a < b, b < c)
    links, previous = [], node.left
    for target in node.comparisons:
        links.append(_code(cst.Comparison(left=previous, comparisons=[target])))
        previous = target.comparator
    result = links[0]
    for link in links[1:]:
        result = f"{ctx.use_jnp()}.logical_and({result}, {link})"
    return result

def _python_operand(truth: Truth, node: cst.BaseExpression, ctx: FileContext) -> str:
    text = truth_code(truth, node, ctx)
    if truth.how.startswith("python-") or (truth.how == "python" and isinstance(node, (cst.BooleanOperation, cst.IfExp))):
        return f"({text})"
    return text
