"""Convergence loops of a traced function that become ``jax.lax.while_loop`` (NPJ308), and why the others block jit.

Two shapes are converted, in a function that gets ``jax.jit``:

* ``while test: body`` whose test depends on traced values;
* ``for i in range(a, b): S1; if test: break; S2`` whose break test does (one
  ``if ...: break`` at the top level of the body, with no ``else``).

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

import libcst as cst

from np2jax.analysis.conditionals import Truth
from np2jax.analysis.jit_plan import WhileConversion
from np2jax.analysis.loops import LoopBody, all_names, contains, names_outside, numpy_call_on_python_values, subscripts
from np2jax.analysis.scope import LoopBinding, ValueBinding
from np2jax.analysis.tracing_tables import STATIC_INSTEAD, WHILE_INSTEAD
from np2jax.analysis.resolve import is_numpy
from np2jax.analysis.value_kinds import FLOAT_FUNCTIONS, ORDERING, Value, join
from np2jax.visitors import visit

SCALAR_KINDS = ("bool", "int", "float")
SCALAR_BUILTINS = frozenset({"builtins.abs", "builtins.float", "builtins.int", "builtins.bool"})
ELEMENTWISE = FLOAT_FUNCTIONS | {"abs", "absolute", "square", "negative"}  # of a 0-d value: 0-d


class WhileLoops:
    """The ``while`` visitor of ``FunctionTracing`` (analysis/function_tracing.py) and the break loops of its
    ``for`` visitor (analysis/for_loops.py).  A converted loop's carried names (and counter) become traced
    from the loop on, as a fori_loop's do."""

    def visit_While(self, node: cst.While) -> None:
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
        breaker = breaker_of(node)
        if breaker is None or self.scope is not self.function_scope or not self._traced(breaker.test):
            return False
        conversion, obstacle = self._break_conversion(node, breaker)
        if conversion is None:
            self._block(node, "loop", f"Python `for` loop that breaks on a traced test ({obstacle}): jax.jit cannot "
                        "stop it at a step it only knows at run time", WHILE_INSTEAD)
            return True
        self.whiles[node] = conversion
        self.converted_logic.add(breaker)
        if conversion.index is not None:
            self.traced_iterables[node.iter] = f"<index:{conversion.index}>"
        self._convert_test(breaker.test, conversion.truth, "`if ...: break` test")
        return True

    # --- the two shapes ------------------------------------------------------------
    def _while_conversion(self, node: cst.While) -> tuple[WhileConversion | None, str]:
        if self.scope is not self.function_scope or not self._traced(node.test):
            return None, ""
        if not self.module.convert_whiles:
            return None, "NPJ308 is not enabled"
        if node.orelse is not None:
            return None, "it has an `else` clause"
        body = LoopBody(self.resolver, self.scope, self.module.rebinds)
        visit(node.body, body)
        if body.obstacle:
            return None, body.obstacle
        carried, obstacle = self._while_carried(node, body, {n.value for n in all_names(node.test)})
        if obstacle:
            return None, obstacle
        if not carried:
            return None, "its body changes nothing its test reads"
        truth, obstacle = self._loop_truth(node, node.test, carried, set())
        if truth is None:
            return None, obstacle
        return WhileConversion("while", tuple(carried), truth), ""

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
            if self._is_container(name, node):
                return [], f"`{name}` is a Python container"
            if not self._carry_starts_as_array(name, node):
                kind = self._python_number_kind(name, node)
                if kind is None:
                    return [], (f"`{name}` may start as a Python value whose kind (bool, int, float) np2jax cannot "
                                "tell is the one the loop gives it; jax.lax.while_loop would change its dtype")
            carried.append(name)
        return carried, ""

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
                if start is None or not value.numeric:
                    return None
                value = join([start, value])
            if value.kind not in SCALAR_KINDS:
                return None
            kinds.add(value.kind)
        return start.kind if start is not None and kinds == {start.kind} else None

    def _loop_truth(self, node: cst.CSTNode, test: cst.BaseExpression, carried: list[str],
                    counters: set[str]) -> tuple[Truth | None, str]:
        """How the test is written for while_loop, once the carried names are traced values."""
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


def breaker_of(node: cst.For) -> cst.If | None:
    """The one top-level ``if test: break`` of a ``for`` loop's body (no ``else``, nothing else in it)."""
    if not isinstance(node.body, cst.IndentedBlock):
        return None
    found = [s for s in node.body.body if isinstance(s, cst.If) and s.orelse is None
             and isinstance(s.body, (cst.IndentedBlock, cst.SimpleStatementSuite)) and _only_break(s.body)]
    return found[0] if len(found) == 1 else None


def _only_break(block: cst.BaseSuite) -> bool:
    if isinstance(block, cst.SimpleStatementSuite):
        return len(block.body) == 1 and isinstance(block.body[0], cst.Break)
    return (len(block.body) == 1 and isinstance(block.body[0], cst.SimpleStatementLine)
            and len(block.body[0].body) == 1 and isinstance(block.body[0].body[0], cst.Break))


NUMPY_FLOATS = frozenset(f"numpy.{name}" for name in "inf nan pi e euler_gamma Inf NaN PINF NINF".split())


def _float_constant(node: cst.BaseExpression, resolver, scope) -> Value | None:
    """``np.inf``, ``-np.inf``, ``np.pi``: Python floats in NumPy (the value classifier does not know them)."""
    while isinstance(node, cst.UnaryOperation) and isinstance(node.operator, (cst.Minus, cst.Plus)):
        node = node.expression
    if isinstance(node, (cst.Attribute, cst.Name)) and resolver.qualname(node, scope) in NUMPY_FLOATS:
        return Value("float", True, True)
    return None
