from __future__ import annotations

import libcst as cst

from np2jax.analysis.average_dtype import FLOAT, SCALE, average_fix
from np2jax.analysis.callbacks import callback_arguments, numpy_twin
from np2jax.analysis.loops import descendants
from np2jax.analysis.index_tricks import CONCATENATORS, STATIC, concatenation_problem, subscript_of
from np2jax.analysis.eager_values import EagerValues
from np2jax.analysis.host_values import exact_grid, metadata_only, wrapped_already
from np2jax.analysis.jax_values import HOST_CONVERSIONS, computed_by_jax, makes_jax_array, name_holds_jax_array
from np2jax.analysis.cumulative_dtype import CUMULATIVE, CUMULATIVE_METHODS, widening_dtype
from np2jax.analysis.resolve import is_numpy, is_shape_name
from np2jax.analysis.scope import ImportBinding, LoopBinding, ParamBinding, Scope, ValueBinding
from np2jax.analysis.sequences import SequenceArguments, builds_list
from np2jax.analysis.values import function_nodes, grown_at_run_time
from np2jax.context import OWN_DTYPE, FileContext, NumpyRef, runs_on_jax_arrays
from np2jax.cstutil import call
from np2jax.diagnostics import FixSafety, Severity
from np2jax.rule import Example, Rule, RuleDoc
from np2jax.rules.python_numbers import (FLOAT_POWERS, FLOAT_UFUNCS, convolution_dtype, float_valued, mixed_python_floats,
                                         of_number_like_parameters, of_python_numbers, python_fill, widened_arguments)
from np2jax.tables import positional_parameter
from np2jax.tables.jax_signatures import SIGNATURES, UFUNCS
from np2jax.tables.numpy_api import (
    ARRAY_OPERANDS_FROM, AT_LEAST_1D_ARGUMENTS, FLATTENED_ARGUMENTS, INEXACT_ARGUMENTS, INT32_INDEX_RESULTS, KEYWORD_ADDITIONS, KEYWORD_RENAMES, STABLE_SORT_KINDS,
)

UFUNC_METHODS = frozenset({"reduce", "accumulate", "outer", "reduceat"})
# Elementwise functions whose result has their argument's kind: of a Python number, NumPy 2 returns a strongly typed
# int64/float64 scalar, jax.numpy a weakly typed one (which a uint8 array it meets keeps uint8, wrapping).
SAME_KIND_UFUNCS = frozenset(f"numpy.{name}" for name in "square abs absolute negative positive sign".split())
# Never wrap these in jnp.asarray: they are shapes, axes or counts, not data.
STATIC_PARAMETERS = frozenset(
    {"shape", "newshape", "new_shape", "axis", "axes", "reps", "pad_width", "indices_or_sections",
     "source", "destination", "s", "ord", "dims", "subscripts", "dtype", "kth", "k", "deg", "N", "M"}
)
# Called on a parameter, these say the function expects scalars or lists as well as arrays.
NORMALISING = frozenset({"jax.numpy.atleast_1d", "jax.numpy.atleast_2d", "jax.numpy.atleast_3d", "jax.numpy.ravel",
                         "jax.numpy.broadcast_arrays"})
# Nor, when the argument is a parameter, these: jax.numpy needs them concrete, or they take functions.
CONCRETE_PARAMETERS = frozenset({"start", "n", "repeats", "obj", "copy", "function", "func", "mask_func", "prototype"})

# NumPy averages booleans in float64; jax.numpy in float32 even with jax_enable_x64, unless given dtype=float
# Keywords whose None is NumPy's default, left out where jax.numpy's twin does not take them (`np.add(x, y, dtype=None)`)
NONE_DEFAULTS = frozenset({"out", "like", "dtype", "signature"})
BOOLEAN_AVERAGES = frozenset(f"numpy.{name}" for name in "mean std var nanmean nanstd nanvar".split())
BOOLEAN_AVERAGE_METHODS = frozenset({"mean", "std", "var"})
BOOLEAN_FUNCTIONS = frozenset(
    f"numpy.{name}" for name in "isnan isinf isfinite isclose isneginf isposinf logical_and logical_or logical_not logical_xor signbit".split()
)


def _no_dtype(call: cst.Call, positional: int) -> bool:
    """``np.mean(a, axis)``, ``x.mean(axis)``: the data given first by position, no ``dtype=`` and no more than
    ``positional`` arguments by position (``mean(a, axis, dtype)``: a third is the dtype)."""
    args = call.args
    return not any(a.star or (a.keyword is not None and a.keyword.value == "dtype") for a in args) and (
        len([a for a in args if a.keyword is None]) <= positional) and (positional == 1 or (
            bool(args) and args[0].keyword is None))


def _is_boolean(node: cst.BaseExpression, scope: Scope, ctx: FileContext, depth: int = 0) -> bool:
    """``node`` is plainly a boolean array or value: a comparison, ``~``/``&``/``|`` of those, ``np.isfinite`` ...,
    ``np.any``/``np.all`` (and the methods), or a local name bound only to those (``correct = pred == y``)."""
    if depth > 4:
        return False
    if isinstance(node, cst.Comparison):
        return not any(isinstance(c.operator, (cst.Is, cst.IsNot, cst.In, cst.NotIn)) for c in node.comparisons)
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.BitInvert):
        return _is_boolean(node.expression, scope, ctx, depth + 1)
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, (cst.BitAnd, cst.BitOr, cst.BitXor)):
        return _is_boolean(node.left, scope, ctx, depth + 1) and _is_boolean(node.right, scope, ctx, depth + 1)
    if isinstance(node, cst.Call):
        qualname = ctx.resolver.qualname(node.func, scope)
        if qualname is None and isinstance(node.func, cst.Attribute) and node.func.attr.value in ("any", "all"):
            return _is_boolean(node.func.value, scope, ctx, depth + 1)  # `(p > 0).any(axis=1)`
        return qualname in BOOLEAN_FUNCTIONS or qualname in ("numpy.any", "numpy.all")
    if isinstance(node, cst.Name):
        found, bindings = scope.lookup(node.value)
        return found is not None and found.kind == "function" and bool(bindings) and all(
            isinstance(b, ValueBinding) and (not b.augmented or b.operator in (cst.BitAndAssign, cst.BitOrAssign))
            and _is_boolean(b.value, found, ctx, depth + 1) for b in bindings)
    return False


FLAT_CONSTRUCTORS = frozenset(f"{module}.{name}" for module in ("numpy", "jax.numpy")
                              for name in ("arange", "linspace", "logspace", "geomspace"))


def _certainly_flat(node: cst.BaseExpression, scope: Scope, ctx: FileContext, depth: int = 0) -> bool:
    """1-D (or a list display, wrapped in ``jnp.asarray`` already): ``np.linspace(...)``, ``np.arange(n)``, a local
    name bound only to one."""
    if isinstance(node, (cst.List, cst.Tuple)):
        return True
    if isinstance(node, cst.Call):
        return ctx.resolver.qualname(node.func, scope) in FLAT_CONSTRUCTORS
    if isinstance(node, cst.Name) and depth < 3:
        found, bindings = scope.lookup(node.value)
        return found is not None and found.kind == "function" and bool(bindings) and all(
            isinstance(b, ValueBinding) and not b.augmented and _certainly_flat(b.value, found, ctx, depth + 1)
            for b in bindings)
    return False


