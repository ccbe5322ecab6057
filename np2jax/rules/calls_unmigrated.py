from __future__ import annotations

from np2jax.context import FileContext, FunctionInfo
from np2jax.diagnostics import Severity
from np2jax.rule import Example, Rule, RuleDoc


class CallsUnmigratedFunction(Rule):
    CODE = "NPJ202"
    NAME = "calls-unmigrated-function"
    MESSAGE = "calls `{callee}`, which stays NumPy code: this function stays NumPy too"
    SEVERITY = Severity.ERROR
    DOC = RuleDoc(
        what="Reports functions that call a function or method of the same module that np2jax leaves untouched.",
        why=(
            "A function that is left as NumPy code (because of an error-level diagnostic) may mutate its "
            "arguments or need NumPy arrays. A migrated caller would hand it immutable JAX arrays and rely on "
            "writes that no longer happen. So the caller is left untouched too, transitively."
        ),
        use_instead="fix the callee first (see its own diagnostics); its callers then migrate on the next run",
        known_problems="Only direct calls by name and `self.`/`cls.` method calls within a module are followed.",
    )
    EXAMPLES = (
        Example(
            before="""
            import numpy as np

            def reset(buffer):
                buffer[0] = 0.0

            def step(x):
                y = np.cumsum(x)
                reset(y)
                return y
            """,
            diagnostics=("NPJ201", "NPJ202"),
        ),
    )

    def on_leave_function(self, info: FunctionInfo, ctx: FileContext) -> None:
        forced = ctx.forced_unsupported.get(info.qualname)
        if forced is not None:
            call = info.calls.get(forced.callee, info.node.name)
            self.report(ctx, call, self.MESSAGE.format(callee=forced.callee), exact=True)
