"""NumPy calls that stay NumPy's own inside migrated code, because jax.numpy's twin would give other values.

* An array made only for its metadata (``np.array(X).dtype == np.dtype(float)``, ``a = np.asarray(X)`` read only as
  ``a.shape``) in code that is not jitted: jax.numpy's is float32 or int32 without x64 (real34: ahrs).
* A grid of values known at trace time (``np.linspace(0.1, 0.4, 4)``): ``jnp.asarray(np.linspace(...))`` holds
  NumPy's exact values; jnp.linspace misses them by one unit in the last place, enough to move a value on a bin
  edge to the next bin (hunt50 S1).
"""

from __future__ import annotations

import libcst as cst

from np2jax.analysis.jax_values import HOST_CONVERSIONS
from np2jax.analysis.loops import descendants
from np2jax.context import FileContext, NumpyRef, runs_on_jax_arrays
from np2jax.visitors import child_nodes

METADATA = frozenset({"dtype", "shape", "ndim", "size"})


def metadata_only(ref: NumpyRef, ctx: FileContext) -> bool:
    """``np.array(X).dtype``, or ``a = np.asarray(X)`` read only as ``a.dtype``, ``a.shape``, ``a.ndim``, ``a.size``,
    in code that is not jitted: NumPy's own array tells those (jax.numpy's is float32 or int32 without x64, so a
    test ``== np.dtype(float)`` would fail)."""
    if ref.qualname not in HOST_CONVERSIONS or ctx.function is None or runs_on_jax_arrays(ctx.function, ctx):
        return False
    statement = ctx.statement[0] if ctx.statement is not None else None
    body = statement.body if isinstance(statement, cst.SimpleStatementLine) else ()
    assign = body[0] if len(body) == 1 else None
    if isinstance(assign, cst.Assign) and assign.value is ref.call:
        if len(assign.targets) != 1 or not isinstance(assign.targets[0].target, cst.Name):
            return False
        return assign.targets[0].target.value in metadata_names(ctx.function.node, ctx)
    return any(isinstance(node, cst.Attribute) and node.value is ref.call and node.attr.value in METADATA
               for node in descendants(statement)) if statement is not None else False


def metadata_names(function: cst.FunctionDef, ctx: FileContext) -> frozenset[str]:
    """The names ``function`` uses only as ``name.dtype`` (``.shape``, ``.ndim``, ``.size``) or binds (one walk,
    remembered per function)."""
    memo = ctx.resolver.memo.setdefault("metadata_names", {})
    found = memo.get(function)
    if found is None:
        metadata, other = set(), set()
        stack: list[tuple[cst.CSTNode, cst.CSTNode | None]] = [(function.body, None)]
        while stack:
            node, parent = stack.pop()
            if type(node) is cst.Name:
                if isinstance(parent, cst.Attribute) and parent.value is node and parent.attr.value in METADATA:
                    metadata.add(node.value)
                elif not isinstance(parent, cst.AssignTarget) and not (isinstance(parent, cst.Attribute) and parent.attr is node):
                    other.add(node.value)
                continue
            stack.extend((child, node) for child in child_nodes(node))
        found = memo[function] = frozenset(metadata - other)
    return found


GRIDS = frozenset({"numpy.linspace", "numpy.logspace", "numpy.geomspace", "numpy.arange"})


def exact_grid(ref: NumpyRef, ctx: FileContext) -> bool:
    """``np.linspace(0.1, 0.4, 4)``, ``np.arange(0.0, 1.0, 0.1)`` of values known at trace time: NumPy's own
    values, which jnp.linspace (its step a multiplication by a reciprocal) and jnp.arange miss by one unit in the
    last place in most cases, enough to move a value on a bin edge (``np.digitize``) to the next bin. They become
    ``jnp.asarray(np.linspace(...))``: NumPy's values in a JAX array (indexed by tracers, written with ``.at[]``).
    An integer ``arange`` is exact either way and becomes ``jnp.arange``."""
    if ref.qualname not in GRIDS or ref.member or any(arg.keyword is not None and arg.keyword.value == "retstep"
                                                      for arg in ref.call.args) or len(
                                                      [arg for arg in ref.call.args if arg.keyword is None]) > 4:
        return False  # (`retstep=True` returns a pair, hunt53 L1; a fifth positional argument is `retstep`)
    count = _COUNT.get(ref.qualname)
    if not all(ctx.resolver.is_static(arg.value, ref.scope) for index, arg in enumerate(ref.call.args)
               if not _is_count(arg, index, count)):
        return False
    return ref.qualname != "numpy.arange" or any(isinstance(arg.value, cst.Float) for arg in ref.call.args)


_COUNT = {"numpy.linspace": 2, "numpy.logspace": 2, "numpy.geomspace": 2}  # the position of ``num``


def _is_count(arg: cst.Arg, index: int, count: int | None) -> bool:
    """Is ``arg`` the number of points? A size, static under jit whatever it is made of (jnp.linspace would need it
    static as well), and any Python int outside jit: ``np.linspace(0.1, 0.4, n)`` is NumPy's grid for every ``n``."""
    if count is None:
        return False
    if arg.keyword is not None:
        return arg.keyword.value == "num"
    return arg.star == "" and index == count


def wrapped_already(ref: NumpyRef, ctx: FileContext) -> bool:
    """``jnp.asarray(np.linspace(...))``: migrated before."""
    statement = ctx.statement[0] if ctx.statement is not None else None
    return statement is not None and any(
        isinstance(node, cst.Call) and node.args and node.args[0].value is ref.call
        and ctx.resolver.qualname(node.func, ref.scope) in ("jax.numpy.asarray", "jax.numpy.array")
        for node in descendants(statement))
