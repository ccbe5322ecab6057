"""What kind of index is ``x[...]``: basic (ints, slices), a boolean mask of ``x`` itself, or unknown."""

from __future__ import annotations

from typing import Sequence

import libcst as cst

from np2jax.analysis.aliasing import has_number_hint
from np2jax.analysis.param_kinds import size_names
from np2jax.analysis.resolve import Resolver, is_numpy
from np2jax.analysis.scope import LoopBinding, ParamBinding, Scope, ValueBinding
from np2jax.cstutil import number_literal, size_expression
from np2jax.analysis.values import function_nodes
from np2jax.visitors import FastVisitor, visit
from np2jax.tables import lookup_numpy

INT_BUILTINS = frozenset({"builtins.len", "builtins.int", "builtins.round", "builtins.abs", "builtins.min", "builtins.max", "builtins.sum"})
INT_ATTRIBUTES = frozenset({"ndim", "size", "itemsize", "nbytes"})
SCALAR_REDUCTIONS = frozenset({"argmax", "argmin", "count_nonzero"})
ELEMENTWISE_PREDICATES = frozenset({"isnan", "isinf", "isfinite", "isneginf", "isposinf", "signbit", "logical_not"})
WHOLE_REDUCTIONS = frozenset({"mean", "max", "min", "sum", "std", "var", "median", "nanmean", "nanmax", "nanmin", "nanmedian", "ptp"})
FINFO_NUMBERS = frozenset({"eps", "tiny", "max", "min", "resolution", "epsneg", "smallest_normal"})  # np.finfo(t).eps ...
UNIQUE_INDEX_FUNCTIONS = frozenset(
    {"arange", "diag_indices", "diag_indices_from", "tril_indices", "tril_indices_from", "triu_indices", "triu_indices_from"})
ELEMENTWISE_VALUES = frozenset({"abs", "absolute", "fabs", "real", "imag", "square", "sqrt", "exp", "log", "sign", "negative"})
COMPARISON_OPERATORS = (cst.LessThan, cst.LessThanEqual, cst.GreaterThan, cst.GreaterThanEqual, cst.Equal, cst.NotEqual)


def _nonnegative_arange(call: cst.Call) -> bool:
    """``np.arange(n)``, ``np.arange(2, n)``, ``np.arange(len(x) - 1, ...)``? Only a start that cannot be negative
    and a positive step: a negative index wraps, so ``np.arange(-3, 3)`` names elements of a short array twice."""
    if any(arg.keyword is not None and arg.keyword.value != "dtype" or arg.star for arg in call.args):
        return False
    positional = [arg.value for arg in call.args if arg.keyword is None]
    if len(positional) == 1:
        return True
    if len(positional) == 3 and not (isinstance(positional[2], cst.Integer) and int(positional[2].value, 0) > 0):
        return False
    return len(positional) in (2, 3) and _nonnegative(positional[0])


def _nonnegative(expr: cst.BaseExpression) -> bool:
    if isinstance(expr, cst.Integer):
        return True
    if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Name) and expr.func.value == "len":
        return True
    if isinstance(expr, cst.Attribute) and expr.attr.value in ("size", "ndim"):
        return True
    if isinstance(expr, cst.Subscript) and isinstance(expr.value, cst.Attribute) and expr.value.attr.value == "shape":
        return True
    if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, (cst.Add, cst.Multiply, cst.FloorDivide)):
        return _nonnegative(expr.left) and _nonnegative(expr.right)
    return False


