from __future__ import annotations

from np2jax.context import FileContext, NumpyRef
from np2jax.diagnostics import Severity
from np2jax.rule import Example, Rule, RuleDoc
from np2jax.tables import lookup_numpy
from np2jax.tables.numpy_api import UNSUPPORTED_MODULES


class NoJaxEquivalent(Rule):
    CODE = "NPJ101"
    NAME = "no-jax-equivalent"
    MESSAGE = "`np.{name}` has no jax.numpy equivalent"
    SEVERITY = Severity.ERROR
    DOC = RuleDoc(
        what="Reports NumPy functions called on traced values that `jax.numpy` does not provide (or called with a `dtype=` it does not have, `np.longdouble`), including every function of the submodules without a counterpart (`np.ma`, `np.testing`, `np.polynomial`, `np.emath`, `np.char`, `np.rec`, `np.lib`): the function stays NumPy code as a whole.",
        why="The call cannot run under `jax.jit`; rewriting it to a name that does not exist would break the code.",
        use_instead="the replacement named in the message, or compute the value outside the jitted function.",
        known_problems="Calls whose arguments are all known at trace time are left alone: NumPy computes them when JAX traces.",
    )
    EXAMPLES = (
        Example(
            title="a dtype JAX does not have",
            before="""
            import numpy as np

            def extended(x):
                return np.asarray(x, dtype=np.longdouble) * 3
            """,
            diagnostics=("NPJ101",),
        ),
        Example(
            before="""
            import numpy as np

            def clean(x):
                return np.real_if_close(np.fix(x))
            """,
            diagnostics=("NPJ101", "NPJ101"),
        ),
        Example(
            title="submodules without a jax.numpy counterpart: masked arrays, test assertions",
            before="""
            import numpy as np

            def positive_total(x):
                m = np.ma.masked_less(x, 0)
                return np.exp(m.sum(axis=1))

            def unit(v):
                np.testing.assert_allclose(np.linalg.norm(v), 1.0)
                return v / np.linalg.norm(v)
            """,
            diagnostics=("NPJ101", "NPJ101"),
        ),
        Example(
            title="static arguments: NumPy computes it at trace time",
            before="""
            import numpy as np

            def cells(x):
                return [i for i in np.ndindex(x.shape)]
            """,
        ),
    )

    DTYPE_MESSAGE = "`np.{name}` is called with `dtype=np.{dtype}`, a type jax.numpy does not have"

    def on_numpy_ref(self, ref: NumpyRef, ctx: FileContext) -> None:
        row = ref.row
        if ref.call is None or (ref.member and (row is None or row.numpy not in UNSUPPORTED_MODULES)):
            return
        if row is None:
            missing = True
        else:
            missing = row.kind == "unsupported" or (row.kind == "dtype" and row.jax is None)
        if not missing:
            dtype = _unsupported_dtype(ref, ctx)
            if dtype is not None and not ctx.resolver.args_static(ref.call, ref.scope):
                ref.block()  # `np.ones(n, dtype=np.longdouble)`: jnp.ones takes no such dtype
                self.report(ctx, ref.call, self.DTYPE_MESSAGE.format(name=ref.name, dtype=dtype.name),
                            use_instead=dtype.row.guideline or "a dtype JAX has (float64 with jax_enable_x64)")
            return
        if ctx.resolver.args_static(ref.call, ref.scope):
            return
        ref.block()
        guideline = row.guideline if row is not None and row.guideline else "compute it outside the jitted function"
        self.report(ctx, ref.call, self.MESSAGE.format(name=ref.name), use_instead=guideline)


class _Dtype:
    def __init__(self, name: str, row) -> None:
        self.name, self.row = name, row


def _unsupported_dtype(ref: NumpyRef, ctx: FileContext) -> _Dtype | None:
    """The ``dtype=`` argument of ``ref``'s call when it names a NumPy type JAX lacks (``np.longdouble``)."""
    for arg in ref.call.args:
        if arg.keyword is not None and arg.keyword.value == "dtype":
            qualname = ctx.resolver.qualname(arg.value, ref.scope)
            row = lookup_numpy(qualname) if qualname is not None and qualname.startswith("numpy.") else None
            if row is not None and row.kind == "unsupported":
                return _Dtype(qualname[len("numpy."):], row)
    return None
