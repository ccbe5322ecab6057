from __future__ import annotations

import libcst as cst

from np2jax.analysis.param_hints import int_like
from np2jax.analysis.scope import ParamBinding, ValueBinding
from np2jax.context import FileContext, NumpyRef, runs_on_jax_arrays
from np2jax.diagnostics import Severity
from np2jax.rule import Example, Rule, RuleDoc
from np2jax.visitors import child_nodes


class DataDependentShape(Rule):
    CODE = "NPJ102"
    NAME = "data-dependent-shape"
    MESSAGE = "the shape of `np.{name}(...)` depends on the values of its input"
    SEVERITY = Severity.ERROR
    FIXED_MESSAGE = (
        "`np.bincount(x, minlength=K)` became `jnp.bincount(x, minlength=K, length=K)`: exact when every value is in "
        "range(K); NumPy grows the result for larger values and raises for negative ones, where JAX drops them or "
        "counts them in bin 0"
    )
    FIXED_INSTEAD = "make sure the values are in range(K) (np.clip, or a check where they are computed)"
    DOC = RuleDoc(
        what=(
            "Reports `unique`, `nonzero`, `argwhere`, `flatnonzero`, one-argument `where`, set operations, "
            "`extract`, `compress`, `bincount` and `repeat` with traced repeats. `np.bincount(x, minlength=K)` with a "
            "K known at trace time (a literal, a static parameter, a shape) is rewritten instead to "
            "`jnp.bincount(x, minlength=K, length=K)` with a warning: its result has K entries exactly when every "
            "value is below K (labels, bin numbers: what `minlength` is for); NumPy makes the result longer for larger "
            "values and raises for negative ones, where JAX drops the larger ones and counts negative ones in bin 0. "
            "`np.linalg.lstsq` is reported when its residuals are read (`x, res, rank, sv = ...`, `[1]`): NumPy's "
            "are empty for square, under-determined or rank-deficient systems (their size depends on the rank), "
            "jax.numpy's always hold a value; taking only the solution (`[0]`, or `_` for the residuals) migrates. "
            "(The method `x.nonzero()` is not reported either: it keeps the function un-jitted (NPJ304), and eager "
            "jax.numpy computes it. A boolean mask index is not reported here: it keeps the function un-jitted, NPJ301/NPJ304, except in a "
            "whole reduction, `x[m].sum()` or `np.mean(x[m])` with `m` a mask of `x`'s shape, which becomes "
            "`jnp.sum(x, where=m)`, and a reduction over axis 0, `X[labels == k].mean(axis=0)`, which becomes "
            "`jnp.mean(X, axis=0, where=jnp.reshape(labels == k, (X.shape[0],) + (1,) * (X.ndim - 1)))`.)"
        ),
        why="`jax.jit` needs every shape at trace time; these functions only know theirs after looking at the data.",
        use_instead="the jax.numpy version with a static `size=` (and `fill_value=`), or `jnp.where(mask, x, neutral)`.",
        known_problems="Calls on values known at trace time are not reported.",
    )
    EXAMPLES = (
        Example(
            before="""
            import numpy as np

            def positives(x):
                idx = np.nonzero(x > 0)
                return np.where(x > 0), np.unique(x)
            """,
            diagnostics=("NPJ102", "NPJ102", "NPJ102"),
        ),
        Example(
            title="bincount with a static minlength: a fixed length, with a warning",
            before="""
            import numpy as np

            def label_counts(labels, k):
                return np.bincount(labels, minlength=k)
            """,
            after="""
            import jax.numpy as jnp

            def label_counts(labels, k):
                return jnp.bincount(labels, minlength=k, length=k)
            """,
            diagnostics=("NPJ102",),
        ),
        Example(
            title="three-argument where is shape-stable",
            before="""
            import numpy as np

            def relu(x):
                return np.where(x > 0, x, 0.0)
            """,
            after="""
            import jax.numpy as jnp

            def relu(x):
                return jnp.where(x > 0, x, 0.0)
            """,
        ),
    )

    def on_numpy_ref(self, ref: NumpyRef, ctx: FileContext) -> None:
        if ref.call is None or ref.member or ref.row is None:
            return
        if ctx.resolver.args_static(ref.call, ref.scope):
            return
        row, args = ref.row, ref.call.args
        if ref.name == "bincount" and self._fixed_length(ref, ctx):
            return
        if row.kind == "data_dependent":
            hint = row.guideline
        elif ref.name == "where" and len(args) == 1 and args[0].keyword is None:
            hint = "jnp.where(condition, size=N) or the three-argument jnp.where(condition, x, y)"
        elif ref.name == "repeat" and not self._static_repeats(ref.call, ctx, ref):
            hint = "jnp.repeat(a, repeats, total_repeat_length=N) with a static N"
        elif ref.name == "linalg.lstsq" and _residuals_used(ref.call, ctx):
            hint = ("NumPy's residuals are empty for square, under-determined or rank-deficient systems, jax.numpy's "
                    "always hold a value: take only the solution (np.linalg.lstsq(A, b)[0]) and compute "
                    "jnp.sum((A @ x - b) ** 2, axis=0) where it is needed")
        else:
            return
        ref.block()
        self.report(ctx, ref.call, self.MESSAGE.format(name=ref.name), use_instead=hint)

    def _fixed_length(self, ref: NumpyRef, ctx: FileContext) -> bool:
        """``np.bincount(x, minlength=K)`` with a static K -> ``jnp.bincount(x, minlength=K, length=K)`` and a warning:
        exact when every value is in ``range(K)`` (labels, bin numbers), which is how ``minlength`` is used."""
        keyword = {arg.keyword.value: arg for arg in ref.call.args if arg.keyword is not None}
        positional = [arg for arg in ref.call.args if arg.keyword is None]
        minlength = keyword.get("minlength") or (positional[2] if len(positional) > 2 else None)
        if minlength is None or "length" in keyword or any(arg.star for arg in ref.call.args):
            return False
        value = minlength.value
        if not (ctx.resolver.is_static(value, ref.scope) or (isinstance(value, cst.Name) and any(
                isinstance(b, ParamBinding) for b in ref.scope.lookup(value.value)[1]))):
            return False  # a parameter becomes a static argument (jit plan); anything else may come from data
        ref.twin = "jax.numpy.bincount"
        ref.keyword_changes["+length"] = ("length", minlength.value.deep_clone())
        self.report(ctx, ref.call, self.FIXED_MESSAGE, severity=Severity.WARNING, use_instead=self.FIXED_INSTEAD)
        return True

    @staticmethod
    def _static_repeats(call: cst.Call, ctx: FileContext, ref: NumpyRef) -> bool:
        positional = [arg for arg in call.args if arg.keyword is None]
        keyword = {arg.keyword.value: arg for arg in call.args if arg.keyword is not None}
        repeats = positional[1] if len(positional) > 1 else keyword.get("repeats")
        if repeats is None or ctx.resolver.is_static(repeats.value, ref.scope):
            return True
        # `k // 2` of an int parameter (`k=3`, `k: int`) in a jitted function: its plan makes `k` static
        # (also beside static sizes: `len(x) - (emb_dim - 1) * lag`, real33 FP)
        return _of_int_parameters(repeats.value, ref.scope, static=lambda n, s: ctx.resolver.is_static(n, s)) and (
            runs_on_jax_arrays(ctx.function, ctx))


