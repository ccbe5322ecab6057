"""Parameters of a jitted function a caller may give as a Python list: ``v = jnp.asarray(v)`` first.

``def cross(v1, v2): return np.cross(v1, v2)`` works in NumPy when called as
``cross([1., 0., 0.], [0., 1., 0.])``: NumPy converts a list wherever it takes an
array.  Under ``jax.jit`` a list argument arrives as a list of tracers, and
``jnp.cross`` refuses it (``TypeError: cross requires ndarray or scalar
arguments``); so does the arithmetic of a ``jax.Array`` (``v - jnp.mean(v)``).
The migrated function therefore converts such a parameter once, first thing:
``v1 = jnp.asarray(v1)``.  Given an array, that is the identity (a traced array
stays what it is, a Python number stays weakly typed); given a list it is what
NumPy did at each use, as long as every use of the parameter is one where
NumPy converts a list exactly like ``np.asarray``:

* an array argument of a NumPy function (``np.sum(v)``, ``np.dot(a, v)``,
  ``np.asarray(v)``), not one that takes a sequence of arrays (``np.stack(vs)``
  stacks a ragged list that ``asarray`` refuses);
* ``len(v)``;
* arithmetic Python refuses for a list: ``-``, ``/``, ``//``, ``**``, ``@`` with
  anything, ``-v``; ``+`` and the orderings only beside a number or a NumPy value
  (``a + b`` of two lists concatenates them, ``a < b`` compares them as
  sequences); ``*`` only beside a float or an array made by NumPy
  (``v * 2`` repeats a list); ``==``/``!=`` only beside a NumPy value.

An index by a traced value (``x[n - k]`` in a ``for n in range(len(x))`` that becomes
a ``jax.lax.fori_loop``, ``x[k]`` with ``k = np.searchsorted(...)``) and a loop
over the parameter that becomes one count as converting too: a list takes no
traced index, so no caller's list worked there before.  Beside such an index, an
element at a constant one, ``x = zs[0]``, reads the same elements as ``zs[k]``
does and converts too.  The parameter as an
index, ``c[labels]``, does not: a tuple there is a multi-axis index in NumPy,
``c[0, 1]``, and converted it would pick rows.

Any other use (another index, an attribute, a loop over it, ``return v``, a call of
a function of the module, a rebinding) leaves the parameter alone: an element
of a list of Python floats is a weakly typed number, a returned list is the
caller's own object.  An annotation that says array or number, a default, or
``*args`` leaves it alone too.  The conversion is only written where it makes a
difference: something in the migrated function refuses a list (a NumPy call
jax.numpy refuses it at, arithmetic with a value that is not a Python number),
and nothing in the original did (``v ** 2``, ``v - 1.0``, ``-v``: Python
refuses a list there, so callers pass arrays).

NumPy and JAX make different dtypes of a few lists: one mixing NumPy scalars
with Python numbers follows JAX's promotion (``[np.float32(1), 2.0]`` is float32,
NumPy's float64; ``[np.int32(7), 2**40]`` is int32 and wraps, NumPy's int64).
"""

from __future__ import annotations

import libcst as cst

from np2jax.analysis.jit_plan import LoopConversion
from np2jax.analysis.loops import all_names, descendants
from np2jax.analysis.list_operands import ARRAY_CONSTRUCTORS, NOT_ARRAY_FUNCTIONS
from np2jax.analysis.param_kinds import top_hints
from np2jax.analysis.resolve import Resolver
from np2jax.analysis.scope import ParamBinding, Scope, ValueBinding
from np2jax.analysis.value_kinds import ValueClassifier
from np2jax.analysis.values import nodes_of
from np2jax.tables import lookup_numpy, positional_parameter
from np2jax.tables.jax_signatures import SIGNATURES
from np2jax.visitors import child_nodes, inner_nodes

