from __future__ import annotations

import libcst as cst

from np2jax.analysis.jax_values import name_holds_jax_array
from np2jax.context import FileContext, NumpyRef, runs_on_jax_arrays
from np2jax.diagnostics import Severity
from np2jax.rule import Example, Rule, RuleDoc
from np2jax.tables.numpy_api import STABLE_SORT_KINDS


class SortTies(Rule):
    CODE = "NPJ108"
    NAME = "sort-ties"
    MESSAGE = "`np.{name}` may order equal elements differently in jax.numpy"
    METHOD_MESSAGE = "`.{name}()` of a JAX array may order equal elements differently than NumPy's"
    TIES = ": its operand holds integers or booleans, where ties are common"
    SEVERITY = Severity.INFO
    DOC = RuleDoc(
        what=(
            "Notes `argsort` without a stable kind, and `partition`/`argpartition`, when rewritten; also the "
            "methods `x.argsort()`/`x.partition(k)`/`x.argpartition(k)` where `x` is a JAX array after migration "
            "(in a jitted function, or a name only ever bound to a JAX array). A warning rather than a note when the "
            "operand is known to hold integers or booleans (`np.argsort(counts.astype(int))`, `np.argsort(x > 0)`), "
            "where ties are the rule."
        ),
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
        Example(
            title="the method of a JAX array",
            before="""
            import numpy as np

            def ranks(x):
                scores = np.asarray(x)
                return scores.argsort()
            """,
            after="""
            import jax.numpy as jnp

            def ranks(x):
                scores = jnp.asarray(x)
                return scores.argsort()
            """,
            diagnostics=("NPJ108",),
        ),
    )

    def on_numpy_ref(self, ref: NumpyRef, ctx: FileContext) -> None:
        if ref.call is None or ref.member or ref.name not in ("argsort", "partition", "argpartition"):
            return
        if ctx.resolver.args_static(ref.call, ref.scope):
            return
        if ref.name == "argsort" and _stable(ref.call):
            return
        data = ref.call.args[0].value if ref.call.args and ref.call.args[0].keyword is None else None
        tied = data is not None and (ctx.values.is_integer(data, ref.scope) or isinstance(data, cst.Comparison))
        self.report(ctx, ref.call, self.MESSAGE.format(name=ref.name) + (self.TIES if tied else ""),
                    severity=Severity.WARNING if tied else None)

    def on_call(self, node: cst.Call, ctx: FileContext) -> None:
        func = node.func
        if not isinstance(func, cst.Attribute) or func.attr.value not in ("argsort", "partition", "argpartition"):
            return
        if ctx.resolver.qualname(func, ctx.scope) is not None or (func.attr.value == "argsort" and _stable(node)):
            return  # `np.argsort(...)` itself (on_numpy_ref), a module's function, or a stable sort
        receiver = func.value
        if runs_on_jax_arrays(ctx.function, ctx) or (
                isinstance(receiver, cst.Name) and name_holds_jax_array(receiver.value, ctx.scope, ctx.resolver)):
            self.report(ctx, node, self.METHOD_MESSAGE.format(name=func.attr.value))


def _stable(call: cst.Call) -> bool:
    """``argsort(..., kind="stable")`` (or ``"mergesort"``), ``stable=True``: ties keep their input order."""
    for arg in call.args:
        keyword = arg.keyword.value if arg.keyword is not None else None
        if keyword == "stable" and not (isinstance(arg.value, cst.Name) and arg.value.value == "False"):
            return True
        if keyword == "kind" and isinstance(arg.value, cst.SimpleString):
            if arg.value.evaluated_value in STABLE_SORT_KINDS:
                return True
    return False
