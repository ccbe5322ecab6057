from __future__ import annotations

import libcst as cst

from np2jax.context import FileContext, NumpyRef
from np2jax.diagnostics import Severity
from np2jax.rule import Example, Rule, RuleDoc


class DataDependentShape(Rule):
    CODE = "NPJ102"
    NAME = "data-dependent-shape"
    MESSAGE = "the shape of `np.{name}(...)` depends on the values of its input"
    SEVERITY = Severity.ERROR
    DOC = RuleDoc(
        what=(
            "Reports `unique`, `nonzero`, `argwhere`, `flatnonzero`, one-argument `where`, set operations, "
            "`extract`, `compress`, `bincount` and `repeat` with traced repeats."
        ),
        why="`jax.jit` needs every shape at trace time; these functions only know theirs after looking at the data.",
        use_instead="the jax.numpy version with a static `size=` (and `fill_value=`), or `jnp.where(mask, x, neutral)`.",
        known_problems="Calls on values known at trace time are not reported.",
    )
    EXAMPLES = (
        Example(
            before="""
            import numpy as np

            def positives(x):
                idx = np.nonzero(x > 0)
                return np.where(x > 0), np.unique(x)
            """,
            diagnostics=("NPJ102", "NPJ102", "NPJ102"),
        ),
        Example(
            title="three-argument where is shape-stable",
            before="""
            import numpy as np

            def relu(x):
                return np.where(x > 0, x, 0.0)
            """,
            after="""
            import jax.numpy as jnp

            def relu(x):
                return jnp.where(x > 0, x, 0.0)
            """,
        ),
    )

    def on_numpy_ref(self, ref: NumpyRef, ctx: FileContext) -> None:
        if ref.call is None or ref.member or ref.row is None:
            return
        if ctx.resolver.args_static(ref.call, ref.scope):
            return
        row, args = ref.row, ref.call.args
        if row.kind == "data_dependent":
            hint = row.guideline
        elif ref.name == "where" and len(args) == 1 and args[0].keyword is None:
            hint = "jnp.where(condition, size=N) or the three-argument jnp.where(condition, x, y)"
        elif ref.name == "repeat" and not self._static_repeats(ref.call, ctx, ref):
            hint = "jnp.repeat(a, repeats, total_repeat_length=N) with a static N"
        else:
            return
        ref.block()
        self.report(ctx, ref.call, self.MESSAGE.format(name=ref.name), use_instead=hint)

    @staticmethod
    def _static_repeats(call: cst.Call, ctx: FileContext, ref: NumpyRef) -> bool:
        positional = [arg for arg in call.args if arg.keyword is None]
        keyword = {arg.keyword.value: arg for arg in call.args if arg.keyword is not None}
        repeats = positional[1] if len(positional) > 1 else keyword.get("repeats")
        return repeats is None or ctx.resolver.is_static(repeats.value, ref.scope)