def _element_of_array(node: cst.BaseExpression, scope: Scope) -> bool:
    """An element of something iterated or indexed by one integer (``taps`` of ``for taps in bank`` or ``for i, taps
    in enumerate(bank)``, ``bank[i]``): 0-d when that is a 1-D array."""
    if isinstance(node, cst.Subscript):
        return len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Index)
    if isinstance(node, cst.Name):
        _, bindings = scope.lookup(node.value)
        return any(isinstance(b, LoopBinding) for b in bindings) or any(
            isinstance(b, ValueBinding) and not b.augmented and isinstance(b.value, cst.Subscript)
            and _element_of_array(b.value, scope) for b in bindings)
    return False


def _pinv_cutoff(ref: NumpyRef) -> None:
    """NumPy's ``pinv`` cuts singular values below ``1e-15`` times the largest when given neither ``rcond`` nor
    ``rtol`` (or ``rcond=None``); jax.numpy's below ``10 * max(M, N) * eps``, which drops what NumPy keeps on nearly
    collinear data (a least-squares fit then differs completely). The cutoff is spelled out: ``rtol=1e-15``
    (``rcond=`` becomes ``rtol=``, jax.numpy's name for it; NumPy's ``rtol=None`` is jax.numpy's default)."""
    keywords = {arg.keyword.value: arg.value for arg in ref.call.args if arg.keyword is not None}
    positional = [arg for arg in ref.call.args if arg.keyword is None]
    if "rtol" in keywords or len(positional) > 1 or any(arg.star for arg in ref.call.args):
        return  # (a second positional argument is the cutoff in both)
    if "rcond" in keywords:
        none = isinstance(keywords["rcond"], cst.Name) and keywords["rcond"].value == "None"
        ref.keyword_changes["rcond"] = ("rtol", cst.Float("1e-15") if none else None)
    else:
        ref.keyword_changes["+rtol"] = ("rtol", cst.Float("1e-15"))


def _default_int(scope: Scope, ctx: FileContext) -> cst.BaseExpression:
    """``int``, JAX's default integer (int32, or int64 with x64) without a warning; ``jnp.int_`` where a local
    name shadows the builtin."""
    if ctx.resolver.name_qualname("int", scope) == "builtins.int":
        return cst.Name("int")
    return cst.Attribute(value=cst.Name(ctx.jnp_alias), attr=cst.Name("int_"))


def _int32_index_method(call: cst.Call, ctx: FileContext) -> bool:
    """``xs.searchsorted(v)`` in a function that will be jitted (so on a JAX array): int32 even with x64."""
    func = call.func
    return (isinstance(func, cst.Attribute) and f"numpy.{func.attr.value}" in INT32_INDEX_RESULTS
            and ctx.resolver.qualname(func, ctx.scope) is None and runs_on_jax_arrays(ctx.function, ctx))


# Array methods taking another array operand, which a jax.Array's refuse as a list.
LIST_OPERAND_METHODS = frozenset({"dot"})


def _made_by(node: cst.BaseExpression, ctx: FileContext, qualname: str) -> bool:
    """A call of ``qualname`` (``collections.deque(...)``, ``range(...)``), or a local name every binding of which is one."""
    if isinstance(node, cst.Call):
        return ctx.resolver.qualname(node.func, ctx.scope) == qualname
    if isinstance(node, cst.Name):
        found, bindings = ctx.scope.lookup(node.value)
        return found is not None and found.kind == "function" and bool(bindings) and all(
            isinstance(b, ValueBinding) and not b.augmented and isinstance(b.value, cst.Call)
            and ctx.resolver.qualname(b.value.func, found) == qualname for b in bindings)
    return False


def _sort_kind_method(call: cst.Call, ctx: FileContext) -> str | None:
    """``x.argsort(kind="quicksort")`` on a JAX array (in a jitted function, or a name only ever bound to a JAX
    array): the kind given, which jax.Array's methods refuse as a keyword (the stable ones become ``stable=True``)."""
    func = call.func
    if not (isinstance(func, cst.Attribute) and func.attr.value in ("argsort", "sort")):
        return None
    kind = next((arg.value for arg in call.args if arg.keyword is not None and arg.keyword.value == "kind"), None)
    if not isinstance(kind, cst.SimpleString) or ctx.resolver.qualname(func, ctx.scope) is not None:
        return None
    receiver = func.value
    if not (runs_on_jax_arrays(ctx.function, ctx) or (
            isinstance(receiver, cst.Name) and name_holds_jax_array(receiver.value, ctx.scope, ctx.resolver))):
        return None
    return str(kind.evaluated_value)


def _accumulation_dtype(node: cst.Call, data, dtype_position: int, ctx: FileContext, wrapped: bool = False):
    """``dtype=jnp.sum(data).dtype`` for a cumulative sum or product that names no dtype (analysis/cumulative_dtype.py)."""
    if data is None or any(a.star or (a.keyword is not None and a.keyword.value in ("dtype", "a")) for a in node.args):
        return None
    if len([a for a in node.args if a.keyword is None]) >= dtype_position:
        return None

    def is_module(name: cst.Name) -> bool:
        found, bindings = ctx.scope.lookup(name.value)
        return found is not None and any(isinstance(b, ImportBinding) for b in bindings)

    def numpy_function(call: cst.Call) -> str | None:
        qualname = ctx.resolver.qualname(call.func, ctx.scope) or ""
        return qualname.rsplit(".", 1)[1] if is_numpy(qualname) and qualname.count(".") == 1 else None

    return widening_dtype(data, ctx.jnp_alias, is_module, numpy_function, wrapped)


# jnp functions whose first argument is a sequence of arrays, none of which may be a list or tuple
JOINING = frozenset("concatenate concat stack hstack vstack dstack column_stack row_stack".split())


def _static_parameters(scope: Scope, ctx: FileContext) -> frozenset[str]:
    """Parameters of a module-level function that jax.jit will take as Python values (static_argnums)."""
    node = scope.node
    if ctx.tracing is None or not isinstance(node, cst.FunctionDef) or scope.parent is not ctx.scope.module:
        return frozenset()
    plan = ctx.tracing.plan(node.name.value)
    return frozenset(plan.static) if plan is not None else frozenset()


def concatenation_at(ref: NumpyRef, ctx: FileContext) -> tuple[cst.Subscript | None, str | None]:
    """``np.r_[...]``: the subscript and why it has no exact ``jnp.r_`` twin (analysis/index_tricks.py)."""
    subscript = subscript_of(ref.node, ctx.statement[0] if ctx.statement is not None else None)
    if subscript is None:
        return None, STATIC
    return subscript, concatenation_problem(subscript, ctx.resolver, ref.scope, _static_parameters(ref.scope, ctx))


