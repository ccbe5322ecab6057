from __future__ import annotations

import libcst as cst

from np2jax.analysis.scope import LoopBinding, Scope, ValueBinding
from np2jax.analysis.values import python_container
from np2jax.context import FileContext
from np2jax.diagnostics import Severity
from np2jax.rule import Example, RuleDoc
from np2jax.rules.hazard import HazardRule

# The index they return may be len(a): one past the end of an array of that length.
UPPER_EDGE_FUNCTIONS = frozenset({"numpy.searchsorted", "numpy.digitize", "numpy.count_nonzero"})
# Clamping the index by hand makes it in range by construction.
BOUNDING_FUNCTIONS = frozenset({"numpy.clip", "numpy.minimum", "numpy.mod", "numpy.remainder", "builtins.min"})
INDEX_ARITHMETIC = (cst.Add, cst.Subtract, cst.Multiply, cst.FloorDivide, cst.Power)
READ_INSTEAD = "check the range where the index is computed (np.clip(i, 0, n - 1)), or x.at[i].get(mode='fill', fill_value=...)"
WRITE_INSTEAD = "check the range where the index is computed (np.clip(i, 0, n - 1)); JAX's .at[i] updates drop out-of-range indices"


class DataDependentIndex(HazardRule):
    CODE = "NPJ114"
    NAME = "data-dependent-index"
    MESSAGE = "index `{index}` is computed from array values ({how}); NumPy raises IndexError out of bounds, JAX {effect}"
    SEVERITY = Severity.WARNING
    DOC = RuleDoc(
        what=(
            "Reports array indices computed from array values by arithmetic (`np.argmax(y) + 1`; not `i - 1`, "
            "which wraps to the end in both), by a cast "
            "(`int(v * n)`, `(x * n).astype(int)`), or by `searchsorted`/`digitize`/`count_nonzero` (which return "
            "`len(a)` at the upper edge), in reads, `.at[]` updates and `np.take`."
        ),
        why=(
            "NumPy raises IndexError for an out-of-bounds integer index; JAX never raises: reads clamp to the "
            "nearest edge and `.at[]` updates silently drop the update. Such indices are exactly the ones that reach "
            "the edge on real data (the maximum of a histogram's range lands in bin `n_bins`), so the migrated "
            "function may return a plausible wrong value where NumPy stopped. A warning (the function needs review) "
            "rather than an error: for inputs that are in range the migration is exact, and it does not stop "
            "migrating the rest of the function."
        ),
        use_instead=READ_INSTEAD,
        known_problems=(
            "Indices that are in range by construction are not reported: static values, `range` loop indices, "
            "slices (they clamp in NumPy too), `argmax`/`argsort` results used as they are, indices clipped with "
            "`np.clip`/`np.minimum`/`%`, and such an index plus a constant the clip leaves room for (`x[i + 1]` with "
            "`i = np.clip(j, 0, len(x) - 2)`). Indices passed in as arguments are not reported either: their range is the "
            "caller's business."
        ),
    )
    EXAMPLES = (
        Example(
            before="""
            import numpy as np

            def next_after_peak(x, y):
                return x[np.argmax(y) + 1]
            """,
            after="""
            import jax.numpy as jnp

            def next_after_peak(x, y):
                return x[jnp.argmax(y) + 1]
            """,
            diagnostics=("NPJ114",),
        ),
        Example(
            title="binning: the maximum lands one past the last bin",
            before="""
            import numpy as np

            def bin_counts(x, n_bins):
                counts = np.zeros(n_bins)
                scaled = (x - x.min()) / np.ptp(x) * n_bins
                for i in range(len(x)):
                    counts[int(scaled[i])] += 1
                return counts
            """,
            after="""
            import jax.numpy as jnp

            def bin_counts(x, n_bins):
                counts = jnp.zeros(n_bins)
                scaled = (x - x.min()) / jnp.ptp(x) * n_bins
                for i in range(len(x)):
                    counts = counts.at[int(scaled[i])].add(1)
                return counts
            """,
            diagnostics=("NPJ114",),
        ),
        Example(
            title="indices in range by construction are not reported",
            before="""
            import numpy as np

            def gather(x, y, n):
                out = np.zeros(n)
                for i in range(len(x) - 1):
                    out[i] = x[i + 1] - x[i]
                order = np.argsort(y)
                k = np.clip(np.searchsorted(x, 0.5), 0, len(x) - 1)
                return out, x[order], x[np.argmax(y)], x[k], x[1:-1]
            """,
            after="""
            import jax.numpy as jnp

            def gather(x, y, n):
                out = jnp.zeros(n)
                for i in range(len(x) - 1):
                    out = out.at[i].set(x[i + 1] - x[i])
                order = jnp.argsort(y)
                k = jnp.clip(jnp.searchsorted(x, 0.5).astype(int), 0, len(x) - 1)
                return out, x[order], x[jnp.argmax(y)], x[k], x[1:-1]
            """,
            diagnostics=("NPJ108",),
        ),
    )

    def __init__(self) -> None:
        self._written: set[cst.Subscript] = set()

    NODE_TYPES = frozenset({cst.Subscript, cst.AugAssign, cst.Assign, cst.Call})

    def check(self, node: cst.CSTNode, scope: Scope, ctx: FileContext) -> None:
        if isinstance(node, cst.Subscript):
            self._check_subscript(node, scope, ctx)
        elif isinstance(node, cst.AugAssign) and isinstance(node.target, cst.Subscript):
            self._written.add(node.target)
        elif isinstance(node, cst.Assign):
            self._written.update(t.target for t in node.targets if isinstance(t.target, cst.Subscript))
        elif isinstance(node, cst.Call) and ctx.resolver.qualname(node.func, scope) == "numpy.take":
            positional = [arg.value for arg in node.args if arg.keyword is None]
            if len(positional) > 1:
                self._check_index(positional[1], scope, ctx, write=False)

    def _check_subscript(self, node: cst.Subscript, scope: Scope, ctx: FileContext) -> None:
        if python_container(node.value, scope):
            return
        for element in node.slice:
            if isinstance(element.slice, cst.Index):
                self._check_index(element.slice.value, scope, ctx, write=node in self._written)

    def _check_index(self, index: cst.BaseExpression, scope: Scope, ctx: FileContext, write: bool) -> None:
        values = ctx.values
        if not values.from_data(index, scope) or not values.is_integer(index, scope):
            return
        how = _edge_step(index, scope, ctx, set())
        if how is None:
            return
        effect = "drops the update" if write else "clamps it to the nearest edge"
        message = self.MESSAGE.format(index=ctx.code(index).strip(), how=how, effect=effect)
        self.report(ctx, index, message, use_instead=WRITE_INSTEAD if write else READ_INSTEAD, exact=True)


