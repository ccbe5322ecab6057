from __future__ import annotations

import libcst as cst

from np2jax.analysis.host_values import metadata_names
from np2jax.analysis.jax_values import HOST_CONVERSIONS
from np2jax.analysis.scope import ParamBinding, ValueBinding
from np2jax.analysis.values import nodes_of
from np2jax.context import FileContext, FunctionInfo, NumpyRef, runs_on_jax_arrays
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

    TEST_MESSAGE = ("`{test}` tests a dtype against a 64-bit one: jax.numpy's arrays are float32, int32 or complex64 "
                    "unless jax_enable_x64 is set, so the test differs from NumPy's")

    def on_leave_function(self, info: FunctionInfo, ctx: FileContext) -> None:
        """``a.dtype == np.dtype(float)``, ``x.dtype in (np.float64, int)`` in a jitted function (real34: ahrs), or in a
        migrated one that is not jitted, of a value its JAX calls make (hunt51 S3: ``np.asarray(np.exp(X)).dtype``)."""
        jitted = runs_on_jax_arrays(info, ctx)
        if not jitted and not info.changed:
            return
        for node, scope in nodes_of(info.node, ctx.resolver, frozenset({cst.Comparison})):
            sides = [node.left, *(c.comparator for c in node.comparisons)]
            owners = [side.value for side in sides if isinstance(side, cst.Attribute) and side.attr.value == "dtype"]
            if not owners or (not jitted and all(_numpy_dtype(owner, scope, ctx, 0) for owner in owners)):
                continue
            if any(_wide_dtype(side, scope, ctx) for side in sides):
                self.report(ctx, node, self.TEST_MESSAGE.format(test=ctx.code(node).strip()), severity=Severity.WARNING,
                            use_instead="jnp.issubdtype(a.dtype, jnp.floating) (or jnp.integer), which holds either way")

    def on_numpy_ref(self, ref: NumpyRef, ctx: FileContext) -> None:
        if ref.row is not None and ref.row.kind == "dtype" and not ref.member and ref.name in WIDE_TYPES:
            self.report(ctx, ref.node, self.MESSAGE.format(name=ref.name))


def _numpy_dtype(owner: cst.BaseExpression, scope, ctx: FileContext, depth: int) -> bool:
    """In code that is not jitted, does ``owner`` keep the dtype its caller gave it? A parameter, or NumPy's array of
    one made only for its metadata (``np.asarray(x).dtype``, ``a = np.asarray(x)`` read as ``a.dtype``: it stays
    NumPy's, host_values.py); not a value a jax.numpy call makes, float32 or int32 without x64."""
    if depth > 4:
        return False
    if isinstance(owner, cst.Call):
        return (ctx.resolver.qualname(owner.func, scope) in HOST_CONVERSIONS and len(owner.args) == 1
                and _numpy_dtype(owner.args[0].value, scope, ctx, depth + 1))
    if not isinstance(owner, cst.Name):
        return False
    found, bindings = scope.lookup(owner.value)
    if found is None or found.kind != "function" or not bindings:
        return False
    for binding in bindings:
        if isinstance(binding, ParamBinding):
            continue
        if not (isinstance(binding, ValueBinding) and not binding.augmented and isinstance(binding.value, cst.Call)
                and owner.value in metadata_names(found.node, ctx)
                and _numpy_dtype(binding.value, found, ctx, depth + 1)):
            return False
    return True


_WIDE_BUILTINS = frozenset({"builtins.float", "builtins.int", "builtins.complex"})


def _wide_dtype(node: cst.BaseExpression, scope, ctx: FileContext) -> bool:
    """``np.float64``, ``float``, ``np.dtype(float)``, ``np.dtype("int64")``, or a tuple or list of such."""
    if isinstance(node, (cst.Tuple, cst.List, cst.Set)):
        return any(_wide_dtype(e.value, scope, ctx) for e in node.elements)
    if isinstance(node, cst.Call) and ctx.resolver.qualname(node.func, scope) == "numpy.dtype" and node.args:
        node = node.args[0].value
    if isinstance(node, cst.SimpleString):
        return node.evaluated_value in WIDE_TYPES or node.evaluated_value in ("float", "int", "complex", "f8", "i8", "c16")
    qualname = ctx.resolver.qualname(node, scope) or ""
    return qualname in _WIDE_BUILTINS or (qualname.startswith("numpy.") and qualname[len("numpy."):] in WIDE_TYPES)
