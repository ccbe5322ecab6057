"""NumPy's dtypes for Python numbers, which jax.numpy types weakly (rules/np_to_jnp.py applies them).

NumPy 2 makes a Python float in a list, a ``np.full`` fill and a NumPy function's result of Python numbers
float64 (strongly typed: a float32 array meeting it becomes float64); jax.numpy keeps them weakly typed, so under
``jax_enable_x64`` a float32 operand stays float32. Each helper names the dtype NumPy gives, for the rewrite to
spell out.
"""

from __future__ import annotations

import re

import libcst as cst

from np2jax.analysis.loops import descendants
from np2jax.analysis.scope import ParamBinding, Scope, ValueBinding
from np2jax.analysis.value_kinds import python_number_kind
from np2jax.context import FileContext, NumpyRef
from np2jax.cstutil import number_literal, size_expression


def python_fill(ref: NumpyRef, ctx: FileContext) -> str | None:
    """``np.full(shape, v)`` without a dtype and ``v`` certainly a Python number: its kind (NumPy makes the array
    of that kind's 64-bit dtype; jax.numpy a weakly typed one, which an operand of 32 bits narrows under x64)."""
    args = ref.call.args
    if any(a.star or (a.keyword is not None and a.keyword.value == "dtype") for a in args):
        return None
    positional = [a.value for a in args if a.keyword is None]
    fill = positional[1] if len(positional) == 2 else next(
        (a.value for a in args if a.keyword is not None and a.keyword.value == "fill_value"), None) if len(positional) == 1 else None
    kind = python_number_kind(fill, ref.scope, ctx.resolver) if fill is not None else None
    return kind if kind in ("float", "complex") else None  # (int: JAX makes int64 * float32 a float32 anyway)


# Signs that a module computes with complex numbers (where `dtype=float` would drop imaginary parts).
_COMPLEX_SIGNS = re.compile(r"\d[jJ]\b|complex|conj|\bimag\b|fft|\bangle\(|eig\w*\(|\.real\b|hilbert")


def mixed_python_floats(ref: NumpyRef, ctx: FileContext) -> cst.BaseExpression | None:
    """``np.array([[c, -s, 0.0], [s, c, 0.0]])`` without a dtype: NumPy takes the Python floats of a list as
    float64, so float32 ``c``, ``s`` give a float64 array; jax.numpy takes them as weakly typed and keeps float32
    (under x64: without it both are float32). The dtype NumPy gives: ``jnp.result_type(jnp.float64, c, s)`` when the
    other elements are names or subscripts of names (complex ones stay complex), else ``float`` where the module
    shows no sign of complex numbers (``1j``, ``complex``, ``conj``, ``fft`` ...); None: nothing to add."""
    args = ref.call.args
    if not args or args[0].keyword is not None or args[0].star or any(
            a.keyword is not None and a.keyword.value == "dtype" for a in args) or len(args) > 1:
        return None
    leaves, pending = [], [args[0].value]
    while pending:
        node = pending.pop()
        if isinstance(node, (cst.List, cst.Tuple)) and all(isinstance(e, cst.Element) for e in node.elements):
            pending.extend(reversed([e.value for e in node.elements]))  # (in order)
        else:
            leaves.append(node)
    if not isinstance(args[0].value, (cst.List, cst.Tuple)) or not any(_float_literal(leaf) for leaf in leaves) or all(
            _float_literal(leaf) or isinstance(leaf, cst.Integer) for leaf in leaves):
        return None
    values = [_unsigned(leaf) for leaf in leaves if not (_float_literal(leaf) or isinstance(leaf, cst.Integer))]
    if all(python_number_kind(value, ref.scope, ctx.resolver) in ("int", "float") for value in values):
        return None  # `[[1.0, dt], [0.0, 1.0]]` with `dt=0.1`: Python numbers only, the same dtype in both
    atoms = [_read_atoms(value) for value in values]
    if all(a is not None for a in atoms):
        others = list(dict.fromkeys(ctx.code(atom).strip() for found in atoms for atom in found))
        if len(others) <= 8:
            return cst.parse_expression(f"{ctx.use_jnp()}.result_type({ctx.use_jnp()}.float64, {', '.join(others)})")
    signs = getattr(ctx, "_complex_signs", None)
    if signs is None:
        signs = ctx._complex_signs = bool(_COMPLEX_SIGNS.search("\n".join(ctx.source_lines)))  # type: ignore[attr-defined]
    return None if signs else cst.Name("float")


