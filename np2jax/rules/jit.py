from __future__ import annotations

import libcst as cst

from np2jax.analysis.list_arguments import list_arguments
from np2jax.analysis.scope import ParamBinding, ValueBinding
from np2jax.analysis.tracing import jit_decorator
from np2jax.analysis.values import nodes_of
from np2jax.context import FileContext, FunctionInfo
from np2jax.cstutil import call
from np2jax.diagnostics import Diagnostic, FixSafety, Severity
from np2jax.rule import Example, Rule, RuleDoc


class Jit(Rule):
    CODE = "NPJ300"
    NAME = "jit"
    MESSAGE = "decorated with `jax.jit`"
    CALLABLE_MESSAGE = (
        "{names}: a static argument this jitted function calls on traced arrays: what callers pass must be written "
        "with jax.numpy (a NumPy or SciPy function raises TracerArrayConversionError) and be hashable"
    )
    CALLABLE_INSTEAD = "pass functions written with jax.numpy (`jnp.sin`, not `np.sin`); or call the function un-jitted"
    SEQUENCE_MESSAGE = (
        "{names}: a static argument used as a shape, axes or repetitions: jax.jit hashes it, so a caller passing a "
        "list (`[5, 6]`) or an array gets ValueError (\"Non-hashable static arguments\") where NumPy took it"
    )
    SEQUENCE_INSTEAD = "pass a tuple (`(5, 6)`) or an int"
    GLOBALS_MESSAGE = (
        "reads module-level {names}: jax.jit keeps the value{s} it traced with, so assigning {them} later "
        "(`module.{first} = ...`, as a test patching the module does) does not reach this function"
    )
    GLOBALS_INSTEAD = "pass values that may change as arguments; or call `jax.clear_caches()` after changing one"
    SEVERITY = Severity.INFO
    FIX_SAFETY = FixSafety.SAFE
    EXAMPLES_JIT = True
    DOC = RuleDoc(
        what=(
            "Decorates every migrated module-level function that can be traced with `@jax.jit`, or with "
            "`@functools.partial(jax.jit, static_argnums=(...))` when some parameters must be Python values at trace "
            "time: flags tested by `if`, sizes passed to `range`/`zeros`/`reshape`, `axis`/`ord`/`mode` arguments, "
            "indices into Python lists, keys into dicts (`{0.95: 1.645, 0.99: 2.326}[level]`, `TABLE.get(level, 3.0)`), callables, `dtype` arguments. A parameter is made static only if it looks like a "
            "Python value (hinted `int`/`float`/`bool`/`str`/`tuple`, a literal default, a shape-like name, or never "
            "used as array data), and never when it holds an array or a container, which is unhashable: an outer hint "
            "`np.ndarray`/`list`/`dict`/`Dict[...]`, a docstring entry `x : array-like` (`x (np.ndarray): ...`), or the "
            "function indexes, unpacks or iterates it (an `if` on its elements is then a traced test: NPJ306 or "
            "NPJ301). `str`-hinted parameters and ones with a string default are static (a string cannot be traced); "
            "the report lists the indices in `static_argnums`. A function with nothing to rewrite is jitted as "
            "it is when it is array code (it calls jax.numpy or array methods such as `.mean()`, uses `.shape`/`.T`, "
            "indexes a module-level NumPy array, or calls a function of the module that is) and returns an array; functions "
            "defined inside a jitted function are traced with it and reported as jitted. A module-level NumPy array "
            "(`COMPLEMENT = np.array([3, 2, 1, 0])`, nothing writes it), or a parameter defaulting to one (`surv=SURVIVAL`: "
            "jax.jit leaves a default as it is), or a local name bound to a NumPy call of static arguments, which stays "
            "NumPy (`f = np.fft.rfftfreq(n)`), indexed by a traced value is read as `jnp.asarray(COMPLEMENT)[seq]`: a "
            "NumPy array refuses a tracer as its index; so are its methods given traced values (`K.dot(x)` becomes "
            "`jnp.asarray(K).dot(x)`; also `take`, `choose`, `compress`, `searchsorted`, `clip`). A jitted function that reads module-level variables gets an info "
            "naming them: jax.jit keeps the values it traced with, so a later `module.RADIUS = ...` (a test patching the "
            "module, a configuration step) does not reach it (another module of the project writing one: NPJ302). A static "
            "argument used as a shape, axes or repetitions (`np.zeros(shape)`, `np.transpose(X, perm)`; not a count such "
            "as `n_bins`) gets an info too: jax.jit hashes static arguments, so a caller passing a list raises there. A "
            "parameter given as `bins=` to a histogram stays traced when it holds edges: named for them (`edges`) or "
            "defaulting to an array (`edges=EDGES`); one defaulting to an int count is static. A parameter a caller "
            "may give as a Python list is converted first, `v = jnp.asarray(v)` (analysis/list_arguments.py): under "
            "jax.jit a list arrives as a list of tracers, which jax.numpy and a jax.Array's arithmetic refuse, while "
            "NumPy converted it at each use. It is written when every use of the parameter is one where NumPy converts "
            "a list as `np.asarray` does (an array argument of a NumPy function, `len`, `-`/`/`/`**`/`@`, `+` or an "
            "ordering beside a NumPy value, `*` beside a float, an index by a traced value such as a fori_loop's "
            "step, a constant index `x[0]` beside one, a loop over it that becomes a fori_loop), some use refuses a list in the migrated code, and the "
            "original takes a list at all (`x ** 2`, `-x`, `x - 1.0` refuse one); an array or a Python number passes "
            "through it unchanged. `a + b` of two lists, `a * 2`, `a[0]` alone (a weakly typed Python number), `return a` and an index `c[a]` (a tuple "
            "there is a multi-axis index) leave the parameter as it is."
        ),
        why=(
            "Under `jax.jit` a function is compiled once per combination of static arguments and runs as one XLA "
            "program. Tracing only works when everything Python itself looks at is known at trace time; np2jax "
            "checks that before it adds the decorator, and otherwise leaves the function un-jitted with a "
            "diagnostic naming the line (NPJ301, NPJ302, NPJ303, NPJ304)."
        ),
        use_instead="nothing to do: the decorator is added for you (`--no-jit` leaves functions undecorated)",
        known_problems=(
            "A static argument must be hashable: passing a NumPy array where np2jax chose static (an undocumented, "
            "unhinted parameter only ever tested or passed as a size) raises an error at call time (never a silent "
            "difference); so does a list (`pad_to(x, [4])`): callers pass a tuple. The module's own calls that "
            "give a list display for a static parameter the function only hands to NumPy, `len`, iteration or "
            "`*` (where a tuple reads the same) pass the tuple display (`pad_to(x, (4,))`). "
            "Each new value of a static argument compiles the function again. "
            "A parameter the function calls (a callback, `f(x)`) is static and called on traced arrays: an info says so "
            "at the `def`, since a caller's NumPy callback (`np.sin`, or one calling `np.linalg.solve`) then raises. "
            "`jnp.asarray` makes a few lists another dtype than `np.asarray`: a list of Python ints is int32 without "
            "x64, one mixing `np.float32` scalars with Python floats float32 (NumPy: float64)."
        ),
    )
    EXAMPLES = (
        Example(
            title="traced arguments only",
            before="""
            import numpy as np

            def normalize(x):
                return (x - np.mean(x)) / np.std(x)
            """,
            after="""
            import jax
            import jax.numpy as jnp

            @jax.jit
            def normalize(x):
                x = jnp.asarray(x)
                return (x - jnp.mean(x * 1.0)) / jnp.std(x * 1.0)
            """,
        ),
        Example(
            title="a parameter a caller may give as a list is converted first",
            before="""
            import numpy as np

            def cross(v1, v2):
                return np.cross(v1, v2)

            def joined(a, b):
                return np.sum(a + b)
            """,
            after="""
            import jax
            import jax.numpy as jnp

            @jax.jit
            def cross(v1, v2):
                v1 = jnp.asarray(v1)
                v2 = jnp.asarray(v2)
                return jnp.cross(v1, v2)

            @jax.jit
            def joined(a, b):
                return jnp.sum(a + b)
            """,
        ),
        Example(
            title="a module-level value is read as it was when the function was traced",
            before="""
            import numpy as np

            RADIUS = 6378.137

            def to_km(x):
                return np.asarray(x) * RADIUS
            """,
            after="""
            import jax
            import jax.numpy as jnp

            RADIUS = 6378.137

            @jax.jit
            def to_km(x):
                return jnp.asarray(x) * RADIUS
            """,
            diagnostics=("NPJ300",),
        ),
        Example(
            title="a flag and a size are static",
            before="""
            import numpy as np

            def smooth(x, width, center=True):
                kernel = np.ones(width) / width
                y = np.convolve(x, kernel, mode="same")
                if center:
                    y = y - y.mean()
                return y
            """,
            after="""
            import functools
            import jax
            import jax.numpy as jnp

            @functools.partial(jax.jit, static_argnums=(1, 2))
            def smooth(x, width, center=True):
                x = jnp.asarray(x)
                kernel = jnp.ones(width) / width
                y = jnp.convolve(x, kernel, mode="same", preferred_element_type=jnp.result_type(x, kernel))
                if center:
                    y = y - y.mean()
                return y
            """,
        ),
        Example(
            title="a helper's static argument makes the caller's static too",
            before="""
            import numpy as np

            def window(n):
                return np.hanning(n)

            def taper(x, n):
                return np.sum(x[:n] * window(n))
            """,
            after="""
            import functools
            import jax
            import jax.numpy as jnp

            @functools.partial(jax.jit, static_argnums=(0,))
            def window(n):
                return jnp.hanning(n)

            @functools.partial(jax.jit, static_argnums=(1,))
            def taper(x, n):
                return jnp.sum(x[:n] * window(n))
            """,
        ),
        Example(
            title="array code with nothing to rewrite but its averages (NumPy's dtype for integer input) is jitted",
            before="""
            import numpy as np

            def standardize(x):
                return (x - x.mean(axis=0)) / x.std(axis=0)

            def center(x):
                return x - np.mean(x)
            """,
            after="""
            import jax
            import jax.numpy as jnp

            @jax.jit
            def standardize(x):
                return (x - (x * 1.0).mean(axis=0)) / (x * 1.0).std(axis=0)

            @jax.jit
            def center(x):
                x = jnp.asarray(x)
                return x - jnp.mean(x * 1.0)
            """,
        ),
        Example(
            title="`np.errstate` that only silences warnings changes nothing under jax.numpy: jitted, kept as it is",
            before="""
            import numpy as np

            def safe_ratio(a, b):
                with np.errstate(divide="ignore", invalid="ignore"):
                    return np.where(b != 0, a / b, 0.0)
            """,
            after="""
            import numpy as np
            import jax
            import jax.numpy as jnp

            @jax.jit
            def safe_ratio(a, b):
                a = jnp.asarray(a)
                with np.errstate(divide="ignore", invalid="ignore"):
                    return jnp.where(b != 0, a / b, 0.0)
            """,
        ),
    )

    def on_leave_function(self, info: FunctionInfo, ctx: FileContext) -> None:
        state = ctx.jit_state(info)
        if state.already_jitted:
            info.jit = True
            return
        plan = state.plan
        if plan is None or not plan.ok:
            return
        info.jit = True
        info.static_argnums = plan.static_argnums
        info.decorator = jit_decorator(plan)
        converted = [name for name in list_arguments(info.node, ctx.resolver, plan.loops) if name not in plan.static]
        if converted:  # `v = jnp.asarray(v)`: a caller's list works as it did (analysis/list_arguments.py)
            jnp = ctx.use_jnp()
            info.prologue = tuple(cst.Assign([cst.AssignTarget(cst.Name(name))], call(f"{jnp}.asarray", cst.Name(name)))
                                  for name in converted)
        ctx.jit_uses.add("jax")
        if info.decorator.startswith("functools."):
            ctx.jit_uses.add("functools")
        read = _module_variables_read(info, ctx)
        if read:
            line, col, end_line, end_col = ctx.def_name_span(info)
            message = self.GLOBALS_MESSAGE.format(names=", ".join(f"`{name}`" for name in read), s="s" if len(read) > 1 else "",
                                                  them="them" if len(read) > 1 else "it", first=read[0])
            ctx.diagnostics.append(Diagnostic(self.CODE, self.SEVERITY, message, ctx.path, line, col, end_line, end_col,
                                              self.GLOBALS_INSTEAD))
        sequences = _sequence_parameters(info, set(plan.static), ctx)
        if sequences:
            line, col, end_line, end_col = ctx.def_name_span(info)
            ctx.diagnostics.append(Diagnostic(
                self.CODE, self.SEVERITY, self.SEQUENCE_MESSAGE.format(names=", ".join(f"`{name}`" for name in sequences)),
                ctx.path, line, col, end_line, end_col, self.SEQUENCE_INSTEAD,
            ))
        called = _called_parameters(info, set(plan.static), ctx)
        if called:
            line, col, end_line, end_col = ctx.def_name_span(info)
            names = ", ".join(f"`{name}`" for name in called)
            ctx.diagnostics.append(Diagnostic(
                self.CODE, self.SEVERITY, self.CALLABLE_MESSAGE.format(names=names), ctx.path, line, col, end_line, end_col,
                self.CALLABLE_INSTEAD,
            ))


