from __future__ import annotations

import libcst as cst

from np2jax.analysis.links import is_foreign
from np2jax.analysis.resolve import is_numpy
from np2jax.analysis.scipy_twins import twin_for
from np2jax.analysis.scope import ImportBinding

from np2jax.context import FileContext, FunctionInfo
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
        what=(
            "Reports calls into SciPy, scikit-learn, pandas, numba, OpenCV and similar libraries on values that may "
            "be traced, and functions compiled by numba (`@nb.njit`, `@numba.jit(...)`, also through a module-level "
            "alias): their bodies stay NumPy, which is what numba compiles. Also a name imported from another "
            "library with NumPy's as the fallback (`try: from pyfftw.interfaces.numpy_fft import rfft` / `except "
            "ImportError: from numpy.fft import rfft`): which one runs depends on the machine."
        ),
        why=(
            "These libraries convert their inputs to NumPy: under `jax.jit` that fails, and outside it the "
            "result silently becomes a NumPy array again. The function is left as NumPy code."
        ),
        use_instead="the jax.scipy twin where one exists (named in the message), or call the library outside the migrated function",
        known_problems=(
            "Calls whose arguments are all known at trace time are left alone. SciPy calls whose jax.scipy twin "
            "computes the same thing are rewritten to it instead of reported: `scipy.linalg` `inv`, `expm`, "
            "`cholesky`, `solve` (assume_a 'gen' or 'pos'), `solve_triangular`, `qr` (no pivoting), `block_diag`; "
            "`scipy.special` `expit`, `logit`, `erf`, `erfc`, `erfinv`, `erfcx`, `i0`, `i0e`, `i1`, `i1e`, `entr`, "
            "`ndtri`, `xlogy`, `xlog1py`, `logsumexp`, `softmax`, `log_softmax`; `scipy.stats.norm`'s `pdf`, "
            "`logpdf`, `cdf`, `logcdf`, `sf`, `logsf` and `ppf` with a positive literal `scale` or none; not given a "
            "tuple or list where jax needs an array (np2jax/analysis/scipy_twins.py lists what is left out and "
            "why: float64 results of float32 input, one triangle read, different edge values). As with "
            "np.linalg, a singular or indefinite matrix gives inf/nan instead of LinAlgError (NPJ118 reports the "
            "handlers that rely on it)."
        ),
    )
    EXAMPLES = (
        Example(
            before="""
            import numpy as np
            from scipy import linalg

            def project(a, b):
                return linalg.lstsq(a, b)[0] * np.sum(b)
            """,
            diagnostics=("NPJ113",),
        ),
        Example(
            title="SciPy functions whose jax.scipy twin computes the same thing are rewritten to it",
            before="""
            import numpy as np
            from scipy import linalg
            from scipy.special import logsumexp

            def kalman_gain(P, H, R):
                S = H @ P @ H.T + R
                return P @ H.T @ linalg.inv(S)

            def softmax_rows(logits):
                return np.exp(logits - logsumexp(logits, axis=-1, keepdims=True))
            """,
            after="""
            import jax.scipy.linalg
            import jax.scipy.special
            import jax.numpy as jnp

            def kalman_gain(P, H, R):
                S = H @ P @ H.T + R
                return P @ H.T @ jax.scipy.linalg.inv(S)

            def softmax_rows(logits):
                return jnp.exp(logits - jax.scipy.special.logsumexp(logits, axis=-1, keepdims=True))
            """,
        ),
        Example(
            title="a numba kernel stays NumPy: numba compiles NumPy calls",
            before="""
            import numpy as np
            import numba as nb

            @nb.njit(cache=True)
            def running_max(x):
                out = np.empty_like(x)
                out[0] = x[0]
                for i in range(1, x.shape[0]):
                    out[i] = max(out[i - 1], x[i])
                return out
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

    COMPILED_MESSAGE = "decorated with `{name}`, which compiles NumPy code, not jax.numpy: the function stays NumPy"

    def on_leave_function(self, info: FunctionInfo, ctx: FileContext) -> None:
        """``@numba.njit`` (also through a module-level alias, ``njit_stable = nb.njit(...)``): numba compiles the
        body's NumPy calls and ``.at`` updates do not exist for it."""
        for decorator in info.node.decorators:
            name = _compiler(decorator.decorator, ctx)
            if name is not None:
                self.report(ctx, decorator, self.COMPILED_MESSAGE.format(name=name),
                            use_instead="keep the numba kernel NumPy, or drop numba and let jax.jit compile the function")
                return

    def on_call(self, node: cst.Call, ctx: FileContext) -> None:
        qualname = ctx.qualname(node.func) or _imported_somewhere(node.func, ctx)
        if qualname is None:
            return
        library = qualname.split(".")[0]
        hint = FOREIGN_LIBRARIES.get(library)
        if hint is None and ctx.qualname(node.func) is None:  # `rfft` from pyfftw, or NumPy's where pyfftw is missing
            hint = "jax.numpy's twin of the NumPy fallback; or call it outside the migrated function"
        if hint is None or ctx.resolver.args_static(node, ctx.scope):
            return
        twin = twin_for(node, qualname, ctx.resolver, ctx.scope) if ctx.qualname(node.func) == qualname else None
        if twin is not None:
            ctx.call_funcs[node] = twin.target
            return
        twin = f".{qualname[len('scipy.'):]}" if qualname in JAX_SCIPY else " where it exists"
        self.report(ctx, node, self.MESSAGE.format(name=qualname), use_instead=hint.format(twin=twin))


def _imported_somewhere(func: cst.BaseExpression, ctx: FileContext) -> str | None:
    """``simpson`` bound by imports of several names (``try: from scipy.integrate import simpson`` / ``except
    ImportError: from scipy.integrate import simps as simpson``, a version test): the first foreign one."""
    if not isinstance(func, cst.Name):
        return None
    found, bindings = ctx.scope.lookup(func.value)
    if found is None or found.kind != "module":
        return None
    imported = [b.qualname for b in bindings if isinstance(b, ImportBinding) and b.qualname]
    for qualname in imported:
        if qualname.split(".")[0] in FOREIGN_LIBRARIES:
            return qualname
    if any(is_numpy(q) for q in imported):  # `try: from pyfftw.interfaces.numpy_fft import rfft` / `except: numpy.fft`
        return next((q for q in imported if not is_numpy(q) and not q.startswith("jax.") and not is_foreign(q)), None)
    return None


COMPILERS = ("numba", "numexpr")


def _compiler(expression: cst.BaseExpression, ctx: FileContext, depth: int = 0) -> str | None:
    """The numba decorator ``expression`` names (``nb.njit``, ``numba.jit(nopython=True)``, a module-level name
    bound to one), or None."""
    if isinstance(expression, cst.Call):
        expression = expression.func
    qualname = ctx.resolver.qualname(expression, ctx.resolver.scopes[ctx.module])
    if qualname is not None and qualname.split(".")[0] in COMPILERS:
        return qualname
    if isinstance(expression, cst.Name) and depth < 3:
        found, bindings = ctx.resolver.scopes[ctx.module].lookup(expression.value)
        for binding in bindings:
            value = getattr(binding, "value", None)
            if found is not None and found.kind == "module" and isinstance(value, cst.BaseExpression):
                name = _compiler(value, ctx, depth + 1)
                if name is not None:
                    return name
    return None