# NumPy functions that take a sequence of arrays (which may be ragged) where others take one array.
SEQUENCE_OF_ARRAYS = frozenset(
    "concatenate stack hstack vstack dstack column_stack row_stack block select piecewise broadcast_arrays "
    "meshgrid ix_ einsum lexsort savez savez_compressed histogramdd".split()  # (a list `(xs, ys)` is D coordinates)
) | frozenset("apply_over_axes apply_along_axis fromfunction vectorize frompyfunc".split())  # (and callables)
# Positions jax.numpy refuses a list at that are no array data: a count, an axis, a callable, a shape, bins
# (`np.histogram(x, 10)`: a static int), indices to delete, repetitions.
NOT_DATA = frozenset("n N axis func function mask_func start stop bins repeats prototype sample obj".split())
# The signatures (as SIGNATURES holds them) of NumPy functions with no jax.numpy row that another rule rewrites to a
# twin: `np.bincount(x, minlength=k)` -> `jnp.bincount(x, minlength=k, length=k)` (NPJ102), which refuses a list x
TWINS = {"numpy.bincount": (3, ("x", "weights", "minlength", "length"), (0, 1), ())}
# NumPy functions that read a list's shape as they read its array's (kept NumPy: they give static values).
SHAPE_FUNCTIONS = frozenset({"numpy.shape", "numpy.size", "numpy.ndim"})
# Parameter names (of jax.numpy's signatures) that take array data, also where jax.numpy takes a list.
ARRAY_DATA = frozenset("a x y x1 x2 arr ary m v b object condition weights xp fp".split())
# Annotations that rule a list out.
NOT_LIST_HINTS = frozenset("ndarray Array float int complex bool Number Real".split())
_REFUSING = (cst.Subtract, cst.Divide, cst.FloorDivide, cst.Power, cst.MatrixMultiply)
_ORDERINGS = (cst.LessThan, cst.LessThanEqual, cst.GreaterThan, cst.GreaterThanEqual)
_NUMBERS = (cst.Integer, cst.Float, cst.Imaginary)
_KINDS = frozenset({cst.Name, cst.Call, cst.Attribute, cst.BinaryOperation, cst.UnaryOperation, cst.Comparison, cst.Arg,
                    cst.Subscript})


def list_arguments(function: cst.FunctionDef, resolver: Resolver, loops: dict[cst.For, LoopConversion]) -> tuple[str, ...]:
    """The parameters of ``function`` to convert with ``jnp.asarray`` first when it is jitted with ``loops``
    becoming fori_loops (module docstring), in signature order; remembered per function."""
    cache = resolver.memo.setdefault("list_arguments", {})
    found = cache.get(function)
    if found is None:
        found = cache[function] = _Uses(function, resolver, _traced_indexing(loops)).convertible()
    return found


def _traced_indexing(loops: dict[cst.For, LoopConversion]) -> set[int]:
    """The ``x[i]``, ``x[n - k]`` in the body of a loop over ``range`` that becomes a fori_loop, ``i``/``n`` its
    step; and the ``xs`` of a ``for v in xs`` (``enumerate(xs)``, ``zip(xs, ys)``) that becomes one (``v = xs[i]``)."""
    found: set[int] = set()
    for loop, conversion in loops.items():
        if conversion.kind not in ("range", "reversed"):
            iterable = loop.iter
            if isinstance(iterable, cst.Call) and isinstance(iterable.func, cst.Name) and iterable.func.value in (
                    "enumerate", "zip"):
                found.update(id(arg.value) for arg in iterable.args if isinstance(arg.value, cst.Name))
            elif isinstance(iterable, cst.Name):
                found.add(id(iterable))
            continue
        for node in descendants(loop.body):
            if (isinstance(node, cst.Subscript) and isinstance(node.value, cst.Name) and len(node.slice) == 1
                    and isinstance(node.slice[0].slice, cst.Index)
                    and any(name.value == conversion.index for name in all_names(node.slice[0].slice.value))):
                found.add(id(node))
    return found


