"""List and tuple displays that meet an array in arithmetic or a comparison: ``x - [cx, cy]``, ``q < (1.0, 2.0)``.

NumPy converts the display (``np.asarray([cx, cy])``) and broadcasts; a ``jax.Array`` refuses
lists and tuples as operands (TypeError), so the migrated code wraps the display in
``jnp.asarray(...)``, which is what NumPy did with it.  Python gives the same syntax other meanings
when the other operand is not an array: ``[0] * n`` repeats the list (also for a NumPy integer
scalar: ``np.int64(2) * [1, 2]`` is ``[1, 2, 1, 2]``), ``a + [b]`` concatenates two lists and
``a == [1, 2]`` compares them.  So a display is wrapped only with evidence that the other operand is
an array:

* for ``*``: a float or complex array or scalar (the value classifier), an ``np.asarray``/``np.zeros``...
  result (always an ndarray, never a NumPy scalar), a parameter the function
  treats as an array (an ``ndarray`` hint, a docstring type naming an array, ``p.shape``/``p.T``/
  ``p.astype``... in the body), a name bound only to those, or a product whose result is used as an
  array (``(p * [w, h]).astype(int)``: a list has no ``astype``);
* for the other operators also any NumPy array or scalar the classifier knows (integer ones too) and
  the results of NumPy calls.

``%`` (string formatting), ``in`` and ``is`` are left alone.  The function tracing analysis does not
take such a display for a list being repeated (``points * [nx, ny]`` needs no static ``points``).
"""

from __future__ import annotations

import libcst as cst

from np2jax.analysis.param_kinds import documented_array, top_hints
from np2jax.analysis.resolve import Resolver
from np2jax.analysis.scope import ParamBinding, Scope, ValueBinding
from np2jax.analysis.tracing_tables import ARRAY_HINTS
from np2jax.analysis.value_kinds import ValueClassifier
from np2jax.analysis.values import nodes_of
from np2jax.tables import lookup_numpy

ARITHMETIC = (cst.Add, cst.Subtract, cst.Multiply, cst.Divide, cst.FloorDivide, cst.Power, cst.MatrixMultiply)
COMPARISONS = (cst.LessThan, cst.LessThanEqual, cst.GreaterThan, cst.GreaterThanEqual, cst.Equal, cst.NotEqual)
# Attributes a list does not have: an expression using one of them is an array.
ARRAY_ATTRIBUTES = frozenset(
    ["astype", "reshape", "ravel", "flatten", "T", "shape", "ndim", "dtype", "size", "sum", "mean", "std", "var", "min", "max", "prod", "cumsum", "argmax", "argmin", "clip", "round", "any", "all", "dot", "transpose", "squeeze"]
)
# NumPy functions whose result is always an ndarray, never a NumPy scalar (a 0-d array broadcasts a list).
ARRAY_CONSTRUCTORS = frozenset(
    ["array", "asarray", "asanyarray", "ascontiguousarray", "atleast_1d", "atleast_2d", "atleast_3d", "zeros", "ones", "empty", "full", "zeros_like", "ones_like", "empty_like", "full_like", "arange", "linspace", "logspace", "geomspace", "eye", "identity", "stack", "vstack", "hstack", "column_stack", "concatenate", "tile", "repeat", "meshgrid", "diag"]
)
# NumPy functions whose result is not an array (or is a Python value).
NOT_ARRAY_FUNCTIONS = frozenset(
    ["shape", "ndim", "size", "isscalar", "allclose", "array_equal", "array_equiv", "iscomplexobj", "isrealobj", "result_type", "finfo", "iinfo", "dtype", "printoptions", "get_printoptions", "errstate"]
)


def array_list_operands(function: cst.FunctionDef, resolver: Resolver) -> frozenset[cst.CSTNode]:
    """The list and tuple displays of ``function``'s body (lambdas and comprehensions included, nested
    ``def``s apart) that meet an array as operands; memoised per function."""
    cache = resolver.memo.setdefault("list_operands", {})
    found = cache.get(function)
    if found is None:
        found = cache[function] = frozenset(_Finder(function, resolver).find())
    return found


def broadcast_display(node: cst.CSTNode, resolver: Resolver, scope: Scope) -> bool:
    """Is ``node`` (seen in ``scope``) a display that meets an array, an array operand and no Python list?"""
    while scope is not None and not isinstance(scope.node, cst.FunctionDef):
        scope = scope.parent
    return scope is not None and node in array_list_operands(scope.node, resolver)


def _is_display(node: cst.BaseExpression) -> bool:
    if isinstance(node, (cst.List, cst.Tuple)) and node.elements:
        return all(isinstance(e, cst.Element) for e in node.elements) and not any(
            isinstance(e.value, (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)) for e in node.elements
        )
    return False


