from __future__ import annotations

import libcst as cst

from np2jax.analysis.loops import all_names
from np2jax.context import FileContext, loop_plan
from np2jax.diagnostics import Diagnostic, FixSafety, Severity
from np2jax.rule import Example, Rule, RuleDoc


class LoopToFori(Rule):
    CODE = "NPJ305"
    NAME = "loop-to-fori"
    MESSAGE = "loop became `jax.lax.fori_loop` ({carry})"
    SEVERITY = Severity.INFO
    FIX_SAFETY = FixSafety.SAFE
    EXAMPLES_JIT = True
    DOC = RuleDoc(
        what=(
            "In a function that gets `jax.jit`, turns a `for` loop over `range(a, b)`, over the rows of an array, or "
            "over `enumerate(array)` into `jax.lax.fori_loop`, when it is longer than the unroll threshold (8) or its "
            "length is known only at run time. The body becomes a nested function of the loop index and the "
            "*carried* values: the names the body assigns that exist before the loop."
        ),
        why=(
            "`jax.jit` unrolls Python loops: compile time grows with the trip count (seconds for 100 steps, "
            "tens of seconds for 1000). `fori_loop` compiles the body once and runs the same operations in the "
            "same order, so the result is the same."
        ),
        use_instead="nothing to do: the loop is converted for you",
        known_problems=(
            "Every carried value must start as an array (not a Python number, `None` or a string: fori_loop would "
            "turn a Python int into an int32 that can overflow, a float into a float32 of fixed shape). "
            "Loops are converted only when the body has no `break`/`continue`/`return`/`raise`, does not grow a "
            "Python list, does not assign its own loop variable, the loop variable is not used after the loop, no "
            "name first set inside is used after it, and the index is never needed as a Python value (a slice "
            "bound, an `if` test); otherwise the function is left un-jitted (NPJ303). A carried value must keep "
            "its shape across iterations (an accumulator that starts as a Python scalar and becomes a vector "
            "makes `fori_loop` raise at trace time)."
        ),
    )
    EXAMPLES = (
        Example(
            before="""
            import numpy as np

            def ema(x, alpha):
                out = np.zeros_like(x)
                out[0] = x[0]
                for t in range(1, x.shape[0]):
                    out[t] = alpha * x[t] + (1 - alpha) * out[t - 1]
                return out
            """,
            after="""
            import jax
            import jax.numpy as jnp

            @jax.jit
            def ema(x, alpha):
                out = jnp.zeros_like(x)
                out = out.at[0].set(x[0])
                def _loop_body(t, out):
                    out = out.at[t].set(alpha * x[t] + (1 - alpha) * out[t - 1])
                    return out
                out = jax.lax.fori_loop(1, x.shape[0], _loop_body, out)
                return out
            """,
            diagnostics=("NPJ305",),
        ),
        Example(
            title="iterating over rows, two carried values",
            before="""
            import numpy as np

            def running_stats(x):
                total = np.zeros(x.shape[1])
                sumsq = np.zeros(x.shape[1])
                for row in x:
                    total = total + row
                    sumsq = sumsq + row * row
                return total / len(x), sumsq / len(x)
            """,
            after="""
            import jax
            import jax.numpy as jnp

            @jax.jit
            def running_stats(x):
                total = jnp.zeros(x.shape[1])
                sumsq = jnp.zeros(x.shape[1])
                def _loop_body(_i, _carry):
                    total, sumsq = _carry
                    row = x[_i]
                    total = total + row
                    sumsq = sumsq + row * row
                    return total, sumsq
                total, sumsq = jax.lax.fori_loop(0, len(x), _loop_body, (total, sumsq))
                return total / len(x), sumsq / len(x)
            """,
            diagnostics=("NPJ305",),
        ),
        Example(
            title="a Python number as a carry: not converted (it would become a 32-bit array), not jitted",
            before="""
            import numpy as np

            def lcg_noise(x, seed=12345):
                out = np.zeros_like(x)
                s = seed
                for i in range(len(x)):
                    s = (s * 16807) % 2147483647
                    out[i] = x[i] + s / 2147483647.0
                return out
            """,
            after="""
            import jax.numpy as jnp

            def lcg_noise(x, seed=12345):
                out = jnp.zeros_like(x)
                s = seed
                for i in range(len(x)):
                    s = (s * 16807) % 2147483647
                    out = out.at[i].set(x[i] + s / 2147483647.0)
                return out
            """,
            diagnostics=("NPJ303",),
        ),
        Example(
            title="the index is needed as a Python value: not converted, not jitted",
            before="""
            import numpy as np

            def prefix_means(x):
                out = np.zeros_like(x)
                for i in range(1, x.shape[0]):
                    out[i] = np.mean(x[:i])
                return out
            """,
            after="""
            import jax.numpy as jnp

            def prefix_means(x):
                out = jnp.zeros_like(x)
                for i in range(1, x.shape[0]):
                    out = out.at[i].set(jnp.mean(x[:i]))
                return out
            """,
            diagnostics=("NPJ303",),
        ),
    )

    def rewrite_loop(self, original: cst.For, updated: cst.For, ctx: FileContext) -> list[cst.BaseStatement] | None:
        plan = loop_plan(ctx.function, ctx)
        if plan is None or original not in plan.loops:
            return None
        conversion = plan.loops[original]
        generated = ctx.function.generated_names
        taken = _names_in(ctx.function.node) | set(ctx.scope.module.bindings) | generated
        body_name = _fresh("_loop_body", taken)
        taken.add(body_name)
        before: list[cst.BaseStatement] = []
        prologue: list[cst.BaseStatement] = []
        index = conversion.index
        if index == "_i":
            index = _fresh("_i", taken)
            taken.add(index)
        if conversion.kind == "range":
            args = [cst.Module([]).code_for_node(a.value) for a in updated.iter.args]
            lower, upper = ("0", args[0]) if len(args) == 1 else (args[0], args[1])
        else:
            source = updated.iter.args[0].value if conversion.kind == "enumerate" else updated.iter
            source_code = cst.Module([]).code_for_node(source)
            if not isinstance(source, cst.Name):
                sequence = _fresh("_seq", taken)
                taken.add(sequence)
                before.append(cst.parse_statement(f"{sequence} = {source_code}\n"))
                source_code = sequence
            prologue.append(cst.parse_statement(f"{conversion.value} = {source_code}[{index}]\n"))
            lower, upper = "0", f"len({source_code})"
        carried = conversion.carried
        if len(carried) == 1:
            parameter, packed = carried[0], carried[0]
        else:
            parameter = _fresh("_carry", taken)
            packed = f"({', '.join(carried)}{',' if len(carried) == 1 else ''})" if carried else "None"
            if carried:
                prologue.insert(0, cst.parse_statement(f"{', '.join(carried)} = {parameter}\n"))
        returned = ", ".join(carried) if carried else parameter
        block = updated.body
        body = block.with_changes(body=[*prologue, *block.body, cst.parse_statement(f"return {returned}\n")])
        function = cst.FunctionDef(
            name=cst.Name(body_name),
            params=cst.Parameters([cst.Param(cst.Name(index)), cst.Param(cst.Name(parameter))]),
            body=body,
            leading_lines=updated.leading_lines,
        )
        targets = ", ".join(carried) if carried else "_"
        call = f"jax.lax.fori_loop({lower}, {upper}, {body_name}, {packed})\n"
        after = cst.parse_statement(f"{targets} = {call}" if carried else call)
        generated.update(taken - _names_in(ctx.function.node) - set(ctx.scope.module.bindings))
        ctx.function.needs.add("jax")
        line, col, end_line, end_col = ctx.exact_span(original)
        carry = "carrying " + ", ".join(f"`{name}`" for name in carried) if carried else "nothing carried"
        ctx.diagnostics.append(
            Diagnostic(self.CODE, self.SEVERITY, self.MESSAGE.format(carry=carry), ctx.path,
                       line, col, line, col + 3, self.DOC.use_instead)
        )
        return [*before, function, after]


def _names_in(node: cst.CSTNode) -> set[str]:
    return {name.value for name in all_names(node)}


def _fresh(base: str, taken: set[str]) -> str:
    name, counter = base, 2
    while name in taken:
        name, counter = f"{base}_{counter}", counter + 1
    return name
