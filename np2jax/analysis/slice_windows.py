"""Slices at a fori_loop index that become ``jax.lax.dynamic_slice_in_dim``: fixed-size windows proven in bounds.

``x[i:i + w]`` in a loop that becomes ``jax.lax.fori_loop`` needs the traced index
``i`` as a slice bound, which jit refuses (NPJ303).  When the window's length is
static (``(i + w) - i``), ``jax.lax.dynamic_slice_in_dim(x, i, w)`` reads the same
elements *as long as the window lies inside the array*: NumPy cuts a slice that runs
past the end (and wraps a negative start), dynamic_slice moves the start so that the
window keeps its length.  So a window is converted only with a proof, from the loop's
``range`` and the array's length along that axis, that every step's window is inside:

* its start ``i + a`` is at least 0 at the first step: ``lower + a >= 0``;
* its stop ``i + b`` is at most ``len`` at the last step: ``len - (upper - 1 + b) >= 0``.

Both sides are linear forms over *atoms*: integers, shapes (``x.shape[k]``, ``len(x)``,
``h, w = x.shape``), parameters and names assigned once outside any loop (followed to
their values), so that ``n = x.shape[0]; for i in range(n - w + 1): x[i:i + w]`` is
proven by cancellation.  A form is at least 0 when its constant is and every atom left
has a positive factor and is a shape.  The window's length itself is not proven
positive (``w`` is usually a parameter): a negative one makes dynamic_slice raise at
trace time (it never reads other elements).  A window longer than the array is only
possible when the loop runs no step; the loop then runs under ``if lower < upper:``,
since jax traces a fori_loop body even for zero steps (``LoopConversion.guard``).
Every other slice at the index (a growing prefix ``x[:i]``, a step, a carried bound)
stays a requirement that blocks jit (NPJ303).
"""

from __future__ import annotations

from dataclasses import replace

import libcst as cst

from np2jax.analysis.jit_plan import SliceWindow
from np2jax.analysis.loops import contains
from np2jax.analysis.scope import ParamBinding, ValueBinding
from np2jax.analysis.tracing_tables import ARRAY, STATIC_INSTEAD, VALUE_INSTEAD
from np2jax.visitors import FastVisitor, child_nodes, visit

INDEX = "<index>"  # the loop index's key in a linear form
ONE = "<1>"  # the constant's key
_PURE_CALLS = frozenset({"builtins.len", "builtins.min", "builtins.max", "builtins.abs"})

Linear = dict  # key (INDEX, ONE, an atom) -> integer factor


