"""Calls in a traced function: which arguments must be static, and which calls block jit.

Builtins that look at a value (``int()``, ``range()``) need concrete arguments;
jax.numpy parameters such as ``axis`` or ``shape`` and the shape arguments of
ndarray methods must be static; calls into other modules, classes, recursion and
functions of this module that cannot be jitted block it.  A call of a function
of this module that can be jitted passes on its static parameters: the caller's
arguments there must be static too.
"""

from __future__ import annotations

import libcst as cst

from np2jax.analysis.callbacks import callback_arguments, numpy_twin
from np2jax.analysis.indexing import IndexClassifier
from np2jax.analysis.loops import MUTATING_METHODS
from np2jax.analysis.mask_writes import masked_reduction
from np2jax.analysis.resolve import is_numpy
from np2jax.analysis.scipy_twins import STATIC_PARAMETERS as TWIN_STATIC_PARAMETERS, TWINS, twin_arguments, twin_for
from np2jax.analysis.scope import DefBinding, ImportBinding, LoopBinding, ParamBinding, ValueBinding
from np2jax.analysis.value_kinds import python_number_kind
from np2jax.analysis.slice_windows import _value_names
from np2jax.analysis.tracing_tables import (
    ALL_STATIC_FUNCTIONS,
    ARRAY,
    ARRAY_METHODS,
    ARRAY_PARAMETERS,
    CONCRETE_BUILTINS,
    ITERATOR_BUILTINS,
    METHOD_STATIC_POSITIONS,
    NAMEDTUPLE_BASES,
    SIDE_EFFECT_BUILTINS,
    STATIC_INSTEAD,
    STATIC_PARAMETERS,
    STRING_LITERALS,
    TRACEABLE_MODULES,
    VALUE_INSTEAD,
)
from np2jax.tables import lookup_numpy, positional_parameter
from np2jax.tables.jax_signatures import SIGNATURES

CONCRETE_CLASSES = frozenset(f"builtins.{name}" for name in "float int bool complex str list tuple dict set".split())
TYPE_BUILTINS = frozenset({"isinstance", "hasattr", "type", "callable"})  # they answer from a value's Python type
PYTHON_RESULTS = frozenset({"round", "hash"})  # on a JAX scalar: an array (not a Python number), or a TypeError


# Reductions jax.numpy computes over the elements where a mask holds (`where=`), as NumPy does over `x[m]`
MASKED_REDUCTIONS = frozenset({"sum", "mean", "std", "var", "prod", "any", "all", "nansum", "nanmean"})


# ndarray methods that take arrays, which a NumPy array refuses when they are tracers (`K.dot(x)`)
CONSTANT_METHODS = frozenset("dot take choose compress searchsorted clip".split())


def _is_axis(arg: cst.Arg, first: bool) -> bool:
    """``axis=0`` (or a positional ``0``, the argument after the array of ``np.mean(x, 0)``)."""
    if arg.star or not (isinstance(arg.value, cst.Integer) and arg.value.evaluated_value == 0):
        return False
    return (arg.keyword is not None and arg.keyword.value == "axis") or (arg.keyword is None and first)


def _first_axis(rest: list[cst.Arg]) -> bool:
    return any(_is_axis(arg, first=arg is rest[0]) for arg in rest)


TRANSPARENT_DECORATORS = frozenset({"typing.overload", "typing_extensions.overload"})


