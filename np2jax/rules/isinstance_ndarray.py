from __future__ import annotations

import libcst as cst

from np2jax.analysis.scope import ParamBinding, Scope
from np2jax.analysis.values import nodes_of
from np2jax.context import FileContext, FunctionInfo
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
    TYPE_MESSAGE = (
        "the type of a value computed from arrays: a NumPy scalar (`np.float64`) or `np.ndarray` in NumPy, "
        "a `jax.Array` after migration: this check changes"
    )
    SCALAR_USE_INSTEAD = "jnp.ndim(x) == 0, or test the dtype: jnp.issubdtype(x.dtype, jnp.floating)"
    ISSCALAR_MESSAGE = "`np.isscalar` is True for a NumPy scalar and False for the 0-d jax.Array migrated code computes"
    SEVERITY = Severity.WARNING
    DOC = RuleDoc(
        what="Reports `isinstance(x, np.ndarray)` and `type(x) is np.ndarray` inside functions, and type checks that a value computed from arrays passes as a NumPy scalar but not as the 0-d jax.Array it becomes: `isinstance(np.max(x), float)` (also `int`, `numbers.Number`, `np.floating` ...), `np.isscalar(x.mean())`, `type(x.sum()) in (float, np.float64)`, `type(peak).__name__`.",
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
        Example(
            title="`type(...)` comparisons, and a type's name",
            before="""
            import numpy as np

            def describe(x):
                total = np.sum(x)
                if type(x) is np.ndarray and type(total).__name__ == "float64":
                    return "array of floats", total
                return "other", total
            """,
            after="""
            import numpy as np
            import jax.numpy as jnp

            def describe(x):
                total = jnp.sum(x)
                if type(x) is np.ndarray and type(total).__name__ == "float64":
                    return "array of floats", total
                return "other", total
            """,
            diagnostics=("NPJ106", "NPJ106"),
        ),
    )

    def on_leave_function(self, info: FunctionInfo, ctx: FileContext) -> None:
        """``type(x) is np.ndarray``, ``type(peak) in (float, np.float64)``, ``type(peak).__name__``."""
        for node, scope in nodes_of(info.node, ctx.resolver, _COMPARISONS_AND_ATTRIBUTES):
            if isinstance(node, cst.Comparison):
                self._type_comparison(node, scope, ctx)
            elif isinstance(node, cst.Attribute) and node.attr.value == "__name__":
                value = _type_of(node.value, scope, ctx)
                if value is not None and _computed(value, scope, ctx):
                    self.report(ctx, node, self.TYPE_MESSAGE, use_instead=self.SCALAR_USE_INSTEAD)

    def _type_comparison(self, node: cst.Comparison, scope: Scope, ctx: FileContext) -> None:
        sides = [node.left] + [target.comparator for target in node.comparisons]
        values = [value for value in (_type_of(side, scope, ctx) for side in sides) if value is not None]
        if not values:
            return
        classes = []
        for side in sides:
            elements = side.elements if isinstance(side, (cst.Tuple, cst.List, cst.Set)) else ()
            classes += [element.value for element in elements] or [side]
        names = {ctx.resolver.qualname(element, scope) for element in classes}
        if "numpy.ndarray" in names:
            self.report(ctx, node, use_instead="isinstance(x, (np.ndarray, jax.Array))")
        elif any(_scalar_type(name) for name in names) and any(_computed(value, scope, ctx) for value in values):
            self.report(ctx, node, self.TYPE_MESSAGE, use_instead=self.SCALAR_USE_INSTEAD)

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
            self.report(ctx, node, self.SCALAR_MESSAGE, use_instead=self.SCALAR_USE_INSTEAD)

    @staticmethod
    def _computed(value: cst.BaseExpression, ctx: FileContext) -> bool:
        return _computed(value, ctx.scope, ctx)


def _computed(value: cst.BaseExpression, scope: Scope, ctx: FileContext) -> bool:
    """A value computed from arrays in the function (not a parameter as passed, not known at trace time)."""
    if isinstance(value, cst.Name):
        found, bindings = scope.lookup(value.value)
        if found is None or any(isinstance(b, ParamBinding) for b in bindings):
            return False
    return not ctx.resolver.is_static(value, scope)


def _type_of(node: cst.BaseExpression, scope: Scope, ctx: FileContext) -> cst.BaseExpression | None:
    """``x`` for ``type(x)`` and ``x.__class__``."""
    if isinstance(node, cst.Attribute) and node.attr.value == "__class__":
        return node.value
    if isinstance(node, cst.Call) and len(node.args) == 1 and node.args[0].keyword is None and not node.args[0].star:
        if ctx.resolver.qualname(node.func, scope) == "builtins.type":
            return node.args[0].value
    return None


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


_COMPARISONS_AND_ATTRIBUTES = frozenset({cst.Comparison, cst.Attribute})