def _module_variables_read(info: FunctionInfo, ctx: FileContext) -> list[str]:
    """Module-level variables (assigned at module level, not imports, functions or classes) the function reads."""
    found: dict[str, None] = {}
    names_of_other_things: set[int] = set()  # `x.A`'s `A`, `f(A=1)`'s `A`
    for node, scope in nodes_of(info.node, ctx.resolver, _ATTRIBUTES_ARGS_NAMES):
        if isinstance(node, cst.Attribute):
            names_of_other_things.add(id(node.attr))
        elif isinstance(node, cst.Arg) and node.keyword is not None:
            names_of_other_things.add(id(node.keyword))
        elif isinstance(node, cst.Name) and node.value not in found and id(node) not in names_of_other_things:
            owner, bindings = scope.lookup(node.value)
            if owner is not None and owner.kind == "module" and bindings and all(isinstance(b, ValueBinding) for b in bindings):
                found[node.value] = None
    return list(found)


# NumPy functions (and methods) whose argument at this position is a shape, axes or repetitions: a tuple or a list
SEQUENCE_ARGUMENTS = {"zeros": 0, "ones": 0, "empty": 0, "full": 0, "reshape": 1, "transpose": 1, "tile": 1,
                      "broadcast_to": 1, "resize": 1}
SEQUENCE_METHODS = {"reshape": 0, "transpose": 0}


