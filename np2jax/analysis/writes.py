"""Plans for subscript writes (``x[i] = v``, ``x[i] += v``): how to make them functional, or why not."""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from np2jax.analysis.aliasing import FunctionAliasing, is_fresh_array, is_view
from np2jax.analysis.indexing import IndexClassifier
from np2jax.analysis.loops import all_names
from np2jax.analysis.mask_writes import where_write
from np2jax.analysis.repeated_writes import NOT_INTEGER_INDEX, repeated_index_blocker, swapped_pair
from np2jax.analysis.scope import dotted_name

AT_METHODS = {
    cst.AddAssign: "add",
    cst.SubtractAssign: "subtract",
    cst.MultiplyAssign: "multiply",
    cst.DivideAssign: "divide",
    cst.PowerAssign: "power",
}
BINARY_FOR = {
    cst.FloorDivideAssign: cst.FloorDivide,
    cst.ModuloAssign: cst.Modulo,
    cst.BitAndAssign: cst.BitAnd,
    cst.BitOrAssign: cst.BitOr,
    cst.BitXorAssign: cst.BitXor,
    cst.LeftShiftAssign: cst.LeftShift,
    cst.RightShiftAssign: cst.RightShift,
    cst.MatrixMultiplyAssign: cst.MatrixMultiply,
}


@dataclass(frozen=True)
class WritePlan:
    name: str  # the array written to
    how: str  # "at" (x.at[idx].method(v)) or "where" (jnp.where(mask, v, x))
    method: str  # set / add / subtract / ... ; "set" with an operator for other augmented ops
    blocker: str | None = None  # why it cannot be rewritten, if it cannot
    single: tuple[int, ...] = ()  # index elements to read as one number: `jnp.reshape(e, ())` (IndexClassifier.single_elements)
    masked: bool = False  # "where" with a value `y[mask]` (the same mask): `jnp.where(mask, y, x)` (analysis/mask_writes.py)
    reread: bool = False  # `x[idx] op= number` through a repeating index: `x.at[idx].set(x[idx] op v)` (analysis/repeated_writes.py)


def subscript_write(node: cst.BaseSmallStatement) -> tuple[cst.Subscript, cst.BaseExpression] | None:
    if isinstance(node, cst.Assign) and len(node.targets) == 1 and isinstance(node.targets[0].target, cst.Subscript):
        return node.targets[0].target, node.value
    if isinstance(node, cst.AugAssign) and isinstance(node.target, cst.Subscript):
        return node.target, node.value
    return None


def tuple_subscript_targets(node: cst.BaseSmallStatement) -> list[cst.BaseExpression] | None:
    """The elements of ``a[i], b[i] = ...`` when at least one of them is a subscript, else None."""
    if not (isinstance(node, cst.Assign) and len(node.targets) == 1):
        return None
    target = node.targets[0].target
    if not isinstance(target, (cst.Tuple, cst.List)):
        return None
    elements = [element.value for element in target.elements]
    if not any(isinstance(e, cst.Subscript) for e in elements):
        return None
    return elements


def chained_targets(node: cst.BaseSmallStatement) -> list[cst.BaseExpression] | None:
    """The targets of ``a[i] = b[j] = v`` (one assignment, several targets, one of them writing into a
    subscript), else None.  Python evaluates ``v`` once, then assigns the targets from left to right."""
    if not (isinstance(node, cst.Assign) and len(node.targets) > 1):
        return None
    targets = [t.target for t in node.targets]
    return targets if any(_subscripts_in(t) for t in targets) else None


def written_subscripts(node: cst.BaseSmallStatement) -> list[cst.Subscript]:
    """Every subscript the assignment ``node`` writes into: ``x[i] = v``, ``x[i] += v``, ``a[i], b = ...``,
    ``a[i] = b[j] = v``."""
    if isinstance(node, cst.AugAssign):
        return [node.target] if isinstance(node.target, cst.Subscript) else []
    if isinstance(node, cst.Assign):
        return [s for t in node.targets for s in _subscripts_in(t.target)]
    return []


