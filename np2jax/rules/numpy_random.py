from __future__ import annotations

from np2jax.context import FileContext, NumpyRef
from np2jax.diagnostics import Severity
from np2jax.rule import Example, Rule, RuleDoc


class NumpyRandom(Rule):
    CODE = "NPJ110"
    NAME = "numpy-random"
    MESSAGE = "`np.{name}` draws from NumPy's stateful generator"
    SEVERITY = Severity.ERROR
    DOC = RuleDoc(
        what="Reports `np.random.*` (the legacy global functions, `default_rng`, `Generator`, `seed`) inside functions.",
        why=(
            "Under `jax.jit` NumPy draws once, at trace time, and the same 'random' numbers are baked into "
            "every later call. JAX's random numbers are explicit, splittable keys; the streams also differ."
        ),
        use_instead="take a `key` argument and use jax.random: key, sub = jax.random.split(key); jax.random.normal(sub, shape)",
    )
    EXAMPLES = (
        Example(
            before="""
            import numpy as np

            def noisy(x, scale):
                rng = np.random.default_rng(0)
                return x + scale * np.random.randn(*x.shape)
            """,
            diagnostics=("NPJ110", "NPJ110"),
        ),
    )

    def on_numpy_ref(self, ref: NumpyRef, ctx: FileContext) -> None:
        if ref.row is None or ref.row.kind != "random":
            return
        ref.block()
        if ref.call is not None or ref.qualname != "numpy.random":
            self.report(ctx, ref.call or ref.node, self.MESSAGE.format(name=ref.name), use_instead=ref.row.guideline)
