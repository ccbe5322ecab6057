from __future__ import annotations

import re

import libcst as cst

from np2jax.context import FileContext, NumpyRef
from np2jax.diagnostics import Severity
from np2jax.rule import Example, Rule, RuleDoc


# Methods of numpy.random.Generator / RandomState that no ndarray has and that rarely name anything else.
GENERATOR_METHODS = frozenset(
    """integers standard_normal standard_exponential standard_gamma standard_cauchy standard_t permutation permuted
    shuffle multivariate_normal multivariate_hypergeometric multinomial dirichlet poisson binomial negative_binomial
    hypergeometric geometric exponential lognormal chisquare noncentral_chisquare noncentral_f vonmises weibull
    rayleigh gumbel laplace logistic pareto zipf wald triangular logseries random_sample random_integers randint
    randn rand""".split()
)
# Generator methods whose names are common elsewhere (a mesh's `normal`, a math `gamma`): only with a sampling
# keyword or on a receiver named like a generator.
AMBIGUOUS_METHODS = frozenset("normal uniform choice random beta gamma f power bytes".split())
SAMPLING_KEYWORDS = frozenset("size p replace loc scale low high endpoint".split())
GENERATOR_NAME = re.compile(r"(^|_)(rng|prng|rs|random|rand|generator|gen|random_state)(_|\d|$)", re.IGNORECASE)


def generator_call(node: cst.Call) -> str | None:
    """``receiver.method`` when ``node`` calls a method that draws from a NumPy random generator object."""
    func = node.func
    if not isinstance(func, cst.Attribute):
        return None
    method = func.attr.value
    receiver = func.value
    name = receiver.attr.value if isinstance(receiver, cst.Attribute) else receiver.value if isinstance(receiver, cst.Name) else None
    if name is None:
        return None
    if method in AMBIGUOUS_METHODS:
        keywords = {arg.keyword.value for arg in node.args if arg.keyword is not None}
        if not keywords & SAMPLING_KEYWORDS and not GENERATOR_NAME.search(name):
            return None
    elif method not in GENERATOR_METHODS:
        return None
    return f"{name}.{method}"


class NumpyRandom(Rule):
    CODE = "NPJ110"
    NAME = "numpy-random"
    MESSAGE = "`np.{name}` draws from NumPy's stateful generator"
    SEVERITY = Severity.ERROR
    DOC = RuleDoc(
        what=(
            "Reports `np.random.*` (the legacy global functions, `default_rng`, `Generator`, `seed`) inside functions, "
            "and draws from a generator object the function is given or keeps (`rng.integers(...)`, "
            "`self.rng.normal(size=n)`)."
        ),
        why=(
            "Under `jax.jit` NumPy draws once, at trace time, and the same 'random' numbers are baked into "
            "every later call. JAX's random numbers are explicit, splittable keys; the streams also differ. A "
            "generator passed in is not an array: `jax.jit` cannot take it, and a loop turned into "
            "`jax.lax.fori_loop` would draw once for all its steps."
        ),
        known_problems=(
            "A generator object's type is unknown to np2jax: it is recognised by its method (`integers`, "
            "`standard_normal`, `permutation`, ...; `normal`, `uniform`, `choice`, `random` only with a sampling "
            "keyword such as `size=` or `p=`, or on a name like `rng`, `gen`, `random_state`)."
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
        Example(
            title="a generator passed in",
            before="""
            import numpy as np

            def bootstrap_means(x, rng, n_boot):
                means = np.empty(n_boot)
                for b in range(n_boot):
                    means[b] = x[rng.integers(0, len(x), size=len(x))].mean()
                return means
            """,
            diagnostics=("NPJ110",),
        ),
    )

    def on_numpy_ref(self, ref: NumpyRef, ctx: FileContext) -> None:
        if ref.row is None or ref.row.kind != "random":
            return
        ref.block()
        if ref.call is not None or ref.qualname != "numpy.random":
            self.report(ctx, ref.call or ref.node, self.MESSAGE.format(name=ref.name), use_instead=ref.row.guideline)

    def on_call(self, node: cst.Call, ctx: FileContext) -> None:
        name = generator_call(node)
        if name is not None and ctx.qualname(node.func) is None:
            self.report(ctx, node, f"`{name}(...)` draws from a NumPy random generator object, which jax.jit cannot take")
