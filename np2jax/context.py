"""What rules see while the engine walks one file."""

from __future__ import annotations

from dataclasses import dataclass, field

import re

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from np2jax.analysis.aliasing import FunctionAliasing
from np2jax.analysis.attribute_writes import AttributeWrite, plan_attribute_writes
from np2jax.analysis.attributes import ModuleAttributes
from np2jax.analysis.function_attributes import FunctionAttributeReads, function_attribute_reads
from np2jax.analysis.fresh_results import FreshResults
from np2jax.analysis.inplace_calls import InplaceCall, may_be_inplace_call, plan_inplace_call
from np2jax.analysis.indexing import IndexClassifier
from np2jax.analysis.mutation import ModuleMutations
from np2jax.analysis.resolve import Resolver
from np2jax.analysis.writes import WritePlan, plan_chained_write, plan_tuple_write, plan_write
from np2jax.analysis.scope import ImportBinding, Scope
from np2jax.analysis.tracing import JitPlan, ModuleTracing
from np2jax.analysis.values import ValueFacts
from np2jax.diagnostics import Diagnostic, Severity
from np2jax.tables import ApiRow


def _split_lines(text: str) -> list[str]:
    return re.split(r"\r\n|\r|\n", text)


# NumpyRef.result_cast for `r.astype(r.dtype)`: the same dtype, strongly typed (JAX's result of Python numbers is weak).
OWN_DTYPE = cst.Name("__own_dtype__")


@dataclass(eq=False)
class NumpyRef:
    """One use of a NumPy name inside a function body.

    ``node`` is the whole reference (``np.linalg.norm``), ``call`` the call it
    is the callee of, if any.  ``member`` is what follows the table row's name
    (``"at"`` for ``np.add.at``).  Rules may ``block()`` the rewrite; the
    rewriting rule sets ``rewrite`` to a qualified ``jax.numpy`` name.
    """

    node: cst.BaseExpression
    qualname: str
    row: ApiRow | None
    member: str
    call: cst.Call | None
    scope: Scope
    blocked: bool = False
    rewrite: str | None = None
    twin: str | None = None  # a jax.numpy twin a reporting rule found exact for this call (the table has none)
    # argument i, or element j of argument i's list/tuple, or (i, -1): every element of argument i (a local list)
    wrap_args: set[int | tuple] = field(default_factory=set)  # positions; (i, j) list elements; ("inexact", i)
    # keyword -> (new keyword, new value or None to keep it), or None to drop the argument
    keyword_changes: dict[str, tuple[str, cst.BaseExpression | None] | None] = field(default_factory=dict)
    result_cast: cst.BaseExpression | None = None  # `jnp.f(...).astype(result_cast)`: the dtype NumPy's result has; OWN_DTYPE: the result's own

    def block(self) -> None:
        self.blocked = True

    @property
    def name(self) -> str:
        """The NumPy name as users write it: ``np.linalg.norm`` -> ``linalg.norm``."""
        return self.qualname[len("numpy."):] if self.qualname.startswith("numpy.") else self.qualname


