"""Can an in-place write to a local array become a functional update?

``x[i] = v`` and ``x = x.at[i].set(v)`` agree only if no other name can
observe ``x``'s buffer: ``x`` must be a local variable that is always bound to
a fresh array (a constructor, a copy, an arithmetic result), never a function
parameter, never handed to a container or attribute, and never the source of
a view (``y = x``, ``y = x[1:]``, ``y = x.T``, ``y = x.reshape(...)`` ...).
Anything we cannot prove is reported, not rewritten.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable

import libcst as cst

from np2jax.analysis.container_items import container_item_blocker, is_dict
from np2jax.analysis.hand_off import handed_on_after_writes
from np2jax.analysis.loops import contains, descendants
from np2jax.analysis.private_arguments import private_call
from np2jax.analysis.resolve import Resolver, is_numpy
from np2jax.analysis.scope import LoopBinding, ParamBinding, Scope, ValueBinding
from np2jax.cstutil import string_valued
from np2jax.tables import lookup_numpy
from np2jax.visitors import FastVisitor, child_nodes, inner_nodes, visit

if TYPE_CHECKING:
    from np2jax.analysis.attributes import ModuleAttributes
    from np2jax.analysis.fresh_results import FreshResults
    from np2jax.analysis.shared_values import SharedValues

# NumPy functions that may return their argument or a view of it.
VIEW_FUNCTIONS = frozenset(
    "asarray asanyarray ascontiguousarray asfortranarray reshape ravel transpose squeeze expand_dims "
    "swapaxes moveaxis rollaxis atleast_1d atleast_2d atleast_3d broadcast_to broadcast_arrays diagonal "
    "real imag flip fliplr flipud rot90 split array_split hsplit vsplit dsplit matrix_transpose "
    "permute_dims unstack trim_zeros astype as_strided sliding_window_view".split()
)
VIEW_METHODS = frozenset("reshape ravel view transpose swapaxes squeeze diagonal __array__".split())
VIEW_ATTRIBUTES = frozenset("T mT real imag flat base".split())
STORING_METHODS = frozenset("append extend insert add update setdefault put __setitem__".split())
COPY_METHODS = frozenset({"copy", "astype", "flatten", "tolist", "sum", "mean", "dot", "cumsum", "clip", "round"})
# builtins whose result holds (or is) their arguments' objects: `dict(p=p)`, `sorted([p, q])`, `next(iter(ps))`
ALIASING_BUILTINS = frozenset(f"builtins.{name}" for name in
                              "list tuple iter zip enumerate reversed dict set frozenset sorted filter map next".split())


def _sequence_display(expr: cst.BaseExpression) -> bool:
    return isinstance(expr, (cst.List, cst.Tuple, cst.ListComp))


def _true(expr: cst.BaseExpression) -> bool:
    return isinstance(expr, cst.Name) and expr.value == "True"


def mentions(node: cst.CSTNode, name: str) -> bool:
    stack = [node]
    while stack:
        current = stack.pop()
        if type(current) is cst.Name:
            if current.value == name:
                return True
        else:
            stack.extend(inner_nodes(current))  # (trivia holds no name)
    return False


def may_alias(expr: cst.BaseExpression, name: str, resolver: Resolver, scope: Scope) -> bool:
    """Could ``expr`` evaluate to ``name``'s array or a view of it (or a container holding one)?"""
    return may_alias_node(expr, lambda node: isinstance(node, cst.Name) and node.value == name, resolver, scope)


def may_alias_node(expr: cst.BaseExpression, is_array: Callable[[cst.BaseExpression], bool], resolver: Resolver, scope: Scope,
                   private: Callable[[cst.Call, cst.BaseExpression], bool] | None = None) -> bool:
    """Could ``expr`` evaluate to the array ``is_array`` recognises (a name, ``self.x`` ...) or a view of it?
    ``private(call, argument)``: the call keeps and returns no reference to that argument (its result may still be
    shared with something else, which a caller asking whether a name's array is reachable elsewhere need not know)."""

    def alias(expr: cst.BaseExpression) -> bool:
        if is_array(expr):
            return True
        if isinstance(expr, cst.Name):
            return False
        if isinstance(expr, cst.Subscript):  # a list display in the index gathers: a copy (`x[[i, j]]`)
            return not any(isinstance(e.slice, cst.Index) and isinstance(e.slice.value, (cst.List, cst.ListComp))
                           for e in expr.slice) and not _array_index(expr, resolver, scope) and alias(expr.value)
        if isinstance(expr, cst.Attribute):
            return expr.attr.value in VIEW_ATTRIBUTES and alias(expr.value)
        if isinstance(expr, (cst.Tuple, cst.List, cst.Set)):
            return any(alias(e.value) for e in expr.elements)
        if isinstance(expr, cst.Dict):  # `{"p": p}`, `{**{"p": p}}`
            return any(alias(e.value) for e in expr.elements)
        if isinstance(expr, (cst.ListComp, cst.SetComp, cst.GeneratorExp)):  # `[p for _ in range(2)]`
            return alias(expr.elt)
        if isinstance(expr, cst.DictComp):
            return alias(expr.key) or alias(expr.value)
        if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, (cst.Add, cst.Multiply)) and (
                _sequence_display(expr.left) or _sequence_display(expr.right)):
            return alias(expr.left) or alias(expr.right)  # `[p] * 2`, `() + (p,)`: the same object, repeated
        if isinstance(expr, cst.IfExp):
            return alias(expr.body) or alias(expr.orelse)
        if isinstance(expr, cst.NamedExpr):  # `[(p := ...)]` holds what `p` names
            return is_array(expr.target) or alias(expr.value)
        if isinstance(expr, cst.Call):
            func = expr.func
            copy_false = any(a.keyword is not None and a.keyword.value == "copy" and not _true(a.value) for a in expr.args)
            if isinstance(func, cst.Attribute) and not is_numpy(resolver.qualname(func, scope)):
                if func.attr.value in VIEW_METHODS or (func.attr.value == "astype" and copy_false):
                    return alias(func.value)  # `x.astype(float, copy=False)` is `x` when it is float already
                if func.attr.value in COPY_METHODS:
                    return False
            qualname = resolver.qualname(func, scope)
            if is_numpy(qualname) or (qualname or "").startswith("jax.numpy."):
                short = qualname.rsplit(".", 1)[1]
                if short in VIEW_FUNCTIONS or copy_false or _single_operand_einsum(short, expr):
                    return any(alias(arg.value) for arg in expr.args)
                return False
            if qualname is not None and qualname.startswith(("builtins.", "math.")):
                return qualname in ALIASING_BUILTINS and any(alias(arg.value) for arg in expr.args)
            # Unknown functions may return their argument; with ``private``, a function of the module that only reads
            # it does not (`ess(self.w)` with `def ess(w): return 1.0 / np.sum(w ** 2)`, hunt52 FP1)
            return any(not (private is not None and private(expr, arg.value)) and alias(arg.value) for arg in expr.args)
        return False

    return alias(expr)