def _unsigned(node: cst.BaseExpression) -> cst.BaseExpression:
    """``-s`` -> ``s``: the same dtype."""
    while isinstance(node, cst.UnaryOperation) and isinstance(node.operator, (cst.Minus, cst.Plus)):
        node = node.expression
    return node


def _read_atoms(node: cst.BaseExpression) -> list[cst.BaseExpression] | None:
    """The plain reads ``node`` computes from by arithmetic with number literals (``-st * ca`` -> ``st``, ``ca``):
    its dtype is theirs promoted (the literals are weakly typed); None when it calls or reads anything else."""
    if _plain_read(node):
        return [node]
    if isinstance(node, (cst.Integer, cst.Float)):
        return []
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, (cst.Minus, cst.Plus)):
        return _read_atoms(node.expression)
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, (
            cst.Add, cst.Subtract, cst.Multiply, cst.Divide, cst.FloorDivide, cst.Power)):
        left, right = _read_atoms(node.left), _read_atoms(node.right)
        return None if left is None or right is None else left + right
    return None


def _plain_read(node: cst.BaseExpression) -> bool:
    """A name, ``a.b`` or ``p[0]``/``p[i]`` of one: cheap to name again, with no effect."""
    if isinstance(node, cst.Name):
        return True
    if isinstance(node, cst.Attribute):
        return _plain_read(node.value)
    if isinstance(node, cst.Subscript):
        return _plain_read(node.value) and all(
            isinstance(e.slice, cst.Index) and isinstance(e.slice.value, (cst.Integer, cst.Name)) for e in node.slice)
    return False


def _float_literal(node: cst.BaseExpression) -> bool:
    return isinstance(number_literal(node), float)


# NumPy functions whose result of Python numbers is a float64 scalar (NumPy 2: strongly typed, so `vol * np.sqrt(n)`
# is float64 for a float32 `vol`), where jax.numpy's of a traced Python number is weakly typed (float32 stays).
FLOAT_UFUNCS = frozenset(f"numpy.{name}" for name in (
    "sqrt cbrt exp exp2 expm1 log log2 log10 log1p sin cos tan arcsin arccos arctan arctan2 sinh cosh tanh arcsinh "
    "arccosh arctanh hypot deg2rad rad2deg degrees radians").split())


# ... and powers, where one argument at least is a float (`np.power(10.0, gain_db / 20)`); of ints NumPy's is int64.
FLOAT_POWERS = frozenset({"numpy.power"})


def float_valued(call: cst.Call) -> bool:
    """An argument is a float literal or a true division: the power is a float whatever the numbers are."""
    return any(isinstance(n, cst.Float) or (isinstance(n, cst.BinaryOperation) and isinstance(n.operator, cst.Divide))
               for a in call.args for n in (a.value, *descendants(a.value)))


