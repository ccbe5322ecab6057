"""Convergence loops of a traced function that become ``jax.lax.while_loop`` (NPJ308), and why the others block jit.

Three shapes are converted, in a function that gets ``jax.jit``:

* ``while test: body`` whose test depends on traced values;
* ``for i in range(a, b): S1; if test: break; S2`` whose break test does (one
  ``if ...: break`` at the top level of the body, with no ``else``);
* ``while True: S1; if test: break; S2`` whose break test does: it runs at least one
  step, so ``S1`` runs before the loop and ``while not test: S2; S1`` after it (the
  same operations in the same order).  Its carried names are the ones the test, the
  code around the loop or the next step reads; a name ``S1`` sets before reading it
  starts from the first step's value, so it may be first set there; a name first set
  in ``S2`` (or only in some steps) that is read after the loop is unbound when the
  loop stops at its first step, so the loop stays as it is.

The body must be one NPJ305 would accept as a fori_loop body (analysis/loops.py:
no ``break``/``continue``/``return``/``raise``, no list growth, no attribute
writes).  The *carried* names are the ones the body assigns that exist before
the loop.  A carried name must start as an array (as for fori_loop), or as a
Python number of the kind (bool, int, float) every value the body gives it has:
while_loop would otherwise promote the start value to the body's dtype, and a
loop that runs no step would return ``0.0`` where NumPy returned ``0``.  A name
first set inside the loop and used after it (or in the test) is unbound when
the loop runs no step, so the loop stays as it is.  The test must give a 0-d
boolean (NumPy raises on a longer array, while_loop at trace time): its traced
operands must be known 0-d.  ``and``/``or`` evaluate both sides, so the right
one must be free of side effects (analysis/conditionals.py decides that).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Callable

import libcst as cst

from np2jax.analysis.branches import small_statements
from np2jax.analysis.conditionals import Truth
from np2jax.analysis.jit_plan import WhileConversion
from np2jax.analysis.loops import LoopBody, all_names, contains, names_outside, numpy_call_on_python_values, subscripts
from np2jax.analysis.scope import LoopBinding, ValueBinding
from np2jax.analysis.tracing_tables import STATIC_INSTEAD, WHILE_INSTEAD
from np2jax.analysis.resolve import is_numpy
from np2jax.analysis.value_kinds import FLOAT_FUNCTIONS, ORDERING, Value, join
from np2jax.visitors import child_nodes, visit

SCALAR_KINDS = ("bool", "int", "float")
BITWISE = (cst.BitAndAssign, cst.BitOrAssign, cst.BitXorAssign)
SCALAR_BUILTINS = frozenset({"builtins.abs", "builtins.float", "builtins.int", "builtins.bool"})
ELEMENTWISE = FLOAT_FUNCTIONS | {"abs", "absolute", "square", "negative"}  # of a 0-d value: 0-d


class WhileLoops:
    """The ``while`` visitor of ``FunctionTracing`` (analysis/function_tracing.py) and the break loops of its
    ``for`` visitor (analysis/for_loops.py).  A converted loop's carried names (and counter) become traced
    from the loop on, as a fori_loop's do."""

    def visit_While(self, node: cst.While) -> None:
        if always_true(node.test) and self._until_loop(node):
            return
        conversion, obstacle = self._while_conversion(node)
        if conversion is None:
            note = f" (not converted to jax.lax.while_loop: {obstacle})" if obstacle else ""
            self._require(node.test, "`while` test", WHILE_INSTEAD, note=note)
            self.while_loops.append(node)
            return
        self.whiles[node] = conversion
        self._convert_test(node.test, conversion.truth, "`while` test")

    def breaking_loop(self, node: cst.For) -> bool:
        """``for i in range(a, b)`` whose body breaks on a traced test: converted, or blocked with the reason."""
        breaker, returns = breaker_of(node), ""
        if breaker is None and self.scope is self.function_scope:
            breaker, returns = stop_by_return(node, self.node.body) or (None, "")
        if breaker is None or self.scope is not self.function_scope or not self._traced(breaker.test):
            return False
        conversion, obstacle = self._break_conversion(node, breaker)
        if conversion is not None and returns:
            conversion = replace(conversion, returns=returns, after=() if returns == "step" else conversion.after)
        if conversion is not None and conversion.index is not None:
            self.traced_iterables[node.iter] = f"<index:{conversion.index}>"
        stops = "returns" if returns else "breaks"
        self._adopt(node, breaker, conversion, f"Python `for` loop that {stops} on a traced test ({obstacle})")
        return True

    def _until_loop(self, node: cst.While) -> bool:
        """``while True`` whose body breaks on a traced test: converted, or blocked with the reason."""
        if self.scope is not self.function_scope:
            return False
        breaker = breaker_of(node)
        if breaker is None:
            if breaks(node.body):
                self._block(node, "loop", "`while True` loop whose `break` is not alone under one `if` (with no "
                            "`else`) at the top level of its body, or that has more than one `break`: jax.jit "
                            "cannot stop it at a step it only knows at run time", WHILE_INSTEAD)
            return False
        if not self._traced(breaker.test):
            return False  # a Python loop: jax.jit would unroll it (blocked as any other `while`)
        conversion, obstacle = self._until_conversion(node, breaker)
        self._adopt(node, breaker, conversion, f"`while True` loop that breaks on a traced test ({obstacle})")
        return True

    def _adopt(self, node: cst.For | cst.While, breaker: cst.If, conversion: WhileConversion | None, loop: str) -> None:
        """Record a loop with a break as converted, or block jit with ``loop`` (what it is and why it stays)."""
        if conversion is None:
            self._block(node, "loop", f"{loop}: jax.jit cannot stop it at a step it only knows at run time", WHILE_INSTEAD)
            return
        self.whiles[node] = conversion
        self.converted_logic.add(breaker)
        self._convert_test(breaker.test, conversion.truth, "`if ...: break` test")

    # --- the three shapes ----------------------------------------------------------
    def _while_conversion(self, node: cst.While) -> tuple[WhileConversion | None, str]:
        if self.scope is not self.function_scope or not self._traced(node.test):
            return None, ""
        if not self.module.convert_whiles:
            return None, "NPJ308 is not enabled"
        if node.orelse is not None:
            return None, "it has an `else` clause"
        body = LoopBody(self.resolver, self.scope, self.module.rebinds)
        visit(node.body, body)
        return self._conversion("while", node, node.test, body,
                                lambda: self._while_carried(node, body, {n.value for n in all_names(node.test)}))

    def _break_conversion(self, node: cst.For, breaker: cst.If) -> tuple[WhileConversion | None, str]:
        if not self.module.convert_whiles:
            return None, "NPJ308 is not enabled"
        iterable, target = node.iter, node.target
        if not (isinstance(iterable, cst.Call) and self.resolver.qualname(iterable.func, self.scope) == "builtins.range"
                and 1 <= len(iterable.args) <= 2 and all(a.keyword is None and not a.star for a in iterable.args)):
            return None, "it is not a loop over `range(n)` or `range(a, b)`"
        if node.orelse is not None:
            return None, "it has an `else` clause"
        if not isinstance(target, cst.Name):
            return None, "an unusual loop target"
        index = target.value
        body = LoopBody(self.resolver, self.scope, self.module.rebinds)
        later = LoopBody(self.resolver, self.scope, self.module.rebinds)  # the statements after the break
        statements = list(node.body.body)
        position = statements.index(breaker)
        for statement in statements[:position]:
            visit(statement, body)
        for statement in statements[position + 1:]:
            visit(statement, body)
            visit(statement, later)
        if body.obstacle:
            return None, body.obstacle
        if index in body.assigned:
            return None, "it assigns its own loop variable"
        if index in names_outside(self.node.body, node):
            return None, f"`{index}` is used after the loop"
        carried, obstacle = self._while_carried(node, body, set())
        if obstacle:
            return None, obstacle
        listed = self._listed_parameter(node, {index})
        if listed is not None:
            return None, f"`{listed}` may be a Python list, which jax cannot index with a traced loop index"
        counter = index if index != "_" or index in {n.value for n in all_names(node.body)} else None
        truth, obstacle = self._loop_truth(node, breaker.test, carried, {index})
        if truth is None:
            return None, obstacle
        for arg in iterable.args:
            self._require(arg.value, "bound of a `range` loop that becomes jax.lax.while_loop", STATIC_INSTEAD)
        after = tuple(name for name in carried if name in later.assigned)
        guard = counter is not None and any(
            counter in {n.value for n in all_names(element)} for sub in subscripts(node.body) for element in sub.slice)
        return WhileConversion("break", tuple(carried), truth, counter, after, guard), ""

    def _until_conversion(self, node: cst.While, breaker: cst.If) -> tuple[WhileConversion | None, str]:
        """``while True: S1; if test: break; S2`` runs ``S1`` once, then ``while not test: S2; S1``."""
        if not self.module.convert_whiles:
            return None, "NPJ308 is not enabled"
        if node.orelse is not None:
            return None, "it has an `else` clause"
        statements = list(node.body.body)
        position = statements.index(breaker)
        first, then = statements[:position], statements[position + 1:]
        body = LoopBody(self.resolver, self.scope, self.module.rebinds)
        for statement in [*first, *then]:
            visit(statement, body)
        test_names = {n.value for n in all_names(breaker.test)}
        return self._conversion("until", node, breaker.test, body,
                                lambda: self._until_carried(node, body, first, then, test_names))

    def _conversion(self, kind: str, node: cst.While, test: cst.BaseExpression, body: LoopBody,
                    carry: Callable[[], tuple[list[str], str]]) -> tuple[WhileConversion | None, str]:
        """A ``while`` loop's conversion once its body is read: ``carry`` gives the carried names, or why not."""
        if body.obstacle:
            return None, body.obstacle
        carried, obstacle = carry()
        if obstacle:
            return None, obstacle
        if not carried:
            return None, "its body changes nothing its test reads"
        truth, obstacle = self._loop_truth(node, test, carried, set())
        if truth is None:
            return None, obstacle
        return WhileConversion(kind, tuple(carried), truth), ""

    # --- carried values and the test -------------------------------------------------
    def _while_carried(self, node: cst.CSTNode, body: LoopBody, test_names: set[str]) -> tuple[list[str], str]:
        """The carried names, or why one cannot be carried exactly."""
        outside = names_outside(self.node.body, node) | test_names
        carried = []
        for name in body.order:
            if name not in outside:
                continue  # set and used in the body only (or an inner loop's variable)
            if not self._bound_before(name, node):
                return [], f"`{name}` is first set inside the loop and used after it (unbound if it runs no step)"
            obstacle = self._carry_obstacle(name, node)
            if obstacle:
                return [], obstacle
            carried.append(name)
        return carried, ""

    def _until_carried(self, node: cst.While, body: LoopBody, first: list, then: list,
                       test_names: set[str]) -> tuple[list[str], str]:
        """The carried names of a ``while True`` loop run as ``S1; while not test: S2; S1``: the names the body
        sets that the test, the code around the loop, or the body before setting them reads.  A name ``S1``
        sets (at its top level) before reading it starts the loop with the value of the first step, which
        the body gives it again at the end of every step: its value before the loop does not matter."""
        steps = [*then, *first]
        needed = names_outside(self.node.body, node) | test_names | read_before_set(steps, body.assigned)
        from_first_step = set_at_top_level(first) - read_before_set(first, body.assigned)
        carried = []
        for name in body.order:
            if name not in needed:
                continue
            if name in from_first_step:
                if self._is_container(name, node):
                    return [], f"`{name}` is a Python container"
            elif not self._bound_before(name, node):
                return [], (f"`{name}` is first set after the `break` test (or only in some steps) and read after "
                            "the loop or at the next step (unbound if the loop stops at its first step)")
            else:
                obstacle = self._carry_obstacle(name, node)
                if obstacle:
                    return [], obstacle
            carried.append(name)
        return carried, ""

    def _carry_obstacle(self, name: str, node: cst.CSTNode) -> str:
        """Why ``name``, bound before ``node``, cannot be carried exactly ("" when it can)."""
        if self._is_container(name, node):
            return f"`{name}` is a Python container"
        if not self._carry_starts_as_array(name, node) and self._python_number_kind(name, node) is None:
            return (f"`{name}` may start as a Python value whose kind (bool, int, float) np2jax cannot "
                    "tell is the one the loop gives it; jax.lax.while_loop would change its dtype")
        return ""

    def _carry_starts_as_array(self, name: str, loop: cst.CSTNode) -> bool:
        """An array before the loop: as NPJ305 tells (analysis/for_loops.py), or a copy of an array parameter."""
        if self._starts_as_array(name, loop):
            return True
        bindings = self._outside_bindings(name, loop)
        return bool(bindings) and all(
            isinstance(b, ValueBinding) and not b.augmented and isinstance(b.value, cst.Name) and b.value.value in self.params
            and b.value.value != name and self._starts_as_array(b.value.value, loop) for b in bindings)

    def _outside_bindings(self, name: str, loop: cst.CSTNode) -> list:
        _, bindings = self.function_scope.lookup(name)
        return [b for b in bindings if not (isinstance(b, ValueBinding) and contains(loop, b.value))
                and not (isinstance(b, LoopBinding) and contains(loop, b.iterable))]

    def _python_number_kind(self, name: str, loop: cst.CSTNode) -> str | None:
        """The kind of a carried name that starts as a Python number, when every value the loop gives it
        has that kind too (``it = 0`` ... ``it += 1``; ``lam = 0.0`` ... ``lam = np.linalg.norm(w)``)."""
        if name in self.params:
            return None
        _, bindings = self.function_scope.lookup(name)
        kinds = set()
        start = None
        for binding in bindings:
            if isinstance(binding, LoopBinding) or not isinstance(binding, ValueBinding):
                return None
            value = _float_constant(binding.value, self.resolver, self.scope) or self.decisions.value(binding.value)
            inside = contains(loop, binding.value)
            if not inside:
                if binding.augmented or not (value.weak and value.kind in SCALAR_KINDS):
                    return None
                start = value
            elif binding.augmented:
                operator = _augmented_operator(loop, binding.value)
                if start is None or not value.numeric or operator is None or isinstance(operator, cst.PowerAssign) or (
                        start.kind == "bool" and not isinstance(operator, BITWISE)):
                    return None  # `**` may make a float of ints, arithmetic an int of bools
                true_division = [Value("float", True, True)] if isinstance(operator, cst.DivideAssign) else []
                value = join([start, value, *true_division])  # `it /= 2`: a float
            if value.kind not in SCALAR_KINDS:
                return None
            kinds.add(value.kind)
        return start.kind if start is not None and kinds == {start.kind} else None

    def _loop_truth(self, node: cst.CSTNode, test: cst.BaseExpression, carried: list[str],
                    counters: set[str]) -> tuple[Truth | None, str]:
        """How the test is written for while_loop, once the carried names are traced values."""
        if _assigns(test):
            return None, "its test assigns a name (`:=`), which would stay local to a function jax.lax.while_loop calls"
        kept = numpy_call_on_python_values(node, set(carried) | counters, self.resolver, self.scope)
        if kept is not None:
            return None, (f"`{self.module.module.code_for_node(kept)}` would stay a NumPy call on Python values, "
                          "which the loop would make traced; use the jax.numpy function")
        new = set(carried) - self.carried
        self.carried.update(new)
        self.forget_tokens()  # the carried names are traced from now on: tokens computed before missed that
        truth = self.decisions.truth(test)
        unknown = self._not_scalar(test, truth) if not isinstance(truth, str) else None
        if isinstance(truth, str) or unknown is not None:
            self.carried -= new  # not converted: they stay what they were
            self.forget_tokens()
        if isinstance(truth, str):
            return None, truth
        if unknown is not None:
            shown = self.module.module.code_for_node(unknown)
            return None, f"np2jax cannot tell that `{shown}` is 0-d (jax.lax.while_loop needs a scalar test)"
        return truth, ""

    def _not_scalar(self, test: cst.BaseExpression, truth: Truth) -> cst.BaseExpression | None:
        """A traced operand of the test that may not be 0-d (None when all are)."""
        how = truth.how
        if how in ("python", "bool"):
            return None
        if how == "not":
            return self._not_scalar(test.expression, truth.parts[0])
        if how in ("and", "or", "python-and", "python-or"):
            return self._not_scalar(test.left, truth.parts[0]) or self._not_scalar(test.right, truth.parts[1])
        if isinstance(test, cst.Comparison) and all(isinstance(c.operator, ORDERING) for c in test.comparisons):
            operands = [test.left, *(c.comparator for c in test.comparisons)]
        else:
            operands = [test]
        return next((o for o in operands if not self._scalar(o, set())), None)

    def _scalar(self, node: cst.BaseExpression, seen: set[str]) -> bool:
        """Certainly 0-d, or a Python value (static: NumPy raised on a longer array before jax could): the
        value classifier's answer, through arithmetic, comparisons and names (a cycle through a name adds
        nothing: ``total = total + np.sum(row)`` is 0-d when its other values are)."""
        if not self._traced(node) or self.decisions.value(node).scalar:
            return True
        if isinstance(node, cst.Comparison):
            return self._scalar(node.left, seen) and all(self._scalar(c.comparator, seen) for c in node.comparisons)
        if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.MatrixMultiply):
            # `r @ r`: 0-d for a vector; NumPy raises for a matrix that is not 1 x 1
            return isinstance(node.left, cst.Name) and isinstance(node.right, cst.Name) and node.left.value == node.right.value
        if isinstance(node, cst.BinaryOperation):
            return self._scalar(node.left, seen) and self._scalar(node.right, seen)
        if isinstance(node, cst.UnaryOperation):
            return self._scalar(node.expression, seen)
        if isinstance(node, cst.Call):
            qualname = self.resolver.qualname(node.func, self.scope) or ""
            elementwise = qualname in SCALAR_BUILTINS or (is_numpy(qualname) and qualname.rsplit(".", 1)[-1] in ELEMENTWISE)
            return elementwise and len(node.args) == 1 and node.args[0].keyword is None and self._scalar(node.args[0].value, seen)
        if isinstance(node, cst.Name):
            if node.value in seen:
                return True
            found, bindings = self.scope.lookup(node.value)
            if found is not self.function_scope or not bindings or node.value in self.params:
                return False
            seen.add(node.value)
            return all(isinstance(b, ValueBinding) and self._scalar(b.value, seen) for b in bindings)
        return False