def _single_operand_einsum(short: str, call: cst.Call) -> bool:
    """``np.einsum("ii->i", a)``, ``np.einsum("ij->ji", a)``: with one operand and nothing summed, einsum returns
    a writeable view of it."""
    operands = [arg for arg in call.args if arg.keyword is None]
    return short == "einsum" and len(operands) == 2 and not any(arg.star for arg in operands)


# ndarray methods whose result is a new array (never a view of the array or of an argument)
FRESH_METHODS = frozenset(
    "sum mean std var prod min max cumsum cumprod dot round clip argmax argmin argsort all any ptp trace "
    "nonzero searchsorted repeat".split()
)


def is_fresh_array(expr: cst.BaseExpression, resolver: Resolver, scope: Scope) -> bool:
    """Is ``expr`` certainly a new array that nothing else refers to?"""
    if isinstance(expr, cst.Call):
        func = expr.func
        qualname = resolver.qualname(func, scope)
        if is_numpy(qualname):
            row = lookup_numpy(qualname)
            if row is None or row.kind not in ("constructor", "function"):
                return False
            short = qualname.rsplit(".", 1)[1]
            if short in VIEW_FUNCTIONS or _single_operand_einsum(short, expr):
                return False
            if any(a.keyword is not None and a.keyword.value == "copy" and not _true(a.value) for a in expr.args):
                return False  # `np.nan_to_num(y, copy=False)` is y itself
            if short == "array":
                return not any(a.keyword is not None and a.keyword.value == "copy" for a in expr.args)
            return True
        if qualname is not None and qualname.startswith("jax.numpy."):
            return True  # JAX arrays are immutable: nothing can observe a write
        if isinstance(func, cst.Attribute):
            if func.attr.value in ("copy", "flatten"):
                return True
            if func.attr.value in FRESH_METHODS:  # `mag.sum(axis=-1)`: a new array, unless written into `out=`
                return not any(a.keyword is not None and a.keyword.value == "out" for a in expr.args)
            if func.attr.value == "astype":
                return not any(a.keyword is not None and a.keyword.value == "copy" for a in expr.args)
            return _is_at_update(expr)
        return False
    if isinstance(expr, cst.BinaryOperation):
        return not (is_python_container(expr.left) or is_python_container(expr.right))
    if isinstance(expr, cst.UnaryOperation):
        return not is_python_container(expr.expression)
    if isinstance(expr, cst.Comparison):  # `keep = sizes >= k`: a new boolean array (or a bool)
        return not any(isinstance(c.operator, (cst.Is, cst.IsNot, cst.In, cst.NotIn)) for c in expr.comparisons)
    if isinstance(expr, cst.IfExp):  # `np.zeros(2) if zi is None else np.array(zi, dtype=float)`
        return is_fresh_array(expr.body, resolver, scope) and is_fresh_array(expr.orelse, resolver, scope)
    if isinstance(expr, cst.Attribute) and expr.attr.value in ("T", "mT", "real"):  # `np.array([a, b, c]).T`: a view
        return is_fresh_array(expr.value, resolver, scope)  # of a new array nothing else holds (real38 FP2)
    if isinstance(expr, cst.Subscript) and not isinstance(expr.value, cst.Name) and is_fresh_array(expr.value, resolver, scope):
        return True  # `np.fft.ifft(f)[:n]`: a view of a new array nothing else holds (real40 FP1; not `y = x[1:]`)
    return isinstance(expr, cst.Subscript) and _array_index(expr, resolver, scope)


def _array_index(expr: cst.Subscript, resolver: Resolver, scope: Scope) -> bool:
    """``p[np.asarray(idx, dtype=int)]``: an ndarray index gathers a copy (hunt52 FP1, a particle filter's resampling);
    so does a list display anywhere in the index (``q[[3, 0, 1, 2]]``, ``V[[3, 0, 1, 2], k]``: advanced indexing)."""
    for element in expr.slice:
        if not isinstance(element.slice, cst.Index):
            continue
        index = element.slice.value
        if isinstance(index, cst.List) and index.elements and not any(isinstance(e, cst.StarredElement) for e in index.elements):
            return True
        qualname = resolver.qualname(index.func, scope) if isinstance(index, cst.Call) else None
        if len(expr.slice) == 1 and is_numpy(qualname) and qualname.rsplit(".", 1)[1] in ARRAY_INDEX_FUNCTIONS:
            return True
    return False


# NumPy functions whose result is an ndarray (never a scalar, even `np.asarray(3)`): indexing with it gathers a copy.
ARRAY_INDEX_FUNCTIONS = frozenset({"asarray", "array", "arange", "argsort", "flatnonzero", "argwhere", "unique"})


