from __future__ import annotations

import libcst as cst

from np2jax.analysis.scipy_twins import TWINS
from np2jax.analysis.scope import Scope
from np2jax.analysis.values import STATIC, python_container
from np2jax.context import FileContext, FunctionInfo
from np2jax.diagnostics import Diagnostic, Severity
from np2jax.rule import Example, RuleDoc
from np2jax.rules.hazard import HazardRule
from np2jax.visitors import child_nodes

# numpy.linalg (and scipy.linalg) functions that raise LinAlgError on singular or indefinite input; jax.numpy returns inf/nan.
SINGULAR_RAISERS = frozenset({"solve", "inv", "cholesky", "tensorsolve", "tensorinv", "matrix_power", "solve_triangular"})
# What NumPy raises and JAX never does, with the handler types that name it ...
CATCHERS = {
    "LinAlgError": frozenset({"numpy.linalg.LinAlgError", "scipy.linalg.LinAlgError"}),
    "FloatingPointError": frozenset({"builtins.FloatingPointError", "builtins.ArithmeticError"}),
    "IndexError": frozenset({"builtins.IndexError", "builtins.LookupError"}),
}
# ... and the broad ones that catch it too (counted only where the body surely raises it).
BROAD_CATCHERS = {
    "LinAlgError": frozenset({"builtins.ValueError", "builtins.Exception", "builtins.BaseException"}),
    "FloatingPointError": frozenset(),
    "IndexError": frozenset(),
}
RAISING_ERRSTATE = frozenset({"raise", "call"})


class NeverRaisedError(HazardRule):
    CODE = "NPJ118"
    NAME = "never-raised-error"
    MESSAGE = "{what}: jax.numpy never raises {error}, so {effect}"
    SEVERITY = Severity.ERROR
    DOC = RuleDoc(
        what=(
            "Reports code that relies on NumPy raising where JAX does not: `except` clauses that catch LinAlgError "
            "(or ValueError, Exception, a bare `except`) around `np.linalg.solve/inv/cholesky`, or any `except "
            "LinAlgError` around `np.linalg`; `except FloatingPointError` and `np.errstate(...='raise')` (or `'call'`, or a setting that is not a string literal, `np.errstate(all=mode)`), also as a decorator, and a module-level `np.seterr(...='raise')` for every rewritten function of the module; `except "
            "IndexError` around array indexing with computed indices. The function is left as it is."
        ),
        why=(
            "jax.numpy does not check values: a singular matrix gives inf/nan instead of LinAlgError, a division by "
            "zero gives inf whatever `np.errstate` says, an out-of-bounds index is clamped. Migrated, the handler "
            "would silently never run and the fallback it implements would be lost."
        ),
        use_instead=(
            "test the result instead of catching: x = jnp.linalg.solve(A, b); "
            "x = jnp.where(jnp.all(jnp.isfinite(x)), x, fallback); check indices with explicit bounds"
        ),
        known_problems="A `try` whose body calls another function of the module that raises is not followed into it.",
    )
    EXAMPLES = (
        Example(
            before="""
            import numpy as np

            def safe_solve(A, b):
                try:
                    return np.linalg.solve(A, b)
                except np.linalg.LinAlgError:
                    return np.linalg.lstsq(A, b, rcond=None)[0]
            """,
            diagnostics=("NPJ118",),
        ),
        Example(
            title="np.errstate that raises",
            before="""
            import numpy as np

            def log_ratio(a, b):
                with np.errstate(divide="raise"):
                    return np.log(a / b)
            """,
            diagnostics=("NPJ118",),
        ),
        Example(
            title="np.errstate as a decorator, np.seterr at module level",
            before="""
            import numpy as np

            np.seterr(invalid="raise")

            @np.errstate(divide="raise")
            def log_ratio(a, b):
                return np.log(a / b)

            def root(x):
                return np.sqrt(x)
            """,
            diagnostics=("NPJ118", "NPJ118", "NPJ118"),
        ),
        Example(
            title="errstate that silences warnings, and handlers of errors JAX raises too, are fine",
            before="""
            import numpy as np

            def ratio(a, b, names):
                with np.errstate(divide="ignore", invalid="ignore"):
                    r = np.where(b != 0, a / b, 0.0)
                try:
                    label = names[0]
                except IndexError:
                    label = ""
                return r, label
            """,
            after="""
            import numpy as np
            import jax.numpy as jnp

            def ratio(a, b, names):
                with np.errstate(divide="ignore", invalid="ignore"):
                    r = jnp.where(b != 0, a / b, 0.0)
                try:
                    label = names[0]
                except IndexError:
                    label = ""
                return r, label
            """,
        ),
    )

    NODE_TYPES = frozenset({cst.Try, cst.Call})

    def on_leave_function(self, info: FunctionInfo, ctx: FileContext) -> None:
        super().on_leave_function(info, ctx)
        if not info.changed or info.has_errors(ctx):
            return
        scope = ctx.resolver.scopes[ctx.module]
        for decorator in info.node.decorators:  # `@np.errstate(divide="raise")` over the whole function
            if isinstance(decorator.decorator, cst.Call):
                self.check(decorator.decorator, scope, ctx)
        for call in _module_seterr(ctx):  # `np.seterr(all="raise")` at import: every function of the module
            what = _raising_settings(call, "np.seterr")
            if what:
                line, col, end_line, end_col = ctx.def_name_span(info)
                message = self.MESSAGE.format(what=f"module-level {what} (line {ctx.exact_span(call)[0]})",
                                              error="FloatingPointError", effect=_EFFECT)
                ctx.diagnostics.append(Diagnostic(self.CODE, self.SEVERITY, message, ctx.path, line, col, end_line, end_col,
                                                  self.DOC.use_instead))

    def check(self, node: cst.CSTNode, scope: Scope, ctx: FileContext) -> None:
        if isinstance(node, cst.Try):
            self._check_try(node, scope, ctx)
        elif isinstance(node, cst.Call) and ctx.resolver.qualname(node.func, scope) in ("numpy.errstate", "numpy.seterr"):
            name = "np.errstate" if ctx.resolver.qualname(node.func, scope) == "numpy.errstate" else "np.seterr"
            what = _raising_settings(node, name)
            if what:
                self.report(ctx, node, self.MESSAGE.format(what=what, error="FloatingPointError", effect=_EFFECT), exact=True)

    def _check_try(self, node: cst.Try, scope: Scope, ctx: FileContext) -> None:
        raised = _raised_in(node.body, scope, ctx)
        for handler in node.handlers:
            caught = _caught(handler, scope, ctx)
            for error, (what, explicit_only) in raised.items():
                catchers = CATCHERS[error] if explicit_only else CATCHERS[error] | BROAD_CATCHERS[error]
                if caught & catchers:
                    target = handler.type if handler.type is not None else handler
                    self.report(ctx, target, self.MESSAGE.format(
                        what=f"this handler catches the {error} that {what} raises in NumPy", error=error,
                        effect="it would never run"), exact=True)
                    return


