"""``x[idx] op= number`` through an integer index array that may repeat entries (``probs[np.arange(n), y] -= 1``).

NumPy runs ``x[idx] op= v`` buffered: ``x.__setitem__(idx, x.__getitem__(idx) op v)``, the result cast back
to ``x``'s dtype (its in-place ``op`` on the gathered copy refuses a cast that is not same-kind).  A repeated
position is gathered twice, both copies get the same ``x[k] op v`` when ``v`` is one number, and the last
write stores it: once, not accumulated.  ``x = x.at[idx].set(x[idx] op v)`` computes the very same values
and writes the same number into every copy of a repeated position, so it does not matter which write JAX's
scatter keeps.  (``x.at[idx].add(v)`` would accumulate, ``np.add.at``'s semantics, and a value that is an
array gives the copies different values, whose winner JAX leaves unspecified: both stay NPJ201.)

The rewrite is taken only when it is exact by construction:

- the value is provably one number: a literal, a Python int (``len(a)``, ``x.shape[0]``, a ``range`` loop
  variable), a parameter annotated ``int``/``float``/``bool``, a whole-array NumPy reduction (``np.max(a)``,
  ``a.mean()`` of an array known to be numeric), arithmetic on those, or a name bound only to such values;
- the index is an integer array, never a boolean mask (a mask has no static shape under jit): an element
  provably holds integers (``np.arange``, ``np.argmax(p, axis=1)``, ``.astype(int)``, ``np.searchsorted``,
  ``np.nonzero(m)[0]``, a name bound only to those); other array elements beside it (``probs[np.arange(n),
  y]``) are taken for integer arrays too, as a boolean array broadcast against an integer one is not how
  such code is written, and it would make the trace stop, not differ;
- the index is evaluated twice (``.at[idx]`` and ``x[idx]``): it calls nothing but NumPy functions outside
  ``numpy.random``;
- the operator means the same in both: ``+ - * / **`` and ``& | ^``; ``//`` and ``%`` only by a nonzero
  number literal (an integer divided by zero is 0 in NumPy, -1 or -2 in JAX).

Out-of-bounds indices raise in NumPy; JAX clamps the gather and drops the scatter: the same known problem
as every ``.at[idx]`` write (NPJ200's DOC).
"""

from __future__ import annotations

from typing import Sequence

import libcst as cst

from np2jax.analysis.indexing import IndexClassifier
from np2jax.analysis.mask_writes import pure_expression
from np2jax.analysis.resolve import is_numpy
from np2jax.analysis.scope import ParamBinding, ValueBinding
from np2jax.analysis.value_kinds import BUILTIN_KINDS, MEAN_REDUCTIONS, SAME_KIND_REDUCTIONS, SUM_REDUCTIONS, ValueClassifier, literal_value
from np2jax.cstutil import number_literal

REREAD_OPERATORS = frozenset({
    cst.AddAssign, cst.SubtractAssign, cst.MultiplyAssign, cst.DivideAssign, cst.PowerAssign,
    cst.BitAndAssign, cst.BitOrAssign, cst.BitXorAssign, cst.FloorDivideAssign, cst.ModuloAssign,
})
DIVIDING = (cst.FloorDivideAssign, cst.ModuloAssign)
WHOLE_REDUCTIONS = SAME_KIND_REDUCTIONS | SUM_REDUCTIONS | MEAN_REDUCTIONS | {"argmax", "argmin", "count_nonzero", "any", "all"}
INT_ARRAY_FUNCTIONS = frozenset({"argsort", "argpartition", "searchsorted", "digitize", "flatnonzero", "lexsort", "ravel_multi_index"})
TUPLE_OF_INT_ARRAYS = frozenset({"nonzero", "where", "unravel_index"})  # `np.nonzero(m)[0]`, `np.where(c)[0]`

NOT_INTEGER_INDEX = (
    "the index may be an integer array with repeated entries or a boolean mask: NumPy and "
    "JAX resolve repeats differently, and boolean masks have no static shape under jit"
)


def repeated_index_blocker(target: cst.Subscript, value: cst.BaseExpression, operator: type,
                           classifier: IndexClassifier) -> str | None:
    """Why ``target op= value`` cannot become ``x = x.at[idx].set(x[idx] op value)``; None when it can (see the
    module docstring)."""
    checker = _Checker(classifier)
    if operator not in REREAD_OPERATORS or not checker.integer_index(target.slice):
        return NOT_INTEGER_INDEX
    if not all(pure_expression(element, classifier) for element in target.slice):
        return "the index may repeat entries, and it calls a function that may not give the same index twice"
    if operator in DIVIDING and not _nonzero_literal(value):
        return ("the index may repeat entries: `//=` and `%=` through it are rewritten only by a nonzero number "
                "literal (an integer divided by zero is 0 in NumPy, -1 or -2 in JAX)")
    if not checker.one_number(value):
        return (
            "the index may repeat entries and the value is not provably one number: NumPy writes each repeated "
            "position once with one of the values (x[idx] op= v is x[idx] = x[idx] op v), and which one JAX's "
            "scatter keeps is unspecified"
        )
    return None


