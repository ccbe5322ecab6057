"""Results of same-module calls that a function writes into in place.

A function left as NumPy code that does ``p = softmax(z)`` and then ``p[i] -= 1``
(or ``p.sort()``, ``np.fill_diagonal(p, 0)``, ``np.add.at(p, i, 1)``, ``out=p``) relies on ``softmax`` returning a NumPy array.  If ``softmax`` migrates, it returns
an immutable JAX array and the write raises at run time.  The engine keeps such
callees as NumPy code too (see ``engine._callees_written_by_unsupported``).
"""

from __future__ import annotations

import libcst as cst

from np2jax.visitors import FastVisitor, visit

INPLACE_METHODS = frozenset(  # NumPy array methods that change the array in place
    {"sort", "fill", "put", "itemset", "partition", "resize", "setflags", "byteswap"})
INPLACE_FUNCTIONS = frozenset(  # NumPy functions that change their first argument in place (see NPJ111)
    {"copyto", "putmask", "place", "put", "put_along_axis", "fill_diagonal", "shuffle"})


def callees_whose_results_are_written(function: cst.FunctionDef, callee_of) -> dict[str, cst.CSTNode]:
    """Same-module callee -> the first in-place write into a name bound to its result in ``function``.

    ``callee_of(call)`` names the same-module function a call calls (None for others)."""
    finder = _ResultWrites(callee_of)
    visit(function.body, finder)
    return finder.written


class _ResultWrites(FastVisitor):
    def __init__(self, callee_of) -> None:
        self.callee_of = callee_of
        self.bound: dict[str, str] = {}  # name -> the callee whose result it holds
        self.written: dict[str, cst.CSTNode] = {}

    def visit_Assign(self, node: cst.Assign) -> None:
        callee = self.callee_of(node.value) if isinstance(node.value, cst.Call) else None
        for target in node.targets:
            for name in _names(target.target):
                if callee is not None:
                    self.bound[name] = callee
                else:
                    self.bound.pop(name, None)  # rebound to something else
            if isinstance(target.target, cst.Subscript):
                self._write(target.target.value, node)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        # `p[i] -= v` fails on a JAX array; `p += v` on the name rebinds it (and strings, numbers do the same)
        if isinstance(node.target, cst.Subscript):
            self._write(node.target.value, node)

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if isinstance(func, cst.Attribute) and func.attr.value in INPLACE_METHODS:
            self._write(func.value, node)
        if _writes_first_argument(func) and node.args and node.args[0].keyword is None:
            self._write(node.args[0].value, node)  # np.fill_diagonal(p, 0), np.add.at(p, i, 1)
        for arg in node.args:
            if arg.keyword is not None and arg.keyword.value == "out":
                for name in _names(arg.value):
                    self._write_name(name, node)

    def _write(self, target: cst.BaseExpression, node: cst.CSTNode) -> None:
        if isinstance(target, cst.Name):
            self._write_name(target.value, node)

    def _write_name(self, name: str, node: cst.CSTNode) -> None:
        if name in self.bound:
            self.written.setdefault(self.bound[name], node)


def _writes_first_argument(func: cst.BaseExpression) -> bool:
    """``np.fill_diagonal``, ``np.copyto`` ... or a ufunc's ``.at`` (``np.add.at``): writes into its first argument."""
    if not isinstance(func, cst.Attribute):
        return False
    return func.attr.value in INPLACE_FUNCTIONS or (func.attr.value == "at" and isinstance(func.value, cst.Attribute))


def _names(target: cst.BaseExpression) -> list[str]:
    if isinstance(target, cst.Name):
        return [target.value]
    if isinstance(target, (cst.Tuple, cst.List)):
        return [name for element in target.elements for name in _names(element.value)]
    return []
