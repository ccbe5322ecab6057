"""Prefixes and suffixes at a fori_loop index summed away: full-length operands masked with ``jnp.where``.

``x[:i]`` (and ``x[i + 1:]``) in a loop that becomes ``jax.lax.fori_loop`` has a length
that changes with the traced index, which jit refuses (NPJ303).  Inside a *full
reduction that sums elementwise terms* the length does not matter when every element
past the cut is zero: ``L[i, :i] @ x[:i]`` is the sum of ``L[i, k] * x[k]`` over ``k < i``,
which is the full-length ``jnp.where(k < i, L[i, :], 0) @ jnp.where(k < i, x, 0)``.  So a
prefix (suffix) is converted when it is a leaf of such a reduction:

* ``a @ b``, ``np.dot(a, b)``, ``np.inner(a, b)``, ``np.vdot(a, b)``, ``a.dot(b)``: both sides;
* ``np.sum(e)``, ``e.sum()``, ``np.linalg.norm(e)`` (no axis, no other argument);

where each side is an expression that is zero wherever its prefixes are masked: a
prefix, ``-e``, ``e1 + e2``, ``e1 - e2``, ``e1 * e2`` (or times a number literal), ``e / c``
(a nonzero literal), ``e ** p`` (a positive literal), ``np.abs(e)``, ``np.square(e)``,
``np.sqrt(e)``, ``np.conj(e)``.  Every prefix is masked (not only one factor of a product),
so an inf or nan past the cut never becomes ``0 * inf``.  The mask is built along the
prefix's own axis of the operand (``jax.lax.broadcasted_iota``), whatever the array's
number of dimensions; the fill value ``False`` is the zero of every dtype, so the
operand keeps its dtype.  All prefixes of one reduction must be cut at the same bound
on the same side, at the same axis of operands with the same number of written axes
(NumPy raises on prefixes of different lengths, the masked form would not), and the
bound must be proven at least 0 at every step from the loop's ``range`` (NumPy wraps a
negative bound).  A prefix used any other way (returned, stored, averaged) stays
NPJ303.  The masked terms add exact zeros; the order of the additions is XLA's.
"""

from __future__ import annotations

from dataclasses import replace

import libcst as cst

from np2jax.analysis.jit_plan import PrefixMask
from np2jax.analysis.resolve import is_numpy
from np2jax.analysis.slice_windows import INDEX, ONE, _at_least_zero, _one_axis, _plus
from np2jax.analysis.tracing_tables import VALUE_INSTEAD

PRODUCTS = frozenset({"dot", "inner", "vdot"})  # NumPy functions summing the products of two operands
SUMS = frozenset({"sum", "linalg.norm"})  # ... summing (the squares of) one operand
ZERO_FUNCTIONS = frozenset({"abs", "absolute", "fabs", "square", "sqrt", "conj", "conjugate", "negative"})  # f(0) == 0


