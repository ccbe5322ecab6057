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
        what=(
            "Reports NumPy functions that write into an argument: `copyto`, `putmask`, `place`, `put`, `put_along_axis`, "
            "`fill_diagonal` and ufunc `.at` methods, where NPJ200 cannot assign the functional result instead. It can "
            "(`np.add.at(x, i, v)` -> `x = x.at[i].add(v)`, likewise `subtract`/`multiply`/`minimum`/`maximum.at`, "
            "`np.fill_diagonal`, `np.copyto`, `np.putmask` with a number) when the call is a statement of its own and the "
            "array a local name that no other name, view or container can see, and not a parameter; a ufunc `.at` also on "
            "an array attribute of `self` in a method, under the rules of `self.x[i] += v` (NPJ200): "
            "`np.add.at(self.counts, idx, 1)` -> `self.counts = self.counts.at[idx].add(1)`."
        ),
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
        Example(
            title="local arrays only one name refers to: the functional results, exact (NPJ200)",
            before="""
            import numpy as np

            def scatter(idx, w, n):
                counts = np.zeros(n)
                np.add.at(counts, idx, w)
                grid = np.ones((n, n))
                np.fill_diagonal(grid, 0.0)
                return counts, grid
            """,
            after="""
            import jax.numpy as jnp

            def scatter(idx, w, n):
                counts = jnp.zeros(n)
                counts = counts.at[idx].add(w)
                grid = jnp.ones((n, n))
                grid = jnp.fill_diagonal(grid, 0.0, inplace=False)
                return counts, grid
            """,
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
        if ref.call is not None and ctx.inplace_call_plan(ref.call) is not None:
            # A local array only this name refers to: NPJ200 replaces the statement with the functional result.
            # The NumPy name counts as rewritten, so an import left without uses goes.
            ref.rewrite = ref.rewrite or "jax.numpy." + ref.qualname[len("numpy."):]
            return
        ref.block()
        self.report(ctx, ref.call or ref.node, self.MESSAGE.format(name=ref.name), use_instead=hint)