def of_python_numbers(call: cst.Call, scope: Scope, resolver) -> bool:
    """Every argument is a parameter meant to be a real Python number (``periods=252``, ``rate: float``,
    ``periods=TRADING_DAYS`` with ``TRADING_DAYS = 252`` at module level), a number literal, ``np.pi``, a size
    (``x.shape[0]``), arithmetic on those, or a local name bound only to such arithmetic; and one at least is such a
    parameter."""
    found = [False]

    def number(node: cst.BaseExpression, scope: Scope, depth: int = 0) -> bool:
        if isinstance(node, (cst.Integer, cst.Float)) or size_expression(node):
            return True
        if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, (cst.Minus, cst.Plus)):
            return number(node.expression, scope, depth)
        if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, (cst.Add, cst.Subtract, cst.Multiply, cst.Divide)):
            return number(node.left, scope, depth) and number(node.right, scope, depth)
        if isinstance(node, (cst.Name, cst.Attribute)) and python_number_kind(node, scope, resolver) in ("int", "float"):
            return True  # `np.pi`, `TWO_PI = 2 * math.pi`
        if isinstance(node, cst.Name):
            found_in, bindings = scope.lookup(node.value)
            if bindings and all(isinstance(b, ParamBinding) and _real_number_param(b.param, found_in, resolver)
                                for b in bindings):
                found[0] = True
                return True
            # `w = 2.0 * np.pi * k / x.shape[0]`, then `np.cos(w)`: a local name bound only to such arithmetic
            return (depth < 4 and bool(bindings) and found_in is not None and found_in.kind != "module" and all(
                isinstance(b, ValueBinding) and not b.augmented and number(b.value, found_in, depth + 1) for b in bindings))
        return False

    return bool(call.args) and all(a.keyword is None and not a.star and number(a.value, scope) for a in call.args) and found[0]


def of_number_like_parameters(call: cst.Call, scope: Scope, resolver) -> list[str]:
    """hunt55 S1: the parameters of unknown kind (no default, no hint) that ``call``'s arguments compute with, when
    every argument is arithmetic on such parameters, Python numbers, literals, ``np.pi`` and sizes (as in
    ``of_python_numbers``), each parameter is used only as a number in its function (never indexed, iterated, given
    to ``len`` or read an attribute of), and the result meets another value there (``a * acc`` with
    ``a = np.exp(-dt / tau)``; not ``1 / (1 + np.exp(-x))``, where only literals meet it).  NumPy's result for Python
    numbers is a strongly typed float64 scalar, jax.numpy's weakly typed; casting the result to its own dtype
    (``OWN_DTYPE``) makes it strongly typed and changes nothing else: for arrays of any dtype jax.numpy's result
    dtype is NumPy's (an int16 ``k`` gives float32 in both).  Empty when not."""
    function_scope = scope
    while function_scope is not None and function_scope.kind != "function":
        function_scope = function_scope.parent
    if function_scope is None or not call.args or any(a.keyword is not None or a.star for a in call.args):
        return []
    found: list[str] = []

    def number(node: cst.BaseExpression, depth: int = 0) -> bool:
        if isinstance(node, (cst.Integer, cst.Float)) or size_expression(node):
            return True
        if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, (cst.Minus, cst.Plus)):
            return number(node.expression, depth)
        if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, (cst.Add, cst.Subtract, cst.Multiply, cst.Divide)):
            return number(node.left, depth) and number(node.right, depth)
        if isinstance(node, (cst.Name, cst.Attribute)) and python_number_kind(node, scope, resolver) in ("int", "float"):
            return True
        if not isinstance(node, cst.Name):
            return False
        found_in, bindings = scope.lookup(node.value)
        if found_in is not function_scope or not bindings:
            return False
        if all(isinstance(b, ParamBinding) for b in bindings):
            param = bindings[0].param
            if param.default is not None or param.annotation is not None or param.star:
                return False
            if node.value not in found:
                found.append(node.value)
            return True
        return depth < 4 and all(isinstance(b, ValueBinding) and not b.augmented and number(b.value, depth + 1)
                                 for b in bindings)

    if not all(number(a.value) for a in call.args) or not found:
        return []
    body = function_scope.node.body
    if any(_used_as_array(node, found) for node in descendants(body)):
        return []

    def other_value(name: cst.Name) -> bool:  # (a Python number keeps the result's dtype in both: `alpha * np.exp(x)`,
        if name.value in found or python_number_kind(name, scope, resolver) in ("int", "float"):  # `p * np.log(p)`)
            return False
        owner, bindings = scope.lookup(name.value)
        return not (bindings and all(isinstance(b, ParamBinding) and _real_number_param(b.param, owner, resolver)
                                     for b in bindings))

    return found if _meets_another_value(call, body, other_value) else []


