"""Static or traced? What ``jax.jit`` needs to know about a module-level function.

``jax.jit`` runs a function's Python once per combination of static arguments,
with abstract values for every other argument.  So every value that Python
itself looks at -- an ``if`` or ``while`` test, ``range()`` bounds, a slice
bound, a shape, an ``axis``, ``int()``/``float()``/``.item()`` -- must be known
at trace time.  For each module-level function this module works out

* which parameters must be static (they reach such a place and look like
  Python values: hinted ``int``/``bool``/``str``..., a literal default, or
  never used as array data), which become ``static_argnums``; and
* the *blockers*: places where a traced value would reach such a place, or
  where tracing would change behaviour (``print``, ``global``, reading module
  state that functions mutate, ``try``, iterators, calls we cannot see into,
  long Python loops that jit would unroll).

Every expression gets a set of *tokens*: the parameters it is computed from,
plus ``ARRAY`` when it comes out of an array computation (a NumPy or
jax.numpy call, an ndarray method).  Shapes (``x.shape``, ``len(x)``,
``x.ndim``) carry no tokens: they are static whatever ``x`` is.
"""

from __future__ import annotations

import ast
from typing import Iterable

import libcst as cst

from np2jax.analysis.aliasing import has_array_evidence
from np2jax.analysis.array_code import ArrayCode
from np2jax.analysis.collect import CollectedLists, Collection
from np2jax.analysis.conditionals import ConditionalDecisions, Conversion, if_chain
from np2jax.analysis.indexing import IndexClassifier
from np2jax.analysis.jit_plan import Blocker, JitPlan, LoopConversion, jit_decorator
from np2jax.analysis.loops import (
    MUTATING_METHODS,
    LoopBody,
    all_names,
    assigned_before,
    contains,
    names_outside,
    numpy_call_on_python_values,
)
from np2jax.analysis.param_hints import hint_names, int_like, literal_default
from np2jax.analysis.resolve import SHAPE_ATTRIBUTES, Resolver, is_numpy, is_shape_name
from np2jax.analysis.scope import (
    DefBinding,
    ImportBinding,
    LoopBinding,
    ParamBinding,
    Scope,
    ValueBinding,
)
from np2jax.analysis.tracing_tables import (
    ALL_STATIC_FUNCTIONS,
    ARRAY,
    ARRAY_ATTRIBUTES,
    ARRAY_HINTS,
    ARRAY_METHODS,
    ARRAY_PARAMETERS,
    BRANCH_INSTEAD,
    BUILTIN_CONSTANTS,
    CONCRETE_BUILTINS,
    DEFAULT_UNROLL_THRESHOLD,
    IMMUTABLE_BUILTINS,
    ITERATOR_BUILTINS,
    MASK_FUNCTIONS,
    METHOD_STATIC_POSITIONS,
    NAMEDTUPLE_BASES,
    SCALAR_HINTS,
    SIDE_EFFECT_BUILTINS,
    STATIC_INSTEAD,
    STATIC_PARAMETERS,
    STRING_LITERALS,
    TRACEABLE_MODULES,
    VALUE_INSTEAD,
    WHILE_INSTEAD,
)
from np2jax.analysis.writes import becomes_where
from np2jax.tables import lookup_numpy, positional_parameter
from np2jax.tables.jax_signatures import SIGNATURES
from np2jax.visitors import FastVisitor, visit

__all__ = ["Blocker", "JitPlan", "LoopConversion", "ModuleTracing", "jit_decorator"]