class IndexClassifier:
    def __init__(self, resolver: Resolver, scope: Scope) -> None:
        self.resolver = resolver
        self.scope = scope
        self._visiting: set[str] = set()

    def is_int(self, expr: cst.BaseExpression) -> bool:
        """Certainly a single integer (a Python int or a 0-d integer array), never an index array."""
        if isinstance(expr, cst.Integer):
            return True
        if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, (cst.Minus, cst.Plus)):
            return self.is_int(expr.expression)
        if isinstance(expr, cst.BinaryOperation) and isinstance(
            expr.operator, (cst.Add, cst.Subtract, cst.Multiply, cst.FloorDivide, cst.Modulo)
        ):
            return self.is_int(expr.left) and self.is_int(expr.right)
        if isinstance(expr, cst.Attribute):
            return expr.attr.value in INT_ATTRIBUTES or self._self_attribute_is_int(expr)
        if isinstance(expr, cst.Subscript):  # x.shape[0]; `_NEXT_AXIS[i + parity]` of a list of int literals
            value = expr.value
            return (isinstance(value, cst.Attribute) and value.attr.value == "shape" or self._int_table(value)) and all(
                isinstance(e.slice, cst.Index) and self.is_int(e.slice.value) for e in expr.slice
            )
        if isinstance(expr, cst.Call):
            qualname = self.resolver.qualname(expr.func, self.scope)
            if qualname in ("builtins.len", "builtins.int", "builtins.min", "builtins.max"):
                return True  # `min`/`max` of arrays of several elements raise (their comparison has no truth value)
            if qualname in INT_BUILTINS:  # of an array, `abs` and `round` give an array, `sum` (of a 2-d one) a row
                return bool(expr.args) and all(
                    not a.star and a.keyword is None and (self.is_int(a.value) or self.is_scalar(a.value)) for a in expr.args)
            if is_numpy(qualname) and qualname.rsplit(".", 1)[1] in SCALAR_REDUCTIONS:
                return not any(a.keyword is not None and a.keyword.value == "axis" for a in expr.args) and len(
                    [a for a in expr.args if a.keyword is None]
                ) == 1
            return False
        if isinstance(expr, cst.Name):
            return self._name_is_int(expr.value)
        return False

    def _int_table(self, node: cst.BaseExpression) -> bool:
        """A name bound only to lists or tuples of int literals (``_NEXT_AXIS = [1, 2, 0, 1]``): indexed by an int,
        an int."""
        if not isinstance(node, cst.Name):
            return False
        found, bindings = self.scope.lookup(node.value)
        return found is not None and bool(bindings) and all(
            isinstance(b, ValueBinding) and not b.augmented and isinstance(b.value, (cst.List, cst.Tuple))
            and b.value.elements and all(isinstance(e, cst.Element) and type(number_literal(e.value)) is int for e in b.value.elements)
            for b in bindings)

    def _name_is_int(self, name: str) -> bool:
        if name in self._visiting:
            return True  # i = i + 1 in a loop: an int if every other binding is
        found, bindings = self.scope.lookup(name)
        if found is None or not bindings:
            return False
        if len(bindings) == 1 and found.kind == "function" and self._sequence_index(name, found):
            return True  # `j = _NEXT_AXIS[i + parity]` with `i = firstaxis`: one value, a Python sequence's index
        self._visiting.add(name)
        try:
            for binding in bindings:
                if isinstance(binding, ValueBinding):
                    if not (self.is_int(binding.value) or self._unpacked_shape(name, binding.value, found)):
                        return False
                elif isinstance(binding, LoopBinding):
                    if not self._loop_yields_ints(binding.iterable, binding.position):
                        return False
                elif not (isinstance(binding, ParamBinding) and (_int_hint(binding.param) or self._range_argument(name, found)
                                                                  or self._sequence_index(name, found))):
                    return False
            return True
        finally:
            self._visiting.discard(name)

    def _unpacked_shape(self, name: str, value: cst.BaseExpression, scope: Scope) -> bool:
        """``h, w = grid.shape``, ``r, c = divmod(s, n_cols)`` of ints: each name is one int (``w = grid.shape``
        alone is a tuple)."""
        shape = isinstance(value, cst.Attribute) and value.attr.value == "shape"
        quotient = (isinstance(value, cst.Call) and self.resolver.qualname(value.func, scope) == "builtins.divmod"
                    and len(value.args) == 2 and all(a.keyword is None and not a.star and self.is_int(a.value) for a in value.args))
        if not (shape or quotient) or scope.kind != "function":
            return False
        return any(
            isinstance(node, cst.Assign) and node.value is value and any(
                isinstance(t.target, (cst.Tuple, cst.List)) and any(
                    isinstance(e, cst.Element) and isinstance(e.value, cst.Name) and e.value.value == name
                    for e in t.target.elements) for t in node.targets)
            for node, _ in function_nodes(scope.node, self.resolver))

    def _unpacked_quantile(self, name: str, value: cst.BaseExpression) -> bool:
        """``lo, hi = np.percentile(x, [5, 95])`` (quantile, nan*): quantiles of the whole array at a list of
        levels given as numbers, unpacked: each name is one number."""
        scope = self.scope.lookup(name)[0]
        if not isinstance(value, cst.Call) or scope is None or scope.kind != "function" or any(
                a.star or (a.keyword is not None and a.keyword.value not in ("q", "method", "interpolation")) for a in value.args):
            return False
        qualname = self.resolver.qualname(value.func, scope) or ""
        positional = [a.value for a in value.args if a.keyword is None]
        levels = positional[1] if len(positional) == 2 else next(
            (a.value for a in value.args if a.keyword is not None and a.keyword.value == "q"), None)
        if qualname not in QUANTILES or not isinstance(levels, (cst.List, cst.Tuple)) or not all(
                isinstance(e, cst.Element) and self.is_scalar(e.value) for e in levels.elements):
            return False
        return any(
            isinstance(node, cst.Assign) and node.value is value and any(
                isinstance(t.target, (cst.Tuple, cst.List)) and len(t.target.elements) == len(levels.elements) and any(
                    isinstance(e, cst.Element) and isinstance(e.value, cst.Name) and e.value.value == name
                    for e in t.target.elements) for t in node.targets)
            for node, _ in function_nodes(scope.node, self.resolver))

    def _range_argument(self, name: str, scope: Scope) -> bool:
        """The function hands the parameter to ``range`` (``for c in range(w)``) or bounds a slice with it
        (``x[i:i + k]``), which take nothing but an int (or a 0-d integer array): ``r * w + c`` indexes one element."""
        return isinstance(scope.node, cst.FunctionDef) and name in size_names(scope.node, self.resolver)

    def _sequence_index(self, name: str, scope: Scope) -> bool:
        """The function indexes a list or tuple display with the parameter, alone or in a sum (``_NEXT_AXIS[i +
        parity]``): a Python sequence takes nothing but an int there (or a 0-d integer array)."""
        memo = self.resolver.memo.setdefault("sequence_indices", {})
        found = memo.get(scope.node)
        if found is None:
            names = set()
            for node, inner in function_nodes(scope.node, self.resolver):
                if not (isinstance(node, cst.Subscript) and len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Index)
                        and _sequence_display(node.value, inner)):
                    continue
                pending = [node.slice[0].slice.value]
                while pending:
                    part = pending.pop()
                    if isinstance(part, cst.BinaryOperation) and isinstance(part.operator, (cst.Add, cst.Subtract)):
                        pending.extend((part.left, part.right))
                    elif isinstance(part, cst.Name) and inner.lookup(part.value)[0] is scope:
                        names.add(part.value)
            found = memo[scope.node] = frozenset(names)
        return name in found

    def _self_attribute_is_int(self, expr: cst.Attribute) -> bool:
        """``self.head`` in a method, where every value the class's methods give ``self.head`` is an int
        (``self.head = 0``, ``self.head = (self.head + 1) % n``, ``self.head += 1``) and nothing else in the module
        sets an attribute so named (a ring buffer's position: one element per write, never an index array)."""
        method = self.scope
        while method is not None and method.kind != "function":
            method = method.parent
        owner = method.parent if method is not None else None
        if (method is None or owner is None or owner.kind != "class" or not isinstance(expr.value, cst.Name)
                or _first_param(method.node) != expr.value.value):
            return False
        key = f"self.{expr.attr.value}"
        if key in self._visiting:
            return True  # `self.head = (self.head + 1) % n`: an int if every other value is
        self._visiting.add(key)
        try:
            values = _attribute_values(owner.node, expr.attr.value, self.resolver)
            if values is None:
                return False
            for value, scope in values:
                classifier = IndexClassifier(self.resolver, scope)
                classifier._visiting = self._visiting
                if not classifier.is_int(value):
                    return False
            return True
        finally:
            self._visiting.discard(key)

    def _loop_yields_ints(self, iterable: cst.BaseExpression, position: tuple[int, ...]) -> bool:
        """Does iterating ``iterable`` put an int at ``position`` of the loop target?"""
        if not isinstance(iterable, cst.Call):
            return False
        qualname = self.resolver.qualname(iterable.func, self.scope)
        args = [arg.value for arg in iterable.args if arg.keyword is None and not arg.star]
        if qualname == "builtins.range":
            return position == ()
        if qualname == "builtins.reversed" and len(args) == 1:
            return self._loop_yields_ints(args[0], position)
        if qualname == "builtins.enumerate" and position[:1] == (0,):
            return len(position) == 1
        if qualname == "builtins.enumerate" and position[:1] == (1,) and args:
            return self._loop_yields_ints(args[0], position[1:])
        if qualname == "builtins.zip" and position and 0 <= position[0] < len(args):
            return self._loop_yields_ints(args[position[0]], position[1:])
        return False

    def is_basic(self, elements: Sequence[cst.SubscriptElement]) -> bool:
        """Integers, slices, ``...`` and ``None`` only: every element is written at most once."""
        for element in elements:
            index = element.slice
            if isinstance(index, cst.Slice):
                continue
            value = index.value
            if isinstance(value, cst.Ellipsis) or (isinstance(value, cst.Name) and value.value == "None"):
                continue
            if isinstance(value, cst.Tuple):
                if not self.is_basic([cst.SubscriptElement(cst.Index(e.value)) for e in value.elements]):
                    return False
                continue
            if not self.is_int(value):
                return False
        return True

    def single_elements(self, elements: Sequence[cst.SubscriptElement]) -> tuple[int, ...]:
        """Positions of the index elements that are one element of an array taken at integer positions
        (``idx[i]``, ``edges[k, 0]``, a loop variable over an array: ``for t, p in zip(y_true, y_pred)``),
        when every other element is basic: ``h[idx[i]] += 1``, ``cm[t, p] += 1``.  Such an element is a single
        number when the array has as many axes as positions, which is how such code is written; as
        ``jnp.reshape(e, ())`` it is one (the same element, and a single-element index array names the one
        element NumPy's does) or the trace stops (``reshape`` of a row has no static answer to give), never a
        repeated index.  Empty when the index is anything else."""
        found = []
        for position, element in enumerate(elements):
            index = element.slice
            if isinstance(index, cst.Slice) or self.is_basic([element]):
                continue
            if not self._is_element(index.value):
                return ()
            found.append(position)
        return tuple(found)

    def _is_element(self, expr: cst.BaseExpression) -> bool:
        if isinstance(expr, cst.Subscript):
            return isinstance(expr.value, cst.Name) and all(
                isinstance(e.slice, cst.Index) and self.is_int(e.slice.value) for e in expr.slice)
        if isinstance(expr, cst.Name):
            return self.every_binding(expr.value, lambda b: (isinstance(b, ValueBinding) and not b.augmented and self._is_element(b.value)) or (
                isinstance(b, LoopBinding) and self._loop_yields_elements(b.iterable, b.position)))
        return False

    def _loop_yields_elements(self, iterable: cst.BaseExpression, position: tuple[int, ...]) -> bool:
        """Does iterating ``iterable`` put an element of a named array (or list) at ``position`` of the loop target?"""
        if isinstance(iterable, cst.Name):
            return position == ()
        if not isinstance(iterable, cst.Call):
            return False
        qualname = self.resolver.qualname(iterable.func, self.scope)
        args = [arg.value for arg in iterable.args if arg.keyword is None and not arg.star]
        if qualname == "builtins.zip" and len(position) == 1 and 0 <= position[0] < len(args):
            return isinstance(args[position[0]], cst.Name)
        if qualname == "builtins.enumerate" and position == (1,) and args:
            return isinstance(args[0], cst.Name)
        return False

    def is_unique(self, elements: Sequence[cst.SubscriptElement]) -> bool:
        """An index that cannot name one element twice: ``np.arange(...)`` (also reversed or sliced), or the
        index tuples of ``np.diag_indices(_from)`` / ``np.tril_indices(_from)`` / ``np.triu_indices(_from)``,
        directly or through a name bound to nothing else, or lists of non-negative int literals whose positions
        differ (``A[:, [0, 3], [1, 2]]``).  (Repeats are what make NumPy's and JAX's
        ``x[idx] = v`` / ``x[idx] += v`` differ.)"""
        if _distinct_literal_positions(elements):
            return True
        if len(elements) > 1:
            return self._unique_rows(elements)
        if len(elements) != 1 or not isinstance(elements[0].slice, cst.Index):
            return False
        return self._unique(elements[0].slice.value)

    def _unique_rows(self, elements: Sequence[cst.SubscriptElement]) -> bool:
        """``p[np.arange(n), y.ravel()]``: the positions differ in their first coordinate, as long as the other
        indices are certainly flat (a number, a slice, a raveled array; not a parameter or ``y[:, None]``, which
        may be a column that pairs every row with every label and names a position twice)."""
        values = [e.slice.value for e in elements if isinstance(e.slice, cst.Index)]
        if not any(self._unique(v) and not self._tuple_of_arrays(v) and not isinstance(v, cst.Subscript) for v in values):
            return False
        return all(self._unique(v) and not isinstance(v, cst.Subscript) or self._flat_index(v) for v in values)

    def _flat_index(self, expr: cst.BaseExpression) -> bool:
        """Certainly a number or a 1-D array: a literal, ``y.ravel()``, ``y.flatten()``, ``np.ravel(y)``,
        ``y.reshape(-1)`` (also ``.astype(...)`` of one), or a name bound only to such values. A parameter may be a
        column (``y`` of shape (n, 1) pairs every row with every label, naming positions twice): not flat."""
        if isinstance(expr, cst.Integer) or (isinstance(expr, cst.UnaryOperation) and isinstance(expr.expression, cst.Integer)):
            return True
        if isinstance(expr, cst.Name):
            return self.every_binding(expr.value, lambda b: isinstance(b, ValueBinding) and not b.augmented and self._flat_index(b.value))
        if not isinstance(expr, cst.Call):
            return False
        func = expr.func
        if isinstance(func, cst.Attribute) and func.attr.value == "astype":
            return self._flat_index(func.value)
        if isinstance(func, cst.Attribute) and func.attr.value in ("ravel", "flatten") and not expr.args:
            return True
        if isinstance(func, cst.Attribute) and func.attr.value == "reshape" and len(expr.args) == 1:
            value = expr.args[0].value
            return isinstance(value, cst.UnaryOperation) and isinstance(value.expression, cst.Integer) and value.expression.value == "1"
        qualname = self.resolver.qualname(func, self.scope) or ""
        return qualname in ("numpy.ravel", "jax.numpy.ravel") and len(expr.args) == 1

    def _unique(self, expr: cst.BaseExpression) -> bool:
        if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.Add):
            # `idx + 1`: a shift of distinct non-negative integers by a non-negative one stays distinct and
            # non-negative (a negative position would name the same element as `len + position`)
            return (self._unique(expr.left) and _non_negative_int(expr.right)) or (
                _non_negative_int(expr.left) and self._unique(expr.right))
        if isinstance(expr, cst.Subscript):  # `np.arange(n)[::-1]`, `order[:k]`: a slice of unique values
            return (len(expr.slice) == 1 and isinstance(expr.slice[0].slice, cst.Slice)
                    and self._unique(expr.value) and not self._tuple_of_arrays(expr.value))
        if isinstance(expr, cst.Name):
            return self.every_binding(expr.value, lambda b: isinstance(b, ValueBinding) and not b.augmented and self._unique(b.value))
        if isinstance(expr, cst.Call):
            qualname = self.resolver.qualname(expr.func, self.scope) or ""
            name = qualname.rsplit(".", 1)[-1]
            if not (is_numpy(qualname) or qualname.startswith("jax.numpy.")) or name not in UNIQUE_INDEX_FUNCTIONS:
                return False
            return name != "arange" or _nonnegative_arange(expr)
        return False

    def _tuple_of_arrays(self, expr: cst.BaseExpression) -> bool:
        """``np.diag_indices(n)`` & co. (a tuple: slicing it picks arrays, not positions)."""
        if isinstance(expr, cst.Name):
            _, bindings = self.scope.lookup(expr.value)
            return any(isinstance(b, ValueBinding) and self._tuple_of_arrays(b.value) for b in bindings)
        if isinstance(expr, cst.Call):
            qualname = self.resolver.qualname(expr.func, self.scope) or ""
            return qualname.rsplit(".", 1)[-1] in UNIQUE_INDEX_FUNCTIONS - {"arange"}
        return False

    def is_scalar(self, expr: cst.BaseExpression) -> bool:
        """Certainly one number: a literal, a parameter meant to be one (``limit=1.0``, ``lam: float``), a
        name bound only to such values, a reduction of a whole array (``x.mean()``, ``np.max(x)``), and
        arithmetic on those."""
        if isinstance(expr, (cst.Integer, cst.Float)) or (isinstance(expr, cst.Name) and expr.value in ("True", "False")):
            return True
        if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, (cst.Minus, cst.Plus)):
            return self.is_scalar(expr.expression)
        if isinstance(expr, cst.BinaryOperation) and not isinstance(expr.operator, cst.MatrixMultiply):
            return self.is_scalar(expr.left) and self.is_scalar(expr.right)
        if isinstance(expr, cst.Name) and self.resolver.qualname(expr, self.scope) is None:
            return self.every_binding(expr.value, lambda b: (isinstance(b, ParamBinding) and has_number_hint(b.param)) or (
                isinstance(b, ValueBinding) and not b.augmented and (
                    self.is_scalar(b.value) or self._unpacked_quantile(expr.value, b.value))))
        if (isinstance(expr, cst.Attribute) and expr.attr.value in FINFO_NUMBERS and isinstance(expr.value, cst.Call)
                and self.resolver.qualname(expr.value.func, self.scope) in ("numpy.finfo", "numpy.iinfo")):
            return True  # `np.finfo(float).eps` (real30: pycpd's EM step)
        if isinstance(expr, (cst.Name, cst.Attribute)):  # `np.inf`, `np.pi` (not `np.newaxis`, which is None)
            qualname = self.resolver.qualname(expr, self.scope) or ""
            row = lookup_numpy(qualname) if is_numpy(qualname) else None
            return row is not None and row.kind == "constant" and qualname not in ("numpy.newaxis",)
        if isinstance(expr, cst.Call) and not any(a.keyword is not None or a.star for a in expr.args):
            func = expr.func
            if isinstance(func, cst.Attribute) and func.attr.value in WHOLE_REDUCTIONS and not expr.args:
                return True  # `x.mean()`
            qualname = self.resolver.qualname(func, self.scope) or ""
            return is_numpy(qualname) and qualname.rsplit(".", 1)[1] in WHOLE_REDUCTIONS and len(expr.args) == 1
        return False

    def every_binding(self, name: str, test) -> bool:
        """``name`` has bindings and ``test`` holds for each (a name met again while deciding: no)."""
        if name in self._visiting:
            return False
        _, bindings = self.scope.lookup(name)
        self._visiting.add(name)
        try:
            return bool(bindings) and all(test(b) for b in bindings)
        finally:
            self._visiting.discard(name)

    def is_mask_of(self, elements: Sequence[cst.SubscriptElement], name: str) -> bool:
        """A boolean mask computed elementwise from ``name`` itself, so it has exactly its shape."""
        if len(elements) != 1 or not isinstance(elements[0].slice, cst.Index):
            return False
        return self._mask(elements[0].slice.value, name)

    def _mask(self, expr: cst.BaseExpression, name: str) -> bool:
        if isinstance(expr, cst.Comparison):
            if len(expr.comparisons) != 1 or not isinstance(expr.comparisons[0].operator, COMPARISON_OPERATORS):
                return False
            operands = [expr.left, expr.comparisons[0].comparator]
            own = [self._is_name(o, name) or self._elementwise_of(o, name) for o in operands]
            return any(own) and all(
                mine or self.resolver.is_static(o, self.scope) or self.is_scalar(o) for mine, o in zip(own, operands)
            )
        if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, (cst.BitAnd, cst.BitOr, cst.BitXor)):
            return self._mask(expr.left, name) and self._mask(expr.right, name)
        if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.BitInvert):
            return self._mask(expr.expression, name)
        if isinstance(expr, cst.Call):
            qualname = self.resolver.qualname(expr.func, self.scope) or ""
            is_predicate = (is_numpy(qualname) or qualname.startswith("jax.numpy.")) and qualname.rsplit(".", 1)[1] in ELEMENTWISE_PREDICATES
            return is_predicate and len(expr.args) == 1 and self._is_name(expr.args[0].value, name)
        return False

    def _elementwise_of(self, expr: cst.BaseExpression, name: str) -> bool:
        """``np.abs(x)``, ``np.real(x)`` ...: an array of ``x``'s shape."""
        if not isinstance(expr, cst.Call) or len(expr.args) != 1 or expr.args[0].keyword is not None:
            return False
        qualname = self.resolver.qualname(expr.func, self.scope) or ""
        return ((is_numpy(qualname) or qualname.startswith("jax.numpy.")) and qualname.rsplit(".", 1)[1] in ELEMENTWISE_VALUES
                and self._is_name(expr.args[0].value, name))

    @staticmethod
    def _is_name(expr: cst.BaseExpression, name: str) -> bool:
        return isinstance(expr, cst.Name) and expr.value == name and not expr.lpar


