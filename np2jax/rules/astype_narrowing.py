from __future__ import annotations

import libcst as cst

from np2jax.context import FileContext
from np2jax.diagnostics import Severity
from np2jax.rule import Example, Rule, RuleDoc

NARROW_INTEGERS = frozenset({"uint8", "uint16", "uint32", "uint64", "uint", "ubyte", "ushort", "uintc", "uintp",
                             "int8", "int16", "byte", "short", "bool_", "bool"})


class AstypeNarrowing(Rule):
    CODE = "NPJ105"
    NAME = "astype-narrowing"
    MESSAGE = "casting to `{dtype}` wraps out-of-range values in NumPy but not in JAX"
    SEVERITY = Severity.WARNING
    DOC = RuleDoc(
        what="Reports `.astype(...)` and dtype calls to unsigned or narrow integer types on traced values.",
        why=(
            "NumPy wraps (or leaves undefined) float and wide-int values outside the target range; "
            "XLA saturates or gives other values. Negative floats cast to unsigned ints differ most often."
        ),
        use_instead="clip into range first: x.clip(0, 255).astype(jnp.uint8), or cast through int32.",
        known_problems=(
            "Casts to `int`, `int32` and `int64` are not reported: they differ only for NaN, ±inf and values "
            "beyond the integer range (NumPy gives the smallest integer and warns 'invalid value encountered in "
            "cast'; XLA gives 0 for NaN and saturates the others)."
        ),
    )
    EXAMPLES = (
        Example(
            before="""
            import numpy as np

            def to_image(x):
                return (x * 255).astype(np.uint8)
            """,
            diagnostics=("NPJ105",),
        ),
        Example(
            before="""
            import numpy as np

            def to_float(x):
                return x.astype(np.float32)
            """,
        ),
    )

    def on_call(self, node: cst.Call, ctx: FileContext) -> None:
        if not isinstance(node.func, cst.Attribute) or node.func.attr.value != "astype":
            return
        qualname = ctx.qualname(node.func)
        if qualname is not None and not qualname.startswith("numpy."):
            return  # a module-level function named astype that is not NumPy's
        args = [arg for arg in node.args if arg.keyword is None or arg.keyword.value == "dtype"]
        if qualname == "numpy.astype":
            args = args[1:]
        if not args:
            return
        dtype = self._dtype_name(args[0].value, ctx)
        if dtype in NARROW_INTEGERS:
            self.report(ctx, node, self.MESSAGE.format(dtype=dtype))

    @staticmethod
    def _dtype_name(value: cst.BaseExpression, ctx: FileContext) -> str | None:
        if isinstance(value, cst.SimpleString):
            return value.evaluated_value if isinstance(value.evaluated_value, str) else None
        qualname = ctx.qualname(value)
        if qualname is not None and (qualname.startswith("numpy.") or qualname.startswith("jax.numpy.")):
            return qualname.rsplit(".", 1)[1]
        return None
