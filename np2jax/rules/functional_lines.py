"""NPJ200's rewrites of whole lines: an unpacking assignment into several targets (``a[t], b[t] = f()``,
``B[0], B[1] = B[1], B[0]``) and a chained one (``F[0, 2] = F[1, 3] = dt``), and the helpers its rewrites share
(new names, ``.at`` on what may still be a NumPy array, single-element indices)."""

from __future__ import annotations

import libcst as cst

from np2jax.analysis.indexing import IndexClassifier
from np2jax.analysis.jax_values import name_holds_jax_array
from np2jax.analysis.writes import tuple_views
from np2jax.context import FileContext, runs_on_jax_arrays
from np2jax.cstutil import call
from np2jax.diagnostics import Severity


class LineRewrites:
    """Mixed into ``FunctionalUpdate`` (its ``_functional_write``)."""

    def rewrite_line(self, original: cst.SimpleStatementLine, updated: cst.SimpleStatementLine, ctx: FileContext):
        statement = original.body[0]
        chained = ctx.chained_write_plans(statement)
        if chained is not None:
            return self._split_chain(chained, updated, ctx) if statement not in ctx.blocked_statements else None
        plans = ctx.tuple_write_plans(statement)
        if not plans or statement in ctx.blocked_statements or any(p is not None and p.blocker for p in plans):
            return None
        assign = updated.body[0]
        rereads = tuple_views(statement, plans, IndexClassifier(ctx.resolver, ctx.scope), ctx.resolver, ctx.scope)
        if isinstance(rereads, str):
            ctx.report("NPJ201", Severity.ERROR, statement,
                       f"in-place write cannot be made functional safely: {rereads}", "swap with fancy indices: "
                       "x[[i, j]] = x[[j, i]] (NumPy and JAX agree), or copy the right-hand side first")
            return None
        elements = list(assign.targets[0].target.elements)
        taken = names_in_reach(ctx)
        updates = []
        for index, (element, plan) in enumerate(zip(elements, plans)):
            if plan is None:
                continue
            temporary = fresh_name(f"new_{plan.name}", taken)
            taken.add(temporary)
            subscript = element.value
            elements[index] = element.with_changes(value=cst.Name(temporary))
            at = cst.Subscript(value=cst.Attribute(value=at_base(cst.Name(plan.name), ctx), attr=cst.Name("at")),
                               slice=single_elements(subscript.slice, plan, ctx))
            stored: cst.BaseExpression = cst.Name(temporary)
            if index in rereads:  # a view NumPy reads when it assigns it, after the earlier writes (0-d: a copy)
                reread = assign.value.elements[index].value.deep_clone().with_changes(lpar=[], rpar=[])
                stored = cst.IfExp(test=cst.Attribute(value=cst.Name(temporary), attr=cst.Name("ndim")), body=reread,
                                   orelse=cst.Name(temporary))
            value = cst.Call(func=cst.Attribute(value=at, attr=cst.Name("set")), args=[cst.Arg(stored)])
            updates.append(cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(cst.Name(plan.name))], value)]))
        target = assign.targets[0].target.with_changes(elements=elements)
        unpack = updated.with_changes(body=[assign.with_changes(targets=[assign.targets[0].with_changes(target=target)])])
        return [unpack, *updates]

    def _split_chain(self, plans: list, updated: cst.SimpleStatementLine, ctx: FileContext):
        """``a[i] = b[j] = v`` -> one assignment per target, left to right, each given ``v`` evaluated once:
        ``v`` itself when it is a constant or a name that no target rebinds, else the first target when it is
        such a name (``a = b[0] = v`` binds ``a`` to ``v``), else a new name."""
        if all(plan is None for plan in plans) or any(plan is not None and plan.blocker for plan in plans):
            return None
        assign = updated.body[0]
        targets = [t.target for t in assign.targets]
        rebound = [_rebound_names(t) for t in targets]
        lines: list[cst.BaseSmallStatement] = []
        shared = assign.value
        reread = _is_constant(shared) or isinstance(shared, cst.Name) and not any(shared.value in names for names in rebound)
        if not reread:
            if isinstance(targets[0], cst.Name) and not any(targets[0].value in names for names in rebound[1:]):
                lines.append(cst.Assign([cst.AssignTarget(targets[0])], assign.value))
                shared, targets, plans = targets[0], targets[1:], plans[1:]
            else:
                temporary = cst.Name(fresh_name("value", names_in_reach(ctx)))
                lines.append(cst.Assign([cst.AssignTarget(temporary)], assign.value))
                shared = temporary
        for target, plan in zip(targets, plans):
            if plan is None:
                lines.append(cst.Assign([cst.AssignTarget(target)], shared.deep_clone()))
            else:
                lines.append(self._functional_write(plan, target, shared.deep_clone(), None, ctx))
        first = updated.with_changes(body=[lines[0]])
        return [first, *(cst.SimpleStatementLine([line]) for line in lines[1:])]


