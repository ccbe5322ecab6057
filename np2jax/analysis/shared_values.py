"""May a local name hold an array that something else also holds?

``x op= v`` updates ``x``'s array in place in NumPy and only rebinds ``x`` in
JAX.  The two agree unless another reference sees the same array: when ``x``
was bound to an element of a list or dict (``a = arrs[0]``, ``x = s["x"]``), a
row of an array (``r = A[i]`` of a 2-D ``A`` is a view), an attribute of an
object (``P = self.P``, ``x = b.x``), or is a loop variable taking a
container's elements (``for w, g in zip(ws, gs): w -= lr * g``).  This module
judges one binding of a name: None when it is certainly not shared (a Python
number or string, an element of a container of numbers, an item of an array
whose number of dimensions equals the number of indices), else the reason.
"""

from __future__ import annotations

import libcst as cst

from np2jax.analysis.aliasing import STORING_METHODS, FunctionAliasing, has_number_hint, is_fresh_array
from np2jax.analysis.resolve import Resolver, is_numpy
from np2jax.analysis.scope import LoopBinding, ParamBinding, Scope, ValueBinding
from np2jax.analysis.value_kinds import ValueClassifier, literal_value
from np2jax.visitors import FastVisitor, visit

NUMBER_BUILTINS = frozenset("builtins." + n for n in "len int float bool complex str repr ord hash id".split())
ONE_DIMENSIONAL = frozenset("arange linspace logspace geomspace".split())  # NumPy functions returning 1-D arrays
SHAPED = frozenset("zeros ones empty full".split())  # their first argument is the shape
LIKE = frozenset("zeros_like ones_like empty_like full_like copy array asarray".split())  # the ndim of the first argument
ELEMENTS_OF = frozenset("builtins." + n for n in "reversed sorted list tuple iter set frozenset".split())
# NumPy functions whose result, used as an index, is an integer or boolean array: advanced indexing copies
INDEX_ARRAYS = ONE_DIMENSIONAL | frozenset("array asarray argsort flatnonzero nonzero ix_ where argwhere".split())
LOOKUP_METHODS = frozenset("get pop setdefault popitem".split())  # a container's element
FIX = " (bind a copy, `.copy()`, or a Python number, `float(...)`, to avoid this)"