class SliceWindows:
    """The window visitor part of ``FunctionTracing`` (analysis/function_tracing.py).

    ``window_loops`` maps the index of each converted ``range`` loop being visited to
    the loop; ``windows`` the subscripts that become dynamic slices.
    """

    def _init_windows(self) -> None:
        self.window_loops: dict[str, cst.For] = {}
        self.windows: dict[cst.Subscript, tuple[SliceWindow, ...]] = {}
        self._shadowed: dict[cst.For, cst.For | None] = {}  # an open loop -> the one whose index it shadows
        self._once: dict[str, bool] = {}  # name -> has one value in the whole function
        self._unpacked: dict[int, cst.BaseAssignTargetExpression] | None = None
        self._repeated: list[cst.CSTNode] | None = None  # loops, comprehensions, nested functions

    def open_window_loop(self, node: cst.For) -> None:
        """Called for a loop just converted: a plain ``range`` fori_loop may slice at its index (a reversed one
        may only sum prefixes at it: analysis/prefix_masks.py)."""
        conversion = self.loops[node]
        if conversion.kind in ("range", "reversed") and not conversion.collected and self.scope is self.function_scope:
            self._shadowed[node] = self.window_loops.get(conversion.index)
            self.window_loops[conversion.index] = node

    def leave_For(self, node: cst.For) -> None:
        if node in self._shadowed:
            index = self.loops[node].index
            shadowed = self._shadowed.pop(node)
            if shadowed is None:
                del self.window_loops[index]
            else:
                self.window_loops[index] = shadowed

    def slice_windows(self, node: cst.Subscript) -> set[int]:
        """The positions of ``node``'s slices that become dynamic slices (recorded in ``windows``)."""
        if not self.window_loops or self.scope is not self.function_scope or not isinstance(node.value, cst.Name):
            return set()
        found: list[SliceWindow] = []
        for position, element in enumerate(node.slice):
            index = element.slice
            if isinstance(index, cst.Slice):
                window = self._window(node, position, index)
                if window is not None:
                    found.append(window)
            elif not _one_axis(index.value) and not self._index_name(index.value):
                break  # a None, an Ellipsis or a mask before a window: the window's axis is not its position
        if found:
            self.windows[node] = tuple(found)
        return {w.position for w in found}

    def _index_name(self, node: cst.BaseExpression) -> bool:
        """A converted loop's index: an integer, which takes one axis away."""
        return isinstance(node, cst.Name) and node.value in self.window_loops

    def _window(self, node: cst.Subscript, position: int, part: cst.Slice) -> SliceWindow | None:
        if part.lower is None or part.upper is None or part.step is not None:
            return None
        lower, upper = self._terms(part.lower), self._terms(part.upper)
        if lower is None or upper is None or lower[0] != upper[0]:
            return None
        index = lower[0]
        loop = self.window_loops[index]
        if self.loops[loop].kind != "range":
            return None
        base = node.value
        if not self._once_bound(base.value) or not self._array_valued(base) or not self._in_bounds(loop, index, base.value, position, part):
            return None
        atoms = {**lower[2], **upper[2]}
        for atom in atoms.values():
            self._require(atom, "slice length", VALUE_INSTEAD)
        conversion = self.loops[loop]
        if not conversion.guard:
            self.loops[loop] = replace(conversion, guard=True)
            for arg in loop.iter.args[:2]:
                self._require(arg.value, "bound of a `range` whose loop slices at its index", STATIC_INSTEAD)
        return SliceWindow(position, _render(_minus(upper[1], lower[1])))

    # --- the emitted form: the index plus static atoms, as written ---------------------------------
    def _terms(self, node: cst.BaseExpression) -> tuple[str, Linear, dict[str, cst.BaseExpression]] | None:
        """``node`` as (loop index, factors of the rest, atom nodes by code): ``i + w - 1`` -> ("i", {"w": 1, ONE: -1},
        {"w": w}).  The index must appear once with factor 1; no other atom may depend on a loop index."""
        atoms: dict[str, cst.BaseExpression] = {}
        indices: set[str] = set()

        def atom(part: cst.BaseExpression):
            if isinstance(part, cst.Name) and part.value in self.window_loops:
                indices.add(part.value)
                return INDEX
            tokens = self.tokens(part)
            if not self._pure(part) or ARRAY in tokens or any(t.startswith("<index:") for t in tokens):
                return None
            code = self.module.module.code_for_node(part)
            atoms[code] = part
            return code

        form = _linear(node, atom)
        if form is None or len(indices) != 1 or form.get(INDEX) != 1:
            return None
        return indices.pop(), {k: v for k, v in form.items() if k != INDEX}, atoms

    def _pure(self, node: cst.CSTNode) -> bool:
        """Names, integers, arithmetic, shapes and ``len``/``min``/``max``/``abs``: evaluating it twice gives the same."""
        if isinstance(node, (cst.Name, cst.Integer)):
            return True
        if isinstance(node, cst.BinaryOperation):
            return self._pure(node.left) and self._pure(node.right)
        if isinstance(node, cst.UnaryOperation):
            return self._pure(node.expression)
        if isinstance(node, cst.Attribute):
            return node.attr.value in ("shape", "ndim", "size") and self._pure(node.value)
        if isinstance(node, cst.Subscript):
            return self._pure(node.value) and all(
                isinstance(e.slice, cst.Index) and isinstance(e.slice.value, cst.Integer) for e in node.slice)
        if isinstance(node, cst.Call):
            return (self.resolver.qualname(node.func, self.scope) in _PURE_CALLS
                    and all(a.keyword is None and not a.star and self._pure(a.value) for a in node.args))
        return False

    # --- the proof: linear forms over values that are the same wherever they are read ---------------
    def _in_bounds(self, loop: cst.For, index: str, base: str, axis: int, part: cst.Slice) -> bool:
        args = [a.value for a in loop.iter.args]
        start, stop = (cst.Integer("0"), args[0]) if len(args) == 1 else (args[0], args[1])
        forms = [self._value_form(n, index) for n in (start, stop, part.lower, part.upper)]
        if any(f is None for f in forms):
            return False
        first, end, lower, upper = forms
        if first.get(INDEX) or end.get(INDEX) or lower.get(INDEX) != 1 or upper.get(INDEX) != 1:
            return False
        lower = {k: v for k, v in lower.items() if k != INDEX}
        upper = {k: v for k, v in upper.items() if k != INDEX}
        starts_inside = _plus(first, lower)  # the first step's start
        length = self._length_form(base, axis, index, 4)
        stops_inside = _minus(length, _plus(_plus(end, {ONE: -1}), upper))  # len - the last step's stop
        return _at_least_zero(starts_inside) and _at_least_zero(stops_inside)

    def _length_form(self, base: str, axis: int, index: str, depth: int) -> Linear:
        """``base``'s length along ``axis``: for ``p = np.pad(x, widths)`` (x a name with one value), x's length plus
        the widths before and after that axis; else the shape atom itself."""
        atom = {("shape", base, axis): 1}
        binding = self.scope.lookup(base)[1][0]
        value = binding.value if isinstance(binding, ValueBinding) else None
        if depth < 0 or not (isinstance(value, cst.Call) and self.resolver.qualname(value.func, self.scope) == "numpy.pad"):
            return atom
        positional = [a.value for a in value.args if a.keyword is None and not a.star]
        widths = positional[1] if len(positional) > 1 else next(
            (a.value for a in value.args if a.keyword is not None and a.keyword.value == "pad_width"), None)
        inner = positional[0] if positional else None
        if widths is None or not (isinstance(inner, cst.Name) and self._once_bound(inner.value)):
            return atom
        sides = _pad_sides(widths, axis)
        if sides is None:
            return atom
        forms = [self._value_form(side, index) for side in sides]
        if any(form is None or INDEX in form for form in forms):
            return atom
        return _plus(self._length_form(inner.value, axis, index, depth - 1), _plus(forms[0], forms[1]))

    def _value_form(self, node: cst.BaseExpression, index: str) -> Linear | None:
        return _linear(node, lambda part: self._value_atom(part, index, 4))

    def _value_atom(self, node: cst.BaseExpression, index: str, depth: int):
        """The key of a value that is the same wherever it is read (a shape, a parameter, an opaque expression of
        those), or the linear form of a name's one value; None if there is none."""
        if isinstance(node, cst.Name):
            name = node.value
            if name == index:
                return INDEX
            if depth < 0 or not self._once_bound(name):
                return None
            binding = self.scope.lookup(name)[1][0]
            if isinstance(binding, ParamBinding):
                return ("name", name)
            if id(binding.value) in self._tuple_targets():  # one element of a tuple: a shape, else a value of its own
                return self._unpacked_shape(binding.value, name) or ("name", name)
            form = _linear(binding.value, lambda part: self._value_atom(part, index, depth - 1))
            return form if form is not None and INDEX not in form else ("name", name)
        shape = self._shape_atom(node)
        if shape is not None:
            return shape
        if (isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.FloorDivide)
                and isinstance(node.right, cst.Integer) and int(node.right.evaluated_value) > 0):
            numerator = _linear(node.left, lambda part: self._value_atom(part, index, depth - 1))
            if numerator is not None and INDEX not in numerator:  # `k // 2`: a key that knows its numerator
                return ("floordiv", tuple(sorted(numerator.items(), key=repr)), int(node.right.evaluated_value))
        if isinstance(node, cst.BinaryOperation) and self._pure(node) and all(
                self._once_bound(n.value) for n in _value_names(node)) and not any(
                n.value == index for n in _value_names(node)):
            return ("text", self.module.module.code_for_node(node))  # `w // 2`: the same value everywhere
        return None

    def _shape_atom(self, node: cst.BaseExpression):
        """``x.shape[k]`` or ``len(x)`` of a name with one value: ("shape", x, k)."""
        if isinstance(node, cst.Subscript) and len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Index):
            axis = node.slice[0].slice.value
            shape = node.value
            if (isinstance(axis, cst.Integer) and isinstance(shape, cst.Attribute) and shape.attr.value == "shape"
                    and isinstance(shape.value, cst.Name) and self._once_bound(shape.value.value)):
                return ("shape", shape.value.value, int(axis.evaluated_value))
        if (isinstance(node, cst.Call) and len(node.args) == 1 and isinstance(node.args[0].value, cst.Name)
                and node.args[0].keyword is None and not node.args[0].star
                and self.resolver.qualname(node.func, self.scope) == "builtins.len"
                and self._once_bound(node.args[0].value.value)):
            return ("shape", node.args[0].value.value, 0)
        return None

    def _tuple_targets(self) -> dict[int, cst.Tuple | cst.List]:
        """The tuple targets of the function's assignments, by the id of the value assigned."""
        if self._unpacked is None:
            collector = _TupleTargets()
            visit(self.node.body, collector)
            self._unpacked = collector.targets
        return self._unpacked

    def _unpacked_shape(self, value: cst.BaseExpression, name: str):
        """``h, w = x.shape`` (or ``x.shape[:2]``): w is ("shape", x, 1)."""
        target = self._tuple_targets()[id(value)]
        if isinstance(value, cst.Subscript) and len(value.slice) == 1 and isinstance(value.slice[0].slice, cst.Slice):
            part = value.slice[0].slice
            if part.step is not None or not (part.lower is None or (isinstance(part.lower, cst.Integer) and part.lower.value == "0")):
                return None
            value = value.value
        if not (isinstance(value, cst.Attribute) and value.attr.value == "shape" and isinstance(value.value, cst.Name)
                and self._once_bound(value.value.value)):
            return None
        for axis, element in enumerate(target.elements):
            if isinstance(element, cst.StarredElement) or isinstance(element.value, cst.StarredElement):
                return None
            if isinstance(element.value, cst.Name) and element.value.value == name:
                return ("shape", value.value.value, axis)
        return None

    def _once_bound(self, name: str) -> bool:
        """Does ``name`` have one value wherever the function reads it: a parameter never assigned, or a name
        assigned once (not augmented, not in a loop, a comprehension or a nested function: run at most once per call)?"""
        known = self._once.get(name)
        if known is None:
            found, bindings = self.scope.lookup(name)
            known = found is self.function_scope and len(bindings) == 1 and (
                (isinstance(bindings[0], ParamBinding) and name not in self.variadic)
                or (isinstance(bindings[0], ValueBinding) and not bindings[0].augmented
                    and not self._may_repeat(bindings[0].value)))
            self._once[name] = known
        return known

    def _may_repeat(self, node: cst.CSTNode) -> bool:
        if self._repeated is None:
            collector = _Repeated()
            visit(self.node.body, collector)
            self._repeated = collector.nodes
        return any(contains(part, node) for part in self._repeated)


