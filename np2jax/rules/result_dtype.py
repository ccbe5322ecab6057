from __future__ import annotations

from np2jax.context import FileContext, NumpyRef
from np2jax.diagnostics import Severity
from np2jax.rule import Example, Rule, RuleDoc

# NumPy function -> (NumPy's result dtype, jax.numpy's), for calls that pass none of `unless`.
DIFFERENT_DTYPES: dict[str, tuple[str, str, frozenset[str]]] = {
    "histogram": ("int64", "float32", frozenset({"weights", "density"})),
    "histogram2d": ("float64", "int32", frozenset({"weights", "density"})),
    "histogramdd": ("float64", "int32", frozenset({"weights", "density"})),
}


class ResultDtype(Rule):
    CODE = "NPJ119"
    NAME = "result-dtype"
    MESSAGE = "`np.{name}` counts are {numpy} in NumPy but {jax} in jax.numpy"
    SEVERITY = Severity.WARNING
    DOC = RuleDoc(
        what="Reports functions whose jax.numpy twin returns the same values in a different kind of dtype: "
        "`histogram` counts (int64 in NumPy, float32 in JAX), `histogram2d`/`histogramdd` counts (float64 in "
        "NumPy, int32 in JAX), without `weights=` or `density=`.",
        why=(
            "The values agree, but code that goes on to index with the counts, divide them with `//`, "
            "compare dtypes or write them into an integer array behaves differently."
        ),
        use_instead="cast where the kind matters: `counts.astype(int)` (or `astype(float)`) after the call.",
    )
    EXAMPLES = (
        Example(
            before="""
            import numpy as np

            def counts(x):
                h, edges = np.histogram(x, bins=8)
                return h, edges
            """,
            after="""
            import jax.numpy as jnp

            def counts(x):
                h, edges = jnp.histogram(x, bins=8)
                return h, edges
            """,
            diagnostics=("NPJ119",),
        ),
        Example(
            before="""
            import numpy as np

            def pdf(x):
                return np.histogram(x, bins=8, density=True)[0]
            """,
            after="""
            import jax.numpy as jnp

            def pdf(x):
                return jnp.histogram(x, bins=8, density=True)[0]
            """,
        ),
    )

    def on_numpy_ref(self, ref: NumpyRef, ctx: FileContext) -> None:
        if ref.call is None or ref.member or ref.name not in DIFFERENT_DTYPES:
            return
        if ctx.resolver.args_static(ref.call, ref.scope):
            return
        numpy, jax, unless = DIFFERENT_DTYPES[ref.name]
        if any(arg.keyword is not None and arg.keyword.value in unless for arg in ref.call.args):
            return
        self.report(ctx, ref.call, self.MESSAGE.format(name=ref.name, numpy=numpy, jax=jax))
