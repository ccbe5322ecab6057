"""The tracing analysis of one function: one pass over its body (see analysis/tracing.py).

``FunctionTracing`` collects *requirements* (an expression Python needs a concrete
value for, with its tokens: analysis/traced_tokens.py), array evidence (parameters
used as array data) and blockers, then decides which parameters become static.
Its visitors are split by concern: here the places where values must be concrete
(tests, slice bounds, masks, formatting); calls in call_checks.py; ``for`` loops in
for_loops.py; statements with side effects in side_effects.py.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

import libcst as cst

from np2jax.analysis.branches import if_chain
from np2jax.analysis.call_checks import CallChecks
from np2jax.analysis.conditionals import ConditionalDecisions, Conversion
from np2jax.analysis.for_loops import ForLoops
from np2jax.analysis.indexing import IndexClassifier
from np2jax.analysis.jit_plan import Blocker, JitPlan, LoopConversion, WhileConversion
from np2jax.analysis.list_operands import array_list_operands
from np2jax.analysis.loops import assigned_before, descendants
from np2jax.analysis.param_hints import hint_names, int_like, literal_default
from np2jax.analysis.list_params import used_like_string
from np2jax.analysis.named_selections import NamedSelections
from np2jax.analysis.param_kinds import UNHASHABLE_HINTS, top_hints, unhashable_params
from np2jax.analysis.prefix_masks import PrefixMasks
from np2jax.analysis.resolve import is_numpy, is_shape_name
from np2jax.analysis.scope import SCOPE_NODES, LoopBinding, ParamBinding, Scope, ValueBinding
from np2jax.analysis.side_effects import SideEffectChecks
from np2jax.analysis.slice_windows import SliceWindows
from np2jax.analysis.traced_tokens import TracedTokens
from np2jax.analysis.tracing_tables import (
    ARRAY,
    ARRAY_ATTRIBUTES,
    ARRAY_HINTS,
    ARRAY_MEMBERS,
    BRANCH_INSTEAD,
    MASK_FUNCTIONS,
    MASK_JOINERS,
    PYTHON_VALUE_MEMBERS,
    SCALAR_HINTS,
    STATIC_INSTEAD,
    STRING_LITERALS,
    VALUE_INSTEAD,
    WHILE_INSTEAD,
)
from np2jax.analysis.while_loops import WhileLoops
from np2jax.analysis.mask_writes import masked_leaves
from np2jax.analysis.writes import becomes_where

PYTHON_SEQUENCE_BUILTINS = frozenset({"builtins.list", "builtins.tuple", "builtins.sorted"})
from np2jax.tables import lookup_numpy
from np2jax.cstutil import bool_identity_operands
from np2jax.visitors import FastVisitor, visit

if TYPE_CHECKING:
    from np2jax.analysis.tracing import ModuleTracing


# Requirements that only convert a value (`int(value * 3600 + 0.5)`), unlike sizes, slice bounds and tests
CONVERSIONS = ("argument of `int()`", "argument of `float()`", "argument of `round()`")


class FunctionTracing(TracedTokens, ForLoops, WhileLoops, SliceWindows, PrefixMasks, CallChecks, SideEffectChecks, NamedSelections,
                      FastVisitor):
    """One pass over a function body, collecting static requirements, array evidence and blockers."""

    def __init__(self, module: ModuleTracing, node: cst.FunctionDef) -> None:
        super().__init__()
        self.module = module
        self.resolver = module.resolver
        self.node = node
        self.function_scope = self.resolver.scopes[node]
        self.scope_stack = [self.function_scope]
        self.params: dict[str, cst.Param] = {}
        self.positions: dict[str, int] = {}
        self.kwonly: set[str] = set()
        self.variadic: set[str] = set()
        params = node.params
        for index, param in enumerate([*params.posonly_params, *params.params]):
            self.params[param.name.value] = param
            self.positions[param.name.value] = index
        for param in params.kwonly_params:
            self.params[param.name.value] = param
            self.kwonly.add(param.name.value)
        for star in (params.star_arg, params.star_kwarg):
            if isinstance(star, cst.Param):
                self.params[star.name.value] = star
                self.variadic.add(star.name.value)
        self.data_uses: set[str] = set()  # parameters used as array data
        # parameters that hold an array or a container, with the evidence (analysis/param_kinds.py)
        self.unhashable = unhashable_params(node, self.params, self.resolver)
        self.never_static = frozenset(name for name in self.params if self._declared(name) is False)
        self.called_attributes: set[cst.Attribute] = set()  # `d.simplify` in `d.simplify()` (call_checks.py)
        self.iterated: set[str] = set()  # parameters a `for` loop iterates over (arrays or lists: unhashable)
        self.requirements: list[tuple[cst.CSTNode, str, frozenset[str], str, str]] = []  # (node, what, tokens, use_instead, note)
        # values Python uses where a JAX scalar is no stand-in for a Python number even eagerly (a repetition count,
        # a hashed key, round()'s argument, a type check), with their scopes (analysis/eager_values.py)
        self.python_values: list[tuple[cst.BaseExpression, Scope]] = []
        self.type_checks: list[tuple[cst.Call, str]] = []  # `isinstance(x, float)`, `hasattr(x, ...)` of a non-constant
        self.blockers: list[Blocker] = []
        self.object_operands = False  # a NumPy call takes a value computed from parameters holding Python objects
        self.returns: list[cst.BaseExpression] = []
        self._tokens: dict[tuple[int, int], frozenset[str]] = {}
        self._cut: set[tuple[int, int]] = set()  # values being computed that a cycle met again (traced_tokens.py)
        self._tainted: list[tuple[int, int]] = []  # values computed while some of those were unknown
        self.while_loops: list[cst.While] = []
        self.loops: dict[cst.For, LoopConversion] = {}
        self.whiles: dict[cst.While | cst.For, WhileConversion] = {}  # loops that become jax.lax.while_loop
        self.traced_iterables: dict[cst.BaseExpression, str] = {}  # iterable of a converted loop -> its index token
        self.carried: set[str] = set()  # names carried through a fori_loop: traced from the loop on
        self.store_targets: set[cst.CSTNode] = set()
        self.handled_names: set[cst.Name] = set()
        self.decisions = ConditionalDecisions(self.resolver, self.function_scope, node.body, self._traced, self._callee_ok,
                                              lambda name, at: name in self.params or name in assigned_before(node.body, at),
                                              module.rebinds)
        self.conditionals: dict[cst.CSTNode, Conversion] = {}
        self.converted_logic: set[cst.CSTNode] = set()  # and/or/not/chains of converted tests: no Python truth value needed
        self._init_windows()
        self._init_prefixes()

    # --- driver --------------------------------------------------------------------
    def run(self) -> JitPlan:
        pooled = self.module.pooled_call(self.node.name.value) if self.function_scope.parent is self.module.module_scope else None
        if pooled is not None:
            shown = self.module.module.code_for_node(pooled.func)
            self._block(self.node.name, "side-effect", f"handed to `{shown}` of a process pool or process, which pickles "
                        "it by name: under that name the module would hold the jax.jit wrapper (PicklingError)",
                        "jit a helper the worker calls, and keep the worker itself a plain function")
        visit(self.node.body, self)
        plan = JitPlan()
        static: set[str] = set()
        sized = {name for _, what, tokens, _, _ in self.requirements if not what.startswith(CONVERSIONS) for name in tokens}
        for node, what, tokens, use_instead, note in self.requirements:
            indices = sorted(t for t in tokens if t.startswith("<index:"))
            if indices:
                loop_index = indices[0][len("<index:"):-1]
                lax_loop = "while_loop" if any(loop_index in (c.index, *c.carried) for c in self.whiles.values()) else "fori_loop"
                self._block(node, "loop", f"{what} uses `{loop_index}`, which jax.lax.{lax_loop} makes a traced value{note}",
                            "jax.lax.dynamic_slice for slices at the index; jax.lax.cond or jnp.where instead of `if` on it")
                continue
            if ARRAY in tokens:
                self._block(node, "traced-value", f"{what} depends on traced array values{note}", use_instead)
                continue
            for name in sorted(tokens):
                if name in self.variadic:
                    self._block(node, "traced-value", f"{what} depends on `*{name}`", "pass it as a separate argument")
                elif what.startswith(CONVERSIONS) and name not in sized and self._declared(name) is None and self._float_datum(name):
                    self._block(node, "traced-value", f"{what} depends on `{name}`, which meets float arithmetic: as a "
                                "static argument, jax.jit would compile the function again for every value (and refuse an array)",
                                use_instead)
                elif self._may_be_static(name):
                    static.add(name)
                else:
                    evidence = f" ({self.unhashable[name]}: jax.jit cannot keep it static)" if name in self.never_static else ""
                    self._block(node, "traced-value", f"{what} depends on the values of array argument `{name}`{evidence}{note}",
                                use_instead)
        for name, param in self.params.items():
            # A Python int stays a Python int (arbitrary precision); traced it would be an int32 that can overflow.
            # A string cannot be traced at all.
            if name in self.variadic or name in self.data_uses or name in self.never_static:
                continue
            if int_like(param) or _string_like(param, self.module.module_scope) or self._dtype_like(name, param):
                static.add(name)
        for name, param in self.params.items():
            if (name not in static and name not in self.variadic and param.annotation is None and param.default is None
                    and used_like_string(self.node.body, name, self.resolver, self.function_scope)):
                self._block(self.node.name, "traced-value", f"`{name}` may be a str: the function only takes its length "
                            "and compares its elements (`a[i] == b[j]`), and jax.jit cannot take strings",
                            "annotate it (`a: np.ndarray`) when it is an array; strings stay in un-jitted code")
        for name in static:
            default = self.params[name].default
            if default is not None and self._numpy_function(default, self.module.module_scope):
                self._block(default, "side-effect", f"the default of `{name}` is a NumPy function, which cannot take traced arrays",
                            "use the jax.numpy function as the default")
        for call, name in self.type_checks:
            # jax.jit hands the function tracers: `isinstance(value, float)`, `hasattr(value, "__len__")` would
            # answer for the tracer, not for the float, list or array the caller passed (unless it stays static)
            if self.tokens(call.args[0].value) - static:
                shown = self.module.module.code_for_node(call.args[0].value)
                self._block(call, "traced-value", f"`{name}()` looks at the Python type of `{shown}`, which jax.jit "
                            "replaces by a tracer (a float, a list or an array all arrive as one)",
                            "check types before calling the jitted function, or leave it un-jitted")
        blocked = {b.node for b in self.blockers}
        for loop in self.while_loops:
            if loop.test not in blocked:  # a traced test is reported as such, with the while_loop advice
                self._block(loop, "loop", "`while` loop: jax.jit would unroll it, one copy per iteration", WHILE_INSTEAD)
        plan.blockers = self.blockers if self.object_operands else [
            dataclasses.replace(b, objects=False) if b.objects else b for b in self.blockers]
        plan.python_values = self.python_values
        plan.loops = self.loops
        plan.whiles = self.whiles
        plan.conditionals = self.conditionals
        plan.windows = self.windows
        plan.prefixes = self.prefixes
        plan.static = [name for name in self.params if name in static]
        plan.static_argnums = tuple(self.positions[name] for name in plan.static if name in self.positions)
        plan.static_argnames = tuple(name for name in plan.static if name in self.kwonly)
        plan.returns_array = any(self.tokens(value) - static for value in self.returns)
        return plan


    def _dtype_like(self, name: str, param: cst.Param) -> bool:
        """``dtype=None`` / ``dtype=np.float32``: a dtype (a type object, which jax.jit cannot trace), kept static
        even where the function never reads it (pyrr's ``create_xy(..., dtype=None)``)."""
        if name not in ("dtype", "out_dtype"):
            qualname = self.resolver.qualname(param.default, self.module.module_scope) if param.default is not None else None
            row = lookup_numpy(qualname) if is_numpy(qualname) else None
            return row is not None and row.kind == "dtype"
        default = param.default
        return default is None or (isinstance(default, cst.Name) and default.value == "None") or (
            is_numpy(self.resolver.qualname(default, self.module.module_scope)))
    def _float_datum(self, name: str) -> bool:
        """``value`` in ``power * 3600 * value + 0.5`` or ``value / 20``: a float measurement rather than a count or
        a switch, whichever way it reaches a Python value (``int(...)``)."""
        def operand(side: cst.BaseExpression) -> bool:
            return isinstance(side, cst.Name) and side.value == name

        def floats(node: cst.BinaryOperation) -> bool:
            return isinstance(node.operator, cst.Divide) or any(
                isinstance(side, cst.Float) or (isinstance(side, cst.BinaryOperation) and floats(side))
                for side in (node.left, node.right))

        def chain(node: cst.CSTNode) -> bool:  # the operand is somewhere in a chain of arithmetic with a float
            return operand(node) or (isinstance(node, cst.BinaryOperation) and (chain(node.left) or chain(node.right)))

        return any(isinstance(node, cst.BinaryOperation) and floats(node) and chain(node)
                   for node in descendants(self.node.body))

    def _may_be_static(self, name: str) -> bool:
        declared = self._declared(name)
        if declared is not None:
            return declared
        return name not in self.data_uses and name not in self.iterated

    def _declared(self, name: str) -> bool | None:
        """What the signature, the docstring and the container uses say: never static (an array, a list, a dict:
        unhashable), may be static (a Python value), or nothing (None: then the uses as array data decide)."""
        param = self.params[name]
        top = top_hints(param.annotation)
        if "Callable" in top:
            return True
        if top & UNHASHABLE_HINTS or hint_names(param.annotation) & ARRAY_HINTS:
            return False
        if top & (SCALAR_HINTS | {"Tuple"}):
            return True
        evidence = self.unhashable.get(name)
        if evidence is not None and evidence.startswith("documented"):
            return False
        if is_shape_name(name) or literal_default(param.default):
            return True
        return False if evidence is not None else None

    def _block(self, node: cst.CSTNode, kind: str, message: str, use_instead: str, objects: bool = False) -> None:
        if all(b.node is not node for b in self.blockers):
            self.blockers.append(Blocker(node, kind, message, use_instead, objects))

    def _require(self, node: cst.BaseExpression, what: str, use_instead: str = BRANCH_INSTEAD, note: str = "") -> None:
        """``node`` must be concrete under jax.jit.  Un-jitted, Python uses it as a Python value too (an ``if``
        test, ``float(...)``, a size): the NumPy calls computing it stay NumPy (analysis/eager_values.py), which
        runs what the original ran instead of a JAX computation Python then waits for."""
        self.requirements.append((node, what, self.tokens(node), use_instead, note))
        self.python_values.append((node, self.scope))

    def _require_python(self, node: cst.BaseExpression, what: str, use_instead: str = VALUE_INSTEAD) -> None:
        """``node`` must be a Python value even outside jax.jit (a JAX scalar is unhashable, repeats no list)."""
        self._require(node, what, use_instead)

    def _traced(self, node: cst.BaseExpression) -> bool:
        """Depends on array data, a fori_loop index or a parameter that can never be static (other parameters
        may still become static)."""
        return any(t == ARRAY or t.startswith("<index:") or t in self.never_static for t in self.tokens(node, self.function_scope))

    def _callee_ok(self, name: str) -> bool:
        if self.module.function_node(name) is None:
            return False
        plan = self.module.plan(name)
        return plan is not None and plan.ok

    @property
    def scope(self) -> Scope:
        return self.scope_stack[-1]

    CUSTOM_DISPATCH = SCOPE_NODES | {cst.Call, cst.BinaryOperation}  # on_visit / on_leave only call hooks for the rest

    def on_visit(self, node: cst.CSTNode) -> bool:
        kind = type(node)
        scope = self.resolver.scopes.get(node) if kind in SCOPE_NODES else None  # (only those have scopes)
        if scope is not None:
            self.scope_stack.append(scope)
        if kind is cst.Call or kind is cst.BinaryOperation:
            self.note_reduction(node)  # before its operands are visited (analysis/prefix_masks.py)
        return super().on_visit(node)

    def on_leave(self, original: cst.CSTNode) -> None:
        super().on_leave(original)
        if type(original) in SCOPE_NODES and original in self.resolver.scopes:
            self.scope_stack.pop()

    # --- array evidence ------------------------------------------------------------
    def _numpy_function(self, node: cst.BaseExpression, scope: Scope) -> bool:
        if not isinstance(node, (cst.Name, cst.Attribute)):
            return False
        qualname = self.resolver.qualname(node, scope)
        if not is_numpy(qualname):
            return False
        row = lookup_numpy(qualname)
        return row is None or row.kind not in ("dtype", "static", "type", "constant")

    def _mark_data(self, node: cst.BaseExpression) -> None:
        """``node`` is used as array data: parameters it is directly are array arguments."""
        if isinstance(node, cst.Name):
            found, _ = self.scope.lookup(node.value)
            if found is self.function_scope and node.value in self.params:
                self.data_uses.add(node.value)

    # --- visitors: where values must be concrete ------------------------------------
    def visit_If(self, node: cst.If) -> None:
        if node in self.converted_logic:
            return  # an elif of a converted chain
        decision = self._decision(node)
        if isinstance(decision, Conversion):
            self.conditionals[node] = decision
            orelse = node.orelse
            while isinstance(orelse, cst.If):
                self.converted_logic.add(orelse)
                orelse = orelse.orelse
            for test, truth in zip(if_chain(node)[0], decision.truths):
                self._convert_test(test, truth, "`if` test")
            return
        self._require(node.test, "`if` test", note=_not_converted(decision))

    def visit_IfExp(self, node: cst.IfExp) -> None:
        decision = self._decision(node)
        if isinstance(decision, Conversion):
            self.conditionals[node] = decision
            self._convert_test(node.test, decision.truths[0], "conditional expression test")
            return
        self._require(node.test, "conditional expression test", note=_not_converted(decision))

    def _decision(self, node: cst.If | cst.IfExp) -> Conversion | str | None:
        if self.scope is not self.function_scope:
            return None  # in a nested function or lambda: jitted only as part of this one, as written
        if not self.module.convert_conditionals:
            return "NPJ306 is not enabled"
        return self.decisions.decide(node)

    def _convert_test(self, test: cst.BaseExpression, truth, what: str) -> None:
        """A test that becomes jax.lax.cond's predicate: only the parts Python still evaluates must be static."""
        for leaf in self.decisions.static_leaves(test, truth):
            self._require(leaf, what)
        self.converted_logic.update(self.decisions.logic_nodes(test, truth))

    def visit_Assert(self, node: cst.Assert) -> None:
        self._require(node.test, "`assert`")

    def visit_BooleanOperation(self, node: cst.BooleanOperation) -> None:
        if node in self.converted_logic:
            return
        self._require(node.left, "`and`/`or` operand")
        self._require(node.right, "`and`/`or` operand")

    def visit_UnaryOperation(self, node: cst.UnaryOperation) -> None:
        if isinstance(node.operator, cst.Not) and node not in self.converted_logic:
            self._require(node.expression, "`not` operand")

    def visit_Comparison(self, node: cst.Comparison) -> None:
        if len(node.comparisons) > 1 and node not in self.converted_logic:
            self._require(node, "chained comparison")
        for value in bool_identity_operands(node):
            # `np.array_equal(a, b) is True`: NumPy's Python bool is True; a JAX bool array is not
            self._require_python(value, "operand of an identity test with `True`/`False`")

    def visit_Subscript(self, node: cst.Subscript) -> None:
        if node not in self.store_targets and self.module.numpy_constant(node.value, self.scope) and any(
                self.tokens(element.slice.value) for element in node.slice if isinstance(element.slice, cst.Index)):
            self.module.constant_reads.add(node)  # `COMPLEMENT[seq]`: `jnp.asarray(COMPLEMENT)[seq]` (walker.py)
        counted = self.counted_mask(node)
        if counted is not None:  # `X[m].shape[0]`: the count of `m` (walker.py)
            self.module.mask_counts[node] = counted[1]
            self.module.masked_reads.add(counted[0])
        if node not in self.store_targets and node not in self.module.masked_reads:
            for element in node.slice:
                index = element.slice
                if isinstance(index, cst.Index) and self._is_mask(index.value):
                    self._block(node, "traced-value", MASK_INDEX,
                                "jnp.where(mask, x, 0).sum() / jnp.sum(mask) for reductions; keep shapes fixed")
        if (self.resolver.table_kind(node.value, self.scope) or "").endswith(" changed"):
            shown = self.module.module.code_for_node(node.value)
            self._block(node, "side-effect", f"reads `{shown}`, a table another module changes; jax.jit would keep the "
                        "values it saw when tracing", "pass it (or the values it holds) as an argument")
        base_is_list = self._is_python_sequence(node.value)
        multi = len(node.slice) > 1
        windows = set() if node in self.store_targets else self.slice_windows(node) | self.prefix_positions(node)
        for position, element in enumerate(node.slice):
            index = element.slice
            if position in windows:
                continue  # a window or a summed prefix at a fori_loop index (analysis/slice_windows.py, prefix_masks.py)
            if isinstance(index, cst.Slice):
                for part in (index.lower, index.upper, index.step):
                    if part is not None:
                        self._require(part, "slice bound", VALUE_INSTEAD)
            elif base_is_list:
                self._require(index.value, "index into a Python list", VALUE_INSTEAD)
            elif self._is_python_container(node.value, (cst.Dict, cst.DictComp), "dict"):
                self._require_python(index.value, "dict key")  # hashed: a JAX array is not hashable
        if multi or any(isinstance(e.slice, cst.Index) and isinstance(e.slice.value, (cst.Ellipsis,)) for e in node.slice):
            self._mark_data(node.value)

    def _is_mask(self, node: cst.BaseExpression, seen: frozenset[str] = frozenset()) -> bool:
        """A traced boolean array used as an index (a comparison, ``~m``, ``&``/``|`` of those, or a name bound to one).
        ``seen``: the names being looked through (``m = m & (x < 5)`` refers to itself)."""
        if isinstance(node, cst.Comparison):
            if all(isinstance(c.operator, (cst.Is, cst.IsNot, cst.In, cst.NotIn)) for c in node.comparisons):
                return False
            return bool(self.tokens(node))
        if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.BitInvert):
            # `~flag` of a traced value that is not an integer: most likely a boolean
            return self._is_mask(node.expression, seen) or (bool(self.tokens(node.expression))
                                                      and not IndexClassifier(self.resolver, self.scope).is_int(node.expression))
        if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, (cst.BitAnd, cst.BitOr, cst.BitXor)):
            return self._is_mask(node.left, seen) or self._is_mask(node.right, seen)
        if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, (cst.Add, cst.Multiply)):
            return self._is_mask(node.left, seen) and self._is_mask(node.right, seen)  # bool + bool: `or`; * : `and`
        if isinstance(node, cst.Call):
            if isinstance(node.func, cst.Attribute) and node.func.attr.value in ("all", "any") and self.tokens(node.func.value):
                return True  # `(d < r).all(axis=1)`
            if isinstance(node.func, cst.Attribute) and node.func.attr.value == "astype" and len(node.args) >= 1 and (
                    self._bool_dtype(node.args[0].value)) and self.tokens(node.func.value):
                return True  # `win[se.astype(bool)]` (hunt52 L1)
            qualname = self.resolver.qualname(node.func, self.scope) or ""
            short = qualname.rsplit(".", 1)[-1]
            if (is_numpy(qualname) or qualname.startswith("jax.numpy")) and short in ("asarray", "array") and any(
                    arg.keyword is not None and arg.keyword.value == "dtype" and self._bool_dtype(arg.value)
                    for arg in node.args) and self.tokens(node):
                return True  # `x[np.asarray(m, dtype=bool)]`
            if (is_numpy(qualname) or qualname.startswith("jax.numpy")) and short in MASK_JOINERS:
                return self._joins_masks(node, short, seen)
            return (is_numpy(qualname) or qualname.startswith("jax.numpy")) and short in MASK_FUNCTIONS and bool(self.tokens(node))
        if isinstance(node, cst.Name):
            if node.value in seen:
                return False  # its other bindings decide
            found, bindings = self.scope.lookup(node.value)
            if found is self.function_scope and node.value in self.params and _mask_like(node.value, self.params[node.value]):
                return True  # `def masked_error(P, R, mask): return ((P - R)[mask] ** 2).sum()`
            return found is not None and found.kind == "function" and bool(bindings) and all(
                isinstance(b, ValueBinding) and (not b.augmented or b.operator in MASK_UPDATES)
                and (self._is_mask(b.value, seen | {node.value}) or (not b.augmented and self._made_boolean(b.value, seen | {node.value})))
                for b in bindings)
        return False

    def _bool_dtype(self, node: cst.BaseExpression) -> bool:
        """``bool``, ``np.bool_``, ``"bool"``."""
        if isinstance(node, cst.SimpleString):
            return node.evaluated_value in ("bool", "?")
        return (self.resolver.qualname(node, self.scope) or "") in ("builtins.bool", "numpy.bool_", "numpy.bool",
                                                                    "jax.numpy.bool_", "jax.numpy.bool")

    def _made_boolean(self, node: cst.BaseExpression, seen: frozenset[str]) -> bool:
        """``np.zeros(n, dtype=bool)``, ``np.full(n, False)``, ``m.copy()`` / ``np.zeros_like(m)`` of a mask: a
        boolean array made to be filled (``seen = np.zeros(n, dtype=bool); seen[src] = True``)."""
        if not isinstance(node, cst.Call):
            return False
        func = node.func
        if isinstance(func, cst.Attribute) and func.attr.value == "copy" and not node.args:
            return not self._parameter(func.value) and self._is_mask(func.value, seen)  # (`mask` may hold positions)
        if (isinstance(func, cst.Attribute) and func.attr.value == "set" and len(node.args) == 1
                and isinstance(func.value, cst.Subscript) and isinstance(func.value.value, cst.Attribute)
                and func.value.value.attr.value == "at" and isinstance(func.value.value.value, cst.Name)
                and func.value.value.value.value in seen):  # `m = m.at[idx].set(True)`: what `m[idx] = True` became
            value = node.args[0].value
            return (isinstance(value, cst.Name) and value.value in ("True", "False")) or self._is_mask(value, seen)
        qualname = self.resolver.qualname(func, self.scope) or ""
        module, _, short = qualname.rpartition(".")
        if module not in ("numpy", "jax.numpy"):  # (jnp too: a second pass over the output must decide the same)
            return False
        keywords = {arg.keyword.value: arg.value for arg in node.args if arg.keyword is not None}
        positional = [arg.value for arg in node.args if arg.keyword is None and not arg.star]
        dtype = keywords.get("dtype")
        if dtype is None and short in ("zeros", "ones", "empty") and len(positional) >= 2:
            dtype = positional[1]
        if dtype is not None:
            return (isinstance(dtype, cst.Name) and dtype.value == "bool"
                    or self.resolver.qualname(dtype, self.scope) in ("numpy.bool_", "numpy.bool", "builtins.bool"))
        if short == "full" and len(positional) >= 2:
            return isinstance(positional[1], cst.Name) and positional[1].value in ("True", "False")
        if short in ("copy", "array", "asarray", "zeros_like", "ones_like", "empty_like") and positional:
            return not self._parameter(positional[0]) and self._is_mask(positional[0], seen)
        return False

    def counted_mask(self, node: cst.BaseExpression) -> tuple[cst.Subscript, cst.BaseExpression] | None:
        """``len(X[m])`` or ``X[m].shape[0]`` with ``m`` certainly a boolean array (a comparison, ``np.isnan(x)``,
        ``&``/``|``/``~`` of those, a name bound only to one): (the selection, ``m``). It is the number of
        ``True`` in ``m``, as ``jnp.count_nonzero(m)`` counts it, whether ``m`` picks rows or elements."""
        if isinstance(node, cst.Call):
            if self.resolver.qualname(node.func, self.scope) != "builtins.len" or len(node.args) != 1 or node.args[0].keyword or node.args[0].star:
                return None
            selection = node.args[0].value
        elif (isinstance(node, cst.Subscript) and isinstance(node.value, cst.Attribute) and node.value.attr.value == "shape"
              and len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Index)
              and isinstance(node.slice[0].slice.value, cst.Integer) and node.slice[0].slice.value.value == "0"):
            selection = node.value.value
        else:
            return None
        if isinstance(selection, cst.Name):  # `len(members)` of `members = X[m]` (analysis/named_selections.py)
            selection = self.selection_alias(selection)
        if not (isinstance(selection, cst.Subscript) and isinstance(selection.value, cst.Name) and len(selection.slice) == 1
                and isinstance(selection.slice[0].slice, cst.Index)):
            return None
        mask = selection.slice[0].slice.value
        return (selection, mask) if self._certain_mask(mask) else None

    def _certain_mask(self, node: cst.BaseExpression, seen: frozenset[str] = frozenset()) -> bool:
        """A traced boolean array beyond doubt (``_is_mask`` also takes ``~flag`` of an unknown value and
        parameters named like masks, which might hold integer positions)."""
        if isinstance(node, cst.Comparison):
            return not any(isinstance(c.operator, (cst.Is, cst.IsNot, cst.In, cst.NotIn)) for c in node.comparisons) and bool(self.tokens(node))
        if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.BitInvert):
            return self._certain_mask(node.expression, seen)
        if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, (cst.BitAnd, cst.BitOr, cst.BitXor)):
            return self._certain_mask(node.left, seen) and self._certain_mask(node.right, seen)
        if isinstance(node, cst.Call):
            qualname = self.resolver.qualname(node.func, self.scope) or ""
            return ((is_numpy(qualname) or qualname.startswith("jax.numpy")) and qualname.count(".") == qualname.startswith("jax.numpy") + 1
                    and qualname.rsplit(".", 1)[-1] in MASK_FUNCTIONS - {"all", "any"} and bool(self.tokens(node)))
        if isinstance(node, cst.Name) and node.value not in seen:
            found, bindings = self.scope.lookup(node.value)
            return found is self.function_scope and node.value not in self.params and bool(bindings) and all(
                isinstance(b, ValueBinding) and not b.augmented and self._certain_mask(b.value, seen | {node.value}) for b in bindings)
        return False

    def _joins_masks(self, node: cst.Call, short: str, seen: frozenset[str]) -> bool:
        """``np.append(mask, [True])``, ``np.concatenate([[False], m])``: masks joined with masks or bool literals
        (a name being looked through counts: ``mask = np.append(mask, [True])``)."""
        args = [arg.value for arg in node.args if arg.keyword is None and not arg.star]
        if short == "append":
            parts = args[:2]
        elif args and isinstance(args[0], (cst.List, cst.Tuple)):
            parts = [element.value for element in args[0].elements]
        else:
            return False

        def literal(part: cst.BaseExpression) -> bool:
            if isinstance(part, cst.Call) and len(part.args) == 1 and (self.resolver.qualname(part.func, self.scope) or "").endswith(
                    (".asarray", ".array")):
                part = part.args[0].value  # `jnp.asarray([True])`, as the migration wraps the list
            values = part.elements if isinstance(part, (cst.List, cst.Tuple)) else ()
            return bool(values) and all(isinstance(e.value, cst.Name) and e.value.value in ("True", "False") for e in values)

        def mask(part: cst.BaseExpression) -> bool:
            return (isinstance(part, cst.Name) and part.value in seen) or self._is_mask(part, seen)

        return bool(parts) and any(mask(part) for part in parts) and all(mask(part) or literal(part) for part in parts)

    def _is_python_sequence(self, node: cst.BaseExpression) -> bool:
        if isinstance(node, (cst.List, cst.Tuple, cst.ListComp)):
            return True
        if (self.resolver.table_kind(node, self.scope) or "").startswith("sequence"):
            return True  # another module's `COEFFS = [0.008, -0.1692]`
        if isinstance(node, cst.Call):  # `list(range(k)) * n`
            return self.resolver.qualname(node.func, self.scope) in PYTHON_SEQUENCE_BUILTINS
        if isinstance(node, cst.Name):
            found, bindings = self.scope.lookup(node.value)
            if found is not None and found.kind == "module" and bindings:  # `COEFFS = [0.008, -0.1692]`
                return all(isinstance(b, ValueBinding) and isinstance(b.value, (cst.List, cst.Tuple)) for b in bindings)
            if found is None or found.kind != "function" or not bindings:
                return False
            if found is self.function_scope and node.value in self.params:
                param = self.params[node.value]
                return isinstance(param.default, (cst.Tuple, cst.List)) or bool(
                    hint_names(param.annotation) & {"tuple", "list", "Sequence", "Tuple", "List"})
            fresh = self.module.fresh_results
            return all(
                isinstance(b, ValueBinding) and (isinstance(b.value, (cst.List, cst.Tuple, cst.ListComp))
                                                 or (isinstance(b.value, cst.BinaryOperation) and isinstance(b.value.left, cst.List))
                                                 or (fresh is not None and fresh.fresh_container_call(b.value, found) == "list"))
                for b in bindings  # (`layers = init_layers(n)`: a list a helper of the module makes, hunt51 L6)
            )
        return False

    def _is_python_container(self, node: cst.BaseExpression, kinds: tuple[type, ...], builtin: str) -> bool:
        """A local (or module-level: ``WHITE = {"d65": (...)}``) name only ever bound to a set (``kinds``:
        ``cst.Set, cst.SetComp``; ``builtin``: ``"set"``) or a dict (also another module's table: ``consts.WHITE``)."""
        if builtin == "dict" and (self.resolver.table_kind(node, self.scope) or "").startswith("mapping"):
            return True
        if isinstance(node, kinds):  # `{0.95: 1.645, 0.99: 2.326}[level]`
            return True
        if not isinstance(node, cst.Name):
            return False
        found, bindings = self.scope.lookup(node.value)
        return found is not None and found.kind in ("function", "module") and bool(bindings) and all(
            isinstance(b, ValueBinding) and not b.augmented and (isinstance(b.value, kinds) or (
                isinstance(b.value, cst.Call) and self.resolver.qualname(b.value.func, found) == f"builtins.{builtin}"))
            for b in bindings
        )

    def visit_Dict(self, node: cst.Dict) -> None:
        for element in node.elements:
            if isinstance(element, cst.DictElement):
                self._require_python(element.key, "dict key")  # hashed: a JAX array is not hashable

    def visit_Attribute(self, node: cst.Attribute) -> None:
        attr = node.attr.value
        if attr in ARRAY_ATTRIBUTES:
            self._mark_data(node.value)
        if attr in ARRAY_MEMBERS or attr in PYTHON_VALUE_MEMBERS or attr.startswith("__") or node in self.store_targets:
            return
        owners = self._object_params(node.value, 0)
        if owners:
            names = ", ".join(f"`{name}`" for name in sorted(owners))
            code = self.module.module.code_for_node(node)
            used = f"calls `{code}()`: `.{attr}()` is not an array method" if node in self.called_attributes else \
                f"reads `{code}`: `.{attr}` is not an array attribute"
            holds = "holds a Python object" if len(owners) == 1 else "hold Python objects"
            self._block(node, "side-effect", f"{used}, so {names} {holds}, which jax.jit cannot trace "
                        "(only arrays, numbers and containers of them)",
                        "pass the arrays it holds as arguments, or annotate the parameter with a NamedTuple class of this module",
                        objects=True)

    def _object_params(self, node: cst.BaseExpression, depth: int) -> set[str]:
        """The parameters ``node`` is, or is computed from by arithmetic and indexing alone (``d = M1 - M2``,
        ``objs[0]``), when all of them may be Python objects (not ``*args``, not hinted as a NamedTuple)."""
        if depth > 4:
            return set()
        if isinstance(node, cst.Name):
            found, bindings = self.scope.lookup(node.value)
            if found is not None and (found.kind == "comprehension" or found is self.function_scope) and bindings and all(
                    isinstance(b, LoopBinding) for b in bindings):
                # `[v._mcpts for v in items]`, `for v in map(to_v, items)`, `for i, v in enumerate(vs)`: the
                # elements of a parameter hold Python objects too
                owners = set()
                for binding in bindings:
                    source = self._loop_source(binding, found)
                    found_owners = self._object_params(source, depth + 1) if source is not None else set()
                    if not found_owners:
                        return set()
                    owners |= found_owners
                return owners
            if found is not self.function_scope or not bindings:
                return set()
            if all(isinstance(b, ParamBinding) for b in bindings):
                return set() if node.value in self.variadic or self._pytree_hint(node.value) else {node.value}
            if not all(isinstance(b, ValueBinding) and not b.augmented for b in bindings):
                return set()
            owners: set[str] = set()
            for binding in bindings:
                found_owners = self._object_params(binding.value, depth + 1)
                if not found_owners:
                    return set()
                owners |= found_owners
            return owners
        if isinstance(node, cst.BinaryOperation):
            left, right = self._object_params(node.left, depth + 1), self._object_params(node.right, depth + 1)
            if (left or isinstance(node.left, (cst.Integer, cst.Float))) and (right or isinstance(node.right, (cst.Integer, cst.Float))):
                return left | right
            return set()
        if isinstance(node, cst.UnaryOperation):
            return self._object_params(node.expression, depth + 1)
        if isinstance(node, cst.Subscript):
            return self._object_params(node.value, depth + 1)
        if isinstance(node, cst.Call):  # `vs = list(items)`: a container of the parameter's elements
            inner = self._elements_of(node, self.scope)
            return self._object_params(inner, depth + 1) if inner is not node else set()
        return set()

    def _loop_source(self, binding: LoopBinding, scope: Scope) -> cst.BaseExpression | None:
        """What the loop target at ``binding`` takes its items from (``vs`` of ``for i, v in enumerate(vs)``)."""
        iterable = binding.iterable
        if not binding.position:
            return self._elements_of(iterable, scope)
        if (binding.position == (1,) and isinstance(iterable, cst.Call) and len(iterable.args) == 1
                and self.resolver.qualname(iterable.func, scope) == "builtins.enumerate"):
            return self._elements_of(iterable.args[0].value, scope)
        return None

    def _elements_of(self, iterable: cst.BaseExpression, scope: Scope) -> cst.BaseExpression:
        """What a loop over ``iterable`` takes its items from: ``items`` of ``map(f, items)``, ``list(items)``."""
        while isinstance(iterable, cst.Call) and iterable.args and not any(a.star or a.keyword for a in iterable.args):
            qualname = self.resolver.qualname(iterable.func, scope)
            if qualname == "builtins.map" and len(iterable.args) == 2:
                iterable = iterable.args[1].value
            elif qualname in ("builtins.list", "builtins.tuple", "builtins.sorted", "builtins.reversed") and len(iterable.args) == 1:
                iterable = iterable.args[0].value
            else:
                break
        return iterable

    def _pytree_hint(self, name: str) -> bool:
        """Hinted with a NamedTuple class of this module: a pytree, whose fields jax.jit traces."""
        for hint in top_hints(self.params[name].annotation):
            classdef = self.module.class_node(hint)
            if classdef is not None and self._is_namedtuple(classdef):
                return True
        return False

    def visit_SimpleString(self, node: cst.SimpleString) -> None:
        pass

    def visit_BinaryOperation(self, node: cst.BinaryOperation) -> None:
        if isinstance(node.operator, cst.Modulo) and _is_string(node.left):
            self._require(node.right, "`%` string formatting argument", VALUE_INSTEAD)
        if isinstance(node.operator, cst.Add):  # `"bad " + name`: Python concatenates Python strings
            for text, other in ((node.left, node.right), (node.right, node.left)):
                if _is_string(text) and not _is_string(other):
                    self._require(other, "operand of string concatenation", VALUE_INSTEAD)
        if isinstance(node.operator, cst.Multiply):  # `[x] * n`, `n * "-"`: Python repeats by a Python int
            broadcast = array_list_operands(self.node, self.resolver)  # `points * [w, h]`: NumPy broadcasts
            for sequence, count in ((node.left, node.right), (node.right, node.left)):
                if sequence in broadcast:
                    continue
                if isinstance(sequence, STRING_LITERALS) or self._is_python_sequence(sequence):
                    self._require_python(count, "repetition count of a list, tuple or string", STATIC_INSTEAD)

    def visit_FormattedString(self, node: cst.FormattedString) -> None:
        for part in node.parts:
            if isinstance(part, cst.FormattedStringExpression):
                self._require(part.expression, "f-string field")

    def visit_Assign(self, node: cst.Assign) -> None:
        self.check_named_selection(node)
        for target in node.targets:
            self._check_store(target.target)
            self._check_mask_store(target.target, node.value, augmented=False)
            self.store_targets.add(target.target)
            if isinstance(target.target, cst.Attribute) and target.target.attr.value == "shape":
                self._require(node.value, "new shape", STATIC_INSTEAD)  # `y.shape = s` becomes `y = y.reshape(s)`

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        if isinstance(node.operator, cst.AddAssign) and _is_string(node.value):  # `s += "->"`: a Python str
            self._require(node.target, "operand of string concatenation", VALUE_INSTEAD)
        self._check_store(node.target)
        self._check_mask_store(node.target, node.value, augmented=True)
        self.store_targets.add(node.target)

    def _check_mask_store(self, target: cst.BaseExpression, value: cst.BaseExpression, augmented: bool) -> None:
        """``x[mask] = v`` becomes ``x.at[mask].set(v)``, which jit refuses (the mask's true count is data);
        only ``x[mask of x] = number`` becomes a shape-fixed ``jnp.where``."""
        if not isinstance(target, cst.Subscript):
            return
        if len(target.slice) != 1:  # `B[:, B[0] < 0] = 0`, `B[..., m] = 1`: `.at[]` with a mask among other elements
            if any(isinstance(e.slice, cst.Index) and self._is_mask(e.slice.value) for e in target.slice):
                self._block(target, "traced-value", "a write through a boolean mask index: jit needs the mask's shape-fixed form",
                            "x = jnp.where(mask, value, x) with a mask of x's shape")
            return
        index = target.slice[0].slice
        if not isinstance(index, cst.Index) or not self._is_mask(index.value):
            return
        if becomes_where(target, value, IndexClassifier(self.resolver, self.scope), augmented):
            # `x[m] = y[m]` reads `y` whole: `jnp.where(m, y, x)` (also `x[m] = 1 / np.sqrt(y[m])`)
            self.store_targets.update(masked_leaves(value, index.value, IndexClassifier(self.resolver, self.scope)) or ())
        else:
            self._block(target, "traced-value", "a write through a boolean mask index: jit needs the mask's shape-fixed form",
                        "x = jnp.where(mask, value, x) with a mask of x's shape")