def is_python_container(expr: cst.BaseExpression, resolver: Resolver | None = None, scope: Scope | None = None) -> bool:
    """A list, dict, set, tuple or string: mutable Python objects, not arrays."""
    if isinstance(expr, (cst.List, cst.Dict, cst.Set, cst.Tuple, cst.ListComp, cst.DictComp, cst.SetComp,
                         cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)):
        return True
    if isinstance(expr, cst.BinaryOperation):
        return is_python_container(expr.left, resolver, scope) or is_python_container(expr.right, resolver, scope)
    if isinstance(expr, cst.Call) and resolver is not None and scope is not None:
        return resolver.qualname(expr.func, scope) in ("builtins.list", "builtins.dict", "builtins.set", "builtins.bytearray", "collections.defaultdict", "collections.OrderedDict", "collections.deque")
    return False


def _is_at_update(expr: cst.Call) -> bool:
    func = expr.func
    return (
        isinstance(func, cst.Attribute)
        and isinstance(func.value, cst.Subscript)
        and isinstance(func.value.value, cst.Attribute)
        and func.value.value.attr.value == "at"
    )


class FunctionAliasing:
    """Answers, per local name of one function, whether writes to it can be made functional."""

    def __init__(
        self, function: cst.FunctionDef, scope: Scope, resolver: Resolver,
        returned: frozenset[str] = frozenset(), not_returned: str | None = None, attributes: ModuleAttributes | None = None,
        relied: dict[str, str] | None = None, fresh_results: FreshResults | None = None,
    ) -> None:
        """``returned``: parameters the migrated function returns (so writing them is a rebinding);
        ``not_returned``: why the mutated parameters cannot be returned instead (for the message);
        ``attributes``: which ``self.x`` arrays of methods may be rebound instead of written."""
        self.function = function
        self.attributes = attributes
        self.scope = scope
        self.resolver = resolver
        self.returned = returned
        self.not_returned = not_returned
        self.relied = relied or {}  # parameters whose in-place update (`x += v`) a call in the module relies on: why
        self.fresh_results = fresh_results  # same-module functions whose results are always new arrays
        self._cache: dict[str, str | None] = {}
        self._returns_value: bool | None = None
        self._truth_names: frozenset[str] | None = None  # names tested for truth (`while k:`): _truth_tested
        self._statement_of: dict[cst.CSTNode, int] | None = None
        self._shared: SharedValues | None = None
        self._fresh_rebinding = None  # analysis/fresh_rebinding.py, made when first needed

    def _reason(self, name: str) -> str | None:
        if name not in self._cache:
            self._cache[name] = self._blocker(name)
        return self._cache[name]

    def blocker(self, name: str, write: cst.CSTNode | None = None) -> str | None:
        """None when the write ``write`` to ``name`` can become an ``.at[]`` update, else the reason why not."""
        reason = self._reason(name)
        if reason is not None and reason is not _PARAMETER and write is not None and self.rebound_fresh_before(name, write):
            return None
        if reason is _PARAMETER:
            if name in self.returned or not self.mutates_parameter(name, write):
                return None
            if name in self.relied:  # it writes into `name` and returns it, and a use relies on the update
                return self.relied[name]
            why = f"`{name}` is a parameter: NumPy mutates the caller's array, JAX cannot"
            return f"{why}; returning it instead is not possible: {self.not_returned}" if self.not_returned else why
        return reason

    def attribute_is_container(self, node: cst.BaseExpression) -> bool:
        return self.attributes is not None and self.attributes.is_container(self.function, node)

    def attribute_blocker(self, node: cst.BaseExpression) -> str | None:
        """None when a write into ``node`` (``self.x`` in a method) can become a rebinding of the attribute."""
        if self.attributes is None:
            return "the written array is not a plain local name (an attribute, a container or an expression)"
        return self.attributes.blocker(self.function, node)

    def mutates_parameter(self, name: str, write: cst.CSTNode | None) -> bool:
        """Does ``write`` change the caller's array: ``name`` is a parameter not yet rebound, seen by no other name?"""
        if self._reason(name) is not _PARAMETER:
            return False
        rebound_at = self._parameter_rebound_at(name)
        return rebound_at is None or write is None or self._statement_index(write) <= rebound_at

    def augmented_mutates_parameter(self, name: str, write: cst.CSTNode) -> bool:
        """``name op= v`` on an array parameter: an in-place update of the caller's array in NumPy."""
        return any(isinstance(b, ParamBinding) for b in self.scope.bindings.get(name, ())) and (
            self._looks_like_array(name) and self.mutates_parameter(name, write)
        )

    def augmented_blocker(self, name: str, write: cst.CSTNode) -> str | None:
        """Why ``name += v`` (an in-place update of the array in NumPy) cannot become a rebinding, if it cannot."""
        bindings = self.scope.bindings.get(name, ())
        if not bindings or self.is_container(name) or self.rebound_fresh_before(name, write):
            return None
        for binding in bindings:
            if isinstance(binding, ParamBinding) and name in self.relied and self.augmented_may_mutate_parameter(name, write):
                return self.relied[name]
            if isinstance(binding, ParamBinding) and not self._looks_like_array(name):
                if name not in self.returned and self._may_be_array(binding.param) and self.mutates_parameter(name, write):
                    return (f"`{name}` is a parameter and this function returns nothing, so `{name} {{op}}= ...` only "
                            "matters if it changes the caller's object: if that is an array, NumPy changes it in place, JAX cannot")
            elif isinstance(binding, ParamBinding):
                if self.blocker(name, write) is not None:
                    why = f"`{name}` is a parameter: `{name} {{op}}= ...` mutates the caller's array in NumPy, JAX rebinds the name"
                    if self.not_returned and self.mutates_parameter(name, write):
                        why += f"; returning it instead is not possible: {self.not_returned}"
                    return why
            if (isinstance(binding, ValueBinding) and not binding.augmented and is_view(binding.value, self.resolver, self.scope)
                    and not self._fresh_call(binding.value)):
                from np2jax.analysis.indexing import IndexClassifier  # (indexing imports this module)

                if not self.shared_values().is_immutable(binding.value) and not IndexClassifier(self.resolver, self.scope).is_int(
                        binding.value):  # `t = s` where `s = 0.0`; `j = i` of a Python int counter
                    source = binding.value.value if isinstance(binding.value, cst.Name) else None
                    if source is not None and any(isinstance(b, ParamBinding) for b in self.scope.bindings.get(source, ())):
                        return (f"`{name}` is the parameter `{source}`, which may be an array: NumPy's `{name} {{op}}= ...` "
                                f"then updates the caller's array too, JAX does not (annotate `{source}: float`, or give "
                                "it a number default, when it is a number)")
                    return f"`{name}` is a view of another array: NumPy updates that array too, JAX does not"
            state = (self.fresh_results.returned_state(binding.value, self.scope)
                     if isinstance(binding, ValueBinding) and not binding.augmented and self.fresh_results is not None else None)
            if state is not None:  # `y = get(); y -= 1` with `def get(): return STATE`
                return (f"`{name}` is `{state}`, module-level state a function of the module returns: NumPy's "
                        f"`{name} {{op}}= ...` updates it in place, JAX rebinds only `{name}`")
            if isinstance(binding, LoopBinding) and self._looks_like_array(name):
                return f"`{name}` iterates over an array's rows, which are views: NumPy updates the array"
            shared = self.shared_values().binding_reason(name, binding)
            if shared is not None:
                return shared
        if self.holds_numpy_array(name) or self.bound_to_call(name):
            reason = self._alias_reason(name)
            if reason is not None:  # `g = h; h += 1` changes g too in NumPy; `hs.append(h)` the stored array
                return f"{reason}; `{name} {{op}}= ...` updates that shared array in place in NumPy, JAX rebinds only `{name}`"
        return None

    def shared_values(self) -> SharedValues:
        if self._shared is None:
            from np2jax.analysis.shared_values import SharedValues  # it builds on this module

            self._shared = SharedValues(self)
        return self._shared

    def bound_to_call(self, name: str) -> bool:
        """Bound to what a function returns (not a Python number): an array, perhaps, that the code then stores."""
        return any(
            isinstance(b, ValueBinding) and not b.augmented and isinstance(b.value, cst.Call)
            and not self.shared_values().is_immutable(b.value) and not self._returns_list(b.value)
            for b in self.scope.bindings.get(name, ())
        )

    def _returns_list(self, call: cst.Call) -> bool:
        """``sorted(x)``, ``list(x)``, ``x.tolist()``: a Python builtin's result or a list, not an array."""
        func = call.func
        return (isinstance(func, cst.Attribute) and func.attr.value == "tolist") or (
            self.resolver.qualname(func, self.scope) or "").startswith("builtins.")

    def holds_numpy_array(self, name: str, strict: bool = False) -> bool:
        """Evidence that ``name`` is an array; ``strict``: bound to a NumPy result or annotated as an array
        (a subscript is not enough: lists have those, and ``.sort()``, too)."""
        for binding in self.scope.bindings.get(name, ()):
            if isinstance(binding, ValueBinding) and self._numpy_valued(binding.value):
                return True
        evidence = array_evidence(self.function, self.resolver, self.scope)
        return name in evidence.annotated or (not strict and name in evidence.used)

    def arithmetic_array(self, name: str) -> bool:
        """Every binding of ``name`` is arithmetic whose result only an array (or a number, which has no methods
        to call) can be: ``-x``, ``y - yhat``, ``x[i:i + w] - base``, ``x * 1.0``, ``X + 0.0`` (not a list's ``+``
        or ``*`` by an int: ``a + b``, ``[0] * n``); so ``name.sort()`` is an array's (analysis/inplace_calls.py)."""
        bindings = self.scope.bindings.get(name, ())
        values = [b.value for b in bindings if isinstance(b, ValueBinding) and not b.augmented]
        return bool(values) and len(values) == sum(isinstance(b, ValueBinding) for b in bindings) and all(
            array_arithmetic(value) for value in values)

    def _numpy_valued(self, expr: cst.BaseExpression) -> bool:
        """``np.zeros(n)``, ``np.arange(n)[::-1] * 2``, ``np.ones(n).astype(int)``: computed by NumPy."""
        if isinstance(expr, cst.Call):
            qualname = self.resolver.qualname(expr.func, self.scope) or ""
            if is_numpy(qualname) or qualname.startswith("jax.numpy."):
                return True
            return isinstance(expr.func, cst.Attribute) and self._numpy_valued(expr.func.value)
        if isinstance(expr, cst.BinaryOperation):
            return self._numpy_valued(expr.left) or self._numpy_valued(expr.right)
        if isinstance(expr, cst.UnaryOperation):
            return self._numpy_valued(expr.expression)
        if isinstance(expr, cst.Subscript):
            return self._numpy_valued(expr.value)
        return False

    def _may_be_array(self, param: cst.Param) -> bool:
        """No hint that ``param`` is a Python number, in a function that returns no value."""
        if has_number_hint(param):
            return False
        return not self.returns_value()

    def augmented_by_purpose(self, name: str, write: cst.CSTNode) -> bool:
        """``name op= v`` on a parameter without array evidence nor a number hint, in a function that returns
        nothing: it is there to update the caller's array (on a number it would change nothing the caller sees)."""
        params = [b.param for b in self.scope.bindings.get(name, ()) if isinstance(b, ParamBinding)]
        return bool(params) and params[0].default is None and self._may_be_array(params[0]) and (
            not self._looks_like_array(name) and self.mutates_parameter(name, write))

    def augmented_may_mutate_parameter(self, name: str, write: cst.CSTNode) -> bool:
        """``name op= v`` on a parameter without array evidence nor a number hint, in a function that returns
        a value: NumPy updates the caller's object in place if it is an array, rebinds the name if a number."""
        params = [b.param for b in self.scope.bindings.get(name, ()) if isinstance(b, ParamBinding)]
        return bool(params) and not has_number_hint(params[0]) and self.returns_value() and (
            not self._looks_like_array(name) and self.mutates_parameter(name, write) and not self._truth_tested(name)
        )

    def _truth_tested(self, name: str) -> bool:
        """``while k:`` / ``if not k:``: the parameter itself is a truth value, which only a number (or a 0-d or
        one-element array, never updated in place by such code) has: ``k >>= 1`` then rebinds a number."""
        if self._truth_names is None:
            tests = []
            stack: list[cst.CSTNode] = [self.function.body]
            while stack:
                node = stack.pop()
                stack.extend(child_nodes(node))
                if isinstance(node, (cst.If, cst.While)):
                    tests.append(node.test)
                elif isinstance(node, cst.BooleanOperation):
                    tests += [node.left, node.right]
                elif isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Not):
                    tests.append(node.expression)
            self._truth_names = frozenset(test.value for test in tests if isinstance(test, cst.Name))
        return name in self._truth_names

    def returns_value(self) -> bool:
        if self._returns_value is None:
            finder = _ReturnsValue()
            visit(self.function.body, finder)
            self._returns_value = finder.found
        return self._returns_value

    def _looks_like_array(self, name: str) -> bool:
        return has_array_evidence(self.function, name, self.resolver, self.scope)

    def _parameter_rebound_at(self, name: str) -> int | None:
        """Index of the first top-level statement that rebinds parameter ``name`` to a fresh array."""
        body = self.function.body
        if not isinstance(body, cst.IndentedBlock):
            return None
        for index, statement in enumerate(body.body):
            if isinstance(statement, cst.SimpleStatementLine):
                for small in statement.body:
                    if (
                        isinstance(small, cst.Assign)
                        and len(small.targets) == 1
                        and isinstance(small.targets[0].target, cst.Name)
                        and small.targets[0].target.value == name
                        and is_fresh_array(small.value, self.resolver, self.scope)
                    ):
                        return index
        return None

    def _statement_index(self, node: cst.CSTNode) -> int:
        if self._statement_of is None:
            self._statement_of = {}
            body = self.function.body
            statements = body.body if isinstance(body, cst.IndentedBlock) else [body]
            for index, statement in enumerate(statements):
                collector = _Descendants()
                visit(statement, collector)
                for descendant in collector.nodes:
                    self._statement_of[descendant] = index
        return self._statement_of.get(node, -1)

    def is_container(self, name: str) -> bool:
        """Bound (somewhere in this function) to a list, dict or other Python container: not an array."""
        return any(  # (`p *= [2, 3]` is an operand, not what `p` holds)
            isinstance(b, ValueBinding) and not b.augmented and (
                is_python_container(b.value, self.resolver, self.scope) or self._fresh_container(b.value))
            for b in self.scope.bindings.get(name, ())
        )

    def _fresh_container(self, value: cst.BaseExpression) -> str | None:
        """"dict" or "list" for ``init_params(n)``, a same-module function returning a new dict (list) of new
        items (fresh_results.py); None otherwise."""
        return None if self.fresh_results is None else self.fresh_results.fresh_container_call(value, self.scope)

    def container_kind(self, name: str) -> str | None:
        """"dict" when every binding of the container ``name`` makes a dict, "list" when every one a list or set."""
        kinds = {self._fresh_container(b.value) or ("dict" if is_dict(b.value, self.resolver, self.scope) else "list")
                 for b in self.scope.bindings.get(name, ()) if isinstance(b, ValueBinding) and not b.augmented}
        return kinds.pop() if len(kinds) == 1 else None

    def container_item_blocker(self, name: str) -> str | None:
        """Why ``name[k] op= v`` on the list or dict ``name`` may be seen through another reference to the item's
        array in NumPy (analysis/container_items.py), if it may."""
        key = f"[]{name}"
        if key not in self._cache:
            self._cache[key] = container_item_blocker(
                self.function, name, self.scope, self.resolver,
                lambda expr: is_fresh_array(expr, self.resolver, self.scope) or self._fresh_call(expr), self._only_stored_at,
                lambda call, argument: is_fresh_array(call, self.resolver, self.scope) or private_call(
                    call, None, self.resolver, self.scope, argument=argument),
                self._fresh_container,
                lambda call, argument: private_call(call, None, self.resolver, self.scope, argument=argument, items=True))
        return self._cache[key]

    def _only_stored_at(self, name: str, store: cst.CSTNode) -> bool:
        """``name`` is a local array (every plain binding a fresh array; ``name op= v`` keeps it) that no statement
        but ``store`` may give another name or a container a reference to."""
        bindings = self.scope.bindings.get(name, ())
        if not bindings or not all(isinstance(b, ValueBinding) and (
                b.augmented or is_fresh_array(b.value, self.resolver, self.scope) or self._fresh_call(b.value)) for b in bindings):
            return False
        return not any(isinstance(node, cst.BaseSmallStatement) and not contains(node, store) and self._referenced(name, node)
                       for node in descendants(self.function.body))

    def _blocker(self, name: str) -> str | None:
        if name in self.scope.globals or name in self.scope.nonlocals:
            return f"`{name}` is a global or nonlocal variable: the write is visible outside the function"
        bindings = self.scope.bindings.get(name)
        if not bindings:
            return f"`{name}` is not a local variable: the write mutates state outside the function"
        if self.is_container(name):
            return None
        is_parameter = False
        for binding in bindings:
            if isinstance(binding, ParamBinding):
                is_parameter = True
            elif isinstance(binding, ValueBinding) and binding.augmented:
                continue  # x += v keeps x's own buffer (NumPy) or rebinds it to a new array (JAX)
            elif not isinstance(binding, ValueBinding) or not (
                    is_fresh_array(binding.value, self.resolver, self.scope) or self._fresh_call(binding.value)):
                return f"`{name}` may share memory with another array (it is not always bound to a fresh array)"
        reason = self._alias_reason(name, is_parameter)
        if reason is None and is_parameter:
            return _PARAMETER
        return reason

    def rebound_fresh_before(self, name: str, write: cst.CSTNode) -> bool:
        """On every path to ``write``, ``name`` was just bound to a fresh array no other name has taken
        (analysis/fresh_rebinding.py): the write cannot be seen elsewhere, whatever the other bindings are."""
        if name in self.scope.globals or name in self.scope.nonlocals:
            return False
        if self._fresh_rebinding is None:
            from np2jax.analysis.fresh_rebinding import FreshRebinding

            self._fresh_rebinding = FreshRebinding(
                self.function, lambda value: is_fresh_array(value, self.resolver, self.scope) or self._fresh_call(value),
                self._referenced)
        return self._fresh_rebinding.rebound_fresh_before(name, write)

    def _referenced(self, name: str, node: cst.CSTNode) -> bool:
        checker = _AliasChecker(name, self.resolver, self.scope, self._scalar_item)
        visit(node, checker)
        return checker.reason is not None or bool(checker.hand_offs)

    def _scalar_item(self, value: cst.BaseExpression) -> bool:
        """``y[i]`` with as many integer indices as ``y`` certainly has dimensions (``prev = y[i]`` of a 1-D ``y``):
        a copy of one element, never a view."""
        from np2jax.analysis.indexing import IndexClassifier  # (indexing imports this module)

        return (isinstance(value, cst.Subscript) and isinstance(value.value, cst.Name) and all(
            isinstance(e.slice, cst.Index) and not isinstance(e.slice.value, cst.Ellipsis)
            and not (isinstance(e.slice.value, cst.Name) and e.slice.value.value == "None")
            and IndexClassifier(self.resolver, self.scope).is_int(e.slice.value) for e in value.slice)
            and self._certain_ndim(value.value.value) == len(value.slice))

    def _certain_ndim(self, name: str) -> int | None:
        """The number of dimensions of a local array made only by ``np.zeros``/``ones``/``empty``/``full`` of a
        shape written as integers (literals, ``len(x)``, ``x.shape[k]``, ``x.size``, sums of those, or a tuple of
        them) or by ``np.arange``; None otherwise (a parameter default may be a tuple, linspace of vectors is 2-D)."""
        if reshaped_in_place(self.function, name):
            return None  # `u.shape = (n, 2)`: the same array, other dimensions
        found: set[int] = set()
        for binding in self.scope.bindings.get(name, ()):
            if not isinstance(binding, ValueBinding):
                return None
            if binding.augmented:
                continue  # `y += v` keeps y's shape
            ndim = certain_ndim(binding.value, self.resolver, self.scope)
            if ndim is None:
                return None
            found.add(ndim)
        return found.pop() if len(found) == 1 else None

    def _fresh_call(self, value: cst.BaseExpression) -> bool:
        """``ranks(x)``, a same-module function whose results are always new arrays (analysis/fresh_results.py)."""
        return self.fresh_results is not None and self.fresh_results.is_fresh_call(value, self.scope)

    def _alias_reason(self, name: str, is_parameter: bool = True) -> str | None:
        """Why another name or container may hold ``name``'s array (None: none can when it is written).  ``p = name``
        alone is fine for a local array handed on after its writes (analysis/hand_off.py)."""
        checker = _AliasChecker(name, self.resolver, self.scope, self._scalar_item)
        visit(self.function.body, checker)
        if checker.reason is None and checker.hand_offs and (is_parameter or not handed_on_after_writes(
                self.function, name, checker.hand_offs, lambda value: is_fresh_array(value, self.resolver, self.scope))):
            return f"`{name}` (or a view of it) is also reachable through another name or container"
        return checker.reason


