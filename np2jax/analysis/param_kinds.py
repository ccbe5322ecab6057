"""Parameters ``jax.jit`` can never keep static: the ones that hold arrays, lists, dicts or sets.

A static argument must be hashable: an ndarray, a list, a dict or a set there raises "Non-hashable static
arguments" on every call.  So a parameter is never static when the code says it holds one (also when an
``if`` or ``math.*`` looks at its elements: that test is then on traced values, NPJ301 or ``jax.lax.cond``):

* its annotation's outer type is one (``np.ndarray``, ``Dict[str, int]``, ``Optional[List[int]]``; the
  ``int`` inside ``Dict[str, int]`` says nothing about the parameter itself);
* its docstring entry says so (``a : array-like, shape (3,)``, ``v (np.ndarray): ...``,
  ``:type q: list``);
* the function indexes it (``a[2]``), unpacks it (``w, x, y, z = q``, ``f(*q)``) or iterates over it
  (``for v in a``, ``zip(a, b)``, a comprehension, ``sorted(a)``, ``list(a)``, ``sum(a)``);
* an operand of ``@`` is computed from it by arithmetic (``ab = b - a; ab @ ab``): no Python number takes
  ``@``, so one of those parameters holds an array, and each is taken to.

Explicit evidence of a hashable value still wins over the use (a ``tuple`` hint, a tuple default, a shape-like
name: ``shape[0]``): see ``FunctionTracing._may_be_static``.
"""

from __future__ import annotations

import re

import libcst as cst

from np2jax.analysis.resolve import Resolver
from np2jax.analysis.scope import ParamBinding, ValueBinding
from np2jax.analysis.tracing_tables import ARRAY_HINTS
from np2jax.analysis.values import nodes_of

UNHASHABLE_HINTS = ARRAY_HINTS | frozenset(
    "list List dict Dict set Set Mapping MutableMapping MutableSequence MutableSet DefaultDict defaultdict "
    "OrderedDict Counter bytearray".split()
)
_UNIONS = frozenset({"Optional", "Union"})
# Words of a docstring type that name an array or an unhashable container (``array-like``, ``(N, 3) ndarray``).
_ARRAY_WORDS = frozenset(
    "array arrays array-like array_like arraylike ndarray nd-array np.ndarray numpy.ndarray jax.array jnp.ndarray "
    "list lists sequence iterable dict mapping set vector vectors matrix matrices".split()
)
_CONTAINER_WORDS = frozenset("list lists sequence iterable dict mapping set".split())
_STOP_WORDS = frozenset({"of", "with", "for", "in", "containing", "that", "where", "whose"})
# Builtins that iterate over their positional arguments (no `len`: shapes are static; not `tuple`: a tuple
# parameter is hashable and stays one).
_ITERATING = frozenset({"builtins.sorted", "builtins.list", "builtins.set", "builtins.zip", "builtins.enumerate",
                        "builtins.reversed", "builtins.sum", "builtins.any", "builtins.all", "builtins.iter"})
_ZIPPERS = frozenset({"builtins.zip", "builtins.enumerate", "builtins.reversed", "builtins.sorted", "builtins.list",
                      "builtins.tuple", "builtins.set", "builtins.map"})


def top_hints(annotation: cst.Annotation | cst.BaseExpression | None) -> set[str]:
    """The outer type names of a hint: ``Dict[str, int]`` -> Dict, ``Optional[np.ndarray]`` -> ndarray,
    ``int | None`` -> int, None; string annotations are read as code."""
    if annotation is None:
        return set()
    node = annotation.annotation if isinstance(annotation, cst.Annotation) else annotation
    if isinstance(node, cst.Name):
        return {node.value}
    if isinstance(node, cst.Attribute):
        return {node.attr.value}
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.BitOr):
        return top_hints(node.left) | top_hints(node.right)
    if isinstance(node, cst.SimpleString):
        try:
            return top_hints(cst.parse_expression(str(node.evaluated_value)))
        except (cst.ParserSyntaxError, RecursionError, ValueError):
            return set()
    if isinstance(node, cst.Subscript):
        outer = top_hints(node.value)
        elements = [e.slice.value for e in node.slice if isinstance(e.slice, cst.Index)]
        if outer & _UNIONS:
            return set().union(*(top_hints(e) for e in elements))
        if "Annotated" in outer and elements:
            return top_hints(elements[0])
        return outer
    return set()