_EFFECT = "the migrated code would return inf/nan where NumPy raised"


def _raising_settings(call: cst.Call, name: str) -> str | None:
    """What a ``np.errstate``/``np.seterr`` call asks that JAX never does, or None."""
    settings = [arg for arg in call.args if not (arg.keyword is not None and arg.keyword.value == "call")]
    if any(_string(arg.value) in RAISING_ERRSTATE for arg in settings):
        return f"`{name}` asks for floating-point errors to raise"
    if any(_string(arg.value) is None for arg in settings):  # `errstate(all=mode)`, `errstate(**old)`
        return f"`{name}` gets a setting that is not a string literal, which may ask floating-point errors to raise"
    return None


def _module_seterr(ctx: FileContext) -> list[cst.Call]:
    """``np.seterr(...)`` calls among the module's top-level statements (``old = np.seterr(all="raise")`` too),
    found once per file."""
    found = getattr(ctx, "_module_seterr", None)
    if found is not None:
        return found
    found = ctx._module_seterr = []  # type: ignore[attr-defined]
    scope = ctx.resolver.scopes[ctx.module]
    for statement in ctx.module.body:
        for small in statement.body if isinstance(statement, cst.SimpleStatementLine) else ():
            value = small.value if isinstance(small, (cst.Expr, cst.Assign)) else None
            if isinstance(value, cst.Call) and ctx.resolver.qualname(value.func, scope) == "numpy.seterr":
                found.append(value)
    return found


def _raised_in(body: cst.BaseSuite, scope: Scope, ctx: FileContext) -> dict[str, tuple[str, bool]]:
    """The NumPy errors the ``try`` body may raise that JAX never does: error -> (what raises it, explicit catch only)."""
    raised: dict[str, tuple[str, bool]] = {}
    for node in _nodes(body):
        if isinstance(node, cst.Call):
            qualname = ctx.resolver.qualname(node.func, scope) or ""
            if qualname.startswith("numpy.linalg.") or (qualname.startswith("scipy.linalg.") and qualname in TWINS):
                name = qualname[qualname.index(".") + 1:]
                singular = name[len("linalg."):] in SINGULAR_RAISERS
                if singular or "LinAlgError" not in raised:
                    raised["LinAlgError"] = (f"`{'np' if qualname.startswith('numpy.') else 'scipy'}.{name}`", not singular)
            elif qualname.startswith("numpy.") and "FloatingPointError" not in raised:
                raised["FloatingPointError"] = (f"`np.{qualname[len('numpy.'):]}`", True)
        elif isinstance(node, cst.Subscript) and "IndexError" not in raised:
            indices = [e.slice.value for e in node.slice if isinstance(e.slice, cst.Index)]
            if indices and ctx.values.origin(node.value, scope) != STATIC and any(
                ctx.values.origin(index, scope) != STATIC for index in indices
            ) and not python_container(node.value, scope):
                raised["IndexError"] = (f"`{ctx.code(node).strip()}`", True)
    return raised


def _nodes(tree: cst.CSTNode):
    stack = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            continue
        yield node
        stack.extend(child_nodes(node))


def _caught(handler: cst.ExceptHandler, scope: Scope, ctx: FileContext) -> set[str]:
    if handler.type is None:
        return {"builtins.BaseException"}
    types = handler.type.elements if isinstance(handler.type, cst.Tuple) else [handler.type]
    names = set()
    for element in types:
        value = element.value if isinstance(element, cst.Element) else element
        qualname = ctx.resolver.qualname(value, scope)
        if qualname is not None:
            names.add(qualname)
    return names


def _string(node: cst.BaseExpression) -> str | None:
    return node.evaluated_value if isinstance(node, cst.SimpleString) else None