RESHAPING_ATTRIBUTES = frozenset({"shape", "resize"})  # `x.shape = (n, 2)`, `x.resize(...)`: in place


def reshaped_in_place(function: cst.CSTNode, name: str) -> bool:
    """Does ``function`` set ``name.shape`` or call ``name.resize(...)`` (``name`` a name or ``self.name``)?"""
    for node in descendants(function):
        if isinstance(node, cst.Attribute) and node.attr.value in RESHAPING_ATTRIBUTES and (
                (isinstance(node.value, cst.Name) and node.value.value == name)
                or (isinstance(node.value, cst.Attribute) and node.value.attr.value == name)):
            return True
    return False


def certain_ndim(value: cst.BaseExpression, resolver: Resolver, scope: Scope) -> int | None:
    """The number of dimensions of the array ``value`` makes, when it is ``np.zeros``/``ones``/``empty``/``full`` of
    a shape written as integers (literals, ``len(x)``, ``x.shape[k]``, ``x.size``, sums of those, local names bound
    to them, or a tuple of them) or ``np.arange``; None otherwise."""
    from np2jax.analysis.indexing import IndexClassifier  # (indexing imports this module)

    if not isinstance(value, cst.Call) or any(a.star for a in value.args):
        return None
    qualname = resolver.qualname(value.func, scope) or ""
    short = qualname.rsplit(".", 1)[-1] if is_numpy(qualname) else ""
    positional = [a.value for a in value.args if a.keyword is None]
    if short == "arange":
        return 1
    if short not in ("zeros", "ones", "empty", "full") or not positional:
        return None
    ints, shape = IndexClassifier(resolver, scope), positional[0]
    if isinstance(shape, (cst.Tuple, cst.List)):
        if all(isinstance(e, cst.Element) and _certain_int(e.value, ints, scope) for e in shape.elements):
            return len(shape.elements)
        return None
    return 1 if _certain_int(shape, ints, scope) else None