def _sequence_parameters(info: FunctionInfo, static: set[str], ctx: FileContext) -> list[str]:
    """Static parameters handed where NumPy takes a shape or axes as a tuple or a list (``np.zeros(shape)``,
    ``np.transpose(X, perm)``), unless a hint or default says int or tuple."""
    candidates = {name for name in static if not _int_or_tuple(info.node, name) and not _count_name(name)} - _counts(info, ctx)
    found: set[str] = set()
    for node, scope in nodes_of(info.node, ctx.resolver, _CALLS) if candidates else ():
        qualname = ctx.resolver.qualname(node.func, scope) or ""
        position = SEQUENCE_ARGUMENTS.get(qualname[len("numpy."):]) if qualname.startswith("numpy.") else None
        if position is None and not qualname and isinstance(node.func, cst.Attribute):
            position = SEQUENCE_METHODS.get(node.func.attr.value)
        positional = [arg.value for arg in node.args if arg.keyword is None and not arg.star]
        if position is not None and len(positional) > position and isinstance(positional[position], cst.Name) \
                and positional[position].value in candidates and (len(positional) == position + 1 or qualname):
            found.add(positional[position].value)  # (a method given several ints, `x.reshape(n, m)`, takes no list)
    return [name for name in _parameter_names(info.node) if name in found]