def _edge_step(node: cst.BaseExpression, scope: Scope, ctx: FileContext, seen: set) -> str | None:
    """How a data-derived integer may reach out of bounds: arithmetic, a cast, an upper-edge search (None if in range)."""
    values = ctx.values
    if id(node) in seen or not values.from_data(node, scope):
        return None
    seen.add(id(node))
    if _bounds(node, scope, ctx):
        return None
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, INDEX_ARITHMETIC):
        if isinstance(node.operator, cst.Add) and any(
                isinstance(step, cst.Integer) and (_margin(other, scope, ctx, 0) or 0) >= int(step.evaluated_value)
                for step, other in ((node.right, node.left), (node.left, node.right))):
            return None  # `i0c + 1` with `i0c = np.clip(i0, 0, len(x) - 2)`: in range by construction
        if isinstance(node.operator, cst.Subtract) and ctx.resolver.is_static(node.right, scope):
            # `i - 1` of an index: at most wraps to the end, as in NumPy (JAX wraps negative indices too)
            return _edge_step(node.left, scope, ctx, seen)
        return "arithmetic on array values"
    if isinstance(node, cst.Subscript):
        return _edge_step(node.value, scope, ctx, seen)
    if isinstance(node, cst.Name):
        found, bindings = scope.lookup(node.value)
        if any(isinstance(b, ValueBinding) and _bounds(b.value, found, ctx) for b in bindings):
            return None  # clipped somewhere (`i = np.clip(i, 0, n - 1)`): the author handled the edge
        for binding in bindings:
            source = binding.value if isinstance(binding, ValueBinding) else binding.iterable if isinstance(binding, LoopBinding) else None
            how = None if source is None else _edge_step(source, found, ctx, seen)
            if how is not None:
                return how
        return None
    if not isinstance(node, cst.Call):
        return None
    qualname = ctx.resolver.qualname(node.func, scope)
    method = node.func.attr.value if qualname is None and isinstance(node.func, cst.Attribute) else None
    if qualname in UPPER_EDGE_FUNCTIONS:
        return f"`{qualname[len('numpy.'):]}` can return len(a)"
    if qualname in ("builtins.int", "builtins.round") or (method == "astype" and not values.is_integer(node.func.value, scope)):
        return "a cast of array values to int"
    inner = [arg.value for arg in node.args] + ([node.func.value] if method is not None else [])
    return next((how for how in (_edge_step(value, scope, ctx, seen) for value in inner) if how is not None), None)


