from __future__ import annotations

import libcst as cst

from np2jax.analysis.scope import ValueBinding
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
        what=(
            "Reports `.astype(...)` and dtype calls to unsigned or narrow integer types on traced values, also "
            "when the dtype is chosen at run time among such types (`np.uint8 if bits == 8 else np.uint16`, directly "
            "or through a local name)."
        ),
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
        Example(
            title="a dtype chosen at run time among narrow ones",
            before="""
            import numpy as np

            def quantize(x, bits=8):
                dtype = np.uint8 if bits == 8 else np.uint16
                return (x * ((1 << bits) - 1)).astype(dtype)
            """,
            diagnostics=("NPJ105",),
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

    @classmethod
    def _dtype_name(cls, value: cst.BaseExpression, ctx: FileContext, depth: int = 0) -> str | None:
        """The dtype's NumPy name; for a choice (`np.uint8 if bits == 8 else np.uint16`, also through a local name
        bound to one), a narrow one among the choices if there is one."""
        if depth > 4:
            return None
        choices: list[cst.BaseExpression] = []
        if isinstance(value, cst.IfExp):
            choices = [value.body, value.orelse]
        elif isinstance(value, cst.Name) and ctx.qualname(value) is None:
            found, bindings = ctx.scope.lookup(value.value)
            if found is not None and found.kind == "function":
                choices = [b.value for b in bindings if isinstance(b, ValueBinding) and not b.augmented]
        if choices:
            names = [cls._dtype_name(choice, ctx, depth + 1) for choice in choices]
            return next((name for name in names if name in NARROW_INTEGERS), None)
        if isinstance(value, cst.SimpleString):
            return value.evaluated_value if isinstance(value.evaluated_value, str) else None
        qualname = ctx.qualname(value)
        if qualname is not None and (qualname.startswith("numpy.") or qualname.startswith("jax.numpy.")):
            return qualname.rsplit(".", 1)[1]
        return None
