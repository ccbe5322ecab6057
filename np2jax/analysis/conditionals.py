"""Conditionals on traced values that become ``jax.lax.cond``: the one decision shared by the jit analysis and NPJ306.

``jax.lax.cond(pred, lambda: a, lambda: b)`` is what ``a if pred else b`` means
under ``jax.jit``: only the chosen branch runs, and when the branches differ in
shape or dtype it raises at trace time instead of broadcasting or promoting
(``jnp.where`` would do both, silently).  A conditional is converted when

* its test gives exactly Python's truth value: a comparison, ``np.isnan``,
  ``.any()``...; a number is tested as ``!= 0`` (NaN is true, as in Python);
  ``and``/``or``/``not`` become ``jnp.logical_*`` (a static left operand keeps
  Python's short-circuit: ``w is not None and w.sum() > 0``);
* each branch is side-effect free (NumPy/jax.numpy calls, arithmetic, array
  methods that do not write, functions of this module that can be jitted);
* a statement ``if`` only assigns the same names in every branch (with no
  branch reading a name it assigned itself), or returns in every branch
  (a ``return`` right after an ``if`` without ``else`` is its ``else``); a
  guard clause ``if t: return a`` in the function's body may be followed by
  statements that only bind local names before the final ``return b``, and an
  ``else:`` may run such statements before its ``return`` (early_returns.py);
* a Python number in one branch meets a 0-d value of its kind in the other
  (``total if total > 0 else 0.0``): a number beside an array, or beside an
  int array (whose narrow dtypes a weakly typed result would take on), is left
  alone;
* the branches' dtype kinds cannot differ with the data: ``1`` beside ``-1.5``,
  or ``x / s`` (a float) beside ``x`` (an int array for an integer ``x``), would
  give NumPy an int or a float depending on the branch taken, which no
  ``jax.lax.cond`` can (dtype_sources.py).

Everything else keeps blocking ``jax.jit`` (NPJ301), with the reason.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import libcst as cst

from np2jax.analysis.branches import (
    assignments,
    following_return,
    if_chain,
    returned,
    small_statements,
    subscript_write,
    written_value,
)
from np2jax.analysis.dtype_sources import dtype_source, mixed_kinds, runtime_dtype
from np2jax.analysis.early_returns import final_return, rest_reason
from np2jax.analysis.loops import all_names, binding_targets, descendants
from np2jax.analysis.resolve import Resolver, is_numpy
from np2jax.analysis.scope import Scope, ValueBinding
from np2jax.analysis.value_kinds import ORDER, ORDERING, Value, ValueClassifier
from np2jax.tables import lookup_numpy
from np2jax.visitors import FastVisitor, child_nodes, visit

PURE_NUMPY_KINDS = frozenset({"function", "constructor", "dtype", "static", "constant"})
PURE_JAX_MODULES = ("jax.numpy.", "jax.lax.", "jax.nn.", "jax.scipy.")
PURE_BUILTINS = frozenset("abs len float int bool complex round min max sum pow isinstance".split())
PURE_METHODS = frozenset(
    """sum mean std var min max argmin argmax prod cumsum cumprod any all ptp round reshape transpose swapaxes
    squeeze astype repeat ravel flatten diagonal trace dot clip conj conjugate copy take""".split()
)
STATIC_BOOL_CALLS = frozenset({"builtins.isinstance", "builtins.hasattr", "builtins.callable", "builtins.bool"})


@dataclass(frozen=True)
class Truth:
    """How an ``if`` test is written so that ``jax.lax.cond`` sees Python's truth value.

    ``how``: ``"as-is"`` (a boolean array), ``"nonzero"`` (a number: ``(t) != 0``),
    ``"python"`` (static, a bool already), ``"bool"`` (static: ``bool(t)``),
    ``"and"``/``"or"``/``"not"`` (``jnp.logical_*`` of ``parts``), ``"python-and"``/
    ``"python-or"`` (a static left operand: Python short-circuits), ``"chain"``
    (``a < b < c``: ``jnp.logical_and`` of the links).
    """

    how: str
    parts: tuple[Truth, ...] = ()


@dataclass(frozen=True)
class Conversion:
    """A conditional that becomes ``jax.lax.cond``.

    ``form``: ``"expression"`` (``a if t else b``), ``"assign"`` (every branch assigns
    ``names``), ``"return"`` (every branch returns; ``moved``: the ``else`` branch runs
    statements before its ``return``, which move out of the ``if``) or
    ``"early-return"`` (``if t: return a`` and the ``return b`` that ends the block,
    ``following``, right after it or after statements that only bind local names).
    ``truths``: one per test of the ``if``/``elif`` chain. ``select``: every value is 0-d and a
    Python number meets an array in some position, so the rewrite is ``jnp.where`` (which
    promotes the number to the array's dtype, as NumPy does), not ``jax.lax.cond`` (which would
    refuse a float64 number beside a float32 array under x64).
    """

    form: str
    truths: tuple[Truth, ...]
    names: tuple[str, ...] = ()
    following: cst.SimpleStatementLine | None = None
    moved: bool = False
    select: bool = False


class ConditionalSites(FastVisitor):
    """Where the ``if`` statements of one function body are: elif links, the statement after each, branch owners."""

    def __init__(self, body: cst.BaseSuite | None = None) -> None:
        super().__init__()
        self.body = body  # the function's body
        self.elif_of: dict[cst.If, cst.If] = {}  # an elif -> the first `if` of its chain
        self.following: dict[cst.If, cst.SimpleStatementLine] = {}  # an `if` -> the simple statement right after it
        self.rest: dict[cst.If, list[cst.BaseStatement]] = {}  # an `if` of the function's body -> the statements after it
        self.owner: dict[cst.BaseExpression, cst.If] = {}  # a value assigned in a branch -> the chain's first `if`
        self.before: dict[cst.If, tuple[list[cst.BaseStatement], int]] = {}  # an `if` -> its block, its position there

    def _block(self, statements, top: bool) -> None:
        for position, (statement, after) in enumerate(zip(statements, [*statements[1:], None])):
            if isinstance(statement, cst.If) and isinstance(after, cst.SimpleStatementLine):
                self.following[statement] = after
            if isinstance(statement, cst.If) and top:
                self.rest[statement] = statements[position + 1:]
            if isinstance(statement, cst.If):
                self.before[statement] = (statements, position)

    def visit_IndentedBlock(self, node: cst.IndentedBlock) -> None:
        self._block(list(node.body), node is self.body)

    def visit_If(self, node: cst.If) -> None:
        top = self.elif_of.get(node, node)
        if isinstance(node.orelse, cst.If):
            self.elif_of[node.orelse] = top
        blocks = [node.body] + ([node.orelse.body] if isinstance(node.orelse, cst.Else) else [])
        for block in blocks:
            for statement in small_statements(block) or ():
                if isinstance(statement, cst.Assign):
                    self.owner[statement.value] = top
                    if isinstance(statement.value, cst.Tuple):  # `a, b = b, a` binds each name to its element
                        self.owner.update((e.value, top) for e in statement.value.elements)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        return False


class ConditionalDecisions:
    """Decides, once per node, whether a conditional of one function becomes ``jax.lax.cond``.

    ``traced(node)``: does the expression depend on traced values (array data or
    a fori_loop index)?  ``callee_ok(name)``: may this module's function ``name``
    be called in a branch (it can be jitted)?  ``bound_before(name, node)``: is
    ``name`` assigned before ``node`` (an ``if`` without ``else`` keeps its value)?
    """

    def __init__(
        self, resolver: Resolver, scope: Scope, body: cst.BaseSuite,
        traced: Callable[[cst.BaseExpression], bool], callee_ok: Callable[[str], bool],
        bound_before: Callable[[str, cst.CSTNode], bool], rebinds: dict[cst.Expr, tuple[str, ...]] | None = None,
    ) -> None:
        self.rebinds = rebinds or {}  # `f(p)` statements that become `p = f(p)` (NPJ203): assignments of `p`
        self.resolver = resolver
        self.scope = scope
        self.traced = traced
        self.callee_ok = callee_ok
        self.bound_before = bound_before
        self.values = ValueClassifier(resolver)
        self.sites = ConditionalSites(body)
        visit(body, self.sites)
        self._decided: dict[cst.CSTNode, Conversion | str | None] = {}
        self._kept: list[cst.Name] = []
        self._reaching: dict[cst.Name, cst.BaseExpression] = {}  # a name a branch leaves alone -> its value before the `if`

    def value(self, node: cst.BaseExpression) -> Value:
        return self.values.value(node, self.scope)

    def decide(self, node: cst.If | cst.IfExp) -> Conversion | str | None:
        """The conversion; a reason (str) when the test is traced but it cannot be converted; None when the test is static."""
        if node in self._decided:
            return self._decided[node]
        self._decided[node] = "it is nested in itself"  # a cycle through name bindings
        if isinstance(node, cst.IfExp):
            decision = self._expression(node)
        elif node in self.sites.elif_of:
            decision = None  # decided with its chain's first `if`
        else:
            decision = self._statement(node)
        self._decided[node] = decision
        return decision

    def truth(self, test: cst.BaseExpression) -> Truth | str:
        """How ``test`` gives Python's truth value as a traced boolean, or why it cannot (a loop's test, too)."""
        return self._truth(test)

    def static_leaves(self, test: cst.BaseExpression, truth: Truth) -> list[cst.BaseExpression]:
        """The parts of a converted test that Python still evaluates (they must be static)."""
        if truth.how in ("python", "bool"):
            return [test]
        if truth.how == "not":
            return self.static_leaves(test.expression, truth.parts[0])
        if truth.how in ("and", "or", "python-and", "python-or"):
            return [*self.static_leaves(test.left, truth.parts[0]), *self.static_leaves(test.right, truth.parts[1])]
        return []

    def logic_nodes(self, test: cst.BaseExpression, truth: Truth) -> list[cst.CSTNode]:
        """The ``and``/``or``/``not``/chained comparisons a converted test turns into ``jnp.logical_*``."""
        if truth.how == "chain":
            return [test]
        if truth.how == "not":
            return [test, *self.logic_nodes(test.expression, truth.parts[0])]
        if truth.how in ("and", "or", "python-and", "python-or"):
            return [test, *self.logic_nodes(test.left, truth.parts[0]), *self.logic_nodes(test.right, truth.parts[1])]
        return []

    # --- the two shapes of conditional ---------------------------------------------
    def _expression(self, node: cst.IfExp) -> Conversion | str | None:
        if not self.traced(node.test):
            return None
        if _has_own_comments(node):
            return "a comment sits between its parts, and the `jax.lax.cond` call would lose it (move the comment above the statement)"
        truth = self._truth(node.test)
        if isinstance(truth, str):
            return truth
        reason = self._branch_values([[node.body], [node.orelse]], [node.test])
        return reason or Conversion("expression", (truth,), select=self._select([[node.body], [node.orelse]], [node.test]))

    def _statement(self, node: cst.If) -> Conversion | str | None:
        tests, bodies, else_body = if_chain(node)
        if not any(self.traced(test) for test in tests):
            return None
        truths = []
        for test in tests:
            truth = self._truth(test)
            if isinstance(truth, str):
                return truth
            truths.append(truth)
        returns = [returned(body) for body in bodies]
        if all(value is not None for value in returns):
            return self._returns(node, tuple(truths), returns, else_body)
        branches = [assignments(body, writes=True, rebinds=self.rebinds) for body in bodies]
        if any(branch is None for branch in branches):
            return "its branches do more than assign names or array elements (or return) from expressions"
        if else_body is not None:
            final = assignments(else_body, writes=True, rebinds=self.rebinds)
            if final is None:
                return "its `else` branch does more than assign names from expressions"
            branches.append(final)
        # Every name any branch assigns; a branch that leaves one alone gives its value from before the `if`.
        names = tuple(dict.fromkeys(name for branch in branches for statement in branch for name, _ in statement))
        for branch in branches:
            reason = self._branch_order(branch) or self._writes(branch)
            if reason:
                return reason
        # A write `x[i] = v` gives the branch `x.at[i].set(v)`: `x`'s shape and dtype
        assigned = [{n: written_value(v) for statement in branch for n, v in statement} for branch in branches]
        self._kept.extend(v for branch in assigned for v in branch.values())  # synthesized `acc + (v)`: keep alive
        if else_body is None:
            assigned.append({})
        kept = [name for name in names if any(name not in branch for branch in assigned)]
        missing = [name for name in kept if not self.bound_before(name, node)]
        if missing:
            return f"`{missing[0]}` is set only " + ("when the test is true" if else_body is None else "in some branches")
        unchanged = {name: cst.Name(name) for name in kept}
        self._kept.extend(unchanged.values())  # the classifier caches by id(): keep them alive
        for name, stand_in in unchanged.items():
            block, position = self.sites.before.get(node, ([], 0))
            value = reaching_value(name, block[:position])
            if value is not None:
                self._reaching[stand_in] = value
        values = [[branch.get(name, unchanged.get(name)) for name in names] for branch in assigned]
        reason = self._branch_values(values, tests)
        return reason or Conversion("assign", tuple(truths), names, select=self._select(values, tests))

    def _returns(self, node: cst.If, truths: tuple[Truth, ...], returns: list, else_body) -> Conversion | str:
        following, rest = None, []
        if else_body is not None:
            final = returned(else_body)
            if final is None and isinstance(else_body, cst.IndentedBlock):
                line = final_return(list(else_body.body))
                final, rest = (line.body[0].value, list(else_body.body[:-1])) if line is not None else (None, [])
            if final is None:
                return "its `else` branch does more than compute and return a value"
        else:
            following = self.sites.following.get(node)
            final = following_return(following)
            if final is None and node in self.sites.rest:
                following = final_return(self.sites.rest[node])
                final, rest = (following.body[0].value, self.sites.rest[node][:-1]) if following is not None else (None, [])
            if final is None and node not in self.sites.rest:
                return "it returns early inside a block, and something other than a `return` follows"
            if final is None:
                return "it returns early and the function's body does not end with a `return`"
        tests = if_chain(node)[0]
        reason = rest_reason(self, rest, [*tests, *returns], tests) if rest else ""
        columns = [[value] for value in [*returns, final]]
        reason = reason or self._branch_values(columns, tests)
        form = "return" if following is None else "early-return"
        return reason or Conversion(form, truths, following=following, moved=bool(rest) and following is None,
                                    select=self._select(columns, tests))

    def _branch_order(self, branch: list[list[tuple[str, cst.BaseExpression]]]) -> str:
        assigned = [name for statement in branch for name, _ in statement]
        if len(set(assigned)) != len(assigned):
            return "a branch assigns the same name twice"
        earlier: set[str] = set()
        for statement in branch:
            for _, value in statement:
                used = {n.value for n in all_names(value)} & earlier
                if used:
                    return f"a branch reads `{sorted(used)[0]}` after assigning it"
            earlier.update(name for name, _ in statement)
        return ""

    def _writes(self, branch: list[list[tuple[str, cst.BaseExpression]]]) -> str:
        """Why a branch's writes into arrays, or its ``acc op= v``, cannot become values of ``jax.lax.cond``
        ("" when they can)."""
        for statement in branch:
            for _, value in statement:
                if isinstance(value, cst.AugAssign) and isinstance(value.target, cst.Name):
                    reason = self._augmented_kind(value)
                    if reason:
                        return reason
                    continue
                target = subscript_write(value) if isinstance(value, (cst.Assign, cst.AugAssign)) else None
                if target is None:
                    continue
                parts = [value.value, *(e.slice for e in target.slice)]
                if not all(self._pure_slice(p) if isinstance(p, cst.BaseSlice) else self.pure(p) for p in parts):
                    return f"np2jax cannot tell that the write `{_short(target)}` is free of side effects"
        return ""

    def _augmented_kind(self, statement: cst.AugAssign) -> str:
        """``acc += x[0]`` after ``acc = 0``: NumPy's ``acc`` is an int or a float depending on the branch taken,
        which no ``jax.lax.cond`` can be: the dtype kind before and after must be known and the same."""
        name = statement.target.value
        _, bindings = self.scope.lookup(name)
        before = [b.value for b in bindings if isinstance(b, ValueBinding) and not b.augmented]
        kinds = {self.value(value).kind for value in before}
        other = self.value(statement.value).kind
        after = None
        if len(kinds) == 1 and kinds <= set(ORDER) and other in ORDER:  # NumPy's promotion of the two kinds
            after = ORDER[max(ORDER.index(next(iter(kinds))), ORDER.index(other),
                              ORDER.index("float") if isinstance(statement.operator, cst.DivideAssign) else 0)]
        # Kinds np2jax cannot tell are let through: where they do differ, jax.lax.cond raises when tracing (loudly);
        # an int or a bool that meets such values, or a known other kind, is not.
        if len(kinds) != 1 or (after in ORDER and kinds & set(ORDER) and kinds != {after}) or (
                after not in ORDER and kinds <= {"int", "bool"}):
            return f"`{_short(statement)}` may change the dtype kind of `{name}` (NumPy's result would depend on the branch taken)"
        return ""

    # --- branches ----------------------------------------------------------------
    def _branch_values(self, branches: list[list[cst.BaseExpression]], tests: list[cst.BaseExpression]) -> str:
        """Why the branches' values cannot become ``jax.lax.cond``'s ("" when they can)."""
        values = self.values.assuming(frozenset(_compared(tests)))
        for branch in branches:
            for value in branch:
                if _not_array(value) or (isinstance(value, cst.Name) and self._may_not_be_array(value.value)):
                    return f"`{_short(value)}` may be None or a string (jax.lax.cond returns arrays)"
                if not self.pure(value):
                    return self._impure(value)
        for position in range(len(branches[0])):
            reason = self._one_type([branch[position] for branch in branches], values)
            if reason:
                return reason
        return ""

    def _select(self, branches: list[list[cst.BaseExpression]], tests: list[cst.BaseExpression]) -> bool:
        """Every value 0-d, and a Python number beside an array in some position: ``jnp.where`` rather than
        ``jax.lax.cond``, which needs one dtype where JAX gives the number its own (float64 under x64)."""
        # Certainly 0-d, without assuming what the tests compare is: a one-element array of shape (1,) passes an
        # `if`, and jnp.where would broadcast the number to it where jax.lax.cond raises.
        kinds = [[self.value(node) for node in branch] for branch in branches]
        if not all(v.scalar or v.weak for branch in kinds for v in branch):
            return False
        # A Python float beside a 0-d array of a kind np2jax cannot tell (`x.sum()` of an int array) stays
        # jax.lax.cond, which raises on int beside float: jnp.where would make the int a float32 silently
        mixed = [position for position, column in enumerate(zip(*kinds)) if len({v.weak for v in column}) == 2]
        return bool(mixed) and all(
            kinds[b][position].weak or kinds[b][position].kind in ("float", "complex") or _true_division(branches[b][position])
            for position in mixed for b in range(len(branches)))

    def _container(self, node: cst.BaseExpression) -> bool:
        """A tuple or list display, or a local name bound to one somewhere."""
        if isinstance(node, (cst.Tuple, cst.List, cst.ListComp)):
            return True
        if isinstance(node, cst.Name):
            found, bindings = self.scope.lookup(node.value)
            return found is not None and found.kind == "function" and any(
                isinstance(b, ValueBinding) and isinstance(b.value, (cst.Tuple, cst.List, cst.ListComp)) for b in bindings)
        return False

    def _one_type(self, column: list[cst.BaseExpression], classifier: ValueClassifier) -> str:
        """Why the values may not have one type ("" when they have).

        Shapes and dtypes only need checking where jax.lax.cond would predictably raise: it checks
        them itself when tracing, so a wrong guess here can never make a silent difference.
        """
        chosen = next((node for node in column if runtime_dtype(node, self.scope, self.resolver)), None)
        if chosen is not None:  # `timeline = np.arange(n, dtype=dtype)` beside `np.arange(n, dtype=np.int64)`
            return f"`{_short(chosen)}` has a dtype chosen at run time, which the other branches may not have"
        container = next((node for node in column if self._container(node)), None)
        if container is not None:  # `best = (s, l, v)` beside `best` bound to `(-np.inf, None, None)`
            return f"`{_short(container)}` is a tuple or list: jax.lax.cond needs branches of one structure and dtype per element"
        values = [classifier.value(node, self.scope) for node in column]
        weak = [v for v in values if v.weak]
        if not weak:
            scalar = next((node for node, v in zip(column, values) if v.scalar), None)
            other = next((node for node, v in zip(column, values) if not v.scalar), None)
            if scalar is not None and other is not None:
                return f"`{_short(other)}` may not be 0-d like `{_short(scalar)}` (NumPy would return either)"
            # Arrays on both sides: jax.lax.cond checks shapes and dtypes when tracing; kinds that differ for some
            # inputs (a float beside an array of a parameter's dtype) would make it raise where NumPy returns.
            return mixed_kinds(self._as_assigned(column), self.scope, self.resolver, classifier) or ""
        if any(not v.numeric or v.kind == "complex" for v in weak):
            return "a branch is a Python number jax.lax.cond cannot match"
        strong = [(node, v) for node, v in zip(column, values) if not v.weak]
        for node, v in strong:
            if not v.scalar:
                return f"one branch is a Python number and `{_short(node)}` may not be 0-d (NumPy would return either)"
        kinds = {v.kind for v in values}
        if "bool" in kinds:
            return "" if kinds == {"bool"} else "a branch is a bool and another is not"
        strong_kinds = {v.kind for _, v in strong}
        if strong_kinds - {"float", "number"} or ("number" in strong_kinds and "int" in {v.kind for v in weak}):
            return "a Python number meets an array whose dtype kind np2jax cannot tell is a float"
        if kinds == {"int", "float"} or (kinds == {"int", "number"} and not strong):
            return "a branch is an int and another a float: NumPy's result kind depends on the branch taken"
        for node, v in zip(self._as_assigned([node for node, _ in strong]), [v for _, v in strong]):
            source = dtype_source(node, self.scope, self.resolver, classifier) if v.kind == "number" else None
            if source is not None and source[0] in ("like", "real"):  # (`np.max(np.abs(x))`: an int for an int `x`)
                return (f"`{_short(node)}` has the dtype of `{source[1]}` and another branch is a Python float: "
                        f"an int `{source[1]}` would make NumPy's result kind depend on the branch taken")
        return ""

    def _as_assigned(self, column: list[cst.BaseExpression]) -> list[cst.BaseExpression]:
        """``column`` with a name a branch leaves alone replaced by the value it was given just before the ``if``
        (where np2jax can tell), for where its dtype comes from."""
        return [self._reaching.get(node, node) for node in column]

    def _may_not_be_array(self, name: str) -> bool:
        _, bindings = self.scope.lookup(name)
        return any(isinstance(b, ValueBinding) and _not_array(b.value) for b in bindings)

    def _impure(self, value: cst.BaseExpression) -> str:
        stack: list[cst.CSTNode] = [value]
        while stack:
            node = stack.pop()
            if isinstance(node, cst.IfExp) and isinstance(self.decide(node), str):
                return f"it contains `{_short(node)}`, which cannot be converted"
            if not isinstance(node, (cst.Lambda, cst.BaseComp)):
                stack.extend(child_nodes(node))
        return f"np2jax cannot tell that `{_short(value)}` is free of side effects"

    def pure(self, node: cst.CSTNode) -> bool:
        """Free of side effects, so running it when tracing both branches changes nothing."""
        if isinstance(node, (cst.Name, cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString, cst.ConcatenatedString)):
            return True
        if isinstance(node, cst.Attribute):
            return self.pure(node.value)
        if isinstance(node, cst.Subscript):
            return self.pure(node.value) and all(self._pure_slice(e.slice) for e in node.slice)
        if isinstance(node, cst.BinaryOperation):
            return self.pure(node.left) and self.pure(node.right)
        if isinstance(node, cst.UnaryOperation):
            return self.pure(node.expression)
        if isinstance(node, cst.Comparison):
            return self.pure(node.left) and all(self.pure(c.comparator) for c in node.comparisons)
        if isinstance(node, (cst.Tuple, cst.List)):
            return all(isinstance(e, cst.Element) and self.pure(e.value) for e in node.elements)
        if isinstance(node, cst.Call):
            return self._pure_callee(node) and all(not a.star and self.pure(a.value) for a in node.args)
        if isinstance(node, cst.IfExp):
            parts = self.pure(node.test) and self.pure(node.body) and self.pure(node.orelse)
            return parts and not isinstance(self.decide(node), str)
        return False

    def _pure_slice(self, index: cst.BaseSlice) -> bool:
        if isinstance(index, cst.Index):
            return index.star is None and self.pure(index.value)
        return all(part is None or self.pure(part) for part in (index.lower, index.upper, index.step))

    def _pure_callee(self, node: cst.Call) -> bool:
        func = node.func
        if any(a.keyword is not None and a.keyword.value == "out" for a in node.args):
            return False
        qualname = self.resolver.qualname(func, self.scope)
        if qualname is not None:
            if is_numpy(qualname):
                row = lookup_numpy(qualname)
                return row is not None and row.jax is not None and row.kind in PURE_NUMPY_KINDS
            if qualname.startswith(PURE_JAX_MODULES) or qualname.startswith("math."):
                return True
            if qualname.startswith("builtins."):
                return qualname[len("builtins."):] in PURE_BUILTINS
            return False
        if isinstance(func, cst.Attribute):
            return func.attr.value in PURE_METHODS and self.pure(func.value)
        if isinstance(func, cst.Name):
            found, _ = self.scope.lookup(func.value)
            return found is not None and found.kind == "module" and self.callee_ok(func.value)
        return False

    # --- tests -------------------------------------------------------------------
    def _truth(self, test: cst.BaseExpression) -> Truth | str:
        if not self.traced(test):
            return Truth("python" if self._static_bool(test) else "bool")
        if isinstance(test, cst.BooleanOperation):
            how = "and" if isinstance(test.operator, cst.And) else "or"
            right = self._truth(test.right)
            if isinstance(right, str):
                return right
            if not self.traced(test.left):  # Python evaluates it and short-circuits as before
                return Truth(f"python-{how}", (Truth("python" if self._static_bool(test.left) else "bool"), right))
            if not self.pure(test.right):
                return f"`{how}` would evaluate `{_short(test.right)}` always, and np2jax cannot tell it is free of side effects"
            left = self._truth(test.left)
            return left if isinstance(left, str) else Truth(how, (left, right))
        if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
            inner = self._truth(test.expression)
            return inner if isinstance(inner, str) else Truth("not", (inner,))
        if isinstance(test, cst.Comparison):
            if not all(isinstance(c.operator, ORDERING) for c in test.comparisons):
                return "an `in`/`is` test on traced values"
            if len(test.comparisons) == 1:
                return Truth("as-is")
            if not self.pure(test):
                return "a chained comparison whose operands np2jax cannot tell are free of side effects"
            return Truth("chain")
        value = self.value(test)
        if value.kind == "bool":
            return Truth("as-is")
        if value.numeric or (isinstance(test, cst.Call) and self.resolver.qualname(test.func, self.scope) == "builtins.len"):
            return Truth("nonzero")  # (a traced `len(members)` is a count: jnp.count_nonzero, analysis/named_selections.py)
        return "np2jax cannot tell that the test is an array (a list's truth value is not `!= 0`)"

    def _static_bool(self, node: cst.BaseExpression) -> bool:
        if isinstance(node, cst.Comparison) or (self.value(node).kind == "bool" and self.value(node).weak):
            return True
        if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Not):
            return True
        if isinstance(node, cst.BooleanOperation):
            return self._static_bool(node.left) and self._static_bool(node.right)
        if isinstance(node, cst.Call):
            return self.resolver.qualname(node.func, self.scope) in STATIC_BOOL_CALLS
        return False


def reaching_value(name: str, before: list[cst.BaseStatement]) -> cst.BaseExpression | None:
    """The value of the last ``name = value`` among the statements ``before`` an ``if`` in its block, when no other
    statement after it may bind ``name`` (None when np2jax cannot tell)."""
    for statement in reversed(before):
        for small in reversed(statement.body) if isinstance(statement, cst.SimpleStatementLine) else [statement]:
            if isinstance(small, cst.Assign) and len(small.targets) == 1 and isinstance(small.targets[0].target, cst.Name):
                if small.targets[0].target.value == name:
                    return small.value
            if _binds(small, name):
                return None  # `name += 1`, `a, name = ...`, a loop or a branch that may bind it
    return None


def _binds(node: cst.CSTNode, name: str) -> bool:
    targets: list[cst.CSTNode] = []
    for inner in descendants(node):
        targets.extend(binding_targets(inner))
        if isinstance(inner, (cst.CompFor, cst.AsName)):  # (`with ... as` twice: no matter)
            targets.append(inner.target if isinstance(inner, cst.CompFor) else inner.name)
        elif isinstance(inner, (cst.FunctionDef, cst.ClassDef)) and inner.name.value == name:
            return True
    return any(n.value == name for target in targets for n in all_names(target))


def _true_division(node: cst.BaseExpression) -> bool:
    """``1.0 / m``, ``var / mean``: inexact whatever the operands' kinds (NumPy divides integers to floats too)."""
    return isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Divide)


