from __future__ import annotations

import libcst as cst

from np2jax.analysis.mutation import ends_with_exit
from np2jax.context import FileContext, FunctionInfo
from np2jax.diagnostics import Diagnostic, FixSafety, Severity
from np2jax.rule import Example, Rule, RuleDoc
from np2jax.cstutil import parenthesized
from np2jax.rules.functional_update import BINARY_OPERATOR_FOR


def _names(names) -> cst.BaseExpression:
    if len(names) == 1:
        return cst.Name(names[0])
    return cst.Tuple([cst.Element(cst.Name(n)) for n in names], lpar=[], rpar=[])


def _arguments(node: cst.FunctionDef) -> str:
    params = node.params
    return ", ".join([p.name.value for p in (*params.posonly_params, *params.params)] + [f"{p.name.value}={p.name.value}" for p in params.kwonly_params])


class ReturnedArgument(Rule):
    CODE = "NPJ203"
    NAME = "returned-argument"
    MESSAGE = "`{function}` wrote into its argument{s} {params} in place: it now returns {them} instead{calls}{outside}"
    REBINDING_MESSAGE = (
        "`{function}` updates its argument{s} {params} with `op=`: NumPy also changes the caller's array, the migrated "
        "function only rebinds {them} (no caller in this module relies on the update; callers elsewhere must use "
        "what it returns)"
    )
    HANDED_MESSAGE = (
        "`{function}` writes into its argument {params} in place and returns it: NumPy also changes the caller's "
        "array, the migrated function only returns the updated array (no caller in this module relies on the "
        "change; callers elsewhere must use what it returns)"
    )
    CALLS = ", and its calls in this module rebind {them} (`{example}`)"
    PUBLIC = "; callers in other modules must rebind {them} too (`{signature}`)"
    PRIVATE = " (a private name: no callers outside this module are expected)"
    SEVERITY = Severity.WARNING  # INFO for private names (leading underscore)
    FIX_SAFETY = FixSafety.SAFE
    DOC = RuleDoc(
        what=(
            "Rewrites a function that writes into its array arguments and returns nothing (`x[i] = v`, `x /= s`) "
            "so that it returns the updated arrays (`return x`, or `return x, y` in signature order), and every "
            "call in the module, `f(a)`, to `a = f(a)`. Reported at the `def`: a warning for public names, "
            "whose callers in other modules must now rebind too, an info for private ones (`_name`). `x op= v` on a "
            "parameter nothing else shows to be an array counts too, in a function that returns nothing (`def "
            "adam(p, g, m, v): m *= b1; ...; p -= lr * step`: on numbers it would change nothing a caller sees), when "
            "every call in the module passes an array there (a name the caller uses as an array, or bound to an array "
            "constructor's result: `bump(s, 1.0)` with `s = 0.0` keeps it NumPy, since rebinding `s` would change the "
            "caller's number). Also reported: "
            "a function that updates a parameter with `op=` and returns a value (`v *= 0.9; ...; return v`) where no "
            "caller in the module relies on the update: the migrated `op=` only rebinds the name, so a caller that kept "
            "its array no longer sees the update. Likewise a function that writes into a parameter and returns it at "
            "every exit (`A[np.diag_indices_from(A)] += eps; return A`): callers that use the result get the same "
            "array; one that passes an array it may read afterwards (or passes the function on as a value) relies "
            "on the update, and then the function stays NumPy code (NPJ201)."
        ),
        why=(
            "JAX arrays cannot change: the only way to hand an update back is to return it. The rewrite is applied "
            "only when it is exact: the function returns no value, is not decorated, its mutated parameters have no "
            "default, are never rebound (`x = ...`) and no other name or view sees them; its name is only ever "
            "called, and each call is a statement of its own in a function body, passing a plain local array name "
            "that nothing else can observe. A caller passing its own parameter mutates its argument too: it is "
            "rewritten the same way when it qualifies. A caller that stays NumPy code (for any reason) keeps relying "
            "on the mutation, so the function then stays NumPy code too. Otherwise the writes are reported (NPJ201) "
            "and the function stays NumPy code."
        ),
        use_instead="return the updated array and rebind it at every call site: `a = f(a)`",
        known_problems=(
            "Callers in other modules are not rewritten: a public function's callers elsewhere keep `f(a)` and no "
            "longer see the update (hence the warning). Methods are not rewritten this way (see NPJ200 for `self.x`)."
        ),
    )
    EXAMPLES = (
        Example(
            title="an op= on a parameter that the function returns: the caller's array is no longer updated",
            before="""
            import numpy as np

            def momentum(v, grads, lr):
                for g in grads:
                    v *= 0.9
                    v -= lr * np.asarray(g)
                return v
            """,
            after="""
            import jax.numpy as jnp

            def momentum(v, grads, lr):
                for g in grads:
                    v *= 0.9
                    v -= lr * jnp.asarray(g)
                return v
            """,
            diagnostics=("NPJ203",),
        ),
        Example(
            title="a write into a parameter that the function returns: callers that use the result see the update",
            before="""
            import numpy as np

            def _regularize(A, eps):
                A[np.diag_indices_from(A)] += eps
                return A

            def solve(n, b):
                A = _regularize(np.ones((n, n)), 1e-3)
                return np.linalg.solve(A, b)
            """,
            after="""
            import jax.numpy as jnp

            def _regularize(A, eps):
                A = jnp.asarray(A).at[jnp.diag_indices_from(A)].add(eps)
                return A

            def solve(n, b):
                A = _regularize(jnp.ones((n, n)), 1e-3)
                return jnp.linalg.solve(A, b)
            """,
            diagnostics=("NPJ203",),
        ),
        Example(
            title="the updated argument is returned and the caller rebinds it",
            before="""
            import numpy as np

            def _normalize(x):
                x /= np.linalg.norm(x)

            def unit_rows(n):
                a = np.ones(n)
                _normalize(a)
                return a * 2
            """,
            after="""
            import jax.numpy as jnp

            def _normalize(x):
                x = x / jnp.linalg.norm(x)
                return x

            def unit_rows(n):
                a = jnp.ones(n)
                a = _normalize(a)
                return a * 2
            """,
            diagnostics=("NPJ203",),
        ),
        Example(
            title="several arguments, an early return, and a caller that mutates its own argument (public: a warning)",
            before="""
            import numpy as np

            def clip_pair(lo, hi, limit):
                if limit is None:
                    return
                lo[lo < 0] = 0.0
                hi[0] = np.minimum(hi[0], limit)

            def clip_all(lo, hi):
                clip_pair(lo, hi, 1.0)
            """,
            after="""
            import jax.numpy as jnp

            def clip_pair(lo, hi, limit):
                if limit is None:
                    return lo, hi
                lo = jnp.where(lo < 0, jnp.asarray(0.0, lo.dtype), lo)
                hi = jnp.asarray(hi).at[0].set(jnp.minimum(hi[0], limit))
                return lo, hi

            def clip_all(lo, hi):
                lo, hi = clip_pair(lo, hi, 1.0)
                return lo, hi
            """,
            diagnostics=("NPJ203", "NPJ203"),
        ),
        Example(
            title="a caller that uses the result, or passes an attribute: not rewritten",
            before="""
            import numpy as np

            def _reset(buffer):
                buffer[0] = 0.0

            def step(x):
                y = np.cumsum(x)
                return _reset(y)
            """,
            diagnostics=("NPJ201", "NPJ202"),
        ),
        Example(
            title="the function also returns a value: not rewritten",
            before="""
            import numpy as np

            def scale(x, k):
                x *= k
                return np.sum(x)
            """,
            diagnostics=("NPJ201",),
        ),
    )

    def rewrite_statement(self, original: cst.BaseSmallStatement, updated: cst.BaseSmallStatement, ctx: FileContext):
        if isinstance(original, cst.Expr) and ctx.mutations is not None and original in ctx.mutations.rebinds:
            names = ctx.mutations.rebinds[original]
            return cst.Assign(targets=[cst.AssignTarget(_names(names))], value=updated.value, semicolon=updated.semicolon)
        returned = ctx.returned_parameters()
        if not returned:
            return None
        if isinstance(original, cst.Return) and original.value is None:
            return updated.with_changes(value=_names(self._ordered(returned, ctx)), whitespace_after_return=cst.SimpleWhitespace(" "))
        if isinstance(original, cst.AugAssign) and isinstance(original.target, cst.Name) and original.target.value in returned:
            operator = BINARY_OPERATOR_FOR.get(type(original.operator))
            if operator is not None:
                value = cst.BinaryOperation(left=cst.Name(original.target.value), operator=operator(), right=parenthesized(updated.value))
                return cst.Assign(targets=[cst.AssignTarget(updated.target)], value=value, semicolon=updated.semicolon)
        return None

    def _report_rebinding(self, info: FunctionInfo, ctx: FileContext) -> None:
        """``v *= 0.9; ...; return v``: the ``op=`` on a parameter becomes a rebinding (nothing in the module relies
        on the update); a caller outside it that kept the array sees NumPy's update no longer."""
        function = ctx.mutations.function(info.node)
        if function is None or not info.changed:
            return
        relied = ctx.mutations.relied_on(info.node)
        params = [p for p in function.maybe if p not in relied]
        if not params:
            return
        private = function.name.startswith("_")
        if params == function.handed:
            message = self.HANDED_MESSAGE.format(function=function.name, params=f"`{params[0]}`")
        else:
            message = self.REBINDING_MESSAGE.format(
                function=function.name, s="s" if len(params) > 1 else "", params=", ".join(f"`{p}`" for p in params),
                them="it" if len(params) == 1 else "them")
        line, col, end_line, end_col = ctx.def_name_span(info)
        ctx.diagnostics.append(Diagnostic(
            self.CODE, Severity.INFO if private else self.SEVERITY, message, ctx.path, line, col, end_line, end_col,
            "use the returned value (`v = f(v, ...)`) where the caller's array must change"))

    @staticmethod
    def _ordered(returned: frozenset[str], ctx: FileContext) -> list[str]:
        return [name for name in ctx.mutations.function(ctx.function.node).params if name in returned]

    def on_leave_function(self, info: FunctionInfo, ctx: FileContext) -> None:
        if ctx.mutations is None or info.has_errors(ctx):
            return
        returned, _ = ctx.mutations.returned(info.node)
        if not returned:
            self._report_rebinding(info, ctx)
            return
        function = ctx.mutations.function(info.node)
        params = function.params
        if not ends_with_exit(info.node.body):
            info.epilogue = cst.Return(_names(params))
        names = next((site.names for site in function.calls if site.names), None)
        private = function.name.startswith("_")
        them = "it" if len(params) == 1 else "them"
        returned = ", ".join(params)
        message = self.MESSAGE.format(
            function=function.name, s="s" if len(params) > 1 else "", params=", ".join(f"`{p}`" for p in params),
            them=them if len(params) == 1 else f"`{returned}`",
            calls="" if names is None else self.CALLS.format(them=them, example=f"{', '.join(names)} = {function.name}(...)"),
            outside=self.PRIVATE if private else self.PUBLIC.format(them=them, signature=f"{returned} = {function.name}({_arguments(info.node)})"),
        )
        line, col, end_line, end_col = ctx.def_name_span(info)
        ctx.diagnostics.append(Diagnostic(
            self.CODE, Severity.INFO if private else self.SEVERITY, message, ctx.path, line, col, end_line, end_col, self.DOC.use_instead
        ))
