from __future__ import annotations

import libcst as cst

from np2jax.analysis.aliasing import is_python_container
from np2jax.analysis.inplace_calls import OUT_ARRAY_METHODS
from np2jax.analysis.result_writes import INPLACE_METHODS
from np2jax.analysis.scope import DefBinding, LoopBinding, ParamBinding, ValueBinding
from np2jax.analysis.sequences import sequence_annotation
from np2jax.context import FileContext, loop_plan, runs_on_jax_arrays
from np2jax.cstutil import string_valued
from np2jax.diagnostics import Severity
from np2jax.rule import Example, Rule, RuleDoc




class UnsafeInplaceWrite(Rule):
    CODE = "NPJ201"
    NAME = "unsafe-inplace-write"
    MESSAGE = "in-place write to `{name}` cannot be made functional safely: {why}"
    SEVERITY = Severity.ERROR
    DOC = RuleDoc(
        what=(
            "Reports subscript writes (`x[i] = v`, `x[i] += v`) that NPJ200 cannot turn into `.at[]` updates: "
            "writes to parameters of functions that cannot return them instead (NPJ203), globals, attributes of "
            "other objects or containers; writes to arrays that another name or a view can observe, including "
            "`self.x` arrays that may be shared (stored from the caller without a copy, returned, stored elsewhere); "
            "writes through integer-array indices that may repeat (except `x[idx] op= v` with `v` provably one "
            "number through a provable integer array, which NPJ200 rewrites). Augmented assignments (`x += v`, `self.x *= v`) "
            "on such arrays too: NumPy updates them in place, so also `x op= v` on a name bound to an element of a list "
            "or dict (`a = arrs[0]`, `x = s[\"x\"]`), to an item of an array that may be a view (`r = A[i]` unless `A` "
            "is known to have one dimension per index), to an attribute (`P = self.P`, `x = b.x`), or a loop variable "
            "over a container (`for w, g in zip(ws, gs): w -= lr * g`), unless it is provably a Python number or string; "
            "`d[k] op= v` on an item of a local list or dict unless every item is a new array or a number and none is taken "
            "out (`d[\"a\"] = m; d[\"a\"] += 1.0` changes `m` in NumPy; the container may come from a function of the "
            "module returning a new one of new items, `params = init_params(n)`, and go to functions of the module that "
            "only read its items into new values, `forward(params, X)`); also `v *= k` on an untyped parameter of a function "
            "that returns nothing (its only effect can be on the caller's object), `params += v` in a method that a call "
            "of a method of that name drops the result of (`opt.step(params, g)`, with `opt` an object of that class or "
            "of a class np2jax cannot tell: it relies on the update), and `self.x += v` where some "
            "method stores an untyped parameter in `self.x` (`self.x = x0`: the caller's array, if it is one). And NumPy's in-place array "
            "methods (`x.sort()`, `x.fill(v)`, `put`, `resize` ...) on arrays, and in a function that is jitted on any "
            "name it does not build as a Python list or receive as a static argument (`v = x * 2` may be a list in "
            "NumPy code, but a tracer's `.sort()` returns a copy). Setting an array's own attributes "
            "(`z.real = x`, `z.imag += 1`, `a.flat = 0`, `y.dtype = ...`, `strides`, `data`, and `y.shape = s` unless NPJ200 "
            "can make it `y = y.reshape(s)`): a jax array has no setter for them. An assignment with several targets "
            "that writes into an array (`a[0] = a[1] = v`, `a[0], b = ...`) that shares its line with other statements "
            "(`x = f(); a[0] = a[1] = x`, `if c: a[0] = a[1] = 0`): NPJ200 writes it as several lines, which needs a line of its own."
        ),
        why=(
            "JAX arrays are immutable. `x = x.at[i].set(v)` rebinds one name; in NumPy every alias and view "
            "of the buffer saw the write. With repeated indices NumPy keeps the last write (`=`) or applies "
            "a buffered update once (`+=`), while JAX's scatter accumulates or picks any."
        ),
        use_instead=(
            "return the updated array (x = x.at[i].set(v); return x) and rebind it at the call site; "
            "use np.add.at semantics explicitly with x.at[idx].add(v) when repeats must accumulate"
        ),
        known_problems=(
            "A function with such a write is left untouched as a whole (see the report's `unsupported` status). Views are "
            "detected syntactically (`y = x`, slices, `.T`, `reshape` ...); a view made inside another function is not seen. "
            "`self.x` arrays are judged over the module: a subclass or caller in another module that keeps a reference to "
            "`obj.x` is not seen. `s = A[i, j]; s -= v` is reported when nothing tells that `A` has exactly two "
            "dimensions (a parameter): write `s = float(A[i, j])` or `A[i, j].copy()` when it is a number. An index "
            "that is certainly an array or a list (`A[np.arange(n), np.arange(n)]`, `A[[0, 2], 1:]`, `A[A > 0]`) makes "
            "a copy and is not reported."
        ),
    )
    EXAMPLES = (
        Example(
            title="an item of a dict that another name holds",
            before="""
            import numpy as np

            def shifted(n):
                m = np.linspace(0.0, 1.0, n)
                d = {"a": m}
                d["a"] += 1.0
                return m
            """,
            diagnostics=("NPJ201",),
        ),
        Example(
            title="mutating an argument of a function that also returns a value (see NPJ203 for those that do not)",
            before="""
            import numpy as np

            def clamp_first(x):
                x[0] = np.float32(0.0)
                return x.sum()
            """,
            diagnostics=("NPJ201",),
        ),
        Example(
            title="`self.x += dx` on whatever the caller passed in: if it is an array, NumPy updates the caller's too",
            before="""
            import numpy as np

            class Integrator:
                def __init__(self, state, dt=0.1):
                    self.state = state
                    self.dt = dt
                    self.steps = 0

                def step(self, velocity):
                    self.state += self.dt * np.tanh(velocity)
                    self.steps += 1
            """,
            diagnostics=("NPJ202", "NPJ201"),
        ),
        Example(
            title="an attribute array that the caller also holds (no copy in `__init__`)",
            before="""
            import numpy as np

            class Decay:
                def __init__(self, x0):
                    self.x = np.asarray(x0)

                def step(self):
                    self.x *= 0.5
                    return np.sum(self.x)
            """,
            diagnostics=("NPJ202", "NPJ201"),
        ),
        Example(
            title="an attribute array handed out by a method",
            before="""
            import numpy as np

            class Counter:
                def __init__(self, n):
                    self.counts = np.zeros(n)

                def add(self, i):
                    self.counts[i] += 1

                def histogram(self):
                    return self.counts
            """,
            diagnostics=("NPJ202", "NPJ201", "NPJ202"),
        ),
        Example(
            title="a view sees the write in NumPy",
            before="""
            import numpy as np

            def shifted(n):
                x = np.zeros(n)
                tail = x[1:]
                x[1] = 5.0
                return tail
            """,
            diagnostics=("NPJ201",),
        ),
        Example(
            title="augmented assignment updates a view's base array in NumPy",
            before="""
            import numpy as np

            def center_first_column(X):
                col = X[:, 0]
                col -= np.mean(col)
                return X
            """,
            diagnostics=("NPJ201",),
        ),
        Example(
            title="augmented assignment on an array that another name or a list also holds",
            before="""
            import numpy as np

            def accumulate(x):
                h = np.zeros(3)
                first = h
                h += x
                history = [h]
                h *= 2.0
                return first, history
            """,
            diagnostics=("NPJ201", "NPJ201"),
        ),
        Example(
            title="augmented assignment on an array parameter mutates the caller's array",
            before="""
            import numpy as np

            def scale(x, k):
                x *= k
                return np.sum(x)
            """,
            diagnostics=("NPJ201",),
        ),
        Example(
            title="scalars, fresh local arrays and rebound parameters are fine",
            before="""
            import numpy as np

            def total(x, k):
                acc = 0.0
                acc += k
                y = np.abs(x)
                y *= 2
                x = np.sqrt(x)
                x += acc
                return x, y
            """,
            after="""
            import jax.numpy as jnp

            def total(x, k):
                acc = 0.0
                acc += k
                y = jnp.abs(x)
                y *= 2
                x = jnp.sqrt(x)
                x += acc
                return x, y
            """,
        ),
        Example(
            title="`w -= ...` on the arrays of a list: NumPy updates the list's arrays, JAX only rebinds `w`",
            before="""
            import numpy as np

            def sgd_step(weights, grads, lr=0.1):
                for w, g in zip(weights, grads):
                    w -= lr * g
                return sum(np.sum(w * w) for w in weights)
            """,
            diagnostics=("NPJ201",),
        ),
        Example(
            title="a copy of a parameter meant to be a number (`tol=1e-3`, `y0: float`) is not shared: migrated",
            before="""
            import numpy as np

            def soft_threshold(x, lam=0.5, scale: float = 1.0):
                t = lam
                t *= scale
                return np.sign(x) * np.maximum(np.abs(x) - t, 0.0)
            """,
            after="""
            import jax.numpy as jnp

            def soft_threshold(x, lam=0.5, scale: float = 1.0):
                t = lam
                t *= scale
                return jnp.sign(x) * jnp.maximum(jnp.abs(x) - t, 0.0)
            """,
        ),
        Example(
            title="an item of an array of known rank is a number, not a view: migrated",
            before="""
            import numpy as np

            def shifted(n: int):
                v = np.linspace(0.0, 1.0, n)
                t = v[0]
                t += 1.0
                return v + t
            """,
            after="""
            import numpy as np
            import jax.numpy as jnp

            def shifted(n: int):
                v = jnp.asarray(np.linspace(0.0, 1.0, n))
                t = v[0]
                t += 1.0
                return v + t
            """,
        ),
        Example(
            title="setting an array's real or imaginary part, or its shape when another name sees it",
            before="""
            import numpy as np

            def to_complex(x, y):
                z = np.zeros(len(x), dtype=complex)
                z.real = x
                z.imag = y
                return z

            def pair_sums(x):
                y = x * 2.0
                first = y[:2]
                y.shape = (2, -1)
                return y.sum(axis=1), first
            """,
            diagnostics=("NPJ201", "NPJ201", "NPJ201"),
        ),
        Example(
            title="a chained assignment into an array on a line with other statements",
            before="""
            import numpy as np

            def ends(n, v):
                a = np.zeros(n); a[0] = a[-1] = v
                return a
            """,
            diagnostics=("NPJ201",),
        ),
        Example(
            title="lists and dicts are not arrays: not this rule's business",
            before="""
            import numpy as np

            def table(n):
                rows = [0] * n
                rows[0] = 1
                names = {}
                names["a"] = np.float32(1)
                return rows, names
            """,
        ),
        Example(
            title="an index array that may repeat",
            before="""
            import numpy as np

            def histogram(idx, w, n):
                out = np.zeros(n)
                out[idx] += w
                return out
            """,
            diagnostics=("NPJ201",),
        ),
    )

    def rewrite_line(self, original: cst.SimpleStatementLine, updated: cst.SimpleStatementLine, ctx: FileContext):
        plans = _several_target_plans(original.body[0], ctx)
        blocked = [plan for plan in plans or () if plan is not None and plan.blocker is not None]
        if blocked:
            ctx.blocked_statements.add(original.body[0])
            self.report(ctx, original.body[0], self.MESSAGE.format(name=blocked[0].name or "this target", why=blocked[0].blocker))
        return None

    def _several_targets_in_line(self, original: cst.Assign, ctx: FileContext) -> None:
        """``a[0] = a[1] = v`` or ``a[0], b = ...`` becomes several lines: it must have a line of its own."""
        plans = _several_target_plans(original, ctx)
        written = [plan for plan in plans or () if plan is not None]
        if written:
            ctx.blocked_statements.add(original)
            self.report(ctx, original, self.MESSAGE.format(name=written[0].name or "this target", why=(
                "an assignment with several targets that writes into an array becomes one line per target, "
                "and this one shares its line with other statements")), use_instead="put the assignment on a line of its own")

    def on_augmented_name(self, original: cst.AugAssign, ctx: FileContext) -> None:
        aliasing = ctx.aliasing()
        if aliasing is None:
            return
        name = original.target.value
        if string_valued(original.value):
            return  # `subscripts += "->"`: a str (no array takes a string in place)
        reason = aliasing.augmented_blocker(name, original.target)
        if reason is not None:
            operator = original.operator.__class__.__name__
            symbol = {"AddAssign": "+", "SubtractAssign": "-", "MultiplyAssign": "*", "DivideAssign": "/"}.get(operator, "op")
            self.report(ctx, original, self.MESSAGE.format(name=name, why=reason.replace("{op}", symbol)))

    def on_call(self, node: cst.Call, ctx: FileContext) -> None:
        """``x.sort()``, ``x.fill(0)`` ...: NumPy changes ``x`` in place; a jax array returns a new one or has no such method."""
        func = node.func
        if isinstance(func, cst.Attribute) and func.attr.value in OUT_ARRAY_METHODS and ctx.qualname(func) is None and any(
                arg.keyword is not None and arg.keyword.value == "out"
                and not (isinstance(arg.value, cst.Name) and arg.value.value == "None") for arg in node.args):
            if ctx.inplace_call_plan(node) is None:  # a plan: NPJ200 assigns the method's result instead
                out = next(arg.value for arg in node.args if arg.keyword is not None and arg.keyword.value == "out")
                self.report(ctx, node, self.MESSAGE.format(name=ctx.code(out), why=(
                    f"`.{func.attr.value}(..., out=...)` writes into it in place in NumPy; jax arrays take no `out=`")),
                    use_instead=f"{ctx.code(out)} = {ctx.code(func)}(...)")
            return
        if not isinstance(func, cst.Attribute) or func.attr.value not in INPLACE_METHODS:
            return
        aliasing = ctx.aliasing()
        if aliasing is None or ctx.inplace_call_plan(node) is not None:
            return  # None: outside a function's own scope; a plan: NPJ200 assigns the functional result
        receiver = func.value
        if isinstance(receiver, cst.Name):
            name = receiver.value
            # Jitted, the function sees tracers wherever it does not build a Python value itself: `v = a + b`,
            # `v = x * 2` are arrays there, and `v.sort()` would return a sorted copy and change nothing
            traced = (bool(aliasing.scope.bindings.get(name)) and ctx.qualname(func) is None and _jitted_array_code(ctx)
                      and not _python_values(name, aliasing, ctx))
            if (aliasing.is_container(name) or _instance_of_own_class(name, func.attr.value, aliasing)) and not traced:
                return  # (`c = Canvas(n); c.fill(v)`: the class's own `fill`)
            # `p = f(z); p.sort()`: f's result may be an array (a JAX one once f migrates) as well as a list;
            # `def f(y): y.sort()`: the caller's array, a JAX one where a migrated or jitted caller passes it
            if not (traced or aliasing.holds_numpy_array(name, strict=func.attr.value == "sort") or aliasing.bound_to_call(name)
                    or aliasing.arithmetic_array(name)
                    or _array_parameter(name, aliasing) or _element_or_view(name, aliasing)):
                return
        elif isinstance(receiver, cst.Subscript):
            pass  # `rows[i].sort()`, `a[:, 0].sort()`, `a[:2].fill(0)`: a row or a view of an array (or a list's element)
        elif aliasing.attributes is None or not aliasing.attributes.is_array(aliasing.function, receiver):
            return
        shown = ctx.code(receiver)
        self.report(
            ctx, node, self.MESSAGE.format(name=shown, why=f"`.{func.attr.value}()` changes the array in place in NumPy; " + (
                "a jax array's `.sort()` returns a sorted copy and leaves it as it was" if func.attr.value == "sort"
                else f"jax arrays cannot change and have no `.{func.attr.value}()`")),
            use_instead=f"{shown} = jnp.sort({shown})" if func.attr.value == "sort" else f"{shown} = {shown}.at[...].set(...) or jnp.full_like",
        )

    def on_augmented_attribute(self, original: cst.AugAssign, ctx: FileContext) -> None:
        aliasing = ctx.aliasing()
        if aliasing is None or aliasing.attributes is None:
            return
        if not aliasing.attributes.is_array(aliasing.function, original.target):
            # Nothing says it is an array, but it may hold the caller's one (`self.x = x0`): NumPy's `+=` writes
            # into that array, JAX's rebinds `self.x` only, so the caller's array no longer follows.
            stored = aliasing.attributes.caller_value(aliasing.function, original.target)
            if stored is not None:
                self.report(ctx, original, self.MESSAGE.format(name=ctx.code(original.target), why=(
                    f"`{stored}` may keep the caller's array, which `{ctx.code(original.target)} "
                    f"{ctx.code(original.operator).strip()} ...` changes in place in NumPy; under JAX it rebinds the "
                    "attribute and the caller's array stays as it was (store a copy, or a Python number, to avoid this)")))
            return
        reason = aliasing.attribute_blocker(original.target)
        if reason is not None:
            self.report(ctx, original, self.MESSAGE.format(name=ctx.code(original.target), why=reason))

    def rewrite_statement(self, original: cst.BaseSmallStatement, updated: cst.BaseSmallStatement, ctx: FileContext):
        if isinstance(original, cst.Assign) and not _alone_on_its_line(original, ctx):
            self._several_targets_in_line(original, ctx)
        blocked = [write for write in ctx.attribute_writes(original) if write.blocker is not None]
        if blocked:
            ctx.blocked_statements.add(original)
            self.report(ctx, original, self.MESSAGE.format(name=blocked[0].name, why=blocked[0].blocker), use_instead=blocked[0].instead)
            return None
        if isinstance(original, cst.AugAssign) and isinstance(original.target, cst.Name):
            self.on_augmented_name(original, ctx)
            return None
        if isinstance(original, cst.AugAssign) and isinstance(original.target, cst.Attribute):
            self.on_augmented_attribute(original, ctx)
            return None
        plan = ctx.write_plan(original)
        if plan is None or plan.blocker is None:
            return None
        ctx.blocked_statements.add(original)
        self.report(ctx, original, self.MESSAGE.format(name=plan.name or "this target", why=plan.blocker))
        return None