class CallChecks:
    """The call visitor of ``FunctionTracing`` (analysis/function_tracing.py)."""

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if isinstance(func, cst.Attribute):
            self.called_attributes.add(func)  # visit_Attribute (function_tracing.py) names it a method call
        if isinstance(func, cst.Attribute) and func.attr.value in ("format", "join") and isinstance(func.value, STRING_LITERALS):
            for arg in node.args:  # `"{}".format(n)`, `",".join(names)`: Python values
                self._require(arg.value, f"`str.{func.attr.value}` argument", VALUE_INSTEAD)
        if (isinstance(func, cst.Attribute) and func.attr.value in ("get", "pop", "setdefault") and node.args
                and node.args[0].keyword is None and self._is_python_container(func.value, (cst.Dict, cst.DictComp), "dict")):
            self._require_python(node.args[0].value, "dict key")  # `Z_TABLE.get(level, 3.0)`: hashed
        called = callback_arguments(node, self.resolver, self.scope)
        for arg in node.args:
            if any(arg.value is c for c in called) and numpy_twin(arg.value, self.resolver, self.scope):
                continue  # `np.apply_along_axis(np.linalg.norm, 1, X)`: its jax.numpy twin goes in (rules/np_to_jnp.py)
            if self._numpy_function(arg.value, self.scope):
                self._block(arg.value, "side-effect", f"passes the NumPy function `{self.module.module.code_for_node(arg.value)}` "
                            "as a value; called on traced arrays it raises", "pass the jax.numpy function instead")
            elif self._unjittable_function(arg.value) and not all(
                    self.resolver.is_static(other.value, self.scope) for other in node.args if other is not arg):
                # real28 L2: `list(map(g, xs))`, g with `float(x.sum())` (not `map(next_pow2, x.shape)`)
                self._block(arg.value, "side-effect", f"passes `{arg.value.value}`, which cannot be jitted, as a value: "
                            "called on traced arrays it fails as it does jitted", f"fix `{arg.value.value}` first (see "
                            "its own diagnostics)")
        qualname = self.resolver.qualname(func, self.scope)
        if qualname is None and isinstance(func, cst.Name):
            aliased = self._local_alias(func.value)
            if aliased is not None and aliased.startswith("math."):
                qualname = aliased  # `sin = math.sin; sin(theta)`: a Python function of Python numbers
            elif aliased is not None and not aliased.startswith(TRACEABLE_MODULES):
                self._block(node, "side-effect", f"calls `{aliased}` (through the local name `{func.value}`) from another "
                            "module, which np2jax cannot see into", "jit the function by hand once its callees are traceable")
                return
        if qualname == "numpy.isscalar" and len(node.args) == 1 and self._parameter(node.args[0].value):
            # `if np.isscalar(x): ... else: return x`: static, an array there is unhashable (hunt50 L3); traced, a
            # Python number is a 0-d array, which np.isscalar calls no scalar (hunt51 S4)
            self._block(node, "traced-value", f"`np.isscalar({node.args[0].value.value})` of a parameter: under jax.jit a "
                        "number becomes a 0-d array, which it calls no scalar, and an array cannot be a static argument",
                        "jnp.ndim(x) == 0, or keep the test in un-jitted code")
        self._masked_reduction(node, qualname)
        counted = self.counted_mask(node) if qualname == "builtins.len" else None
        if counted is not None:  # `len(X[m])`: the count of `m` (walker.py)
            self.module.mask_counts[node] = counted[1]
            self.module.masked_reads.add(counted[0])
        if qualname == "collections.deque":
            self._block(node, "side-effect", "`collections.deque` holds Python objects: jax.jit would run its methods "
                        "(`rotate`, `append`) at trace time on tracers, and jax.numpy takes no deque",
                        "jnp.roll for a rotation; keep the deque in un-jitted code")
            return
        twin = twin_for(node, qualname, self.resolver, self.scope) if qualname in TWINS else None
        if twin is not None:  # rewritten to its jax.scipy twin (rules/foreign_array_library.py)
            for arg, param in twin_arguments(node, twin):
                if param in TWIN_STATIC_PARAMETERS:
                    self._require(arg.value, f"`{param}` of `{twin.target.rsplit('.', 1)[-1]}`", STATIC_INSTEAD)
                else:
                    self._mark_data(arg.value)
        elif qualname is not None and qualname.startswith("builtins."):
            self._builtin_call(node, qualname[len("builtins."):])
        elif qualname is not None and (is_numpy(qualname) or qualname.startswith("jax.")):
            self._array_call(node, qualname)
        elif qualname is not None and qualname.startswith("math."):
            for arg in node.args:
                self._require(arg.value, f"argument of `{qualname}`", VALUE_INSTEAD)
        elif isinstance(func, cst.Name):
            self._name_call(node, func.value, qualname)
        elif isinstance(func, cst.Attribute):
            if qualname is not None and not qualname.startswith(TRACEABLE_MODULES):
                self._block(node, "side-effect", f"calls `{qualname}` from another module, which np2jax cannot see into",
                            "jit the function by hand once its callees are traceable")
            else:
                self._method_call(node, func)

    def _masked_reduction(self, node: cst.Call, qualname: str | None) -> None:
        """``x[m].sum()``, ``np.mean(x[m])``, ``x[m].std(ddof=1)`` with ``m`` a boolean mask of ``x``'s shape: the same
        reduction of ``x`` ``where=m`` keeps every shape fixed (jax.jit refuses the mask index itself). Also of a
        name bound to such a selection (analysis/named_selections.py)."""
        found = self.masked_reduction_form(node, qualname)
        if found is not None:
            name, read, rows = found
            self.module.masked_reductions[node] = (name, read, rows)
            self.module.masked_reads.add(read)

    def masked_reduction_form(self, node: cst.Call, qualname: str | None,
                              selection: cst.Subscript | None = None) -> tuple[str, cst.BaseExpression, bool] | None:
        """(reduction, what it reads, over rows?) of a reduction ``_masked_reduction`` converts; ``selection``: the
        selection a name it reads stands for (None: look it up)."""
        func = node.func
        if isinstance(func, cst.Attribute) and qualname is None:
            name, read, rest = func.attr.value, func.value, list(node.args)
        elif qualname is not None and is_numpy(qualname) and qualname.count(".") == 1 and node.args and node.args[0].keyword is None:
            name, read, rest = qualname[len("numpy."):], node.args[0].value, list(node.args[1:])
        else:
            return None
        rows = _first_axis(rest)
        if rows:  # `X[labels == k].mean(axis=0)`: the rows a 1-D mask picks, reduced over
            rest = [arg for arg in rest if not _is_axis(arg, first=rest and arg is rest[0])]
        if name not in MASKED_REDUCTIONS or any(
                arg.star or arg.keyword is None or arg.keyword.value != "ddof" or name not in ("std", "var") for arg in rest):
            return None
        picked = read
        if isinstance(read, cst.Name):
            picked = selection if selection is not None else self.selection_alias(read)
        if not (isinstance(picked, cst.Subscript) and isinstance(picked.value, cst.Name) and len(picked.slice) == 1
                and isinstance(picked.slice[0].slice, cst.Index) and self._is_mask(picked.slice[0].slice.value)):
            return None
        same_shape = masked_reduction(picked, IndexClassifier(self.resolver, self.scope))
        if rows and same_shape:
            return None  # `x[x > 0].mean(axis=0)`: a 1-D selection, reduced whole (left as it is)
        return (name, read, rows) if rows or same_shape else None

    def _builtin_call(self, node: cst.Call, name: str) -> None:
        if name in SIDE_EFFECT_BUILTINS:
            self._block(node, "side-effect", f"`{name}()` runs once, at trace time, under jax.jit", "jax.debug.print for printing; move I/O out of the function")
        elif name in ITERATOR_BUILTINS:
            self._block(node, "side-effect", f"`{name}()` consumes a Python iterator, once, at trace time", "index the array or use jax.lax.scan")
        elif name in ("min", "max") and self._selection(node):
            self.module.selections.add(node)  # `jnp.where(b < a, b, a)`: what Python's min(a, b) picks
        elif name == "sum" and self._float_array_sum(node):
            self.module.array_sums.add(node)  # `jnp.sum(a, axis=0)`: no loop over the elements to unroll (real39 L1)
        elif name == "int" and self._position_cast(node):
            self.module.int_casts.add(node)  # `int(np.argmax(x))` -> `jnp.argmax(x)`: the same integer, as an array
        elif name in CONCRETE_BUILTINS:
            for arg in node.args:
                if node in self.traced_iterables and self._from_indices(arg.value):
                    continue  # range(j + 1, n) of a fori_loop in one over j: jax.lax.fori_loop takes traced bounds
                if name in PYTHON_RESULTS:  # round(jnp scalar) is an array, hash() refuses one
                    self._require_python(arg.value, f"argument of `{name}()`")
                else:
                    self._require(arg.value, f"argument of `{name}()`", VALUE_INSTEAD)
        elif name in TYPE_BUILTINS and node.args:
            if not self._parameter(node.args[0].value):  # (one checking its input is before any rebinding)
                self.python_values.append((node.args[0].value, self.scope))  # a JAX scalar is no `float`
            if self.tokens(node.args[0].value):
                self.type_checks.append((node, name))  # judged once the static parameters are known (FunctionTracing.run)

    def _parameter(self, node: cst.BaseExpression) -> bool:
        if not isinstance(node, cst.Name):
            return False
        found, _ = self.scope.lookup(node.value)
        return found is self.function_scope and node.value in self.params

    def _selection(self, node: cst.Call) -> bool:
        """``min(a, b)`` / ``max(a, b)`` (or of three) with an argument computed from arrays or a fori_loop index: Python compares
        the two (``b < a``) and returns one of them, which ``jnp.where(b < a, b, a)`` does for traced numbers too
        (ties and NaN included: the first argument unless the second compares smaller)."""
        if len(node.args) not in (2, 3) or any(arg.keyword is not None or arg.star for arg in node.args):
            return False  # (three: `min(a, b, c)` picks as `min(min(a, b), c)` does)
        if any(isinstance(arg.value, (cst.List, cst.Tuple, cst.ListComp, cst.GeneratorExp)) for arg in node.args):
            return False  # sequences compare lexicographically
        return any(t == ARRAY or t.startswith("<index:") for arg in node.args for t in self.tokens(arg.value))

    def _float_array_sum(self, node: cst.Call) -> bool:
        """Python's ``sum(a)`` of a float (or complex) array: it adds ``a``'s rows one by one, which jax.jit unrolls
        into one addition per element (filterpy's ``normalize``: 10 s to compile at 4,000 elements); ``jnp.sum(a,
        axis=0)`` adds the same rows in the same dtype (in another order: the last bits may differ). Not of integer
        arrays, which Python's sum adds in their own dtype (int8 wraps), and jnp.sum in a wider one."""
        if len(node.args) != 1 or node.args[0].keyword is not None or node.args[0].star:
            return False
        value = node.args[0].value
        if isinstance(value, (cst.List, cst.Tuple, cst.ListComp, cst.GeneratorExp, cst.SetComp, cst.Set)):
            return False
        if ARRAY not in self.tokens(value):
            return False
        return self._inexact(value, 0)

    def _inexact(self, value: cst.BaseExpression, depth: int) -> bool:
        """Certainly of a float or complex dtype: so known (dtype_sources.py), ``a / b``, or arithmetic with a side
        that is; a name rebound first thing (``pdf = np.asarray(pdf, dtype=float)``) by that value."""
        from np2jax.analysis.dtype_sources import dtype_source  # (dtype_sources imports much of analysis)
        from np2jax.analysis.narrow_dtypes import rebound_first
        from np2jax.analysis.value_kinds import ValueClassifier

        if depth > 6:
            return False
        if isinstance(value, (cst.Float, cst.Imaginary)):
            return True  # (`k * 2.0` of an int array is a float one)
        if isinstance(value, cst.BinaryOperation):
            if isinstance(value.operator, cst.Divide):
                return True
            return isinstance(value.operator, (cst.Add, cst.Subtract, cst.Multiply, cst.Power)) and (
                self._inexact(value.left, depth + 1) or self._inexact(value.right, depth + 1))
        if isinstance(value, cst.UnaryOperation) and isinstance(value.operator, (cst.Minus, cst.Plus)):
            return self._inexact(value.expression, depth + 1)
        if isinstance(value, cst.Name) and self.scope is self.function_scope:
            bindings = self.scope.bindings.get(value.value, ())
            values = [b for b in bindings if isinstance(b, ValueBinding) and not b.augmented]
            if (len(values) == 1 and len(bindings) == 2 and any(isinstance(b, ParamBinding) for b in bindings)
                    and rebound_first(self.function_scope.node, value.value)):
                return self._inexact(values[0].value, depth + 1)  # `pdf = np.asarray(pdf, dtype=float)` first
        source = dtype_source(value, self.scope, self.resolver, ValueClassifier(self.resolver))
        return source is not None and source[0] == "fixed" and source[1] in ("float", "float64", "complex")

    def _position_cast(self, node: cst.Call) -> bool:
        """``int(np.argmax(x))`` / ``int(x.argmin())`` (no axis): an integer position already; without the cast it
        stays a 0-d integer array, which indexes and computes the same (what then needs a Python int, a slice
        bound or a ``range``, is still reported)."""
        if len(node.args) != 1 or node.args[0].keyword is not None or node.args[0].star:
            return False
        inner = node.args[0].value
        if not isinstance(inner, cst.Call) or any(arg.keyword is not None or arg.star for arg in inner.args):
            return False
        func = inner.func
        if isinstance(func, cst.Attribute) and func.attr.value in ("argmax", "argmin") and not inner.args:
            return ARRAY in self.tokens(func.value) or bool(self.tokens(func.value))
        qualname = self.resolver.qualname(func, self.scope) or ""
        return is_numpy(qualname) and qualname.rsplit(".", 1)[-1] in ("argmax", "argmin") and len(inner.args) == 1

    def _from_indices(self, node: cst.BaseExpression) -> bool:
        """Computed from the indices of enclosing fori_loops and values that may be Python values: then only the
        names it reads that do not depend on an index must be (``n`` in ``range(j + 1, n)``)."""
        tokens = self.tokens(node)
        if ARRAY in tokens or not any(t.startswith("<index:") for t in tokens):
            return False
        for name in _value_names(node):
            if not any(t.startswith("<index:") for t in self.tokens(name)):
                self._require(name, "bound of a `range` in a loop over another index", VALUE_INSTEAD)
        return True

    def _array_call(self, node: cst.Call, qualname: str) -> None:
        name = qualname
        if is_numpy(qualname) and any(self._object_params(arg.value, 0) for arg in node.args):
            self.object_operands = True  # `np.array(d)` of `d = M1 - M2`, SymPy matrices (walker.py keeps it NumPy)
        if is_numpy(qualname):
            row = lookup_numpy(qualname)
            if row is None or (row.jax is None and qualname != "numpy.bincount"):
                return
            # np.bincount(x, minlength=K) becomes jnp.bincount(..., length=K) (NPJ102): K must be static
            name = "jax.numpy.bincount" if row.jax is None else row.jax + qualname[len(row.numpy):]
        if name in ALL_STATIC_FUNCTIONS:
            for arg in node.args:  # the dtype too: np.float32 and np.dtype objects are hashable, traced they raise
                what = "`dtype` of" if arg.keyword is not None and arg.keyword.value == "dtype" else "argument of"
                self._require(arg.value, f"{what} `{name.rsplit('.', 1)[-1]}`", STATIC_INSTEAD)
            return
        if name == "jax.numpy.choose" and _checks_indices(node) and node.args and not self.resolver.is_static(
                node.args[0].value, self.scope):
            self._block(node, "traced-value", "`np.choose` checks its indices (`mode='raise'`, NumPy's default), which "
                        "jax.numpy can only do with concrete ones, not under jax.jit",
                        "np.choose(a, choices, mode='clip') (or 'wrap') when every index is in range")
        signature = SIGNATURES.get(name)
        names = signature[1] if signature else ()
        for index, arg in enumerate(node.args):
            if arg.keyword is not None:
                param = arg.keyword.value
            elif arg.star:
                continue
            else:
                param = positional_parameter(names, index)
            if param == "bins" and self._edges_parameter(arg.value):
                self._mark_data(arg.value)  # `np.histogram(x, bins=edges)` with `edges=EDGES`: an array of edges
            elif param in STATIC_PARAMETERS and (name, param) not in ARRAY_PARAMETERS:
                self._require(arg.value, f"`{param}` of `{name.rsplit('.', 1)[-1]}`", STATIC_INSTEAD)
            else:
                self._mark_data(arg.value)

    def _edges_parameter(self, node: cst.BaseExpression) -> bool:
        """A parameter given as ``bins=`` that holds bin edges, not a count: named for edges (``edges``,
        ``bin_edges``), or defaulting to something other than an int or None (``edges=EDGES``, ``bins=[0, 1, 2]``).
        Made static, an array given there cannot be hashed (hunt29 L3)."""
        if not isinstance(node, cst.Name):
            return False
        found, bindings = self.scope.lookup(node.value)
        if found is not self.function_scope or len(bindings) != 1 or not isinstance(bindings[0], ParamBinding):
            return False
        default = bindings[0].param.default
        if default is None:
            return "edge" in node.value
        if isinstance(default, cst.UnaryOperation):
            default = default.expression
        return not isinstance(default, (cst.Integer, cst.SimpleString)) and not (
            isinstance(default, cst.Name) and (default.value == "None" or python_number_kind(default, self.scope, self.resolver) == "int"))

    def _local_alias(self, name: str) -> str | None:
        """The module function a local name is bound to, when every binding of it is one (``sin = math.sin``)."""
        found, bindings = self.scope.lookup(name)
        if found is not self.scope or not bindings or not all(
                isinstance(b, ValueBinding) and not b.augmented and isinstance(b.value, (cst.Attribute, cst.Name))
                for b in bindings):
            return None
        names = {self.resolver.qualname(b.value, self.scope) for b in bindings}
        return names.pop() if len(names) == 1 and None not in names else None

    def _name_call(self, node: cst.Call, name: str, qualname: str | None) -> None:
        found, bindings = self.scope.lookup(name)
        if found is self.function_scope and name in self.params:
            self._require(node.func, f"called function `{name}`")
            passed = self.module.passed_functions(self.node, name)
            blocked = next((f for f in passed if self.module.function_node(f) is not None
                            and (self.module.plan(f) is None or not self.module.plan(f).ok)), None)
            if blocked is not None:  # pymcdm: correlation_matrix(m, pearson), `pearson` has a traced `if`
                self._block(node, "side-effect", f"calls `{name}`, which a call in this module gives `{blocked}`, which "
                            "cannot be jitted", f"fix `{blocked}` first (see its own diagnostics)")
            return
        if found is None and self.module.star_imports:
            self._block(node, "side-effect", f"calls `{name}`, which a `from ... import *` brings from another module "
                        "np2jax cannot see into", "import it by name; jit the function by hand once its callees are traceable")
            return
        if found is not None and found.kind != "module" and bindings and all(isinstance(b, LoopBinding) for b in bindings):
            for binding in bindings:  # hunt38 L6: `for fn in fns: x = fn(x)`, `[f(x) for f in fns]`
                for element, scope in self._loop_elements(binding.iterable, binding.position, found, 0):
                    shown = self.module.module.code_for_node(element)
                    if isinstance(element, cst.Name) and element.value in self.params and scope is self.function_scope:
                        self._block(node, "side-effect", f"calls `{name}`, an element of `{shown}`: functions jax.jit "
                                    "can take neither as traced arguments nor, in a list, as static ones", "pass the "
                                    "functions as a tuple and jit by hand with that argument static, or leave it un-jitted")
                        return
                    qualname = self.resolver.qualname(element, scope) or ""
                    row = lookup_numpy(qualname) if is_numpy(qualname) else None
                    if qualname in CONCRETE_CLASSES or (row is not None and row.kind == "dtype"):  # `for t in (float, np.int64)`
                        self._block(node, "side-effect", f"calls `{name}`, which may be the builtin `{shown}`: it needs "
                                    "a concrete value, which jax.jit does not give", "convert outside the jitted function")
                        return
                    if self._numpy_function(element, scope):  # `for f in (np.mean, np.std)`: they stay NumPy's
                        # (as values, they may also be compared, hashed or returned: not rewritten)
                        self._block(node, "side-effect", f"calls `{name}`, which may be the NumPy function `{shown}`: "
                                    "called on traced arrays it raises", "name the jax.numpy function there")
                        return
            return
        decorated = self._decorated(bindings, found)
        if decorated is not None:  # real29: `@np.vectorize def square_abs(s)`, nested or at module level
            self._block(node, "side-effect", f"calls `{name}`, decorated with `@{decorated}`: np2jax does not know what "
                        "it does with traced arrays (`np.vectorize`, for one, converts them to NumPy arrays, which fails)",
                        "call the undecorated function, or a jax.numpy form of the decorator (`jnp.vectorize`)")
            return
        if found is None or found.kind not in ("module",):
            return  # a nested function or lambda of this function: traced with it
        if qualname is not None and not qualname.startswith(TRACEABLE_MODULES) and not qualname.startswith("."):
            if qualname.startswith("math."):
                return
            self._block(node, "side-effect", f"calls `{qualname}` from another module, which np2jax cannot see into",
                        "jit the function by hand once its callees are traceable")
            return
        if qualname is not None:
            if qualname.startswith("."):
                self._block(node, "side-effect", f"calls `{name}` from another module, which np2jax cannot see into",
                            "jit the function by hand once its callees are traceable")
            return
        callee = self.module.function_node(name)
        if callee is not None:
            plan = self.module.plan(name)
            if plan is None:
                self._block(node, "side-effect", f"calls `{name}` recursively", "write the recursion as a loop")
                return
            if not plan.ok:
                self._block(node, "side-effect", f"calls `{name}`, which cannot be jitted", "fix `" + name + "` first (see its own diagnostics)")
                return
            callee_positions = {index for index in plan.static_argnums}
            for index, arg in enumerate(node.args):
                if arg.star:
                    if callee_positions:
                        self._block(node, "traced-value", f"unpacks arguments into `{name}`, which has static arguments", "pass them one by one")
                    continue
                keyword = arg.keyword.value if arg.keyword is not None else None
                static = (keyword in plan.static) if keyword is not None else index in callee_positions
                if static:
                    self._require(arg.value, f"static argument of `{name}`", STATIC_INSTEAD)
            return
        classdef = self.module.class_node(name)
        if classdef is not None and not self._is_namedtuple(classdef):
            self._block(node, "side-effect", f"creates a `{name}` object: jax.jit can only return arrays and containers of arrays",
                        "return a tuple or a NamedTuple, or register the class as a pytree")
        elif classdef is None and any(not isinstance(b, (DefBinding, ImportBinding)) for b in bindings):
            self._block(node, "side-effect", f"calls `{name}`, a module-level value np2jax cannot see into", "pass the function as an argument")

    def _decorated(self, bindings, found) -> str | None:
        """The first decorator other than JAX's own (``jax.jit``, ``functools.partial(jax.jit, ...)``,
        ``jax.custom_jvp``, ``jax.checkpoint``: traceable) and ``typing.overload`` (a stub) of the function
        ``bindings`` define, when every binding is a ``def`` of one; None otherwise."""
        if found is None or not bindings or not all(isinstance(b, DefBinding) and isinstance(b.node, cst.FunctionDef)
                                                    for b in bindings):
            return None
        for binding in bindings:
            for decorator in binding.node.decorators:
                expr = decorator.decorator
                target = expr.args[0].value if (isinstance(expr, cst.Call) and expr.args and self.resolver.qualname(
                    expr.func, found) == "functools.partial") else expr.func if isinstance(expr, cst.Call) else expr
                qualname = self.resolver.qualname(target, found) or ""
                if not qualname.startswith("jax.") and qualname not in TRANSPARENT_DECORATORS:
                    return self.module.module.code_for_node(expr).strip()
        return None

    def _unjittable_function(self, node: cst.BaseExpression) -> bool:
        """``node`` names a function of this module that cannot be jitted (its own blockers, or recursion)."""
        if not isinstance(node, cst.Name):
            return False
        found, _ = self.scope.lookup(node.value)
        if found is not self.module.module_scope or self.module.function_node(node.value) is None:
            return False
        plan = self.module.plan(node.value)
        return plan is not None and not plan.ok

    def _loop_elements(self, iterable: cst.BaseExpression, position: tuple, scope, depth: int):
        """(element, scope) for what a loop target at ``position`` may take from ``iterable``, as far as it can be
        followed: the elements of a tuple or list display (through `zip`, `enumerate`, `reversed`, `list`, `tuple`,
        `sorted` and names bound to displays, module-level ones too, which stay NumPy code), or the parameter it
        comes from (``fns``)."""
        if depth > 4:
            return
        if isinstance(iterable, (cst.Tuple, cst.List)) and not position:
            for element in iterable.elements:
                if isinstance(element, cst.StarredElement):
                    yield from self._loop_elements(element.value, (), scope, depth + 1)
                else:
                    yield element.value, scope
            return
        if isinstance(iterable, cst.Name):
            found, bindings = scope.lookup(iterable.value)
            if found is None:
                return
            if any(isinstance(b, ParamBinding) for b in bindings):
                yield iterable, found  # (a parameter: the caller's functions)
            for binding in bindings:
                if isinstance(binding, ValueBinding) and not binding.augmented:
                    yield from self._loop_elements(binding.value, position, found, depth + 1)
            return
        if isinstance(iterable, cst.Call) and iterable.args and not any(a.star or a.keyword for a in iterable.args):
            qualname = self.resolver.qualname(iterable.func, scope)
            args = [a.value for a in iterable.args]
            if qualname == "builtins.zip" and position and position[0] < len(args):
                yield from self._loop_elements(args[position[0]], position[1:], scope, depth + 1)
            elif qualname == "builtins.enumerate" and position and position[0] == 1:
                yield from self._loop_elements(args[0], position[1:], scope, depth + 1)
            elif qualname in ("builtins.reversed", "builtins.list", "builtins.tuple", "builtins.sorted") and len(args) == 1:
                yield from self._loop_elements(args[0], position, scope, depth + 1)

    def _is_namedtuple(self, node: cst.ClassDef) -> bool:
        for base in node.bases:
            qualname = self.resolver.qualname(base.value, self.module.module_scope)
            if qualname in NAMEDTUPLE_BASES or (isinstance(base.value, cst.Name) and base.value.value == "NamedTuple"):
                return True
        return False

    def _method_call(self, node: cst.Call, func: cst.Attribute) -> None:
        method = func.attr.value
        base = func.value
        if (method in CONSTANT_METHODS and self.module.numpy_constant(base, self.scope)
                and any(self.tokens(arg.value) for arg in node.args)):
            self.module.constant_methods.add(node)  # `K.dot(x)` of a module NumPy array: `jnp.asarray(K).dot(x)`
        if method in ("item", "tolist", "tobytes", "tofile", "dump", "dumps"):  # Python values of the data
            self._require(base, f"`.{method}()`", VALUE_INSTEAD)
            return
        if method == "nonzero" and not node.args and self.tokens(base):  # as `np.nonzero(x)` is (NPJ102)
            self._block(node, "traced-value", "`.nonzero()` of traced values: the result's shape depends on the data",
                        "jnp.nonzero(x, size=n, fill_value=...) with a static size; jnp.where(mask, x, neutral)")
            return
        if method in ("add", "discard") and node.args and self._is_python_container(base, (cst.Set, cst.SetComp), "set"):
            self._require_python(node.args[0].value, "set member")  # hashed: a JAX array is not hashable
        if method in ARRAY_METHODS:
            self._mark_data(base)
        if method in MUTATING_METHODS and isinstance(base, cst.Name):
            found, _ = self.scope.lookup(base.value)
            if found is not None and (found.kind == "module" or (found is self.function_scope and base.value in self.params)):
                self.handled_names.add(base)
                if method not in ("sort", "fill", "put", "resize"):  # array methods: the in-place rules handle these
                    self._block(node, "side-effect", f"`.{method}()` changes `{base.value}`, which outlives the call; jax.jit runs it once, at trace time",
                                "build a new value and return it")
        positions = METHOD_STATIC_POSITIONS.get(method, ())
        for index, arg in enumerate(node.args):
            if arg.keyword is not None:
                if arg.keyword.value in STATIC_PARAMETERS:
                    self._require(arg.value, f"`{arg.keyword.value}` of `.{method}()`", STATIC_INSTEAD)
            elif positions is None or index in positions:
                if method in METHOD_STATIC_POSITIONS:
                    self._require(arg.value, f"argument of `.{method}()`", STATIC_INSTEAD)


def _checks_indices(call: cst.Call) -> bool:
    """``np.choose(a, c)`` without ``mode=`` (or with ``mode="raise"``): it raises for an index out of range."""
    positional = [arg for arg in call.args if arg.keyword is None and not arg.star]
    mode = next((arg.value for arg in call.args if arg.keyword is not None and arg.keyword.value == "mode"),
                positional[3].value if len(positional) > 3 else None)
    return mode is None or (isinstance(mode, cst.SimpleString) and mode.evaluated_value == "raise")
