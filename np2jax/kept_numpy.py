"""Why a function the walker has rewritten is left as NumPy code after all (NPJ304 "left as NumPy code"), or why it
stays as it was because what its parameters hold no jax.numpy call takes either.

Eager jax.numpy (the function is not jitted) would be far slower than NumPy or fail where NumPy works: a loop
that makes arrays of a new shape or writes array elements at every step, a body numba compiles or np.vectorize
runs element by element, a helper defined inside that is itself left NumPy code.  Each judgment returns what
to say and what to use instead, or None; the walker reverts the function and marks it ``kept_numpy``, so that
its callers stay NumPy code too (propagation.py, links.py).
"""

from __future__ import annotations

import libcst as cst

from np2jax.analysis.eager_shapes import element_write, varying_shape
from np2jax.analysis.function_tracing import MASK_INDEX
from np2jax.analysis.loops import contains, descendants
from np2jax.context import FileContext, FunctionInfo
from np2jax.visitors import inner_nodes


def object_arguments(info: FunctionInfo, ctx: FileContext) -> tuple[str, str] | None:
    """Un-jitted because its parameters hold Python objects (``d = M1 - M2; d.simplify()`` of SymPy matrices):
    eager jax.numpy cannot take them either (``jnp.array(d)``), so the function stays NumPy."""
    plan = ctx.jit_state(info).plan
    blocker = next((b for b in plan.blockers if b.objects), None) if plan is not None else None
    if blocker is None:
        return None
    line = ctx.exact_span(blocker.node)[0]
    what = blocker.message.split(", which jax.jit")[0]
    return (f"{what} (line {line}), which jax.numpy cannot take either",
            "pass the arrays the objects hold instead; the function can then be migrated")


# decorators that run the body as compiled NumPy code or element by element (numba's, also a local fallback of the
# same name, and np.vectorize): jax.numpy there would not compile, or would dispatch once per element
ELEMENT_DECORATORS = frozenset({"jit", "njit", "vectorize", "guvectorize", "stencil", "cfunc", "generated_jit"})


def compiled_body(info: FunctionInfo, ctx: FileContext) -> tuple[str, str] | None:
    """Decorated with numba's ``@njit``/``@jit`` (or a fallback of that name) or ``@np.vectorize``: the body stays
    NumPy code, and so do its callers, which would hand it JAX arrays (real30: mapclassify's ``@njit`` Fisher-Jenks
    loops, 1000x slower as eager ``.at[]`` writes, and numba cannot compile jax.numpy)."""
    for decorator in info.node.decorators:
        expr = decorator.decorator
        target = expr.func if isinstance(expr, cst.Call) else expr
        name = target.attr.value if isinstance(target, cst.Attribute) else target.value if isinstance(target, cst.Name) else ""
        qualname = ctx.qualname(target) or ""
        last = qualname.rsplit(".", 1)[-1]
        # (`from numba import njit as _njit`; `from ._compat import njit`, a fallback module re-exporting numba's)
        if qualname.startswith("numba.") or qualname == "numpy.vectorize" or (
                (name.lstrip("_") in ELEMENT_DECORATORS or last in ELEMENT_DECORATORS) and not qualname.startswith(("jax.", "numpy."))):
            shown = ctx.code(expr).strip()
            return (f"decorated with `@{shown}`, which compiles the NumPy code or runs it element by element: "
                    "jax.numpy there would not compile, or would dispatch once per element",
                    "keep it NumPy code, or write it with jax.numpy and jax.jit (jnp.vectorize) in place of the decorator")
    return None


def kept_inside(info: FunctionInfo, ctx: FileContext) -> tuple[str, str] | None:
    """A function defined inside ``info``'s (outermost) function is left NumPy code (an ``@njit`` helper): it would
    be handed the JAX arrays the migrated function computes, which numba cannot take (hunt45 L3)."""
    if info.outer is not None:
        return None
    inner = next((nested for nested in info.nested if nested.kept_numpy), None)
    if inner is None:
        return None
    return (f"defines `{inner.node.name.value}` (line {ctx.exact_span(inner.node.name)[0]}), which is left as NumPy "
            "code: it would be handed the JAX arrays this function computes",
            "move the helper to module level and keep it NumPy code, or write it with jax.numpy")