def breaker_of(node: cst.For | cst.While) -> cst.If | None:
    """The one top-level ``if test: break`` of a loop's body (no ``else``, nothing else in it; another
    ``break`` of the loop leaves the body refused by ``LoopBody``)."""
    if not isinstance(node.body, cst.IndentedBlock):
        return None
    found = [s for s in node.body.body if isinstance(s, cst.If) and s.orelse is None and _lone(s.body, cst.Break)]
    return found[0] if len(found) == 1 else None


def returning_breaker(node: cst.For) -> tuple[cst.If, cst.Return] | None:
    """The one top-level ``if test: return v`` of a loop's body (no ``else``, nothing else in it), and its ``return``."""
    if not isinstance(node.body, cst.IndentedBlock):
        return None
    found = [(s, _lone(s.body, cst.Return)) for s in node.body.body if isinstance(s, cst.If) and s.orelse is None]
    found = [(s, r) for s, r in found if r is not None]
    return found[0] if len(found) == 1 else None  # type: ignore[return-value]


def _lone(block: cst.CSTNode, kind: type) -> cst.BaseSmallStatement | None:
    """The one small statement of a block or a statement line when it is a ``kind`` (None otherwise)."""
    if isinstance(block, cst.SimpleStatementLine):
        statements: list | None = list(block.body)
    else:
        statements = small_statements(block) if isinstance(block, (cst.IndentedBlock, cst.SimpleStatementSuite)) else None
    return statements[0] if statements and len(statements) == 1 and isinstance(statements[0], kind) else None