class PrefixMasks:
    """The prefix part of ``FunctionTracing`` (analysis/function_tracing.py), beside ``SliceWindows``.

    ``note_reduction`` is called for every node before it is visited: a reduction whose
    leaves are all prefixes at a converted loop's index records them in ``prefixes``,
    and ``visit_Subscript`` then does not require their bounds to be Python values.
    """

    def _init_prefixes(self) -> None:
        self.prefixes: dict[cst.Subscript, PrefixMask] = {}

    def note_reduction(self, node: cst.CSTNode) -> None:
        if not self.window_loops or self.scope is not self.function_scope:
            return
        operands = self._reduced(node)
        if not operands:
            return
        leaves: list[cst.Subscript] = []
        if not all(self._zero_outside(operand, leaves) for operand in operands):
            return
        found = {leaf: self._prefix(leaf) for leaf in leaves}
        masks = list(found.values())
        if any(m is None for m in masks) or len({(m[0].axis, m[0].suffix, m[1], m[2]) for m in masks}) != 1:
            return
        for leaf, (mask, _, _, atoms) in found.items():
            for atom in atoms:
                self._require(atom, "prefix bound", VALUE_INSTEAD)
            self.prefixes[leaf] = mask
        loop = self.window_loops[masks[0][1][0]]
        self.loops[loop] = replace(self.loops[loop], masked=True)

    def prefix_positions(self, node: cst.Subscript) -> set[int]:
        mask = self.prefixes.get(node)
        return {mask.position} if mask is not None else set()

    # --- the reductions and the expressions that are zero past the cut -----------------------------
    def _reduced(self, node: cst.CSTNode) -> tuple[cst.BaseExpression, ...]:
        """The operands ``node`` sums the elementwise (products of) terms of, if it is such a reduction."""
        if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.MatrixMultiply):
            return node.left, node.right
        if not isinstance(node, cst.Call) or any(a.keyword is not None or a.star for a in node.args):
            return ()
        args = tuple(a.value for a in node.args)
        name = self._numpy_name(node.func)
        if name in PRODUCTS and len(args) == 2 or name in SUMS and len(args) == 1:
            return args
        if isinstance(node.func, cst.Attribute) and name is None:
            method, receiver = node.func.attr.value, node.func.value
            if method == "sum" and not args or method == "dot" and len(args) == 1:
                return (receiver, *args)
        return ()

    def _numpy_name(self, func: cst.BaseExpression) -> str | None:
        qualname = self.resolver.qualname(func, self.scope)
        for module in ("numpy.", "jax.numpy."):
            if qualname is not None and qualname.startswith(module) and (is_numpy(qualname) or module == "jax.numpy."):
                return qualname[len(module):]
        return None

    def _zero_outside(self, node: cst.BaseExpression, leaves: list[cst.Subscript]) -> bool:
        """Is ``node`` zero wherever its prefixes (appended to ``leaves``) are masked?"""
        if isinstance(node, cst.Subscript):
            leaves.append(node)
            return True
        if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, (cst.Minus, cst.Plus)):
            return self._zero_outside(node.expression, leaves)
        if isinstance(node, cst.BinaryOperation):
            operator, left, right = node.operator, node.left, node.right
            if isinstance(operator, (cst.Add, cst.Subtract)):
                return self._zero_outside(left, leaves) and self._zero_outside(right, leaves)
            if isinstance(operator, cst.Multiply):
                if _literal(left) is not None:
                    return self._zero_outside(right, leaves)
                if _literal(right) is not None:
                    return self._zero_outside(left, leaves)
                return self._zero_outside(left, leaves) and self._zero_outside(right, leaves)
            if isinstance(operator, cst.Divide):
                return bool(_literal(right)) and self._zero_outside(left, leaves)
            if isinstance(operator, cst.Power):
                exponent = _literal(right)
                return exponent is not None and exponent > 0 and self._zero_outside(left, leaves)
            return False
        if isinstance(node, cst.Call) and len(node.args) == 1 and node.args[0].keyword is None and not node.args[0].star:
            return self._numpy_name(node.func) in ZERO_FUNCTIONS and self._zero_outside(node.args[0].value, leaves)
        return False

    # --- one prefix: its axis and its bound ---------------------------------------------------------
    def _prefix(self, node: cst.Subscript):
        """(the mask, its loop index, the bound's static part, the atoms to require static) of the prefix or
        suffix ``node``, or None: ``x[:i]``, ``L[i, :j]``, ``A[:i, j]``, ``U[i, i + 1:]``."""
        if not isinstance(node.value, cst.Name) or self._is_python_sequence(node.value) or not self._array_valued(node.value):
            return None
        cut, axis, kept = None, 0, 0
        for position, element in enumerate(node.slice):
            part = element.slice
            if isinstance(part, cst.Index):
                if not _one_axis(part.value) and not self._index_name(part.value):
                    return None  # a None, an Ellipsis, an array: the prefix's axis is not known
                continue
            bound = self._cut_bound(part)
            if bound is not None:
                if cut is not None:
                    return None
                cut, axis = (position, *bound), kept
            elif any(self.tokens(p) for p in (part.lower, part.upper, part.step) if p is not None):
                return None
            kept += 1
        if cut is None:
            return None
        position, suffix, bound = cut
        terms = self._terms(bound)
        if terms is None or not self._never_negative(terms[0], bound):
            return None
        index, rest, atoms = terms
        mask = PrefixMask(position, axis, suffix, self.module.module.code_for_node(bound))
        return mask, (index, kept), frozenset(rest.items()), tuple(atoms.values())

    def _cut_bound(self, part: cst.Slice) -> tuple[bool, cst.BaseExpression] | None:
        """``:b`` or ``0:b`` -> (False, b); ``b:`` -> (True, b), when ``b`` uses a converted loop's index."""
        if part.step is not None:
            return None
        if part.upper is not None and (part.lower is None or _literal(part.lower) == 0):
            bound, suffix = part.upper, False
        elif part.upper is None and part.lower is not None:
            bound, suffix = part.lower, True
        else:
            return None
        return (suffix, bound) if any(t.startswith("<index:") for t in self.tokens(bound)) else None

    def _never_negative(self, index: str, bound: cst.BaseExpression) -> bool:
        """Is ``bound`` (``index`` plus static terms) at least 0 at the smallest ``index`` of its ``range``:
        the start (``range(a, b)``), or the stop plus 1 (``range(a, b, -1)``)?"""
        loop = self.window_loops[index]
        args = [a.value for a in loop.iter.args]
        if self.loops[loop].kind == "reversed":
            stop = self._value_form(args[1], index)
            first = None if stop is None else _plus(stop, {ONE: 1})
        else:
            first = self._value_form(cst.Integer("0") if len(args) == 1 else args[0], index)
        form = self._value_form(bound, index)
        if first is None or form is None or first.get(INDEX) or form.get(INDEX) != 1:
            return False
        return _at_least_zero(_plus(first, {k: v for k, v in form.items() if k != INDEX}))


def _literal(node: cst.BaseExpression) -> float | None:
    """The value of a number literal (``2``, ``0.5``, ``-1``), else None."""
    sign = 1
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, (cst.Minus, cst.Plus)):
        sign = -1 if isinstance(node.operator, cst.Minus) else 1
        node = node.expression
    if isinstance(node, (cst.Integer, cst.Float)):
        return sign * node.evaluated_value
    return None