def _used_as_array(node: cst.CSTNode, names: list[str]) -> bool:
    if isinstance(node, (cst.Subscript, cst.Attribute)):
        return isinstance(node.value, cst.Name) and node.value.value in names
    if isinstance(node, cst.For):
        return isinstance(node.iter, cst.Name) and node.iter.value in names
    if isinstance(node, cst.Call):
        return isinstance(node.func, cst.Name) and node.func.value == "len" and any(
            isinstance(a.value, cst.Name) and a.value.value in names for a in node.args)
    return False


def _meets_another_value(call: cst.Call, body: cst.BaseSuite, other_value) -> bool:
    """``call`` (or a name assigned it: ``a = np.exp(...)``) is an operand of arithmetic whose other side names a
    value ``other_value`` accepts (a parameter, a local), not only literals and Python numbers."""
    holders = {target.target.value for node in descendants(body) if isinstance(node, cst.Assign) and (
               node.value is call or any(n is call for n in descendants(node.value)))  # (`coeff = 2 * np.cos(w)`)
               for target in node.targets if isinstance(target.target, cst.Name)}

    def holds(node: cst.CSTNode) -> bool:
        return node is call or (isinstance(node, cst.Name) and node.value in holders) or any(
            n is call or (isinstance(n, cst.Name) and n.value in holders) for n in descendants(node))

    for node in descendants(body):
        if isinstance(node, cst.BinaryOperation):
            for side, other in ((node.left, node.right), (node.right, node.left)):
                callees = {id(n.func) for n in (other, *descendants(other)) if isinstance(n, cst.Call)}
                if holds(side) and not holds(other) and not isinstance(other, (cst.List, cst.Tuple)) and any(
                        isinstance(n, cst.Name) and id(n) not in callees and other_value(n)
                        for n in (other, *descendants(other))):  # (`log(x)`'s `log`, `float64(2)`'s: no values)
                    return True
    return False


def _real_number_param(param: cst.Param, scope: Scope | None, resolver) -> bool:
    """Hinted ``int``/``float``, or unhinted with an int or float default: a literal, or a name bound only to one
    where the function is defined (``TRADING_DAYS = 252`` at module level)."""
    annotation = param.annotation
    if annotation is not None:
        return isinstance(annotation.annotation, cst.Name) and annotation.annotation.value in ("int", "float")
    default = param.default
    if isinstance(default, cst.UnaryOperation) and isinstance(default.operator, (cst.Minus, cst.Plus)):
        default = default.expression
    if isinstance(default, cst.Name) and scope is not None and scope.parent is not None:
        return python_number_kind(default, scope.parent, resolver) in ("int", "float")
    return isinstance(default, (cst.Integer, cst.Float))


# NumPy functions that compute in float64 whatever float dtype their data has (`np.cov` of float32 data is float64:
# `dtype = np.result_type(m, np.float64)`; `np.interp` converts x, xp and fp to float64), where jax.numpy keeps the
# data's float32 under x64: parameter name -> position, and whether it may be complex (fp, m: its complex128).
_FLOAT64_MATH = {
    "numpy.cov": {"m": (0, True), "y": (1, True)},
    "numpy.corrcoef": {"x": (0, True), "y": (1, True)},
    "numpy.interp": {"x": (0, False), "xp": (1, False), "fp": (2, True)},
    # NumPy sums bincount's weights as float64 whatever their dtype; jax.numpy in theirs (int32 wraps, bool raises)
    "numpy.bincount": {"weights": (1, False)},
}
# ... and those whose result dtype is NumPy's promotion of the data with ``q``: float64 for a list or tuple of
# numbers (a Python float keeps the data's dtype, in both).
_QUANTILES = frozenset({"numpy.quantile", "numpy.percentile", "numpy.nanquantile", "numpy.nanpercentile"})