class SharedValues:
    """Answers, for bindings of the names of one function, whether their value may be shared."""

    def __init__(self, aliasing: FunctionAliasing) -> None:
        self.aliasing = aliasing
        self.resolver: Resolver = aliasing.resolver
        self.scope: Scope = aliasing.scope
        self._kinds: ValueClassifier | None = None
        self._filled_names: set[str] | None = None

    def binding_reason(self, name: str, binding) -> str | None:
        """Why ``name op= v`` may update an array another reference sees, for this binding of ``name``; None if not."""
        if isinstance(binding, LoopBinding):
            if self._elements_unshared(binding.iterable, binding.position):
                return None
            return (f"`{name}` takes the elements of `{_code(binding.iterable)}` in turn: if they are arrays (or rows of one, "
                    f"which are views), NumPy's `{name} {{op}}= ...` updates them in place there too, JAX only rebinds `{name}`" + FIX)
        if not isinstance(binding, ValueBinding) or binding.augmented:
            return None
        value = binding.value
        if self.is_immutable(value):
            return None
        if isinstance(value, cst.Subscript) and not self._item_unshared(value):
            base, count, ndim = _code(value.value), len(value.slice), self.known_ndim(value.value)
            if self._is_container(value.value):
                what = f"an element of the container `{base}`"
            elif ndim is not None:
                what = f"a view into `{base}`, which has {ndim} dimensions"
            else:
                what = (f"an element of a list or dict `{base}`, or a view into the array `{base}` unless it has exactly "
                        f"{count} dimension{'s' if count > 1 else ''}")
            return (f"`{name}` is bound to `{_code(value)}`, {what}: NumPy's `{name} {{op}}= ...` updates it in place "
                    f"there too, JAX only rebinds `{name}`" + FIX)
        if self._looked_up(value):
            return (f"`{name}` is bound to `{_code(value)}`, an element of a container or an attribute of an object: "
                    f"NumPy's `{name} {{op}}= ...` updates it in place there too, JAX only rebinds `{name}`" + FIX)
        if isinstance(value, cst.Attribute) and not self._attribute_unshared(value):
            return (f"`{name}` is bound to `{_code(value)}`, an attribute of an object: NumPy's `{name} {{op}}= ...` "
                    f"updates that object's array in place too, JAX only rebinds `{name}`" + FIX)
        return None

    def _looked_up(self, value: cst.BaseExpression) -> bool:
        """``d.get("x")``, ``d.pop("x")``, ``getattr(b, "x")``: a container's element or an object's attribute."""
        if not isinstance(value, cst.Call):
            return False
        func = value.func
        if isinstance(func, cst.Attribute) and func.attr.value in LOOKUP_METHODS:
            return not self._holds_immutables(func.value) and not self.is_immutable(value)
        return self.resolver.qualname(func, self.scope) == "builtins.getattr"

    def _is_container(self, expr: cst.BaseExpression) -> bool:
        return isinstance(expr, cst.Name) and self.aliasing.is_container(expr.value)

    # --- values that cannot be arrays ----------------------------------------------
    def is_immutable(self, expr: cst.BaseExpression) -> bool:
        """A Python number or string: ``op=`` makes a new object in NumPy code as in JAX code."""
        if literal_value(expr) is not None or isinstance(expr, (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)):
            return True
        if isinstance(expr, cst.Call):
            qualname = self.resolver.qualname(expr.func, self.scope) or ""
            if qualname in NUMBER_BUILTINS:
                return True
            return isinstance(expr.func, cst.Attribute) and expr.func.attr.value == "item" and not expr.args
        if isinstance(expr, cst.Subscript) and isinstance(expr.value, cst.Attribute) and expr.value.attr.value == "shape":
            return all(isinstance(e.slice, cst.Index) for e in expr.slice)  # x.shape[0]
        if isinstance(expr, cst.Name):  # `y = y0` with `y0=1.0` or `y0: float`: meant to be a Python number
            _, bindings = self.scope.lookup(expr.value)
            if bindings and all(isinstance(b, ParamBinding) and has_number_hint(b.param) for b in bindings):
                return True
        if isinstance(expr, cst.Attribute):
            qualname = self.resolver.qualname(expr, self.scope) or ""
            if qualname.startswith("math.") or (is_numpy(qualname) and qualname.rsplit(".", 1)[1] in ("pi", "e", "inf", "nan", "euler_gamma")):
                return True
        return self._classifier().value(expr, self.scope).weak

    def _classifier(self) -> ValueClassifier:
        if self._kinds is None:
            self._kinds = ValueClassifier(self.resolver)
        return self._kinds

    # --- items and elements --------------------------------------------------------
    def _item_unshared(self, subscript: cst.Subscript) -> bool:
        """``c[i]`` (integer or key indices only) is a number or string, or an array item that is no view."""
        if self._holds_immutables(subscript.value):
            return True
        if any(isinstance(e.slice, cst.Index) and self._index_array(e.slice.value) for e in subscript.slice):
            return True  # `B[np.arange(n), np.arange(n)]`: advanced indexing makes a copy
        return self.known_ndim(subscript.value) == len(subscript.slice)

    def _index_array(self, index: cst.BaseExpression) -> bool:
        """An index that is certainly an array (or a list) of integers or booleans: a list display, a comparison,
        ``np.arange(n)``, ``np.array([...])``, ``np.argsort(x)``, ``np.ix_(r, c)`` ..."""
        if isinstance(index, (cst.List, cst.ListComp, cst.Comparison)):
            return True
        if isinstance(index, cst.Call):
            qualname = self.resolver.qualname(index.func, self.scope) or ""
            return is_numpy(qualname) and qualname.rsplit(".", 1)[1] in INDEX_ARRAYS
        return False

    def _elements_unshared(self, iterable: cst.BaseExpression, position: tuple[int, ...]) -> bool:
        """The loop variable at ``position`` of ``for ... in iterable`` is never an array another reference sees."""
        if isinstance(iterable, cst.Call):
            qualname = self.resolver.qualname(iterable.func, self.scope) or ""
            args = [a.value for a in iterable.args if a.keyword is None and not a.star]
            if len(args) != len(iterable.args):
                return False
            if qualname == "builtins.range":
                return True
            if qualname == "builtins.enumerate" and args:
                return bool(position) and (position[0] == 0 or self._elements_unshared(args[0], position[1:]))
            if qualname == "builtins.zip":
                return bool(position) and position[0] < len(args) and self._elements_unshared(args[position[0]], position[1:])
            if qualname in ELEMENTS_OF and len(args) == 1:
                return self._elements_unshared(args[0], position)
            if isinstance(iterable.func, cst.Attribute) and iterable.func.attr.value == "keys" and not args:
                return True  # dict keys are hashable: never arrays
            if is_numpy(qualname) and qualname.rsplit(".", 1)[1] in ONE_DIMENSIONAL:
                return True
        if self._holds_immutables(iterable):
            return True
        return not position and self.known_ndim(iterable) == 1

    def _holds_immutables(self, expr: cst.BaseExpression) -> bool:
        """A list, tuple, set or dict (or a name only ever bound to one) of Python numbers and strings."""
        if isinstance(expr, cst.Name):  # and never filled with anything else (`c[0] = x`, `c.append(x)`)
            bindings = self.scope.bindings.get(expr.value, ())
            return bool(bindings) and expr.value not in self._filled() and all(
                isinstance(b, ValueBinding) and self._holds_immutables(b.value) for b in bindings
            )
        if isinstance(expr, (cst.List, cst.Tuple, cst.Set)):
            return all(not isinstance(e, cst.StarredElement) and self.is_immutable(e.value) for e in expr.elements)
        if isinstance(expr, cst.Dict):
            return all(isinstance(e, cst.DictElement) and self.is_immutable(e.value) for e in expr.elements)
        if isinstance(expr, (cst.ListComp, cst.SetComp, cst.GeneratorExp)):
            return self.is_immutable(expr.elt)
        if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, (cst.Multiply, cst.Add)):
            return all(self._holds_immutables(side) or self.is_immutable(side) for side in (expr.left, expr.right))
        return isinstance(expr, (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString))

    def _filled(self) -> set[str]:
        """Names of the function written into (``c[i] = v``) or given elements by a method (``c.append(v)``)."""
        if self._filled_names is None:
            finder = _Filled()
            visit(self.aliasing.function.body, finder)
            self._filled_names = finder.names
        return self._filled_names

    def known_ndim(self, expr: cst.BaseExpression, depth: int = 0) -> int | None:
        """The number of dimensions of the array ``expr`` when the syntax tells it, else None."""
        if depth > 8:
            return None
        if isinstance(expr, cst.Name):
            found = set()
            for binding in self.scope.bindings.get(expr.value, ()):
                if isinstance(binding, ParamBinding) or not isinstance(binding, ValueBinding):
                    return None
                if not binding.augmented:  # `x += v` keeps the array's shape in NumPy
                    found.add(self.known_ndim(binding.value, depth + 1))
            return found.pop() if len(found) == 1 else None
        if isinstance(expr, (cst.BinaryOperation, cst.UnaryOperation)):  # broadcasting: the larger rank
            sides = (expr.left, expr.right) if isinstance(expr, cst.BinaryOperation) else (expr.expression,)
            ranks = [0 if self.is_immutable(side) else self.known_ndim(side, depth + 1) for side in sides]
            return None if None in ranks or isinstance(expr.operator, cst.MatrixMultiply) else max(ranks)
        if not isinstance(expr, cst.Call):
            return None
        qualname = self.resolver.qualname(expr.func, self.scope) or ""
        if not is_numpy(qualname):
            return None
        short = qualname.rsplit(".", 1)[1]
        args = [a.value for a in expr.args if a.keyword is None and not a.star]
        if short in ONE_DIMENSIONAL:
            return 1
        if short in SHAPED and args:
            shape = args[0]
            if isinstance(shape, (cst.Tuple, cst.List)):
                return None if any(isinstance(e, cst.StarredElement) for e in shape.elements) else len(shape.elements)
            return 1 if self.is_immutable(shape) else None
        if short in LIKE and args and not any(a.keyword is not None and a.keyword.value in ("shape", "ndmin") for a in expr.args):
            if short in ("array", "asarray") and isinstance(args[0], (cst.List, cst.Tuple)):
                return 1 if self._holds_immutables(args[0]) and args[0].elements else None
            return self.known_ndim(args[0], depth + 1)
        return None

    # --- attributes ----------------------------------------------------------------
    def _attribute_unshared(self, attribute: cst.Attribute) -> bool:
        """``self.n`` that the class only ever sets to Python numbers; a module constant such as ``np.pi``; a view
        (``.T``) of a new array nothing else holds (``M0, M1, M2 = np.array(RZS).T``: real38 FP2)."""
        if self.is_immutable(attribute):
            return True
        if is_fresh_array(attribute, self.resolver, self.scope):
            return True
        attributes = self.aliasing.attributes
        return attributes is not None and attributes.is_number(self.aliasing.function, attribute)


class _Filled(FastVisitor):
    def __init__(self) -> None:
        self.names: set[str] = set()

    def _target(self, target: cst.BaseExpression) -> None:
        if isinstance(target, cst.Subscript) and isinstance(target.value, cst.Name):
            self.names.add(target.value.value)
        elif isinstance(target, (cst.Tuple, cst.List)):
            for element in target.elements:
                self._target(element.value)

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            self._target(target.target)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._target(node.target)

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.attr.value in STORING_METHODS:
            self.names.add(func.value.value)


def _code(node: cst.CSTNode) -> str:
    return cst.Module([]).code_for_node(node)