class _Uses:
    def __init__(self, function: cst.FunctionDef, resolver: Resolver, traced_indexing: set[int]) -> None:
        self.function = function
        self.resolver = resolver
        self.scope = resolver.scopes[function]
        self.values = ValueClassifier(resolver)
        self.traced_indexing = traced_indexing
        self.element_reads: dict[str, list[int]] = {}  # `zs[0]`: allowed beside a traced index `zs[k]`
        self.traced_reads: set[str] = set()

    def convertible(self) -> tuple[str, ...]:
        params = self.function.params
        candidates = {
            p.name.value for p in (*params.posonly_params, *params.params, *params.kwonly_params)
            if p.default is None and not top_hints(p.annotation) & NOT_LIST_HINTS
        }
        candidates = {name for name in candidates if all(isinstance(b, ParamBinding) for b in self.scope.bindings.get(name, ()))}
        if candidates:
            candidates -= _nested_names(self.function)  # (a closure sees the parameter too)
        if not candidates:
            return ()
        occurrences: dict[str, list[int]] = {name: [] for name in candidates}
        allowed: set[int] = set()
        refused: set[str] = set()  # a list reaches something that refuses it
        listless: set[str] = set()  # the original refuses a list too
        skip: set[int] = set()  # names that are no reference: `x.v`'s `v`, `f(v=1)`'s `v`
        for node, scope in nodes_of(self.function, self.resolver, _KINDS):
            if isinstance(node, cst.Attribute):
                skip.add(id(node.attr))
            elif isinstance(node, cst.Arg) and node.keyword is not None:
                skip.add(id(node.keyword))
            elif isinstance(node, cst.Name):
                if id(node) in self.traced_indexing and node.value in candidates:
                    allowed.add(id(node))  # `for v in xs` as a fori_loop reads `xs[i]`: no list takes a traced index
                    refused.add(node.value)
                if node.value in occurrences and id(node) not in skip:
                    owner, _ = scope.lookup(node.value)
                    if owner is not self.scope:  # a comprehension's own `v`
                        candidates.discard(node.value)
                    occurrences[node.value].append(id(node))
            elif isinstance(node, cst.Call):
                self._call(node, scope, candidates, allowed, refused)
            elif isinstance(node, cst.Subscript):
                self._subscript(node, scope, candidates, allowed, refused)
            elif isinstance(node, cst.BinaryOperation):
                self._operation(node.left, node.right, node.operator, scope, candidates, allowed, refused, listless)
                self._operation(node.right, node.left, node.operator, scope, candidates, allowed, refused, listless)
            elif isinstance(node, cst.UnaryOperation) and isinstance(node.operator, (cst.Minus, cst.Plus, cst.BitInvert)):
                if _param(node.expression, candidates):
                    listless.add(node.expression.value)
            elif isinstance(node, cst.Comparison) and len(node.comparisons) == 1:
                operator, right = node.comparisons[0].operator, node.comparisons[0].comparator
                self._comparison(node.left, right, operator, scope, candidates, allowed, refused, listless)
                self._comparison(right, node.left, operator, scope, candidates, allowed, refused, listless)
        for name in self.traced_reads:
            allowed.update(self.element_reads.get(name, ()))
        names = [p.name.value for p in (*params.posonly_params, *params.params, *params.kwonly_params)]
        return tuple(name for name in names if name in candidates and name in refused and name not in listless
                     and occurrences[name] and all(i in allowed for i in occurrences[name]))

    def _call(self, node: cst.Call, scope: Scope, candidates: set[str], allowed: set[int], refused: set[str]) -> None:
        given = [arg for arg in node.args if _param(arg.value, candidates)]
        if not given:
            return
        qualname = self.resolver.qualname(node.func, scope) or ""
        if qualname == "builtins.len" and len(node.args) == 1:
            allowed.add(id(node.args[0].value))
            return
        if qualname in SHAPE_FUNCTIONS and len(node.args) == 1 and not node.args[0].star:
            allowed.add(id(node.args[0].value))
            return
        row = lookup_numpy(qualname) if qualname.startswith("numpy.") else None
        signature = SIGNATURES.get(row.jax) if row is not None and row.jax else TWINS.get(qualname)
        if signature is None or qualname.rsplit(".", 1)[-1] in SEQUENCE_OF_ARRAYS:
            return
        _, names, rejects_list, _ = signature
        for index, arg in enumerate(node.args):
            if arg not in given or arg.star:
                continue
            if arg.keyword is not None:
                position = names.index(arg.keyword.value) if arg.keyword.value in names else -1
                name = arg.keyword.value
            else:
                position, name = index, positional_parameter(names, index)
            if position in rejects_list and name not in NOT_DATA:
                refused.add(arg.value.value)
                allowed.add(id(arg.value))
            elif name in ARRAY_DATA:
                allowed.add(id(arg.value))

    def _subscript(self, node: cst.Subscript, scope: Scope, candidates: set[str], allowed: set[int], refused: set[str]) -> None:
        """``x[n]`` with a traced ``n`` (a fori_loop's step, a NumPy result: ``k = np.searchsorted(...)``): no list
        takes a traced index.  (Not the parameter as the index, ``c[labels]``: NumPy indexes with a list as with
        the array of it, but with a tuple, ``(0, 1)``, as ``c[0, 1]``.)"""
        index = node.slice[0].slice if len(node.slice) == 1 else None
        index = index.value if isinstance(index, cst.Index) else None
        if not _param(node.value, candidates):
            return
        if id(node) in self.traced_indexing or self._traced_value(index, scope):
            allowed.add(id(node.value))
            refused.add(node.value.value)
            self.traced_reads.add(node.value.value)
        elif _integer(index):
            self.element_reads.setdefault(node.value.value, []).append(id(node.value))

    def _traced_value(self, node: cst.BaseExpression | None, scope: Scope) -> bool:
        """A NumPy result, a name bound only to NumPy results, or arithmetic on one: traced under jax.jit."""
        if isinstance(node, cst.BinaryOperation):
            return self._traced_value(node.left, scope) or self._traced_value(node.right, scope)
        if isinstance(node, cst.Name):
            owner, bindings = scope.lookup(node.value)
            return owner is self.scope and bool(bindings) and all(
                isinstance(b, ValueBinding) and not b.augmented and self._numpy_value(b.value, owner) for b in bindings)
        return node is not None and self._numpy_value(node, scope)

    def _operation(self, side: cst.BaseExpression, other: cst.BaseExpression, operator: cst.BaseBinaryOp, scope: Scope,
                   candidates: set[str], allowed: set[int], refused: set[str], listless: set[str]) -> None:
        if not _param(side, candidates):
            return
        if self._python_number(other, scope) and isinstance(operator, (*_REFUSING, cst.Add, cst.Multiply)):
            listless.add(side.value)  # `v ** 2`, `v - 1.0`, `v * 0.5`: Python refuses a list (`v * 2` repeats it)
            return
        if isinstance(operator, _REFUSING):
            ok = True
        elif isinstance(operator, cst.Add):
            ok = self._no_list(other, scope)
        elif isinstance(operator, cst.Multiply):
            ok = self._no_repeat(other, scope)
        else:
            return
        if ok:
            allowed.add(id(side))
            refused.add(side.value)

    def _comparison(self, side: cst.BaseExpression, other: cst.BaseExpression, operator: cst.BaseCompOp, scope: Scope,
                    candidates: set[str], allowed: set[int], refused: set[str], listless: set[str]) -> None:
        if not _param(side, candidates):
            return
        if isinstance(operator, _ORDERINGS) and self._python_number(other, scope):
            listless.add(side.value)  # `v < 1.0`: Python refuses to order a list and a number
            return
        if isinstance(operator, (*_ORDERINGS, cst.Equal, cst.NotEqual)) and self._numpy_value(other, scope):
            allowed.add(id(side))  # (`v == 1.0` is False for a list, `v < w` compares two lists: neither converts)
            refused.add(side.value)

    def _python_number(self, node: cst.BaseExpression, scope: Scope) -> bool:
        """A number literal or a name bound only to Python numbers (weak: a list meets it, not NumPy)."""
        if isinstance(node, cst.UnaryOperation):
            node = node.expression
        if isinstance(node, _NUMBERS):
            return True
        value = self.values.value(node, scope)
        return value.numeric and value.weak

    def _no_list(self, node: cst.BaseExpression, scope: Scope) -> bool:
        """A number or a NumPy value: ``v + it`` is no concatenation."""
        return isinstance(node, _NUMBERS) or self.values.value(node, scope).numeric or self._numpy_value(node, scope)

    def _no_repeat(self, node: cst.BaseExpression, scope: Scope) -> bool:
        """A float or complex number, or an array NumPy made: ``v * it`` repeats no list."""
        if isinstance(node, (cst.Float, cst.Imaginary)):
            return True
        if self.values.value(node, scope).kind in ("float", "complex"):
            return True
        qualname = self.resolver.qualname(node.func, scope) if isinstance(node, cst.Call) else None
        return qualname is not None and qualname.startswith("numpy.") and qualname[len("numpy."):] in ARRAY_CONSTRUCTORS

    def _numpy_value(self, node: cst.BaseExpression, scope: Scope) -> bool:
        """The result of a NumPy function that returns an array or a NumPy number."""
        if isinstance(node, cst.UnaryOperation):
            return self._numpy_value(node.expression, scope)
        if not isinstance(node, cst.Call):
            return False
        qualname = self.resolver.qualname(node.func, scope) or ""
        row = lookup_numpy(qualname) if qualname.startswith("numpy.") else None
        return row is not None and row.kind in ("function", "constructor") and qualname[len("numpy."):] not in NOT_ARRAY_FUNCTIONS


def _nested_names(function: cst.FunctionDef) -> set[str]:
    """The names used in the functions and classes defined inside ``function``."""
    names: set[str] = set()
    stack = list(child_nodes(function.body))
    while stack:
        node = stack.pop()
        if isinstance(node, (cst.FunctionDef, cst.ClassDef)):
            names.update(name.value for name in all_names(node))
        else:
            stack.extend(inner_nodes(node))
    return names


def _integer(node: cst.BaseExpression | None) -> bool:
    """An integer literal, ``0`` or ``-1``."""
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
        node = node.expression
    return isinstance(node, cst.Integer)


def _param(node: cst.BaseExpression, candidates: set[str]) -> bool:
    return isinstance(node, cst.Name) and node.value in candidates