def widened_arguments(ref: NumpyRef, ctx: FileContext) -> set[tuple]:
    """``("widen", position, complex_ok)`` for each argument of ``ref``'s call to convert to the dtype NumPy computes
    in: ``jnp.asarray(x, dtype=jnp.result_type(x, jnp.float64))`` (``complex_ok``: a complex one stays complex), or
    ``dtype=float``. Only plain reads (``x``, ``self.x``, ``x[0]``), which can be named twice."""
    call = ref.call
    if call is None or any(a.star for a in call.args):
        return set()
    found: set[tuple] = set()

    def position_of(name: str, index: int) -> int | None:
        for position, arg in enumerate(call.args):
            if (arg.keyword is not None and arg.keyword.value == name) or (arg.keyword is None and position == index):
                return position
        return None

    if ref.qualname in _FLOAT64_MATH:
        for name, (index, complex_ok) in _FLOAT64_MATH[ref.qualname].items():
            position = position_of(name, index)
            if position is None or _is_none(call.args[position].value):
                continue  # `weights=None`, `np.cov(x, None)`: nothing to convert
            value = call.args[position].value
            if not complex_ok or _plain_read(value):  # (`dtype=float` names the argument once)
                # `w` defaulting to None (or bound to it): `None if w is None else jnp.asarray(w, ...)`
                found.add(("widen", position, complex_ok, _may_be_none(value, ref.scope)))
    elif ref.qualname in _QUANTILES:
        data, q = position_of("a", 0), position_of("q", 1)
        if (data is not None and q is not None and _plain_read(call.args[data].value)
                and _number_sequence(call.args[q].value, ref.scope, ctx)):
            found.add(("widen", data, True, False))
    return found


def _is_none(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.Name) and node.value == "None"


def _may_be_none(node: cst.BaseExpression, scope: Scope) -> bool:
    """A name with a None default or bound to None somewhere (``w=None``; ``w = None`` then ``w = np.ones(n)``)."""
    if not isinstance(node, cst.Name):
        return False
    _, bindings = scope.lookup(node.value)
    return any((isinstance(b, ParamBinding) and b.param.default is not None and _is_none(b.param.default))
               or (isinstance(b, ValueBinding) and _is_none(b.value)) for b in bindings or ())


def _number_sequence(node: cst.BaseExpression, scope: Scope, ctx: FileContext, depth: int = 0) -> bool:
    """A list or tuple display of numbers, or a name bound only to one (``QUANTILES = (0.25, 0.5, 0.75)``)."""
    if isinstance(node, (cst.List, cst.Tuple)):
        return bool(node.elements) and all(
            isinstance(e, cst.Element) and python_number_kind(e.value, scope, ctx.resolver) in ("int", "float")
            for e in node.elements)
    if isinstance(node, cst.Name) and depth < 4:
        found, bindings = scope.lookup(node.value)
        return found is not None and bool(bindings) and all(
            isinstance(b, ValueBinding) and not b.augmented and _number_sequence(b.value, found, ctx, depth + 1)
            for b in bindings)
    return False


def convolution_dtype(ref: NumpyRef, ctx: FileContext) -> cst.BaseExpression | None:
    """``preferred_element_type=jnp.result_type(a, v)`` for ``np.convolve(a, v)``/``np.correlate(a, v)``: NumPy sums
    integer data in its own dtype (uint8 wraps, int32 stays exact past 2**24), jax.numpy converts it to float first
    (``[16777217, 3]`` came back as ``[16777216., 3.]``); with the keyword XLA accumulates in NumPy's dtype. Float
    data gets its own dtype, as before. None when an argument cannot be named twice cheaply or is a list display."""
    call = ref.call
    if call is None or any(a.star for a in call.args) or any(
            a.keyword is not None and a.keyword.value in ("preferred_element_type", "precision") for a in call.args):
        return None
    positional = [a.value for a in call.args if a.keyword is None]
    keywords = {a.keyword.value: a.value for a in call.args if a.keyword is not None}
    operands = positional[:2] + [keywords[k] for k in ("a", "v") if k in keywords]
    if len(operands) != 2:
        return None
    jnp = ctx.use_jnp()
    dtypes = [_dtype_code(op, ref.scope, ctx, jnp) for op in operands]
    if None in dtypes:
        return None
    return cst.parse_expression(f"{jnp}.result_type({', '.join(dtypes)})")


