"""Which ``for`` loops of a traced function become ``jax.lax.fori_loop`` / ``jax.lax.scan``, and why the others block jit.

A loop with a few steps known from the code is left for ``jax.jit`` to unroll; so is
one over a Python container (a list of layers).  Any other loop is converted when
its body keeps the same operations in the same order as a fori_loop body (the
``LoopConversion`` in the plan, read by NPJ305/NPJ307), and otherwise blocks jit
(NPJ303) with the reason.
"""

from __future__ import annotations

import libcst as cst

from np2jax.analysis.aliasing import has_array_evidence
from np2jax.analysis.carry_shapes import shape_changing_carry
from np2jax.analysis.collect import CollectedLists, Collection
from np2jax.analysis.dtype_sources import FLOAT, FLOAT64, PROMOTED, dtype_source
from np2jax.analysis.jit_plan import LoopConversion
from np2jax.analysis.list_params import counts_elements, list_indexed_at
from np2jax.analysis.loops import (
    LoopBody,
    all_names,
    assigned_before,
    binding_targets,
    contains,
    descendants,
    names_outside,
    numpy_call_on_python_values,
    subscripts,
)
from np2jax.analysis.param_hints import hint_names
from np2jax.analysis.resolve import is_shape_name
from np2jax.analysis.scope import LoopBinding, ValueBinding
from np2jax.analysis.sequences import documented_array_like, sequence_annotation
from np2jax.analysis.tracing_tables import ARRAY, ARRAY_HINTS, SCALAR_HINTS, STATIC_INSTEAD
from np2jax.analysis.values import ZIPPERS
from np2jax.cstutil import argument_for
from np2jax.visitors import child_nodes, visit


# Reductions of a loop element (`np.sum(g * g)`): the element is an array, perhaps one of a list of arrays of
# different shapes (a network's gradients), which `jnp.asarray` cannot stack
ELEMENT_REDUCTIONS = frozenset(
    "sum mean max min prod std var dot vdot inner outer norm average median any all nansum nanmean nanmax nanmin "
    "nanstd nanvar nanmedian ptp amax amin cumsum cumprod sort argsort argmax argmin diff ravel flatten count_nonzero "
    "percentile quantile trapezoid trapz concatenate stack size shape ndim".split())
SEQUENCE_BUILTINS = frozenset(f"builtins.{name}" for name in "len max min sum sorted list tuple set".split())
ORDERING = (cst.LessThan, cst.GreaterThan, cst.LessThanEqual, cst.GreaterThanEqual, cst.Equal, cst.NotEqual)