def _several_target_plans(statement: cst.BaseSmallStatement, ctx: FileContext):
    """The write plans of ``a[i], b = ...`` or ``a[i] = b[j] = v``, one per target; None for other statements."""
    plans = ctx.tuple_write_plans(statement)
    return plans if plans is not None else ctx.chained_write_plans(statement)


def _alone_on_its_line(statement: cst.BaseSmallStatement, ctx: FileContext) -> bool:
    """Is ``statement`` the only statement of its line (``rewrite_line`` is called for it)?"""
    line = ctx.statement[0] if ctx.statement is not None else None
    return isinstance(line, cst.SimpleStatementLine) and len(line.body) == 1 and line.body[0] is statement


def _array_parameter(name: str, aliasing) -> bool:
    """A parameter not annotated or defaulted as a Python sequence (``y: list``, ``y=[]``): it may hold an array."""
    bindings = aliasing.scope.bindings.get(name, ())
    params = [b for b in bindings if isinstance(b, ParamBinding)]
    if not params or len(params) != len(bindings):
        return False
    param = params[0].param
    return not sequence_annotation(param.annotation) and not isinstance(param.default, (cst.List, cst.Tuple))


def _element_or_view(name: str, aliasing) -> bool:
    """Bound by a loop over a container or an array (``for row in a: row.sort()``), or to an element, a view or
    an attribute (``head = a[:2]``): NumPy's in-place method changes what the container or array holds."""
    bindings = aliasing.scope.bindings.get(name, ())
    return any(isinstance(b, LoopBinding) or (isinstance(b, ValueBinding) and isinstance(b.value, (cst.Subscript, cst.Attribute)))
               for b in bindings)


