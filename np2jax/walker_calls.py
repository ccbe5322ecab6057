"""Rewrites the walker makes at expressions: calls (keywords, casts, wrapped arguments, ``min``/``max``
selections) and reads through ``.flat``.  Mixed into ``np2jax.walker.Walker``, whose state they use:
``ctx``, ``traced``, ``keyword_changes``, ``wraps``, ``result_casts``, ``replacements`` and
``statement_rewrites`` (rewrites that count as changes of the function)."""

from __future__ import annotations

import libcst as cst

from np2jax.analysis.average_dtype import times_one
from np2jax.analysis.inplace_calls import constant_dtype
from np2jax.analysis.int_promotions import int_array_casts
from np2jax.analysis.list_operands import array_list_operands
from np2jax.analysis.static_sequences import as_tuple, tuple_safe
from np2jax.context import OWN_DTYPE, runs_on_jax_arrays
from np2jax.cstutil import argument_for, call, change_keywords, dotted


class CallRewrites:
    def _selection(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        """``min(a, b)`` -> ``jnp.where(b < a, b, a)``, ``max(a, b)`` -> ``jnp.where(b > a, b, a)``: the argument Python
        returns, for traced values (analysis/call_checks.py)."""
        chosen, *others = (arg.value for arg in updated.args)
        for other in others:  # `min(a, b, c)`: Python keeps the first of the smallest, as `min(min(a, b), c)`
            operator = cst.LessThan() if original.func.value == "min" else cst.GreaterThan()
            test = cst.Comparison(_operand(other), [cst.ComparisonTarget(operator, _operand(chosen))])
            chosen = call(f"{self.ctx.use_jnp()}.where", test, other.deep_clone(), chosen.deep_clone())
        self.statement_rewrites += 1
        return chosen

    def _masked_result(self, updated: cst.Call) -> cst.BaseExpression:
        """``jnp.f(a, out=C, where=m)`` -> ``jnp.where(m, jnp.f(a), C)`` (analysis/inplace_calls.masked_into_fresh)."""
        keywords = {arg.keyword.value: arg.value for arg in updated.args if arg.keyword is not None}
        result = updated.with_changes(args=change_keywords(updated.args, {"out": None, "where": None}))
        self.statement_rewrites += 1
        picked = call(f"{self.ctx.use_jnp()}.where", keywords["where"], result, keywords["out"])
        return call(cst.Attribute(value=picked, attr=cst.Name("astype")), constant_dtype(keywords["out"]))

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        tracing = self.ctx.tracing
        if (tracing is not None and self.traced and isinstance(original.func, cst.Name) and original.func.value in ("min", "max", "int", "sum")
                and runs_on_jax_arrays(self.ctx.function, self.ctx)):  # (the function's plan, computed by then, found them)
            if original in tracing.selections:
                return self._selection(original, updated)
            if original in tracing.array_sums:  # `sum(a)` of a float array: the rows added at once, not unrolled
                self.statement_rewrites += 1
                total = call(f"{self.ctx.use_jnp()}.sum", updated.args[0].value,
                             cst.Arg(cst.Integer("0"), keyword=cst.Name("axis")))
                return total.with_changes(lpar=updated.lpar, rpar=updated.rpar)
            if original in tracing.int_casts:
                self.statement_rewrites += 1
                return updated.args[0].value.with_changes(lpar=updated.lpar, rpar=updated.rpar)
        if (tracing is not None and self.traced and original in tracing.mask_counts
                and runs_on_jax_arrays(self.ctx.function, self.ctx)):
            return self._mask_count(updated.args[0].value, updated)
        if (tracing is not None and self.traced and original in tracing.masked_reductions
                and runs_on_jax_arrays(self.ctx.function, self.ctx)):
            return self._masked_reduction(original, updated, *tracing.masked_reductions[original])
        if (tracing is not None and self.traced and isinstance(updated.func, cst.Attribute)
                and runs_on_jax_arrays(self.ctx.function, self.ctx) and original in tracing.constant_methods):
            self.statement_rewrites += 1  # a NumPy array's method refuses tracers; a JAX array's takes them
            updated = updated.with_changes(func=updated.func.with_changes(
                value=call(f"{self.ctx.use_jnp()}.asarray", updated.func.value)))
        if original in self.ctx.scaled_receivers and self.traced and isinstance(updated.func, cst.Attribute):
            self.statement_rewrites += 1  # `(img * 1.0).mean()`: NumPy's dtype for the average (average_dtype.py)
            receiver = times_one(updated.func.value).with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
            updated = updated.with_changes(func=updated.func.with_changes(value=receiver))
        if tracing is not None and isinstance(original.func, cst.Name):
            updated = self._static_tuples(original, updated)
        changes = self.keyword_changes.get(original)
        if not changes and original in self.ctx.call_keywords:
            changes = self.ctx.call_keywords[original]
            self.statement_rewrites += 1
        if changes:
            updated = updated.with_changes(args=change_keywords(updated.args, changes))
        if original in self.ctx.masked_results and self.traced:
            updated = self._masked_result(updated)
        positions = self.wraps.get(original)
        if not positions and original in self.ctx.call_wraps:
            positions = self.ctx.call_wraps[original]
            self.statement_rewrites += 1
        if positions:
            updated = self._wrap_arguments(updated, positions)
        if original in self.ctx.exact_grids:  # NumPy's exact values, held in a JAX array (rules/np_to_jnp.py)
            self.statement_rewrites += 1
            return call(f"{self.ctx.use_jnp()}.asarray", updated).with_changes(lpar=updated.lpar, rpar=updated.rpar)
        cast = self.result_casts.get(original)
        if cast is None and original in self.ctx.call_casts and self.traced:
            cast = self.ctx.call_casts[original]
            self.statement_rewrites += 1
        if cast is OWN_DTYPE:  # `r.astype(r.dtype)`: JAX's weakly typed result of Python numbers made strong
            cast = cst.Attribute(value=updated.deep_clone(), attr=cst.Name("dtype"))
        return updated if cast is None else call(cst.Attribute(value=updated, attr=cst.Name("astype")), cast)

    def _mask_count(self, selection: cst.BaseExpression, updated: cst.BaseExpression) -> cst.BaseExpression:
        """``len(X[m])`` / ``X[m].shape[0]`` -> ``jnp.count_nonzero(m)``: the same number, with no array of a
        data-dependent shape (analysis/function_tracing.counted_mask)."""
        if not (isinstance(selection, cst.Subscript) and len(selection.slice) == 1 and isinstance(selection.slice[0].slice, cst.Index)):
            return updated  # (another rewrite changed the selection: leave it)
        self.statement_rewrites += 1
        count = call(f"{self.ctx.use_jnp()}.count_nonzero", selection.slice[0].slice.value)
        return count.with_changes(lpar=updated.lpar, rpar=updated.rpar)

    def _masked_reduction(self, original: cst.Call, updated: cst.Call, name: str, read: cst.Subscript,
                          rows: bool) -> cst.Call:
        """``x[m].sum()`` / ``np.sum(x[m])`` -> ``jnp.sum(x, where=m)``; ``X[m].mean(axis=0)`` (rows) ->
        ``jnp.mean(X, axis=0, where=jnp.reshape(m, (X.shape[0],) + (1,) * (X.ndim - 1)))``: the rows a 1-D mask
        picks (analysis/call_checks.py). A mask of more dimensions has more elements than ``X`` has rows, and the
        reshape raises at trace time (``expand_dims`` let a mask of ``X``'s shape broadcast: a sum over everything)."""
        method = isinstance(original.func, cst.Attribute) and original.func.value is read
        read = updated.func.value if method else updated.args[0].value  # (its mask as rewritten: `jnp.isnan(x)`)
        rest = list(updated.args if method else updated.args[1:])
        if not (isinstance(read, cst.Subscript) and len(read.slice) == 1 and isinstance(read.slice[0].slice, cst.Index)):
            return updated  # (another rewrite changed the read: leave the call as it is)
        self.statement_rewrites += 1
        mask = read.slice[0].slice.value
        if rows:
            rest = [arg.with_changes(keyword=cst.Name("axis")) if arg.keyword is None else arg for arg in rest]
            shape = cst.parse_expression(f"({self.ctx.code(read.value)}.shape[0],) + (1,) * ({self.ctx.code(read.value)}.ndim - 1)")
            mask = call(f"{self.ctx.use_jnp()}.reshape", mask, shape)
        args = [cst.Arg(read.value), *rest, cst.Arg(mask, keyword=cst.Name("where"))]
        return call(f"{self.ctx.use_jnp()}.{name}", *args).with_changes(lpar=updated.lpar, rpar=updated.rpar)

    def _static_tuples(self, original: cst.Call, updated: cst.Call) -> cst.Call:
        """``pad_to(x, [4])`` -> ``pad_to(x, (4,))``: a list display given for a parameter a function of the
        module keeps static, which jax.jit must hash, and which it uses as it would a tuple
        (analysis/static_sequences.py)."""
        name = original.func.value
        tracing = self.ctx.tracing
        callee = tracing.function_node(name)
        if callee is None or not any(isinstance(arg.value, cst.List) for arg in original.args):
            return updated
        found, _ = self.lookup_scope.lookup(name)
        plan = tracing.plan(name) if found is not None and found.kind == "module" else None
        if plan is None or not plan.ok:
            return updated
        args = list(updated.args)
        for param in plan.static:
            given = argument_for(original, callee, param)
            if isinstance(given, cst.List) and tuple_safe(callee, param, self.ctx.resolver):
                position = next(i for i, arg in enumerate(original.args) if arg.value is given)
                if isinstance(args[position].value, cst.List):
                    args[position] = args[position].with_changes(value=as_tuple(args[position].value))
        if args == list(updated.args):
            return updated
        self.statement_rewrites += 1
        return updated.with_changes(args=args)

    def _wrap_arguments(self, updated: cst.Call, positions: set) -> cst.Call:
        asarray = dotted(f"{self.ctx.jnp_alias}.asarray")
        widened = {p[1]: p[2:] for p in positions if isinstance(p, tuple) and p[0] == "widen"}
        args = []
        for i, arg in enumerate(updated.args):
            if i in widened:  # `np.cov(x)` computes in float64: `jnp.cov(jnp.asarray(x, dtype=jnp.result_type(x, jnp.float64)))`
                jnp = self.ctx.jnp_alias
                complex_ok, may_be_none = widened[i]
                read = call(asarray, arg.value.deep_clone()) if i in positions else arg.value.deep_clone()  # (a list)
                dtype = call(f"{jnp}.result_type", read, dotted(f"{jnp}.float64")) if complex_ok else cst.Name("float")
                value = call(asarray, arg.value, cst.Arg(dtype, keyword=cst.Name("dtype")))
                if may_be_none:  # `weights=w` with `w=None`: jnp.asarray(None) raises; `w is None` is static under jit
                    value = cst.IfExp(test=cst.Comparison(arg.value.deep_clone(), [cst.ComparisonTarget(cst.Is(), cst.Name("None"))]),
                                      body=cst.Name("None"), orelse=value)
                arg = arg.with_changes(value=value)
            elif ("inexact", i) in positions:  # `np.polyfit(np.arange(n), y, 1)`: NumPy's own `asarray(x) + 0.0`
                arg = arg.with_changes(value=cst.BinaryOperation(
                    left=cst.Call(func=asarray, args=[cst.Arg(arg.value)]), operator=cst.Add(), right=cst.Float("0.0")))
            elif ("scale", i) in positions:  # `jnp.mean(img * 1.0)`: NumPy's dtype for the average (average_dtype.py)
                arg = arg.with_changes(value=times_one(arg.value))
            elif i in positions:
                arg = arg.with_changes(value=cst.Call(func=asarray, args=[cst.Arg(arg.value)]))
            elif ("ravel", i) in positions:  # `np.meshgrid(a, b)` flattens a 2-D `a` itself
                arg = arg.with_changes(value=call(f"{self.ctx.jnp_alias}.ravel", arg.value))
            elif ("atleast_1d", i) in positions:  # `np.convolve(x, taps)` makes a 0-d `taps` 1-D itself
                arg = arg.with_changes(value=call(f"{self.ctx.jnp_alias}.atleast_1d", arg.value))
            elif (i, -1) in positions:  # `[jnp.asarray(part) for part in mappings]`
                part = cst.Name("part" if self.ctx.jnp_alias != "part" else "part_")
                arg = arg.with_changes(value=cst.ListComp(
                    elt=cst.Call(func=asarray, args=[cst.Arg(part)]), for_in=cst.CompFor(target=part, iter=arg.value)))
            elif isinstance(arg.value, (cst.List, cst.Tuple)) and any(p[0] == i for p in positions if isinstance(p, tuple)):
                elements = [
                    e.with_changes(value=cst.Call(func=asarray, args=[cst.Arg(e.value)])) if (i, j) in positions else e
                    for j, e in enumerate(arg.value.elements)
                ]
                arg = arg.with_changes(value=arg.value.with_changes(elements=elements))
            args.append(arg)
        return updated.with_changes(args=args)

    def leave_BinaryOperation(self, original: cst.BinaryOperation, updated: cst.BaseExpression) -> cst.BaseExpression:
        """``x / counts`` -> ``x / counts.astype(float)`` for an int32/int64 array ``counts``: NumPy's quotient of a
        float32 ``x`` is float64, jax.numpy's float32 under x64; so for ``2.0 * k`` (analysis/int_promotions.py)."""
        function = self.ctx.function
        if not self.traced or function is None or not isinstance(updated, cst.BinaryOperation):
            return updated
        sides = int_array_casts(function.node, self.ctx.resolver).get(original)
        if sides is None or not runs_on_jax_arrays(function, self.ctx):
            return updated
        self.statement_rewrites += 1
        left_cast, right_cast, into = sides
        dtype = cst.Name("float") if into is None else call(f"{self.ctx.use_jnp()}.result_type", cst.Name(into), cst.Name("float"))
        left, right = (_as_float(side, dtype.deep_clone()) if cast else side
                       for side, cast in zip((updated.left, updated.right), (left_cast, right_cast)))
        return updated.with_changes(left=left, right=right)

    def leave_List(self, original: cst.List, updated: cst.BaseExpression) -> cst.BaseExpression:
        return self._array_operand(original, updated)

    def leave_Tuple(self, original: cst.Tuple, updated: cst.BaseExpression) -> cst.BaseExpression:
        return self._array_operand(original, updated)

    def _array_operand(self, original: cst.CSTNode, updated: cst.BaseExpression) -> cst.BaseExpression:
        """``x - [cx, cy]`` -> ``x - jnp.asarray([cx, cy])``: a jax.Array takes no list operand; NumPy converted
        the display itself (analysis/list_operands.py)."""
        function = self.ctx.function
        if not self.traced or function is None or not isinstance(updated, (cst.List, cst.Tuple)):
            return updated
        if original not in array_list_operands(function.node, self.ctx.resolver):
            return updated
        self.statement_rewrites += 1
        display = updated.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()]) if isinstance(updated, cst.Tuple) else updated
        return cst.Call(func=dotted(f"{self.ctx.use_jnp()}.asarray"), args=[cst.Arg(display.with_changes(lpar=[], rpar=[]) if isinstance(updated, cst.List) else display)],
                        lpar=updated.lpar if isinstance(updated, cst.List) else [], rpar=updated.rpar if isinstance(updated, cst.List) else [])

    def leave_Attribute(self, original: cst.Attribute, updated: cst.BaseExpression) -> cst.BaseExpression:
        receiver = original.value
        own = isinstance(receiver, cst.Name) and receiver.value in ("self", "cls")  # an object's own `flat` attribute
        if original.attr.value == "flat" and self.traced and original not in self._written_flats and not own:
            # A jax.Array has no `.flat` (NotImplementedError); reading through `.ravel()` gives the same
            # elements in the same order, for a NumPy array too. Writes through `.flat` are in-place writes.
            self.statement_rewrites += 1
            return cst.Call(func=updated.with_changes(attr=cst.Name("ravel"), lpar=[], rpar=[]),
                            lpar=updated.lpar, rpar=updated.rpar)
        return self.replacements.get(original, updated)

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        self._note_flat_write(node.target)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._note_flat_write(node.target)

    def visit_Del(self, node: cst.Del) -> None:
        self._note_flat_write(node.target)

    def _note_flat_write(self, target: cst.BaseExpression) -> None:
        if isinstance(target, cst.Subscript):
            target = target.value
        if isinstance(target, cst.Attribute) and target.attr.value == "flat":
            self._written_flats.add(target)


def _operand(node: cst.BaseExpression) -> cst.BaseExpression:
    """``node`` as an operand of a comparison: parenthesized when it binds more loosely than one."""
    loose = (cst.Comparison, cst.BooleanOperation, cst.IfExp, cst.Lambda, cst.NamedExpr)
    if isinstance(node, loose) or (isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Not)):
        if not node.lpar:
            return node.deep_clone().with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    return node.deep_clone()


def _as_float(node: cst.BaseExpression, dtype: cst.BaseExpression) -> cst.BaseExpression:
    """``node.astype(dtype)``, parenthesised where the attribute would bind tighter than ``node``."""
    if not node.lpar and not isinstance(node, (cst.Name, cst.Call, cst.Attribute, cst.Subscript)):
        node = node.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    return cst.Call(func=cst.Attribute(value=node, attr=cst.Name("astype")), args=[cst.Arg(dtype)])
