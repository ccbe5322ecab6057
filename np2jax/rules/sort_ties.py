from __future__ import annotations

import libcst as cst

from np2jax.context import FileContext, NumpyRef
from np2jax.diagnostics import Severity
from np2jax.rule import Example, Rule, RuleDoc


class SortTies(Rule):
    CODE = "NPJ108"
    NAME = "sort-ties"
    MESSAGE = "`np.{name}` may order equal elements differently in jax.numpy"
    SEVERITY = Severity.INFO
    DOC = RuleDoc(
        what="Notes `argsort` without a stable kind, and `partition`/`argpartition`, when rewritten.",
        why=(
            "NumPy's default quicksort does not keep ties in input order and its partitions are in no "
            "particular order; JAX sorts stably and partitions differently. Values agree; indices of ties may not."
        ),
        use_instead='np.argsort(x, kind="stable") in the original; it becomes jnp.argsort(x, stable=True), identical in both.',
    )
    EXAMPLES = (
        Example(
            before="""
            import numpy as np

            def ranks(x):
                return np.argsort(x)
            """,
            after="""
            import jax.numpy as jnp

            def ranks(x):
                return jnp.argsort(x)
            """,
            diagnostics=("NPJ108",),
        ),
        Example(
            before="""
            import numpy as np

            def ranks(x):
                return np.argsort(x, kind="stable")
            """,
            after="""
            import jax.numpy as jnp

            def ranks(x):
                return jnp.argsort(x, stable=True)
            """,
        ),
    )

    def on_numpy_ref(self, ref: NumpyRef, ctx: FileContext) -> None:
        if ref.call is None or ref.member or ref.name not in ("argsort", "partition", "argpartition"):
            return
        if ctx.resolver.args_static(ref.call, ref.scope):
            return
        if ref.name == "argsort":
            for arg in ref.call.args:
                keyword = arg.keyword.value if arg.keyword is not None else None
                if keyword == "stable" and not (isinstance(arg.value, cst.Name) and arg.value.value == "False"):
                    return
                if keyword == "kind" and isinstance(arg.value, cst.SimpleString):
                    if arg.value.evaluated_value in ("stable", "mergesort"):
                        return
        self.report(ctx, ref.call, self.MESSAGE.format(name=ref.name))
