"""NumPy calls on a loop index that move to jax.numpy when the loop becomes a fori_loop or scan.

``np.sin(0.1 * i)`` in ``for i in range(100)`` looks static (Python values only), so NPJ100 would keep
it NumPy; but in the fori_loop/scan body ``i`` is a traced int32 and NumPy would raise.  Once the jit
plan converts the loop, the resolver takes the names the loop binds as traced (``Resolver.trace_loops``)
and NPJ100 rewrites such calls.  Only float elementwise functions of one or two positional arguments
qualify, and only when their arguments do no integer product or power (Python ints never overflow,
int32 does): any other NumPy call on the index keeps the loop a Python loop (NPJ303).
"""

from __future__ import annotations

import libcst as cst

from np2jax.analysis.resolve import Resolver
from np2jax.analysis.scope import Scope, ValueBinding

# Elementwise NumPy functions whose result is a float whatever the (real) inputs: integer-valued ones
# (abs, floor, mod ...) would turn an unbounded Python int into an int32.
FLOAT_FUNCTIONS = frozenset(
    """sin cos tan arcsin arccos arctan arctan2 sinh cosh tanh arcsinh arccosh arctanh exp exp2 expm1
    log log2 log10 log1p sqrt cbrt hypot deg2rad rad2deg radians degrees sinc divide true_divide""".split()
)
FLOAT_CONSTANTS = frozenset({"numpy.pi", "numpy.e", "math.pi", "math.e", "math.tau"})
_DEPTH = 6  # how many assignments deep a name's value is followed
SMALL_FACTOR = 256


def converts_on_traced_index(call: cst.Call, resolver: Resolver, scope: Scope) -> bool:
    """Does NPJ100 rewrite ``call`` (all of whose arguments are Python values) to an equivalent jax.numpy call
    once the loop index it uses is traced?"""
    qualname = resolver.qualname(call.func, scope)
    if qualname is None or not qualname.startswith("numpy.") or qualname[len("numpy."):] not in FLOAT_FUNCTIONS:
        return False
    if not 1 <= len(call.args) <= 2 or any(a.keyword is not None or a.star for a in call.args):
        return False
    return not any(_integer_growth(a.value, resolver, scope, _DEPTH) for a in call.args)


def _integer_growth(node: cst.CSTNode, resolver: Resolver, scope: Scope, depth: int) -> bool:
    """May ``node`` multiply, raise or shift integers (exact in Python, wrapping in int32)?  A product with a
    float, or of a small integer literal and a value that does not grow itself, does not count."""
    if depth < 0:
        return True
    if isinstance(node, cst.BinaryOperation):
        if isinstance(node.operator, (cst.Power, cst.LeftShift)):
            return True
        if isinstance(node.operator, cst.Multiply) and not (
                _is_float(node.left, resolver, scope, depth) or _is_float(node.right, resolver, scope, depth)
                or _small_integer(node.left) or _small_integer(node.right)):
            return True
        return _integer_growth(node.left, resolver, scope, depth) or _integer_growth(node.right, resolver, scope, depth)
    if isinstance(node, cst.UnaryOperation):
        return _integer_growth(node.expression, resolver, scope, depth)
    if isinstance(node, cst.Name):
        bindings = _value_bindings(node.value, scope)
        return bindings is None or any(_integer_growth(b.value, resolver, found, depth - 1) for b, found in bindings)
    if isinstance(node, cst.Call):
        return any(_integer_growth(a.value, resolver, scope, depth) for a in node.args)
    return False  # a literal, an attribute, an element: a value, not arithmetic on one


def _small_integer(node: cst.BaseExpression) -> bool:
    """``2 * k``: an index times this stays in int32 for any realistic trip count."""
    return isinstance(node, cst.Integer) and abs(node.evaluated_value) <= SMALL_FACTOR


def _is_float(node: cst.BaseExpression, resolver: Resolver, scope: Scope, depth: int) -> bool:
    """Is ``node`` surely a float (so arithmetic with it is float arithmetic)?"""
    if depth < 0:
        return False
    if isinstance(node, cst.Float):
        return True
    if isinstance(node, cst.UnaryOperation):
        return _is_float(node.expression, resolver, scope, depth)
    if isinstance(node, cst.BinaryOperation):
        if isinstance(node.operator, cst.Divide):
            return True
        if isinstance(node.operator, (cst.Add, cst.Subtract, cst.Multiply)):
            return _is_float(node.left, resolver, scope, depth) or _is_float(node.right, resolver, scope, depth)
        return False
    if isinstance(node, cst.Attribute):
        return resolver.qualname(node, scope) in FLOAT_CONSTANTS
    if isinstance(node, cst.Call):
        qualname = resolver.qualname(node.func, scope)
        return qualname == "builtins.float" or (
            qualname is not None and qualname.startswith("numpy.") and qualname[len("numpy."):] in FLOAT_FUNCTIONS)
    if isinstance(node, cst.Name):
        bindings = _value_bindings(node.value, scope)
        return bool(bindings) and all(_is_float(b.value, resolver, found, depth - 1) for b, found in bindings)
    return False


def _value_bindings(name: str, scope: Scope) -> list[tuple[ValueBinding, Scope]] | None:
    """The assignments of local ``name`` (none for a loop variable, a parameter or a module-level name);
    None when one is augmented (``t *= i``)."""
    found, bindings = scope.lookup(name)
    if found is None or found.kind != "function":
        return []
    result = []
    for binding in bindings:
        if isinstance(binding, ValueBinding):
            if binding.augmented:
                return None
            result.append((binding, found))
    return result
