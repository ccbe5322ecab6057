"""Parameters used only the way a Python list is used: ``len(hist)`` and ``hist[i]``.

``out[i] = np.dot(hist[i], g)`` in ``for i in range(len(hist))`` works in NumPy
whether ``hist`` is an array or a list of arrays (L-BFGS keeps its history in
lists).  Under ``jax.jit`` a list argument arrives as a list of tracers: a Python
loop indexes it with a Python int, but a ``jax.lax.fori_loop`` would index it with
a traced index, which raises (TracerIntegerConversionError).  Nothing in such a
function says which the caller passes, so a loop as long as the list
(``range(len(hist))``) stays a Python loop: jit unrolls it, exactly right for both
(one copy of the body per element); any other such loop keeps the function
un-jitted (NPJ303).
``jnp.asarray(hist)`` before the loop is not exact: it promotes the elements of a
list of mixed dtypes to one, makes Python floats float64 arrays (NumPy keeps them
weak, so ``np.dot(1.0, g32)`` is float32), and refuses a ragged list.

A parameter counts as used like a list when every occurrence of its name in the
function is ``len(p)``, one plain index ``p[e]`` (not a slice, not a multi-axis
index: a list refuses both), the iterable of a ``for``, or an identity test
``p is None``; any other use (a NumPy call on it, arithmetic, ``.shape``, passing
it on, rebinding it) says it is, or may be, an array.  And some element must be used as
an array of its own (``np.dot(hist[i], g)``, ``hist[i] @ v``, ``len(hist[i])``,
``hist[i].shape``): an element used only as a number (``b[i] - sigma``,
``np.exp(x[i])``) is that of a plain vector, whose loop becomes a fori_loop, as a
loop over a long array should.
"""

from __future__ import annotations

import libcst as cst

from np2jax.analysis.loops import all_names, subscripts
from np2jax.analysis.param_hints import hint_names
from np2jax.analysis.resolve import Resolver, is_numpy
from np2jax.analysis.scope import Scope, ValueBinding
from np2jax.analysis.tracing_tables import ARRAY_HINTS
from np2jax.visitors import child_nodes, inner_nodes

VECTOR_FUNCTIONS = frozenset({"dot", "vdot", "inner", "outer", "matmul", "norm", "cross", "tensordot"})  # of vectors
VECTOR_ATTRIBUTES = frozenset({"shape", "ndim", "size", "T", "dot"})


def list_indexed_at(loop: cst.For, function: cst.FunctionDef, params: dict[str, cst.Param],
                    resolver: Resolver, scope: Scope) -> list[str]:
    """The parameters the body of ``loop`` indexes at the loop's index (``hist[i]``) that ``function`` uses only
    like a list (see the module docstring)."""
    indices = _index_names(loop.target)
    listed: list[str] = []
    for sub in subscripts(loop.body):
        base = sub.value
        if not (isinstance(base, cst.Name) and base.value in params):
            continue
        if not any(name.value in indices for element in sub.slice for name in all_names(element)):
            continue
        if hint_names(params[base.value].annotation) & ARRAY_HINTS:
            continue
        if base.value not in listed and _used_like_list(function.body, base.value, resolver, scope) and _element_is_array(
                function.body, base.value, resolver, scope):
            listed.append(base.value)
    return listed


def counts_elements(iterable: cst.BaseExpression, names: list[str], resolver: Resolver, scope: Scope) -> bool:
    """Is ``iterable`` a ``range`` whose bounds come from ``len(name)`` of one of ``names`` (``range(len(hist))``,
    ``range(m - 1, -1, -1)`` with ``m = len(hist)``): a loop as long as a list, unrolled like a loop over it?"""
    if not (isinstance(iterable, cst.Call) and resolver.qualname(iterable.func, scope) == "builtins.range"):
        return False
    return any(_mentions_len(arg.value, name, resolver, scope, follow=True) for arg in iterable.args for name in names)


def _mentions_len(node: cst.CSTNode, name: str, resolver: Resolver, scope: Scope, follow: bool) -> bool:
    """``len(name)`` in ``node``, or in the one value of a name it reads (when ``follow``)."""
    if isinstance(node, cst.Call) and _is_name(_only_argument(node), name) and resolver.qualname(node.func, scope) == "builtins.len":
        return True
    if follow and isinstance(node, cst.Name):
        found, bindings = scope.lookup(node.value)
        if found is scope and len(bindings) == 1 and isinstance(bindings[0], ValueBinding) and not bindings[0].augmented:
            return _mentions_len(bindings[0].value, name, resolver, scope, follow=False)
    return any(_mentions_len(child, name, resolver, scope, follow) for child in child_nodes(node))