def fresh_name(base: str, taken: set[str]) -> str:
    name, suffix = base, 1
    while name in taken:
        suffix += 1
        name = f"{base}{suffix}"
    return name


def names_in_reach(ctx: FileContext) -> set[str]:
    """The names bound in the current scope or any enclosing one: a new name must be none of them (any of
    them could be read here as a free variable)."""
    taken: set[str] = set()
    scope = ctx.scope
    while scope is not None:
        taken |= set(scope.bindings)
        scope = scope.parent
    return taken


def _rebound_names(target: cst.BaseExpression) -> set[str]:
    """The names an assignment to ``target`` rebinds once migrated: ``x`` for ``x = v`` and ``x[i] = v``
    (``x = x.at[i].set(v)``), ``a`` and ``b`` for ``a, b = v``."""
    while isinstance(target, cst.Subscript):
        target = target.value
    if isinstance(target, (cst.Tuple, cst.List)):
        return {name for element in target.elements for name in _rebound_names(element.value)}
    if isinstance(target, cst.StarredElement):
        return _rebound_names(target.value)
    return {target.value} if isinstance(target, cst.Name) else set()


def _is_constant(node: cst.BaseExpression) -> bool:
    if isinstance(node, cst.UnaryOperation):
        return _is_constant(node.expression)
    return isinstance(node, (cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString)) or (
        isinstance(node, cst.Name) and node.value in ("True", "False", "None"))


def single_elements(index, plan, ctx: FileContext) -> list[cst.SubscriptElement]:
    """``index`` with the elements the plan reads as one number as ``jnp.reshape(e, ())`` (``h[idx[i]] += 1``):
    the same element, or the trace stops for an index that is a row (analysis/indexing.py)."""
    index = list(index)
    for position in plan.single:
        element = index[position]
        reshaped = call(f"{ctx.use_jnp()}.reshape", element.slice.value, cst.Tuple([]))
        index[position] = element.with_changes(slice=element.slice.with_changes(value=reshaped))
    return index


def at_base(target: cst.Name | cst.Attribute, ctx: FileContext) -> cst.BaseExpression:
    """What ``.at`` is read on: ``target`` itself, or ``jnp.asarray(target)`` in a function that is not jitted
    when ``target`` may still be a NumPy array there (``x = xs.copy()`` of a NumPy argument has no ``.at``;
    analysis/jax_values.py)."""
    if runs_on_jax_arrays(ctx.function, ctx):
        return target
    if isinstance(target, cst.Name) and name_holds_jax_array(target.value, ctx.scope, ctx.resolver):
        return target
    if isinstance(target, cst.Attribute) and ctx.attributes is not None and ctx.attributes.holds_jax_array(
            ctx.function.node if ctx.function is not None else None, target):
        return target
    return call(f"{ctx.use_jnp()}.asarray", target)
