from __future__ import annotations

import libcst as cst

from np2jax.analysis.callbacks import CALLERS
from np2jax.analysis.loops import descendants
from np2jax.analysis.index_tricks import CONCATENATORS, STATIC
from np2jax.analysis.inplace_calls import masked_into_fresh
from np2jax.analysis.object_arrays import DATA_FUNCTIONS, is_object_dtype, object_element
from np2jax.analysis.values import nodes_of
from np2jax.context import FileContext, FunctionInfo, NumpyRef
from np2jax.diagnostics import Severity
from np2jax.rule import Example, Rule, RuleDoc
from np2jax.rules.np_to_jnp import NONE_DEFAULTS, concatenation_at
from np2jax.tables import positional_parameter
from np2jax.tables.jax_signatures import SIGNATURES
from np2jax.tables.numpy_api import KEYWORD_RENAMES, KEYWORD_VALUES
from np2jax.visitors import FastVisitor, visit

ALWAYS_UNSUPPORTED = frozenset({"out", "casting", "subok", "like", "order"})
# jax.numpy functions that call a Python function argument with traced arrays (vmap or tracing): position, keyword
CALLBACKS = {f"jax.{numpy_name}": where for numpy_name, where in CALLERS.items()}
TRACEABLE_BUILTINS = frozenset({"builtins.abs", "builtins.pow"})
ORDER_OK = frozenset({"jax.numpy.reshape", "jax.numpy.ravel"})