def _certain_int(node: cst.BaseExpression, ints, scope: Scope, depth: int = 0) -> bool:
    """An integer by its syntax: a literal, ``len(x)``, ``x.shape[k]``, ``x.size``, sums and products of those, and
    a local name bound only to such values (``n = b.shape[0]``; a parameter is not: one with a number default may
    be given a tuple)."""
    if isinstance(node, cst.Integer):
        return True
    if isinstance(node, cst.Name) and depth < 4:
        bindings = scope.bindings.get(node.value, ())
        return bool(bindings) and all(isinstance(b, ValueBinding) and not b.augmented
                                      and _certain_int(b.value, ints, scope, depth + 1) for b in bindings)
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, (cst.Add, cst.Subtract, cst.Multiply, cst.FloorDivide)):
        return _certain_int(node.left, ints, scope, depth) and _certain_int(node.right, ints, scope, depth)
    if isinstance(node, cst.Call):
        return (isinstance(node.func, cst.Name) and node.func.value == "len" and len(node.args) == 1)
    if isinstance(node, cst.Attribute):
        return node.attr.value == "size"
    if isinstance(node, cst.Subscript):
        return isinstance(node.value, cst.Attribute) and node.value.attr.value == "shape" and ints.is_int(node)
    return False


_PARAMETER = "parameter"  # decided per write: safe only after the parameter is rebound to a fresh array


