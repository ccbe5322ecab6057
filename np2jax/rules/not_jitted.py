from __future__ import annotations

from np2jax.context import FileContext, FunctionInfo
from np2jax.diagnostics import Diagnostic, Severity
from np2jax.rule import Example, Rule, RuleDoc


class NotJitted(Rule):
    CODE = "NPJ304"
    NAME = "not-jitted"
    MESSAGE = "not jitted: {reason}"
    SEVERITY = Severity.INFO
    EXAMPLES_JIT = True
    DOC = RuleDoc(
        what="Notes migrated functions that np2jax does not decorate with `jax.jit` by design: methods, functions that already have other decorators, `async` functions, and modules where the name `jax` or `functools` means something else.",
        why=(
            "Jitting a method would freeze `self`: `jax.jit` treats it as an argument it cannot trace, and later "
            "changes to the object's arrays would be missed. Other decorators may not compose with `jax.jit`. "
            "These functions are migrated to jax.numpy and run eagerly, computing what they computed before."
        ),
        use_instead="jit pure helpers that take arrays as arguments, or register the class as a pytree and jit by hand",
    )
    EXAMPLES = (
        Example(
            before="""
            import numpy as np

            class Scaler:
                def __init__(self, scale):
                    self.scale = scale

                def apply(self, x):
                    return np.multiply(x, self.scale)
            """,
            after="""
            import jax.numpy as jnp

            class Scaler:
                def __init__(self, scale):
                    self.scale = scale

                def apply(self, x):
                    return jnp.multiply(x, self.scale)
            """,
            diagnostics=("NPJ304",),
        ),
    )

    def on_leave_function(self, info: FunctionInfo, ctx: FileContext) -> None:
        reason = ctx.jit_state(info).skip
        if reason is None:
            return
        line, col, end_line, end_col = ctx.def_name_span(info)
        ctx.diagnostics.append(
            Diagnostic(self.CODE, self.SEVERITY, self.MESSAGE.format(reason=reason), ctx.path,
                       line, col, end_line, end_col, self.DOC.use_instead)
        )