class UnsupportedArgument(Rule):
    CODE = "NPJ103"
    NAME = "unsupported-argument"
    MESSAGE = "`np.{name}` is called with {argument}, which jax.numpy does not support"
    VALUE_MESSAGE = "`np.{name}` is called with {argument}, which jax.numpy does not compute as NumPy does"
    CALLBACK_MESSAGE = "`np.{name}` is called with {argument}: jax.numpy calls it with traced arrays instead of Python scalars, which it cannot take"
    CONCATENATION_MESSAGE = "`np.{name}[...]` mixes traced values with {argument}"
    CONCATENATION_INSTEAD = ("`jnp.concatenate` of arrays with explicit dtypes (`jnp.arange(n, dtype=x.dtype)` for a slice); "
                             "`jnp.stack`/`jnp.column_stack` for directives")
    OBJECT_MESSAGE = "`{name}` makes an array of {what}, which jax.numpy cannot hold (it has only numeric and boolean dtypes)"
    OBJECT_INSTEAD = ("keep the function NumPy, or hold such values in a Python list; use NaN or a mask for missing numbers "
                      "and integer codes for strings")
    CALLBACK_INSTEAD = ("a function written with jax.numpy operations (`jax.scipy.special.erf` for `math.erf`, "
                        "`jnp.where(test, a, b)` for `a if test else b`)")
    SEVERITY = Severity.ERROR
    DOC = RuleDoc(
        what=(
            "Reports calls that pass `out=` (except where NPJ200 assigns the result instead: `out=` a local array "
            "only one name sees, an array attribute of `self` no other reference sees (`np.minimum(self.low, x, out=self.low)`), or `out=` a new constant array with `where=`), `order=`, `casting=`, `subok=`, `like=`, or any argument the jax.numpy "
            "twin does not accept, including a function it cannot call with traced arrays (`np.vectorize(math.erf)`), "
            "values it cannot honour (`np.gradient(y, edge_order=...)`: jax.numpy computes the default edge order only; `np.ravel_multi_index` without `mode='clip'` or "
            "`'wrap'`: NumPy's default checks the indices, which jax.numpy cannot do on traced ones; "
            "`np.quantile`/`percentile`/`nanquantile`/`nanpercentile` with `method='nearest'`, whose ties "
            "jax.numpy breaks another way), "
            "and arrays jax.numpy cannot represent: a `dtype` of `object`, `str`, `bytes`, `datetime64`, `timedelta64` (`\"O\"`, `\"U10\"`, "
            "`\"datetime64[D]\"`, `.astype(object)`), or data written as lists holding `None`, strings or `Decimal`/`Fraction` objects "
            "(`np.array([[None] * k])`, `np.full(n, None)`). Also `np.r_[...]`/`np.c_[...]` mixing traced values with "
            "a slice (`np.r_[x, 0:n]`: NumPy's int64 range promotes a float32 `x` to float64, `jnp.r_` keeps float32) "
            "or a string directive (`\"r\"`/`\"c\"` make an `np.matrix` in NumPy). And an array's `.sum(..., initial=v)` "
            "method, which a jax.Array takes and ignores (`np.sum(x, initial=v)` becomes `jnp.sum`, which honours it)."
        ),
        why=(
            "JAX arrays are immutable and have no memory layout: `out=` cannot write in place, and the other options do not "
            "exist. JAX has no object, string or date dtypes: `jnp.array([None])` raises `None is not a valid value for jnp.array`."
        ),
        use_instead="assign the result: `y = jnp.add(a, b)` instead of `np.add(a, b, out=y)`; drop layout options.",
        known_problems=(
            "A function handed to `np.vectorize`, `np.apply_along_axis`, `np.apply_over_axes` or `np.piecewise` is "
            "reported when it is a function of another library or a builtin such as `float` (`math.erf`: jax.numpy "
            "calls it with traced arrays, which it cannot take), or a lambda that calls one or branches on values "
            "(`a if x > 0 else b`, `and`/`or`), or a function of the module that jax.jit cannot trace or that keeps Python "
            "`if`s or loops on its arguments (it has nothing array-specific to migrate: `def ramp(v): return 0.0 if v < 0 "
            "else v`). "
            "`order=` is accepted for `reshape` and `ravel`, where it changes the element order and JAX supports it. "
            "Keywords jax.numpy only spells differently are renamed instead (`clip(a_min=, a_max=)` -> `min=`, `max=`), "
            "and `sort`/`argsort` `kind=` becomes `stable=True` for stable kinds. Ufunc methods "
            "(`np.maximum.accumulate(x, out=y)`) are checked for `out=` and the other options too. Object arrays are "
            "found only where the source shows them (a dtype, or list literals and local names bound to them); "
            "`Decimal` values passed in by the caller are not seen."
        ),
    )
    EXAMPLES = (
        Example(
            before="""
            import numpy as np

            def accumulate(a, b, buf):
                np.add(a, b, out=buf)
                return np.asarray(buf, order="F")
            """,
            diagnostics=("NPJ103", "NPJ103"),
        ),
        Example(
            before="""
            import numpy as np

            def running_max(x, out):
                np.maximum.accumulate(x, out=out)  # the caller's array: no local result to assign
                return out
            """,
            diagnostics=("NPJ103",),
        ),
        Example(
            title="an option jax.numpy computes another way",
            before="""
            import numpy as np

            def median_sample(x):
                return np.quantile(x, 0.5, method="nearest")  # [1, 2, 3, 4]: 3 in NumPy, 2 in jax.numpy
            """,
            diagnostics=("NPJ103",),
        ),
        Example(
            title="a function jax.numpy cannot call with traced arrays",
            before="""
            import math

            import numpy as np

            def norm_cdf(x):
                return 0.5 * (1.0 + np.vectorize(math.erf)(x / math.sqrt(2.0)))

            def ramp(x):
                return np.vectorize(lambda v: v if v > 0 else 0.0)(x)
            """,
            diagnostics=("NPJ103", "NPJ103"),
        ),
        Example(
            title="a lambda of jax.numpy operations is traced as it is",
            before="""
            import numpy as np

            def bump(x):
                return np.vectorize(lambda v: np.exp(-v * v))(x)
            """,
            after="""
            import jax.numpy as jnp

            def bump(x):
                return jnp.vectorize(lambda v: jnp.exp(-v * v))(x)
            """,
        ),
        Example(
            title="arrays of objects or strings",
            before="""
            import numpy as np

            def placeholder(k):
                return np.array([[None] * k]).T

            def labels(n):
                return np.empty(n, dtype=object), np.zeros(n).astype("U8")
            """,
            diagnostics=("NPJ103", "NPJ103", "NPJ103"),
        ),
        Example(
            title="`np.r_` with a slice among traced values",
            before="""
            import numpy as np

            def with_ramp(x):
                return np.r_[x, 0:3]
            """,
            diagnostics=("NPJ103",),
        ),
        Example(
            before="""
            import numpy as np

            def unravel(x):
                return np.reshape(x, (-1,), order="F")
            """,
            after="""
            import jax.numpy as jnp

            def unravel(x):
                return jnp.reshape(x, (-1,), order="F")
            """,
        ),
    )

    def on_numpy_ref(self, ref: NumpyRef, ctx: FileContext) -> None:
        if ref.call is None and ref.qualname in CONCATENATORS:
            self._concatenation(ref, ctx)
        if ref.call is None or ref.row is None or ref.row.jax is None:
            return
        target = f"{ref.row.jax}.{ref.member}" if ref.member else ref.row.jax  # `np.maximum.accumulate(x, out=y)`
        renames = KEYWORD_RENAMES.get(ref.row.numpy, {})
        plan = ctx.inplace_call_plan(ref.call)
        if plan is not None and plan.kind in ("out", "out_where"):  # NPJ200 assigns the result instead (analysis/inplace_calls.py)
            renames = {**renames, "out": "out", "where": "where"}
        elif not ref.member and masked_into_fresh(ref.call, ctx.resolver, ref.scope):
            ctx.masked_results.add(ref.call)  # `np.divide(a, b, out=np.zeros_like(a), where=b != 0)`: the walker writes jnp.where
            renames = {**renames, "out": "out", "where": "where"}
        checked = ref.call
        if plan is not None and plan.kind == "out_positional":  # `np.negative(q, q)`: NPJ200 assigns the result
            checked = ref.call.with_changes(args=ref.call.args[:-1])
        problem, message, advice = self._problem(checked, target, renames), self.MESSAGE, None
        if problem is None:
            (problem, advice), message = _value_problem(ref.call, ref.row.numpy, target), self.VALUE_MESSAGE
        if problem is not None:
            ref.block()
            self.report(ctx, ref.call, message.format(name=ref.name, argument=problem), use_instead=advice)
            return
        what = None if ref.member else _object_array(ref.call, target, ref.name, ctx, ref.scope)
        if what is not None:
            ref.block()
            self.report(ctx, ref.call, self.OBJECT_MESSAGE.format(name=f"np.{ref.name}", what=what), use_instead=self.OBJECT_INSTEAD)
            return
        callback = None if ref.member else _untraceable_callback(ref.call, target, ctx)
        if callback is not None:
            ref.block()
            self.report(ctx, ref.call, self.CALLBACK_MESSAGE.format(name=ref.name, argument=callback), use_instead=self.CALLBACK_INSTEAD)

    def _concatenation(self, ref: NumpyRef, ctx: FileContext) -> None:
        """``np.r_[x, 0:n]``: a part ``jnp.r_`` turns into another dtype (analysis/index_tricks.py)."""
        subscript, problem = concatenation_at(ref, ctx)
        if problem is not None and problem != STATIC:
            ref.block()
            self.report(ctx, subscript, self.CONCATENATION_MESSAGE.format(name=ref.name, argument=problem),
                        use_instead=self.CONCATENATION_INSTEAD)

    def on_leave_function(self, info: FunctionInfo, ctx: FileContext) -> None:
        """``x.astype(object)``: a method call, not a NumPy name."""
        if not info.changed:
            return
        for node, scope in nodes_of(info.node, ctx.resolver, _CALLS):
            if (isinstance(node.func, cst.Attribute) and node.func.attr.value == "sum" and ctx.resolver.qualname(node.func, scope) is None
                    and any(arg.keyword is not None and arg.keyword.value == "initial" and not (
                        isinstance(arg.value, cst.Name) and arg.value.value == "None") for arg in node.args)):
                # hunt51 S1: jax 0.10's `Array.sum` takes `initial=` and ignores it (`[2, 4]` for NumPy's `[3, 5]`)
                self.report(ctx, node, self.VALUE_MESSAGE.format(name="ndarray.sum", argument="`initial=`").replace(
                    "`np.ndarray.sum`", "`.sum()`"), use_instead="jnp.sum(x, ..., initial=v), which honours it")
            if isinstance(node.func, cst.Attribute) and node.func.attr.value == "astype":
                dtype = _argument(node, 0, "dtype")
                if dtype is not None and is_object_dtype(dtype, ctx.resolver, scope):
                    what = f"dtype `{ctx.code(dtype)}`"
                    self.report(ctx, node, self.OBJECT_MESSAGE.format(name=".astype", what=what), use_instead=self.OBJECT_INSTEAD)

    @staticmethod
    def _problem(call: cst.Call, target: str, renames: dict[str, str]) -> str | None:
        signature = SIGNATURES.get(target)
        positional = sum(1 for arg in call.args if arg.keyword is None and not arg.star)
        if signature is not None and positional > signature[0]:
            return f"{positional} positional arguments"
        for index, arg in enumerate(call.args):
            none = isinstance(arg.value, cst.Name) and arg.value.value == "None"
            if arg.keyword is None:
                if (signature is not None and not arg.star and index < len(signature[1]) and not none
                        and signature[1][index] in signature[3] and not any(name.startswith("*") for name in signature[1][:index])):
                    return f"`{signature[1][index]}` given by position"  # `np.cumsum(b, 0, None, b)` (hunt51 L3)
                continue
            keyword = arg.keyword.value
            if none and (keyword in NONE_DEFAULTS or signature is None or keyword in signature[1] or "**" in signature[1]):
                continue  # (`out=None`, `dtype=None`, NumPy's defaults, are left out of the call: np_to_jnp.py)
            if keyword in renames:
                continue
            if keyword == "kind" and target in ("jax.numpy.sort", "jax.numpy.argsort") and isinstance(arg.value, cst.SimpleString):
                continue  # NPJ100 maps it to stable=True / the default
            if signature is not None and keyword in signature[3]:
                return f"`{keyword}=`"
            if keyword in ALWAYS_UNSUPPORTED and not (keyword == "order" and target in ORDER_OK):
                return f"`{keyword}=`"
            if signature is not None and keyword not in signature[1] and "**" not in signature[1]:
                return f"`{keyword}=`"
        return None