def documented_unhashable(name: str, function: cst.FunctionDef, words: frozenset[str] = _ARRAY_WORDS) -> bool:
    """The docstring gives ``name`` an array or container type (one of ``words``): numpydoc ``a : array-like,
    shape (3,)`` (also ``a, b : ndarray``), Google ``a (np.ndarray): ...``, Sphinx ``:type a: list``."""
    docstring, types = _documented_types(function)
    if not docstring or name not in docstring:
        return False
    if any(_array_type(text, words) for text in types.get(name, ())):
        return True
    if ":type" in docstring:  # Sphinx: `:type a: list` (several may share a line: one pattern per name)
        for match in re.finditer(rf":type[ \t]+{re.escape(name)}[ \t]*:(?P<type>[^\n]*)$", docstring, re.MULTILINE):
            if _array_type(match.group("type"), words):
                return True
    return False


# The lines that give parameters a type: numpydoc `a, *b : array-like` and Google `a (np.ndarray):`.  Each
# line names its parameters once, so one pass finds every name's types (a pattern per name finds the same lines).
_NUMPYDOC_LINE = re.compile(r"^[ \t]*(?P<names>\*{0,2}\w+(?:[ \t]*,[ \t]*\*{0,2}\w+)*)[ \t]*:(?P<type>[^\n]*)$", re.MULTILINE)
_GOOGLE_LINE = re.compile(r"^[ \t]*\*{0,2}(?P<name>\w+)[ \t]*\((?P<type>[^)\n]*)\)[ \t]*:", re.MULTILINE)
_NAME_SEPARATOR = re.compile(r"[ \t]*,[ \t]*")

_LAST_DOCUMENTED: list = [None, None, None]  # function, docstring, types: one function's parameters come in a row


def _documented_types(function: cst.FunctionDef) -> tuple[str | None, dict[str, list[str]]]:
    """``function``'s docstring, and the types its parameter lines give each name."""
    if _LAST_DOCUMENTED[0] is not function:
        docstring = function.get_docstring()
        types: dict[str, list[str]] = {}
        if docstring:
            for match in _NUMPYDOC_LINE.finditer(docstring):
                for name in _NAME_SEPARATOR.split(match.group("names")):
                    types.setdefault(name.lstrip("*"), []).append(match.group("type"))
            for match in _GOOGLE_LINE.finditer(docstring):
                types.setdefault(match.group("name"), []).append(match.group("type"))
        _LAST_DOCUMENTED[:] = [function, docstring, types]
    return _LAST_DOCUMENTED[1], _LAST_DOCUMENTED[2]


# Words of a docstring type that say the argument may be a Python sequence (``q : 4 element sequence``).
_SEQUENCE_WORDS = frozenset("sequence sequences list lists tuple tuples iterable array-like array_like arraylike".split())


def documented_sequence(name: str, function: cst.CSTNode) -> bool:
    """The docstring says ``name`` may be given as a list or tuple (``q : 4 element sequence``, ``v : array_like``)."""
    return isinstance(function, cst.FunctionDef) and documented_unhashable(name, function, words=_SEQUENCE_WORDS)


def documented_array(name: str, function: cst.FunctionDef) -> bool:
    """The docstring gives ``name`` an array type (``p : ndarray of shape (n, 2)``), not a container's."""
    return documented_unhashable(name, function, words=_ARRAY_WORDS - _CONTAINER_WORDS)


def _array_type(text: str, accepted: frozenset[str]) -> bool:
    """Does a docstring type (``float or array_like``, ``(3,) ndarray``, ``4 element array-like``) name one of the
    ``accepted`` words?  Each alternative is read up to its first ``of``/``with``..., three words at most (``int,
    size of the array``, ``how to pad the array``: no)."""
    for alternative in re.split(r",|;|\bor\b|\|", text):
        words = re.sub(r"\([^)]*\)|\{[^}]*\}|[`\[\]]", " ", alternative).lower().split()
        for word in words[:3]:
            if word in _STOP_WORDS:
                break
            if word.strip(".:") in accepted:
                return True
    return False


def unhashable_params(function: cst.FunctionDef, params: dict[str, cst.Param], resolver: Resolver) -> dict[str, str]:
    """The parameters of ``function`` that hold an array or a container, each with the evidence, as a phrase."""
    found: dict[str, str] = {}
    for name, param in params.items():
        hints = top_hints(param.annotation)
        if hints & UNHASHABLE_HINTS:
            found[name] = "annotated `" + cst.Module([]).code_for_node(param.annotation.annotation) + "`"
        elif not hints and documented_unhashable(name, function):
            found[name] = "documented as an array or a container"
    for name, how in _container_uses(function, set(params), resolver).items():
        found.setdefault(name, how)
    return found