_FLOAT_MADE = frozenset({"numpy.ones", "numpy.zeros", "numpy.empty", "numpy.full"})


def _dtype_code(node: cst.BaseExpression, scope: Scope, ctx: FileContext, jnp: str) -> str | None:
    """Code naming ``node``'s dtype for ``jnp.result_type``: ``node`` itself when cheap to repeat, the ``dtype=`` of a
    NumPy constructor (``np.ones(2, dtype=counts.dtype)``), float64 for ``np.ones(n)``; None otherwise."""
    if _cheap_read(node):
        return ctx.code(node).strip()
    if isinstance(node, (cst.List, cst.Tuple)):  # `[1, 1]`: NumPy's int64 (or float64) array of it
        return _literal_display_dtype(node, jnp)
    if not isinstance(node, cst.Call) or any(a.star for a in node.args):
        return None
    qualname = ctx.resolver.qualname(node.func, scope) or ""
    dtype = next((a.value for a in node.args if a.keyword is not None and a.keyword.value == "dtype"), None)
    if (isinstance(node.func, cst.Attribute) and node.func.attr.value == "astype" and qualname == ""
            and len(node.args) == 1 and node.args[0].keyword is None):
        dtype = node.args[0].value  # `mask.astype(int)`: that dtype
        return _dtype_name(ctx.code(dtype).strip(), jnp) if _cheap_read(dtype) else None
    if dtype is not None and qualname in _FLOAT_MADE | {"numpy.array", "numpy.asarray"} and _cheap_read(dtype):
        return _dtype_name(ctx.code(dtype).strip(), jnp)
    positional = [a for a in node.args if a.keyword is None]
    if dtype is None and qualname in _FLOAT_MADE - {"numpy.full"} and len(positional) == len(node.args) == 1:
        return f"{jnp}.float64"  # `np.ones(3)`: float64 in NumPy (float32 without x64, as jax.numpy's)
    if dtype is None and qualname in ("numpy.array", "numpy.asarray") and len(positional) == len(node.args) == 1 and (
            isinstance(positional[0].value, (cst.List, cst.Tuple))):
        return _literal_display_dtype(positional[0].value, jnp)  # `np.array([1, 2, 1])`
    return None


def _dtype_name(code: str, jnp: str) -> str:
    """A dtype for ``jnp.result_type``: Python's ``int``/``float``/``complex`` as NumPy reads them, 64-bit (for
    result_type they are weak, which keeps an int8 operand's dtype where NumPy's int64 kernel widens it)."""
    return {"int": f"{jnp}.int64", "float": f"{jnp}.float64", "complex": f"{jnp}.complex128"}.get(code, code)


def _literal_display_dtype(node: cst.List | cst.Tuple, jnp: str) -> str | None:
    """The dtype NumPy gives a flat list or tuple of number literals: int64, or float64 with a float among them."""
    values = [number_literal(e.value) if isinstance(e, cst.Element) else None for e in node.elements]
    if not values or any(v is None or isinstance(v, complex) for v in values):
        return None
    return f"{jnp}.float64" if any(isinstance(v, float) for v in values) else f"{jnp}.int64"


def _cheap_read(node: cst.BaseExpression) -> bool:
    """A plain read, or one sliced with literals and names (``w[::-1]``, ``x[:n]``): no call, nothing to repeat."""
    if _plain_read(node):
        return True
    if isinstance(node, cst.Subscript) and _cheap_read(node.value):
        for element in node.slice:
            part = element.slice
            if isinstance(part, cst.Slice):
                bounds = [b for b in (part.lower, part.upper, part.step) if b is not None]
                if not all(isinstance(_unsigned(b), (cst.Integer, cst.Name)) for b in bounds):
                    return False
            elif not (isinstance(part, cst.Index) and isinstance(_unsigned(part.value), (cst.Integer, cst.Name))):
                return False
        return True
    return False