def is_view(expr: cst.BaseExpression, resolver: Resolver, scope: Scope) -> bool:
    """``b``, ``a[1:]``, ``a.T``, ``a.reshape(...)``, ``np.ravel(a)`` ...: may share memory with a named array.

    ``a[i]`` with integer indices only is not counted: it is a view only when ``a``
    has more dimensions than indices, which is not known here.
    """
    if string_valued(expr):
        return False
    if isinstance(expr, cst.Subscript) and all(
        isinstance(e.slice, cst.Index) and not isinstance(e.slice.value, cst.Ellipsis)
        and not (isinstance(e.slice.value, cst.Name) and e.slice.value.value == "None")
        for e in expr.slice
    ):
        return False
    return any(may_alias(expr, node.value, resolver, scope) for node in _names_in(expr))


def has_number_hint(param: cst.Param) -> bool:
    """``x: float``, ``n: int = 3``, ``dt=0.1``: the parameter is meant to be a Python number."""
    annotation = param.annotation
    if annotation is not None and any(n.value in ("int", "float", "complex", "bool") for n in _names_in(annotation.annotation)):
        return True
    default = param.default
    if isinstance(default, cst.UnaryOperation):
        default = default.expression
    return isinstance(default, (cst.Integer, cst.Float, cst.Imaginary))


