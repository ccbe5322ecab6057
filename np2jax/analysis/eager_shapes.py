"""Loops that make arrays of a new shape at every step: slow in a function that is not jitted.

Eager jax.numpy compiles one XLA kernel per operation and shape; NumPy has nothing to compile.  A loop of
a function left un-jitted whose body slices with a length that changes with the step (``x[i + 1:]``,
``d[idx:idx + len(j)]``) or builds an array of such a length (``np.arange(i + 1, n)``) compiles new kernels
at every step: measured on a 2-core CPU, 100 steps of ``y[i:]`` take 5 s and of ``d.at[i:2 * i].set(1.0)``
10 s, where fixed-length windows (``x[i:i + 3]``) take 0.06 s.  pymannkendall's Sen's slope estimator went
from milliseconds to minutes.  Such a function is better left as NumPy code (kept_numpy.py: NPJ304).  So is one whose
loop writes into array elements (``out[i] = a * x[i] + (1 - a) * out[i - 1]``): outside jit every ``.at[i].set``
copies the whole array and dispatches a kernel, so an EMA of 2,000 samples took 6 s where NumPy takes 2 ms.

Left as NumPy code, the function must still be handed NumPy arrays: a JAX array refuses item assignment
(``out = x.copy()`` of one is one too), and NumPy functions hand it to its own methods (``np.cumsum`` of a JAX
uint8 array wraps).  So its callers stay NumPy code too (propagation.py, ``FunctionInfo.kept_numpy``).

A length counts as changing when a bound of a slice without a step (or an argument of the constructor) mentions a name
the loop changes (its target, or a name the body assigns) and the length is not a constant offset
(``x[i:i + 3]``, ``x[i - k:i + k + 1]`` with ``k`` not changed by the loop).
"""

from __future__ import annotations

import libcst as cst

from np2jax.analysis.loops import all_names, descendants
from np2jax.analysis.resolve import Resolver, is_numpy
from np2jax.analysis.scope import Scope

# NumPy constructors whose arguments are sizes.
SIZED_CONSTRUCTORS = frozenset({"arange", "zeros", "ones", "empty", "full", "linspace", "eye", "identity", "tri"})
SMALL_LOOP = 8  # a `range` of literals with at most this many steps costs little even eagerly


def element_write(loop: cst.For | cst.While) -> cst.CSTNode | None:
    """The first write in ``loop``'s body into array elements that change with the step (``out[i] = v``,
    ``acc[k] += v`` with ``k`` set in the body), unless the loop is a short ``range`` of literals.  A write at a
    fixed index (``lap[1:-1] = ...``) is a whole-array operation per step, as the rest of the body likely is."""
    if isinstance(loop, cst.For) and _short_literal_range(loop.iter):
        return None
    varying = _changed_names(loop)
    for node in descendants(loop.body):
        if isinstance(node, cst.Assign):
            targets = [t.target for t in node.targets]
        elif isinstance(node, cst.AugAssign):
            targets = [node.target]
        else:
            continue
        if any(isinstance(t, cst.Subscript) and any(_mentions(e, varying) for e in t.slice) for t in targets):
            return node
    return None


def _short_literal_range(iterable: cst.BaseExpression) -> bool:
    if not (isinstance(iterable, cst.Call) and isinstance(iterable.func, cst.Name) and iterable.func.value == "range"):
        return False
    bounds = [arg.value for arg in iterable.args]
    if not bounds or len(bounds) > 3 or not all(isinstance(b, cst.Integer) for b in bounds):
        return False
    return len(range(*(int(b.value, 0) for b in bounds))) <= SMALL_LOOP


def varying_shape(loop: cst.For | cst.While, resolver: Resolver, scope: Scope) -> cst.CSTNode | None:
    """The first slice or constructor in ``loop``'s body whose length changes from one step to the next."""
    varying = _changed_names(loop)
    if not varying:
        return None
    for node in descendants(loop.body):
        if isinstance(node, cst.Subscript):
            for element in node.slice:
                part = element.slice
                if isinstance(part, cst.Slice) and _length_varies(part, varying):
                    return node
        elif isinstance(node, cst.Call):
            qualname = resolver.qualname(node.func, scope) or ""
            if is_numpy(qualname) and qualname.rsplit(".", 1)[-1] in SIZED_CONSTRUCTORS and any(
                    _mentions(arg.value, varying) for arg in node.args if arg.keyword is None or arg.keyword.value != "dtype"):
                return node
    return None


def _changed_names(loop: cst.For | cst.While) -> set[str]:
    names = {n.value for n in all_names(loop.target)} if isinstance(loop, cst.For) else set()
    for node in descendants(loop.body):
        targets: list[cst.BaseExpression] = []
        if isinstance(node, cst.Assign):
            targets = [t.target for t in node.targets]
        elif isinstance(node, (cst.AugAssign, cst.AnnAssign)):
            targets = [node.target]
        elif isinstance(node, (cst.For, cst.CompFor)):
            targets = [node.target]
        for target in targets:
            if isinstance(target, (cst.Name, cst.Tuple, cst.List)):
                names |= {n.value for n in all_names(target)}
    return names


def _mentions(node: cst.CSTNode, names: set[str]) -> bool:
    return any(n.value in names for n in all_names(node))


def _length_varies(part: cst.Slice, varying: set[str]) -> bool:
    lower, upper = part.lower, part.upper
    if part.step is not None:
        return False  # `detr[k::period]` for k < period: a length or two, not one per step
    if not any(bound is not None and _mentions(bound, varying) for bound in (lower, upper)):
        return False
    if lower is None or upper is None:
        return True  # `x[i + 1:]`, `x[:i]`
    return not _constant_offset(lower, upper, varying)


def _constant_offset(lower: cst.BaseExpression, upper: cst.BaseExpression, varying: set[str]) -> bool:
    """``upper - lower`` is the same at every step: ``i:i + 3``, ``i - k:i + k + 1`` with ``k`` fixed."""
    def terms(expr: cst.BaseExpression, sign: int, into: list[tuple[int, str, cst.BaseExpression]]) -> None:
        if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, (cst.Add, cst.Subtract)):
            terms(expr.left, sign, into)
            terms(expr.right, sign if isinstance(expr.operator, cst.Add) else -sign, into)
        else:
            into.append((sign, cst.Module([]).code_for_node(expr).strip(), expr))

    low: list[tuple[int, str, cst.BaseExpression]] = []
    high: list[tuple[int, str, cst.BaseExpression]] = []
    terms(lower, 1, low)
    terms(upper, 1, high)
    remaining = list(high)
    for sign, code, node in low:
        same = next((term for term in remaining if term[:2] == (sign, code)), None)
        if same is not None:
            remaining.remove(same)
        else:
            remaining.append((-sign, code, node))
    return not any(_mentions(node, varying) for _, _, node in remaining)