def _traced_shape_named(ref: NumpyRef, ctx: FileContext) -> bool:
    """An argument naming a parameter called like a shape (``axis``) that jax.jit traces all the same: an
    axis-angle vector in ``np.linalg.norm(axis)``.  Kept NumPy, the call would get a tracer and raise."""
    scope = ref.scope
    if scope.kind != "function" or not any(is_shape_name(name) for name in scope.bindings):
        return False
    if ctx.tracing is None or not isinstance(scope.node, cst.FunctionDef) or scope.parent is not ctx.scope.module:
        return False
    plan = ctx.tracing.plan(scope.node.name.value)
    if plan is None or not plan.ok:
        return False
    static = set(plan.static)
    names = {n for arg in ref.call.args for n in _names_in(arg.value)}
    return any(
        is_shape_name(name) and name not in static and any(isinstance(b, ParamBinding) for b in scope.bindings.get(name, ()))
        for name in names
    )


def _names_in(expr: cst.BaseExpression):
    if isinstance(expr, cst.Name):
        yield expr.value
    elif isinstance(expr, (cst.Attribute, cst.Subscript)):
        yield from _names_in(expr.value)
    elif isinstance(expr, cst.BinaryOperation):
        yield from _names_in(expr.left)
        yield from _names_in(expr.right)
    elif isinstance(expr, cst.UnaryOperation):
        yield from _names_in(expr.expression)
    elif isinstance(expr, (cst.Tuple, cst.List)):
        for element in expr.elements:
            yield from _names_in(element.value)


def _python_value(ref: NumpyRef, ctx: FileContext, eager: EagerValues) -> bool:
    """The call computes a value Python itself uses (``[0] * n``, ``round(x)`` put in a set, a ``range()`` bound)
    in a module-level function that is not jitted: it stays NumPy (analysis/eager_values.py)."""
    info = ctx.function
    outer = info.outer or info if info is not None else None
    if outer is None or ctx.tracing is None or not outer.is_module_level or outer.node.decorators:
        return False
    name = outer.node.name.value
    if ctx.tracing.function_node(name) is not outer.node:
        return False
    plan = ctx.tracing.plan(name)
    return plan is not None and not plan.ok and ref.call in eager.kept(outer.node, plan.python_values)


# NumPy functions that return a Python bool (jax.numpy's return a bool array): code that is not jitted keeps them.
PYTHON_BOOL_FUNCTIONS = frozenset({"numpy.array_equal", "numpy.array_equiv", "numpy.allclose"})


def _hands_back(ref: NumpyRef, ctx: FileContext) -> bool:
    """``np.asarray(jfn(*arrays))`` of a JAX result, in code that is not jitted: the author hands the result back
    to NumPy code on purpose (a mutable NumPy array, ``isinstance(r, np.ndarray)``); ``jnp.asarray`` would not."""
    args = ref.call.args
    return (ref.qualname in HOST_CONVERSIONS and bool(args) and args[0].keyword is None and not args[0].star
            and computed_by_jax(args[0].value, ctx.resolver, ref.scope) and not runs_on_jax_arrays(ctx.function, ctx))


def _unchecked_none(ref: NumpyRef, ctx: FileContext) -> bool:
    """``np.asarray(p)`` (``array``, ``asanyarray``) of a parameter defaulting to None that the function never tests
    against None: NumPy makes ``array(None, dtype=object)`` of the default, ``jnp.asarray(None)`` raises."""
    args = ref.call.args
    if ref.qualname not in HOST_CONVERSIONS or not args or args[0].keyword is not None or not isinstance(args[0].value, cst.Name):
        return False
    name = args[0].value.value
    found, bindings = ref.scope.lookup(name)
    if found is None or found.kind != "function" or not any(
            isinstance(b, ParamBinding) and isinstance(b.param.default, cst.Name) and b.param.default.value == "None"
            for b in bindings):
        return False
    return not any(isinstance(node, cst.Comparison) and any(isinstance(c.operator, (cst.Is, cst.IsNot)) for c in node.comparisons)
                   and any(isinstance(part, cst.Name) and part.value == name for part in (node.left, *(c.comparator for c in node.comparisons)))
                   for node, _ in function_nodes(found.node, ctx.resolver))


def _called_back(ref: NumpyRef, ctx: FileContext) -> bool:
    """``np.linalg.norm`` handed to ``np.apply_along_axis`` (``vectorize``, ``apply_over_axes``, ``piecewise``)
    that becomes jax.numpy's: that one calls it with JAX arrays (traced ones: vmap)."""
    statement = ctx.statement[0] if ctx.statement is not None else None
    if statement is None or numpy_twin(ref.node, ctx.resolver, ref.scope) is None:
        return False
    return any(isinstance(node, cst.Call) and node in ctx.jax_calls
               and any(c is ref.node for c in callback_arguments(node, ctx.resolver, ref.scope))
               for node in descendants(statement))


def _grown_list_argument(ref: NumpyRef, ctx: FileContext) -> bool:
    """An argument that is a list filled with run-time values (``acc.append(np.mean(p))``): not static."""
    return any(
        isinstance(arg.value, cst.Name) and grown_at_run_time(arg.value.value, ref.scope, ctx.resolver)
        for arg in ref.call.args
    )


def _written_in_place(ref: NumpyRef, ctx: FileContext) -> bool:
    """``w = np.hanning(n)`` then ``w[0] = x[0]`` (or ``w[i] += v``): the write becomes ``w.at[...]``, which a
    NumPy array lacks, so the call moves to jax.numpy even with static arguments."""
    statement = ctx.statement[0] if ctx.statement is not None else None
    info = ctx.function
    if info is None or not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
        return False
    assign = statement.body[0]
    if not (isinstance(assign, cst.Assign) and assign.value is ref.call and len(assign.targets) == 1
            and isinstance(assign.targets[0].target, cst.Name)):
        return False
    name = assign.targets[0].target.value
    for node, _ in function_nodes(info.node, ctx.resolver):
        targets = [t.target for t in node.targets] if isinstance(node, cst.Assign) else \
            [node.target] if isinstance(node, cst.AugAssign) else []
        if any(isinstance(t, cst.Subscript) and isinstance(t.value, cst.Name) and t.value.value == name for t in targets):
            return True
    return False