@dataclass(eq=False)
class FunctionInfo:
    qualname: str
    node: cst.FunctionDef
    line: int
    end_line: int = 0
    jit: bool = False
    static_argnums: tuple[int, ...] = ()
    class_name: str | None = None  # qualified name of the class, for methods
    class_bases: tuple[str, ...] = ()  # of a method: the same-module classes its class derives from, transitively
    calls: dict[str, cst.Call] = field(default_factory=dict)  # same-module callee -> first call
    references: dict[str, cst.Name] = field(default_factory=dict)  # same-module function used as a value -> first use
    imported_calls: dict[str, tuple[cst.Call, int]] = field(default_factory=dict)  # imported target -> first call, line
    call_statements: dict[cst.CSTNode, tuple | None] = field(default_factory=dict)  # call or reference -> its statement, for positions
    first_diagnostic: int = 0  # index of its first diagnostic in FileContext.diagnostics
    changed: bool = False  # the walker rewrote something in it, or it is jitted as it is (set before on_leave_function)
    as_is_reason: tuple[str, str] = ("", "")  # nothing in it needed rewriting: why it is not jitted, and what to use instead
    # nothing in it needed rewriting because what jax.jit cannot trace keeps its NumPy calls (an `if` on one's
    # result: analysis/eager_values.py): its blockers are reported as a rewritten function's are (NPJ301-NPJ303)
    blocked_as_is: bool = False
    # left as NumPy code though it could have run eagerly (NPJ304: eager jax.numpy would be far slower): its
    # callers stay NumPy too (propagation.py, links.py), so that it is handed NumPy arrays
    kept_numpy: bool = False
    # of a module-level function: what makes its result inexact under XLA (NPJ120's example and advice), for the
    # modules importing it (project.py: an "inexact" fact, reported where they round or compare it)
    inexact_return: tuple[str, str] | None = None
    # local lists and dicts a function of the module returns new (`params = init_params(n)`) whose items nothing else
    # refers to: `params[k] -= v` rebinds an item whether it holds a NumPy or a JAX array (propagation.py)
    fresh_items: frozenset[str] = frozenset()
    nested: list[FunctionInfo] = field(default_factory=list)  # of an outermost function: every function inside it
    outer: FunctionInfo | None = None  # of a nested function: the outermost function it is in
    decorator: str | None = None  # a decorator to add (the jit rule's), applied by the walker
    generated_names: set[str] = field(default_factory=set)  # names rewrites introduced in it
    needs: set[str] = field(default_factory=set)  # modules its rewrites refer to, kept only if it is not reverted
    epilogue: cst.BaseSmallStatement | None = None  # a statement to append to its body (kept only if it is not reverted)
    prologue: tuple[cst.BaseSmallStatement, ...] = ()  # statements to put first in its body, after the docstring (the same)

    @property
    def is_module_level(self) -> bool:
        return self.class_name is None and ".<locals>." not in self.qualname

    def has_errors(self, ctx: FileContext) -> bool:
        return any(d.severity is Severity.ERROR for d in ctx.diagnostics[self.first_diagnostic:])


UNSTABLE = "<unstable>"  # ForcedUnsupported.callee of a function whose migration a second pass changes again


@dataclass(frozen=True)
class ForcedUnsupported:
    """A function to leave untouched because it calls one that is (found by the engine's second pass)."""

    callee: str
    via_class: bool = False  # True: a method of the same class stays NumPy (they share `self`)
    via_caller: bool = False  # True: `callee` is a caller that stays NumPy and relies on this function's mutation
    via_result: bool = False  # True: `callee` is a caller that stays NumPy and writes into this function's result
    via_module: bool = False  # True: `callee` is in another module (as "`name` (path:line)", or a dotted import target)
    where: str = ""  # for an imported callee: where it stays NumPy code
    via_argument: str = ""  # `callee` hands this function `via_argument`, a function that stays NumPy code, to call
    attribute: str = ""  # `callee`, in another module, writes attributes of this name in place; this function sets one