def _container_uses(function: cst.FunctionDef, params: set[str], resolver: Resolver) -> dict[str, str]:
    """Parameters the body indexes, unpacks or iterates over (``a[2]``, ``x, y = a``, ``f(*a)``, ``for v in a``,
    ``zip(a, b)``, a comprehension), each with the first such use."""
    function_scope = resolver.scopes[function]
    found: dict[str, str] = {}
    for node, scope in nodes_of(function, resolver, _CONTAINER_USES):
        used: list[tuple[cst.BaseExpression, str]] = []
        if isinstance(node, cst.Subscript):
            used.append((node.value, "indexed"))
        elif isinstance(node, cst.Assign) and any(isinstance(t.target, (cst.Tuple, cst.List)) for t in node.targets):
            used.append((node.value, "unpacked"))
        elif isinstance(node, cst.Arg) and node.star == "*":
            used.append((node.value, "unpacked"))
        elif isinstance(node, (cst.For, cst.CompFor)):
            sources = [node.iter]
            if isinstance(node.iter, cst.Call) and resolver.qualname(node.iter.func, scope) in _ZIPPERS:
                sources = [arg.value for arg in node.iter.args if arg.keyword is None and not arg.star]
            used.extend((source, "iterated over") for source in sources)
        elif isinstance(node, cst.Call) and resolver.qualname(node.func, scope) in _ITERATING:
            # `vals = sorted(x)`, `max(x)`, `list(x)`: the elements of an array or a container
            used.extend((arg.value, "iterated over") for arg in node.args if arg.keyword is None and not arg.star)
        if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.MatrixMultiply):  # no number takes `@`
            used.extend((value, "an operand of `@`") for side in (node.left, node.right)
                        for value in _arithmetic_names(side, scope, function_scope, 3)
                        if value.value not in size_names(function, resolver))
        for value, how in used:
            if isinstance(value, cst.Name) and value.value in params and value.value not in found:
                owner, bindings = scope.lookup(value.value)
                if owner is function_scope and any(isinstance(b, ParamBinding) for b in bindings):
                    found[value.value] = how
    return found


def size_names(function: cst.FunctionDef, resolver: Resolver) -> frozenset[str]:
    """Names of the function's own scope that are terms of a slice bound or of a ``range`` bound (``x[i:i + k]``,
    ``X[:n] / n``, ``range(n - 1)``): NumPy and ``range`` take nothing but an int there (or a 0-d integer array),
    whatever arithmetic the name also meets (evidence of an array from ``@`` does not hold for them)."""
    memo = resolver.memo.setdefault("size_names", {})
    found = memo.get(function)
    if found is None:
        own = resolver.scopes[function]
        names: set[str] = set()
        for node, scope in nodes_of(function, resolver, _SIZE_USES):
            parts = [b for b in (node.lower, node.upper, node.step) if b is not None] if isinstance(node, cst.Slice) else (
                [arg.value for arg in node.args] if resolver.qualname(node.func, scope) == "builtins.range" else [])
            for part in parts:
                names.update(n.value for n in _arithmetic_names(part, scope, scope, 0) if scope.lookup(n.value)[0] is own)
        found = memo[function] = frozenset(names)
    return found


_SIZE_USES = frozenset({cst.Slice, cst.Call})


def _arithmetic_names(node: cst.BaseExpression, scope, function_scope, depth: int) -> list[cst.Name]:
    """The names ``node`` is computed from by arithmetic, following local names bound once (``ab = b - a``):
    when ``node`` is an array, one of them holds it."""
    if isinstance(node, cst.UnaryOperation):
        return _arithmetic_names(node.expression, scope, function_scope, depth)
    if isinstance(node, cst.BinaryOperation):
        return [*_arithmetic_names(node.left, scope, function_scope, depth),
                *_arithmetic_names(node.right, scope, function_scope, depth)]
    if not isinstance(node, cst.Name):
        return []
    owner, bindings = scope.lookup(node.value)
    if owner is function_scope and depth > 0 and len(bindings) == 1 and isinstance(bindings[0], ValueBinding) \
            and not bindings[0].augmented:
        return _arithmetic_names(bindings[0].value, scope, function_scope, depth - 1)
    return [node]


_CONTAINER_USES = frozenset({cst.Subscript, cst.Assign, cst.Arg, cst.For, cst.CompFor, cst.Call,
                             cst.BinaryOperation})  # what _container_uses looks at