def _count_name(name: str) -> bool:
    """``n``, ``k``, ``n_bins``, ``num_steps``, ``count``: a number of things, not a shape."""
    return len(name) == 1 or name.startswith(("n_", "num_", "count")) or name.endswith(("count", "_len", "length"))


def _counts(info: FunctionInfo, ctx: FileContext) -> set[str]:
    """Names used as numbers (an operand of arithmetic or a comparison, a `range` bound): counts, not shapes."""
    names: set[str] = set()
    for node, scope in nodes_of(info.node, ctx.resolver, _OPERATIONS_AND_CALLS):
        if isinstance(node, cst.BinaryOperation):
            names.update(side.value for side in (node.left, node.right) if isinstance(side, cst.Name))
        elif isinstance(node, cst.Comparison):
            names.update(side.value for side in (node.left, *(c.comparator for c in node.comparisons)) if isinstance(side, cst.Name))
        elif isinstance(node, cst.Call) and ctx.resolver.qualname(node.func, scope) == "builtins.range":
            names.update(arg.value.value for arg in node.args if isinstance(arg.value, cst.Name))
    return names


def _int_or_tuple(function: cst.FunctionDef, name: str) -> bool:
    params = function.params
    param = next(p for p in (*params.posonly_params, *params.params, *params.kwonly_params) if p.name.value == name)
    default = param.default
    annotation = cst.Module([]).code_for_node(param.annotation.annotation) if param.annotation is not None else ""
    return isinstance(default, (cst.Integer, cst.Tuple)) or annotation.startswith(("int", "tuple", "Tuple", "typing.Tuple"))


