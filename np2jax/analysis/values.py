"""What an expression holds at run time: computed from array data? an integer?

The hazard rules (NPJ114-NPJ117) need two facts the jit analysis does not give:

* ``from_data``: the value is computed from the *values* of arrays (``np.argmax(y)``,
  ``codes[i]``, ``int(v * n)``), not only from shapes, literals, ``range`` loop
  indices or arguments passed through unchanged.  An argument used as it is
  counts as ``PARAMETER``: its range is the caller's business.
* ``is_integer``: there is positive evidence the value is an integer (an integer
  literal, ``int()``, ``//``, ``.astype(int)``, ``dtype=np.int64``, ``np.argmax``,
  ``np.arange`` with integer bounds ...).  Without evidence a value is not an
  integer: the rules only speak when they are sure.

Both are flow-insensitive, like ``Resolver.is_static``: a local name has a fact
when every binding of it has it.
"""

from __future__ import annotations

import libcst as cst

from np2jax.analysis.resolve import SHAPE_ATTRIBUTES, Resolver
from np2jax.analysis.scope import LoopBinding, ParamBinding, Scope, ValueBinding
from np2jax.visitors import child_nodes, exact_types, inner_nodes

STATIC, PARAMETER, DATA = 0, 1, 2

INTEGER_DTYPES = frozenset(
    "int int8 int16 int32 int64 intp intc int_ long longlong uint uint8 uint16 uint32 uint64 uintp".split()
)
# NumPy functions whose result is an integer (array) whatever their input.
INTEGER_FUNCTIONS = frozenset(
    "argmax argmin argsort argpartition searchsorted digitize count_nonzero nanargmax nanargmin "
    "lexsort ravel_multi_index floor_divide".split()
)
# NumPy functions and methods that keep the integer-ness of their first argument.
INTEGER_PRESERVING = frozenset(
    "sum cumsum prod cumprod abs absolute negative max min amax amin maximum minimum clip "
    "add subtract multiply power mod remainder square diff ravel reshape flatten transpose "
    "concatenate stack hstack vstack roll take sort copy squeeze dot matmul outer".split()
)
# Methods of arrays that give a value read from the array's data.
DATA_METHODS = frozenset(
    "argmax argmin argsort sum mean max min prod cumsum cumprod item astype round clip dot "
    "std var ptp nonzero take tolist copy reshape ravel flatten squeeze transpose".split()
)
_INTEGER_OPERATORS = (cst.Add, cst.Subtract, cst.Multiply, cst.FloorDivide, cst.Modulo, cst.Power,
                      cst.BitAnd, cst.BitOr, cst.BitXor, cst.LeftShift, cst.RightShift)


