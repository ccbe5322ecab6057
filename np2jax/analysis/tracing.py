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

This module is the public face: ``ModuleTracing`` computes the ``JitPlan`` of
each module-level function on demand and knows the module's state.  The parts:

* jit_plan.py: ``JitPlan``, ``Blocker``, ``LoopConversion``, ``jit_decorator``;
* function_tracing.py: ``FunctionTracing``, the pass over one function, with
  traced_tokens.py (the tokens), call_checks.py, for_loops.py (fori_loop and
  scan conversion) and side_effects.py;
* tracing_tables.py and param_hints.py: the data they read.
"""

from __future__ import annotations

import ast

import libcst as cst

from np2jax.astutil import code_children, walk_code
from np2jax.analysis.array_code import ArrayCode
from np2jax.analysis.function_tracing import FunctionTracing
from np2jax.analysis.jit_plan import Blocker, JitPlan, LoopConversion, jit_decorator
from np2jax.analysis.loops import MUTATING_METHODS, descendants
from np2jax.analysis.resolve import Resolver, is_numpy
from np2jax.analysis.list_operands import ARRAY_CONSTRUCTORS
from np2jax.analysis.scope import DefBinding, ParamBinding, ValueBinding
from np2jax.analysis.tracing_tables import DEFAULT_UNROLL_THRESHOLD, IMMUTABLE_BUILTINS
from np2jax.cstutil import argument_for, bool_identity_operands
from np2jax.tables import lookup_numpy
from np2jax.visitors import FastVisitor, visit

# Methods of multiprocessing pools and process executors that send a function to the workers (pickled by name).
POOL_METHODS = frozenset("map imap imap_unordered starmap map_async starmap_async apply apply_async submit".split())

__all__ = ["Blocker", "JitPlan", "LoopConversion", "ModuleTracing", "jit_decorator"]


class ModuleTracing:
    """Jit plans for the module-level functions of one module, computed on demand."""

    def __init__(
        self, module: cst.Module, resolver: Resolver, source: str, unroll_threshold: int = DEFAULT_UNROLL_THRESHOLD,
        convert_conditionals: bool = True,
        tree: ast.Module | None = None,
        convert_scans: bool = True,
        convert_whiles: bool = True,
        external_state: dict[str, str] | None = None,
    ) -> None:
        self.module = module
        self.convert_conditionals = convert_conditionals  # NPJ306 is on: traced conditionals become jax.lax.cond
        self.convert_scans = convert_scans  # NPJ307 is on: loops that fill lists become jax.lax.scan
        self.convert_whiles = convert_whiles  # NPJ308 is on: convergence loops become jax.lax.while_loop
        self.resolver = resolver
        self.module_scope = resolver.scopes[module]
        self.unroll_threshold = unroll_threshold
        self._source = source
        self._tree = tree  # Python's ast of ``source`` when the caller already has it
        self._mutated: set[str] | None = None
        # module-level variables other modules write (name -> the writer, for the message): np2jax/project.py
        self.external_state = external_state or {}
        self.rebinds: dict[cst.Expr, tuple[str, ...]] = {}  # `f(a)` statements that become `a = f(a)`
        self.fresh_results = None  # analysis/fresh_results.py (set by the engine): containers of new items
        self.selections: set[cst.Call] = set()  # `min(a, b)` / `max(a, b)` of traced values: become jnp.where
        self.array_sums: set[cst.Call] = set()  # `sum(a)` of a float array: `jnp.sum(a, axis=0)`
        self.int_casts: set[cst.Call] = set()  # `int(np.argmax(x))`: the cast goes, the index stays an array
        # `x[m].sum()`, `np.mean(x[m])` with `m` a mask of x's shape -> `jnp.sum(x, where=m)`: the call -> (reduction,
        # the read `x[m]`, rows: `X[m].mean(axis=0)` of a 1-D mask -> `jnp.mean(X, axis=0, where=<m over rows>)`), and
        # the reads, which jit then takes (analysis/call_checks.py, walker_calls.py)
        self.masked_reductions: dict[cst.Call, tuple[str, cst.Subscript, bool]] = {}
        self.masked_reads: set[cst.Subscript] = set()
        self.mask_counts: dict[cst.BaseExpression, cst.BaseExpression] = {}  # `len(X[m])` -> `m` (jnp.count_nonzero)
        self.selection_aliases: dict[cst.Assign, list[cst.Name]] = {}  # `members = X[m]` -> its uses, which read `X[m]`
        # `COMPLEMENT[seq]`, `surv[i]` (`surv=SURVIVAL`): a module-level NumPy array (or a parameter defaulting to one)
        # indexed by a traced value, which a NumPy array refuses: read through `jnp.asarray(...)` (walker.py)
        self.constant_reads: set[cst.Subscript] = set()
        self.constant_methods: set[cst.Call] = set()  # `K.dot(x)` of such an array: `jnp.asarray(K).dot(x)`
        self._plans: dict[str, JitPlan] = {}
        self._users: dict[str, list[tuple[str, cst.Call, object]]] | None = None  # see _result_users
        self._callees: dict[str, set[str]] | None = None  # function name -> the names it calls (see _reaches)
        self._in_progress: set[str] = set()
        self._pooled: dict[str, cst.Call] | None = None  # see pooled_call
        self.array_code = ArrayCode(resolver, self.module_scope, self.function_node,  # name -> computes with arrays?
                                    lambda name: self.numpy_constant(cst.Name(name), self.module_scope))
        # `from helpers import *` (also relative): a name bound nowhere may be another module's function
        self.star_imports = "import *" in source and any(
            isinstance(small, cst.ImportFrom) and isinstance(small.names, cst.ImportStar)
            for statement in module.body if isinstance(statement, cst.SimpleStatementLine) for small in statement.body
        )

    def pooled_call(self, name: str) -> cst.Call | None:
        """A call handing module function ``name`` to a process pool or a process (``pool.map(trial, xs)``,
        ``executor.submit(trial, x)``, ``Process(target=trial)``) in a module that imports ``multiprocessing`` or
        ``concurrent.futures``: the pool pickles it by name, which a jax.jit wrapper under that name breaks."""
        if self._pooled is None:
            self._pooled = {}
            imports = {qualname for b in self.module_scope.bindings.values() for binding in b
                       for qualname in [getattr(binding, "qualname", None)] if isinstance(qualname, str)}
            if any(q.split(".")[0] in ("multiprocessing", "concurrent") for q in imports):
                for node in descendants(self.module):
                    if not isinstance(node, cst.Call):
                        continue
                    handed = [arg.value for arg in node.args if arg.keyword is not None and arg.keyword.value == "target"]
                    if isinstance(node.func, cst.Attribute) and node.func.attr.value in POOL_METHODS and node.args \
                            and node.args[0].keyword is None:
                        handed.append(node.args[0].value)
                    for value in handed:
                        if isinstance(value, cst.Name) and self.function_node(value.value) is not None:
                            self._pooled.setdefault(value.value, node)
        return self._pooled.get(name)

    def function_node(self, name: str) -> cst.FunctionDef | None:
        bindings = self.module_scope.bindings.get(name, [])
        if len(bindings) == 1 and isinstance(bindings[0], DefBinding) and isinstance(bindings[0].node, cst.FunctionDef):
            return bindings[0].node
        return None

    def passed_functions(self, function: cst.FunctionDef, param: str) -> list[str]:
        """The names the module's calls of ``function`` pass for its parameter ``param`` (``f(m, pearson)``)."""
        found = []
        for call, _ in self.resolver.calls_by_name(self.module).get(function.name.value, ()):
            given = argument_for(call, function, param)
            if isinstance(given, cst.Name):
                found.append(given.value)
        return found

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
            plan = FunctionTracing(self, node).run()
        finally:
            self._in_progress.discard(name)
        self._plans[name] = plan
        if plan.ok:
            self._static_result(name, node, plan)
        return plan

    def _static_result(self, name: str, node: cst.FunctionDef, plan: JitPlan) -> None:
        """A call of ``name`` gives a static argument of another jitted function of the module
        (``one_hot(labels, n_classes(labels))``, also through a name bound to it): jitted, ``name`` would return
        a JAX array there, which is unhashable (a NumPy scalar is not).  It is then not jitted, and the NumPy
        calls computing what it returns stay NumPy (analysis/eager_values.py)."""
        for callee, call, scope in self._result_users().get(name, ()):
            if callee == IDENTITY_TEST:  # `if equal(a, b) is False:`: NumPy's Python bool, never a JAX bool array
                self._python_result(node, plan, "what it returns is tested with `is True`/`is False` (a JAX bool array "
                                    "is neither)")
                return
            if self._in_progress and self._reaches(callee, self._in_progress):
                continue  # its plan now would see a function still being planned as a recursive call
            callee_plan = self.plan(callee)  # (this one's plan is known by now: no false recursion)
            callee_node = self.function_node(callee)
            if callee_plan is None or not callee_plan.ok or callee_node is None:
                continue
            for param in callee_plan.static:
                given = argument_for(call, callee_node, param)
                if given is not None and self._producer(given, scope) == name:
                    self._python_result(node, plan, f"what it returns is the static argument `{param}` of `{callee}` "
                                        "(a static argument must be hashable: jitted, this function would return a JAX array)")
                    return

    def _python_result(self, node: cst.FunctionDef, plan: JitPlan, why: str) -> None:
        """Callers need what ``node`` returns as a Python value: no jit, and the NumPy calls computing it stay NumPy."""
        returns = [r.value for r in _own_returns(node) if r.value is not None]
        plan.blockers.append(Blocker(returns[0] if returns else node.name, "side-effect", why,
                                     "leave it un-jitted (np2jax does), or compute the value from shapes"))
        function_scope = self.resolver.scopes[node]
        plan.python_values.extend((value, function_scope) for value in returns)

    def _reaches(self, name: str, targets: set[str]) -> bool:
        """Does module function ``name`` call one of ``targets``, directly or through other module functions?"""
        if self._callees is None:
            self._callees = {}
            for callee, calls in self.resolver.calls_by_name(self.module).items():
                for _, where in calls:
                    if isinstance(where, cst.FunctionDef):
                        self._callees.setdefault(where.name.value, set()).add(callee)
        seen, stack = {name}, [name]
        while stack:
            for callee in self._callees.get(stack.pop(), ()):
                if callee in targets:
                    return True
                if callee not in seen:
                    seen.add(callee)
                    stack.append(callee)
        return False

    def _result_users(self) -> dict[str, list[tuple[str, cst.Call, object]]]:
        """Module function -> the calls of other module functions given its result as an argument, with the
        callee and the scope of the call (once per module)."""
        if self._users is None:
            self._users = {}
            for callee, calls in self.resolver.calls_by_name(self.module).items():
                if self.function_node(callee) is None:
                    continue
                for call, where in calls:
                    scope = self.resolver.scopes.get(where, self.module_scope) if where is not None else self.module_scope
                    for arg in call.args:
                        producer = self._producer(arg.value, scope)
                        if producer is not None and producer != callee:
                            self._users.setdefault(producer, []).append((callee, call, scope))
            if "True" in self._source or "False" in self._source:
                finder = _IdentityTests()
                visit(self.module, finder)
                for operand, where in finder.found:
                    scope = self.resolver.scopes.get(where, self.module_scope) if where is not None else self.module_scope
                    producer = self._producer(operand, scope)
                    if producer is not None:
                        self._users.setdefault(producer, []).append((IDENTITY_TEST, operand, scope))
        return self._users

    def _producer(self, value: cst.BaseExpression, scope) -> str | None:
        """The module function ``value`` is the result of: a call of it, or a name every binding of which is one."""
        if isinstance(value, cst.Call) and isinstance(value.func, cst.Name) and self.function_node(value.func.value) is not None:
            return value.func.value
        if isinstance(value, cst.Name):
            found, bindings = scope.lookup(value.value)
            if found is not None and found.kind == "function" and bindings and all(
                    isinstance(b, ValueBinding) and not b.augmented for b in bindings):
                producers = {self._producer(b.value, found) if isinstance(b.value, cst.Call) else None for b in bindings}
                if len(producers) == 1:
                    return producers.pop()
        return None

    def is_mutable_object(self, name: str) -> bool:
        """Is module-level ``name`` bound to a container or an object whose state code may change?"""
        for binding in self.module_scope.bindings.get(name, []):
            if not isinstance(binding, ValueBinding):
                continue
            value = binding.value
            if isinstance(value, (cst.Dict, cst.List, cst.Set)) and name not in self.mutated_globals and _literal_data(value):
                continue  # `WHITE = {"d65": (0.95, 1.0, 1.09)}`, `a = [0.008, -0.1692]`: a table nothing here changes
            if isinstance(value, (cst.Dict, cst.List, cst.Set, cst.DictComp, cst.ListComp, cst.SetComp)):
                return True
            if isinstance(value, cst.Call) and not self._array_or_immutable_call(value, frozenset({name})):
                return True
        return False

    def _array_or_immutable_call(self, call: cst.Call, seen: frozenset[str]) -> bool:
        """A NumPy/JAX/math call or an immutable builtin, or an array method of a module array (``A[6].copy()``).

        Arrays count as state only when a function writes them (``mutated_globals``); a
        method of an array gives an array, except ``tolist`` (a list).
        """
        qualname = self.resolver.qualname(call.func, self.module_scope) or ""
        if is_numpy(qualname) or qualname.startswith(("jax.", "math.")) or qualname in IMMUTABLE_BUILTINS:
            return True
        func = call.func
        return isinstance(func, cst.Attribute) and func.attr.value != "tolist" and self._module_array(func.value, seen)

    def numpy_constant(self, node: cst.BaseExpression, scope) -> bool:
        """``node`` names a module-level NumPy array (``COMPLEMENT = np.array([3, 2, 1, 0])``) nothing writes, or is a
        parameter whose default is one (``surv=SURVIVAL``: a NumPy array under jit wherever the default is used); or an
        element of one at a constant index (``iu[0]`` of ``iu = np.triu_indices(n, k=1)``, a tuple of arrays)."""
        if (isinstance(node, cst.Subscript) and len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Index)
                and isinstance(node.slice[0].slice.value, cst.Integer)):
            return self.numpy_constant(node.value, scope)
        if not isinstance(node, cst.Name):
            return False
        found, bindings = scope.lookup(node.value)
        if found is self.module_scope:
            return bool(bindings) and node.value not in self.mutated_globals and all(
                isinstance(b, ValueBinding) and isinstance(b.value, cst.Call)
                and (self.resolver.qualname(b.value.func, found) or "").removeprefix("numpy.") in ARRAY_CONSTRUCTORS
                for b in bindings)
        if found is not None and found.kind == "function" and bindings and all(
                isinstance(b, ValueBinding) and not b.augmented and self._kept_numpy_call(b.value, found) for b in bindings):
            return True  # `w = np.hanning(n)`: a NumPy function of static arguments stays NumPy under jit
        if found is None or found.kind != "function" or len(bindings) != 1 or not isinstance(bindings[0], ParamBinding):
            return False
        default = bindings[0].param.default
        return isinstance(default, cst.Name) and self.numpy_constant(default, self.module_scope)

    def _kept_numpy_call(self, value: cst.BaseExpression, scope) -> bool:
        """``np.hanning(n)``, ``np.fft.rfftfreq(n)``: a NumPy function (not a constructor, which is always rewritten)
        whose arguments are all static, which the migration leaves a NumPy call (rules/np_to_jnp.py)."""
        if not isinstance(value, cst.Call):
            return False
        qualname = self.resolver.qualname(value.func, scope)
        row = lookup_numpy(qualname) if is_numpy(qualname) else None
        return row is not None and row.kind == "function" and self.resolver.args_static(value, scope)

    def _module_array(self, node: cst.BaseExpression, seen: frozenset[str]) -> bool:
        """Is ``node`` (at module level) an array: a module-level array name, its element, view or method result?"""
        while isinstance(node, (cst.Subscript, cst.Attribute)):
            node = node.value
        if isinstance(node, cst.Call):
            return self._array_or_immutable_call(node, seen)
        if not isinstance(node, cst.Name) or node.value in seen:
            return False
        bindings = self.module_scope.bindings.get(node.value, [])
        return bool(bindings) and all(
            isinstance(b, ValueBinding) and isinstance(b.value, cst.Call)
            and self._array_or_immutable_call(b.value, seen | {node.value})
            for b in bindings
        )

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
            self._mutated = self._with_bases(_mutated_globals(tree) | set(self.external_state))
        return self._mutated

    def _with_bases(self, mutated: set[str]) -> set[str]:
        """Add the module-level arrays that mutated names may be views of (``V = A[1:]``, ``W = A.reshape(...)``)."""
        pending = list(mutated)
        while pending:
            for binding in self.module_scope.bindings.get(pending.pop(), []):
                if not isinstance(binding, ValueBinding) or binding.value is None:
                    continue
                base = _view_base(binding.value)
                if base is not None and base not in mutated and any(
                    isinstance(b, ValueBinding) for b in self.module_scope.bindings.get(base, [])
                ):
                    mutated.add(base)
                    pending.append(base)
        return mutated