def _untraceable_callback(call: cst.Call, target: str, ctx: FileContext) -> str | None:
    """``np.vectorize(math.erf)``: NumPy calls the function on Python scalars, jax.numpy on traced arrays."""
    if target not in CALLBACKS:
        return None
    position, keyword = CALLBACKS[target]
    positional = [arg.value for arg in call.args if arg.keyword is None and not arg.star]
    argument = next((arg.value for arg in call.args if arg.keyword is not None and arg.keyword.value == keyword), None)
    if argument is None and len(positional) > position:
        argument = positional[position]
    functions = [e.value for e in argument.elements] if isinstance(argument, (cst.List, cst.Tuple)) else [argument]
    for function in functions:
        if function is None:
            continue
        why = _why_untraceable(function, ctx)
        if why is not None:
            return f"`{ctx.code(function)}`, {why}"
    return None


def _why_untraceable(function: cst.BaseExpression, ctx: FileContext) -> str | None:
    if isinstance(function, cst.Lambda):
        finder = _Untraceable(ctx)
        visit(function.body, finder)
        return None if finder.found is None else f"a lambda that {finder.found}"
    qualname = ctx.resolver.qualname(function, ctx.scope)
    if _foreign(qualname):
        return f"a function of `{qualname.rsplit('.', 1)[0]}`"
    if isinstance(function, cst.Name):
        return _module_function_untraceable(function.value, ctx)
    return None