class _Finder:
    def __init__(self, function: cst.FunctionDef, resolver: Resolver) -> None:
        self.function = function
        self.resolver = resolver
        self.values = ValueClassifier(resolver)
        self.function_scope = resolver.scopes[function]
        self.operations = nodes_of(function, resolver, _OPERATIONS)
        self.attributes = nodes_of(function, resolver, _ATTRIBUTES)
        self.array_params = self._array_params()
        self.rebound_params = self._rebound_params()

    def find(self) -> set[cst.CSTNode]:
        found: set[cst.CSTNode] = set()
        used_as_array = {id(node.value) for node, _ in self.attributes if node.attr.value in ARRAY_ATTRIBUTES}
        for node, scope in self.operations:
            pairs = []
            if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, ARITHMETIC):
                pairs = [(node.left, node.right, node.operator), (node.right, node.left, node.operator)]
            elif isinstance(node, cst.AugAssign) and isinstance(node.operator, (
                    cst.AddAssign, cst.SubtractAssign, cst.MultiplyAssign, cst.DivideAssign, cst.PowerAssign)):
                pairs = [(node.value, node.target, node.operator)]
            elif isinstance(node, cst.Comparison) and len(node.comparisons) == 1 and isinstance(
                    node.comparisons[0].operator, COMPARISONS):
                left, right = node.left, node.comparisons[0].comparator
                pairs = [(left, right, None), (right, left, None)]
            for display, other, operator in pairs:
                if not _is_display(display) or _is_display(other):
                    continue
                repeats = isinstance(operator, (cst.Multiply, cst.MultiplyAssign))
                if self._array(other, scope, strong=repeats, depth=0) or (repeats and id(node) in used_as_array):
                    found.add(display)
        return found

    def _array(self, node: cst.BaseExpression, scope: Scope, strong: bool, depth: int) -> bool:
        """Evidence that ``node`` is an array (``strong``: and not a NumPy integer scalar, which repeats a list)."""
        if depth > 8:
            return False
        value = self.values.value(node, scope)
        if value.numeric and not value.weak and (not strong or value.kind in ("float", "complex")):
            return True
        if isinstance(node, cst.Name):
            found, bindings = scope.lookup(node.value)
            if found is self.function_scope and node.value in self.array_params:
                return True
            if found is self.function_scope and node.value in self.rebound_params:
                # `x = np.asarray(x, dtype=float)` first: every later use sees the array
                bindings = [b for b in bindings if not isinstance(b, ParamBinding)]
            bound = [b for b in bindings if not (isinstance(b, ValueBinding) and b.augmented)]  # `p += v` keeps p's kind
            return bool(bound) and found is not None and found.kind != "module" and all(
                isinstance(b, ValueBinding) and self._array(b.value, found, strong, depth + 1) for b in bound
            )
        if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, (cst.Minus, cst.Plus)):
            return self._array(node.expression, scope, strong, depth + 1)
        if isinstance(node, cst.Call):
            qualname = self.resolver.qualname(node.func, scope) or ""
            if qualname.startswith("numpy.") and qualname[len("numpy."):] in ARRAY_CONSTRUCTORS:
                return True
        if strong:
            return False
        if isinstance(node, cst.Subscript):
            return self._array(node.value, scope, strong, depth + 1)
        if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, ARITHMETIC):
            return any(self._array(side, scope, strong, depth + 1) for side in (node.left, node.right))
        if isinstance(node, cst.Call):
            qualname = self.resolver.qualname(node.func, scope)
            row = lookup_numpy(qualname) if qualname is not None and qualname.startswith("numpy.") else None
            return row is not None and row.kind in ("function", "constructor") and (
                qualname[len("numpy."):] not in NOT_ARRAY_FUNCTIONS)
        return False

    def _rebound_params(self) -> set[str]:
        """Parameters the function's body rebinds first thing, before any other statement uses them
        (``x = np.asarray(x, dtype=float)`` in the opening statements, after the docstring)."""
        params = self.function.params
        names = {p.name.value for p in (*params.posonly_params, *params.params, *params.kwonly_params)}
        found: set[str] = set()
        body = self.function.body.body if isinstance(self.function.body, cst.IndentedBlock) else ()
        for line in body:
            if not isinstance(line, cst.SimpleStatementLine):
                break
            for statement in line.body:
                if isinstance(statement, cst.Expr) and isinstance(statement.value, (cst.SimpleString, cst.ConcatenatedString)):
                    continue  # the docstring
                target = statement.targets[0].target if isinstance(statement, cst.Assign) and len(statement.targets) == 1 else None
                if not (isinstance(target, cst.Name) and target.value in names and isinstance(statement.value, cst.Call)):
                    return found
                found.add(target.value)
        return found

    def _array_params(self) -> set[str]:
        """Parameters hinted or documented as arrays, or whose array attributes the body reads."""
        params = self.function.params
        found = set()
        for param in (*params.posonly_params, *params.params, *params.kwonly_params):
            name = param.name.value
            if top_hints(param.annotation) & ARRAY_HINTS or documented_array(name, self.function):
                found.add(name)
        for node, scope in self.attributes:
            if node.attr.value in ARRAY_ATTRIBUTES and isinstance(node.value, cst.Name):
                owner, bindings = scope.lookup(node.value.value)
                if owner is self.function_scope and bindings and all(isinstance(b, ParamBinding) for b in bindings):
                    found.add(node.value.value)
        return found


# What _Finder looks at (exact types, for nodes_of)
_OPERATIONS = frozenset({cst.BinaryOperation, cst.AugAssign, cst.Comparison})
_ATTRIBUTES = frozenset({cst.Attribute})
