"""Boolean-mask writes with an exact ``jnp.where`` form: ``x[m] = v``, ``x[m] = y[m]``, ``x[m] op= v``.

NumPy's ``x[m] = v`` with a boolean array ``m`` of ``x``'s shape writes ``v`` where ``m`` holds, which is
``jnp.where(m, v, x)`` (a shape that does not depend on the data, so it can be jitted) when ``v`` is one
number; ``x[m] = y[m]`` is ``jnp.where(m, y, x)`` when ``y`` has ``m``'s shape; ``x[m] op= v`` is
``jnp.where(m, x op v, x)`` (``x op v`` is computed everywhere, but ``where`` keeps ``x`` where ``m`` does
not hold, and jax.numpy never raises or warns).  NumPy casts what it writes to ``x``'s dtype; the rewrite
casts with ``jnp.asarray(..., x.dtype)`` (rules/functional_update.py).

What must be proved, and how:

- ``m`` is a boolean *array* (not a Python bool, whose ``~`` is an integer, nor an integer array, whose
  ``~`` is an integer index): a comparison with an operand derived elementwise from ``x``, ``~``/``&``/``|``/
  ``^`` of such masks (the others at least booleans), ``np.isnan``/``np.isfinite``/``np.logical_and``...,
  ``a.any(axis=...)``/``a.all(...)``, a name bound only to those.
- ``m`` has ``x``'s shape.  A mask of fewer axes selects leading axes (rows), another meaning.  Here ``m``
  is a broadcast with ``x`` itself as one operand (``x < 0``, ``np.abs(x) > tol``, ``alt < x``), so it has
  at least ``x``'s axes; NumPy raises IndexError for a mask with more axes or other lengths, so whenever it
  does not raise the shapes agree.  The same argument gives ``y[m]`` the right shape when ``y`` is also an
  operand of the broadcast (``improve = alt < dist; dist[improve] = alt[improve]``): ``y[m]`` needs at
  least ``m``'s axes, the broadcast gives ``y`` at most as many, so ``y`` has ``m``'s shape.
- A named mask is the value of the nearest ``m = ...`` before the write in the same block, and nothing in
  between rebinds ``m``, ``x``, ``y`` or another operand of the mask (writes into them keep their shapes).
  Arrays made with one shape (``np.zeros(n)`` twice with ``n`` not rebound in between, ``np.full(a.shape,
  v)`` and ``a``, ``np.zeros_like(a)`` and ``a``) stand for each other.  Statement order is trusted only in
  a function that declares nothing ``global`` or ``nonlocal`` (nor does a function nested in it), where no
  call can rebind its locals.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

import libcst as cst

from np2jax.analysis.dtype_sources import dtype_source
from np2jax.analysis.indexing import COMPARISON_OPERATORS, ELEMENTWISE_PREDICATES, ELEMENTWISE_VALUES, IndexClassifier
from np2jax.analysis.loops import contains
from np2jax.analysis.resolve import is_numpy
from np2jax.analysis.scope import ValueBinding, dotted_name
from np2jax.analysis.value_kinds import ValueClassifier
from np2jax.visitors import FastVisitor, child_nodes, visit

BROADCAST_OPERATORS = (cst.Add, cst.Subtract, cst.Multiply, cst.Divide, cst.FloorDivide, cst.Modulo, cst.Power,
                       cst.BitAnd, cst.BitOr, cst.BitXor, cst.LeftShift, cst.RightShift)
LOGICAL_OPERATORS = (cst.BitAnd, cst.BitOr, cst.BitXor)
# NumPy functions whose result is the broadcast of their positional arguments, elementwise
BROADCAST_FUNCTIONS = ELEMENTWISE_VALUES | frozenset({
    "add", "subtract", "multiply", "divide", "true_divide", "floor_divide", "mod", "remainder", "power",
    "maximum", "minimum", "fmax", "fmin", "hypot", "arctan2", "log1p", "expm1", "log2", "log10", "sin", "cos",
    "tan", "tanh", "floor", "ceil", "rint", "trunc", "reciprocal", "conj", "conjugate", "where",
})
BOOLEAN_FUNCTIONS = ELEMENTWISE_PREDICATES | frozenset({"logical_and", "logical_or", "logical_xor", "isclose"})
SAME_SHAPE_METHODS = frozenset({"copy", "astype", "conj", "conjugate"})
EMPTY: Mapping[str, frozenset[str]] = MappingProxyType({})


@dataclass(frozen=True)
class WhereWrite:
    """``x[m] = v`` / ``x[m] op= v`` as ``jnp.where``: ``masked`` holds the arrays ``y`` when ``v`` is ``y[m]`` or
    elementwise arithmetic of such ``y[m]`` and numbers (``masked_leaves``), else None: ``v`` is one number."""

    masked: tuple[cst.Name, ...] | None


@dataclass(frozen=True)
class _Mask:
    array: bool  # certainly a NumPy boolean (array or numpy.bool_), never a Python bool
    covers: frozenset[str]  # names the mask's shape is a broadcast of (at least their axes)


def masked_reduction(read: cst.Subscript, classifier: IndexClassifier) -> bool:
    """``x[m]`` reduced whole (``x[m].sum()``, ``np.mean(x[m])``) with ``m`` a boolean mask of ``x``'s shape, as
    ``where_write`` proves it for ``x[m] = 0``: ``jnp.sum(x, where=m)`` reduces the same elements, with a shape
    that does not depend on the data."""
    return where_write(read, cst.Integer("0"), False, classifier, reading=True) is not None


def where_write(target: cst.Subscript, value: cst.BaseExpression | None, augmented: bool,
                classifier: IndexClassifier, reading: bool = False) -> WhereWrite | None:
    """The ``jnp.where`` form of the write ``target = value`` (``target op= value``), or None when it has no
    form proved exact (see the module docstring)."""
    if value is None or not isinstance(target.value, cst.Name) or len(target.slice) != 1:
        return None
    index = target.slice[0].slice
    if not isinstance(index, cst.Index):
        return None
    name = target.value.value
    mask_expr = index.value
    steady = {name}  # names that must keep their binding between the mask and the write
    reads = masked_leaves(value, mask_expr, classifier)
    if reads is None:
        return None
    leaves = [read.value for read in reads]  # the arrays `y` read through the mask
    steady.update(leaf.value for leaf in leaves)
    # Statements before the write, read in order only where no call can rebind a local: in a function that
    # declares nothing `global` or `nonlocal` (nor do functions nested in it)
    scope = classifier.scope
    ordered = scope.kind == "function" and not scope.globals and not scope.nonlocals and not _declares_nonlocal(scope.node)
    units = (_units_before(scope.node, target, reading) or []) if ordered else []
    if isinstance(mask_expr, cst.Name) and mask_expr.value != name:
        found = _definition(units, mask_expr.value)
        if found is None:
            return None
        definition, between = found
        mask = _mask(definition, classifier, frozenset({name}))
        if mask is not None and between & (steady | mask.covers | {mask_expr.value}):
            return None  # the mask, the array or an operand the mask was made from changed in between
    else:
        definition = mask_expr
        mask = _mask(mask_expr, classifier, frozenset({name}))
    if mask is None:
        return None
    extra = _derived_covers(units, mask.covers - {name}, classifier)
    covers = mask.covers.union(*extra.values())
    alike = frozenset({name} | {other for other in covers if _same_shape(units, name, other)})
    if not alike & covers:
        return None
    mask = _mask(definition, classifier, alike, extra=extra)
    if mask is None or not mask.array:
        return None  # perhaps a Python bool: `~` of it is an integer index
    if leaves and any(leaf.value not in mask.covers | alike for leaf in leaves):
        return None
    if leaves and not (len(reads) == 1 and reads[0] is value) and _may_narrow(target.value, value, classifier):
        return None
    return WhereWrite(tuple(leaves) or None)


def _may_narrow(target: cst.Name, value: cst.BaseExpression, classifier: IndexClassifier) -> bool:
    """Computed values (``img[m] * 1.8``) that may be of another kind than the array written: a float into an
    array that may hold integers is cast, and where the values leave the integer type's range NumPy wraps and
    JAX saturates (uint8: 360.0 is 104 in NumPy, 255 in JAX).  Only kinds known to agree pass."""
    values = ValueClassifier(classifier.resolver)
    written = dtype_source(target, classifier.scope, classifier.resolver, values)
    computed = dtype_source(value, classifier.scope, classifier.resolver, values)
    if computed is None or written is None:
        return True
    if written == computed:
        return False
    return not (written[0] == "fixed" and written[1] in ("float", "float64", "complex") and computed[0] == "fixed"
                and computed[1] in ("float", "float64", "int", "bool"))


def _one_number(value: cst.BaseExpression, classifier: IndexClassifier) -> bool:
    return classifier.is_scalar(value) or classifier.is_int(value)


def masked_leaves(value: cst.BaseExpression, mask: cst.BaseExpression, classifier: IndexClassifier,
                  depth: int = 0) -> list[cst.Subscript] | None:
    """The reads ``y[mask]`` that make up ``value`` elementwise (``y[m]``, ``(1 / r - 1) * over[m]``,
    ``1.0 / np.sqrt(d[m])``, beside numbers): computed on the whole arrays, where ``m`` holds it gives the same
    elements.  ``[]``: none (one number, which may reduce a read: ``x[m].mean()`` stays as it is); None: something
    else (an array without the mask, ``np.cumsum(y[m])``)."""
    if depth > 12:
        return None
    if _masked_array(value, mask, classifier) is not None:
        return [value]
    parts = _elementwise_parts(value, lambda call: classifier.resolver.qualname(call.func, classifier.scope) or "")
    if parts is None:
        return [] if _one_number(value, classifier) else None
    found: list[cst.Subscript] = []
    for part in parts:
        inner = masked_leaves(part, mask, classifier, depth + 1)
        if inner is None:
            return None
        found.extend(inner)
    return found


def _elementwise_parts(value: cst.BaseExpression, qualname) -> list[cst.BaseExpression] | None:
    """The operands of an elementwise operation (arithmetic, ``np.sqrt(...)``); None for anything else."""
    if isinstance(value, cst.BinaryOperation) and isinstance(value.operator, BROADCAST_OPERATORS):
        return [value.left, value.right]
    if isinstance(value, cst.UnaryOperation) and isinstance(value.operator, (cst.Minus, cst.Plus)):
        return [value.expression]
    if isinstance(value, cst.Call) and value.args and all(a.keyword is None and not a.star for a in value.args):
        module, _, short = qualname(value).rpartition(".")
        if module in ("numpy", "jax.numpy") and short in BROADCAST_FUNCTIONS:
            return [a.value for a in value.args]
    return None


def _reads_through(node: cst.CSTNode, mask: cst.BaseExpression) -> bool:
    return (isinstance(node, cst.Subscript) and isinstance(node.value, cst.Name) and len(node.slice) == 1
            and isinstance(node.slice[0].slice, cst.Index) and node.slice[0].slice.value.deep_equals(mask))


def unmask(value: cst.BaseExpression, mask: cst.BaseExpression, jnp_alias: str) -> cst.BaseExpression:
    """``value`` (as rewritten: ``jnp.sqrt``) with each elementwise read ``y[mask]`` replaced by ``y``, the whole
    array (see ``masked_leaves``); reads inside anything else (``x[m].mean()``) are left as they are."""
    if _reads_through(value, mask):
        return value.value.with_changes(lpar=value.lpar, rpar=value.rpar)

    def spelled(call: cst.Call) -> str:
        name = dotted_name(call.func) or ""
        return "jax.numpy" + name[len(jnp_alias):] if name.startswith(jnp_alias + ".") else name

    parts = _elementwise_parts(value, spelled)
    if parts is None:
        return value
    new = [unmask(part, mask, jnp_alias) for part in parts]
    if isinstance(value, cst.BinaryOperation):
        return value.with_changes(left=new[0], right=new[1])
    if isinstance(value, cst.UnaryOperation):
        return value.with_changes(expression=new[0])
    return value.with_changes(args=[arg.with_changes(value=part) for arg, part in zip(value.args, new)])


def _masked_array(value: cst.BaseExpression, mask: cst.BaseExpression, classifier: IndexClassifier) -> cst.Name | None:
    """``y`` when ``value`` is ``y[mask]`` with the very same mask: the same name (never rebound, checked by
    the caller), or the same inline expression made of names, numbers and NumPy calls (evaluated twice, to the
    same array)."""
    if not (isinstance(value, cst.Subscript) and isinstance(value.value, cst.Name) and len(value.slice) == 1
            and isinstance(value.slice[0].slice, cst.Index)):
        return None
    other = value.slice[0].slice.value
    if not pure_expression(mask, classifier) or not other.deep_equals(mask):
        return None
    return value.value


PURE_BUILTINS = frozenset({"builtins.len", "builtins.int", "builtins.float", "builtins.abs", "builtins.min", "builtins.max", "builtins.round"})


def pure_expression(node: cst.CSTNode, classifier: IndexClassifier) -> bool:
    """No call other than of a NumPy function outside numpy.random or of ``len``, ``int``, ``min`` ..., no walrus,
    no lambda: evaluated twice, it gives the same value."""
    finder = _Impure(classifier)
    visit(node, finder)
    return not finder.found


class _Impure(FastVisitor):
    def __init__(self, classifier: IndexClassifier) -> None:
        self.classifier = classifier
        self.found = False

    def visit_Call(self, node: cst.Call) -> None:
        qualname = self.classifier.resolver.qualname(node.func, self.classifier.scope) or ""
        if (not is_numpy(qualname) or qualname.startswith("numpy.random")) and qualname not in PURE_BUILTINS:
            self.found = True

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        self.found = True

    def visit_Lambda(self, node: cst.Lambda) -> None:
        self.found = True


def _mask(expr: cst.BaseExpression, classifier: IndexClassifier, arrays: frozenset[str], depth: int = 0,
          extra: Mapping[str, frozenset[str]] = EMPTY) -> _Mask | None:
    """Whether ``expr`` is a boolean (``array``: certainly a NumPy one, given that the names ``arrays`` are
    arrays) and which names its shape covers (``extra``: more names a name's own value covers, see
    ``_derived_covers``); None when it may not be a boolean at all."""
    if depth > 8:
        return None
    if isinstance(expr, cst.Comparison):
        if len(expr.comparisons) != 1 or not isinstance(expr.comparisons[0].operator, COMPARISON_OPERATORS):
            return None
        operands = (expr.left, expr.comparisons[0].comparator)
        covers = _covers(operands[0], classifier, extra) | _covers(operands[1], classifier, extra)
        return _Mask(bool(covers & arrays) or any(_numpy_call(o, classifier) for o in operands), covers)
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.BitInvert):
        inner = _mask(expr.expression, classifier, arrays, depth + 1, extra)
        return inner if inner is not None and inner.array else None  # `~True` is -2
    if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, LOGICAL_OPERATORS):
        left, right = _mask(expr.left, classifier, arrays, depth + 1, extra), _mask(expr.right, classifier, arrays, depth + 1, extra)
        if left is None or right is None:
            return None  # `b & ints` is an integer array
        return _Mask(left.array or right.array, left.covers | right.covers)
    if isinstance(expr, cst.Call):
        func = expr.func
        if isinstance(func, cst.Attribute) and func.attr.value in ("any", "all") and expr.args:
            return _Mask(True, frozenset())  # `(a != 0).any(axis=0)`: a NumPy boolean, of another shape
        qualname = classifier.resolver.qualname(func, classifier.scope) or ""
        if is_numpy(qualname) and qualname.rsplit(".", 1)[-1] in BOOLEAN_FUNCTIONS and not any(a.star for a in expr.args):
            positional = [a.value for a in expr.args if a.keyword is None]
            covers = frozenset().union(*(_covers(a, classifier, extra) for a in positional))
            return _Mask(True, covers)
        return None
    if isinstance(expr, cst.Name):  # a boolean through a name: its shape is not followed
        _, bindings = classifier.scope.lookup(expr.value)
        if not bindings or not all(isinstance(b, ValueBinding) and not b.augmented for b in bindings):
            return None
        found = [_mask(b.value, classifier, arrays, depth + 1) for b in bindings]
        if any(f is None for f in found):
            return None
        return _Mask(all(f.array for f in found), frozenset())
    return None


def _numpy_call(expr: cst.BaseExpression, classifier: IndexClassifier) -> bool:
    """A call of an elementwise NumPy function: its result is a NumPy array or scalar, never a Python number."""
    if not isinstance(expr, cst.Call):
        return False
    qualname = classifier.resolver.qualname(expr.func, classifier.scope) or ""
    return is_numpy(qualname) and qualname.rsplit(".", 1)[-1] in BROADCAST_FUNCTIONS


def _covers(expr: cst.BaseExpression, classifier: IndexClassifier,
            extra: Mapping[str, frozenset[str]] = EMPTY) -> frozenset[str]:
    """Names whose axes the result of ``expr`` has at least (broadcasting keeps every axis of an operand)."""
    if isinstance(expr, cst.Name):
        return frozenset({expr.value}) | extra.get(expr.value, frozenset())
    if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, BROADCAST_OPERATORS):
        return _covers(expr.left, classifier, extra) | _covers(expr.right, classifier, extra)
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, (cst.Minus, cst.Plus, cst.BitInvert)):
        return _covers(expr.expression, classifier, extra)
    if isinstance(expr, cst.Attribute) and expr.attr.value in ("real", "imag"):
        return _covers(expr.value, classifier, extra)
    if isinstance(expr, cst.Call) and not any(a.star for a in expr.args):
        func = expr.func
        if isinstance(func, cst.Attribute) and func.attr.value in SAME_SHAPE_METHODS:
            return _covers(func.value, classifier, extra)
        qualname = classifier.resolver.qualname(func, classifier.scope) or ""
        if is_numpy(qualname) and qualname.rsplit(".", 1)[-1] in BROADCAST_FUNCTIONS:
            positional = [a.value for a in expr.args if a.keyword is None]
            return frozenset().union(*(_covers(a, classifier, extra) for a in positional))
    return frozenset()


def _derived_covers(units: list[cst.CSTNode], names: frozenset[str], classifier: IndexClassifier,
                    depth: int = 0) -> dict[str, frozenset[str]]:
    """For each of ``names`` made by the nearest ``name = value`` among ``units`` (the statements before the write
    in its block), the names ``value`` covers, followed through their own such bindings (``drift = np.abs(w -
    target)`` then ``need = drift > band``: ``drift`` covers ``w`` and ``target``). Only where nothing after that
    binding rebinds the name or what ``value`` covers: then at the write ``name`` still has at least their axes."""
    found: dict[str, frozenset[str]] = {}
    if depth > 3:
        return found
    for name in names:
        definition = _definition(units, name)
        if definition is None:
            continue
        value, between = definition
        reads = _covers(value, classifier) - {name}
        if not reads or between & (reads | {name}):
            continue
        deeper = _derived_covers(units, reads, classifier, depth + 1)
        found[name] = reads.union(*deeper.values())
    return found


def _definition(units: list[cst.CSTNode], mask: str) -> tuple[cst.BaseExpression, set[str]] | None:
    """The value of the nearest ``mask = value`` among ``units`` (the statements before the write in its block),
    with the names the statements after it bind; None if there is none."""
    between: set[str] = set()
    for unit in reversed(units):
        if (isinstance(unit, cst.Assign) and len(unit.targets) == 1 and isinstance(unit.targets[0].target, cst.Name)
                and unit.targets[0].target.value == mask):
            return unit.value, between
        between |= _bound_names(unit)
    return None


SHAPE_CONSTRUCTORS = frozenset({"zeros", "ones", "empty", "full"})
LIKE_CONSTRUCTORS = frozenset({"zeros_like", "ones_like", "empty_like", "full_like", "copy"})


def _same_shape(units: list[cst.CSTNode], name: str, other: str) -> bool:
    """Do ``name`` and ``other`` certainly have one shape at the write: the nearest bindings before it, in its
    block, make them with one shape (``np.zeros(n)`` twice, ``np.full(a.shape, v)`` and ``a``,
    ``np.zeros_like(a)`` and ``a``), and nothing in between rebinds what that shape was read from (augmented
    assignments and writes keep a shape)."""
    mine, theirs = _shape_key(units, name), _shape_key(units, other)
    return mine is not None and (mine == theirs or mine == ("like", other)) or theirs == ("like", name)


def _shape_key(units: list[cst.CSTNode], name: str) -> tuple[str, str] | None:
    """``("like", a)`` or ``("shape", code of S)`` for the nearest binding of ``name`` among ``units``."""
    later: set[str] = set()
    for unit in reversed(units):
        bound = _bound_names(unit)
        if name not in bound:
            later |= bound
            continue
        if isinstance(unit, cst.AugAssign) and isinstance(unit.target, cst.Name):
            later |= bound
            continue  # `x += v` keeps x's shape
        if not (isinstance(unit, cst.Assign) and len(unit.targets) == 1 and isinstance(unit.targets[0].target, cst.Name)):
            return None
        key, reads = _constructed_shape(unit.value)
        return key if key is not None and not reads & later else None
    return None


def _constructed_shape(value: cst.BaseExpression) -> tuple[tuple[str, str] | None, set[str]]:
    """The shape key of a new array made by ``value``, and the names it is read from."""
    if not isinstance(value, cst.Call) or any(a.star for a in value.args):
        return None, set()
    func = value.func
    positional = [a.value for a in value.args if a.keyword is None]
    if any(a.keyword is not None and a.keyword.value == "shape" for a in value.args):
        return None, set()
    if isinstance(func, cst.Attribute) and func.attr.value in ("copy", "astype") and isinstance(func.value, cst.Name):
        return ("like", func.value.value), {func.value.value}
    short = func.attr.value if isinstance(func, cst.Attribute) else func.value if isinstance(func, cst.Name) else ""
    if not positional or not (isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name)
                              and func.value.value in ("np", "numpy")):
        return None, set()
    first = positional[0]
    if short in LIKE_CONSTRUCTORS and isinstance(first, cst.Name):
        return ("like", first.value), {first.value}
    if short in SHAPE_CONSTRUCTORS:
        if isinstance(first, cst.Attribute) and first.attr.value == "shape" and isinstance(first.value, cst.Name):
            return ("like", first.value.value), {first.value.value}
        reads = _names(first)
        if reads is None:
            return None, set()
        return ("shape", cst.Module([]).code_for_node(first)), reads
    return None, set()


def _names(node: cst.BaseExpression) -> set[str] | None:
    """The names a shape expression reads: made of names, numbers, ``a.shape[i]``/``len(a)``-free arithmetic and
    tuples only (None otherwise: a call could give another value each time)."""
    if isinstance(node, cst.Name):
        return {node.value}
    if isinstance(node, cst.Integer):
        return set()
    if isinstance(node, cst.Tuple):
        found = [_names(e.value) for e in node.elements]
        return None if any(f is None for f in found) else set().union(*found)
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, (cst.Add, cst.Subtract, cst.Multiply, cst.FloorDivide)):
        left, right = _names(node.left), _names(node.right)
        return None if left is None or right is None else left | right
    return None


def _units_before(root: cst.CSTNode, target: cst.Subscript, reading: bool = False) -> list[cst.CSTNode] | None:
    """The statements of the write's block before it (a simple statement line counts as its small
    statements), or None if the write is not found as a statement of a block of ``root``'s own scope.
    ``reading``: ``target`` is read in a simple statement (``return x[m].sum()``), not written."""
    for block in _blocks(root):
        units: list[cst.CSTNode] = []
        for statement in block:
            small = statement.body if isinstance(statement, (cst.SimpleStatementLine, cst.SimpleStatementSuite)) else [statement]
            for unit in small:
                if _writes_into(unit, target) if not reading else (
                        isinstance(statement, (cst.SimpleStatementLine, cst.SimpleStatementSuite)) and contains(unit, target)):
                    return units
                units.append(unit)
    return None


def _writes_into(unit: cst.CSTNode, target: cst.Subscript) -> bool:
    if isinstance(unit, cst.Assign):
        return any(t.target is target for t in unit.targets)
    return isinstance(unit, cst.AugAssign) and unit.target is target


def _blocks(node: cst.CSTNode):
    """Every statement list of ``node``'s scope (nested functions and classes are other scopes)."""
    if isinstance(node, (cst.Module, cst.IndentedBlock)):
        yield list(node.body)
    elif isinstance(node, cst.SimpleStatementSuite):  # `if c: x[m] = 0`
        yield [node]
    for child in child_nodes(node):
        if isinstance(child, (cst.FunctionDef, cst.ClassDef, cst.Lambda)) or not isinstance(
                child, (cst.BaseStatement, cst.BaseSuite, cst.Else, cst.ExceptHandler, cst.Finally)):
            continue
        yield from _blocks(child)