def _called_parameters(info: FunctionInfo, static: set[str], ctx: FileContext) -> list[str]:
    """The static parameters ``info``'s function calls (``f(x)`` with ``f`` a parameter), in signature order."""
    if not static:
        return []
    found = set()
    for node, scope in nodes_of(info.node, ctx.resolver, _CALLS):
        if isinstance(node.func, cst.Name) and node.func.value in static:
            binding_scope, bindings = scope.lookup(node.func.value)
            if binding_scope is not None and binding_scope.node is info.node and any(isinstance(b, ParamBinding) for b in bindings):
                found.add(node.func.value)
    return [name for name in _parameter_names(info.node) if name in found]


def _parameter_names(function: cst.FunctionDef) -> list[str]:
    params = function.params
    return [p.name.value for p in (*params.posonly_params, *params.params, *params.kwonly_params)]


class JitBlocker(Rule):
    """Base of NPJ301-NPJ303: reports the analysis's blockers of one kind for a function left un-jitted."""

    MESSAGE = "not jitted: {reason}"
    SEVERITY = Severity.WARNING
    EXAMPLES_JIT = True
    KIND = ""

    def on_leave_function(self, info: FunctionInfo, ctx: FileContext) -> None:
        plan = ctx.jit_state(info).plan
        if plan is None:
            return
        for blocker in plan.blockers:
            if blocker.kind == self.KIND:
                self.report(ctx, blocker.node, self.MESSAGE.format(reason=blocker.message), use_instead=blocker.use_instead, exact=True)


# The node kinds the searches above look at (exact types, for analysis/values.nodes_of)
_CALLS = frozenset({cst.Call})
_ATTRIBUTES_ARGS_NAMES = frozenset({cst.Attribute, cst.Arg, cst.Name})
_OPERATIONS_AND_CALLS = frozenset({cst.BinaryOperation, cst.Comparison, cst.Call})