def _non_negative_int(node: cst.BaseExpression) -> bool:
    """An int literal, a size (``len(x)``, ``x.shape[0]``) or a sum of those."""
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Add):
        return _non_negative_int(node.left) and _non_negative_int(node.right)
    return isinstance(node, cst.Integer) or size_expression(node)


def _distinct_literal_positions(elements: Sequence[cst.SubscriptElement]) -> bool:
    """Every index is a slice, a non-negative int literal or a list of them, some list among them, and the lists
    (broadcast together, a single element to every length) name distinct positions: ``A[:, [0, 3], [1, 2]]``.
    (A negative literal may name the same element as a non-negative one.)"""
    lists: list[list[int]] = []
    for element in elements:
        part = element.slice
        if isinstance(part, cst.Slice):
            continue
        value = part.value
        if isinstance(value, cst.Integer):
            continue
        if not isinstance(value, (cst.List, cst.Tuple)) or not value.elements or not all(
                isinstance(e, cst.Element) and isinstance(e.value, cst.Integer) for e in value.elements):
            return False
        if isinstance(value, cst.Tuple) and len(elements) == 1:
            return False  # `x[(0, 1)]` is `x[0, 1]`: one element
        lists.append([int(e.value.value, 0) for e in value.elements])
    if not lists:
        return False
    length = max(len(values) for values in lists)
    if any(len(values) not in (1, length) for values in lists):
        return False
    positions = [tuple(values[k] if len(values) > 1 else values[0] for values in lists) for k in range(length)]
    return len(set(positions)) == len(positions)