def shape_changing_loop(info: FunctionInfo, ctx: FileContext) -> tuple[str, str] | None:
    """What to say (and do instead) when eager jax.numpy would compile new kernels, or copy a whole array, at
    every step of a loop."""
    found = _changing_shape(info, ctx)
    if found is None:
        return None
    node, what = found
    if what == TRACED_TEST:
        return (f"a loop of it tests traced values (line {ctx.exact_span(node)[0]}) and computes with jax.numpy "
                "results: as eager jax.numpy every step would dispatch each operation on its own, far slower than NumPy",
                "write the loop with jax.lax.while_loop or jax.lax.fori_loop (its state a tuple of arrays) and jit the function")
    if what == ELEMENT_WRITE:
        return (f"{what} inside a loop (line {ctx.exact_span(node)[0]}) would copy the whole array and dispatch a "
                "kernel at every step as eager jax.numpy (`.at[]` outside jax.jit), far slower than NumPy",
                "make the function jittable (see the other diagnostics): the loop then becomes a jax.lax loop")
    return (f"{what} inside a loop (line {ctx.exact_span(node)[0]}) gives arrays of a new shape at every step, for "
            "which eager jax.numpy compiles new kernels each time (far slower than NumPy)",
            "keep shapes fixed (jnp.where with the mask, a size= argument, fixed-length windows); the function can then be jitted")


def called_in_a_loop(info: FunctionInfo, ctx: FileContext) -> tuple[str, str] | None:
    """A module-level function that cannot be jitted, called inside a loop of this module (pyentrp's
    ``multiscale_entropy`` calls ``util_granulate_time_series(ts, i)`` once per scale): as eager jax.numpy, every
    call dispatches its operations one by one, and compiles new kernels for every new shape (600x slower than
    NumPy, real33). Its callers there are NumPy code or un-jitted too (they call a function jit cannot trace).
    Likewise a method another method of its class calls inside a loop (``for i, z in enumerate(zs): out[i] =
    self.step(z)``, hunt52 L2: a smoother 700x slower); the class then stays NumPy (a method that stays NumPy
    shares ``self`` with the others, propagation.py)."""
    if info.class_name is not None:
        caller = _self_call_in_a_loop(info, ctx)  # (named, not placed: a line would cost a codegen of the module)
        where = f"by `{info.class_name.rsplit('.', 1)[-1]}.{caller}`" if caller is not None else None
    elif info.is_module_level:
        site = _call_in_a_loop(info.node.name.value, ctx)
        where = f"(line {ctx.exact_span(site)[0]})" if site is not None else None
    else:
        return None
    if where is None:
        return None
    return (f"it cannot be jitted and is called inside a loop {where}: as eager jax.numpy "
            "every call dispatches its operations one at a time, and compiles them again for each new shape, "
            "far slower than NumPy",
            "make the function jittable (see the other diagnostics); its callers can then be jitted and the loop converted")


def _call_in_a_loop(name: str, ctx: FileContext) -> cst.Call | None:
    """The first call ``name(...)`` of the module's function (not a local of that name: ``for scale in steps:
    x = scale(x)``) inside a ``for``/``while`` loop or a comprehension of the function it is in."""
    module_scope = ctx.resolver.scopes[ctx.module]
    for call, owner in ctx.resolver.calls_by_name(ctx.module).get(name, ()):
        scope = ctx.resolver.scopes.get(owner, module_scope) if owner is not None else module_scope
        if scope.lookup(name)[0] is not module_scope:
            continue
        if any(contains(loop, call) for loop in _loops_in(owner, ctx)):
            return call
    return None


def _loops_in(owner: cst.FunctionDef | None, ctx: FileContext) -> list[cst.CSTNode]:
    """The loops and comprehensions of function ``owner`` (of the module's top level for None), found once."""
    memo = ctx.resolver.memo.setdefault("loops_in", {})
    found = memo.get(owner)
    if found is None:
        body = owner.body if owner is not None else ctx.module
        found = memo[owner] = [node for node in descendants(body) if type(node) in _LOOPS]
    return found


def _self_call_in_a_loop(info: FunctionInfo, ctx: FileContext) -> str | None:
    """The name of a method of ``info``'s class calling ``self.<info's method>(...)`` inside a loop."""
    scope = ctx.resolver.scopes.get(info.node)
    owner = scope.parent if scope is not None else None
    if owner is None or owner.kind != "class" or not isinstance(owner.node, cst.ClassDef):
        return None
    memo = ctx.resolver.memo.setdefault("self_calls_in_loops", {})
    calls = memo.get(owner.node)
    if calls is None:
        calls = memo[owner.node] = _self_calls_in_loops(owner.node)
    return calls.get(info.node.name.value)