class ForLoops:
    """The ``for`` loop visitor of ``FunctionTracing`` (analysis/function_tracing.py) and its loop analysis.

    A converted loop's index and carried names become traced from the loop on
    (``traced_iterables``, ``carried``), which the token computation reads.
    """

    def visit_For(self, node: cst.For) -> None:
        iterable = node.iter
        self._mark_iterated(iterable)
        self._string_elements(node)
        if self.breaking_loop(node):
            return  # it breaks on a traced test: jax.lax.while_loop (analysis/while_loops.py)
        steps = self._trip_count(iterable)
        if steps is not None and steps <= self.module.unroll_threshold:
            return
        if steps is None and not self._iterates_array(iterable) and self._reduced_elements(node):
            listed = self._parameter_elements(node)[0][0]
            self._block(node, "loop", f"Python `for` loop over the elements of `{listed}`, which it reduces as arrays: "
                        f"`{listed}` may be an array, whose rows jax.jit would unroll one copy each, or a list of arrays "
                        "of different shapes, which no jax.lax.fori_loop can stack",
                        "pass one array and reduce it whole (`np.sum(x ** 2, axis=1)`), or loop over it with jax.lax.fori_loop")
            return
        if steps is None and not self._iterates_array(iterable) and not self._numbers_of_parameter(node):
            return  # a Python container (a list of layers, a tuple of names): unrolling is what is meant
        if steps is None and self._fresh_dict(iterable):
            return  # `for k in params` of `params = init_params(n)`, a dict of new arrays: its keys, few and static
        if steps is None and self._made_list(iterable):
            return  # `for layer in layers` of a list a helper makes: unrolled (hunt51 FP2)
        if steps is None and self._ranges_over_python_sequence(iterable):
            return  # range(len(coeffs)) of a tuple: as short as the tuple
        listed = list_indexed_at(node, self.node, self.params, self.resolver, self.function_scope)
        if listed and self.scope is self.function_scope:  # `hist[i]` of parameters used only like lists
            if steps is not None or not counts_elements(iterable, listed, self.resolver, self.scope):  # (list_params.py)
                listed = listed[0]
                count = f"{steps} steps" if steps is not None else f"a trip count other than `len({listed})`"
                self._block(node, "loop", f"Python `for` loop with {count} indexing `{listed}` at its index: `{listed}` "
                            "is used only like a list, which jax cannot index with a fori_loop's traced index",
                            f"pass `{listed}` as one stacked array and use it as one (`{listed}.shape`), or loop over it")
            return
        given = self._given_set_or_range(iterable)
        if given is not None:
            self._block(node, "loop", f"Python `for` loop over `{iterable.value}`, which a call in this module passes as {given}, "
                        "which jax.jit cannot take as an argument",
                        "pass an array (np.asarray(sorted(s)), np.arange(n)) or a tuple as a static argument")
            return
        conversion, obstacle = self._fori_conversion(node)
        if conversion is not None:
            if conversion.peel and isinstance(iterable, cst.Call):  # its first step runs only if there is one:
                for arg in iterable.args:  # Python decides that, at trace time (`len(x)` of an array is static)
                    self._require(arg.value, "bound of a `range` whose first step runs before jax.lax.fori_loop", STATIC_INSTEAD)
            self.loops[node] = conversion
            self.traced_iterables[iterable] = f"<index:{conversion.index}>"
            self.carried.update(conversion.carried)
            self.forget_tokens()  # computed above (analysis/traced_tokens.py) before the index and carried names were traced
            self.open_window_loop(node)
            return
        count = f"{steps} steps" if steps is not None else "a trip count known only at run time"
        self._block(node, "loop", f"Python `for` loop with {count} ({obstacle}): jax.jit would unroll it, one copy per step",
                    "jax.lax.fori_loop(lower, upper, body, init), or jax.lax.scan to collect per-step values")

    def visit_CompFor(self, node: cst.CompFor) -> None:
        """``[np.sum(x[:i + 1]) for i in range(len(x))]``: jax.jit unrolls a comprehension, one copy of its element
        per step, as it would a ``for`` loop (real33: 17 s to compile for 400 samples). One over a ``range`` as long
        as an array (``range(len(x))``, ``range(x.shape[0])``, a name bound to one) keeps the function un-jitted
        (NPJ303); one over a few steps, a Python container, an array's rows or a count given by the caller
        (``range(n_shifts)``) is unrolled."""
        iterable = node.iter
        steps = self._trip_count(iterable)
        if (steps is not None and steps <= self.module.unroll_threshold) or not self._as_long_as_data(iterable):
            return
        count = f"{steps} steps" if steps is not None else "as many steps as an array has elements"
        self._block(node, "loop", f"comprehension with {count}: jax.jit would unroll it, one copy of its element per step",
                    "a vectorised expression (jnp.cumsum, broadcasting) or jax.vmap; or jax.lax.scan to collect per-step values")

    def _as_long_as_data(self, iterable: cst.BaseExpression) -> bool:
        """A ``range`` whose bounds are an array's length (``len(x)``, ``x.shape[0]``, a name bound to one)."""
        if isinstance(iterable, cst.Call) and self.resolver.qualname(iterable.func, self.scope) in (
                "builtins.enumerate", "builtins.zip", "builtins.reversed"):
            return any(self._as_long_as_data(arg.value) for arg in iterable.args if arg.keyword is None)
        if isinstance(iterable, cst.Call) and self.resolver.qualname(iterable.func, self.scope) == "builtins.range":
            if self._ranges_over_python_sequence(iterable):
                return False
            return any(self._sized(arg.value, 0) for arg in iterable.args)
        # (not an array iterated directly: `[{k: xi[v] ...} for xi in x]` of emcee's walkers stays unrolled, as the
        # rows of an array or the items of a list it may be)
        return False

    def _sized(self, node: cst.BaseExpression, depth: int) -> bool:
        for part in descendants(node):
            if isinstance(part, cst.Attribute) and part.attr.value in ("shape", "size"):
                return True
            if isinstance(part, cst.Call) and self.resolver.qualname(part.func, self.scope) == "builtins.len" and part.args and (
                    not self._is_python_sequence(part.args[0].value) and not self._elements_called(part.args[0].value)):
                return True  # (an array's: not `len(vander_fs)` of a tuple of functions, `vander_fs[i](x)`)
            if isinstance(part, cst.Name) and depth < 2:
                _, bindings = self.scope.lookup(part.value)
                if any(isinstance(b, ValueBinding) and not b.augmented and self._sized(b.value, depth + 1) for b in bindings or ()):
                    return True
        return False

    def _given_set_or_range(self, iterable: cst.BaseExpression) -> str | None:
        """``for i in idx`` of a parameter that a call of this module-level function in its module gives a set or a
        ``range`` (``total_at(x, {0, 2})``, ``total_at(x, range(3))``): what it is given ("a set")."""
        function, module = self.function_scope.node, self.function_scope.parent
        if not (isinstance(iterable, cst.Name) and iterable.value in self.params and self.scope is self.function_scope
                and isinstance(function, cst.FunctionDef) and module is not None and module.kind == "module"):
            return None
        for call, owner in self.resolver.calls_by_name(module.node).get(function.name.value, ()):
            given = argument_for(call, function, iterable.value)
            caller = self.resolver.scopes.get(owner) if owner is not None else module
            qualname = self.resolver.qualname(given.func, caller) if isinstance(given, cst.Call) and caller is not None else None
            if isinstance(given, (cst.Set, cst.SetComp)) or qualname in ("builtins.set", "builtins.frozenset"):
                return "a set"
            if qualname == "builtins.range":
                return "a `range`"
        return None

    def _elements_called(self, node: cst.BaseExpression) -> bool:
        """``fs[i](x)`` somewhere in the function, for the name ``node``: a sequence of callables."""
        return isinstance(node, cst.Name) and any(
            isinstance(part, cst.Call) and isinstance(part.func, cst.Subscript) and isinstance(part.func.value, cst.Name)
            and part.func.value.value == node.value for part in descendants(self.node.body))

    def _string_elements(self, node: cst.For) -> None:
        """``for key in keys: if key == "a"``: ``keys`` holds strings, which jax.jit cannot take (a list of them
        is no static argument either: unhashable). A tuple default or hint is left to the static analysis."""
        for source, element in self._parameter_elements(node):
            param = self.params[source]
            if isinstance(param.default, (cst.Tuple, cst.List)) or sequence_annotation(param.annotation):
                continue
            text = _compared_string(node.body, element)
            if text is not None:
                self._block(node, "traced-value", f"`{source}` holds strings (its element `{element}` is compared with "
                            f"{text}), and jax.jit cannot take strings",
                            "keep the strings in un-jitted code: pass what they select as an array, or a tuple as a static argument")
                return

    def _mark_iterated(self, iterable: cst.BaseExpression) -> None:
        """``for v in x`` (or ``enumerate(x)``, ``zip(x, y)``) of a parameter: an array or a list, both
        unhashable, so never a static argument (a tuple says so with a hint or a default)."""
        sources = [iterable]
        if isinstance(iterable, cst.Call) and self.resolver.qualname(iterable.func, self.scope) in ZIPPERS:
            sources = [arg.value for arg in iterable.args if arg.keyword is None and not arg.star]
        for source in sources:
            if isinstance(source, cst.Name) and source.value in self.params:
                found, _ = self.scope.lookup(source.value)
                if found is self.function_scope:
                    self.iterated.add(source.value)

    def _made_list(self, iterable: cst.BaseExpression) -> bool:
        """A local name only bound to a list display of items or to a list of new arrays a helper of the module makes
        (``layers = init_layers(n)``, analysis/fresh_results.py): as long as the display or the helper's list, not
        grown by appends (which a loop may turn into an array)."""
        if not isinstance(iterable, cst.Name):
            return False
        found, bindings = self.scope.lookup(iterable.value)
        fresh = self.module.fresh_results
        return found is self.function_scope and bool(bindings) and all(
            isinstance(b, ValueBinding) and not b.augmented and (
                (isinstance(b.value, (cst.List, cst.Tuple)) and bool(b.value.elements))
                or (fresh is not None and fresh.fresh_container_call(b.value, found) == "list")) for b in bindings)

    def _ranges_over_python_sequence(self, iterable: cst.BaseExpression) -> bool:
        if not (isinstance(iterable, cst.Call) and self.resolver.qualname(iterable.func, self.scope) == "builtins.range"):
            return False
        for arg in iterable.args:
            value = arg.value
            if isinstance(value, cst.Call) and self.resolver.qualname(value.func, self.scope) == "builtins.len" and value.args:
                if self._is_python_sequence(value.args[0].value):
                    return True
        return False

    def _fori_conversion(self, node: cst.For) -> tuple[LoopConversion | None, str]:
        """How ``node`` becomes a fori_loop, or why it cannot (the second item)."""
        if node.orelse is not None or node.asynchronous is not None:
            return None, "it has an `else` clause"
        iterable, target = node.iter, node.target
        kind = "iter"
        zipped: tuple[str, ...] = ()
        if isinstance(iterable, cst.Call) and self.resolver.qualname(iterable.func, self.scope) == "builtins.range":
            args = iterable.args
            if not 1 <= len(args) <= 3 or any(a.keyword is not None or a.star for a in args):
                return None, "an unusual `range`"
            kind = "range"
            if len(args) == 3 and not _literal_one(args[2].value):
                step = args[2].value
                if not (isinstance(step, cst.UnaryOperation) and isinstance(step.operator, cst.Minus) and _literal_one(step.expression)):
                    return None, "a step other than 1 or -1"
                kind = "reversed"  # range(a, b, -1): fori_loop(-a, -b) over -i
        elif isinstance(iterable, cst.Call) and self.resolver.qualname(iterable.func, self.scope) == "builtins.enumerate":
            if len(iterable.args) != 1 or iterable.args[0].keyword is not None or iterable.args[0].star:
                return None, "an unusual `enumerate`"
            kind = "enumerate"
        elif isinstance(iterable, cst.Call) and self.resolver.qualname(iterable.func, self.scope) == "builtins.zip":
            if not iterable.args or any(a.keyword is not None or a.star for a in iterable.args):
                return None, "an unusual `zip`"
            kind = "zip"
        elif isinstance(iterable, cst.Call) and self.resolver.qualname(iterable.func, self.scope) is not None and (
            self.resolver.qualname(iterable.func, self.scope) or "").startswith("builtins."):
            return None, "it iterates over a builtin's result"
        if kind == "enumerate":
            if not (isinstance(target, cst.Tuple) and len(target.elements) == 2
                    and all(isinstance(e.value, cst.Name) for e in target.elements)):
                return None, "an unusual loop target"
            index, value = (e.value.value for e in target.elements)
        elif kind == "zip":
            if not (isinstance(target, cst.Tuple) and len(target.elements) == len(iterable.args)
                    and all(isinstance(e, cst.Element) and isinstance(e.value, cst.Name) for e in target.elements)):
                return None, "an unusual loop target"
            zipped = tuple(e.value.value for e in target.elements)
            if len(set(zipped)) != len(zipped):
                return None, "an unusual loop target"
            if len(zipped) > 1 and (self.scope.lookup("min")[0] is not None or self.module.star_imports):
                return None, "`min` is rebound here"  # the fori_loop's trip count is min(len(xs), len(ys))
            index, value = "_i", None
        elif isinstance(target, cst.Name):
            index, value = target.value, None
        else:
            return None, "it unpacks each element"
        if kind == "iter":
            value, index = index, None
        collection, obstacle = self._collection(node)
        if obstacle:
            return None, obstacle
        if kind == "reversed" and collection is not None:
            return None, "a step of -1 in a loop that collects values"
        body = LoopBody(self.resolver, self.scope, self.module.rebinds, collection.appends if collection else ())
        visit(node.body, body)
        if body.obstacle:
            return None, body.obstacle
        loop_names = {name for name in (index, value, *zipped) if name and name != "_i"}
        if loop_names & body.assigned:
            return None, "it assigns its own loop variable"
        kept = numpy_call_on_python_values(node.body, loop_names | body.assigned, self.resolver, self.scope)
        if kept is not None:
            return None, (f"`{self.module.module.code_for_node(kept)}` would stay a NumPy call on Python values, "
                          "which the loop would make traced; use the jax.numpy function")
        listed = self._listed_parameter(node, loop_names)
        if listed is not None:
            return None, (f"`{listed}` may be a Python list (its hint or docstring says so), which jax cannot index "
                          "with a traced loop index")
        outside = names_outside(self.node.body, node)
        if loop_names & outside:
            return None, f"`{sorted(loop_names & outside)[0]}` is used after the loop"
        carried = []
        peel = 0  # a carried name that starts as a Python value (or unbound) is an array after this many steps
        for name in body.order:
            if name in loop_names:
                continue
            if self._bound_before(name, node):
                if self._is_container(name, node):
                    return None, f"`{name}` is a Python container"
                if not self._starts_as_array(name, node):
                    steps = self._steps_to_array(name, node, body) if self._may_peel(kind, collection) else 0
                    if not steps:
                        return None, (f"`{name}` may start as a Python value; fori_loop would make it a 32-bit array "
                                      "of fixed shape")
                    peel = max(peel, steps)
                elif self._starts_as_element(name, node):
                    # `xk = z[0]` of a parameter of unknown dtype (int data, bools): its dtype is the one later steps
                    # keep only after one step has run
                    if not self._may_peel(kind, collection):
                        return None, (f"`{name}` starts as an element of a parameter whose dtype (int, bool) the loop "
                                      "may change; fori_loop needs one carry dtype")
                    peel = max(peel, 1)
                elif self._may_peel(kind, collection) and self._may_become_float(name, node):
                    peel = max(peel, 1)  # an int array the first step makes a float: fori_loop needs one carry dtype
                carried.append(name)
            elif name in outside:
                steps = self._steps_to_array(name, node, body) if self._may_peel(kind, collection) else 0
                if not steps:
                    return None, f"`{name}` is first set inside the loop and used after it"
                peel = max(peel, steps)
                carried.append(name)
        changing = shape_changing_carry(set(carried), node.body, self.resolver, self.scope)
        if changing is not None:
            shown = self.module.module.code_for_node(changing[1])
            return None, f"`{changing[0]}` may change shape from one step to the next (`{shown}`): a JAX loop carries one shape"
        sources = [a.value for a in iterable.args] if kind == "zip" else [iterable.args[0].value] if kind == "enumerate" else [iterable]
        if kind in ("iter", "enumerate", "zip"):
            if any(isinstance(n, cst.Name) and n.value in carried for source in sources for n in all_names(source)):
                return None, "the loop changes what it iterates over"
            if not all(map(self._iterates_array, sources)) and not self._numbers_of_parameter(node):
                return None, "it iterates over a Python container"
        if index is None:
            index = "_i"
        # `for c in coeffs` of a parameter only its use as numbers says is a vector: a caller's list works too
        as_array = kind in ("iter", "zip") and not all(map(self._iterates_array, sources)) and self._numbers_of_parameter(node)
        if collection is None:
            return LoopConversion(kind, index, value, tuple(carried), peel=peel, as_array=as_array, zipped=zipped), ""
        return LoopConversion(kind, index, value, tuple(carried), collection.names, collection.starts, as_array=as_array,
                              zipped=zipped), ""

    def _listed_parameter(self, node: cst.For, loop_names: set[str]) -> str | None:
        """A parameter the body indexes at the loop index whose hint or docstring admits a list (``Fs : list``
        in filterpy's ``rts_smoother``): NumPy indexes the list with an int, a fori_loop with a tracer."""
        for sub in subscripts(node.body):
            base = sub.value
            if not (isinstance(base, cst.Name) and base.value in self.params and base.value not in self.data_uses):
                continue
            if not any(name.value in loop_names for element in sub.slice for name in all_names(element)):
                continue
            param = self.params[base.value]
            if sequence_annotation(param.annotation) or (param.annotation is None and documented_array_like(base.value, self.node)):
                return base.value
        return None

    def _collection(self, node: cst.For) -> tuple[Collection | None, str]:
        """The lists ``node`` fills one value per step, when jax.lax.scan may collect them (or why not)."""
        scope = self.scope
        if not self.module.convert_scans or scope.kind != "function" or not isinstance(scope.node, cst.FunctionDef):
            return None, ""

        def is_array_param(name: str) -> bool:
            return scope is self.function_scope and self._is_array_param(name)

        return CollectedLists(scope.node, scope, self.resolver, is_array_param).find(node, self._trip_count(node.iter))

    def _is_array_param(self, name: str) -> bool:
        """A parameter hinted as an array, used as array data, or used like one (indexed, ``.shape``, ...)."""
        if name not in self.params:
            return False
        hints = hint_names(self.params[name].annotation)
        return bool(hints & ARRAY_HINTS) or name in self.data_uses or (
            not hints & SCALAR_HINTS and has_array_evidence(self.node, name, self.resolver, self.function_scope))

    def _starts_as_array(self, name: str, loop: cst.For) -> bool:
        """Is every value ``name`` can have before ``loop`` an array (not a Python number, None or str)?"""
        if name in self.params:
            param = self.params[name]
            return bool(hint_names(param.annotation) & ARRAY_HINTS) or name in self.data_uses
        _, bindings = self.function_scope.lookup(name)
        outside = [b for b in bindings if not (isinstance(b, ValueBinding) and contains(loop, b.value))
                   and not (isinstance(b, LoopBinding) and contains(loop, b.iterable))]
        # `x op= v` (before or after the loop) keeps an array an array
        plain = [b for b in outside if not (isinstance(b, ValueBinding) and b.augmented)]
        return bool(plain) and all(
            isinstance(b, ValueBinding) and (ARRAY in self.tokens(b.value, self.function_scope)
                                             or self._element_of_array_parameter(b.value)) for b in plain
        )

    def _starts_as_element(self, name: str, loop: cst.For) -> bool:
        """Is some value ``name`` has before ``loop`` an element of a parameter (``xk = z[0]``)?"""
        _, bindings = self.function_scope.lookup(name)
        return any(isinstance(b, ValueBinding) and not b.augmented and not contains(loop, b.value)
                   and self._element_of_array_parameter(b.value) for b in bindings)

    def _element_of_array_parameter(self, value: cst.BaseExpression) -> bool:
        """``z[0]`` of a parameter used like an array (indexed, ``.shape``, array data): under jax.jit an array
        (a 0-d one, or a row), even where the caller passed a list of numbers (jit makes its items traced)."""
        return (isinstance(value, cst.Subscript) and isinstance(value.value, cst.Name)
                and self._is_array_param(value.value.value))

    def _may_peel(self, kind: str, collection: Collection | None) -> bool:
        """May the loop's first step run before the fori_loop? Only for a ``range`` loop (also a reversed one,
        ``range(a, b, -1)``) that collects no lists,
        in a function that computes with arrays (analysis/array_code.py), not one of Python index arithmetic."""
        return kind in ("range", "reversed", "iter") and collection is None and self.module.array_code(self.node.name.value)

    def _steps_to_array(self, name: str, loop: cst.For, body: LoopBody, seen: frozenset[str] = frozenset()) -> int:
        """After how many steps of ``loop`` is ``name`` an array, of the shape and dtype later steps keep, and no
        longer a Python number: every value the body gives it is computed from arrays, or an in-place write that
        becomes ``.at[]`` (1), or what another such name held one step earlier (``s2 = s1`` before ``s1 = s``: one
        step more than that name needs).  0 if never, or not within MAX_PEEL steps."""
        _, bindings = self.function_scope.lookup(name)
        inside = [b for b in bindings if (isinstance(b, ValueBinding) and contains(loop.body, b.value))
                  or (isinstance(b, LoopBinding) and contains(loop.body, b.iterable))]
        if not (inside or name in body.written):
            return 0
        steps = 1
        for binding in inside:
            if not (isinstance(binding, ValueBinding) and self._array_valued(binding.value)):
                return 0
            earlier = self._previous_step(binding.value, loop)
            if earlier:
                if name in seen:
                    return 0  # `s = s * 2`, `a, b = b, a`: never more than what it started as
                deeper = [self._steps_to_array(other, loop, body, seen | {name}) for other in earlier]
                if not all(deeper):
                    return 0
                steps = max(steps, 1 + max(deeper))
        return steps if steps <= MAX_PEEL else 0

    def _previous_step(self, value: cst.BaseExpression, loop: cst.For) -> set[str]:
        """The names ``value`` is made of when it is made only of names (and numbers) that the body assigns at or
        after the statement it is in, and that may start as Python values (``s2 = s1`` before ``s1 = s``): it holds
        what they held one step earlier.  Empty otherwise."""
        statements = list(loop.body.body) if isinstance(loop.body, cst.IndentedBlock) else [loop.body]
        position = next((i for i, statement in enumerate(statements) if contains(statement, value)), None)
        if position is None:
            return set()
        later: set[str] = set()
        for statement in statements[position:]:
            later |= _assigned_names(statement)
        found: set[str] = set()

        def stale(expr: cst.BaseExpression) -> bool:
            if isinstance(expr, cst.Name):
                found.add(expr.value)
                return expr.value in later and not self._starts_as_array(expr.value, loop)
            if isinstance(expr, (cst.Integer, cst.Float)):
                return True
            if isinstance(expr, cst.BinaryOperation):
                return stale(expr.left) and stale(expr.right)
            if isinstance(expr, cst.UnaryOperation):
                return stale(expr.expression)
            return False

        return found if stale(value) and found else set()

    def _may_become_float(self, name: str, loop: cst.For) -> bool:
        """Does ``name`` start with a dtype that may be an int (a parameter's: ``x = x0``) while the loop's body gives it
        a float (``x = x - lr * g``)? After one step its dtype is the one the later steps keep."""
        scope, values = self.function_scope, self.decisions.values
        _, bindings = scope.lookup(name)
        inside = [b.value for b in bindings if isinstance(b, ValueBinding) and not b.augmented and contains(loop.body, b.value)]
        divided = any(isinstance(node, cst.AugAssign) and isinstance(node.operator, cst.DivideAssign)
                      and isinstance(node.target, cst.Name) and node.target.value == name for node in descendants(loop.body))
        if not divided and not any(  # `w /= w.sum()`; `w = w * (1 + r[t])`: a float when `r` is one
                (source := dtype_source(value, scope, self.resolver, values)) in (FLOAT, FLOAT64)
                or (source is not None and source[0] == PROMOTED) or self._returns_float(value) for value in inside):
            return False
        if name in self.params:
            return dtype_source(cst.Name(name), scope, self.resolver, values) not in (FLOAT, FLOAT64)
        before = [b.value for b in bindings if isinstance(b, ValueBinding) and not b.augmented and not contains(loop, b.value)]
        return any(dtype_source(value, scope, self.resolver, values) not in (FLOAT, FLOAT64) for value in before)

    def _returns_float(self, value: cst.BaseExpression) -> bool:
        """``update_centers(x, labels, k)``, a function of the module whose every ``return`` gives a float array of a
        fixed dtype (``c = np.zeros((k, d))``, float64): a float32 carry becomes float64 after one step (hunt59 L3)."""
        if not isinstance(value, cst.Call) or not isinstance(value.func, cst.Name):
            return False
        module = self.function_scope
        while module.parent is not None:
            module = module.parent
        found, bindings = self.function_scope.lookup(value.func.value)
        if found is not module or len(bindings) != 1 or not isinstance(getattr(bindings[0], "node", None), cst.FunctionDef):
            return False
        callee = bindings[0].node
        inner = self.resolver.scopes.get(callee)
        results = [node.value for node in descendants(callee.body) if isinstance(node, cst.Return)]
        if inner is None or not results or any(r is None for r in results) or any(
                isinstance(node, (cst.FunctionDef, cst.Lambda, cst.ClassDef)) for node in descendants(callee.body)):
            return False
        return all(dtype_source(r, inner, self.resolver, self.decisions.values) in (FLOAT, FLOAT64) for r in results)

    def _array_valued(self, value: cst.BaseExpression) -> bool:
        tokens = self.tokens(value, self.function_scope)
        return ARRAY in tokens or any(self._is_array_param(token) and not is_shape_name(token) for token in tokens)

    def _bound_before(self, name: str, loop: cst.For) -> bool:
        return name in self.params or name in assigned_before(self.node.body, loop)

    def _fresh_dict(self, iterable: cst.BaseExpression) -> bool:
        """A local name only ever bound to the dict a function of the module returns new (fresh_results.py)."""
        fresh = self.module.fresh_results
        if fresh is None or not isinstance(iterable, cst.Name):
            return False
        found, _ = self.scope.lookup(iterable.value)
        return found is self.function_scope and fresh.fresh_container_name(iterable.value, found) == "dict"

    def _is_container(self, name: str, loop: cst.For) -> bool:
        _, bindings = self.function_scope.lookup(name)
        return any(
            isinstance(b, ValueBinding)
            and isinstance(b.value, (cst.List, cst.Dict, cst.Set, cst.ListComp, cst.DictComp, cst.SetComp, cst.Tuple))
            for b in bindings
        )

    def _trip_count(self, iterable: cst.BaseExpression) -> int | None:
        if isinstance(iterable, (cst.Tuple, cst.List)):
            return len(iterable.elements)
        if isinstance(iterable, cst.Call) and self.resolver.qualname(iterable.func, self.scope) == "builtins.range":
            values = []
            for arg in iterable.args:
                if isinstance(arg.value, cst.Integer):
                    values.append(int(arg.value.evaluated_value))
                elif isinstance(arg.value, cst.UnaryOperation) and isinstance(arg.value.expression, cst.Integer) and isinstance(arg.value.operator, cst.Minus):
                    values.append(-int(arg.value.expression.evaluated_value))
                else:
                    return None
            if not values or arg.keyword is not None:
                return None
            try:
                return len(range(*values))
            except (TypeError, ValueError):
                return None
        return None

    def _parameter_elements(self, node: cst.For) -> list[tuple[str, str]]:
        """(parameter, the name its element gets) of ``for v in x``, ``for i, v in zip(idx, vals)`` (parameters
        only), ``for k, v in enumerate(x)``."""
        iterable, target = node.iter, node.target
        iterable = _unsliced(iterable)  # `for x in r[1:]`: elements of `r` too
        if isinstance(iterable, cst.Name):
            return [(iterable.value, target.value)] if iterable.value in self.params and isinstance(target, cst.Name) else []
        if not (isinstance(iterable, cst.Call) and isinstance(target, cst.Tuple)):
            return []
        names = [e.value.value if isinstance(e.value, cst.Name) else None for e in target.elements]
        args = [a.value for a in iterable.args]
        qualname = self.resolver.qualname(iterable.func, self.scope)
        if qualname == "builtins.enumerate" and len(args) == 1 and len(names) == 2:
            args, names = args, names[1:]
        elif qualname != "builtins.zip" or any(a.keyword is not None or a.star for a in iterable.args) or len(args) != len(names):
            return []
        args = [_unsliced(arg) for arg in args]  # `zip(points[:-1], points[1:])`: elements of `points` too
        pairs = [(arg.value, name) for arg, name in zip(args, names)
                 if isinstance(arg, cst.Name) and arg.value in self.params and name is not None]
        return pairs if len(pairs) == len(args) else []

    def _numbers_of_parameter(self, node: cst.For) -> bool:
        """``for sample in x`` of a parameter whose elements the body computes with as numbers (``sample + c *
        s_prev``): the samples of a vector, as long as the caller's signal, which jit would unroll step by step
        (``hist[i] @ g`` of a list of arrays is list_params.py's case)."""
        numbers, arrays, _ = self._element_uses(node)
        return numbers and not arrays

    def _reduced_elements(self, node: cst.For) -> bool:
        """``for row in x: total += np.sum(row ** 2)`` of a parameter: its elements are arrays reduced (or measured,
        ``len(seg)``): rows of an array as long as the caller's data, which jax.jit would unroll one copy each
        (217 s to compile for 3,000 rows), or a list of arrays of different shapes, which no fori_loop can stack."""
        return self._element_uses(node)[2]

    def _element_uses(self, node: cst.For) -> tuple[bool, bool, bool]:
        """How the body uses the elements of the parameters ``node`` iterates: (as numbers, as arrays, reduced)."""
        pairs = self._parameter_elements(node)
        if not pairs:
            return False, False, False
        for source, _ in pairs:
            param = self.params[source]
            if isinstance(param.default, (cst.Tuple, cst.List)) or sequence_annotation(param.annotation):
                return False, False, False  # `weights=(0.25, 0.5, 0.25)`, `ws: list[float]`: a Python container, unrolled as meant
        elements = {element for _, element in pairs}

        def named(side: cst.BaseExpression) -> bool:
            return isinstance(side, cst.Name) and side.value in elements

        def as_number(n: cst.CSTNode) -> bool:
            if isinstance(n, cst.BinaryOperation):
                return not isinstance(n.operator, cst.MatrixMultiply) and (named(n.left) or named(n.right))
            if isinstance(n, cst.Comparison) and len(n.comparisons) == 1:  # `l >= 0` (not `key == "a"`, `v is None`)
                sides = (n.left, n.comparisons[0].comparator)
                return isinstance(n.comparisons[0].operator, ORDERING) and any(map(named, sides)) and not any(
                    isinstance(side, (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)) for side in sides)
            if isinstance(n, cst.Subscript):  # `counts[l] += 1` (`counts.at[jnp.reshape(l, ())]`): an index into an array
                return any(isinstance(e.slice, cst.Index) and any(map(named, descendants(e.slice.value))) for e in n.slice)
            return False

        def as_array(n: cst.CSTNode) -> bool:  # `g.shape`, `g[0]`, `W @ x`: an array, perhaps of a ragged list
            if isinstance(n, (cst.Attribute, cst.Subscript)):
                return named(n.value)
            if isinstance(n, cst.BinaryOperation) and isinstance(n.operator, cst.MatrixMultiply):
                return named(n.left) or named(n.right)
            return reduced(n)

        def reduced(n: cst.CSTNode) -> bool:  # `np.sum(g * g)`, `len(seg)`
            if not isinstance(n, cst.Call):
                return False
            qualname = self.resolver.qualname(n.func, self.scope) or ""
            if qualname in SEQUENCE_BUILTINS and len(n.args) == 1 and named(n.args[0].value):
                return True  # `len(seg)`, `max(seg)`: a sequence
            return (qualname.startswith(("numpy.", "jax.numpy.")) and qualname.rsplit(".", 1)[-1] in ELEMENT_REDUCTIONS
                    and any(named(d) for arg in n.args for d in descendants(arg.value)))

        found = list(descendants(node.body))
        return any(as_number(n) for n in found), any(as_array(n) for n in found), any(reduced(n) for n in found)

    def _iterates_array(self, iterable: cst.BaseExpression) -> bool:
        if isinstance(iterable, cst.Call):
            qualname = self.resolver.qualname(iterable.func, self.scope)
            if qualname == "builtins.range":
                return True
            if qualname in ("builtins.enumerate", "builtins.zip", "builtins.reversed"):
                return any(self._iterates_array(a.value) for a in iterable.args)
        tokens = self.tokens(iterable)
        if ARRAY in tokens:
            return True
        return any(
            name in self.data_uses or hint_names(self.params[name].annotation) & ARRAY_HINTS
            for name in tokens if name in self.params
        )


