from __future__ import annotations

from np2jax.context import FileContext, NumpyRef
from np2jax.diagnostics import Severity
from np2jax.rule import Example, Rule, RuleDoc
from np2jax.tables.numpy_api import UNSUPPORTED_MODULES


class NoJaxEquivalent(Rule):
    CODE = "NPJ101"
    NAME = "no-jax-equivalent"
    MESSAGE = "`np.{name}` has no jax.numpy equivalent"
    SEVERITY = Severity.ERROR
    DOC = RuleDoc(
        what="Reports NumPy functions called on traced values that `jax.numpy` does not provide, including every function of the submodules without a counterpart (`np.ma`, `np.testing`, `np.polynomial`, `np.emath`, `np.char`, `np.rec`, `np.lib`): the function stays NumPy code as a whole.",
        why="The call cannot run under `jax.jit`; rewriting it to a name that does not exist would break the code.",
        use_instead="the replacement named in the message, or compute the value outside the jitted function.",
        known_problems="Calls whose arguments are all known at trace time are left alone: NumPy computes them when JAX traces.",
    )
    EXAMPLES = (
        Example(
            before="""
            import numpy as np

            def clean(x):
                return np.real_if_close(np.fix(x))
            """,
            diagnostics=("NPJ101", "NPJ101"),
        ),
        Example(
            title="submodules without a jax.numpy counterpart: masked arrays, test assertions",
            before="""
            import numpy as np

            def positive_total(x):
                m = np.ma.masked_less(x, 0)
                return np.exp(m.sum(axis=1))

            def unit(v):
                np.testing.assert_allclose(np.linalg.norm(v), 1.0)
                return v / np.linalg.norm(v)
            """,
            diagnostics=("NPJ101", "NPJ101"),
        ),
        Example(
            title="static arguments: NumPy computes it at trace time",
            before="""
            import numpy as np

            def cells(x):
                return [i for i in np.ndindex(x.shape)]
            """,
        ),
    )

    def on_numpy_ref(self, ref: NumpyRef, ctx: FileContext) -> None:
        row = ref.row
        if ref.call is None or (ref.member and (row is None or row.numpy not in UNSUPPORTED_MODULES)):
            return
        if row is None:
            missing = True
        else:
            missing = row.kind == "unsupported" or (row.kind == "dtype" and row.jax is None)
        if not missing or ctx.resolver.args_static(ref.call, ref.scope):
            return
        ref.block()
        guideline = row.guideline if row is not None and row.guideline else "compute it outside the jitted function"
        self.report(ctx, ref.call, self.MESSAGE.format(name=ref.name), use_instead=guideline)