class ValueFacts:
    """``from_data`` and ``is_integer`` for expressions of one function (and the scopes inside it)."""

    def __init__(self, resolver: Resolver) -> None:
        self.resolver = resolver
        self._origin: dict[tuple[int, int], int] = {}
        self._integer: dict[tuple[int, int], bool] = {}

    # --- where the value comes from -----------------------------------------
    def origin(self, node: cst.BaseExpression, scope: Scope) -> int:
        """STATIC (known at trace time), PARAMETER (an argument as passed) or DATA (computed from values)."""
        key = (id(node), id(scope))
        if key not in self._origin:
            self._origin[key] = STATIC  # a cycle alone adds nothing
            self._origin[key] = STATIC if self.resolver.is_static(node, scope) else self._compute_origin(node, scope)
        return self._origin[key]

    def from_data(self, node: cst.BaseExpression, scope: Scope) -> bool:
        return self.origin(node, scope) == DATA

    def _compute_origin(self, node: cst.BaseExpression, scope: Scope) -> int:
        if isinstance(node, cst.Name):
            return self._name_origin(node.value, scope)
        if isinstance(node, cst.Attribute):
            if node.attr.value in SHAPE_ATTRIBUTES:
                return STATIC
            return self.origin(node.value, scope)
        if isinstance(node, cst.Subscript):
            # An element read from an array is data, unless the array itself is static.
            return DATA if self.origin(node.value, scope) != STATIC else STATIC
        if isinstance(node, cst.Call):
            return self._call_origin(node, scope)
        return max((self.origin(child, scope) for child in _value_children(node)), default=STATIC)

    def _call_origin(self, node: cst.Call, scope: Scope) -> int:
        args = max((self.origin(arg.value, scope) for arg in node.args), default=STATIC)
        if isinstance(node.func, cst.Attribute) and self.resolver.qualname(node.func, scope) is None:
            base = self.origin(node.func.value, scope)
            if node.func.attr.value in DATA_METHODS and base != STATIC:
                return DATA
            return max(base, args)
        qualname = self.resolver.qualname(node.func, scope) or ""
        if qualname in ("builtins.len", "builtins.range", "builtins.isinstance"):
            return STATIC
        return DATA if args != STATIC else STATIC

    def _name_origin(self, name: str, scope: Scope) -> int:
        found, bindings = scope.lookup(name)
        if found is None or found.kind in ("module", "class"):
            return STATIC
        result = STATIC
        for binding in bindings:
            if isinstance(binding, ValueBinding):
                result = max(result, self.origin(binding.value, found))
            elif isinstance(binding, LoopBinding):
                result = max(result, self._loop_origin(binding.iterable, binding.position, found))
            elif isinstance(binding, ParamBinding):
                result = max(result, PARAMETER)
            else:
                result = max(result, PARAMETER)
        return result

    def _loop_origin(self, iterable: cst.BaseExpression, position: tuple[int, ...], scope: Scope) -> int:
        source = _loop_source(iterable, position, self.resolver, scope)
        if source is None:
            return STATIC  # a loop index (range, enumerate's counter): bounded, whatever the bounds are
        inner, position = source
        if inner is not iterable and isinstance(inner, cst.Call) and self.resolver.qualname(inner.func, scope) in ZIPPERS:
            return self._loop_origin(inner, position, scope)  # zip(zip(a, b), c): one level further in
        return DATA if self.origin(inner, scope) != STATIC else STATIC  # the elements of an array are its data

    # --- integer or not -------------------------------------------------------
    def is_integer(self, node: cst.BaseExpression, scope: Scope) -> bool:
        key = (id(node), id(scope))
        if key not in self._integer:
            self._integer[key] = True  # coinductive, like Resolver.is_static
            self._integer[key] = self._compute_integer(node, scope)
        return self._integer[key]

    def _compute_integer(self, node: cst.BaseExpression, scope: Scope) -> bool:
        if isinstance(node, cst.Integer):
            return True
        if isinstance(node, cst.Name):
            return self._name_integer(node.value, scope)
        if isinstance(node, cst.UnaryOperation):
            return isinstance(node.operator, (cst.Minus, cst.Plus, cst.BitInvert)) and self.is_integer(node.expression, scope)
        if isinstance(node, cst.BinaryOperation):
            if not isinstance(node.operator, _INTEGER_OPERATORS):
                return False
            return self.is_integer(node.left, scope) and self.is_integer(node.right, scope)
        if isinstance(node, cst.Subscript):
            return self.is_integer(node.value, scope)
        if isinstance(node, cst.Attribute):
            return node.attr.value in ("T", "real") and self.is_integer(node.value, scope)
        if isinstance(node, cst.Call):
            return self._call_integer(node, scope)
        return False

    def _call_integer(self, node: cst.Call, scope: Scope) -> bool:
        dtype = _keyword(node, "dtype")
        if dtype is not None:
            return self.is_integer_dtype(dtype, scope)
        qualname = self.resolver.qualname(node.func, scope)
        if qualname is None and isinstance(node.func, cst.Attribute):
            method = node.func.attr.value
            if method == "astype":
                return bool(node.args) and self.is_integer_dtype(node.args[0].value, scope)
            if method in ("argmax", "argmin", "argsort"):
                return True
            return method in INTEGER_PRESERVING and self.is_integer(node.func.value, scope)
        if qualname is None:
            return False
        name = qualname.rsplit(".", 1)[1]
        if qualname in ("builtins.int", "builtins.len") or (qualname == "builtins.round" and len(node.args) == 1):
            return True
        if not qualname.startswith("numpy."):
            return False
        if name in INTEGER_FUNCTIONS or name in INTEGER_DTYPES:
            return True
        positional = [arg.value for arg in node.args if arg.keyword is None]
        if name == "bincount":  # counts; with weights, sums of the weights
            return len(positional) == 1 and _keyword(node, "weights") is None
        if name in ("full", "full_like"):  # no dtype: the fill value's
            fill = positional[1] if len(positional) > 1 else _keyword(node, "fill_value")
            return fill is not None and self.is_integer(fill, scope) and (name == "full" or self.is_integer(positional[0], scope))
        if name == "arange":  # bounds are almost always counts: integer unless one is visibly a float
            return bool(positional) and not any(self.is_float(value, scope) for value in positional)
        if name in ("asarray", "array"):
            return bool(positional) and all(self.is_integer(value, scope) for value in positional)
        return name in INTEGER_PRESERVING and bool(positional) and self.is_integer(positional[0], scope)

    def is_float(self, node: cst.BaseExpression, scope: Scope) -> bool:
        """Visibly a float: a float literal, or arithmetic with one, or a true division."""
        if isinstance(node, cst.Float):
            return True
        if isinstance(node, cst.UnaryOperation):
            return self.is_float(node.expression, scope)
        if isinstance(node, cst.BinaryOperation):
            return isinstance(node.operator, cst.Divide) or self.is_float(node.left, scope) or self.is_float(node.right, scope)
        return False

    def is_integer_dtype(self, node: cst.BaseExpression, scope: Scope) -> bool:
        if isinstance(node, cst.SimpleString):
            return node.evaluated_value in INTEGER_DTYPES
        if isinstance(node, cst.Name) and node.value == "int":
            return self.resolver.qualname(node, scope) == "builtins.int"
        qualname = self.resolver.qualname(node, scope)
        return qualname is not None and qualname.startswith("numpy.") and qualname.rsplit(".", 1)[1] in INTEGER_DTYPES

    def _name_integer(self, name: str, scope: Scope) -> bool:
        found, bindings = scope.lookup(name)
        if found is None or not bindings:
            return False
        for binding in bindings:
            if isinstance(binding, ValueBinding):
                if not self.is_integer(binding.value, found):
                    return False
            elif isinstance(binding, LoopBinding):
                source = _loop_source(binding.iterable, binding.position, self.resolver, found)
                if source is not None and (source[1] or not self.is_integer(source[0], found)):
                    return False
            else:
                return False
        return True