def return_after(body: cst.BaseSuite, loop: cst.CSTNode) -> cst.Return | None:
    """The ``return`` right after ``loop`` in ``body`` (None when something else follows it)."""
    statements = list(body.body) if isinstance(body, cst.IndentedBlock) else []
    position = next((i for i, statement in enumerate(statements) if statement is loop), None)
    if position is None or position + 1 >= len(statements):
        return None
    return _lone(statements[position + 1], cst.Return)


def stop_by_return(loop: cst.For, body: cst.BaseSuite) -> tuple[cst.If, str] | None:
    """``for ...: S1; if test: return v; S2`` right before ``return w``: the ``if`` and how it stops the loop.

    ``"break"`` when ``v`` is ``w`` (a ``break`` there returns the same value from the same state);
    ``"step"`` when ``S2`` only assigns names and ``w`` with the names ``S2`` sets to names replaced by those
    is ``v`` (``x_new`` ... ``if done: return x_new`` ... ``x = x_new`` ... ``return x``): ending the loop after
    that step's ``S2`` returns the same value."""
    found, final = returning_breaker(loop), return_after(body, loop)
    if found is None or final is None:
        return None
    breaker, early = found
    if _code(early.value) == _code(final.value):
        return breaker, "break"
    statements = list(loop.body.body)
    renamed: dict[str, str] = {}
    for statement in statements[statements.index(breaker) + 1:]:
        assign = _lone(statement, cst.Assign)
        if assign is None or len(assign.targets) != 1 or not isinstance(assign.targets[0].target, cst.Name):
            return None
        name = assign.targets[0].target.value
        # each in terms of the values before S2 ("": a value that is not a name, which no `v` matches)
        renamed[name] = renamed.get(assign.value.value, assign.value.value) if isinstance(assign.value, cst.Name) else ""
    if final.value is None or early.value is None:
        return None
    replaced = final.value.visit(_Renamer(renamed))
    return (breaker, "step") if _code(replaced) == _code(early.value) else None