def swapped_pair(target: cst.Subscript, value: cst.BaseExpression, classifier: IndexClassifier) -> bool:
    """``x[[a, b]] = x[[b, a]]`` (also ``x[:, [a, b]] = x[:, [b, a]]``): the swap of two rows or columns, with
    ``a`` and ``b`` one number each and every other index element the same and basic.  The value is a copy
    (a list index gathers), and when ``a == b`` both copies of the repeated position get the same row, so it
    does not matter which write JAX's scatter keeps."""
    if not (isinstance(value, cst.Subscript) and isinstance(target.value, cst.Name) and isinstance(value.value, cst.Name)
            and value.value.value == target.value.value and len(value.slice) == len(target.slice)):
        return False
    checker = _Checker(classifier)
    pairs = 0
    for written, read in zip(target.slice, value.slice):
        pair = _pair(written), _pair(read)
        if pair[0] is not None and pair[1] is not None:
            (a, b), (c, d) = pair
            if not (a.deep_equals(d) and b.deep_equals(c)) or not all(
                    checker.one_number(e) and pure_expression(e, classifier) for e in (a, b)):
                return False
            pairs += 1
        elif not (written.deep_equals(read) and classifier.is_basic([written]) and pure_expression(written, classifier)):
            return False
    return pairs == 1


def _pair(element: cst.SubscriptElement) -> tuple[cst.BaseExpression, cst.BaseExpression] | None:
    index = element.slice
    if isinstance(index, cst.Index) and isinstance(index.value, cst.List) and len(index.value.elements) == 2 and not any(
            isinstance(e, cst.StarredElement) for e in index.value.elements):
        first, second = index.value.elements
        return first.value, second.value
    return None


def _indexes(elements: Sequence[cst.SubscriptElement]) -> list[cst.SubscriptElement]:
    """The index elements, ``x[(a, b)]`` read as ``x[a, b]``; slices left out."""
    found = []
    for element in elements:
        index = element.slice
        if isinstance(index, cst.Index) and isinstance(index.value, cst.Tuple):
            found.extend(cst.SubscriptElement(cst.Index(e.value)) for e in index.value.elements)
        elif isinstance(index, cst.Index):
            found.append(element)
    return found


def _nonzero_literal(node: cst.BaseExpression) -> bool:
    value = number_literal(node)
    return value is not None and value != 0


class _Checker:
    def __init__(self, classifier: IndexClassifier) -> None:
        self.classifier = classifier
        self.scope = classifier.scope
        self.resolver = classifier.resolver
        self.kinds = ValueClassifier(classifier.resolver)

    def integer_index(self, elements: Sequence[cst.SubscriptElement]) -> bool:
        """At least one element is provably an integer array, and no element is provably a boolean one."""
        arrays = [e.slice.value for e in _indexes(elements) if not self.classifier.is_basic([e])]
        if not arrays or any(isinstance(a, (cst.List, cst.Tuple)) for a in arrays):
            return False  # a list index: JAX refuses it (NPJ100)
        if any(self.kinds.value(a, self.scope).kind == "bool" for a in arrays):
            return False
        return any(self._int_array(a) for a in arrays)

    def _int_array(self, expr: cst.BaseExpression) -> bool:
        value = self.kinds.value(expr, self.scope)
        if self.classifier._unique(expr) or (value.kind == "int" and not value.scalar):
            return True
        if isinstance(expr, cst.Name):
            return self.classifier.every_binding(expr.value, lambda b: isinstance(b, ValueBinding) and not b.augmented and self._int_array(b.value))
        if isinstance(expr, cst.Call):
            return self._numpy(expr) in INT_ARRAY_FUNCTIONS
        if isinstance(expr, cst.Subscript) and isinstance(expr.value, cst.Call):  # `np.nonzero(m)[0]`
            return self._numpy(expr.value) in TUPLE_OF_INT_ARRAYS and (
                self._numpy(expr.value) != "where" or len(expr.value.args) == 1)
        if isinstance(expr, cst.Subscript):  # `order[:k]`, `labels[mask]`: part of an integer array
            return self._int_array(expr.value)
        return False

    def one_number(self, expr: cst.BaseExpression) -> bool:
        """Certainly one number (a Python number or a 0-d array), never an array of several."""
        if literal_value(expr) is not None or self.classifier.is_int(expr):
            return True
        if isinstance(expr, cst.UnaryOperation):
            return not isinstance(expr.operator, cst.Not) and self.one_number(expr.expression)
        if isinstance(expr, cst.BinaryOperation):
            return not isinstance(expr.operator, cst.MatrixMultiply) and self.one_number(expr.left) and self.one_number(expr.right)
        if isinstance(expr, cst.Name):
            return self.classifier.every_binding(expr.value, lambda b: (
                isinstance(b, ParamBinding) and _annotated_number(b.param)) or (isinstance(b, ValueBinding) and self.one_number(b.value)))
        if isinstance(expr, cst.Call) and not any(a.keyword is not None or a.star for a in expr.args):
            qualname = self.resolver.qualname(expr.func, self.scope) or ""
            if qualname in ("builtins.float", "builtins.int", "builtins.bool") and len(expr.args) == 1:
                return True  # a Python number, or NumPy raises
            if self._numpy(expr) in WHOLE_REDUCTIONS and len(expr.args) == 1:
                return True
            func = expr.func
            if isinstance(func, cst.Attribute) and qualname == "" and not expr.args and func.attr.value in WHOLE_REDUCTIONS:
                base = self.kinds.value(func.value, self.scope)  # `a.mean()` of an array known to be numeric
                return base.numeric and not base.weak
        return False

    def _numpy(self, call: cst.Call) -> str:
        """The function's name when ``call`` calls NumPy (outside numpy.random), else ''."""
        qualname = self.resolver.qualname(call.func, self.scope) or ""
        if not is_numpy(qualname) or qualname.startswith("numpy.random"):
            return ""
        return qualname.rsplit(".", 1)[-1]


def _annotated_number(param: cst.Param) -> bool:
    """``lam: float``: a parameter annotated as a Python number (a default alone proves nothing)."""
    annotation = param.annotation.annotation if param.annotation is not None else None
    return isinstance(annotation, cst.Name) and annotation.value in BUILTIN_KINDS