def _bound_names(node: cst.CSTNode) -> set[str]:
    collector = _Bindings()
    visit(node, collector)
    return collector.names


def _declares_nonlocal(root: cst.CSTNode) -> bool:
    collector = _Bindings()
    visit(root, collector)
    return bool(collector.nonlocals)


SHAPE_ATTRIBUTES = frozenset({"shape", "strides", "dtype"})  # set in place, they give the array another shape


class _Bindings(FastVisitor):
    """Names a statement binds: assignment targets (not subscripts or attributes, but ``x.shape = s``: a new shape),
    loop and ``with`` targets,
    walrus, ``del``, imports, definitions, ``except ... as``; and names declared ``nonlocal``."""

    def __init__(self) -> None:
        self.names: set[str] = set()
        self.nonlocals: set[str] = set()

    def _target(self, node: cst.BaseExpression | None) -> None:
        if isinstance(node, cst.Name):
            self.names.add(node.value)
        elif (isinstance(node, cst.Attribute) and node.attr.value in SHAPE_ATTRIBUTES
              and isinstance(node.value, cst.Name)):
            self.names.add(node.value.value)  # `col.shape = (-1, 1)`: the same array, of another shape (hunt43 S1)
        elif isinstance(node, (cst.Tuple, cst.List)):
            for element in node.elements:
                self._target(element.value)
        elif isinstance(node, cst.StarredElement):
            self._target(node.value)

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        self._target(node.target)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._target(node.target)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self._target(node.target)

    def visit_For(self, node: cst.For) -> None:
        self._target(node.target)

    def visit_CompFor(self, node: cst.CompFor) -> None:
        self._target(node.target)

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        self._target(node.target)

    def visit_AsName(self, node: cst.AsName) -> None:
        self._target(node.name)

    def visit_Del(self, node: cst.Del) -> None:
        self._target(node.target)

    def visit_ImportAlias(self, node: cst.ImportAlias) -> None:
        name = node.asname.name if node.asname is not None else node.name
        self._target(name if isinstance(name, cst.Name) else cst.Name(str(node.evaluated_name).split(".")[0]))

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.names.add(node.name.value)

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self.names.add(node.name.value)

    def visit_Nonlocal(self, node: cst.Nonlocal) -> None:
        self.nonlocals.update(item.name.value for item in node.names)

    def visit_Global(self, node: cst.Global) -> None:
        self.names.update(item.name.value for item in node.names)