ZIPPERS = ("builtins.enumerate", "builtins.zip")


def _loop_source(iterable: cst.BaseExpression, position: tuple[int, ...], resolver: Resolver, scope: Scope):
    """What a loop target at ``position`` iterates over: None for an index (``range``, ``enumerate``'s
    counter), else the iterable and the position within its elements."""
    if not isinstance(iterable, cst.Call):
        return iterable, position
    qualname = resolver.qualname(iterable.func, scope)
    if qualname == "builtins.range":
        return None
    if qualname in ZIPPERS and position and position[0] >= 0:
        args = [arg.value for arg in iterable.args if arg.keyword is None and arg.star == ""]
        if qualname == "builtins.enumerate":
            return None if position[0] == 0 else (args[0], position[1:]) if args else (iterable, position)
        if position[0] < len(args):
            return args[position[0]], position[1:]
    return iterable, position


def function_nodes(function: cst.FunctionDef, resolver: Resolver) -> list[tuple[cst.CSTNode, Scope]]:
    """Every node of ``function``'s body with the scope it is in, in source order; nested ``def``s
    and classes are left out (the walker leaves them, and the rules see them, on their own).

    One pass per function, remembered by the resolver: several rules ask for the same function.
    """
    return _indexed_nodes(function, resolver)[0]


def _indexed_nodes(function: cst.FunctionDef, resolver: Resolver) -> tuple[list[tuple[cst.CSTNode, Scope]], dict[type, list[int]]]:
    """``function_nodes``, and the positions in it of the nodes of each type (for ``nodes_of``), made in one pass."""
    cache = resolver.memo.setdefault("function_nodes", {})
    found = cache.get(function)
    if found is None:
        found = cache[function] = _nodes_with_scopes(function, resolver)
    return found