def has_array_evidence(function: cst.FunctionDef, name: str, resolver: Resolver, scope: Scope) -> bool:
    """``name`` is indexed, passed to NumPy, asked for ``.shape``/``.sum()`` ... or annotated as an array in ``function``."""
    evidence = array_evidence(function, resolver, scope)
    return name in evidence.used or name in evidence.annotated


def array_evidence(function: cst.FunctionDef, resolver: Resolver, scope: Scope) -> _ArrayEvidence:
    """The names of ``function`` used like arrays, found in one pass and remembered by the resolver."""
    cache = resolver.memo.setdefault("array_evidence", {})
    evidence = cache.get(function)
    if evidence is None:
        evidence = cache[function] = _ArrayEvidence(resolver, scope)
        visit(function, evidence)
    return evidence


def _names_in(node: cst.CSTNode):
    if isinstance(node, cst.Name):
        yield node
    for child in child_nodes(node):
        yield from _names_in(child)


class _ArrayEvidence(FastVisitor):
    """Names of the function that are used like arrays (``np.f(x)``, ``x[i]``, ``x.shape`` ...), and
    parameters annotated as arrays; one pass for every name (nested functions included)."""

    ARRAY_ATTRIBUTES = frozenset("shape ndim dtype size T reshape ravel sum mean std dot astype copy fill sort".split())

    def __init__(self, resolver: Resolver, scope: Scope) -> None:
        self.resolver = resolver
        self.scope = scope
        self.used: set[str] = set()  # used like an array
        self.annotated: set[str] = set()  # a parameter annotated ndarray / Array / NDArray

    def visit_Call(self, node: cst.Call) -> None:
        names = [a.value.value for a in node.args if isinstance(a.value, cst.Name) and a.value.value not in self.used]
        if names:
            qualname = self.resolver.qualname(node.func, self.scope) or ""
            if is_numpy(qualname) or qualname.startswith("jax.numpy."):
                self.used.update(names)

    def visit_Subscript(self, node: cst.Subscript) -> None:
        if isinstance(node.value, cst.Name):
            self.used.add(node.value.value)

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if isinstance(node.value, cst.Name) and node.attr.value in self.ARRAY_ATTRIBUTES:
            self.used.add(node.value.value)

    def visit_Param(self, node: cst.Param) -> bool:
        if node.annotation is not None:
            if any(n.value in ("ndarray", "Array", "NDArray") for n in _names_in(node.annotation.annotation)):
                self.annotated.add(node.name.value)
        return True


class _ReturnsValue(FastVisitor):
    def __init__(self) -> None:
        self.found = False

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False

    def visit_Return(self, node: cst.Return) -> None:
        self.found = self.found or node.value is not None


class _Descendants(FastVisitor):
    def __init__(self) -> None:
        self.nodes: list[cst.CSTNode] = []

    def on_visit(self, node: cst.CSTNode) -> bool:
        self.nodes.append(node)
        return True


def _binds(target: cst.BaseExpression, name: str) -> bool:
    """Does the assignment target ``target`` bind ``name`` (not write into it: ``name[i] = v``)?"""
    if isinstance(target, cst.Name):
        return target.value == name
    if isinstance(target, (cst.Tuple, cst.List)):
        return any(_binds(e.value, name) for e in target.elements)
    return isinstance(target, cst.StarredElement) and _binds(target.value, name)