class FileContext:
    """Per-file state shared by the walker and the rules."""

    def __init__(self, path: str, module: cst.Module, resolver: Resolver, source_lines: list[str]) -> None:
        self.path = path
        self.module = module
        self.resolver = resolver
        self.source_lines = source_lines
        self.diagnostics: list[Diagnostic] = []
        self.line = 1  # kept current by the walker
        self.scope: Scope = resolver.scopes[module]
        self.jnp_alias = "jnp"
        self.jnp_uses = 0  # rewrites that need the jax.numpy import
        self.precise_positions = True
        self.statement: tuple[cst.SimpleStatementLine, int] | None = None  # innermost, with its first line
        self.share({})
        self.function: FunctionInfo | None = None  # innermost function being walked
        self.forced_unsupported: dict[str, ForcedUnsupported] = {}
        self.imports: dict[str, str] = {}  # module-level imports np2jax.project may follow (analysis/links.py)
        self.stars: tuple[str, ...] = ()  # the modules its `from M import *` statements name
        self.blocked_statements: set[cst.CSTNode] = set()
        self._write_plans: dict[tuple, WritePlan | list | None] = {}
        self._aliasing: dict[cst.CSTNode, FunctionAliasing] = {}
        self.tracing: ModuleTracing | None = None  # jit plans; None when jit is off
        self.mutations: ModuleMutations | None = None  # functions that return the arguments they mutated
        self.attributes: ModuleAttributes | None = None  # `self.x` arrays that methods may rebind
        self.fresh_results: FreshResults | None = None  # functions whose results are always new arrays
        self.masked_results: set[cst.Call] = set()  # `np.f(..., out=np.zeros(..), where=m)` -> jnp.where (analysis/inplace_calls.py)
        self.call_keywords: dict[cst.Call, dict] = {}  # keyword changes rules ask for on calls other than NumPy's
        self.call_casts: dict[cst.Call, cst.BaseExpression] = {}  # `.astype(dtype)` rules ask for on calls other than NumPy's
        self.scaled_receivers: set[cst.Call] = set()  # `img.mean()` -> `(img * 1.0).mean()` (analysis/average_dtype.py)
        self.exact_grids: set[cst.Call] = set()  # `np.linspace(...)` of static values: `jnp.asarray(np.linspace(...))`
        self.call_wraps: dict[cst.Call, set[int]] = {}  # arguments to wrap in `jnp.asarray` on calls other than NumPy's
        self.call_funcs: dict[cst.Call, str] = {}  # callee -> jax's qualified name (`scipy.linalg.inv` -> jax.scipy's)
        self.jax_calls: set[cst.Call] = set()  # NumPy calls rewritten to jax.numpy ones (so far in the walk)
        self.jit_uses: set[str] = set()  # modules the added decorators refer to ("jax", "functools")
        self._jit_states: dict[str, JitState] = {}
        self._candidates: dict[cst.FunctionDef, JitState] = {}  # _jit_candidate, asked once per loop and conditional
        self._values: ValueFacts | None = None
        self._function_attributes: FunctionAttributeReads | None = None

    @property
    def function_attributes(self) -> FunctionAttributeReads:
        """Reads of functions' own attributes a jitted function lacks (``f.__defaults__``)."""
        if self._function_attributes is None:
            self._function_attributes = function_attribute_reads(self.module, "\n".join(self.source_lines))
        return self._function_attributes

    @property
    def values(self) -> ValueFacts:
        """Run-time facts about expressions (from array data? an integer?), shared by the hazard rules."""
        if self._values is None:
            self._values = ValueFacts(self.resolver)
        return self._values

    def jit_state(self, info: FunctionInfo) -> JitState:
        """Whether and how the jit rules decorate ``info`` (shared by NPJ300-NPJ304), once per function."""
        state = self._jit_states.get(info.qualname)
        if state is None:
            state = self._jit_states[info.qualname] = _jit_state(info, self)
        return state

    def write_plan(self, node: cst.BaseSmallStatement) -> WritePlan | None:
        """How (or why not) the subscript write ``node`` becomes functional; None if it is not one."""
        return self._planned(node, plan_write)

    def tuple_write_plans(self, node: cst.BaseSmallStatement) -> list[WritePlan | None] | None:
        """Plans for each element of ``a[i], b[i] = ...``; None if ``node`` is not such a statement."""
        return self._planned(node, plan_tuple_write)

    def attribute_writes(self, node: cst.BaseSmallStatement) -> list[AttributeWrite]:
        """The writes of ``node`` into an array's settable attributes (``y.shape = s``, ``z.real = x``)."""
        return self._planned(node, plan_attribute_writes) or []

    def chained_write_plans(self, node: cst.BaseSmallStatement) -> list[WritePlan | None] | None:
        """Plans for each target of ``a[i] = b[j] = v``; None if ``node`` is not such a statement."""
        return self._planned(node, plan_chained_write)

    def inplace_call_plan(self, call: cst.Call) -> InplaceCall | None:
        """The functional form of ``call`` when it is a statement of its own that changes a local array in
        place and has an exact one (analysis/inplace_calls.py)."""
        if not may_be_inplace_call(call):
            return None
        body = getattr(self.statement[0], "body", None) if self.statement is not None else None
        if not isinstance(body, (list, tuple)):  # outside a simple statement (a compound statement's header)
            return None
        for small in body:
            if isinstance(small, cst.Expr) and small.value is call:
                return self._planned(small, _plan_inplace)
        return None

    def aliasing(self) -> FunctionAliasing | None:
        """Aliasing facts for the innermost function, when the walker is directly in its scope."""
        function = self.function
        if function is None or self.scope is not self.resolver.scopes.get(function.node):
            return None
        aliasing = self._aliasing.get(function.node)
        if aliasing is None:
            returned, why = self.mutations.returned(function.node) if self.mutations is not None else (frozenset(), None)
            if self.mutations is not None:  # `A[i] += eps; return A` that nothing relies on: a rebinding too
                returned |= self.mutations.handed_back(function.node)
            relied = self.mutations.relied_on(function.node) if self.mutations is not None else {}
            aliasing = self._aliasing[function.node] = FunctionAliasing(
                function.node, self.scope, self.resolver, returned, why, self.attributes, relied, self.fresh_results
            )
        return aliasing

    def returned_parameters(self) -> frozenset[str]:
        """Parameters the function being walked returns instead of mutating them (see analysis/mutation.py)."""
        aliasing = self.aliasing()
        return aliasing.returned if aliasing is not None else frozenset()

    def _planned(self, node, planner):
        key = (planner, node)
        plan = self._write_plans.get(key, _UNPLANNED)
        if plan is _UNPLANNED:
            aliasing = self.aliasing()
            plan = None if aliasing is None else planner(node, aliasing, IndexClassifier(self.resolver, self.scope))
            self._write_plans[key] = plan
        return plan

    def use_jnp(self) -> str:
        """Record that a rewrite refers to jax.numpy; returns the alias to write."""
        self.jnp_uses += 1
        return self.jnp_alias

    # --- helpers for rules -------------------------------------------------
    def is_static(self, node: cst.BaseExpression) -> bool:
        return self.resolver.is_static(node, self.scope)

    def qualname(self, node: cst.BaseExpression) -> str | None:
        return self.resolver.qualname(node, self.scope)

    def share(self, memo: dict) -> None:
        """Keep the code of nodes and the positions computed for diagnostics in ``memo``, which the engine hands
        to each walk of the same module: they depend only on the (unchanging) original tree and source."""
        self._codes = memo.setdefault("codes", {})  # id(node) -> (node, code)
        self._statement_positions = memo.setdefault("statement positions", {})  # statement -> (positions, lines)
        self._function_positions = memo.setdefault("function positions", {})
        self._memo = memo

    @property
    def _positions(self):
        return self._memo.get("positions")

    def code(self, node: cst.CSTNode) -> str:
        entry = self._codes.get(id(node))
        if entry is not None and entry[0] is node:
            return entry[1]
        code = self.module.code_for_node(node)
        self._codes[id(node)] = (node, code)
        return code

    def report(
        self, code: str, severity: Severity, node: cst.CSTNode, message: str, use_instead: str,
        exact: bool = False, statement: tuple | None = None,
    ) -> None:
        line, col, end_line, end_col = self.span_in_statement(node, statement) if exact else self.span(node)
        self.diagnostics.append(
            Diagnostic(code, severity, message, self.path, line, col, end_line, end_col, use_instead)
        )

    def span(self, node: cst.CSTNode) -> tuple[int, int, int, int]:
        """1-based (line, col, end_line, end_col) of ``node`` in the original source.

        The walker knows the line.  A one-line node whose text occurs once on
        that line is located by searching; anything else gets libcst's exact
        positions, computed for the enclosing simple statement only (or, outside
        one, for the whole file, once).  With ``precise_positions`` off (the
        safety net's second pass, which only compares code) the line is enough.
        """
        if not self.precise_positions:
            return self.line, 1, self.line, 1
        text = self.code(node).strip()
        if "\n" not in text and 0 < self.line <= len(self.source_lines):
            source_line = self.source_lines[self.line - 1]
            col = source_line.find(text)
            if col >= 0 and source_line.find(text, col + 1) < 0:
                return self.line, col + 1, self.line, col + 1 + len(text)
        if self.statement is not None:
            found = self._statement_span(node, *self.statement)
            if found is not None:
                return found
        return self.exact_span(node)

    def _statement_span(self, node: cst.CSTNode, statement: cst.SimpleStatementLine, first_line: int):
        return self._mini_span(node, statement, first_line, self._statement_positions)

    def _function_span(self, node: cst.CSTNode, info: FunctionInfo):
        """``node``'s span from positions computed for ``info``'s function alone (None if not in it)."""
        return self._mini_span(node, info.node, None, self._function_positions, def_line=info.line)

    def _mini_span(self, node, statement, first_line, cache: dict, def_line: int | None = None):
        """Positions of ``statement`` rendered alone, mapped back to the original lines and columns.

        ``first_line`` is where the statement starts in the source; for a function
        it is found from ``def_line``, the line of its name.  A rendered line that
        is a suffix of its source line (the statement was indented there) is
        shifted right by the difference.
        """
        entry = cache.get(statement)
        if entry is None:
            mini = self.module.with_changes(body=[statement], header=[], footer=[])
            code, positions = code_and_positions(mini)
            # (a function's first line is found once; a statement's is given, the same at every walk)
            entry = cache[statement] = (positions, _split_lines(code),
                                        def_line - positions[statement.name].start.line + 1 if first_line is None else None)
        positions, lines, found_first_line = entry
        if first_line is None:
            first_line = found_first_line
        position = positions.get(node)
        if position is None:
            return None

        def locate(line: int, column: int) -> tuple[int, int]:
            original_line = first_line + line - 1
            rendered = lines[line - 1] if line - 1 < len(lines) else ""
            source = self.source_lines[original_line - 1] if original_line - 1 < len(self.source_lines) else ""
            shift = len(source) - len(rendered) if source.endswith(rendered) else 0
            return original_line, column + shift + 1

        start = locate(position.start.line, position.start.column)
        end = locate(position.end.line, position.end.column)
        return (*start, *end)

    def def_name_span(self, info: FunctionInfo) -> tuple[int, int, int, int]:
        """Where the name of ``def`` ``info`` is, from the line the walker recorded for it."""
        name = info.node.name.value
        source_line = self.source_lines[info.line - 1] if 0 < info.line <= len(self.source_lines) else ""
        match = _DEF_NAME.search(source_line)
        if match is None or match.group(1) != name:
            return self.exact_span(info.node.name)
        return info.line, match.start(1) + 1, info.line, match.end(1) + 1

    def span_in_statement(self, node: cst.CSTNode, statement: tuple | None) -> tuple[int, int, int, int]:
        """The exact span of ``node``, found in ``statement`` (as kept in ``self.statement``) when given."""
        if statement is not None and self.precise_positions:
            found = self._statement_span(node, *statement)
            if found is not None:
                return found
        return self.exact_span(node)

    def exact_span(self, node: cst.CSTNode) -> tuple[int, int, int, int]:
        """Like ``span``, for any node of the original tree, wherever the walker is."""
        if not self.precise_positions:
            return self.line, 1, self.line, 1
        if self.function is not None:
            found = self._function_span(node, self.function)
            if found is not None:
                return found
        position = self._exact_positions()[node]
        return position.start.line, position.start.column + 1, position.end.line, position.end.column + 1

    def _exact_positions(self):
        if self._positions is None:
            self._memo["positions"] = code_positions(self.module)
        return self._positions