class NumpyToJaxNumpy(Rule):
    CODE = "NPJ100"
    NAME = "numpy-to-jax-numpy"
    MESSAGE = "NumPy call on traced values rewritten to its jax.numpy twin"
    SEVERITY = Severity.INFO
    FIX_SAFETY = FixSafety.SAFE
    DOC = RuleDoc(
        what="Rewrites NumPy functions used on (possibly) traced values inside functions to `jax.numpy`. Reads through `.flat` (unpacking, iteration, `x.flat[i]`) become `.ravel()`, which gives the same elements in the same order: a `jax.Array` has no `.flat`. A sort kind given to a JAX array's `.argsort`/`.sort` method (in a jitted function, or on a name only ever bound to a JAX array), which jax.Array refuses as a keyword, is dropped (`stable=True` for `\"stable\"`/`\"mergesort\"`), as for `np.argsort(x, kind=...)`.",
        why=(
            "`jax.jit` traces functions with abstract values; NumPy cannot compute on them. "
            "Calls whose arguments are all known at trace time (shapes, `len()`, literals) stay NumPy (unless the name "
            "their result is bound to is then written in place, `w = np.hanning(n); w[0] = 0.0`, whose `w.at[0]` update "
            "needs a JAX array): "
            "JAX's own idiom is NumPy for static values, jax.numpy for traced ones. In a function that is not jitted, so "
            "do calls whose results Python uses as Python values (an `if` or `while` test, `float()`'s argument, a "
            "repetition count, a dict key, `round()`'s argument: see NPJ301), and `np.asarray`/`np.array` of what a JAX "
            "call returns (`np.asarray(jfn(x))` with `jfn = jax.jit(f)`, `np.array(jnp.sum(x))`): a hand-back to NumPy "
            "code, on purpose; and `np.array_equal`, `np.array_equiv`, `np.allclose`, whose Python bool (a jax.numpy "
            "bool array in JAX) `x is True` and `isinstance(x, bool)` see. Other array constructors "
            "move, because later code computes with and updates their result. A NumPy function handed to a call that "
            "becomes `jnp.vectorize`/`apply_along_axis`/`apply_over_axes`/`piecewise` moves to its jax.numpy twin "
            "(`jnp.apply_along_axis(jnp.linalg.norm, 1, X)`): that call hands it JAX arrays. Python lists "
            "passed where jax.numpy needs an array are wrapped in `jnp.asarray` (also a starred target, `rest` "
            "of `first, *rest = rows`, and the list `np.split`/`np.array_split` return), and so are parameters "
            "the code says callers may pass as lists (`f([1.0, 2.0])` works in NumPy): annotated `ArrayLike` "
            "or `Sequence` (also through a type alias of this module, or one imported from another module of the "
            "project), `*args`, documented `x : array_like` (also `x : float or array-like`, `q : 4 element sequence`, `x : tuple`, Sphinx `:param array x: (list or numpy.array)` or `:type x: list`, or a docstring example passing a list, `>>> f([3, 4])`), or the tuple a function of the module returns (`return np.cos(a), np.sin(a)`), checked by the function "
            "(`isinstance(x, (list, np.ndarray))`), or normalised by it "
            "(`np.atleast_1d(x)`, `np.ravel(x)`, `np.broadcast_arrays(x, y, z)`; also `x = np.atleast_2d(x)` as the first use of `x`, whatever "
            "array uses follow), or given a tuple or list default (`qs=(0.25, 0.75)`, static under jit or not). "
            "Every argument of a variadic function (`np.atleast_1d(x, y, z)`, `np.broadcast_arrays(a, b)`) is one. "
            "`jnp.asarray` is what NumPy does inside the call, "
            "and it leaves arrays and scalars as they are. Lists among the arrays `concatenate`/`stack`/`hstack` "
            "... join are wrapped the same way (`np.concatenate([[0.0], c])`), and so is each element of a local list they "
            "join that may hold lists or values np2jax cannot see (`rows.append([a, b])`, then `np.vstack(rows)`: "
            "`jnp.vstack([jnp.asarray(part) for part in rows])`). A list or tuple beside an array in arithmetic or a "
            "comparison (`x - [cx, cy]`, `q < (1.0, 2.0)`) is wrapped too, when the other side is certainly an array "
            "(for `*`: not a NumPy integer scalar, which repeats a list; analysis/list_operands.py). A list used as an "
            "index (`x[[0, 2]]`, `x[idx]` with `idx = list(range(j)) + [k]`) becomes `jnp.asarray(idx)`, a `range` "
            "(`x[range(1, n)]`) `jnp.asarray(range(1, n), dtype=int)` (an empty one stays an int index). A list operand of an array's `.dot` method (`J.T.dot(F)` with `F = [a, b]`) is wrapped too, when the array is a JAX one. `polyfit`'s `x` and `y` "
            "get NumPy's own `jnp.asarray(x) + 0.0` (jax.numpy refuses an integer `x`, `np.polyfit(np.arange(n), y, 1)`). "
            "`meshgrid`'s arguments get `jnp.ravel(a)`, the flattening NumPy does itself (jax.numpy refuses a 2-D `a`), "
            "unless they are certainly 1-D (`np.linspace(...)`, `np.arange(n)`, a name bound only to one); its "
            "`copy=False` is dropped (jax.numpy refuses it; NumPy's uncopied grids are broadcast views, and a write into "
            "one is NPJ201). "
            "`linalg.eigh`, `eigvalsh` and "
            "`cholesky` get `symmetrize_input=False`: NumPy reads one triangle, jax.numpy by default "
            "averages the matrix with its transpose, which differs for a not exactly symmetric input. "
            "`searchsorted`, `digitize` and `argpartition` (and the `searchsorted`/`argpartition` methods in jitted "
            "functions) get `.astype(int)`: jax.numpy gives int32 even with `jax_enable_x64`, where NumPy gives "
            "int64, so `np.searchsorted(xs, v) / n` was float32; `int` is JAX's default integer, so nothing changes "
            "without x64. `np.asarray(p)` (`array`, `asanyarray`) of a parameter defaulting to None that the function never tests against None stays NumPy: NumPy makes an object array of None, jax.numpy raises. `np.full(n, v)` with `v` a Python float (`np.inf`, `INF = np.inf`, `float('nan')`) gets `dtype=float`: NumPy's array is float64, jax.numpy's weakly typed, which a float32 operand narrows under x64. So does an array display mixing Python floats with other values (`np.array([c, -s, 0.0])`: `dtype=jnp.result_type(jnp.float64, c, s)`, NumPy's dtype for it). An elementwise float function (`sqrt`, `exp`, `log`, `sin` ...) of Python-number parameters (`periods=252`, `periods=TRADING_DAYS` with `TRADING_DAYS = 252`, `rate: float`, static ones too), or of local names bound to arithmetic of those, literals, `np.pi` and sizes (`w = 2.0 * np.pi * k / x.shape[0]`) gets `.astype(float)`: NumPy 2 makes it a float64 scalar, which promotes a float32 array, where jax.numpy's of the traced number is weakly typed. Of parameters without a default or a hint that the function uses only as numbers (never indexed, iterated, given to `len` or read an attribute of), when the result meets another value there (`a = np.exp(-dt / tau)`, then `a * acc`; also `np.power(10.0, g / 20)`), it gets `.astype(` its own `.dtype)` (`jnp.exp(-dt / tau).astype(jnp.exp(-dt / tau).dtype)`), which only makes JAX's weakly typed result of numbers strongly typed, as NumPy's float64 scalar is: the dtype stays the one jax.numpy computes for arrays of any dtype (float32 data keeps float32, an int16 one gives float32 as in NumPy); not where only literals and number parameters meet it (`alpha * np.exp(x) - alpha`). `np.square`/`abs`/`negative`/`sign` of such a parameter gets `.astype(jnp.result_type(k))` for the same reason (`img * np.square(k)` is int64 in NumPy, a wrapping uint8 in jax.numpy). A true division by (or of) an int32/int64 array NumPy makes (`np.cumsum(x) / np.arange(1, n + 1)`, `sums / np.bincount(labels)`, `s / mask.sum(axis=0)`) casts that side to `float`: NumPy computes a float32 array over an int64 one in float64, jax.numpy kept float32 under x64 (an in-place `/=` keeps the array's dtype in both and is left alone; inside the value of `acc += ...` the cast is to `jnp.result_type(acc, float)`, the dtype NumPy writes into). So does such an array meeting a Python float (`2.0 * np.pi * k` with `k = np.arange(n)`): NumPy's float64 result is strongly typed, jax.numpy's weakly, so a float32 array it meets next stays float32. `np.cov`, `np.corrcoef` and `np.interp`, which compute in float64 whatever the data's float dtype, and `np.quantile`/`np.percentile` of a list or tuple of quantiles (float64 in NumPy's promotion), get their plain-read data arguments converted first: `jnp.asarray(x, dtype=jnp.result_type(x, jnp.float64))` (float32 without x64; a complex one stays complex). `np.bincount`'s weights become `jnp.asarray(w, dtype=float)`: NumPy sums them as float64 whatever their dtype, jax.numpy in theirs (int32 weights wrapped, bool ones raised). `np.convolve`/`np.correlate` get `preferred_element_type=jnp.result_type(a, v)` when both operands can be named again (a display of number literals, `np.array([1, 2, 1])`, stands for `jnp.int64`, `dtype=int`/`.astype(int)` too: NumPy's int64): jax.numpy converts integer data to float first, NumPy sums it in its own dtype (uint8 wraps, int32 stays exact past 2**24). `np.linalg.pinv` without a cutoff gets NumPy's, `rtol=1e-15` (jax.numpy's default, `10 * max(M, N) * eps`, drops singular values NumPy keeps; `rcond=` becomes `rtol=`). `np.r_[...]`/`np.c_[...]` of traced values become `jnp.r_`/`jnp.c_`, which concatenate "
            "arrays, numbers and lists to the same dtype (a slice or a string directive among them: NPJ103); "
            "with every part known at trace time they stay NumPy."
        ),
        use_instead="`jnp.<name>` from `import jax.numpy as jnp`.",
        known_problems=(
            "jax.numpy computes in 32-bit unless `jax_enable_x64` is set (see NPJ107). "
            "It averages booleans and every integer dtype narrower than int64 (a uint8 image, int32 labels) in float32 "
            "even then, where NumPy uses float64: `np.mean`/`std`/`var` (and the `nan` variants) of a plainly boolean "
            "argument (a comparison, `~`/`&`/`|` of those, `np.isfinite` ..., `np.any`/`np.all`, a local name bound "
            "only to those: `correct = pred == y`) get `dtype=float`, and so do the `.mean()`/`.std()`/`.var()` methods "
            "of such an argument in a function that is jitted (elsewhere they may run on NumPy arrays, or on pandas or "
            "torch objects that take no `dtype=float`). In a jitted function, an argument whose dtype follows "
            "parameters' (`img`, `img[:, 0]`, `x ** 2`, `np.abs(a - b)`, `np.minimum(x, 10)`) is multiplied by 1.0 "
            "(`jnp.mean(img * 1.0)`, `(img * 1.0).mean()`): `x * 1.0` has NumPy's average dtype for any input "
            "(float64 for integers and booleans under x64, a float or complex array's own dtype; a `dtype=` naming "
            "that would sum float16 in float16 and keep a complex standard deviation complex), and an integer one gets "
            "`dtype=float`. Not recognised: functions that are not jitted (their parameters may be lists), `np.average` "
            "and `np.median` (jax.numpy's take no `dtype`), and explicit int32 arrays the function makes "
            "(`labels.mean()` of `np.zeros(n, dtype=np.int32)`). "
            "`np.cumsum`/`np.cumprod` (and `nan` variants, `np.add/multiply.accumulate`, and the methods in jitted "
            "functions) accumulate bool and small integers in int64 where jax.numpy keeps the input's dtype and wraps "
            "(a uint8 image's running sum): they get `dtype=jnp.sum(x).dtype`, which widens as NumPy does; only where "
            "`x` can be written twice without running a call twice, or is such an `x` through calls that keep its dtype "
            "(`np.pad(x, 1)`, `np.abs(np.diff(x))`, `x.ravel()`), and not where it is certainly inexact (a true division). "
            "A NumPy function used as a value (`f = np.sum`) is kept: it may later be called on lists or static values. "
            "Parameters named like shapes (`shape`, `axes`, `*_shape` ...) are taken to be static Python values. "
            "Other parameters are taken to be arrays (no `jnp.asarray` noise in every function): called with a "
            "list, `def f(x): return np.sum(x)` fails loudly after migration (TypeError). So does a list "
            "parameter used in arithmetic after slicing (`x[1:] - x[:-1]`). A parameter used as an array "
            "(`x.shape`, `x - m`, `x[:, 0]`), annotated as one, or static under jit is never wrapped; uses after "
            "`x = np.copy(x)` are of the copy, not of the parameter. "
            "Names are resolved through imports and scopes; a NumPy module reached through another "
            "module's attribute or `getattr` is not seen."
        ),
    )
    EXAMPLES = (
        Example(
            title="calls on traced values move; shape arithmetic stays NumPy",
            before="""
            import numpy as np

            def flatten_norm(x):
                flat = x.reshape((np.prod(x.shape),))
                return np.linalg.norm(flat) / np.sqrt(2.0)
            """,
            after="""
            import numpy as np
            import jax.numpy as jnp

            def flatten_norm(x):
                flat = x.reshape((np.prod(x.shape),))
                return jnp.linalg.norm(flat) / np.sqrt(2.0)
            """,
        ),
        Example(
            title="any import style; the NumPy import goes when nothing uses it",
            before="""
            from numpy import zeros, exp

            def selu(x, alpha=1.67, lmbda=1.05):
                out = zeros(x.shape)
                return lmbda * (out + exp(x))
            """,
            after="""
            import jax.numpy as jnp

            def selu(x, alpha=1.67, lmbda=1.05):
                out = jnp.zeros(x.shape)
                return lmbda * (out + jnp.exp(x))
            """,
        ),
        Example(
            title="a list where jax.numpy needs an array",
            before="""
            import numpy as onp

            def total(a, b):
                return onp.sum([a, b], axis=0)
            """,
            after="""
            import jax.numpy as jnp

            def total(a, b):
                return jnp.sum(jnp.asarray([a, b]), axis=0)
            """,
        ),
        Example(
            title="a list or tuple beside an array in arithmetic or a comparison",
            before="""
            import numpy as np

            def centred_inside(x, cx, cy):
                y = np.sin(x) - [cx, cy]
                return y, np.all(np.abs(y) < (1.0, 2.0), axis=-1)
            """,
            after="""
            import jax.numpy as jnp

            def centred_inside(x, cx, cy):
                y = jnp.sin(x) - jnp.asarray([cx, cy])
                return y, jnp.all(jnp.abs(y) < jnp.asarray((1.0, 2.0)), axis=-1)
            """,
        ),
        Example(
            title="a list filled at run time, and a parameter annotated as a sequence, are lists too",
            before="""
            import numpy as np
            from typing import Sequence

            def mean_of_means(parts, weights: Sequence[float]):
                means = []
                for p in parts:
                    means.append(np.mean(p))
                return np.mean(means), np.max(weights)
            """,
            after="""
            import jax.numpy as jnp
            from typing import Sequence

            def mean_of_means(parts, weights: Sequence[float]):
                means = []
                for p in parts:
                    means.append(jnp.mean(p))
                return jnp.mean(jnp.asarray(means)), jnp.max(jnp.asarray(weights))
            """,
        ),
        Example(
            title="a local list of Python lists joined by `vstack`",
            before="""
            import numpy as np

            def corners(xs, ys):
                rows = []
                for x, y in zip(xs, ys):
                    rows.append([x, y])
                return np.vstack(rows) - np.mean(xs)
            """,
            after="""
            import jax.numpy as jnp

            def corners(xs, ys):
                rows = []
                for x, y in zip(xs, ys):
                    rows.append([x, y])
                return jnp.vstack([jnp.asarray(part) for part in rows]) - jnp.mean(xs)
            """,
        ),
        Example(
            title="a parameter its callers may give as a list; one used as an array is left alone",
            before="""
            import numpy as np

            def peak_to_peak(samples):
                samples = np.atleast_1d(samples)
                return np.max(samples) - np.min(samples)

            def centered(x):
                return x - np.mean(x)
            """,
            after="""
            import jax.numpy as jnp

            def peak_to_peak(samples):
                samples = jnp.atleast_1d(jnp.asarray(samples))
                return jnp.max(samples) - jnp.min(samples)

            def centered(x):
                return x - jnp.mean(x)
            """,
        ),
        Example(
            title="a parameter the function checks for a list, rebound by its conversion",
            before="""
            import numpy as np

            def centered(q):
                if isinstance(q, (list, tuple)):
                    q = np.copy(q)
                return q - np.mean(q)
            """,
            after="""
            import jax.numpy as jnp

            def centered(q):
                if isinstance(q, (list, tuple)):
                    q = jnp.array(q)
                return q - jnp.mean(q)
            """,
        ),
        Example(
            title="a parameter with a tuple or list default is a sequence too",
            before="""
            import numpy as np

            def quartiles(x, qs=(0.25, 0.5, 0.75)):
                return np.quantile(x, qs)
            """,
            after="""
            import jax.numpy as jnp

            def quartiles(x, qs=(0.25, 0.5, 0.75)):
                return jnp.quantile(x, jnp.asarray(qs))
            """,
        ),
        Example(
            title="`np.r_`/`np.c_` of traced values; index results in NumPy's integer width",
            before="""
            import numpy as np

            def run_starts(row):
                return row & ~np.r_[False, row[:-1]]

            def ecdf(xs, points):
                return np.searchsorted(xs, points, side="right") / xs.size
            """,
            after="""
            import jax.numpy as jnp

            def run_starts(row):
                return row & ~jnp.r_[False, row[:-1]]

            def ecdf(xs, points):
                return jnp.searchsorted(xs, points, side="right").astype(int) / xs.size
            """,
        ),
        Example(
            title="a list used as an index: NumPy takes it as an index array, JAX refuses it",
            before="""
            import numpy as np

            def corners(x):
                return np.sum(x[[0, -1]]) + x[[i for i in range(2)]]
            """,
            after="""
            import jax.numpy as jnp

            def corners(x):
                return jnp.sum(x[jnp.asarray([0, -1])]) + x[jnp.asarray([i for i in range(2)])]
            """,
        ),
        Example(
            title="a local variable that shadows np is not NumPy",
            before="""
            import numpy as np

            def f(np, x):
                return np.sum(x)
            """,
        ),
        Example(
            title="module-level code runs once, eagerly: it stays NumPy",
            before="""
            import numpy as np

            WEIGHTS = np.linspace(0.0, 1.0, 5)
            """,
        ),
        Example(
            title="already migrated code is left alone",
            before="""
            import numpy as np
            import jax.numpy as jnp

            def f(x):
                return jnp.sum(x) * np.float32(2)
            """,
        ),
    )

    def on_numpy_ref(self, ref: NumpyRef, ctx: FileContext) -> None:
        row = ref.row
        if ref.blocked or row is None or (row.jax is None and ref.twin is None):
            return
        target = row.jax or ref.twin
        if ref.member:
            if ref.member not in UFUNC_METHODS or row.jax not in UFUNCS:
                return
            target = f"{row.jax}.{ref.member}"
        if ref.call is None:
            if ref.qualname in CONCATENATORS and concatenation_at(ref, ctx)[1] is None:
                ref.rewrite = target  # `np.r_[False, row[:-1]]` -> `jnp.r_[...]` (analysis/index_tricks.py)
            elif _called_back(ref, ctx):
                ref.rewrite = target  # `jnp.apply_along_axis(jnp.linalg.norm, 1, X)`: called with JAX arrays
            return  # a function passed around as a value may be called on lists or static values: keep it
        if row.kind == "dtype":
            if ctx.resolver.args_static(ref.call, ref.scope):
                return
        elif row.kind == "function":
            if (not ref.member and ctx.resolver.args_static(ref.call, ref.scope) and not _grown_list_argument(ref, ctx)
                    and not _traced_shape_named(ref, ctx) and not _written_in_place(ref, ctx)):
                return
        elif row.kind != "constructor" and ref.twin is None:
            return
        if ref.call is not None and (_python_value(ref, ctx, self._eager(ctx)) or _hands_back(ref, ctx)
                                     or (ref.qualname in PYTHON_BOOL_FUNCTIONS and not runs_on_jax_arrays(ctx.function, ctx))):
            return  # (`np.array_equal` outside jit: NumPy's Python bool, which `is True` and `isinstance(v, bool)` see)
        if ref.call is not None and any(_made_by(arg.value, ctx, "collections.deque") for arg in ref.call.args):
            return  # `np.array(d)` of a `collections.deque`: jax.numpy takes no deque (the function is not jitted)
        if ref.call is not None and _unchecked_none(ref, ctx):
            return  # `np.asarray(interval)` with `interval=None`: NumPy's object array of None; jax.numpy raises
        if ref.call is not None and metadata_only(ref, ctx):
            return  # `np.array(X).dtype == np.dtype(float)`: float32 in jax.numpy without x64 (real34 ahrs)
        if row.kind not in ("dtype", "function") and exact_grid(ref, ctx):
            if not wrapped_already(ref, ctx):  # NumPy's grid in a JAX array: jnp.linspace may differ in the last bit
                ctx.exact_grids.add(ref.call)  # (hunt50 S1); a JAX array takes traced indices and `.at[]` (hunt51 L7)
            return
        ref.rewrite = target
        if ref.call is not None and not ref.member:
            ref.wrap_args |= self._list_arguments(ref.call, target, ctx, ref)
            ref.wrap_args |= self._sequence_elements(ref.call, target, ctx, ref)
            positional = [i for i, arg in enumerate(ref.call.args) if arg.keyword is None and not arg.star]
            ref.wrap_args |= {("inexact", i) for i in INEXACT_ARGUMENTS.get(row.numpy, ()) if i in positional}
            if row.numpy == "numpy.meshgrid" and any(  # jnp.meshgrid raises on copy=False; NumPy's views of it are
                    a.keyword is not None and a.keyword.value == "copy" for a in ref.call.args):  # broadcast (read-only)
                ref.keyword_changes["copy"] = None
            if row.numpy in FLATTENED_ARGUMENTS:  # `np.meshgrid(a, b)` flattens a 2-D `a`; jnp.meshgrid raises
                ref.wrap_args |= {("ravel", i) for i in positional if i not in ref.wrap_args
                                  and not _certainly_flat(ref.call.args[i].value, ref.scope, ctx)}
            if row.numpy in AT_LEAST_1D_ARGUMENTS:  # `np.convolve(x, taps)`, `taps` of `for taps in bank`: maybe 0-d
                ref.wrap_args |= {("atleast_1d", i) for i in positional if i not in ref.wrap_args
                                  and _element_of_array(ref.call.args[i].value, ref.scope)}
            ref.wrap_args |= widened_arguments(ref, ctx)
            self._rename_keywords(ref)
            if row.numpy in INT32_INDEX_RESULTS:
                ref.result_cast = _default_int(ref.scope, ctx)
            elif row.numpy in FLOAT_UFUNCS and of_python_numbers(ref.call, ref.scope, ctx.resolver):
                ref.result_cast = cst.Name("float")  # `np.sqrt(periods)`, periods=252: NumPy's float64 scalar
            elif (row.numpy in FLOAT_UFUNCS or row.numpy in FLOAT_POWERS and float_valued(ref.call)) and (
                    of_number_like_parameters(ref.call, ref.scope, ctx.resolver)):
                # `a = np.exp(-dt / tau)`, then `a * acc`: NumPy's float64 scalar for Python numbers (hunt55 S1)
                ref.result_cast = OWN_DTYPE
            elif (row.numpy in SAME_KIND_UFUNCS and len(ref.call.args) == 1 and isinstance(ref.call.args[0].value, cst.Name)
                  and of_python_numbers(ref.call, ref.scope, ctx.resolver)):
                # `img * np.square(k)`, k=16: NumPy's int64 scalar (no uint8 wraparound), a float64 one for a float
                ref.result_cast = call(f"{ctx.use_jnp()}.result_type", ref.call.args[0].value.deep_clone())
            if row.numpy == "numpy.full":
                kind = python_fill(ref, ctx)
                if kind is not None:  # NumPy's `np.full(n, np.inf)` is float64; jax.numpy's a weak float (x64: float32
                    ref.keyword_changes["+dtype"] = ("dtype", cst.Name(kind))  # beside a float32 array)
            mixed = mixed_python_floats(ref, ctx) if row.numpy in ("numpy.array", "numpy.asarray") else None
            if mixed is not None:
                ref.keyword_changes["+dtype"] = ("dtype", mixed)
            if row.numpy in ("numpy.convolve", "numpy.correlate"):
                dtype = convolution_dtype(ref, ctx)
                if dtype is not None:  # NumPy sums integers in their own dtype, jax.numpy converted them to float
                    ref.keyword_changes["+preferred_element_type"] = ("preferred_element_type", dtype)
            if row.numpy in BOOLEAN_AVERAGES and _no_dtype(ref.call, 2) and not any(
                    wrap == 0 or (isinstance(wrap, tuple) and 0 in (wrap[0], wrap[-1])) for wrap in ref.wrap_args):
                fix = self._average_fix(ref.call.args[0].value, ref.scope, ref.call, ctx)  # (not `jnp.asarray(x)`)
                if fix == FLOAT:  # NumPy averages booleans and integers in float64 (analysis/average_dtype.py)
                    ref.keyword_changes["+dtype"] = ("dtype", cst.Name("float"))
                elif fix == SCALE:  # `jnp.mean(img * 1.0)`
                    ref.wrap_args.add(("scale", 0))
            if row.numpy in CUMULATIVE:
                dtype = _accumulation_dtype(ref.call, ref.call.args[0].value if ref.call.args else None, 3, ctx,
                                            wrapped=0 in ref.wrap_args)
                if dtype is not None:
                    ref.keyword_changes["+dtype"] = ("dtype", dtype)
        elif ref.call is not None and ref.member == "accumulate" and row.numpy in ("numpy.add", "numpy.multiply"):
            dtype = _accumulation_dtype(ref.call, ref.call.args[0].value if ref.call.args else None, 3, ctx)
            if dtype is not None:  # `np.add.accumulate(x, axis, dtype)`, like np.cumsum
                ref.keyword_changes["+dtype"] = ("dtype", dtype)

    def on_call(self, node: cst.Call, ctx: FileContext) -> None:
        listed = self._list_method_operands(node, ctx)
        if listed:
            ctx.call_wraps[node] = listed
        sort_kind = _sort_kind_method(node, ctx)
        if sort_kind is not None:
            ctx.call_keywords[node] = {"kind": ("stable", cst.Name("True")) if sort_kind in STABLE_SORT_KINDS else None}
        elif (isinstance(node.func, cst.Attribute) and node.func.attr.value in BOOLEAN_AVERAGE_METHODS
              and _no_dtype(node, 1) and runs_on_jax_arrays(ctx.function, ctx)
              and (fix := self._average_fix(node.func.value, ctx.scope, node, ctx)) is not None):
            if fix == FLOAT:
                ctx.call_keywords[node] = {"+dtype": ("dtype", cst.Name("float"))}  # `(pred == y).mean()`
            else:
                ctx.scaled_receivers.add(node)  # `(img * 1.0).mean()`
        elif _int32_index_method(node, ctx):
            ctx.call_casts[node] = _default_int(ctx.scope, ctx)
        elif (isinstance(node.func, cst.Attribute) and node.func.attr.value in CUMULATIVE_METHODS
              and runs_on_jax_arrays(ctx.function, ctx)):
            dtype = _accumulation_dtype(node, node.func.value, 2, ctx)
            if dtype is not None:
                ctx.call_keywords[node] = {"+dtype": ("dtype", dtype)}

    def rewrite_subscript(self, original: cst.Subscript, updated: cst.Subscript, ctx: FileContext):
        """``x[[0, 2]]``, ``x[idx]`` with ``idx = list(range(j)) + [k]``: NumPy indexes with the list as an
        array; JAX refuses a list index."""
        if len(updated.slice) != 1 or not isinstance(updated.slice[0].slice, cst.Index):
            return None
        index = updated.slice[0].slice
        if index.star is not None:
            return None
        if _made_by(original.slice[0].slice.value, ctx, "builtins.range"):
            # `x[range(1, n)]`: NumPy indexes with the range as an int array; an empty one stays an int array
            wrapped = call(f"{ctx.use_jnp()}.asarray", index.value, cst.Arg(cst.Name("int"), keyword=cst.Name("dtype")))
        elif builds_list(original.slice[0].slice.value, ctx.resolver, ctx.scope):
            wrapped = call(f"{ctx.use_jnp()}.asarray", index.value)
        else:
            return None
        element = updated.slice[0].with_changes(slice=index.with_changes(value=wrapped))
        return updated.with_changes(slice=[element])

    def _eager(self, ctx: FileContext) -> EagerValues:
        if getattr(self, "_eager_values", None) is None:
            self._eager_values = EagerValues(ctx.resolver)
        return self._eager_values

    def _list_method_operands(self, call: cst.Call, ctx: FileContext) -> set[int]:
        """``J.T.dot(F)`` with ``F = [a, b]`` on what becomes a JAX array: its method refuses a list, as ``jnp.dot``
        does (NumPy's converts it): the positions of such arguments."""
        func = call.func
        if not (isinstance(func, cst.Attribute) and func.attr.value in LIST_OPERAND_METHODS) or ctx.resolver.qualname(func, ctx.scope):
            return set()
        receiver = func.value
        while isinstance(receiver, cst.Attribute) and receiver.attr.value in ("T", "mT"):
            receiver = receiver.value
        if not (runs_on_jax_arrays(ctx.function, ctx) or makes_jax_array(receiver, ctx.resolver, ctx.scope) or (
                isinstance(receiver, cst.Name) and name_holds_jax_array(receiver.value, ctx.scope, ctx.resolver))):
            return set()
        return {index for index, arg in enumerate(call.args) if arg.keyword is None and not arg.star
                and self._sequences(ctx).may_be_sequence(arg.value, ctx.scope, call, parameters=False)}

    def _average_fix(self, operand: cst.BaseExpression, scope: Scope, call: cst.Call, ctx: FileContext) -> str | None:
        """How jax.numpy averages ``operand`` in NumPy's dtype: FLOAT (``dtype=float``) for a plainly boolean array
        (``np.mean(pred == y)``); in a jitted function, also for an integer one, and SCALE (``x * 1.0``) for one
        whose dtype follows parameters' that no caller passes as a list (analysis/average_dtype.py); else None."""
        if _is_boolean(operand, scope, ctx):
            return FLOAT
        if not runs_on_jax_arrays(ctx.function, ctx):
            return None
        fix = average_fix(operand, scope, ctx.resolver, _static_parameters(scope, ctx))
        if fix is None:
            return None
        kind, names = fix
        if any(self._sequences(ctx).may_be_sequence(cst.Name(name), scope, call) for name in names):
            return None  # `rms([3, 4])` in its docstring: a list times 1.0 is no array
        return kind

    def _sequences(self, ctx: FileContext) -> SequenceArguments:
        if getattr(self, "_sequence_arguments", None) is None:
            self._sequence_arguments = SequenceArguments(ctx.resolver, lambda scope: _static_parameters(scope, ctx))
        return self._sequence_arguments

    @staticmethod
    def _rename_keywords(ref: NumpyRef) -> None:
        renames = KEYWORD_RENAMES.get(ref.row.numpy, {})
        for arg in ref.call.args:
            keyword = arg.keyword.value if arg.keyword is not None else None
            if keyword in renames:
                ref.keyword_changes[keyword] = (renames[keyword], None)
            elif keyword in NONE_DEFAULTS and isinstance(arg.value, cst.Name) and arg.value.value == "None" and (
                    keyword not in SIGNATURES.get(ref.rewrite or "", (0, ()))[1]):
                ref.keyword_changes[keyword] = None  # `np.exp(a, out=None)`: NumPy's default; jnp.exp takes no `out`
            elif keyword == "kind" and ref.name in ("sort", "argsort") and isinstance(arg.value, cst.SimpleString):
                stable = arg.value.evaluated_value in STABLE_SORT_KINDS
                ref.keyword_changes["kind"] = ("stable", cst.Name("True")) if stable else None
        for keyword, value in KEYWORD_ADDITIONS.get(ref.row.numpy, {}).items():
            ref.keyword_changes[f"+{keyword}"] = (keyword, cst.parse_expression(value))
        if ref.row.numpy == "numpy.linalg.pinv":
            _pinv_cutoff(ref)

    def _sequence_elements(self, call: cst.Call, target: str, ctx: FileContext, ref: NumpyRef) -> set[tuple[int, int]]:
        """``jnp.concatenate([[0.0], c])``: the joining functions take a list of arrays, but refuse a list among them."""
        if target.rsplit(".", 1)[-1] not in JOINING or not call.args or call.args[0].keyword is not None:
            return set()
        arrays = call.args[0].value
        if self._sequences(ctx).holds_sequences(arrays, ref.scope, call):
            return {(0, -1)}  # `jnp.vstack([jnp.asarray(part) for part in mappings])`
        if not isinstance(arrays, (cst.List, cst.Tuple)):
            return set()
        return {(0, j) for j, element in enumerate(arrays.elements)
                if not isinstance(element, cst.StarredElement)
                and self._sequences(ctx).may_be_sequence(element.value, ref.scope, call)}

    def _list_arguments(self, call: cst.Call, target: str, ctx: FileContext, ref: NumpyRef) -> set[int]:
        signature = SIGNATURES.get(target)
        if signature is None:
            return set()
        _, names, rejects_list, _ = signature
        positions = set()
        for index, arg in enumerate(call.args):
            if arg.keyword is not None or arg.star:
                continue
            name = positional_parameter(names, index)
            operand = index >= ARRAY_OPERANDS_FROM.get(target, 99)  # np.einsum("ij,jk", a, b): a and b
            # `np.atleast_1d(x, y, z)`, `np.broadcast_arrays(a, b)`: every argument of `*arys` is an array
            operand = operand or (names[:1] and names[0].startswith("*") and 0 in rejects_list and not name)
            if (index in rejects_list or operand) and name not in STATIC_PARAMETERS:
                normalising = target in NORMALISING
                if self._sequences(ctx).may_be_sequence(arg.value, ref.scope, call, name not in CONCRETE_PARAMETERS, normalising):
                    positions.add(index)
        return positions