def _nodes_with_scopes(function: cst.FunctionDef, resolver: Resolver) -> tuple[list[tuple[cst.CSTNode, Scope]], dict[type, list[int]]]:
    """Each child of ``function.body`` and every node under it but trivia, depth first in source order, with the
    scope it is in (a lambda's or comprehension's own for what is inside it); nested ``def``s and classes left out.
    Also: node type -> the positions of the nodes of that type in that list."""
    scopes = resolver.scopes
    outer = scopes[function]
    found: list[tuple[cst.CSTNode, Scope]] = []
    positions: dict[type, list[int]] = {}
    stack = [(child, outer) for child in reversed(child_nodes(function.body))]
    while stack:
        node, scope = stack.pop()
        kind = type(node)
        if kind is cst.FunctionDef or kind is cst.ClassDef:
            continue
        bucket = positions.get(kind)
        if bucket is None:
            positions[kind] = [len(found)]
        else:
            bucket.append(len(found))
        found.append((node, scope))
        inner = scopes.get(node, scope) if kind in _INNER_SCOPES else scope
        children = inner_nodes(node)
        if children:
            stack.extend([(child, inner) for child in reversed(children)])
    return found, positions


def nodes_of(function: cst.FunctionDef, resolver: Resolver, kinds: frozenset[type]) -> list[tuple[cst.CSTNode, Scope]]:
    """``function_nodes`` of the exact types ``kinds`` only (in source order), remembered by the resolver: the rules
    that look for a few kinds of node need not test every node of the function."""
    cache = resolver.memo.setdefault("nodes_of", {})
    key = (function, kinds)
    found = cache.get(key)
    if found is None:
        nodes, positions = _indexed_nodes(function, resolver)
        wanted = [positions[kind] for kind in kinds if kind in positions]
        if len(wanted) == 1:
            found = [nodes[position] for position in wanted[0]]
        else:
            found = [nodes[position] for position in sorted(position for bucket in wanted for position in bucket)]
        cache[key] = found
    return found


_INNER_SCOPES = exact_types(cst.Lambda, cst.BaseComp)


CONTAINER_LITERALS = (cst.List, cst.Tuple, cst.Dict, cst.ListComp, cst.DictComp)


def python_container(node: cst.BaseExpression, scope: Scope) -> bool:
    """A list, tuple or dict built here (or a name only ever bound to one): not an array."""
    if isinstance(node, CONTAINER_LITERALS):
        return True
    if isinstance(node, cst.Name):
        _, bindings = scope.lookup(node.value)
        return bool(bindings) and all(isinstance(b, ValueBinding) and isinstance(b.value, CONTAINER_LITERALS) for b in bindings)
    return False


GROWING_METHODS = frozenset({"append", "extend", "insert"})


def grown_at_run_time(name: str, scope: Scope, resolver: Resolver) -> bool:
    """``acc = []`` then ``acc.append(np.mean(p))``: a list whose literal binding looks static but that
    collects values computed at run time."""
    found, _ = scope.lookup(name)
    if found is None or found.kind != "function":
        return False
    for node, inner in function_nodes(found.node, resolver):
        if (
            isinstance(node, cst.Call)
            and isinstance(node.func, cst.Attribute)
            and node.func.attr.value in GROWING_METHODS
            and isinstance(node.func.value, cst.Name)
            and node.func.value.value == name
            and not resolver.args_static(node, inner)
        ):
            return True
    return False


def _keyword(node: cst.Call, name: str) -> cst.BaseExpression | None:
    for arg in node.args:
        if arg.keyword is not None and arg.keyword.value == name:
            return arg.value
    return None


def _value_children(node: cst.CSTNode):
    """The sub-expressions whose values flow into ``node``'s value."""
    if isinstance(node, cst.BinaryOperation):
        return (node.left, node.right)
    if isinstance(node, cst.UnaryOperation):
        return (node.expression,)
    if isinstance(node, cst.IfExp):
        return (node.body, node.orelse)
    if isinstance(node, (cst.Tuple, cst.List, cst.Set)):
        return tuple(element.value for element in node.elements)
    if isinstance(node, cst.Comparison):
        return (node.left, *(target.comparator for target in node.comparisons))
    if isinstance(node, cst.BooleanOperation):
        return (node.left, node.right)
    return ()