def _int_hint(param: cst.Param) -> bool:
    """``i: int``: the parameter is meant to be one Python int (an index array would break the hint)."""
    annotation = param.annotation
    return annotation is not None and isinstance(annotation.annotation, cst.Name) and annotation.annotation.value == "int"


def _first_param(function: cst.CSTNode) -> str | None:
    if not isinstance(function, cst.FunctionDef):
        return None
    params = [*function.params.posonly_params, *function.params.params]
    return params[0].name.value if params else None


def _attribute_values(classdef: cst.ClassDef, attr: str, resolver: Resolver) -> list[tuple[cst.BaseExpression, Scope]] | None:
    """The values the methods of ``classdef`` give ``self.<attr>`` (with each method's scope); None when something
    else sets an attribute so named: another object's, a nested function's, an unpacking, a `del`, or code
    outside the class's methods (once per class and name)."""
    memo = resolver.memo.setdefault("attribute_values", {})
    key = (classdef, attr)
    if key not in memo:
        memo[key] = _find_attribute_values(classdef, attr, resolver)
    return memo[key]


def _find_attribute_values(classdef: cst.ClassDef, attr: str, resolver: Resolver) -> list[tuple[cst.BaseExpression, Scope]] | None:
    module = resolver.scopes.get(_module_of(resolver))
    found: list[tuple[cst.BaseExpression, Scope]] = []
    methods = {statement: _first_param(statement) for statement in classdef.body.body if isinstance(statement, cst.FunctionDef)}

    class _Stores(FastVisitor):
        def __init__(self) -> None:
            self.functions: list[cst.FunctionDef] = []
            self.ok = True

        def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
            self.functions.append(node)

        def leave_FunctionDef(self, node: cst.FunctionDef) -> None:
            self.functions.pop()

        def _target(self, target: cst.BaseExpression, value: cst.BaseExpression | None, augmented: bool) -> None:
            if isinstance(target, (cst.Tuple, cst.List)):
                for element in target.elements:
                    self._target(element.value, None, False)
                return
            if not (isinstance(target, cst.Attribute) and target.attr.value == attr):
                return
            method = self.functions[-1] if self.functions else None
            own = method in methods and isinstance(target.value, cst.Name) and target.value.value == methods[method]
            if not own or value is None:
                self.ok = False
                return
            scope = resolver.scopes.get(method)
            if scope is None:
                self.ok = False
                return
            found.append((cst.BinaryOperation(target, cst.Add(), value) if augmented else value, scope))

        def visit_Assign(self, node: cst.Assign) -> None:
            for target in node.targets:
                self._target(target.target, node.value, False)

        def visit_AugAssign(self, node: cst.AugAssign) -> None:
            if isinstance(node.operator, (cst.AddAssign, cst.SubtractAssign, cst.MultiplyAssign, cst.FloorDivideAssign, cst.ModuloAssign)):
                self._target(node.target, node.value, True)
            else:
                self._target(node.target, None, False)

        def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
            self._target(node.target, node.value, False)

        def visit_Del(self, node: cst.Del) -> None:
            self._target(node.target, None, False)

    stores = _Stores()
    if module is None:
        return None
    visit(module.node, stores)
    return found if stores.ok and found else None


def _module_of(resolver: Resolver) -> cst.CSTNode | None:
    """The module the resolver's scopes belong to."""
    return next((node for node in resolver.scopes if isinstance(node, cst.Module)), None)


QUANTILES = frozenset(f"numpy.{name}" for name in ("percentile", "quantile", "nanpercentile", "nanquantile"))



def _sequence_display(node: cst.BaseExpression, scope: Scope) -> bool:
    """A name bound only to list or tuple displays."""
    if not isinstance(node, cst.Name):
        return False
    found, bindings = scope.lookup(node.value)
    return found is not None and bool(bindings) and all(
        isinstance(b, ValueBinding) and not b.augmented and isinstance(b.value, (cst.List, cst.Tuple)) for b in bindings)