def _subscripts_in(target: cst.BaseExpression) -> list[cst.Subscript]:
    if isinstance(target, cst.Subscript):
        return [target]
    if isinstance(target, (cst.Tuple, cst.List)):
        return [s for e in target.elements for s in _subscripts_in(e.value)]
    if isinstance(target, cst.StarredElement):
        return _subscripts_in(target.value)
    return []


def plan_chained_write(node: cst.BaseSmallStatement, aliasing: FunctionAliasing, classifier: IndexClassifier) -> list[WritePlan | None] | None:
    """One plan per target of ``a[i] = b[j] = v`` (None for a name, an attribute or a list element, which
    stay assignments); None if it is no such statement."""
    targets = chained_targets(node)
    if targets is None:
        return None
    plans: list[WritePlan | None] = []
    # `B[0] = B[1] = B[0, ::-1]`: NumPy evaluates the view once and reads it again for each later target, after the
    # earlier ones wrote into its array; the rewrite would assign the values it had before the first write.
    written = {t.value.value for t in targets[:-1] if isinstance(t, cst.Subscript) and isinstance(t.value, cst.Name)}
    viewed = sorted(written & {n.value for n in all_names(node.value)})
    if viewed and is_view(node.value, aliasing.resolver, aliasing.scope):
        reason = (f"the value may be a view of `{viewed[0]}`, which an earlier target of this chained assignment writes "
                  "into: NumPy's later targets get the values it holds after that write")
        return [WritePlan(t.value.value if isinstance(t.value, cst.Name) else "", "at", "set", reason)
                if isinstance(t, cst.Subscript) else None for t in targets]
    for target in targets:
        if isinstance(target, cst.Subscript):
            plans.append(_plan(target, node.value, "set", aliasing, classifier))
        elif _subscripts_in(target):
            plans.append(WritePlan("", "at", "set", "an unpacking target that writes into a subscript, inside a chained assignment, is not supported"))
        else:
            plans.append(None)
    return plans


def plan_tuple_write(node: cst.BaseSmallStatement, aliasing: FunctionAliasing, classifier: IndexClassifier) -> list[WritePlan | None] | None:
    """One plan per element of ``a[i], b = ...`` (None for plain names); None if it is no such statement."""
    elements = tuple_subscript_targets(node)
    if elements is None:
        return None
    plans: list[WritePlan | None] = []
    for element in elements:
        if isinstance(element, cst.Name):
            plans.append(None)
        elif isinstance(element, cst.Subscript) and not isinstance(element.value, cst.Name):
            plans.append(WritePlan(dotted_name(element.value) or "", "at", "set", "an unpacking assignment into an attribute or container element is not supported"))
        elif isinstance(element, cst.Subscript):
            plans.append(_plan(element, None, "set", aliasing, classifier) or WritePlan("", "at", "set", "a container element is written"))
        else:
            plans.append(WritePlan("", "at", "set", "nested or starred targets are not supported"))
    return plans


def tuple_views(
    node: cst.BaseSmallStatement, plans: list[WritePlan | None], classifier: IndexClassifier, resolver, scope,
) -> set[int] | str:
    """``B[0], B[1] = B[1], B[0]``: NumPy evaluates the right-hand side first, but a row ``B[0]`` there is a view,
    read when it is assigned, after the write into ``B[0]``: both rows end up equal to the old ``B[1]`` (an
    element is a copy: ``x[0], x[1] = x[1], x[0]`` swaps a 1-D ``x``).  The positions whose value must be read
    again after the earlier writes when it is not 0-d; a reason when a value may be a view np2jax cannot read
    again exactly (a view by other means, or the right-hand side is no display)."""
    value = node.value
    displays = None
    if isinstance(value, (cst.Tuple, cst.List)) and len(value.elements) == len(plans) and all(
            isinstance(e, cst.Element) for e in value.elements):
        displays = [e.value for e in value.elements]
    written: set[str] = set()
    rereads: set[int] = set()
    for index, plan in enumerate(plans):
        if written:
            if displays is None:
                if any(name.value in written for name in all_names(value)):
                    return "the right-hand side may hold views of an array an earlier target writes into"
                return rereads
            source = displays[index]
            if any(name.value in written for name in all_names(source)):
                if (isinstance(source, cst.Subscript) and isinstance(source.value, cst.Name)
                        and source.value.value in written and classifier.is_basic(source.slice)):
                    rereads.add(index)
                elif not is_fresh_array(source, resolver, scope):
                    return f"`{_code(source)}` may be a view of an array an earlier target writes into"
        if plan is not None and plan.name:
            written.add(plan.name)
    return rereads