def _plan_inplace(node, aliasing, _classifier):
    return plan_inplace_call(node, aliasing)



def code_positions(module: cst.Module):
    """libcst's PositionProvider metadata of ``module`` (node -> CodeRange).

    ``MetadataWrapper.resolve`` also runs an (empty) batch of batchable providers, a full visit that rebuilds
    the tree, before the provider's own codegen pass: half the cost.  The provider is run by itself here when
    this libcst has the method that does it."""
    return code_and_positions(module)[1]


def code_and_positions(module: cst.Module) -> tuple[str, dict]:
    """``module.code`` and ``code_positions(module)``, from one codegen pass when this libcst allows it (the
    provider's own pass, ``PositionProvider._gen_impl``, builds the same tokens ``Module.code`` joins)."""
    provider = PositionProvider()
    if _POSITION_STATE is None or not hasattr(provider, "_gen_impl") or not hasattr(provider, "_computed"):
        return module.code, MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    provider._computed = {}
    state = _POSITION_STATE(default_indent=module.default_indent, default_newline=module.default_newline, provider=provider)
    module._codegen(state)  # (what PositionProvider._gen_impl does)
    return "".join(state.tokens), provider._computed


try:
    from libcst.metadata.position_provider import PositionProvidingCodegenState as _POSITION_STATE