class _Renamer(cst.CSTTransformer):
    """Names replaced by others (``""``: replaced by a value that is not a name, which never matches)."""

    def __init__(self, renamed: dict[str, str]) -> None:
        super().__init__()
        self.renamed = renamed

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        return False  # only the object of an attribute is a name (`x.shape`: `shape` is not)

    def leave_Attribute(self, original: cst.Attribute, updated: cst.Attribute) -> cst.Attribute:
        return updated.with_changes(value=original.value.visit(self))

    def leave_Arg(self, original: cst.Arg, updated: cst.Arg) -> cst.Arg:
        return updated.with_changes(keyword=original.keyword)  # `f(x=x)`: the keyword is not a name

    def leave_Name(self, original: cst.Name, updated: cst.Name) -> cst.BaseExpression:
        if original.value in self.renamed:
            return cst.Name(self.renamed[original.value] or "__np2jax_a_value__")
        return updated


def _code(node: cst.CSTNode | None) -> str:
    return "None" if node is None else cst.Module([]).code_for_node(node)


def always_true(test: cst.BaseExpression) -> bool:
    """``while True`` / ``while 1``."""
    return (isinstance(test, cst.Name) and test.value == "True") or (
        isinstance(test, cst.Integer) and test.evaluated_value != 0)


def breaks(node: cst.CSTNode) -> bool:
    """A ``break`` of the loop whose body is ``node`` (not of an inner loop, nor in a nested function)."""
    if isinstance(node, cst.Break):
        return True
    if isinstance(node, (cst.For, cst.While)):
        return node.orelse is not None and breaks(node.orelse)
    if isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
        return False
    return any(breaks(child) for child in child_nodes(node))