class ModuleTracing:
    """Jit plans for the module-level functions of one module, computed on demand."""

    def __init__(
        self, module: cst.Module, resolver: Resolver, source: str, unroll_threshold: int = DEFAULT_UNROLL_THRESHOLD,
        convert_conditionals: bool = True,
        tree: ast.Module | None = None,
        convert_scans: bool = True,
    ) -> None:
        self.module = module
        self.convert_conditionals = convert_conditionals  # NPJ306 is on: traced conditionals become jax.lax.cond
        self.convert_scans = convert_scans  # NPJ307 is on: loops that fill lists become jax.lax.scan
        self.resolver = resolver
        self.module_scope = resolver.scopes[module]
        self.unroll_threshold = unroll_threshold
        self._source = source
        self._tree = tree  # Python's ast of ``source`` when the caller already has it
        self._mutated: set[str] | None = None
        self.rebinds: dict[cst.Expr, tuple[str, ...]] = {}  # `f(a)` statements that become `a = f(a)`
        self._plans: dict[str, JitPlan] = {}
        self._in_progress: set[str] = set()
        self.array_code = ArrayCode(resolver, self.module_scope, self.function_node)  # name -> computes with arrays?

    def function_node(self, name: str) -> cst.FunctionDef | None:
        bindings = self.module_scope.bindings.get(name, [])
        if len(bindings) == 1 and isinstance(bindings[0], DefBinding) and isinstance(bindings[0].node, cst.FunctionDef):
            return bindings[0].node
        return None

    def class_node(self, name: str) -> cst.ClassDef | None:
        bindings = self.module_scope.bindings.get(name, [])
        if len(bindings) == 1 and isinstance(bindings[0], DefBinding) and isinstance(bindings[0].node, cst.ClassDef):
            return bindings[0].node
        return None

    def plan(self, name: str) -> JitPlan | None:
        """The plan for module-level function ``name``; None while it is being computed (recursion)."""
        if name in self._plans:
            return self._plans[name]
        node = self.function_node(name)
        if node is None or name in self._in_progress:
            return None
        self._in_progress.add(name)
        try:
            plan = _FunctionTracing(self, node).run()
        finally:
            self._in_progress.discard(name)
        self._plans[name] = plan
        return plan

    def is_mutable_object(self, name: str) -> bool:
        """Is module-level ``name`` bound to a container or an object whose state code may change?"""
        for binding in self.module_scope.bindings.get(name, []):
            if not isinstance(binding, ValueBinding):
                continue
            value = binding.value
            if isinstance(value, (cst.Dict, cst.List, cst.Set, cst.DictComp, cst.ListComp, cst.SetComp)):
                return True
            if isinstance(value, cst.Call):
                qualname = self.resolver.qualname(value.func, self.module_scope) or ""
                if not (is_numpy(qualname) or qualname.startswith(("jax.", "math.")) or qualname in IMMUTABLE_BUILTINS):
                    return True
        return False

    @property
    def mutated_globals(self) -> set[str]:
        """Module-level names that functions rebind (``global``) or mutate in place."""
        if self._mutated is None:
            tree = self._tree
            if tree is None:
                try:
                    tree = ast.parse(self._source)
                except (SyntaxError, ValueError, RecursionError, MemoryError):
                    tree = ast.Module(body=[], type_ignores=[])
            self._mutated = _mutated_globals(tree)
        return self._mutated


def _mutated_globals(tree: ast.Module) -> set[str]:
    """Module-level names some function rebinds (``global``) or mutates in place, in one walk.

    A write ``name[...] = ...`` / ``name.attr = ...`` / ``name.append(...)`` inside a
    function mutates module state unless ``name`` is a parameter of every
    function it is nested in (the set carried down is the intersection).
    """
    module_names = set()
    for statement in tree.body:
        if not isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            module_names.update(
                node.id for node in ast.walk(statement) if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store)
            )
    mutated: set[str] = set()
    stack: list[tuple[ast.AST, frozenset[str] | None]] = [(tree, None)]  # (node, parameters; None outside functions)
    while stack:
        node, params = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            own = frozenset(a.arg for a in ast.walk(node.args) if isinstance(a, ast.arg))
            inner = own if params is None else params & own
            body = node.body if isinstance(node.body, list) else [node.body]
            stack.extend((child, inner) for child in body)
            stack.extend((child, params) for child in ast.iter_child_nodes(node) if child not in body)
            continue
        if params is not None:
            base = None
            if isinstance(node, ast.Global):
                mutated.update(node.names)
            elif isinstance(node, (ast.Subscript, ast.Attribute)) and isinstance(node.ctx, (ast.Store, ast.Del)):
                base = node.value
                while isinstance(base, (ast.Subscript, ast.Attribute)):
                    base = base.value
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in MUTATING_METHODS:
                base = node.func.value
            if isinstance(base, ast.Name) and base.id not in params:
                mutated.add(base.id)
        stack.extend((child, params) for child in ast.iter_child_nodes(node))
    return mutated & module_names

