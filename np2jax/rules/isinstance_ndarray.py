from __future__ import annotations

import libcst as cst

from np2jax.analysis.scope import ParamBinding
from np2jax.context import FileContext
from np2jax.diagnostics import Severity
from np2jax.rule import Example, Rule, RuleDoc


class IsinstanceNdarray(Rule):
    CODE = "NPJ106"
    NAME = "isinstance-ndarray"
    MESSAGE = "a jax.Array is not a `np.ndarray`: this check becomes False after migration"
    SCALAR_MESSAGE = (
        "a NumPy reduction gives a NumPy scalar (`np.float64` is a `float`); after migration it is a 0-d jax.Array: "
        "this type check changes"
    )
    ISSCALAR_MESSAGE = "`np.isscalar` is True for a NumPy scalar and False for the 0-d jax.Array migrated code computes"
    SEVERITY = Severity.WARNING
    DOC = RuleDoc(
        what="Reports `isinstance(x, np.ndarray)` inside functions, and type checks that a value computed from arrays passes as a NumPy scalar but not as the 0-d jax.Array it becomes: `isinstance(np.max(x), float)` (also `int`, `numbers.Number`, `np.floating` ...), `np.isscalar(x.mean())`.",
        why="Migrated functions receive and build `jax.Array` values, so branches on `np.ndarray` silently take the other path.",
        use_instead="isinstance(x, (np.ndarray, jax.Array))",
    )
    EXAMPLES = (
        Example(
            before="""
            import numpy as np

            def as_vector(x):
                if isinstance(x, np.ndarray):
                    return x.ravel()
                return np.asarray([x])
            """,
            after="""
            import numpy as np
            import jax.numpy as jnp

            def as_vector(x):
                if isinstance(x, np.ndarray):
                    return x.ravel()
                return jnp.asarray([x])
            """,
            diagnostics=("NPJ106",),
        ),
        Example(
            title="a type check on a reduction: np.float64 is a float, a 0-d jax.Array is not",
            before="""
            import numpy as np

            def normalised(x):
                peak = np.max(np.abs(x))
                if isinstance(peak, float) and np.isscalar(peak):
                    x = x / peak
                return x
            """,
            after="""
            import numpy as np
            import jax.numpy as jnp

            def normalised(x):
                peak = jnp.max(jnp.abs(x))
                if isinstance(peak, float) and np.isscalar(peak):
                    x = x / peak
                return x
            """,
            diagnostics=("NPJ106", "NPJ106"),
        ),
    )

    def on_call(self, node: cst.Call, ctx: FileContext) -> None:
        qualname = ctx.qualname(node.func)
        if qualname == "numpy.isscalar" and len(node.args) == 1 and self._computed(node.args[0].value, ctx):
            self.report(ctx, node, self.ISSCALAR_MESSAGE, use_instead="jnp.ndim(x) == 0")
            return
        if qualname != "builtins.isinstance" or len(node.args) != 2:
            return
        classes = node.args[1].value
        elements = [e.value for e in classes.elements] if isinstance(classes, cst.Tuple) else [classes]
        names = {ctx.qualname(element) for element in elements}
        if any(name and name.startswith("jax") for name in names):
            return
        if "numpy.ndarray" in names:
            self.report(ctx, node)
        elif any(_scalar_type(name) for name in names) and self._computed(node.args[0].value, ctx):
            self.report(ctx, node, self.SCALAR_MESSAGE, use_instead="jnp.ndim(x) == 0, or test the dtype: jnp.issubdtype(x.dtype, jnp.floating)")

    @staticmethod
    def _computed(value: cst.BaseExpression, ctx: FileContext) -> bool:
        """A value computed from arrays in the function (not a parameter as passed, not known at trace time)."""
        if isinstance(value, cst.Name):
            found, bindings = ctx.scope.lookup(value.value)
            if found is None or any(isinstance(b, ParamBinding) for b in bindings):
                return False
        return not ctx.resolver.is_static(value, ctx.scope)


_NUMPY_SCALAR_TYPES = frozenset(
    "generic number integer signedinteger unsignedinteger inexact floating complexfloating bool_ float16 float32 "
    "float64 int8 int16 int32 int64 uint8 uint16 uint32 uint64 complex64 complex128 longdouble".split()
)


def _scalar_type(qualname: str | None) -> bool:
    """Python's and NumPy's scalar types: a NumPy scalar is an instance of them, a 0-d jax.Array is not."""
    if not qualname:
        return False
    if qualname in ("builtins.float", "builtins.int", "builtins.complex", "builtins.bool") or qualname.startswith("numbers."):
        return True
    return qualname.startswith("numpy.") and qualname[len("numpy."):] in _NUMPY_SCALAR_TYPES