def _literal_data(node: cst.BaseExpression, depth: int = 0) -> bool:
    """A display of number and string literals only (nested displays of them too): a table of constants."""
    if depth > 8:
        return False
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, (cst.Minus, cst.Plus)):
        node = node.expression
    if isinstance(node, (cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString, cst.ConcatenatedString)):
        return True
    if isinstance(node, cst.Name):
        return node.value in ("True", "False", "None")
    if isinstance(node, (cst.List, cst.Tuple, cst.Set)):
        return all(isinstance(e, cst.Element) and _literal_data(e.value, depth + 1) for e in node.elements)
    if isinstance(node, cst.Dict):
        return all(isinstance(e, cst.DictElement) and _literal_data(e.key, depth + 1) and _literal_data(e.value, depth + 1)
                   for e in node.elements)
    return False


_COPYING_METHODS = frozenset({"copy", "astype", "flatten", "tolist"})


def _view_base(node: cst.BaseExpression) -> str | None:
    """The name ``node`` may be a view of: ``A`` for ``A``, ``A[1:]``, ``A.T``, ``A.reshape(...)[0]``."""
    while isinstance(node, (cst.Subscript, cst.Attribute, cst.Call)):
        if isinstance(node, cst.Call):
            if not isinstance(node.func, cst.Attribute) or node.func.attr.value in _COPYING_METHODS:
                return None  # a function's result (np.zeros(3)) or a copy
            node = node.func.value
        else:
            node = node.value
    return node.value if isinstance(node, cst.Name) else None