class _FunctionTracing(FastVisitor):
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
        self.requirements: list[tuple[cst.CSTNode, str, frozenset[str], str, str]] = []  # (node, what, tokens, use_instead, note)
        self.blockers: list[Blocker] = []
        self.returns: list[cst.BaseExpression] = []
        self._tokens: dict[tuple[int, int], frozenset[str]] = {}
        self.while_loops: list[cst.While] = []
        self.loops: dict[cst.For, LoopConversion] = {}
        self.traced_iterables: dict[cst.BaseExpression, str] = {}  # iterable of a converted loop -> its index token
        self.carried: set[str] = set()  # names carried through a fori_loop: traced from the loop on
        self.store_targets: set[cst.CSTNode] = set()
        self.handled_names: set[cst.Name] = set()
        self.decisions = ConditionalDecisions(self.resolver, self.function_scope, node.body, self._traced, self._callee_ok,
                                              lambda name, at: name in self.params or name in assigned_before(node.body, at))
        self.conditionals: dict[cst.CSTNode, Conversion] = {}
        self.converted_logic: set[cst.CSTNode] = set()  # and/or/not/chains of converted tests: no Python truth value needed

    # --- driver --------------------------------------------------------------------
    def run(self) -> JitPlan:
        visit(self.node.body, self)
        plan = JitPlan()
        static: set[str] = set()
        for node, what, tokens, use_instead, note in self.requirements:
            indices = sorted(t for t in tokens if t.startswith("<index:"))
            if indices:
                loop_index = indices[0][len("<index:"):-1]
                self._block(node, "loop", f"{what} uses `{loop_index}`, which jax.lax.fori_loop makes a traced value{note}",
                            "jax.lax.dynamic_slice for slices at the index; jax.lax.cond or jnp.where instead of `if` on it")
                continue
            if ARRAY in tokens:
                self._block(node, "traced-value", f"{what} depends on traced array values{note}", use_instead)
                continue
            for name in sorted(tokens):
                if name in self.variadic:
                    self._block(node, "traced-value", f"{what} depends on `*{name}`", "pass it as a separate argument")
                elif self._may_be_static(name):
                    static.add(name)
                else:
                    self._block(node, "traced-value", f"{what} depends on the values of array argument `{name}`{note}", use_instead)
        for name, param in self.params.items():
            # A Python int stays a Python int (arbitrary precision); traced it would be an int32 that can overflow.
            if name not in self.variadic and name not in self.data_uses and int_like(param):
                static.add(name)
        for name in static:
            default = self.params[name].default
            if default is not None and self._numpy_function(default, self.module.module_scope):
                self._block(default, "side-effect", f"the default of `{name}` is a NumPy function, which cannot take traced arrays",
                            "use the jax.numpy function as the default")
        blocked = {b.node for b in self.blockers}
        for loop in self.while_loops:
            if loop.test not in blocked:  # a traced test is reported as such, with the while_loop advice
                self._block(loop, "loop", "`while` loop: jax.jit would unroll it, one copy per iteration", WHILE_INSTEAD)
        plan.blockers = self.blockers
        plan.loops = self.loops
        plan.conditionals = self.conditionals
        plan.static = [name for name in self.params if name in static]
        plan.static_argnums = tuple(self.positions[name] for name in plan.static if name in self.positions)
        plan.static_argnames = tuple(name for name in plan.static if name in self.kwonly)
        plan.returns_array = any(self.tokens(value) - static for value in self.returns)
        return plan

    def _may_be_static(self, name: str) -> bool:
        param = self.params[name]
        hints = hint_names(param.annotation)
        if hints & ARRAY_HINTS:
            return False
        if hints & SCALAR_HINTS or is_shape_name(name) or literal_default(param.default):
            return True
        return name not in self.data_uses

    def _block(self, node: cst.CSTNode, kind: str, message: str, use_instead: str) -> None:
        if all(b.node is not node for b in self.blockers):
            self.blockers.append(Blocker(node, kind, message, use_instead))

    def _require(self, node: cst.BaseExpression, what: str, use_instead: str = BRANCH_INSTEAD, note: str = "") -> None:
        self.requirements.append((node, what, self.tokens(node), use_instead, note))

    def _traced(self, node: cst.BaseExpression) -> bool:
        """Depends on array data or a fori_loop index (parameters alone may still become static)."""
        return any(t == ARRAY or t.startswith("<index:") for t in self.tokens(node, self.function_scope))

    def _callee_ok(self, name: str) -> bool:
        if self.module.function_node(name) is None:
            return False
        plan = self.module.plan(name)
        return plan is not None and plan.ok

    @property
    def scope(self) -> Scope:
        return self.scope_stack[-1]

    def on_visit(self, node: cst.CSTNode) -> bool:
        scope = self.resolver.scopes.get(node)
        if scope is not None:
            self.scope_stack.append(scope)
        return super().on_visit(node)

    def on_leave(self, original: cst.CSTNode) -> None:
        super().on_leave(original)
        if original in self.resolver.scopes:
            self.scope_stack.pop()

    # --- tokens ------------------------------------------------------------------
    def tokens(self, node: cst.BaseExpression, scope: Scope | None = None) -> frozenset[str]:
        scope = scope or self.scope
        key = (id(node), id(scope))
        found = self._tokens.get(key)
        if found is not None:
            return found
        self._tokens[key] = frozenset()  # a cycle alone adds nothing
        result = frozenset(self._compute(node, scope))
        self._tokens[key] = result
        return result

    def _union(self, nodes: Iterable[cst.BaseExpression | None], scope: Scope) -> set[str]:
        result: set[str] = set()
        for node in nodes:
            if node is not None:
                result |= self.tokens(node, scope)
        return result

    def _compute(self, node: cst.BaseExpression, scope: Scope) -> set[str]:
        if isinstance(node, cst.Name):
            return self._name_tokens(node.value, scope)
        if isinstance(node, cst.Attribute):
            if node.attr.value in SHAPE_ATTRIBUTES:
                return set()
            if self.resolver.qualname(node, scope) is not None:
                return set()  # an attribute of an imported module
            return set(self.tokens(node.value, scope))
        if isinstance(node, cst.Subscript):
            result = set(self.tokens(node.value, scope))
            for element in node.slice:
                index = element.slice
                if isinstance(index, cst.Index):
                    result |= self.tokens(index.value, scope)
                else:
                    result |= self._union((index.lower, index.upper, index.step), scope)
            return result
        if isinstance(node, (cst.BinaryOperation, cst.BooleanOperation)):
            return self._union((node.left, node.right), scope)
        if isinstance(node, cst.UnaryOperation):
            return set(self.tokens(node.expression, scope))
        if isinstance(node, cst.Comparison):
            if all(isinstance(c.operator, (cst.Is, cst.IsNot)) for c in node.comparisons):
                return set()  # identity: a Python bool even for traced values
            return self._union([node.left, *(c.comparator for c in node.comparisons)], scope)
        if isinstance(node, (cst.Tuple, cst.List, cst.Set)):
            return self._union((e.value for e in node.elements), scope)
        if isinstance(node, cst.Dict):
            return self._union((e.value for e in node.elements), scope)
        if isinstance(node, cst.IfExp):
            return self._union((node.test, node.body, node.orelse), scope)
        if isinstance(node, cst.Call):
            return self._call_tokens(node, scope)
        if isinstance(node, (cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp)):
            inner = self.resolver.scopes.get(node, scope)
            parts = [node.key, node.value] if isinstance(node, cst.DictComp) else [node.elt]
            result = self._union(parts, inner)
            level = node.for_in
            while level is not None:
                result |= self.tokens(level.iter, inner if level is not node.for_in else scope)
                level = level.inner_for_in
            return result
        if isinstance(node, cst.NamedExpr):
            return set(self.tokens(node.value, scope))
        if isinstance(node, (cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString, cst.ConcatenatedString, cst.Ellipsis, cst.Lambda)):
            return set()
        if isinstance(node, cst.FormattedString):
            return self._union((p.expression for p in node.parts if isinstance(p, cst.FormattedStringExpression)), scope)
        return {ARRAY}

    def _name_tokens(self, name: str, scope: Scope) -> set[str]:
        if name in ("True", "False", "None"):
            return set()
        found, bindings = scope.lookup(name)
        if found is None or found.kind in ("module", "class"):
            return set()
        result: set[str] = set()
        if found is self.function_scope and name in self.carried:
            result.add(f"<index:{name}>")
        for binding in bindings:
            if isinstance(binding, ParamBinding):
                if found is self.function_scope:
                    result.add(name)
                else:
                    result.add(ARRAY)  # a parameter of a nested function or lambda: unknown
            elif isinstance(binding, ValueBinding):
                result |= self.tokens(binding.value, found)
                owner = self.decisions.sites.owner.get(binding.value) if found is self.function_scope else None
                if owner is not None:  # assigned in a branch: its value depends on the tests too
                    result |= self._union(if_chain(owner)[0], found)
            elif isinstance(binding, LoopBinding):
                result |= self._loop_tokens(binding, found)
            elif isinstance(binding, (ImportBinding, DefBinding)):
                continue
            else:
                result.add(ARRAY)
        return result

    def _loop_tokens(self, binding: LoopBinding, scope: Scope) -> set[str]:
        iterable = binding.iterable
        position = binding.position
        index = self.traced_iterables.get(iterable)
        if index is not None:
            if isinstance(iterable, cst.Call) and self.resolver.qualname(iterable.func, scope) == "builtins.range":
                return {index}
            if position and position[0] == 0:  # enumerate's counter
                return {index}
            return {index, ARRAY} | self.tokens(iterable, scope)
        if isinstance(iterable, cst.Call):
            qualname = self.resolver.qualname(iterable.func, scope)
            args = [a.value for a in iterable.args if a.keyword is None and not a.star]
            if qualname == "builtins.range":
                return self._union(args, scope)
            if qualname == "builtins.enumerate" and position and args:
                return set() if position[0] == 0 else set(self.tokens(args[0], scope))
            if qualname == "builtins.zip" and position and 0 <= position[0] < len(args):
                return set(self.tokens(args[position[0]], scope))
        return set(self.tokens(iterable, scope))

    def _call_tokens(self, node: cst.Call, scope: Scope) -> set[str]:
        args = self._union((a.value for a in node.args), scope)
        func = node.func
        qualname = self.resolver.qualname(func, scope)
        if qualname is not None:
            if qualname in ("builtins.len", "builtins.isinstance", "builtins.type", "builtins.hasattr", "builtins.callable"):
                return set()
            if is_numpy(qualname) or qualname.startswith("jax."):
                if self.resolver.is_static(node, scope):
                    return args  # static only if the parameters it reads are (shape-named ones are assumed so)
                row = lookup_numpy(qualname) if is_numpy(qualname) else None
                if row is not None and row.kind in ("dtype", "static", "type", "constant"):
                    return args
                return args | {ARRAY}
            if qualname.startswith(("builtins.", "math.")):
                return args
        if isinstance(func, cst.Name):
            found, _ = scope.lookup(func.value)
            if found is self.module.module_scope and self.module.function_node(func.value) is not None:
                plan = self.module.plan(func.value)
                return args | ({ARRAY} if plan is None or plan.returns_array else set())
            return args | self.tokens(func, scope)
        if isinstance(func, cst.Attribute):
            base = self.tokens(func.value, scope)
            if (func.attr.value in ARRAY_METHODS or func.attr.value == "copy") and (base or args):
                return base | args | {ARRAY}
            return base | args
        return args | {ARRAY}

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

    def visit_While(self, node: cst.While) -> None:
        self._require(node.test, "`while` test", WHILE_INSTEAD)
        self.while_loops.append(node)

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

    def visit_Subscript(self, node: cst.Subscript) -> None:
        if node not in self.store_targets:
            for element in node.slice:
                index = element.slice
                if isinstance(index, cst.Index) and self._is_mask(index.value):
                    self._block(node, "traced-value", "a boolean mask index: the result's shape depends on the data",
                                "jnp.where(mask, x, 0).sum() / jnp.sum(mask) for reductions; keep shapes fixed")
        base_is_list = self._is_python_sequence(node.value)
        multi = len(node.slice) > 1
        for element in node.slice:
            index = element.slice
            if isinstance(index, cst.Slice):
                for part in (index.lower, index.upper, index.step):
                    if part is not None:
                        self._require(part, "slice bound", VALUE_INSTEAD)
            elif base_is_list:
                self._require(index.value, "index into a Python list", VALUE_INSTEAD)
        if multi or any(isinstance(e.slice, cst.Index) and isinstance(e.slice.value, (cst.Ellipsis,)) for e in node.slice):
            self._mark_data(node.value)

    def _is_mask(self, node: cst.BaseExpression) -> bool:
        """A traced boolean array used as an index (a comparison, ``~m``, ``&``/``|`` of those, or a name bound to one)."""
        if isinstance(node, cst.Comparison):
            if all(isinstance(c.operator, (cst.Is, cst.IsNot, cst.In, cst.NotIn)) for c in node.comparisons):
                return False
            return bool(self.tokens(node))
        if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.BitInvert):
            return self._is_mask(node.expression)
        if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, (cst.BitAnd, cst.BitOr, cst.BitXor)):
            return self._is_mask(node.left) or self._is_mask(node.right)
        if isinstance(node, cst.Call):
            qualname = self.resolver.qualname(node.func, self.scope) or ""
            short = qualname.rsplit(".", 1)[-1]
            return (is_numpy(qualname) or qualname.startswith("jax.numpy")) and short in MASK_FUNCTIONS
        if isinstance(node, cst.Name):
            found, bindings = self.scope.lookup(node.value)
            return found is not None and found.kind == "function" and bool(bindings) and all(
                isinstance(b, ValueBinding) and not b.augmented and self._is_mask(b.value) for b in bindings
            )
        return False

    def _is_python_sequence(self, node: cst.BaseExpression) -> bool:
        if isinstance(node, (cst.List, cst.Tuple)):
            return True
        if isinstance(node, cst.Name):
            found, bindings = self.scope.lookup(node.value)
            if found is None or found.kind != "function" or not bindings:
                return False
            if found is self.function_scope and node.value in self.params:
                param = self.params[node.value]
                return isinstance(param.default, (cst.Tuple, cst.List)) or bool(
                    hint_names(param.annotation) & {"tuple", "list", "Sequence", "Tuple", "List"})
            return all(
                isinstance(b, ValueBinding) and (isinstance(b.value, (cst.List, cst.Tuple, cst.ListComp))
                                                 or (isinstance(b.value, cst.BinaryOperation) and isinstance(b.value.left, cst.List)))
                for b in bindings
            )
        return False

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if node.attr.value in ARRAY_ATTRIBUTES:
            self._mark_data(node.value)

    def visit_Name(self, node: cst.Name) -> None:
        name = node.value
        if node in self.handled_names or name in BUILTIN_CONSTANTS:
            return
        found, _ = self.scope.lookup(name)
        if found is not self.module.module_scope:
            return
        if name in self.module.mutated_globals:
            self._block(node, "side-effect", f"reads module-level `{name}`, which functions of this module change; "
                        "jax.jit would keep the value it saw when tracing", "pass it as an argument")
        elif self.module.is_mutable_object(name):
            self._block(node, "side-effect", f"reads module-level `{name}`, a mutable object; jax.jit would keep the "
                        "values it saw when tracing", "pass it (or the values it holds) as an argument")

    def visit_For(self, node: cst.For) -> None:
        iterable = node.iter
        steps = self._trip_count(iterable)
        if steps is not None and steps <= self.module.unroll_threshold:
            return
        if steps is None and not self._iterates_array(iterable):
            return  # a Python container (a list of layers, a tuple of names): unrolling is what is meant
        if steps is None and self._ranges_over_python_sequence(iterable):
            return  # range(len(coeffs)) of a tuple: as short as the tuple
        conversion, obstacle = self._fori_conversion(node)
        if conversion is not None:
            self.loops[node] = conversion
            self.traced_iterables[iterable] = f"<index:{conversion.index}>"
            self.carried.update(conversion.carried)
            return
        count = f"{steps} steps" if steps is not None else "a trip count known only at run time"
        self._block(node, "loop", f"Python `for` loop with {count} ({obstacle}): jax.jit would unroll it, one copy per step",
                    "jax.lax.fori_loop(lower, upper, body, init), or jax.lax.scan to collect per-step values")

    def _ranges_over_python_sequence(self, iterable: cst.BaseExpression) -> bool:
        if not (isinstance(iterable, cst.Call) and self.resolver.qualname(iterable.func, self.scope) == "builtins.range"):
            return False
        for arg in iterable.args:
            value = arg.value
            if isinstance(value, cst.Call) and self.resolver.qualname(value.func, self.scope) == "builtins.len" and value.args:
                if self._is_python_sequence(value.args[0].value):
                    return True
        return False

    def _fori_conversion(self, node: cst.For) -> tuple[LoopConversion | None, str]:
        """How ``node`` becomes a fori_loop, or why it cannot (the second item)."""
        if node.orelse is not None or node.asynchronous is not None:
            return None, "it has an `else` clause"
        iterable, target = node.iter, node.target
        kind = "iter"
        if isinstance(iterable, cst.Call) and self.resolver.qualname(iterable.func, self.scope) == "builtins.range":
            args = iterable.args
            if not 1 <= len(args) <= 3 or any(a.keyword is not None or a.star for a in args):
                return None, "an unusual `range`"
            if len(args) == 3 and not (isinstance(args[2].value, cst.Integer) and args[2].value.value == "1"):
                return None, "a step other than 1"
            kind = "range"
        elif isinstance(iterable, cst.Call) and self.resolver.qualname(iterable.func, self.scope) == "builtins.enumerate":
            if len(iterable.args) != 1 or iterable.args[0].keyword is not None or iterable.args[0].star:
                return None, "an unusual `enumerate`"
            kind = "enumerate"
        elif isinstance(iterable, cst.Call) and self.resolver.qualname(iterable.func, self.scope) is not None and (
            self.resolver.qualname(iterable.func, self.scope) or "").startswith("builtins."):
            return None, "it iterates over a builtin's result"
        if kind == "enumerate":
            if not (isinstance(target, cst.Tuple) and len(target.elements) == 2
                    and all(isinstance(e.value, cst.Name) for e in target.elements)):
                return None, "an unusual loop target"
            index, value = (e.value.value for e in target.elements)
        elif isinstance(target, cst.Name):
            index, value = target.value, None
        else:
            return None, "it unpacks each element"
        if kind == "iter":
            value, index = index, None
        collection, obstacle = self._collection(node)
        if obstacle:
            return None, obstacle
        body = LoopBody(self.resolver, self.scope, self.module.rebinds, collection.appends if collection else ())
        visit(node.body, body)
        if body.obstacle:
            return None, body.obstacle
        loop_names = {name for name in (index, value) if name}
        if loop_names & body.assigned:
            return None, "it assigns its own loop variable"
        kept = numpy_call_on_python_values(node.body, loop_names | body.assigned, self.resolver, self.scope)
        if kept is not None:
            return None, (f"`{self.module.module.code_for_node(kept)}` would stay a NumPy call on Python values, "
                          "which the loop would make traced; use the jax.numpy function")
        outside = names_outside(self.node.body, node)
        if loop_names & outside:
            return None, f"`{sorted(loop_names & outside)[0]}` is used after the loop"
        carried = []
        for name in body.order:
            if name in loop_names:
                continue
            if self._bound_before(name, node):
                if self._is_container(name, node):
                    return None, f"`{name}` is a Python container"
                if not self._starts_as_array(name, node):
                    return None, (f"`{name}` may start as a Python value; fori_loop would make it a 32-bit array "
                                  "of fixed shape")
                carried.append(name)
            elif name in outside:
                return None, f"`{name}` is first set inside the loop and used after it"
        if kind in ("iter", "enumerate"):
            source = iterable.args[0].value if kind == "enumerate" else iterable
            if any(isinstance(n, cst.Name) and n.value in carried for n in all_names(source)):
                return None, "the loop changes what it iterates over"
            if not self._iterates_array(source):
                return None, "it iterates over a Python container"
        if index is None:
            index = "_i"
        if collection is None:
            return LoopConversion(kind, index, value, tuple(carried)), ""
        return LoopConversion(kind, index, value, tuple(carried), collection.names, collection.starts), ""

    def _collection(self, node: cst.For) -> tuple[Collection | None, str]:
        """The lists ``node`` fills one value per step, when jax.lax.scan may collect them (or why not)."""
        scope = self.scope
        if not self.module.convert_scans or scope.kind != "function" or not isinstance(scope.node, cst.FunctionDef):
            return None, ""

        def is_array_param(name: str) -> bool:
            if name not in self.params or scope is not self.function_scope:
                return False
            hints = hint_names(self.params[name].annotation)
            return bool(hints & ARRAY_HINTS) or name in self.data_uses or (
                not hints & SCALAR_HINTS and has_array_evidence(self.node, name, self.resolver, scope))

        return CollectedLists(scope.node, scope, self.resolver, is_array_param).find(node, self._trip_count(node.iter))

    def _starts_as_array(self, name: str, loop: cst.For) -> bool:
        """Is every value ``name`` can have before ``loop`` an array (not a Python number, None or str)?"""
        if name in self.params:
            param = self.params[name]
            return bool(hint_names(param.annotation) & ARRAY_HINTS) or name in self.data_uses
        _, bindings = self.function_scope.lookup(name)
        outside = [b for b in bindings if not (isinstance(b, ValueBinding) and contains(loop, b.value))
                   and not (isinstance(b, LoopBinding) and contains(loop, b.iterable))]
        return bool(outside) and all(
            isinstance(b, ValueBinding) and not b.augmented and ARRAY in self.tokens(b.value, self.function_scope)
            for b in outside
        )

    def _bound_before(self, name: str, loop: cst.For) -> bool:
        return name in self.params or name in assigned_before(self.node.body, loop)

    def _is_container(self, name: str, loop: cst.For) -> bool:
        _, bindings = self.function_scope.lookup(name)
        return any(
            isinstance(b, ValueBinding)
            and isinstance(b.value, (cst.List, cst.Dict, cst.Set, cst.ListComp, cst.DictComp, cst.SetComp, cst.Tuple))
            for b in bindings
        )

    def _trip_count(self, iterable: cst.BaseExpression) -> int | None:
        if isinstance(iterable, (cst.Tuple, cst.List)):
            return len(iterable.elements)
        if isinstance(iterable, cst.Call) and self.resolver.qualname(iterable.func, self.scope) == "builtins.range":
            values = []
            for arg in iterable.args:
                if isinstance(arg.value, cst.Integer):
                    values.append(int(arg.value.evaluated_value))
                elif isinstance(arg.value, cst.UnaryOperation) and isinstance(arg.value.expression, cst.Integer) and isinstance(arg.value.operator, cst.Minus):
                    values.append(-int(arg.value.expression.evaluated_value))
                else:
                    return None
            if not values or arg.keyword is not None:
                return None
            try:
                return len(range(*values))
            except (TypeError, ValueError):
                return None
        return None

    def _iterates_array(self, iterable: cst.BaseExpression) -> bool:
        if isinstance(iterable, cst.Call):
            qualname = self.resolver.qualname(iterable.func, self.scope)
            if qualname == "builtins.range":
                return True
            if qualname in ("builtins.enumerate", "builtins.zip", "builtins.reversed"):
                return any(self._iterates_array(a.value) for a in iterable.args)
        tokens = self.tokens(iterable)
        if ARRAY in tokens:
            return True
        return any(
            name in self.data_uses or hint_names(self.params[name].annotation) & ARRAY_HINTS
            for name in tokens if name in self.params
        )

    def visit_Global(self, node: cst.Global) -> None:
        self._block(node, "side-effect", "`global` statement: jax.jit runs the function body once, at trace time",
                    "return the new value instead of assigning a global")

    def visit_Nonlocal(self, node: cst.Nonlocal) -> None:
        self._block(node, "side-effect", "`nonlocal` statement: jax.jit runs the function body once, at trace time",
                    "return the new value instead")

    def visit_Try(self, node: cst.Try) -> None:
        self._block(node, "side-effect", "`try` statement: JAX does not raise NumPy's errors (it returns inf/nan or clamps)",
                    "check inputs before calling, or handle inf/nan with jnp.where")

    def visit_TryStar(self, node: cst.CSTNode) -> None:
        self.visit_Try(node)  # type: ignore[arg-type]

    def visit_With(self, node: cst.With) -> None:
        self._block(node, "side-effect", "`with` statement: its context manager runs once, at trace time",
                    "move it out of the function")

    def visit_Yield(self, node: cst.Yield) -> None:
        self._block(node, "side-effect", "generator function: jax.jit cannot trace `yield`", "return an array")

    def visit_Await(self, node: cst.Await) -> None:
        self._block(node, "side-effect", "`await`: jax.jit cannot trace coroutines", "call it outside")

    def visit_Return(self, node: cst.Return) -> None:
        if node.value is None:
            return
        if self.scope is self.function_scope:
            self.returns.append(node.value)
            if self._returns_non_array(node.value):
                self._block(node.value, "side-effect", "returns a function or a string: jax.jit can only return arrays",
                            "jit the returned function instead; return strings from an un-jitted wrapper")

    def _returns_non_array(self, value: cst.BaseExpression) -> bool:
        """A function or a string (or a tuple/list holding one, or an item picked from such a literal): not a JAX type."""
        if isinstance(value, (cst.Lambda, *STRING_LITERALS)):
            return True
        if isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute) and value.func.attr.value == "format":
            return isinstance(value.func.value, STRING_LITERALS)
        if isinstance(value, cst.BinaryOperation) and isinstance(value.operator, cst.Modulo):
            return isinstance(value.left, STRING_LITERALS)
        if isinstance(value, (cst.Tuple, cst.List)):
            return any(self._returns_non_array(element.value) for element in value.elements)
        if isinstance(value, cst.Subscript):
            return isinstance(value.value, (cst.Tuple, cst.List)) and self._returns_non_array(value.value)
        if isinstance(value, cst.IfExp):
            return self._returns_non_array(value.body) or self._returns_non_array(value.orelse)
        if isinstance(value, cst.Name):
            found, bindings = self.scope.lookup(value.value)
            if found is not None and any(isinstance(b, DefBinding) and isinstance(b.node, cst.FunctionDef) for b in bindings):
                return True
        return self._numpy_function(value, self.scope)

    def visit_SimpleString(self, node: cst.SimpleString) -> None:
        pass

    def visit_BinaryOperation(self, node: cst.BinaryOperation) -> None:
        if isinstance(node.operator, cst.Modulo) and isinstance(node.left, STRING_LITERALS):
            self._require(node.right, "`%` string formatting argument", VALUE_INSTEAD)

    def visit_FormattedString(self, node: cst.FormattedString) -> None:
        for part in node.parts:
            if isinstance(part, cst.FormattedStringExpression):
                self._require(part.expression, "f-string field")

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            self._check_store(target.target)
            self._check_mask_store(target.target, node.value, augmented=False)
            self.store_targets.add(target.target)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._check_store(node.target)
        self._check_mask_store(node.target, node.value, augmented=True)
        self.store_targets.add(node.target)

    def _check_mask_store(self, target: cst.BaseExpression, value: cst.BaseExpression, augmented: bool) -> None:
        """``x[mask] = v`` becomes ``x.at[mask].set(v)``, which jit refuses (the mask's true count is data);
        only ``x[mask of x] = number`` becomes a shape-fixed ``jnp.where``."""
        if not isinstance(target, cst.Subscript) or len(target.slice) != 1:
            return
        index = target.slice[0].slice
        if not isinstance(index, cst.Index) or not self._is_mask(index.value):
            return
        if not becomes_where(target, value, IndexClassifier(self.resolver, self.scope), augmented):
            self._block(target, "traced-value", "a write through a boolean mask index: jit needs the mask's shape-fixed form",
                        "x = jnp.where(mask, value, x) with a mask of x's shape")

    def _check_store(self, target: cst.BaseExpression) -> None:
        if isinstance(target, (cst.Tuple, cst.List)):
            for element in target.elements:
                self._check_store(element.value)
            return
        if isinstance(target, cst.Attribute):
            base = target.value
            while isinstance(base, (cst.Attribute, cst.Subscript)):
                base = base.value
            if isinstance(base, cst.Name):
                found, _ = self.scope.lookup(base.value)
                if found is not None and (found.kind == "module" or base.value in self.params):
                    self._block(target, "side-effect", f"sets an attribute of `{base.value}`: jax.jit runs this once, at trace time",
                                "return the new value instead")

    # --- calls ---------------------------------------------------------------------
    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if isinstance(func, cst.Attribute) and func.attr.value == "format" and isinstance(func.value, STRING_LITERALS):
            for arg in node.args:
                self._require(arg.value, "`str.format` argument", VALUE_INSTEAD)
        for arg in node.args:
            if self._numpy_function(arg.value, self.scope):
                self._block(arg.value, "side-effect", f"passes the NumPy function `{self.module.module.code_for_node(arg.value)}` "
                            "as a value; called on traced arrays it raises", "pass the jax.numpy function instead")
        qualname = self.resolver.qualname(func, self.scope)
        if qualname is not None and qualname.startswith("builtins."):
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

    def _builtin_call(self, node: cst.Call, name: str) -> None:
        if name in SIDE_EFFECT_BUILTINS:
            self._block(node, "side-effect", f"`{name}()` runs once, at trace time, under jax.jit", "jax.debug.print for printing; move I/O out of the function")
        elif name in ITERATOR_BUILTINS:
            self._block(node, "side-effect", f"`{name}()` consumes a Python iterator, once, at trace time", "index the array or use jax.lax.scan")
        elif name in CONCRETE_BUILTINS:
            for arg in node.args:
                self._require(arg.value, f"argument of `{name}()`", VALUE_INSTEAD)

    def _array_call(self, node: cst.Call, qualname: str) -> None:
        name = qualname
        if is_numpy(qualname):
            row = lookup_numpy(qualname)
            if row is None or row.jax is None:
                return
            name = row.jax + qualname[len(row.numpy):]
        if name in ALL_STATIC_FUNCTIONS:
            for arg in node.args:
                if arg.keyword is None or arg.keyword.value != "dtype":
                    self._require(arg.value, f"argument of `{name.rsplit('.', 1)[-1]}`", STATIC_INSTEAD)
            return
        signature = SIGNATURES.get(name)
        names = signature[1] if signature else ()
        for index, arg in enumerate(node.args):
            if arg.keyword is not None:
                param = arg.keyword.value
            elif arg.star:
                continue
            else:
                param = positional_parameter(names, index)
            if param in STATIC_PARAMETERS and (name, param) not in ARRAY_PARAMETERS:
                self._require(arg.value, f"`{param}` of `{name.rsplit('.', 1)[-1]}`", STATIC_INSTEAD)
            else:
                self._mark_data(arg.value)

    def _name_call(self, node: cst.Call, name: str, qualname: str | None) -> None:
        found, bindings = self.scope.lookup(name)
        if found is self.function_scope and name in self.params:
            self._require(node.func, f"called function `{name}`")
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

    def _is_namedtuple(self, node: cst.ClassDef) -> bool:
        for base in node.bases:
            qualname = self.resolver.qualname(base.value, self.module.module_scope)
            if qualname in NAMEDTUPLE_BASES or (isinstance(base.value, cst.Name) and base.value.value == "NamedTuple"):
                return True
        return False

    def _method_call(self, node: cst.Call, func: cst.Attribute) -> None:
        method = func.attr.value
        base = func.value
        if method in ("item", "tolist"):
            self._require(base, f"`.{method}()`", VALUE_INSTEAD)
            return
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


def _not_converted(reason: str | None) -> str:
    return f" (not converted to jax.lax.cond: {reason})" if reason else ""