def _margin(node: cst.BaseExpression, scope: Scope, ctx: FileContext, depth: int) -> int | None:
    """``k - 1`` for an index clipped below an upper bound ``n - k`` (``np.clip(i, 0, len(x) - 2)``, ``np.minimum(i, n - 2)``,
    ``min(i, n - 2)``, or a name every binding of which is one): adding up to ``k - 1`` stays below ``n``."""
    if isinstance(node, cst.Name) and depth < 4:
        found, bindings = scope.lookup(node.value)
        margins = [_margin(b.value, found, ctx, depth + 1) if isinstance(b, ValueBinding) and not b.augmented else None
                   for b in bindings]
        return min(margins) if margins and None not in margins else None  # type: ignore[type-var]
    if not isinstance(node, cst.Call):
        return None
    qualname = ctx.resolver.qualname(node.func, scope)
    method = node.func.attr.value if qualname is None and isinstance(node.func, cst.Attribute) else None
    if method == "astype":
        return _margin(node.func.value, scope, ctx, depth + 1)
    args = [arg.value for arg in node.args if arg.keyword is None]
    upper = args[2] if qualname == "numpy.clip" and len(args) == 3 else (
        args[1] if qualname in ("numpy.minimum", "builtins.min") and len(args) == 2 else None)
    lower_ok = qualname != "numpy.clip" or (isinstance(args[1], cst.Integer) and int(args[1].evaluated_value) >= 0)
    if (upper is None or not lower_ok or not isinstance(upper, cst.BinaryOperation)
            or not isinstance(upper.operator, cst.Subtract) or not isinstance(upper.right, cst.Integer)):
        return None
    return int(upper.right.evaluated_value) - 1  # (at most n - k: plus k - 1 is at most n - 1)


def _bounds(node: cst.BaseExpression, scope: Scope, ctx: FileContext) -> bool:
    """``np.clip(i, 0, n - 1)``, ``min(i, n - 1)``, ``i % n`` and casts of those: in range by construction."""
    if isinstance(node, cst.BinaryOperation):
        return isinstance(node.operator, (cst.Modulo, cst.BitAnd))
    if not isinstance(node, cst.Call):
        return False
    qualname = ctx.resolver.qualname(node.func, scope)
    if qualname in BOUNDING_FUNCTIONS:
        return True
    if qualname is None and isinstance(node.func, cst.Attribute):
        method = node.func.attr.value
        return method == "clip" or (method == "astype" and _bounds(node.func.value, scope, ctx))
    return qualname in ("builtins.int", "builtins.round") and bool(node.args) and _bounds(node.args[0].value, scope, ctx)