def _compared(tests: list[cst.BaseExpression]) -> set[str]:
    """The code of what ``tests`` compare by ``<``, ``==``... outside calls (``x[t] > peak``: ``x[t]``, ``peak``)."""
    names: set[str] = set()
    stack: list[cst.CSTNode] = list(tests)
    while stack:
        node = stack.pop()
        if isinstance(node, cst.Comparison) and all(isinstance(c.operator, ORDERING) for c in node.comparisons):
            names.update(_code(part) for part in (node.left, *(c.comparator for c in node.comparisons)))
        elif isinstance(node, (cst.BooleanOperation, cst.UnaryOperation)):
            stack.extend(child_nodes(node))
    return names


def _not_array(node: cst.BaseExpression) -> bool:
    return isinstance(node, (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)) or (
        isinstance(node, cst.Name) and node.value == "None"
    )


def _code(node: cst.CSTNode) -> str:
    return cst.Module([]).code_for_node(node)


def _short(node: cst.CSTNode) -> str:
    text = _code(node)
    return text if len(text) <= 40 else text[:37] + "..."


def _has_own_comments(node: cst.IfExp) -> bool:
    """Comments in the whitespace around ``if``/``else`` (the rewrite keeps those inside the test and branches)."""
    spaces = (node.whitespace_before_if, node.whitespace_after_if, node.whitespace_before_else, node.whitespace_after_else)
    return any(isinstance(space, cst.ParenthesizedWhitespace) and "#" in cst.Module([]).code_for_node(space) for space in spaces)
