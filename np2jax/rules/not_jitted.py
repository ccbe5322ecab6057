from __future__ import annotations

from np2jax.context import FileContext, FunctionInfo
from np2jax.diagnostics import Diagnostic, Severity
from np2jax.rule import Example, Rule, RuleDoc


class NotJitted(Rule):
    CODE = "NPJ304"
    NAME = "not-jitted"
    MESSAGE = "not jitted: {reason}"
    SEVERITY = Severity.INFO
    EXAMPLES_JIT = True
    DOC = RuleDoc(
        what=(
            "Says why a function is not decorated with `jax.jit` when no other diagnostic does, so that every "
            "function left un-jitted in a module that uses NumPy carries a reason: methods and constructors, "
            "functions with other decorators, `async` functions, modules where the name `jax` or `functools` means "
            "something else; functions whose own attributes the module reads (`f.__defaults__`, `f.__code__`: a "
            "jitted function has none; `eval(name).__defaults__` keeps every function with defaults un-jitted); functions inside a function that is not jitted; and functions with nothing to "
            "rewrite that are not array code jax.jit could trace as they are (Python-number helpers, functions "
            "that return only sizes, or whose loop or `if` needs concrete values: the reason names the line). A "
            "function that cannot be jitted because of a boolean mask index inside a loop, or whose loop slices "
            "with a length that changes with the step (`x[i + 1:]`, `d[idx:idx + len(j)]`; not fixed-length windows "
            "`x[i:i + 3]`) or builds arrays of such a length (`np.arange(i + 1, n)`), is left as NumPy code and "
            "said so here: eager jax.numpy would compile new kernels for the new shape at every step (a 10,000-fold "
            "slowdown in pyentrp's sample entropy, minutes for pymannkendall's Sen's slope). So is one whose loop "
            "writes into array elements that change with the step (`out[i] = a * x[i] + (1 - a) * out[i - 1]`, "
            "`counts[b] += w[i]`; not a short `range` of literals, not a write at a fixed index such as "
            "`lap[1:-1] = ...`): outside jax.jit every `.at[i].set` copies the whole array (an EMA of 2,000 samples "
            "took 6 s against NumPy's 2 ms); also in a function with a decorator jax.jit does not combine with. So is a "
            "module-level function that cannot be jitted and that the module calls inside a loop (`for i in range(n): "
            "granulate(ts, i + 1)`): each eager call dispatches its operations one by one and compiles them again for "
            "each new shape (pyentrp's multiscale entropy went 600x slower); a method another method of its class "
            "calls inside a loop (`for row in X: self.push(row)`), and a method whose loop writes into array elements "
            "(methods are never jitted: a smoother's `out[i] = self.step(z)` went 700x slower), whose class then "
            "stays NumPy code (NPJ202); and a function that a test on traced values inside a loop (a `while` test, an `if` "
            "or `and` in a `for` loop) keeps from being jitted, when the loop computes with what jax.numpy calls make "
            "(`vx = v0 * np.cos(th)` stepped 14,000 times: 124x slower; a bisection's `np.sign(fm)`: 24x; a convex "
            "hull over `pts = points[np.argsort(...)]`: 1,600x), where the loop's own NumPy calls would not. So is a function "
            "decorated with numba's `@njit`/`@jit` (also imported under another name, or a fallback of that name) or `@np.vectorize`: numba cannot "
            "compile jax.numpy, and np.vectorize runs the body once per element, where eager jax.numpy would dispatch "
            "kernels each time; and a function that defines such a helper inside it. NPJ301/NPJ303 still name what keeps it un-jitted. The functions calling "
            "such a function (or handing it on, `map(f, xs)`), in this module or another, stay NumPy code too "
            "(NPJ202): handed JAX arrays, its NumPy code could not write into them (`out = x.copy()` of one), nor "
            "keep NumPy's dtypes (`np.cumsum` of a JAX uint8 array is JAX's, which wraps). A function that now "
            "returns the arguments it writes into (NPJ203: its callers rebind them) stays migrated. "
            "So is a function whose parameters hold Python objects (NPJ302: `d = M1 "
            "- M2; d.simplify()` of SymPy matrices) when a NumPy call takes them (`np.array(d)`): jax.numpy "
            "cannot take them either."
        ),
        why=(
            "Jitting a method would freeze `self`: `jax.jit` treats it as an argument it cannot trace, and later "
            "changes to the object's arrays would be missed. Other decorators may not compose with `jax.jit`. "
            "A helper that computes with Python numbers would return arrays once jitted. "
            "These functions run eagerly, computing what they computed before."
        ),
        use_instead="jit pure helpers that take arrays as arguments, or register the class as a pytree and jit by hand",
    )
    EXAMPLES = (
        Example(
            before="""
            import numpy as np

            class Scaler:
                def __init__(self, scale):
                    self.scale = scale

                def apply(self, x):
                    return np.multiply(x, self.scale)
            """,
            after="""
            import jax.numpy as jnp

            class Scaler:
                def __init__(self, scale):
                    self.scale = scale

                def apply(self, x):
                    return jnp.multiply(x, self.scale)
            """,
            diagnostics=("NPJ304", "NPJ304"),  # the constructor and the method
        ),
        Example(
            title="nothing array-specific to compile, and a function inside one that is not jitted",
            before="""
            import numpy as np

            def scaled(x, factor):
                return x * factor

            def make_scaler(factor):
                def scale(x):
                    return np.multiply(x, factor)
                return scale
            """,
            after="""
            import jax.numpy as jnp

            def scaled(x, factor):
                return x * factor

            def make_scaler(factor):
                def scale(x):
                    return jnp.multiply(x, factor)
                return scale
            """,
            diagnostics=("NPJ304", "NPJ302", "NPJ304"),  # make_scaler returns a function (NPJ302); scale runs inside it
        ),
    )

    def on_function_decided(self, info: FunctionInfo, ctx: FileContext) -> None:
        # Here, not when leaving the function: a later rule may still find an error that keeps it NumPy.
        if info.jit or ctx.tracing is None:
            return  # the functions inside a jitted one are traced with it
        if not info.has_errors(ctx):
            reason, use_instead = (ctx.jit_state(info).skip, "") if info.changed else info.as_is_reason
            if reason:
                self._note(info, reason, ctx, use_instead)
        for nested in info.nested:
            if not any(nested.line <= d.line <= nested.end_line for d in ctx.diagnostics[nested.first_diagnostic:]):
                outer = nested.qualname.rsplit(".<locals>.", 1)[0].rsplit(".", 1)[-1]
                self._note(nested, f"a nested function: it runs as part of `{outer}`, which is not jitted", ctx)

    def _note(self, info: FunctionInfo, reason: str, ctx: FileContext, use_instead: str = "") -> None:
        line, col, end_line, end_col = ctx.def_name_span(info)
        ctx.diagnostics.append(
            Diagnostic(self.CODE, self.SEVERITY, self.MESSAGE.format(reason=reason), ctx.path,
                       line, col, end_line, end_col, use_instead or self.DOC.use_instead)
        )
