from __future__ import annotations

import libcst as cst

from np2jax.context import FileContext, NumpyRef
from np2jax.diagnostics import Severity
from np2jax.rule import Example, Rule, RuleDoc


class RoundDecimals(Rule):
    CODE = "NPJ104"
    NAME = "round-decimals"
    MESSAGE = "`np.{name}` with decimals may round differently in jax.numpy"
    SEVERITY = Severity.WARNING
    DOC = RuleDoc(
        what="Reports `np.round`/`np.around` with a `decimals` argument other than 0 on traced values.",
        why=(
            "jax.numpy scales by 10**decimals in the array's own precision (float32 unless x64 is on), "
            "so values near a rounding boundary can come out one unit of the last decimal apart from NumPy."
        ),
        use_instead="jnp.round(x, decimals) after checking that last-digit differences are acceptable, or round outside jit.",
        known_problems="Rounding to whole numbers (no `decimals`) is identical in both and is rewritten.",
    )
    EXAMPLES = (
        Example(
            before="""
            import numpy as np

            def cents(x):
                return np.round(x, 2)
            """,
            diagnostics=("NPJ104",),
        ),
        Example(
            before="""
            import numpy as np

            def whole(x):
                return np.round(x)
            """,
            after="""
            import jax.numpy as jnp

            def whole(x):
                return jnp.round(x)
            """,
        ),
    )

    def on_numpy_ref(self, ref: NumpyRef, ctx: FileContext) -> None:
        if ref.call is None or ref.name not in ("round", "around", "round_"):
            return
        if ctx.resolver.args_static(ref.call, ref.scope):
            return
        decimals = [arg for arg in ref.call.args if arg.keyword is None][1:2]
        decimals += [arg for arg in ref.call.args if arg.keyword is not None and arg.keyword.value == "decimals"]
        if not decimals:
            return
        value = decimals[0].value
        if isinstance(value, cst.Integer) and value.evaluated_value == 0:
            return
        ref.block()
        self.report(ctx, ref.call, self.MESSAGE.format(name=ref.name))