def read_before_set(statements: list[cst.BaseStatement], names: set[str]) -> set[str]:
    """Of ``names``, those ``statements`` (run in order) may read before setting them.  Only a top-level
    ``name = ...`` (or ``name op= ...``, after its read) sets a name for certain; every name a compound
    statement or an in-place write mentions counts as read."""
    read: set[str] = set()
    written: set[str] = set()
    for statement in statements:
        for small in (statement.body if isinstance(statement, cst.SimpleStatementLine) else [statement]):
            read |= (_reads(small) & names) - written
            written |= _sets(small)
    return read


def set_at_top_level(statements: list[cst.BaseStatement]) -> set[str]:
    """The names a top-level ``name = ...`` (``name op= ...``) of ``statements`` sets: set whenever they run."""
    return {name for statement in statements if isinstance(statement, cst.SimpleStatementLine)
            for small in statement.body for name in _sets(small)}


def _reads(small: cst.CSTNode) -> set[str]:
    if isinstance(small, (cst.Assign, cst.AnnAssign)) and small.value is not None:
        targets = [t.target for t in small.targets] if isinstance(small, cst.Assign) else [small.target]
        return {n.value for n in all_names(small.value)} | {
            n.value for t in targets if _names_of(t) is None for n in all_names(t)}
    if isinstance(small, cst.For):  # its body reads its target after setting it
        inner = {n.value for n in all_names(small.body)} - set(_names_of(small.target) or ())
        return {n.value for n in all_names(small.iter)} | inner | _reads(small.orelse or cst.Pass())
    return {n.value for n in all_names(small)}  # `name op= v` reads `name` too