def _module_function_untraceable(name: str, ctx: FileContext) -> str | None:
    """A function of the module jax.numpy would call with tracers: one whose jit plan fails, or one left as it is
    (nothing in it is array code) that branches or loops on its arguments in Python (`if v < 0: return 0.0`)."""
    found, _ = ctx.scope.lookup(name)
    node = ctx.tracing.function_node(name) if ctx.tracing is not None and found is not None and found.kind == "module" else None
    if node is None:
        return None
    plan = ctx.tracing.plan(name)
    if plan is not None and not plan.ok:
        return f"a function of this module that jax.jit cannot trace ({plan.blockers[0].message})"
    if not ctx.tracing.array_code(name) and any(
            isinstance(n, (cst.If, cst.While, cst.For, cst.IfExp, cst.BooleanOperation)) for n in descendants(node.body)):
        return "a function of this module with Python control flow that stays as it is (nothing in it is array code)"
    return None


def _foreign(qualname: str | None) -> bool:
    """A function np2jax knows is neither NumPy's nor JAX's (a library's, or a builtin like ``float``)."""
    if qualname is None or qualname in TRACEABLE_BUILTINS:
        return False
    return not (qualname == "numpy" or qualname.startswith(("numpy.", "jax.", "jax")))


class _Untraceable(FastVisitor):
    def __init__(self, ctx: FileContext) -> None:
        self.ctx = ctx
        self.found: str | None = None

    def visit_Call(self, node: cst.Call) -> None:
        qualname = self.ctx.resolver.qualname(node.func, self.ctx.scope)
        if self.found is None and _foreign(qualname):
            self.found = f"calls `{qualname}`"

    def visit_IfExp(self, node: cst.IfExp) -> None:
        self.found = self.found or "branches on a value (`a if test else b`)"

    def visit_BooleanOperation(self, node: cst.BooleanOperation) -> None:
        self.found = self.found or "branches on a value (`and`/`or`)"