def _self_calls_in_loops(node: cst.ClassDef) -> dict[str, str]:
    """Method name -> the first method of class ``node`` calling ``self.name(...)`` (``self`` being its first
    parameter) inside a loop or a comprehension."""
    calls: dict[str, str] = {}
    for method in node.body.body:
        if not isinstance(method, cst.FunctionDef) or not method.params.params:
            continue
        me = method.params.params[0].name.value
        for loop in descendants(method.body):
            if type(loop) not in _LOOPS:
                continue
            for call in descendants(loop):
                if (isinstance(call, cst.Call) and isinstance(call.func, cst.Attribute)
                        and isinstance(call.func.value, cst.Name) and call.func.value.value == me):
                    calls.setdefault(call.func.attr.value, method.name.value)
    return calls


_LOOPS = frozenset({cst.For, cst.While, cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp})


ELEMENT_WRITE = "a write into array elements"
TRACED_TEST = "a test on traced values in a loop"


def _changing_shape(info: FunctionInfo, ctx: FileContext) -> tuple[cst.CSTNode, str] | None:
    """A boolean mask index that keeps ``info``'s function from being jitted, inside one of its loops (the read), a
    test on traced values that does, inside a loop computing with jax.numpy results (every step of the loop would
    run eagerly), or a slice or an array a loop of it makes with a length that changes at every step (analysis/eager_shapes.py),
    or a write into array elements in a loop; with what it is.  Its callers then stay NumPy code too
    (``FunctionInfo.kept_numpy``): handed JAX arrays, its NumPy code could neither write into them nor keep NumPy's
    dtypes (``np.cumsum`` of a JAX uint8 array is JAX's, which wraps)."""
    state = ctx.jit_state(info)
    plan = state.plan
    # (a function with a decorator jit does not combine with has no plan: its loops are looked at all the same)
    decorated = plan is None and info.class_name is None and bool(info.node.decorators) and not state.already_jitted
    method = plan is None and info.class_name is not None  # (never jitted: its loops run eagerly)
    if (plan is None and not decorated and not method) or (plan is not None and plan.ok):
        return None
    loops: list[cst.CSTNode] = []
    stack: list[cst.CSTNode] = [info.node.body]
    while stack:
        node = stack.pop()
        kind = type(node)
        if kind is cst.For or kind is cst.While:
            loops.append(node)
        if kind not in _NESTED_SCOPES:
            stack.extend(inner_nodes(node))  # (trivia holds no loop)
    if not loops:
        return None
    scope = ctx.resolver.scopes.get(info.node)
    if scope is None:
        return None
    for blocker in plan.blockers if plan is not None else ():
        if blocker.message == MASK_INDEX and any(contains(loop, blocker.node) for loop in loops):
            return blocker.node, "a boolean mask index"
    for loop in loops:
        found = varying_shape(loop, ctx.resolver, scope)
        if found is not None:
            return found, ("a slice whose length changes with the step" if isinstance(found, cst.Subscript)
                           else "an array whose length changes with the step")
    for loop in loops:
        found = element_write(loop)
        if found is not None:
            return found, ELEMENT_WRITE
    for blocker in plan.blockers if plan is not None else ():
        if blocker.kind == "traced-value" and any(
                contains(loop, blocker.node) and _computes_with_jax(loop, info, ctx) for loop in loops):
            # (hunt52 L3: a projectile's flight stepped 14,000 times, 124x slower; hunt54 L1: a convex hull's
            # `while cross2(lower[-2], lower[-1], p) <= 0` inside `for p in pts` of `pts = points[np.argsort(...)]`;
            # hunt54 L2: a bisection's `if np.sign(fm) == np.sign(fa)`, 24x slower)
            return blocker.node, TRACED_TEST
    return None


def _computes_with_jax(loop: cst.While, info: FunctionInfo, ctx: FileContext) -> bool:
    """Does ``loop`` make JAX calls, or read a name a statement of the function with a JAX call binds
    (``vx, vy = v0 * jnp.cos(th), ...``)? Its test's own NumPy calls stay NumPy (analysis/eager_values.py)."""
    calls = ctx.jax_calls
    if any(node in calls for node in descendants(loop)):
        return True
    bound: set[str] = set()
    for node in descendants(info.node.body):
        if isinstance(node, (cst.Assign, cst.AugAssign, cst.AnnAssign)) and node.value is not None and any(
                part in calls for part in descendants(node.value)):
            targets = [t.target for t in node.targets] if isinstance(node, cst.Assign) else [node.target]
            bound |= {name.value for target in targets for name in descendants(target) if isinstance(name, cst.Name)}
            bound |= {target.value for target in targets if isinstance(target, cst.Name)}
    return any(isinstance(node, cst.Name) and node.value in bound for node in descendants(loop))


_NESTED_SCOPES = frozenset({cst.FunctionDef, cst.Lambda, cst.ClassDef})