class _AliasChecker(FastVisitor):
    def __init__(self, name: str, resolver: Resolver, scope: Scope,
                 scalar_item: Callable[[cst.BaseExpression], bool] = lambda value: False) -> None:
        self.name = name
        self.resolver = resolver
        self.scope = scope
        self.scalar_item = scalar_item  # `y[i]` that is one element of `y`, a copy
        self.reason: str | None = None
        self.hand_offs: list[cst.Assign] = []  # `p = name` statements, judged at the end (analysis/hand_off.py)

    def _flag(self, why: str) -> None:
        if self.reason is None:
            self.reason = why

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        if mentions(node.body, self.name):
            self._flag(f"a nested function uses `{self.name}`; NumPy would see the write through the closure")
        return False

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        if mentions(node.body, self.name):
            self._flag(f"a lambda uses `{self.name}`; NumPy would see the write through the closure")
        elif any(p.default is not None and may_alias(p.default, self.name, self.resolver, self.scope)
                 for p in (*node.params.params, *node.params.kwonly_params)):
            self._flag(f"a lambda keeps `{self.name}` as a default value; NumPy would see the write through it")
        return False

    def _check_value(self, targets: list[cst.BaseExpression], value: cst.BaseExpression | None, node=None) -> None:
        if value is None or not may_alias(value, self.name, self.resolver, self.scope) or self.scalar_item(value):
            return
        if private_call(value, self.name, self.resolver, self.scope):
            return  # `acc = accel(pos)` of a function keeping no reference to `pos` (analysis/private_arguments.py)
        if all(self._copies_or_rebinds(t) for t in targets):
            return
        if node is not None and isinstance(value, cst.Name) and all(isinstance(t, cst.Name) for t in targets):
            self.hand_offs.append(node)  # `p = new`: safe when it comes after every write (analysis/hand_off.py)
            return
        self._flag(f"`{self.name}` (or a view of it) is also reachable through another name or container")

    def _copies_or_rebinds(self, target: cst.BaseExpression) -> bool:
        """``x = x[...]`` rebinds x itself; ``arr[i] = x`` copies values into another local array, ``x[:-1] = x[1:]``
        into x itself (NumPy copies an overlapping right side first, as ``x.at[:-1].set(x[1:])`` reads it)."""
        if isinstance(target, cst.Name):
            return target.value == self.name
        if isinstance(target, cst.Subscript) and isinstance(target.value, cst.Name) and target.value.value == self.name:
            return True
        if isinstance(target, (cst.Tuple, cst.List)):
            return all(self._copies_or_rebinds(e.value) for e in target.elements)
        return self._copies_into_array(target)

    def _copies_into_array(self, target: cst.BaseExpression) -> bool:
        """``arr[i] = v`` with ``arr`` a local always bound to a fresh array: ``v``'s values are copied, not
        ``v`` itself kept (as a list element would be)."""
        if isinstance(target, cst.Subscript) and isinstance(target.value, cst.Name):
            bindings = self.scope.bindings.get(target.value.value, ())
            return bool(bindings) and all(
                isinstance(b, ValueBinding) and is_fresh_array(b.value, self.resolver, self.scope) for b in bindings
            )
        return False

    def visit_Assign(self, node: cst.Assign) -> None:
        targets = [t.target for t in node.targets]
        # `a = b = v` binds two names to one object; `a = x[0] = v` and `x[0] = x[1] = v` copy v into x
        if len(targets) > 1 and any(_binds(t, self.name) for t in targets) and sum(not self._copies_into_array(t) for t in targets) > 1:
            self._flag(f"`{self.name}` is bound together with another name (a = b = ...)")
        self._check_value(targets, node.value, node if len(targets) == 1 else None)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self._check_value([node.target], node.value)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        if not isinstance(node.target, cst.Subscript):
            self._check_value([node.target], node.value)

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        self._check_value([node.target], node.value)

    def visit_For(self, node: cst.For) -> None:
        if may_alias(node.iter, self.name, self.resolver, self.scope):
            self._flag(f"the loop iterates over views of `{self.name}`")

    def visit_WithItem(self, node: cst.WithItem) -> None:
        if may_alias(node.item, self.name, self.resolver, self.scope):
            self._flag(f"`{self.name}` is bound by a with statement")

    def visit_Match(self, node: cst.Match) -> None:
        if may_alias(node.subject, self.name, self.resolver, self.scope):
            self._flag(f"a match statement's patterns may bind `{self.name}` to other names")

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if (isinstance(func, cst.Attribute) and func.attr.value in STORING_METHODS
                and not is_numpy(self.resolver.qualname(func, self.scope))):  # (`np.add(a, b, out=s)` is no `set.add`)
            if any(may_alias(arg.value, self.name, self.resolver, self.scope) for arg in node.args):
                self._flag(f"`{self.name}` is stored in a container")


_NOT_LIST_OPERATORS = (cst.Subtract, cst.Divide, cst.FloorDivide, cst.Power, cst.MatrixMultiply)


def array_arithmetic(expr: cst.BaseExpression) -> bool:
    """Arithmetic no list (nor string) gives: see ``FunctionAliasing.arithmetic_array``."""
    while isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, (cst.Add, cst.Multiply)):
        sides = (expr.left, expr.right)
        if any(isinstance(side, cst.Float) or (isinstance(side, cst.Integer) and isinstance(expr.operator, cst.Add))
               for side in sides):
            return True  # `x + 0.0`, `x * 2.0`, `x + 1`: a list raises
        return any(array_arithmetic(side) for side in sides)  # `(y - m) * w`
    if isinstance(expr, cst.BinaryOperation):
        return isinstance(expr.operator, _NOT_LIST_OPERATORS)
    return isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, (cst.Minus, cst.Plus, cst.BitInvert))