except ImportError:  # pragma: no cover - another libcst
    _POSITION_STATE = None

_DEF_NAME = re.compile(r"\bdef\s+(\w+)")
_UNPLANNED = object()  # (a plan may be None)


@dataclass
class JitState:
    """``plan`` when the function is a jit candidate; ``skip`` says why a changed function is not one."""

    plan: JitPlan | None = None
    skip: str | None = None
    already_jitted: bool = False


def _jit_state(info: FunctionInfo, ctx: FileContext) -> JitState:
    if ctx.tracing is None or not (info.changed or info.blocked_as_is) or info.has_errors(ctx):
        return JitState()
    return _jit_candidate(info, ctx)


BLOCKED_AS_IS = ("<blocked>", "")  # as_is_verdict: see FunctionInfo.blocked_as_is
# notes on what the JAX code computes differently (x64 precision, the order of ties): they leave nothing as it was
BEHAVIOUR_NOTES = frozenset({"NPJ107", "NPJ108"})


def as_is_verdict(info: FunctionInfo, ctx: FileContext) -> tuple[str, str] | None:
    """For a function with nothing to rewrite: None if it is array code ``jax.jit`` can trace as it is
    (analysis/array_code.py), else why it is not jitted and what to use instead ("" when there is nothing to say)."""
    tracing = ctx.tracing
    if tracing is None:
        return "", ""
    if any(d.code not in BEHAVIOUR_NOTES for d in ctx.diagnostics[info.first_diagnostic:]):
        return "", ""  # a rule chose to leave something in it as it was, and said why
    if not info.is_module_level or info.node.decorators:
        return _judge_candidate(info, ctx).skip or "", ""
    name = info.node.name.value
    if tracing.function_node(name) is not info.node:
        return f"`{name}` is defined more than once in this module", "give each definition its own name"
    if not tracing.array_code(name):
        return ("nothing in it is specific to arrays (no NumPy or jax.numpy call, no array method or attribute): it may "
                "compute with Python numbers too, which jax.jit would turn into arrays"), (
                "nothing to do; decorate it with `@jax.jit` by hand if it only ever takes arrays")
    if name in tracing.array_code.keeps_numpy:
        plan = _jit_candidate(info, ctx).plan
        if plan is not None and not plan.ok:
            return BLOCKED_AS_IS  # the NumPy calls stay for what jax.jit cannot trace: the blockers say why
        return "it calls NumPy functions that stay NumPy, which cannot take traced arrays", "the jax.numpy functions, where their diagnostics allow"
    state = _jit_candidate(info, ctx)
    plan = state.plan
    if plan is None:
        return state.skip or "", ""
    if not plan.ok:
        blocker = plan.blockers[0]
        line = ctx.exact_span(blocker.node)[0]
        return f"{blocker.message} (line {line})", blocker.use_instead
    if not plan.returns_array:
        return ("it returns only values known at trace time (shapes, sizes, flags): under jax.jit they would become arrays",
                "nothing to do: jitted callers run it at trace time")
    return None