def _argument(call: cst.Call, position: int, keyword: str) -> cst.BaseExpression | None:
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == keyword:
            return arg.value
    positional = [arg.value for arg in call.args if arg.keyword is None and not arg.star]
    return positional[position] if len(positional) > position else None


def _object_array(call: cst.Call, target: str, name: str, ctx: FileContext, scope) -> str | None:
    """What makes ``call`` build an array jax.numpy cannot hold (a dtype, an element), or None."""
    names = SIGNATURES[target][1] if target in SIGNATURES else ()
    for index, arg in enumerate(call.args):
        param = arg.keyword.value if arg.keyword is not None else ("" if arg.star else positional_parameter(names, index))
        if param == "dtype" and is_object_dtype(arg.value, ctx.resolver, scope):
            return f"dtype `{ctx.code(arg.value)}`"
    start = DATA_FUNCTIONS.get(name)
    if start is None:
        return None
    positional = [arg.value for arg in call.args if arg.keyword is None and not arg.star]
    fill = _argument(call, 1, "fill_value") if start == 1 else None
    for value in positional[start:] if fill is None else [fill]:
        if start == 1 and (isinstance(value, cst.Name) and value.value == "None" or isinstance(value, cst.SimpleString)):
            return f"`{ctx.code(value)}`"
        element = object_element(value, ctx.resolver, scope)
        if element is not None:
            return f"`{ctx.code(element)}` values"
    return None


def _value_problem(call: cst.Call, numpy_name: str, target: str) -> tuple[str | None, str | None]:
    """An argument value jax.numpy cannot honour (``KEYWORD_VALUES``): ``np.gradient(y, edge_order=2)``,
    ``np.ravel_multi_index(idx, dims)`` (its default ``mode="raise"``)."""
    wanted = KEYWORD_VALUES.get(numpy_name)
    if not wanted:
        return None, None
    names = SIGNATURES.get(target, (0, ()))[1]
    given = {}
    for index, arg in enumerate(call.args):
        if arg.star:
            return None, None
        name = arg.keyword.value if arg.keyword is not None else positional_parameter(names, index)
        given[name] = arg.value
    for keyword, (allowed, default_ok, advice) in wanted.items():
        value = given.get(keyword)
        if value is None and not default_ok:
            return f"`{keyword}` left at NumPy's default", advice
        code = cst.Module(body=()).code_for_node(value).strip() if value is not None else None
        if code is not None and code not in allowed:
            return f"`{keyword}={code}`", advice
    return None, None


_CALLS = frozenset({cst.Call})  # (for nodes_of)