def _of_int_parameters(node: cst.BaseExpression, scope, seen: frozenset[str] = frozenset(), static=None) -> bool:
    """Integer arithmetic on literals and int parameters (hinted `int` or defaulting to an int), also through names
    bound only to such values (`r = k // 2`); with ``static(node, scope)``, also on what it says is static
    (`len(x)`, `x.shape[0]`)."""
    if isinstance(node, cst.Integer) or (static is not None and static(node, scope)):
        return True
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, (cst.Add, cst.Subtract, cst.Multiply, cst.FloorDivide, cst.Modulo)):
        return _of_int_parameters(node.left, scope, seen, static) and _of_int_parameters(node.right, scope, seen, static)
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
        return _of_int_parameters(node.expression, scope, seen, static)
    if not isinstance(node, cst.Name) or node.value in seen:
        return False
    found, bindings = scope.lookup(node.value)
    if found is None or found.kind != "function" or not bindings:
        return False
    return all(
        (isinstance(b, ParamBinding) and int_like(b.param))
        or (isinstance(b, ValueBinding) and not b.augmented and _of_int_parameters(b.value, found, seen | {node.value}, static))
        for b in bindings)


def _residuals_used(call: cst.Call, ctx: FileContext) -> bool:
    """Does the code read ``np.linalg.lstsq``'s residuals (its result's element 1)?  No when the call is indexed
    with another literal (``lstsq(A, b)[0]``) or unpacked with an unread second name (``x, _, _, _ = ...``)."""
    statement = ctx.statement[0] if ctx.statement is not None else None
    if statement is None:
        return True
    stack: list[cst.CSTNode] = [statement]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.Subscript) and node.value is call and len(node.slice) == 1:
            index = node.slice[0].slice
            return not (isinstance(index, cst.Index) and isinstance(index.value, cst.Integer) and index.value.evaluated_value != 1)
        if isinstance(node, cst.Assign) and node.value is call and len(node.targets) == 1:
            target = node.targets[0].target
            if isinstance(target, (cst.Tuple, cst.List)) and len(target.elements) >= 2:
                second = target.elements[1].value
                return not (isinstance(second, cst.Name) and (second.value == "_" or not _read(second.value, ctx)))
            if isinstance(target, cst.Name):  # `sol = np.linalg.lstsq(A, b)`, then only `sol[0]`
                return not _only_other_elements(target.value, ctx)
        stack.extend(child_nodes(node))
    return True


def _read(name: str, ctx: FileContext) -> bool:
    """Does the function being walked use ``name`` more than once (its binding and a read)?"""
    function = ctx.function.node if ctx.function is not None else ctx.module
    count = 0
    stack: list[cst.CSTNode] = [function]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.Name) and node.value == name:
            count += 1
        stack.extend(child_nodes(node))
    return count > 1


def _only_other_elements(name: str, ctx: FileContext) -> bool:
    """Is every read of ``name`` in the function being walked ``name[k]`` with a literal ``k`` other than 1?"""
    function = ctx.function.node if ctx.function is not None else ctx.module
    elements, names = 0, 0
    stack: list[cst.CSTNode] = [function]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.Name) and node.value == name:
            names += 1
        if isinstance(node, cst.Subscript) and isinstance(node.value, cst.Name) and node.value.value == name:
            index = node.slice[0].slice if len(node.slice) == 1 else None
            if not (isinstance(index, cst.Index) and isinstance(index.value, cst.Integer) and index.value.evaluated_value != 1):
                return False
            elements += 1
        stack.extend(child_nodes(node))
    return names == elements + 1  # the binding itself, and those element reads
