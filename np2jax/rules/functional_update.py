from __future__ import annotations

import libcst as cst

from np2jax.analysis.mask_writes import unmask
from np2jax.analysis.narrow_dtypes import is_narrow_array
from np2jax.analysis.sequences import builds_list
from np2jax.analysis.value_kinds import ValueClassifier
from np2jax.analysis.writes import BINARY_FOR, subscript_write
from np2jax.context import FileContext, FunctionInfo
from np2jax.cstutil import call, change_keywords, parenthesized
from np2jax.diagnostics import Diagnostic, FixSafety, Severity
from np2jax.rule import Example, Rule, RuleDoc
from np2jax.rules.functional_lines import (
    LineRewrites,
    at_base,
    single_elements,
)



BINARY_OPERATOR_FOR = {
    cst.AddAssign: cst.Add,
    cst.SubtractAssign: cst.Subtract,
    cst.MultiplyAssign: cst.Multiply,
    cst.DivideAssign: cst.Divide,
    cst.PowerAssign: cst.Power,
    **BINARY_FOR,
}


NUMERIC_KINDS = frozenset({"int", "float", "complex"})  # dtype kinds a Python int keeps in jnp.where


class FunctionalUpdate(LineRewrites, Rule):
    CODE = "NPJ200"
    NAME = "functional-update"
    MESSAGE = "in-place write rewritten to a functional update"
    PUBLIC_MESSAGE = (
        "{names} {verb} a new array instead of being written in place: code outside this module that kept a "
        "reference to the old one (`x = obj.x`) no longer sees the update"
    )
    SEVERITY = Severity.INFO
    FIX_SAFETY = FixSafety.SAFE
    DOC = RuleDoc(
        what=(
            "Rewrites `x[idx] = v` to `x = x.at[idx].set(v)` and `x[idx] += v` (`-=`, `*=`, `/=`, `**=`) to "
            "`.at[idx].add/subtract/multiply/divide/power(v)`; a write through a boolean mask computed from `x` "
            "itself (`x[x < 0] = 0`, `x[np.abs(x) < tol] = 0.0`, also against a parameter meant to be a number "
            "(`limit=1.0`) or a whole-array reduction (`x.mean()`)) becomes `x = jnp.where(x < 0, 0, x)`, the value "
            "cast to `x`'s dtype as NumPy casts it (`jnp.asarray(v, x.dtype)`) unless it is a Python int and `x` is known "
            "to hold numbers (into a bool array a Python int would make `jnp.where` give int32). The same holds "
            "for a named mask (`improve = alt < dist; dist[improve] = alt[improve]` -> `dist = jnp.where(improve, "
            "jnp.asarray(alt, dist.dtype), dist)`), augmented writes (`out[nz] /= norm[nz]` -> `jnp.where(nz, out / norm, "
            "out)`, cast), and masks of an array made with `x`'s shape (`np.zeros(n)` twice, `np.full(lv.shape, -1)`, "
            "`np.zeros_like(a)`); the mask must be a NumPy boolean broadcast from `x` (or such an array), so that it has "
            "`x`'s shape whenever NumPy does not raise, and a value `y[m]` must read `y` with the same mask and `y` "
            "must be one of its operands, as must each `y` of a value computed elementwise from such `y[m]` and numbers "
            "(`inv[nz] = 1.0 / np.sqrt(d[nz])` -> `inv = jnp.where(nz, jnp.asarray(1.0 / jnp.sqrt(d), inv.dtype), inv)`: "
            "what `where` drops is never seen) (analysis/mask_writes.py). In methods, writes to array attributes "
            "of `self` become rebindings: `self.x[i] = v` -> `self.x = self.x.at[i].set(v)`, `self.x *= v` -> "
            "`self.x = self.x * v`; an int attribute as the index (every value the class's methods give `self.head` "
            "is an int, and nothing else in the module sets an attribute so named: a ring buffer's position) names one "
            "element. `acc += v` on an array made with a dtype of 32 bits or fewer "
            "(`np.zeros(n, dtype=np.int8)`, `.astype(np.uint8)`), or on a copy of a parameter's array, whose dtype the "
            "caller chooses (`out = np.array(c)`; `c.copy()` of a parameter annotated or documented as an array), becomes `acc = (acc + v).astype(acc.dtype)` (where "
            "NumPy refuses the cast, a float into an int array, this one truncates). NumPy calls that change a "
            "local array in place become the functional result assigned to it: `np.add.at(x, i, v)` -> "
            "`x = x.at[i].add(v)` (and `subtract`/`multiply`/`minimum`/`maximum.at`), `x.fill(v)` -> `x = jnp.full_like(x, v)`, "
            "`x.sort()` -> `x = jnp.sort(x)` (also `x.sort(kind=...)`: sorted values do not depend on the kind; and for `x` "
            "bound only to arithmetic no list gives, `v = -x`, `r = y - yhat`, `s = x * 1.0`), `np.fill_diagonal`, `np.copyto` (with `where=m`: `x = jnp.where(m, jnp.asarray(src, x.dtype), x).reshape(x.shape)`: NumPy drops extra leading axes of length 1), `np.putmask` with a number, `np.f(..., out=y)` -> "
            "`y = jnp.f(...).astype(y.dtype)` (with `where=m`: `y = jnp.where(m, jnp.f(...), y).astype(y.dtype)`; "
            "a ufunc's `out` given by position, `np.negative(q, q)`, likewise), "
            "`np.f(..., out=np.zeros_like(a), where=m)` (a new constant array: `zeros`, `ones`, `full` and their `_like`) "
            "-> `jnp.where(m, jnp.f(...), jnp.zeros_like(a)).astype(a.dtype)` wherever it is (cast to the constant array's "
            "`dtype=`, `a.dtype` for `*_like(a)`, `float` for `zeros`/`ones`; `np.full` without a dtype keeps NPJ103), `x.clip(lo, hi, out=x)` -> `x = x.clip(lo, hi)` (analysis/inplace_calls.py). "
            "An unpacking assignment `a[t], b[t] = f()` gets temporaries; "
            "in `B[0], B[1] = B[1], B[0]` a right-hand value that is a basic index of an array an earlier target writes "
            "is read again after that write unless it is 0-d (NumPy's row is a view: both rows end up equal to the old "
            "row 1; an element is a copy), and one that may be a view by other means is NPJ201. A chained assignment "
            "`F[0, 2] = F[1, 3] = dt` becomes one assignment per target, left to right, each given the value Python "
            "evaluated once: the value itself when it is a constant or a name no target rebinds, else the first target "
            "when it is a plain name (`s = F[0] = f(x)` -> `s = f(x)`, `F = F.at[0].set(s)`), else a new name `value`. "
            "`y.shape = s` on a local array nothing else refers to becomes `y = y.reshape(s)` (analysis/attribute_writes.py). In a "
            "function that is not jitted, an array that may still be the caller's NumPy array (`x = xs.copy()`, "
            "`b = a * 1.0`, `self.P = P.copy()`) is read through `jnp.asarray` first: NumPy arrays have no `.at`."
        ),
        why=(
            "JAX arrays are immutable and `x.at[mask]` needs a static shape under `jax.jit`. The rewrite is "
            "applied only when it is equivalent by construction: `x` is a local array always bound to a fresh "
            "array that no other name or view can observe, and the index is made of integers, slices, `...` "
            "and `None`, or is `np.arange(...)` (also shifted, `idx + 1`) or the index tuple of `np.diag_indices`/`tril_indices`/`triu_indices` "
            "(`_from` too), directly or through a name, or lists of non-negative int literals naming distinct "
            "positions (`A[:, [0, 3], [1, 2]]`; so no element is written twice), or the value is one number "
            "written everywhere, or the write swaps two rows or columns of the array (`A[[k, p]] = A[[p, k]]`, "
            "`A[:, [i, j]] = A[:, [j, i]]`, with `k` and `p` one number each: when they are equal both copies of "
            "the repeated position get the same row, so it does not matter which one JAX keeps). A local array handed on to another name after its writes "
            "(`new = p.copy(); new[1:-1] = ...; p = new` in a loop body: every mention of `new` between its fresh "
            "binding and the hand-off, in one block) is observed by no other name when it is written "
            "(analysis/hand_off.py). The result of a function of the same module each of whose returns is a new "
            "array (arithmetic, a constructor, a copy, a local only ever bound to such values and never stored or "
            "handed to other code; `rx = ranks(x); rx -= rx.mean()`) is fresh too (analysis/fresh_results.py). "
            "An index element that is one element of an array taken at integer positions "
            "(`h[idx[i]] += 1`, `deg[edges[e, 0]] += 1`, `cm[t, p] += 1` with `for t, p in zip(y_true, y_pred)` or "
            "`for i, c in enumerate(labels)`, also through a name bound to it) becomes `jnp.reshape(idx[i], ())`: "
            "when the array has one axis per position (how such code is written: histograms, confusion matrices, "
            "Q-tables) that is the same single element; an index with one element names the element NumPy's does; "
            "an index that is a row of several (a 2-D `idx`) makes `reshape` raise at trace time, never the "
            "repeated-index scatter where NumPy and JAX differ. A parameter used as an index (`y[idx] += v`) may be "
            "any index array and stays reported (NPJ201). An augmented write through an integer index array that may "
            "repeat entries (`probs[np.arange(n), y] -= 1`, `counts[labels] += 1` with `labels = np.argmin(d, axis=1)`) "
            "becomes `x = x.at[idx].set(x[idx] op v)` when `v` is provably one number (a literal, a Python int, a "
            "parameter annotated `float`, a whole-array reduction, arithmetic on those): NumPy's `x[idx] op= v` is "
            "`x[idx] = x[idx] op v`, so a repeated position is written `x[k] op v` once, and every copy JAX's scatter "
            "writes holds that same value (`.at[idx].add(v)` would accumulate). At least one index element must "
            "provably hold integers (never a boolean mask), the index may call only NumPy functions outside "
            "`numpy.random` (it is evaluated twice), and `//=`/`%=` need a nonzero number literal (an integer "
            "divided by zero is 0 in NumPy, not in JAX); a value that may be an array stays NPJ201 "
            "(analysis/repeated_writes.py). A local array bound to a fresh array in both branches of a conditional expression "
            "(`np.zeros(2) if zi is None else np.array(zi, dtype=float)`) is fresh. "
            "For `self.x` the same holds when no other reference to its array can exist: every method of the "
            "module's classes stores only fresh arrays in `self.x` (never the caller's array, `np.asarray(x0)`, or "
            "another attribute) and never hands it out (returns, yields, stores elsewhere, passes to a function "
            "that is not a NumPy computation, iterates over it); `.x` is used on no other object; the class has no "
            "decorator, no base class from another module and no class-level `x`. Methods are never jitted (NPJ304). "
            "For a public attribute (no leading underscore) a warning at the method says that code in other modules "
            "that kept a reference to the old array no longer sees the update."
        ),
        use_instead="x = x.at[idx].set(v)",
        known_problems=(
            "Out-of-bounds indices raise in NumPy; JAX drops such writes. A float written through a mask is cast "
            "to the array's dtype explicitly, as NumPy does. `y.shape = s` raises in NumPy when the array's memory "
            "is not laid out for it (a transposed array); `y.reshape(s)` copies instead."
        ),
    )
    EXAMPLES = (
        Example(
            title="one number added through an index that may repeat: buffered, as in NumPy (a repeat counts once)",
            before="""
            import numpy as np

            def labels_present(d):
                labels = np.argmin(d, axis=1)
                seen = np.zeros(d.shape[1])
                seen[labels] += 1
                return seen
            """,
            after="""
            import jax.numpy as jnp

            def labels_present(d):
                labels = jnp.argmin(d, axis=1)
                seen = jnp.zeros(d.shape[1])
                seen = seen.at[labels].set(seen[labels] + 1)
                return seen
            """,
        ),
        Example(
            title="an index taken from an array, one element at a time",
            before="""
            import numpy as np

            def histogram(idx, k):
                h = np.zeros(k)
                for i in range(len(idx)):
                    h[idx[i]] += 1
                return h
            """,
            after="""
            import jax.numpy as jnp

            def histogram(idx, k):
                h = jnp.zeros(k)
                for i in range(len(idx)):
                    h = h.at[jnp.reshape(idx[i], ())].add(1)
                return h
            """,
        ),
        Example(
            title="not jitted (here: jit is off), so `xs.copy()` is still a NumPy array: read through jnp.asarray",
            before="""
            import numpy as np

            def clamp_ends(xs):
                y = xs.copy()
                y[0] = 0.0
                z = np.zeros(3)
                z[0] = 1.0
                return y, z
            """,
            after="""
            import jax.numpy as jnp

            def clamp_ends(xs):
                y = xs.copy()
                y = jnp.asarray(y).at[0].set(0.0)
                z = jnp.zeros(3)
                z = z.at[0].set(1.0)
                return y, z
            """,
        ),
        Example(
            title="NumPy's `+=` keeps an int8 array int8 (and wraps); JAX's rebinding would promote it",
            before="""
            import numpy as np

            def neighbour_count(board):
                n = np.zeros(board.shape, dtype=np.int8)
                n += np.roll(board, 1, axis=0)
                n += np.roll(board, -1, axis=0)
                return n
            """,
            after="""
            import numpy as np
            import jax.numpy as jnp

            def neighbour_count(board):
                n = jnp.zeros(board.shape, dtype=np.int8)
                n = (n + jnp.roll(board, 1, axis=0)).astype(n.dtype)
                n = (n + jnp.roll(board, -1, axis=0)).astype(n.dtype)
                return n
            """,
        ),
        Example(
            before="""
            import numpy as np

            def ramp(n):
                x = np.zeros(n)
                for i in range(n):
                    x[i] = i * 0.5
                x[0] += 10
                x[1:3, ...] *= 2
                return x
            """,
            after="""
            import jax.numpy as jnp

            def ramp(n):
                x = jnp.zeros(n)
                for i in range(n):
                    x = x.at[i].set(i * 0.5)
                x = x.at[0].add(10)
                x = x.at[1:3, ...].multiply(2)
                return x
            """,
        ),
        Example(
            title="a ufunc written where a mask holds (`where=`): into a local array, or into a new constant array",
            before="""
            import numpy as np

            def safe_log(x):
                out = np.full(x.shape, -1.0)
                np.log(x, out=out, where=x > 0)
                return out

            def safe_ratio(a, b):
                return np.divide(a, b, out=np.zeros_like(a), where=b != 0)
            """,
            after="""
            import jax.numpy as jnp

            def safe_log(x):
                out = jnp.full(x.shape, -1.0, dtype=float)
                out = jnp.where(x > 0, jnp.log(x), out).astype(out.dtype)
                return out

            def safe_ratio(a, b):
                return jnp.where(b != 0, jnp.divide(a, b), jnp.zeros_like(a)).astype(a.dtype)
            """,
        ),
        Example(
            title="hunt42: `np.copyto` where a mask holds, `.sort()` of a slice's copy, a mask made through a name",
            before="""
            import numpy as np

            def merge_positive(a, b):
                x = a.copy()
                np.copyto(x, b, where=b > 0)
                return x

            def median3(x):
                win = x[:3].copy()
                win.sort()
                return win[1]

            def rebalance(weights, target, band=0.05):
                w = weights.copy()
                drift = np.abs(w - target)
                need = drift > band
                w[need] = target[need]
                return w / w.sum()
            """,
            after="""
            import jax.numpy as jnp

            def merge_positive(a, b):
                x = a.copy()
                x = jnp.where(b > 0, jnp.asarray(b, x.dtype), x).reshape(x.shape)
                return x

            def median3(x):
                win = x[:3].copy()
                win = jnp.sort(win)
                return win[1]

            def rebalance(weights, target, band=0.05):
                w = weights.copy()
                drift = jnp.abs(w - target)
                need = drift > band
                w = jnp.where(need, jnp.asarray(target, w.dtype), w)
                return w / w.sum()
            """,
        ),
        Example(
            title="boolean mask of the array itself",
            before="""
            import numpy as np

            def relu_inplace(a):
                x = a.copy()
                x[x < 0] = 0
                x[np.isnan(x)] = 0.5
                return x
            """,
            after="""
            import jax.numpy as jnp

            def relu_inplace(a):
                x = a.copy()
                x = jnp.where(x < 0, jnp.asarray(0, x.dtype), x)
                x = jnp.where(jnp.isnan(x), jnp.asarray(0.5, x.dtype), x)
                return x
            """,
        ),
        Example(
            title="several arrays written by one unpacking assignment",
            before="""
            import numpy as np

            def filter_step(step, n):
                means = np.zeros((n, 2))
                covs = np.zeros((n, 2, 2))
                for t in range(n):
                    means[t], covs[t] = step(t)  # predict
                return means, covs
            """,
            after="""
            import jax.numpy as jnp

            def filter_step(step, n):
                means = jnp.zeros((n, 2))
                covs = jnp.zeros((n, 2, 2))
                for t in range(n):
                    new_means, new_covs = step(t)  # predict
                    means = means.at[t].set(new_means)
                    covs = covs.at[t].set(new_covs)
                return means, covs
            """,
        ),
        Example(
            title="array attributes that only the object itself refers to",
            before="""
            import numpy as np

            class Filter:
                def __init__(self, n):
                    self.state = np.zeros(n)
                    self.count = 0

                def update(self, z):
                    self.state[0] = z
                    self.state *= 0.5
                    self.count += 1
                    return self.state.sum()
            """,
            after="""
            import jax.numpy as jnp

            class Filter:
                def __init__(self, n):
                    self.state = jnp.zeros(n)
                    self.count = 0

                def update(self, z):
                    self.state = self.state.at[0].set(z)
                    self.state = self.state * 0.5
                    self.count += 1
                    return self.state.sum()
            """,
            diagnostics=("NPJ200",),
        ),
        Example(
            title="a chained assignment: one assignment per target, the value evaluated once",
            before="""
            import numpy as np

            def cv_matrix(dt, q):
                F = np.eye(4)
                F[0, 2] = F[1, 3] = dt
                s = F[2, 2] = F[3, 3] = np.exp(-q * dt)
                F[0, 1] = F[1, 0] = 1.0 - s
                return F
            """,
            after="""
            import jax.numpy as jnp

            def cv_matrix(dt, q):
                F = jnp.eye(4)
                F = F.at[0, 2].set(dt)
                F = F.at[1, 3].set(dt)
                s = jnp.exp(-q * dt)
                F = F.at[2, 2].set(s)
                F = F.at[3, 3].set(s)
                value = 1.0 - s
                F = F.at[0, 1].set(value)
                F = F.at[1, 0].set(value)
                return F
            """,
        ),
        Example(
            title="a new shape for a local array nothing else refers to; a comparison's result is a new array",
            before="""
            import numpy as np

            def pair_sums(x, k):
                y = np.abs(x)
                y.shape = (2, -1)
                keep = y.sum(axis=1) >= k
                keep[0] = False
                return keep
            """,
            after="""
            import jax.numpy as jnp

            def pair_sums(x, k):
                y = jnp.abs(x)
                y = y.reshape((2, -1))
                keep = y.sum(axis=1) >= k
                keep = jnp.asarray(keep).at[0].set(False)
                return keep
            """,
        ),
        Example(
            title="other augmented operators keep their exact meaning",
            before="""
            import numpy as np

            def wrap(n, k):
                x = np.arange(n)
                x[2] //= k + 1
                return x
            """,
            after="""
            import jax.numpy as jnp

            def wrap(n, k):
                x = jnp.arange(n)
                x = x.at[2].set(x[2] // (k + 1))
                return x
            """,
        ),
    )

    def __init__(self) -> None:
        self._public_attributes: dict[cst.FunctionDef, list[str]] = {}  # method -> `self.x` it rebinds


    def rewrite_statement(self, original: cst.BaseSmallStatement, updated: cst.BaseSmallStatement, ctx: FileContext):
        if isinstance(original, cst.Expr) and isinstance(original.value, cst.Call):
            return self._functional_call(original, updated, ctx)
        if original in ctx.blocked_statements:
            return None
        if ctx.attribute_writes(original):  # `y.shape = s` on a local array nothing else sees (the others: NPJ201)
            target = updated.targets[0].target
            reshaped = call(cst.Attribute(value=target.value, attr=cst.Name("reshape")), updated.value)
            return cst.Assign([cst.AssignTarget(target.value)], reshaped, semicolon=updated.semicolon)
        if isinstance(original, cst.AugAssign) and isinstance(original.target, cst.Attribute):
            return self._rebind_attribute(original, updated, ctx)
        if isinstance(original, cst.AugAssign) and isinstance(original.target, cst.Name):
            return self._keep_narrow_dtype(original, updated, ctx)
        plan = ctx.write_plan(original)
        if plan is None or plan.blocker is not None or original in ctx.blocked_statements:
            return None
        target, value = subscript_write(updated)
        operator = updated.operator if isinstance(updated, cst.AugAssign) else None
        return self._functional_write(plan, target, value, operator, ctx)

    def _functional_write(self, plan, target: cst.Subscript, value: cst.BaseExpression, operator, ctx: FileContext) -> cst.Assign:
        """``target = value`` (``target op= value``) as the rebinding ``plan`` says: ``x = x.at[i].set(v)`` or
        ``x = jnp.where(mask, v, x)``."""
        name = target.value.deep_clone()
        if isinstance(name, cst.Attribute):
            self._rebound_attribute(name, ctx)
        if plan.how == "where":
            mask = target.slice[0].slice.value
            if plan.masked:  # `x[m] = y[m]`: `y` where `m` holds; `1 / np.sqrt(d[m])`: `1 / jnp.sqrt(d)` (analysis/mask_writes.py)
                value = unmask(value, mask, ctx.jnp_alias)
            if operator is not None:  # `x[m] op= v`: `x op v` where `m` holds
                value = cst.BinaryOperation(left=name.deep_clone(), operator=BINARY_OPERATOR_FOR[type(operator)](),
                                            right=parenthesized(value))
            # NumPy casts the value to the array's dtype. A Python int (weakly typed) keeps an int or float array's
            # dtype in JAX too, but not a bool array's (jnp.where(m, 0, flags) is int32): cast unless the kind is known.
            bare = value.expression if isinstance(value, cst.UnaryOperation) else value
            weak_int = isinstance(bare, cst.Integer) and self._kinds(ctx).value(target.value, ctx.scope).kind in NUMERIC_KINDS
            if not (weak_int or (isinstance(bare, cst.Name) and bare.value in ("True", "False"))):
                value = call(f"{ctx.jnp_alias}.asarray", value, cst.Attribute(value=name, attr=cst.Name("dtype")))
            new_value = call(f"{ctx.use_jnp()}.where", mask, value, name)
        else:
            index = single_elements(target.slice, plan, ctx)
            at = cst.Subscript(
                value=cst.Attribute(value=at_base(name, ctx), attr=cst.Name("at")),
                slice=index,
                lbracket=target.lbracket,
                rbracket=target.rbracket,
            )
            argument = value
            if operator is not None and (type(operator) in BINARY_FOR or plan.reread):  # `x.at[i].set(x[i] op v)`
                current = cst.Subscript(value=name, slice=index)
                argument = cst.BinaryOperation(
                    left=current, operator=BINARY_OPERATOR_FOR[type(operator)](), right=parenthesized(value)
                )
            new_value = cst.Call(func=cst.Attribute(value=at, attr=cst.Name(plan.method)), args=[cst.Arg(argument)])
        return cst.Assign(targets=[cst.AssignTarget(target=name)], value=new_value)

    def _functional_call(self, original: cst.Expr, updated: cst.Expr, ctx: FileContext):
        """``np.add.at(x, i, v)``, ``x.fill(v)``, ``x.sort()``, ``np.fill_diagonal(x, v)`` ... on a local array only
        this name refers to: the functional result, assigned to the name (analysis/inplace_calls.py)."""
        plan = ctx.inplace_call_plan(original.value)
        if plan is None or original in ctx.blocked_statements:
            return None
        args = [arg.value for arg in updated.value.args if arg.keyword is None]
        name: cst.Name | cst.Attribute = cst.Name(plan.name) if plan.attribute is None else plan.attribute.deep_clone()
        if plan.attribute is not None:
            self._rebound_attribute(plan.attribute, ctx)  # `self.counts = ...`: a new array (NPJ200 says so if public)

        def of_name(attribute: str) -> cst.Attribute:
            return cst.Attribute(value=name.deep_clone(), attr=cst.Name(attribute))

        if plan.kind == "at":
            index = args[1]
            if builds_list([a.value for a in original.value.args if a.keyword is None][1], ctx.resolver, ctx.scope):
                index = call(_jnp(ctx, "asarray"), index)  # JAX refuses a list index (as NPJ100 does for x[[0, 2]])
            at = cst.Subscript(value=cst.Attribute(value=at_base(name, ctx), attr=cst.Name("at")),
                               slice=[cst.SubscriptElement(cst.Index(index))])
            value = call(cst.Attribute(value=at, attr=cst.Name(plan.method)), args[2])
        elif plan.kind == "fill":
            value = call(_jnp(ctx, "full_like"), name, args[0])
        elif plan.kind == "sort":
            args = updated.value.args  # `x.sort(axis, kind)`, `x.sort(kind="stable")`: `kind` (or `stable`) is dropped
            axis = [a.value for i, a in enumerate(args) if (a.keyword is None and i == 0) or (a.keyword is not None and a.keyword.value == "axis")]
            value = call(_jnp(ctx, "sort"), name, *([cst.Arg(axis[0], keyword=cst.Name("axis"))] if axis else []))
        elif plan.kind == "fill_diagonal":
            value = call(_jnp(ctx, "fill_diagonal"), name, args[1], cst.Arg(cst.Name("False"), keyword=cst.Name("inplace")))
        elif plan.kind == "copyto":
            value = call(_jnp(ctx, "broadcast_to"), call(_jnp(ctx, "asarray"), args[1], of_name("dtype")), of_name("shape"))
        elif plan.kind == "putmask":  # with a number
            value = call(_jnp(ctx, "where"), args[1], call(_jnp(ctx, "asarray"), args[2], of_name("dtype")), name)
        elif plan.kind == "copyto_where":  # NumPy broadcasts `src` and `where` to `dst`, extra leading 1s dropped
            mask = next(arg.value for arg in updated.value.args if arg.keyword is not None)
            if isinstance(mask, (cst.List, cst.Tuple)):
                mask = call(_jnp(ctx, "asarray"), mask)  # (jnp.where refuses a list)
            picked = call(_jnp(ctx, "where"), mask, call(_jnp(ctx, "asarray"), args[1], of_name("dtype")), name)
            value = call(cst.Attribute(value=picked, attr=cst.Name("reshape")), of_name("shape"))
        elif plan.kind == "out_positional":  # `np.negative(q, q)`: the result, cast to `q`'s dtype as NumPy writes it
            inputs = [arg.with_changes(comma=cst.MaybeSentinel.DEFAULT) if i == len(args) - 2 else arg
                      for i, arg in enumerate(updated.value.args[:-1])]
            value = call(cst.Attribute(value=updated.value.with_changes(args=inputs), attr=cst.Name("astype")), of_name("dtype"))
        else:  # the result that NumPy wrote into `out=` (where `where=` holds)
            value = updated.value.with_changes(args=change_keywords(updated.value.args, {"out": None, "where": None}))
            if plan.kind == "out_where":
                mask = next(arg.value for arg in updated.value.args if arg.keyword is not None and arg.keyword.value == "where")
                value = call(_jnp(ctx, "where"), mask, value, name)
            if plan.kind in ("out", "out_where"):
                value = call(cst.Attribute(value=value, attr=cst.Name("astype")), of_name("dtype"))
        return cst.Assign(targets=[cst.AssignTarget(target=name.deep_clone())], value=value, semicolon=updated.semicolon)

    def _keep_narrow_dtype(self, original: cst.AugAssign, updated: cst.AugAssign, ctx: FileContext):
        """``acc += v`` on an int8 ... float32/int32 array: NumPy casts the sum back into ``acc`` (wrapping),
        JAX's rebinding would keep the wider type: ``acc = (acc + v).astype(acc.dtype)``."""
        operator = BINARY_OPERATOR_FOR.get(type(original.operator))
        if operator is None or not is_narrow_array(original.target.value, ctx.scope, ctx.resolver):
            return None
        target = updated.target.deep_clone()
        result = cst.BinaryOperation(left=target, operator=operator(), right=parenthesized(updated.value),
                                     lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
        value = call(cst.Attribute(value=result, attr=cst.Name("astype")), cst.Attribute(value=target, attr=cst.Name("dtype")))
        return cst.Assign(targets=[cst.AssignTarget(updated.target)], value=value, semicolon=updated.semicolon)

    def _rebind_attribute(self, original: cst.AugAssign, updated: cst.AugAssign, ctx: FileContext):
        """``self.x *= v`` on an array only this object refers to: ``self.x = self.x * v``."""
        aliasing = ctx.aliasing()
        operator = BINARY_OPERATOR_FOR.get(type(original.operator))
        if aliasing is None or operator is None or aliasing.attributes is None:
            return None
        if not aliasing.attributes.is_array(aliasing.function, original.target) or aliasing.attribute_blocker(original.target):
            return None
        self._rebound_attribute(original.target, ctx)
        value = cst.BinaryOperation(left=updated.target.deep_clone(), operator=operator(), right=parenthesized(updated.value))
        return cst.Assign(targets=[cst.AssignTarget(updated.target)], value=value, semicolon=updated.semicolon)

    def _rebound_attribute(self, target: cst.Attribute, ctx: FileContext) -> None:
        if not target.attr.value.startswith("_") and ctx.function is not None:
            self._public_attributes.setdefault(ctx.function.node, []).append(ctx.code(target))

    def _kinds(self, ctx: FileContext) -> ValueClassifier:
        """A value-kind classifier for ``ctx``'s file (made once per file)."""
        cached = getattr(self, "_classifier", None)
        if cached is None or cached[0] is not ctx:
            cached = self._classifier = (ctx, ValueClassifier(ctx.resolver))
        return cached[1]

    def on_leave_function(self, info: FunctionInfo, ctx: FileContext) -> None:
        names = list(dict.fromkeys(self._public_attributes.pop(info.node, ())))
        if not names or info.has_errors(ctx):
            return
        shown = ", ".join(f"`{n}`" for n in names)
        line, col, end_line, end_col = ctx.def_name_span(info)
        ctx.diagnostics.append(Diagnostic(
            self.CODE, Severity.WARNING, self.PUBLIC_MESSAGE.format(names=shown, verb="now gets" if len(names) == 1 else "now get"), ctx.path, line, col, end_line, end_col,
            "read the attribute again after each call (or make it private, `self._x`, to say that nobody else holds it)",
        ))





def _jnp(ctx: FileContext, function: str) -> str:
    return f"{ctx.use_jnp()}.{function}"