def _linear(node: cst.BaseExpression, atom) -> Linear | None:
    """``node`` as integer factors of keys: integers, ``+``, ``-``, products with an integer; ``atom(n)``
    names the key of anything else (a linear form to expand, or None: not linear)."""
    if isinstance(node, cst.Integer):
        return {ONE: int(node.evaluated_value)}
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, (cst.Minus, cst.Plus)):
        inner = _linear(node.expression, atom)
        return None if inner is None else _scale(inner, -1 if isinstance(node.operator, cst.Minus) else 1)
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, (cst.Add, cst.Subtract)):
        left, right = _linear(node.left, atom), _linear(node.right, atom)
        if left is None or right is None:
            return None
        return _plus(left, right) if isinstance(node.operator, cst.Add) else _minus(left, right)
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Multiply):
        for factor, other in ((node.left, node.right), (node.right, node.left)):
            if isinstance(factor, cst.Integer):
                inner = _linear(other, atom)
                return None if inner is None else _scale(inner, int(factor.evaluated_value))
    key = atom(node)
    if key is None:
        return None
    return dict(key) if isinstance(key, dict) else {key: 1}


def _pad_sides(widths: cst.BaseExpression, axis: int) -> tuple[cst.BaseExpression, cst.BaseExpression] | None:
    """The widths ``np.pad`` adds before and after ``axis``: ``w``, ``(a, b)``, ``(w,)``, ``((a0, b0), (a1, b1))``,
    ``((a, b),)`` (one pair for every axis)."""
    if not isinstance(widths, (cst.Tuple, cst.List)):
        return widths, widths
    elements = [e.value for e in widths.elements]
    if any(isinstance(e, cst.StarredElement) for e in widths.elements):
        return None
    if not any(isinstance(e, (cst.Tuple, cst.List)) for e in elements):
        if len(elements) == 1:
            return elements[0], elements[0]
        return (elements[0], elements[1]) if len(elements) == 2 else None
    if not all(isinstance(e, (cst.Tuple, cst.List)) for e in elements):
        return None
    if len(elements) == 1:
        pair = elements[0]  # one pair for every axis
    elif axis < len(elements):
        pair = elements[axis]
    else:
        return None
    if any(isinstance(e, cst.StarredElement) for e in pair.elements):
        return None
    inner = [e.value for e in pair.elements]
    if len(inner) == 1:
        return inner[0], inner[0]
    return (inner[0], inner[1]) if len(inner) == 2 else None


