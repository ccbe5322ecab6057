from __future__ import annotations

import libcst as cst

from np2jax.context import FileContext
from np2jax.diagnostics import Severity
from np2jax.rule import Example, Rule, RuleDoc
from np2jax.tables.jax_signatures import JAX_SCIPY
from np2jax.tables.numpy_api import FOREIGN_LIBRARIES


class ForeignArrayLibrary(Rule):
    CODE = "NPJ113"
    NAME = "foreign-array-library"
    MESSAGE = "`{name}` cannot compute on JAX values"
    SEVERITY = Severity.ERROR
    DOC = RuleDoc(
        what="Reports calls into SciPy, scikit-learn, pandas, numba, OpenCV and similar libraries on values that may be traced.",
        why=(
            "These libraries convert their inputs to NumPy: under `jax.jit` that fails, and outside it the "
            "result silently becomes a NumPy array again. The function is left as NumPy code."
        ),
        use_instead="the jax.scipy twin where one exists (named in the message), or call the library outside the migrated function",
        known_problems="Calls whose arguments are all known at trace time are left alone. jax.scipy twins are suggested, not applied: their options differ.",
    )
    EXAMPLES = (
        Example(
            before="""
            import numpy as np
            from scipy import linalg

            def project(a, b):
                return linalg.solve(a, b) * np.sum(b)
            """,
            diagnostics=("NPJ113",),
        ),
        Example(
            title="static arguments are computed at trace time",
            before="""
            import numpy as np
            from scipy.special import factorial

            def taylor(x):
                return np.sum(x) / factorial(3)
            """,
            after="""
            import jax.numpy as jnp
            from scipy.special import factorial

            def taylor(x):
                return jnp.sum(x) / factorial(3)
            """,
        ),
    )

    def on_call(self, node: cst.Call, ctx: FileContext) -> None:
        qualname = ctx.qualname(node.func)
        if qualname is None:
            return
        library = qualname.split(".")[0]
        hint = FOREIGN_LIBRARIES.get(library)
        if hint is None or ctx.resolver.args_static(node, ctx.scope):
            return
        twin = f".{qualname[len('scipy.'):]}" if qualname in JAX_SCIPY else " where it exists"
        self.report(ctx, node, self.MESSAGE.format(name=qualname), use_instead=hint.format(twin=twin))
