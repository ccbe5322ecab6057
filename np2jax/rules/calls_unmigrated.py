from __future__ import annotations

from np2jax.context import FileContext, FunctionInfo
from np2jax.diagnostics import Diagnostic, Severity
from np2jax.rule import Example, Rule, RuleDoc


class CallsUnmigratedFunction(Rule):
    CODE = "NPJ202"
    NAME = "calls-unmigrated-function"
    MESSAGE = "calls `{callee}`, which stays NumPy code: this function stays NumPy too"
    CLASS_MESSAGE = "`{callee}` stays NumPy code and shares `self` with this method: the class stays NumPy"
    SEVERITY = Severity.ERROR
    DOC = RuleDoc(
        what=(
            "Reports functions that call a function or method of the same module that np2jax leaves untouched, "
            "and the other methods of a class one of whose methods is left untouched."
        ),
        why=(
            "A function that is left as NumPy code (because of an error-level diagnostic) may mutate its "
            "arguments or need NumPy arrays. A migrated caller would hand it immutable JAX arrays and rely on "
            "writes that no longer happen. So the caller is left untouched too, transitively. Methods of one "
            "class pass arrays to each other through `self`: a class migrates as a whole or not at all."
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
                return buffer.sum()

            def step(x):
                y = np.cumsum(x)
                reset(y)
                return y
            """,
            diagnostics=("NPJ201", "NPJ202"),
        ),
        Example(
            title="a class migrates as a whole",
            before="""
            import numpy as np

            class Buffer:
                def __init__(self, data):
                    self.data = data

                def total(self):
                    return np.sum(self.data)

                def clear(self, i):
                    self.data[i] = 0.0
            """,
            diagnostics=("NPJ201", "NPJ202", "NPJ202"),
        ),
    )

    def on_leave_function(self, info: FunctionInfo, ctx: FileContext) -> None:
        forced = ctx.forced_unsupported.get(info.qualname)
        if forced is None or forced.via_caller:  # via_caller: its own writes are reported (NPJ201)
            return
        if forced.via_class:
            line, col, end_line, end_col = ctx.def_name_span(info)
            ctx.diagnostics.append(
                Diagnostic(self.CODE, self.SEVERITY, self.CLASS_MESSAGE.format(callee=forced.callee), ctx.path,
                           line, col, end_line, end_col, self.DOC.use_instead)
            )
        else:
            call = info.calls[forced.callee]
            self.report(ctx, call, self.MESSAGE.format(callee=forced.callee), exact=True, statement=info.call_statements.get(call))
