from __future__ import annotations

from np2jax.context import FileContext, NumpyRef
from np2jax.diagnostics import Severity
from np2jax.rule import Example, Rule, RuleDoc

# NumPy function -> (what its result is in NumPy, in jax.numpy), for calls that pass none of `unless`.
_COUNTS = frozenset({"weights", "density"})
_REAL_WHEN_REAL = "real (float) when every eigenvalue is real, complex otherwise"
DIFFERENT_DTYPES: dict[str, tuple[str, str, frozenset[str]]] = {
    "histogram": ("counts are int64", "float32", _COUNTS),
    "histogram2d": ("counts are float64", "int32", _COUNTS),
    "histogramdd": ("counts are float64", "int32", _COUNTS),
    "linalg.eig": (f"results are {_REAL_WHEN_REAL}", "always complex", frozenset()),
    "linalg.eigvals": (f"results are {_REAL_WHEN_REAL}", "always complex", frozenset()),
    # NumPy drops the imaginary parts when the complex roots come in conjugate pairs; jnp.poly keeps them
    "poly": ("is real when complex roots come in conjugate pairs", "complex whenever the roots are", frozenset()),
}


class ResultDtype(Rule):
    CODE = "NPJ119"
    NAME = "result-dtype"
    MESSAGE = "`np.{name}` {numpy} in NumPy but {jax} in jax.numpy"
    SEVERITY = Severity.WARNING
    DOC = RuleDoc(
        what="Reports functions whose jax.numpy twin returns the same values in a different kind of dtype: "
        "`histogram` counts (int64 in NumPy, float32 in JAX), `histogram2d`/`histogramdd` counts (float64 in "
        "NumPy, int32 in JAX), without `weights=` or `density=`; `linalg.eig`/`linalg.eigvals`, whose results "
        "NumPy makes real when every eigenvalue is real (a dtype that depends on the data) and JAX always complex; "
        "`poly`, whose coefficients NumPy makes real when the complex roots come in conjugate pairs (jnp.poly keeps "
        "them complex, with imaginary parts of 1e-16).",
        why=(
            "The values agree, but code that goes on to index with the counts, divide them with `//`, "
            "compare dtypes or write them into an integer array behaves differently. Complex eigenvalues "
            "change what follows: `np.max`, `np.sort` and comparisons order complex numbers by real then "
            "imaginary part, the result is complex, and `argmax` or `<` on them raises in JAX."
        ),
        use_instead=(
            "cast where the kind matters: `counts.astype(int)` (or `astype(float)`) after the call; for "
            "eigenvalues, `jnp.linalg.eigh` for symmetric or Hermitian matrices, or `.real` where they are known real (so for `poly` "
            "of conjugate pairs)."
        ),
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
        Example(
            title="eigenvalues: real in NumPy when they all are",
            before="""
            import numpy as np

            def spectral_radius(A):
                return np.max(np.abs(np.linalg.eigvals(A)))
            """,
            after="""
            import jax.numpy as jnp

            def spectral_radius(A):
                return jnp.max(jnp.abs(jnp.linalg.eigvals(A)))
            """,
            diagnostics=("NPJ119",),
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