def _element_is_array(node: cst.CSTNode, name: str, resolver: Resolver, scope: Scope) -> bool:
    """Is some element ``name[e]`` used as an array of its own in ``node``: an operand of ``@``, of ``np.dot``
    (``VECTOR_FUNCTIONS``), of ``len()``, or asked for ``.shape``?  An element used only as a number (``b[i] -
    sigma``, ``np.exp(x[i])``) is that of a plain vector: an array, which a fori_loop indexes."""
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.MatrixMultiply):
        if _is_element(node.left, name) or _is_element(node.right, name):
            return True
    if isinstance(node, cst.Call) and any(_is_element(a.value, name) for a in node.args):
        qualname = resolver.qualname(node.func, scope) or ""
        if qualname == "builtins.len" or qualname.rsplit(".", 1)[-1] in VECTOR_FUNCTIONS and (
                is_numpy(qualname) or qualname.startswith("jax.numpy.")):
            return True
    if isinstance(node, cst.Attribute) and _is_element(node.value, name) and node.attr.value in VECTOR_ATTRIBUTES:
        return True
    return any(_element_is_array(child, name, resolver, scope) for child in child_nodes(node))


def _is_element(node: cst.BaseExpression, name: str) -> bool:
    return isinstance(node, cst.Subscript) and _is_name(node.value, name)


def _index_names(target: cst.BaseAssignTargetExpression) -> set[str]:
    """``i`` of ``for i in range(n)``, ``k`` of ``for k, v in enumerate(x)``."""
    if isinstance(target, cst.Name):
        return {target.value}
    if isinstance(target, cst.Tuple) and target.elements and isinstance(target.elements[0].value, cst.Name):
        return {target.elements[0].value.value}
    return set()


def _used_like_list(node: cst.CSTNode, name: str, resolver: Resolver, scope: Scope) -> bool:
    """Is every occurrence of ``name`` in ``node`` one a Python list allows?"""
    kind = type(node)
    if kind is cst.Name:
        return node.value != name
    if kind is cst.Call and _is_name(_only_argument(node), name) and resolver.qualname(node.func, scope) == "builtins.len":
        return True
    if kind is cst.Subscript and _is_name(node.value, name):
        index = node.slice[0].slice if len(node.slice) == 1 else None
        return isinstance(index, cst.Index) and _used_like_list(index.value, name, resolver, scope)
    if isinstance(node, cst.For) and _is_name(node.iter, name):
        return all(_used_like_list(child, name, resolver, scope) for child in child_nodes(node) if child is not node.iter)
    if isinstance(node, cst.Comparison) and _is_name(node.left, name) and len(node.comparisons) == 1:
        comparison = node.comparisons[0]
        return (isinstance(comparison.operator, (cst.Is, cst.IsNot)) and isinstance(comparison.comparator, cst.Name)
                and comparison.comparator.value == "None")
    return all(_used_like_list(child, name, resolver, scope) for child in inner_nodes(node))  # (trivia: no use)


def _only_argument(call: cst.Call) -> cst.BaseExpression | None:
    if len(call.args) == 1 and call.args[0].keyword is None and not call.args[0].star:
        return call.args[0].value
    return None


def _is_name(node: cst.BaseExpression | None, name: str) -> bool:
    return isinstance(node, cst.Name) and node.value == name


def used_like_string(body: cst.CSTNode, name: str, resolver: Resolver, scope: Scope) -> bool:
    """Is parameter ``name`` used only as a Python string allows, and its elements compared (``len(a)``,
    ``a[i - 1] == b[j - 1]``)?  Edit distances and alignments take strings: jax.jit cannot take a str argument
    (nor trace one), though NumPy code indexing it works."""
    return _string_uses(body, name, resolver, scope) and _compares_elements(body, name)


def _string_uses(node: cst.CSTNode, name: str, resolver: Resolver, scope: Scope) -> bool:
    kind = type(node)  # (exact types: none of these has subclasses, and libcst's isinstance is slow)
    if kind is cst.Name:
        return node.value != name
    if kind is cst.Call and _is_name(_only_argument(node), name) and resolver.qualname(node.func, scope) == "builtins.len":
        return True
    if kind is cst.Comparison and all(isinstance(c.operator, (cst.Equal, cst.NotEqual)) for c in node.comparisons):
        sides = [node.left, *(c.comparator for c in node.comparisons)]
        return all(_string_uses(side.slice[0].slice.value, name, resolver, scope) if _plain_element(side, name)
                   else _string_uses(side, name, resolver, scope) for side in sides)
    return all(_string_uses(child, name, resolver, scope) for child in inner_nodes(node))  # (trivia: no use)


def _plain_element(node: cst.BaseExpression, name: str) -> bool:
    return _is_element(node, name) and len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Index)


def _compares_elements(node: cst.CSTNode, name: str) -> bool:
    if isinstance(node, cst.Comparison) and any(
            _plain_element(side, name) for side in (node.left, *(c.comparator for c in node.comparisons))):
        return True
    return any(_compares_elements(child, name) for child in child_nodes(node))