def plan_write(node: cst.BaseSmallStatement, aliasing: FunctionAliasing, classifier: IndexClassifier) -> WritePlan | None:
    found = subscript_write(node)
    if found is None:
        return None
    target, value = found
    method = "set" if isinstance(node, cst.Assign) else AT_METHODS.get(type(node.operator), "set")
    operator = type(node.operator) if isinstance(node, cst.AugAssign) else None
    return _plan(target, value, method, aliasing, classifier, operator)


def _plan(
    target: cst.Subscript,
    value: cst.BaseExpression | None,
    method: str,
    aliasing: FunctionAliasing,
    classifier: IndexClassifier,
    operator: type | None = None,
) -> WritePlan | None:
    """``operator``: the type of the augmented assignment's operator (``cst.AddAssign``), None for ``=``."""
    augmented = operator is not None
    if isinstance(target.value, cst.Name):
        name = target.value.value
        if aliasing.is_container(name):  # a list or dict: Python mutation is fine, unless `d[k] += v` is also
            blocker = aliasing.container_item_blocker(name) if augmented else None  # an update of a shared array
            return None if blocker is None else WritePlan(name, "at", method, blocker)
        blocker = aliasing.blocker(name, target)
    else:  # `self.x[i] = v` in a method, when no other reference can see `self.x`'s array
        if aliasing.attribute_is_container(target.value):
            return None  # `self.items = []`: Python mutation is fine
        name = dotted_name(target.value) or ""
        blocker = aliasing.attribute_blocker(target.value)
    if blocker is not None:
        return WritePlan(name, "at", method, blocker)
    if classifier.is_basic(target.slice):
        return WritePlan(name, "at", method)
    where = where_write(target, value, augmented, classifier)
    if where is not None:
        return WritePlan(name, "where", method, masked=where.masked is not None)
    if classifier.is_mask_of(target.slice, name):
        return WritePlan(name, "where", method, "a boolean-mask write whose value is not a plain number: jnp.where needs a value that broadcasts to the array")
    if not augmented and value is not None and (_is_number(value) or classifier.is_scalar(value) or classifier.is_int(value)):
        # one value everywhere (`-np.inf`, `x.max()`, `len(edges)`: hunt57 FP1): repeated indices cannot disagree
        return WritePlan(name, "at", "set")
    if classifier.is_unique(target.slice):
        return WritePlan(name, "at", method)  # no element twice: NumPy and JAX agree
    if not augmented and value is not None and swapped_pair(target, value, classifier):
        return WritePlan(name, "at", method)  # `x[[a, b]] = x[[b, a]]`: a repeat gets one row twice
    single = classifier.single_elements(target.slice)
    if single:
        return WritePlan(name, "at", method, single=single)  # one element, or the trace stops
    if operator is None or value is None:
        return WritePlan(name, "at", method, NOT_INTEGER_INDEX)
    blocker = repeated_index_blocker(target, value, operator, classifier)
    if blocker is not None:
        return WritePlan(name, "at", method, blocker)
    return WritePlan(name, "at", "set", reread=True)  # every copy of a repeated position gets x[k] op v


def becomes_where(target: cst.Subscript, value: cst.BaseExpression | None, classifier: IndexClassifier, augmented: bool) -> bool:
    """``x[mask of x's shape] = number`` (``= y[mask]``, ``op= ...``): rewritten to ``jnp.where(mask, ..., x)``,
    which keeps every shape fixed under jit (analysis/mask_writes.py)."""
    return where_write(target, value, augmented, classifier) is not None


def _is_number(node: cst.BaseExpression) -> bool:
    if isinstance(node, (cst.Integer, cst.Float)):
        return True
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, (cst.Minus, cst.Plus)):
        return _is_number(node.expression)
    return isinstance(node, cst.Name) and node.value in ("True", "False")


def _code(node: cst.CSTNode) -> str:
    return cst.Module(body=()).code_for_node(node)