def loop_plan(info: FunctionInfo | None, ctx: FileContext) -> JitPlan | None:
    """The jit plan of the function the walker is in, if it will be jitted (so its loops may become fori_loops)."""
    if info is None or ctx.tracing is None:
        return None
    plan = _jit_candidate(info, ctx).plan
    return plan if plan is not None and plan.ok else None


def runs_on_jax_arrays(info: FunctionInfo | None, ctx: FileContext) -> bool:
    """Will ``info`` (or the outermost function it is in) be jitted, so that it only ever sees JAX arrays?
    (A migrated function is jitted exactly when its jit plan is OK; one with an error is left as it was.)"""
    if info is None:
        return False
    return loop_plan(info.outer or info, ctx) is not None


def _jit_candidate(info: FunctionInfo, ctx: FileContext) -> JitState:
    state = ctx._candidates.get(info.node)
    if state is None:
        state = ctx._candidates[info.node] = _judge_candidate(info, ctx)
    return state


def _judge_candidate(info: FunctionInfo, ctx: FileContext) -> JitState:
    node = info.node
    if node.decorators:
        if all(_is_jit(d.decorator, ctx) for d in node.decorators):
            return JitState(already_jitted=True)
        names = ", ".join(f"`@{ctx.code(d.decorator).strip()}`" for d in node.decorators)
        return JitState(skip=f"decorated with {names}: np2jax does not know how jax.jit combines with it")
    if info.class_name is not None and node.name.value == "__init__":
        return JitState(skip="a constructor: it sets up the object's state, which jax.jit cannot return")
    if info.class_name is not None:
        return JitState(skip="a method: jax.jit would take `self` as a fixed argument and miss later changes to its state")
    if not info.is_module_level:
        return JitState()  # a nested function: traced as part of the function that calls it (rules/not_jitted.py)
    if isinstance(node.asynchronous, cst.Asynchronous):
        return JitState(skip="an `async` function")
    read = ctx.function_attributes.read_of(node)
    if read is not None:
        return JitState(skip=f"`{ctx.code(read).strip()}` (line {ctx.exact_span(read)[0]}) reads an attribute of the function "
                             f"object that a jitted function does not have")
    for module_name in ("jax", "functools"):
        bindings = ctx.scope.module.bindings.get(module_name, [])
        if bindings and not all(isinstance(b, ImportBinding) and b.qualname == module_name for b in bindings):
            return JitState(skip=f"the name `{module_name}` means something else in this module")
    plan = ctx.tracing.plan(node.name.value)
    if plan is None:
        return JitState(skip="np2jax could not analyse it")
    if plan.ok:  # its fori_loop/scan bodies take the loop index as a traced value (analysis/index_calls.py)
        ctx.resolver.trace_loops([*(loop.iter for loop in plan.loops), *(loop.iter for loop in plan.whiles if isinstance(loop, cst.For))])
    return JitState(plan=plan)


def _is_jit(expr: cst.BaseExpression, ctx: FileContext) -> bool:
    scope = ctx.scope.module
    if isinstance(expr, cst.Call):
        if ctx.resolver.qualname(expr.func, scope) == "functools.partial" and expr.args:
            return ctx.resolver.qualname(expr.args[0].value, scope) == "jax.jit"
        return ctx.resolver.qualname(expr.func, scope) == "jax.jit"
    return ctx.resolver.qualname(expr, scope) == "jax.jit"
