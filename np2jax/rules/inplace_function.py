from __future__ import annotations

from np2jax.context import FileContext, NumpyRef
from np2jax.diagnostics import Severity
from np2jax.rule import Example, Rule, RuleDoc


class InplaceFunction(Rule):
    CODE = "NPJ111"
    NAME = "inplace-function"
    MESSAGE = "`np.{name}` modifies its argument in place"
    SEVERITY = Severity.ERROR
    DOC = RuleDoc(
        what="Reports NumPy functions that write into an argument: `copyto`, `putmask`, `place`, `put`, `put_along_axis`, `fill_diagonal` and ufunc `.at` methods.",
        why="JAX arrays are immutable: the jax.numpy versions return a new array and leave the argument unchanged.",
        use_instead="assign the functional result: x = x.at[idx].add(v) for np.add.at(x, idx, v)",
    )
    EXAMPLES = (
        Example(
            before="""
            import numpy as np

            def scatter(counts, idx, grid):
                np.add.at(counts, idx, 1)
                np.fill_diagonal(grid, 0.0)
                return counts, grid
            """,
            diagnostics=("NPJ111", "NPJ111"),
        ),
    )

    def on_numpy_ref(self, ref: NumpyRef, ctx: FileContext) -> None:
        if ref.row is None:
            return
        if ref.row.kind == "inplace" and not ref.member:
            hint = ref.row.guideline
        elif ref.member == "at":
            ufunc = ref.row.numpy.rsplit(".", 1)[1]
            hint = f"x = x.at[idx].{ufunc}(v) (exact, unbuffered like np.{ufunc}.at)" if ufunc in ("add", "subtract", "multiply", "divide", "power", "minimum", "maximum") else self.DOC.use_instead
        else:
            return
        ref.block()
        self.report(ctx, ref.call or ref.node, self.MESSAGE.format(name=ref.name), use_instead=hint)