def _sets(small: cst.CSTNode) -> set[str]:
    if isinstance(small, cst.Assign):
        return {name for t in small.targets for name in _names_of(t.target) or ()}
    if isinstance(small, cst.AugAssign) or (isinstance(small, cst.AnnAssign) and small.value is not None):
        return set(_names_of(small.target) or ())
    return set()


def _names_of(target: cst.BaseExpression) -> list[str] | None:
    """The names a target of names only (``x``, ``x, y``, ``(a, *b)``) binds; None for ``x[i]``, ``o.a``."""
    if isinstance(target, cst.Name):
        return [target.value]
    if isinstance(target, (cst.Tuple, cst.List)):
        names = [_names_of(e.value) for e in target.elements]
        return None if any(n is None for n in names) else [name for n in names for name in n]
    if isinstance(target, cst.StarredElement):
        return _names_of(target.value)
    return None


def _assigns(node: cst.CSTNode) -> bool:
    """A ``name := value`` anywhere in ``node`` (one in a comprehension binds in the function too)."""
    return isinstance(node, cst.NamedExpr) or any(_assigns(child) for child in child_nodes(node))


def _augmented_operator(loop: cst.CSTNode, value: cst.BaseExpression) -> cst.BaseAugOp | None:
    """The operator of the ``name op= value`` in ``loop``."""
    if isinstance(loop, cst.AugAssign) and loop.value is value:
        return loop.operator
    return next((found for child in child_nodes(loop) if (found := _augmented_operator(child, value)) is not None), None)


NUMPY_FLOATS = frozenset(f"numpy.{name}" for name in "inf nan pi e euler_gamma Inf NaN PINF NINF".split())


def _float_constant(node: cst.BaseExpression, resolver, scope) -> Value | None:
    """``np.inf``, ``-np.inf``, ``np.pi``: Python floats in NumPy (the value classifier does not know them)."""
    while isinstance(node, cst.UnaryOperation) and isinstance(node.operator, (cst.Minus, cst.Plus)):
        node = node.expression
    if isinstance(node, (cst.Attribute, cst.Name)) and resolver.qualname(node, scope) in NUMPY_FLOATS:
        return Value("float", True, True)
    return None