def _unsliced(node: cst.BaseExpression) -> cst.BaseExpression:
    """``r`` for ``r[1:]`` (slices only: a part of ``r``, whose elements are ``r``'s), else ``node``."""
    if isinstance(node, cst.Subscript) and all(isinstance(e.slice, cst.Slice) for e in node.slice):
        return node.value
    return node


def _literal_one(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.Integer) and node.evaluated_value == 1


MAX_PEEL = 3  # steps run before a fori_loop at most (`s3 = s2; s2 = s1; s1 = s`: three)


def _assigned_names(statement: cst.CSTNode) -> set[str]:
    """The names ``statement`` (and the statements inside it) assign."""
    found: set[str] = set()
    stack = [statement]
    while stack:
        node = stack.pop()
        targets = list(binding_targets(node))
        while targets:
            target = targets.pop()
            if isinstance(target, cst.Name):
                found.add(target.value)
            elif isinstance(target, (cst.Tuple, cst.List)):
                targets.extend(element.value for element in target.elements)
            elif isinstance(target, cst.StarredElement):
                targets.append(target.value)
        if not isinstance(node, (cst.FunctionDef, cst.Lambda, cst.ClassDef)):
            stack.extend(child_nodes(node))
    return found


STRINGS = (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)


def _compared_string(body: cst.CSTNode, element: str) -> str | None:
    """The string literal ``element`` is compared with in ``body`` (``key == "a"``, ``name in ("x", "y")``)."""
    for node in descendants(body):
        if not isinstance(node, cst.Comparison):
            continue
        sides = [node.left, *(c.comparator for c in node.comparisons)]
        if not any(isinstance(side, cst.Name) and side.value == element for side in sides):
            continue
        for side in sides:
            if isinstance(side, STRINGS):
                return cst.Module([]).code_for_node(side)
            if isinstance(side, (cst.Tuple, cst.List, cst.Set)) and side.elements and all(
                    isinstance(e.value, STRINGS) for e in side.elements):
                return cst.Module([]).code_for_node(side)
    return None