def _jitted_array_code(ctx: FileContext) -> bool:
    """The function (or the one it is in) will be jitted: it has a jit plan and computes with arrays."""
    outer = ctx.function.outer or ctx.function if ctx.function is not None else None
    if outer is None or not runs_on_jax_arrays(outer, ctx) or not outer.is_module_level:
        return False
    return ctx.tracing.array_code(outer.node.name.value)


def _python_values(name: str, aliasing, ctx: FileContext) -> bool:
    """Every binding of ``name`` is a Python container built here (``list(x)``, ``[...]``) or a static parameter of
    the jitted function: a Python object under jit too."""
    plan = loop_plan(ctx.function.outer or ctx.function, ctx)
    static = set(plan.static) if plan is not None and ctx.function.outer is None else set()
    bindings = aliasing.scope.bindings.get(name, ())
    return bool(bindings) and all(
        (isinstance(b, ValueBinding) and (b.augmented or is_python_container(b.value, aliasing.resolver, aliasing.scope)))
        or (isinstance(b, ParamBinding) and b.param.name.value in static) for b in bindings)


def _instance_of_own_class(name: str, method: str, aliasing) -> bool:
    """Every binding of ``name`` makes an instance of a class of this module that defines ``method`` itself."""
    bindings = aliasing.scope.bindings.get(name, ())
    if not bindings:
        return False
    for binding in bindings:
        value = binding.value if isinstance(binding, ValueBinding) and not binding.augmented else None
        if not (isinstance(value, cst.Call) and isinstance(value.func, cst.Name)):
            return False
        _, found = aliasing.scope.lookup(value.func.value)
        if not found or not all(isinstance(b, DefBinding) and isinstance(b.node, cst.ClassDef) and any(
                isinstance(s, cst.FunctionDef) and s.name.value == method for s in b.node.body.body) for b in found):
            return False
    return True
