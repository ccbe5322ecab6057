from __future__ import annotations

from np2jax.context import FileContext, NumpyRef
from np2jax.diagnostics import Severity
from np2jax.rule import Example, Rule, RuleDoc

WIDE_TYPES = frozenset({"float64", "double", "complex128", "cdouble", "int64", "uint64", "int_", "uint", "longlong", "ulonglong"})


class X64Precision(Rule):
    CODE = "NPJ107"
    NAME = "x64-precision"
    MESSAGE = "`np.{name}` is 32-bit under JAX unless jax_enable_x64 is set"
    SEVERITY = Severity.INFO
    DOC = RuleDoc(
        what="Notes explicit 64-bit dtypes used inside migrated functions.",
        why=(
            "JAX canonicalises float64/int64/complex128 to their 32-bit forms unless `jax_enable_x64` is on, "
            "so results agree with NumPy only to float32 precision and int64 arithmetic can overflow at 2**31."
        ),
        use_instead='jax.config.update("jax_enable_x64", True) at start-up, or accept float32 tolerances.',
    )
    EXAMPLES = (
        Example(
            before="""
            import numpy as np

            def mean64(x):
                return np.mean(x, dtype=np.float64)
            """,
            after="""
            import numpy as np
            import jax.numpy as jnp

            def mean64(x):
                return jnp.mean(x, dtype=np.float64)
            """,
            diagnostics=("NPJ107",),
        ),
    )

    def on_numpy_ref(self, ref: NumpyRef, ctx: FileContext) -> None:
        if ref.row is not None and ref.row.kind == "dtype" and not ref.member and ref.name in WIDE_TYPES:
            self.report(ctx, ref.node, self.MESSAGE.format(name=ref.name))