def _mutated_globals(tree: ast.Module) -> set[str]:
    """Module-level names some function rebinds (``global``) or mutates in place, in one walk.

    A write ``name[...] = ...`` / ``name.attr = ...`` / ``name.append(...)`` inside a
    function mutates module state unless ``name`` is a parameter of every
    function it is nested in (the set carried down is the intersection).

    Found once per tree (the engine and links.add_state both ask).
    """
    found = getattr(tree, "_np2jax_mutated_globals", None)
    if found is None:
        found = tree._np2jax_mutated_globals = frozenset(_find_mutated_globals(tree))  # type: ignore[attr-defined]
    return set(found)


def _find_mutated_globals(tree: ast.Module) -> set[str]:
    module_names = set()
    for statement in tree.body:
        if not isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            module_names.update(
                node.id for node in walk_code(statement) if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store)
            )
    if not module_names:
        return set()  # (what is found is kept only for module-level names)
    mutated: set[str] = set()
    stack: list[tuple[ast.AST, frozenset[str] | None]] = [(tree, None)]  # (node, parameters; None outside functions)
    while stack:
        node, params = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            own = frozenset(a.arg for a in walk_code(node.args) if isinstance(a, ast.arg))
            inner = own if params is None else params & own
            body = node.body if isinstance(node.body, list) else [node.body]
            stack.extend((child, inner) for child in body)
            stack.extend((child, params) for child in code_children(node) if child not in body)
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
        stack.extend((child, params) for child in code_children(node))
    return mutated & module_names


def _own_returns(function: cst.FunctionDef) -> list[cst.Return]:
    """The ``return`` statements of ``function`` itself (not of functions or lambdas inside it)."""
    returns = _Returns(function)
    visit(function, returns)
    return returns.found


class _Returns(FastVisitor):
    def __init__(self, function: cst.FunctionDef) -> None:
        self.function = function
        self.found: list[cst.Return] = []

    def visit_Return(self, node: cst.Return) -> None:
        self.found.append(node)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return node is self.function

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False


IDENTITY_TEST = "<is True/False>"  # a use of a result in _result_users: an operand of `is True` / `is False`


class _IdentityTests(FastVisitor):
    """The operands of ``x is True`` / ``x is not False`` in a module, with the function each is in."""

    def __init__(self) -> None:
        self.found: list[tuple[cst.BaseExpression, cst.FunctionDef | None]] = []
        self.functions: list[cst.FunctionDef] = []

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.functions.append(node)

    def leave_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.functions.pop()

    def visit_Comparison(self, node: cst.Comparison) -> None:
        function = self.functions[-1] if self.functions else None
        self.found.extend((value, function) for value in bool_identity_operands(node))