def _scale(form: Linear, factor: int) -> Linear:
    return {k: v * factor for k, v in form.items() if v * factor}


def _plus(a: Linear, b: Linear) -> Linear:
    result = dict(a)
    for key, value in b.items():
        result[key] = result.get(key, 0) + value
    return {k: v for k, v in result.items() if v}


def _minus(a: Linear, b: Linear) -> Linear:
    return _plus(a, _scale(b, -1))


def _at_least_zero(form: Linear) -> bool:
    """Every atom left is a shape with a positive factor and the constant is at least 0.  A floor division
    ``a // d`` with a factor that is a multiple of ``d`` is first replaced by its lower bound: ``d * (a // d)``
    is at least ``a - (d - 1)`` (``2 * (k // 2) >= k - 1``: a pad of k // 2 each side holds a window of k), and
    ``m // 2 + (m + 1) // 2`` is ``m``."""
    halves = [key for key, factor in form.items() if isinstance(key, tuple) and key[0] == "floordiv"
              and key[2] == 2 and factor == 1]
    for first in halves:
        for second in halves:
            low = dict(first[1])
            if first is not second and first in form and second in form and _plus(dict(second[1]), {ONE: -1}) == low:
                # `m // 2 + (m + 1) // 2 == m`: a pad of k // 2 and (k - 1) // 2 adds k - 1
                form = _plus({k: v for k, v in form.items() if k not in (first, second)}, low)
    for key, factor in list(form.items()):
        if isinstance(key, tuple) and key[0] == "floordiv" and factor > 0 and factor % key[2] == 0:
            bound = _plus(dict(key[1]), {ONE: 1 - key[2]})
            form = _plus({k: v for k, v in form.items() if k != key}, _scale(bound, factor // key[2]))
    return form.get(ONE, 0) >= 0 and all(
        key == ONE or (isinstance(key, tuple) and key[0] == "shape" and factor > 0) for key, factor in form.items())


def _render(form: Linear) -> str:
    """A linear form over code texts as Python: ``{"m": 1, "k": 1, ONE: 1}`` -> ``m + k + 1``."""
    terms: list[tuple[int, str]] = []
    for code, factor in form.items():
        if code == ONE:
            continue
        if not _simple(code):
            code = f"({code})"
        terms.append((factor, code if abs(factor) == 1 else f"{abs(factor)} * {code}"))
    constant = form.get(ONE, 0)
    if constant or not terms:
        terms.append((constant, str(abs(constant))))
    text = ""
    for factor, code in terms:
        if not text:
            text = f"-{code}" if factor < 0 else code
        else:
            text += f" - {code}" if factor < 0 else f" + {code}"
    return text


def _simple(code: str) -> bool:
    """A name, an attribute, a call or an element: no parentheses needed around it in a sum or product."""
    try:
        node = cst.parse_expression(code)
    except cst.ParserSyntaxError:
        return False
    return isinstance(node, (cst.Name, cst.Attribute, cst.Call, cst.Subscript, cst.Integer)) and not node.lpar


def _value_names(node: cst.CSTNode):
    """The names ``node`` reads as values (not the functions it calls)."""
    if isinstance(node, cst.Name):
        yield node
    elif isinstance(node, cst.Call):
        for arg in node.args:
            yield from _value_names(arg.value)
    elif isinstance(node, cst.Attribute):
        yield from _value_names(node.value)
    else:
        for child in child_nodes(node):
            yield from _value_names(child)


def _one_axis(node: cst.BaseExpression) -> bool:
    """An integer literal: it takes exactly one axis away (a None, an Ellipsis or a boolean array would not)."""
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
        node = node.expression
    return isinstance(node, cst.Integer)


class _TupleTargets(FastVisitor):
    def __init__(self) -> None:
        super().__init__()
        self.targets: dict[int, cst.Tuple] = {}

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            if isinstance(target.target, (cst.Tuple, cst.List)):
                self.targets[id(node.value)] = target.target


class _Repeated(FastVisitor):
    """The parts of a function body that may run more than once per call: loops, comprehensions, nested functions."""

    def __init__(self) -> None:
        super().__init__()
        self.nodes: list[cst.CSTNode] = []

    def visit_For(self, node: cst.For) -> None:
        self.nodes.append(node)

    def visit_While(self, node: cst.While) -> None:
        self.nodes.append(node)

    def visit_CompFor(self, node: cst.CompFor) -> None:
        self.nodes.append(node)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.nodes.append(node)

    def visit_Lambda(self, node: cst.Lambda) -> None:
        self.nodes.append(node)
