"""Guard clauses on traced values: ``if test: return a``, then more statements, then ``return b``.

NPJ306 (analysis/conditionals.py) turns the guard into ``jax.lax.cond``: the
statements between the guard and the final ``return`` stay where they are and
``return b`` becomes ``return jax.lax.cond(test, lambda: a, lambda: b)``.  So
those statements now also run when the test holds, and the test and ``a`` are
evaluated after them.  That is exact when

* each of them only binds local names (``y = ...``, ``a, b = ...``, ``y += ...``,
  ``y[i] = ...``) from expressions free of side effects, or is a traced ``if``
  that is converted itself (its names, or another guard clause);
* none of the names they bind is read by the test or by ``a`` (the guard would
  see the later value);
* the block ends with ``return b`` (the function does not fall through);
* the test is certainly 0-d: a comparison of 0-d values, ``not``/``and``/``or``
  of those (NumPy accepts a one-element array where ``jax.lax.cond`` raises).

Under ``jax.jit`` the moved statements cannot raise on values: a division by
zero gives ``inf`` and an index is clamped, and the result they feed is
discarded when the test holds.  The same applies to an ``else:`` branch that
runs statements before its ``return``: they move out of the ``if``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterable

import libcst as cst

from np2jax.visitors import child_nodes

if TYPE_CHECKING:
    from np2jax.analysis.conditionals import ConditionalDecisions


def final_return(statements: list[cst.BaseStatement]) -> cst.SimpleStatementLine | None:
    """The last statement of a block when it is ``return value``."""
    if not statements:
        return None
    last = statements[-1]
    if (isinstance(last, cst.SimpleStatementLine) and len(last.body) == 1 and isinstance(last.body[0], cst.Return)
            and last.body[0].value is not None):
        return last
    return None


def rest_reason(decisions: ConditionalDecisions, rest: list[cst.BaseStatement], guarded: list[cst.BaseExpression],
                tests: list[cst.BaseExpression]) -> str:
    """Why the statements ``rest`` (between a guard clause and the final ``return``) cannot run unconditionally
    before ``guarded`` (the tests and early return values) are evaluated; "" when they can."""
    bound: set[str] = set()
    for statement in rest:
        reason = _statement_reason(decisions, statement, bound)
        if reason:
            return reason
    read = {name for node in guarded for name in read_names(node)}
    clash = sorted(read & bound)
    if clash:
        return f"`{clash[0]}` is assigned after the early `return`, and the test or the value returned early reads it"
    for test in tests:
        if not _scalar_test(decisions, test):
            return f"np2jax cannot tell that `{_short(test)}` is 0-d (jax.lax.cond needs a single truth value)"
    return ""


def _statement_reason(decisions: ConditionalDecisions, statement: cst.BaseStatement, bound: set[str]) -> str:
    if isinstance(statement, cst.If):
        from np2jax.analysis.conditionals import Conversion  # circular: conditionals imports this module

        decision = decisions.decide(statement)
        if not (isinstance(decision, Conversion) and decision.form in ("assign", "early-return")):
            return f"the `if {_short(statement.test)}:` after it is not converted to jax.lax.cond itself"
        bound.update(decision.names)
        return ""
    if not isinstance(statement, cst.SimpleStatementLine):
        return "a compound statement (a loop, `with`, `try`...) follows it before the final `return`"
    for small in statement.body:
        if isinstance(small, cst.Pass):
            continue
        if isinstance(small, cst.Assign):
            targets, value = [t.target for t in small.targets], small.value
        elif isinstance(small, (cst.AugAssign, cst.AnnAssign)) and small.value is not None:
            targets, value = [small.target], small.value
        else:
            return f"`{_short(small)}` follows it: np2jax cannot tell that it only binds local names"
        for target in targets:
            names = _target_names(decisions, target)
            if names is None:
                return f"`{_short(target)}` is assigned after it: only local names may be"
            bound.update(names)
        if not decisions.pure(value):
            return f"np2jax cannot tell that `{_short(value)}`, computed after it, is free of side effects"
    return ""


def _target_names(decisions: ConditionalDecisions, target: cst.BaseExpression) -> list[str] | None:
    """The local names an assignment target binds (``y``, ``a, b``, ``y[i]``), or None for anything else."""
    if isinstance(target, cst.Name):
        found, _ = decisions.scope.lookup(target.value)
        return [target.value] if found is decisions.scope else None  # not a `global` or `nonlocal` name
    if isinstance(target, (cst.Tuple, cst.List)):
        names: list[str] = []
        for element in target.elements:
            found = _target_names(decisions, element.value) if isinstance(element, cst.Element) else None
            if found is None:
                return None
            names.extend(found)
        return names
    if isinstance(target, cst.Subscript) and isinstance(target.value, cst.Name) and decisions.pure(target):
        return [target.value.value]  # an in-place write into a local array becomes `y = y.at[i].set(v)`
    return None


def read_names(node: cst.CSTNode) -> Iterable[str]:
    """The names an expression reads (not attribute names or keywords)."""
    if isinstance(node, cst.Name):
        yield node.value
        return
    if isinstance(node, cst.Attribute):
        yield from read_names(node.value)
        return
    if isinstance(node, cst.Arg):
        yield from read_names(node.value)
        return
    for child in child_nodes(node):
        yield from read_names(child)


def _scalar_test(decisions: ConditionalDecisions, test: cst.BaseExpression) -> bool:
    if not decisions.traced(test):
        return True  # Python evaluates it, as before
    if isinstance(test, cst.BooleanOperation):
        return _scalar_test(decisions, test.left) and _scalar_test(decisions, test.right)
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        return _scalar_test(decisions, test.expression)
    return decisions.value(test).scalar


def _short(node: cst.CSTNode) -> str:
    text = cst.Module([]).code_for_node(node).strip()
    return text if len(text) <= 40 else text[:37] + "..."