def _string_like(param: cst.Param, module_scope: Scope | None = None) -> bool:
    """Hinted ``str`` (or a ``Literal``, also through a module-level alias: ``Order: TypeAlias = Literal["C",
    "F"]``), or unhinted with a string default: jax.jit cannot trace a string."""
    top = top_hints(param.annotation)
    if len(top) == 1 and module_scope is not None and isinstance(param.annotation.annotation, cst.Name):
        _, bindings = module_scope.lookup(next(iter(top)))
        aliased = [b.value for b in bindings if isinstance(b, ValueBinding)]
        if len(aliased) == 1 and len(bindings) == 1:
            top = top_hints(aliased[0])
    if top:
        return bool(top & {"str", "Literal"}) and not top - {"str", "Literal", "None"}
    return isinstance(param.default, (cst.SimpleString, cst.ConcatenatedString))


def _not_converted(reason: str | None) -> str:
    return f" (not converted to jax.lax.cond: {reason})" if reason else ""


def _is_string(node: cst.BaseExpression) -> bool:
    """A string literal, or a concatenation or ``%``-formatting of one (``("%s is" + " bad") % (name,)``)."""
    if isinstance(node, STRING_LITERALS):
        return True
    return isinstance(node, cst.BinaryOperation) and isinstance(node.operator, (cst.Add, cst.Modulo)) and _is_string(node.left)


_MASK_WORDS = frozenset({"mask", "valid", "keep", "observed", "selected", "select", "where", "flags", "cond"})


def _mask_like(name: str, param: cst.Param) -> bool:
    """A parameter that says it is a boolean mask: hinted ``bool`` (an array of them), or named like one
    (``mask``, ``valid``, ``is_outlier``, ``obs_mask``).  Indexing with it under jit raises
    NonConcreteBooleanIndexError, so the function stays un-jitted (NPJ301); NumPy and eager JAX agree."""
    if param.annotation is not None and "bool" in cst.Module([]).code_for_node(param.annotation.annotation):
        return True
    words = name.lower().split("_")
    return bool(_MASK_WORDS & set(words)) or words[0] in ("is", "has")


MASK_UPDATES = (cst.BitOrAssign, cst.BitAndAssign, cst.BitXorAssign)  # `m |= other_mask`: still a mask
MASK_INDEX = "a boolean mask index: the result's shape depends on the data"  # (a blocker's message; see walker)

