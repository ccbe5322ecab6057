"""Lists a ``for`` loop fills with one value per step, which ``jax.lax.scan`` can collect instead.

The pattern::

    ys = []
    for t in range(n):
        ...
        ys.append(value)      # once per step, at the top level of the body
    ... np.stack(ys) ...      # (or np.array / np.asarray) the only use of ys afterwards

``scan`` returns the per-step values stacked along a new first axis, which is what
``np.stack(ys)`` builds from the list; ``jnp.stack`` of that stacked array gives it back
unchanged, so the consumers stay as they are.  Anything else done with the list (returned,
``len``, iterated, appended to under an ``if``) keeps the loop a Python loop.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import libcst as cst

from np2jax.analysis.aliasing import VIEW_ATTRIBUTES
from np2jax.analysis.loops import all_names, contains
from np2jax.analysis.resolve import Resolver, is_numpy
from np2jax.analysis.scope import LoopBinding, ParamBinding, Scope, ValueBinding
from np2jax.tables import lookup_numpy
from np2jax.visitors import child_nodes

# What may be done with the list after the loop: one positional argument, nothing else (axis 0).
STACKING = frozenset({"stack"})
ARRAY_BUILDING = frozenset({"array", "asarray"})
# ndarray methods whose result is not an array.
NON_ARRAY_METHODS = frozenset({"item", "tolist", "tobytes", "copy_to", "nonzero"})


@dataclass(frozen=True)
class Collection:
    """The lists a loop collects (in the order of their ``append`` statements), those statements' calls
    and the ``name = []`` statements that start them."""

    names: tuple[str, ...]
    appends: tuple[cst.Call, ...]
    starts: tuple[cst.Assign, ...]


def append_target(statement: cst.BaseStatement) -> tuple[str, cst.Call] | None:
    """``name.append(value)`` as a whole statement line: the name and the call."""
    if not (isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1):
        return None
    expr = statement.body[0]
    if not (isinstance(expr, cst.Expr) and isinstance(expr.value, cst.Call)):
        return None
    call = expr.value
    func = call.func
    if (isinstance(func, cst.Attribute) and func.attr.value == "append" and isinstance(func.value, cst.Name)
            and len(call.args) == 1 and call.args[0].keyword is None and not call.args[0].star):
        return func.value.value, call
    return None


class CollectedLists:
    """Decides whether the lists a loop appends to can be collected by ``jax.lax.scan``.

    ``is_array_param(name)``: the parameter is used as array data (so a value computed from it is an array).
    """

    def __init__(self, function: cst.FunctionDef, scope: Scope, resolver: Resolver,
                 is_array_param: Callable[[str], bool]) -> None:
        self.function = function
        self.scope = scope
        self.resolver = resolver
        self.is_array_param = is_array_param

    def find(self, loop: cst.For, trip_count: int | None) -> tuple[Collection | None, str]:
        """The lists ``loop`` collects (None when it appends to none), or why it cannot be a scan (second item)."""
        statements = loop.body.body if isinstance(loop.body, cst.IndentedBlock) else ()
        names: list[str] = []
        appends: list[cst.Call] = []
        for statement in statements:
            found = append_target(statement)
            if found is None:
                continue
            name, call = found
            if name in names:
                return None, f"it appends to `{name}` twice per step"
            names.append(name)
            appends.append(call)
        starts: list[cst.Assign] = []
        for name, call in zip(names, appends):
            why = self._obstacle(name, loop, call, trip_count, starts)
            if why:
                return None, why
        return (Collection(tuple(names), tuple(appends), tuple(starts)) if names else None), ""

    def _obstacle(self, name: str, loop: cst.For, call: cst.Call, trip_count: int | None, starts: list[cst.Assign]) -> str:
        if name in self.scope.globals or name in self.scope.nonlocals:
            return f"`{name}` is global"
        bindings = self.scope.bindings.get(name, [])
        if not (len(bindings) == 1 and isinstance(bindings[0], ValueBinding) and not bindings[0].augmented
                and isinstance(bindings[0].value, cst.List) and not bindings[0].value.elements):
            return f"`{name}` is not a list that starts empty and is bound once"
        block, position = _block_of(self.function.body, loop)
        start = _statement_binding(block, position, bindings[0].value)
        if start is None:
            return f"`{name} = []` is not in the same block before the loop"
        starts.append(block[start].body[0])  # type: ignore[union-attr]
        if not self.is_array_value(call.args[0].value):
            return (f"the value appended to `{name}` may be a Python number or container, which NumPy would "
                    "stack with another dtype or shape")
        allowed = {id(call.func.value)}
        for consumer in _after(block, position):
            allowed |= self._consumed(consumer, name, trip_count)
        target = _assign_target(block[start])
        uses = [n for n in all_names(self.function.body) if n.value == name and n is not target and id(n) not in allowed]
        if uses:
            inside = any(contains(loop, n) for n in uses)
            if inside:
                return f"the loop uses `{name}` other than by appending to it once per step"
            if trip_count is None and self._array_built(name, block, position):
                return (f"`np.array({name})` of a loop that may run zero times is a float64 array of shape (0,); "
                        "jax.lax.scan's would have the steps' shape and dtype (np.stack raises in both)")
            return f"`{name}` is used after the loop other than by `np.stack({name})`"
        return ""

    def _consumed(self, statement: cst.CSTNode, name: str, trip_count: int | None) -> set[int]:
        """ids of ``name`` in ``statement`` that are the single argument of np.stack (np.array / np.asarray when
        the loop surely runs at least once)."""
        found: set[int] = set()
        for node in _calls(statement):
            kind = self._consumer_kind(node, name)
            if kind == "stack" or (kind == "array" and trip_count):
                found.add(id(node.args[0].value))
        return found

    def _array_built(self, name: str, block: list[cst.BaseStatement], position: int) -> bool:
        return any(self._consumer_kind(node, name) == "array" for statement in _after(block, position) for node in _calls(statement))

    def _consumer_kind(self, node: cst.Call, name: str) -> str:
        if not (len(node.args) >= 1 and isinstance(node.args[0].value, cst.Name) and node.args[0].value.value == name
                and node.args[0].keyword is None and not node.args[0].star):
            return ""
        qualname = self.resolver.qualname(node.func, self.scope) or ""
        short = qualname.rsplit(".", 1)[-1]
        if not (is_numpy(qualname) or qualname.startswith("jax.numpy.")) or qualname.count(".") != 1 + qualname.startswith("jax."):
            return ""
        rest = node.args[1:]
        if short in STACKING and all(_is_axis_zero(a) for a in rest):
            return "stack"
        if short in ARRAY_BUILDING and not rest:
            return "array"
        return ""

    def is_array_value(self, expr: cst.BaseExpression, seen: frozenset[str] = frozenset()) -> bool:
        """Surely an array (or a NumPy scalar), never a Python number, list or tuple: what ``np.stack`` of such
        values has the dtype and shape ``scan`` stacks."""
        if isinstance(expr, cst.Name):
            return self._name_is_array(expr.value, seen)
        if isinstance(expr, cst.Call):
            qualname = self.resolver.qualname(expr.func, self.scope) or ""
            if is_numpy(qualname) or qualname.startswith("jax.numpy."):
                row = lookup_numpy(qualname) if is_numpy(qualname) else None
                return row is None or row.kind not in ("dtype", "static", "type", "constant")
            func = expr.func
            return (not qualname and isinstance(func, cst.Attribute) and func.attr.value not in NON_ARRAY_METHODS
                    and self.is_array_value(func.value, seen))
        if isinstance(expr, cst.BinaryOperation):
            if any(isinstance(side, (cst.Tuple, cst.List)) for side in (expr.left, expr.right)):
                return False
            return self.is_array_value(expr.left, seen) or self.is_array_value(expr.right, seen)
        if isinstance(expr, cst.UnaryOperation):
            return not isinstance(expr.operator, cst.Not) and self.is_array_value(expr.expression, seen)
        if isinstance(expr, cst.Subscript):
            return self.is_array_value(expr.value, seen)
        if isinstance(expr, cst.Attribute):
            return expr.attr.value in VIEW_ATTRIBUTES - {"flat", "base"} and self.is_array_value(expr.value, seen)
        if isinstance(expr, cst.IfExp):
            return self.is_array_value(expr.body, seen) and self.is_array_value(expr.orelse, seen)
        return False

    def _name_is_array(self, name: str, seen: frozenset[str]) -> bool:
        if name in seen:
            return True  # a cycle (h = h * a) adds nothing: the other bindings decide
        found, bindings = self.scope.lookup(name)
        if found is not self.scope or not bindings:
            return False
        seen = seen | {name}
        for binding in bindings:
            if isinstance(binding, ParamBinding):
                if not self.is_array_param(name):
                    return False
            elif isinstance(binding, ValueBinding):
                if not binding.augmented and not self.is_array_value(binding.value, seen):
                    return False
            elif isinstance(binding, LoopBinding):
                iterable = binding.iterable
                if not (binding.position in ((), (1,)) and self.is_array_value(_enumerated(iterable, self), seen)):
                    return False
            else:
                return False
        return True


def _enumerated(iterable: cst.BaseExpression, lists: CollectedLists) -> cst.BaseExpression:
    """What ``for v in iterable`` / ``for i, v in enumerate(iterable)`` takes its values ``v`` from."""
    if isinstance(iterable, cst.Call) and lists.resolver.qualname(iterable.func, lists.scope) == "builtins.enumerate":
        return iterable.args[0].value if iterable.args else iterable
    return iterable


def _is_axis_zero(arg: cst.Arg) -> bool:
    return (arg.keyword is None or arg.keyword.value == "axis") and isinstance(arg.value, cst.Integer) and arg.value.value == "0"


def _block_of(body: cst.CSTNode, loop: cst.For) -> tuple[list[cst.BaseStatement], int]:
    """The statement list that holds ``loop`` and its position there."""
    stack: list[cst.CSTNode] = [body]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.IndentedBlock) or isinstance(node, cst.Module):
            for index, statement in enumerate(node.body):
                if statement is loop:
                    return list(node.body), index
        stack.extend(child_nodes(node))
    return [], -1


def _statement_binding(block: list[cst.BaseStatement], position: int, value: cst.BaseExpression) -> int | None:
    """Index (before ``position``) of the ``name = []`` statement whose value is ``value``."""
    for index in range(position):
        statement = block[index]
        if (isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1
                and isinstance(statement.body[0], cst.Assign) and len(statement.body[0].targets) == 1
                and statement.body[0].value is value):
            return index
    return None


def _assign_target(statement: cst.BaseStatement) -> cst.BaseExpression:
    return statement.body[0].targets[0].target  # type: ignore[union-attr]


def _after(block: list[cst.BaseStatement], position: int) -> list[cst.BaseStatement]:
    return block[position + 1:] if position >= 0 else []


def _calls(node: cst.CSTNode):
    if isinstance(node, cst.Call):
        yield node
    for child in child_nodes(node):
        yield from _calls(child)
