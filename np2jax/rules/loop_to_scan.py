from __future__ import annotations

import libcst as cst

from np2jax.analysis.collect import append_target
from np2jax.context import FileContext, loop_plan
from np2jax.diagnostics import FixSafety, Severity
from np2jax.rule import Example, Rule, RuleDoc
from np2jax.rules.loop_to_fori import (
    carrying,
    fresh,
    loop_names,
    names_in,
    range_bounds,
    report_conversion,
    element_reads,
)


class LoopToScan(Rule):
    CODE = "NPJ307"
    NAME = "loop-to-scan"
    MESSAGE = "loop became `jax.lax.scan` ({carry}; collecting {collected})"
    SEVERITY = Severity.INFO
    FIX_SAFETY = FixSafety.SAFE
    EXAMPLES_JIT = True
    DOC = RuleDoc(
        what=(
            "In a function that gets `jax.jit`, turns a `for` loop that NPJ305 would make a `jax.lax.fori_loop` "
            "but that also fills lists, one `ys.append(value)` per step, into `jax.lax.scan`: the body becomes a "
            "nested function of the loop index and the carried values that returns the step's values, and "
            "`scan` stacks them along a new first axis, the array `np.stack(ys)` builds from the list. `ys` is "
            "bound to that array (the `ys = []` line goes), so `jnp.stack(ys)` after the loop gives it back "
            "unchanged. The index is carried as a Python-int-typed (weakly typed) counter, like fori_loop's, so "
            "`x * t` keeps the dtype of `x` as NumPy does."
        ),
        why=(
            "`jax.jit` unrolls Python loops: compile time grows with the trip count. `scan` compiles the body "
            "once and runs the same operations in the same order, so the stacked result is the same."
        ),
        use_instead="nothing to do: the loop is converted for you",
        known_problems=(
            "Converted only when the list starts as `ys = []` in the same block before the loop, the body appends "
            "to it exactly once per step at its top level (not under an `if`), uses it nowhere else, and after the "
            "loop it is only read by `np.stack(ys)` (axis 0), or `np.array(ys)` / `np.asarray(ys)` when the loop "
            "surely runs at least once (of no steps, NumPy gives a float64 array of shape (0,), scan one with the "
            "steps' shape; `np.stack` raises in both). The appended value must be an array computed in the "
            "loop, not a Python number (NumPy would stack those as float64/int64). Every step must give a value of "
            "the same shape and dtype: NumPy stacks whatever it gets, `scan` raises at trace time when the carried "
            "values or the step values change shape or dtype (a loud failure, never a different result). Otherwise "
            "the same limits as NPJ305 apply and the function is left un-jitted (NPJ303)."
        ),
    )
    EXAMPLES = (
        Example(
            before="""
            import numpy as np

            def ema_path(x, alpha):
                h = np.zeros(x.shape[1])
                path = []
                for row in x:
                    h = alpha * row + (1 - alpha) * h
                    path.append(h)
                return np.stack(path)
            """,
            after="""
            import jax
            import jax.numpy as jnp

            @jax.jit
            def ema_path(x, alpha):
                h = jnp.zeros(x.shape[1])
                def _loop_body(_carry, _):
                    _i, h = _carry
                    row = x[_i]
                    h = alpha * row + (1 - alpha) * h
                    path = h
                    return (_i + 1, h), path
                (_i, h), path = jax.lax.scan(_loop_body, (0, h), length=len(x))
                return jnp.stack(path)
            """,
            diagnostics=("NPJ307",),
        ),
        Example(
            title="the index used and two lists collected",
            before="""
            import numpy as np

            def decay_path(x, rate):
                level = np.ones(())
                levels = []
                gains = []
                for t in range(x.shape[0]):
                    level = level * np.exp(-rate * t) + x[t]
                    levels.append(level)
                    gains.append(x[t] / level)
                return np.stack(levels), np.stack(gains)
            """,
            after="""
            import jax
            import jax.numpy as jnp

            @jax.jit
            def decay_path(x, rate):
                level = jnp.ones(())
                def _loop_body(_carry, _):
                    t, level = _carry
                    level = level * jnp.exp(-rate * t) + x[t]
                    levels = level
                    gains = x[t] / level
                    return (t + 1, level), (levels, gains)
                (t, level), (levels, gains) = jax.lax.scan(_loop_body, (0, level), length=len(range(x.shape[0])))
                return jnp.stack(levels), jnp.stack(gains)
            """,
            diagnostics=("NPJ307",),
        ),
        Example(
            title="`np.array` of a loop that may run zero times: not converted, not jitted",
            before="""
            import numpy as np

            def wealth_path(returns: np.ndarray):
                wealth = np.ones(())
                path = []
                for r in returns:
                    wealth = wealth * (1 + r)
                    path.append(wealth)
                return np.array(path)
            """,
            after="""
            import numpy as np
            import jax.numpy as jnp

            def wealth_path(returns: np.ndarray):
                wealth = jnp.ones(())
                path = []
                for r in returns:
                    wealth = wealth * (1 + r)
                    path.append(wealth)
                return jnp.array(path)
            """,
            diagnostics=("NPJ303",),
        ),
        Example(
            title="the list is returned as a list: not converted, not jitted",
            before="""
            import numpy as np

            def snapshots(x):
                h = np.zeros(x.shape[1])
                states = []
                for row in x:
                    h = 0.5 * (h + row)
                    states.append(h)
                return states
            """,
            after="""
            import jax.numpy as jnp

            def snapshots(x):
                h = jnp.zeros(x.shape[1])
                states = []
                for row in x:
                    h = 0.5 * (h + row)
                    states.append(h)
                return states
            """,
            diagnostics=("NPJ303",),
        ),
    )

    def rewrite_line(self, original: cst.SimpleStatementLine, updated: cst.SimpleStatementLine, ctx: FileContext):
        """``ys = []`` goes: the scan binds ``ys`` (a line with a comment stays, not to lose the comment)."""
        if not isinstance(original.body[0], cst.Assign) or _has_comment(original):
            return None
        plan = loop_plan(ctx.function, ctx)
        if plan is not None and any(original.body[0] in conversion.starts for conversion in plan.loops.values()):
            return []
        return None

    def rewrite_loop(self, original: cst.For, updated: cst.For, ctx: FileContext) -> list[cst.BaseStatement] | None:
        plan = loop_plan(ctx.function, ctx)
        conversion = plan.loops.get(original) if plan is not None else None
        if conversion is None or not conversion.collected:
            return None
        taken, body_name, index = loop_names(conversion, ctx)
        before: list[cst.BaseStatement] = []
        prologue: list[cst.BaseStatement] = []
        counted = conversion.kind != "range" or index in names_in(updated.body)
        start = "0"
        if conversion.kind == "range":
            lower, upper = range_bounds(updated)
            if counted and lower != "0" and not isinstance(updated.iter.args[0].value, (cst.Name, cst.Integer)):
                start = fresh("_start", taken)
                taken.add(start)
                before.append(cst.parse_statement(f"{start} = {lower}\n"))
            else:
                start = lower
            length = f"len(range({upper}))" if len(updated.iter.args) == 1 else f"len(range({start}, {upper}))"
        else:
            reads, length, _ = element_reads(conversion, updated, taken, before, index, ctx.use_jnp() if conversion.as_array else "jnp")
            prologue.extend(reads)
        step = "_" if "_" not in taken else fresh("_step", taken)  # the scanned values: none
        counter = [index] if counted else []
        carried = [*counter, *conversion.carried]
        initial = [start] * len(counter) + list(conversion.carried)
        advanced = [f"{index} + 1"] * len(counter) + list(conversion.carried)
        if len(carried) == 1:
            parameter = carried[0]
        else:
            parameter = fresh("_carry", taken)
            if carried:
                prologue.insert(0, cst.parse_statement(f"{', '.join(carried)} = {parameter}\n"))
        collected = conversion.collected
        outputs = collected[0] if len(collected) == 1 else f"({', '.join(collected)})"
        statements = [_collect(statement, collected) for statement in updated.body.body]
        returned = f"{_packed(advanced)}, {outputs}"
        body = updated.body.with_changes(body=[*prologue, *statements, cst.parse_statement(f"return {returned}\n")])
        function = cst.FunctionDef(
            name=cst.Name(body_name),
            params=cst.Parameters([cst.Param(cst.Name(parameter)), cst.Param(cst.Name(step))]),
            body=body,
            leading_lines=updated.leading_lines,
        )
        call = f"jax.lax.scan({body_name}, {_packed(initial)}, length={length})"
        if carried:
            after = cst.parse_statement(f"{_packed(carried)}, {outputs} = {call}\n")
        else:
            after = cst.parse_statement(f"{', '.join(collected)} = {call}[1]\n")
        collecting = ", ".join(f"`{name}`" for name in collected)
        report_conversion(self, ctx, original, taken, carry=carrying(conversion.carried), collected=collecting)
        return [*before, function, after]


def _has_comment(line: cst.SimpleStatementLine) -> bool:
    return line.trailing_whitespace.comment is not None or any(empty.comment is not None for empty in line.leading_lines)


def _packed(values: list[str]) -> str:
    if not values:
        return "None"
    return values[0] if len(values) == 1 else f"({', '.join(values)})"


def _collect(statement: cst.BaseStatement, collected: tuple[str, ...]) -> cst.BaseStatement:
    """``ys.append(v)`` -> ``ys = v``: the body function returns the step's value under the list's name."""
    found = append_target(statement)
    if found is None or found[0] not in collected:
        return statement
    name, call = found
    assign = cst.Assign([cst.AssignTarget(cst.Name(name))], call.args[0].value)
    return statement.with_changes(body=[assign])  # type: ignore[union-attr]
