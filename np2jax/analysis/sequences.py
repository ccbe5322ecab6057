"""May this argument be a Python list or tuple?  NumPy converts one; most of jax.numpy refuses it.

``np.sum([a, b])``, ``np.mean(acc)`` with ``acc = []`` filled by ``append``, and
``np.atleast_1d(x)`` in a function its callers call as ``f([1.0, 2.0])`` all
work in NumPy, which converts any sequence with ``np.asarray``.  jax.numpy
raises ``TypeError: sum requires ndarray or scalar arguments``.  The rewriting
rule wraps such arguments in ``jnp.asarray``, which is what NumPy does inside
the call, so the wrap is faithful whatever the argument turns out to be (an
array, a scalar or a list): the analysis here only decides where the wrap is
worth its noise.

A parameter counts as a possible sequence when the code says its callers may
pass one, and nothing contradicts it.  Said: an annotation that admits a list
(``ArrayLike``, ``Sequence[float]``, ``Any``), ``*args``, a docstring entry
``x : array_like`` (or ``x : float or array-like``), the function checking for
one (``isinstance(x, (list, np.ndarray))``), normalising its input
(``np.atleast_1d(x)``, ``np.ravel(x)``), or a call in the module passing a list
or tuple display for it (``matvec([1, -12. / 11, 1. / 11], rgb)``).  A plain ``def f(x): return
np.sum(x)`` is taken to get arrays: wrapping every parameter would bury the
migrated code in ``jnp.asarray`` (called with a list, it fails loudly).
Contradicted: an array or number annotation; a static argument of the jitted
function; a use only an array allows (an attribute ``x.shape``, arithmetic or
a comparison ``x - m``, ``x > 0``, a multi-axis index ``x[:, 0]``).  The
check is flow-insensitive: every binding of the name must be the parameter
itself, or a conversion of it that contains the call being looked at; with
such a rebinding (``x = np.copy(x)``) only the uses before it in the source
are surely of the parameter.
"""

from __future__ import annotations

import ast
import re
from typing import Callable

import libcst as cst

from np2jax.analysis.list_operands import broadcast_display
from np2jax.analysis.param_kinds import documented_sequence
from np2jax.analysis.resolve import Resolver, is_numpy
from np2jax.analysis.scope import DefBinding, LoopBinding, ParamBinding, Scope, ValueBinding
from np2jax.analysis.values import GROWING_METHODS, function_nodes, nodes_of
from np2jax.cstutil import argument_for
from np2jax.visitors import FastVisitor, visit

SEQUENCES = (cst.List, cst.ListComp, cst.Tuple)
SEQUENCE_HINTS = frozenset({"list", "List", "Sequence", "tuple", "Tuple", "MutableSequence"})
# NumPy functions that return a Python list of arrays.
SPLITTING = frozenset(f"numpy.{name}" for name in ("split", "array_split", "hsplit", "vsplit", "dsplit"))
# Annotations that admit a list: ``x: npt.ArrayLike``, ``x: Any``, ``x: Union[float, Sequence[float]]``.
LIST_ADMITTING_HINTS = SEQUENCE_HINTS | {"ArrayLike", "Any", "object", "Iterable"}


def builds_sequence(value: cst.BaseExpression, resolver: Resolver, scope: Scope) -> bool:
    """``[...]``, ``(...)``, ``[0] * n``, ``list(...)``, ``tuple(...)``: a Python list or tuple."""
    if isinstance(value, SEQUENCES):
        return True
    if isinstance(value, cst.BinaryOperation) and isinstance(value.operator, (cst.Add, cst.Multiply)):
        return any(builds_sequence(side, resolver, scope) and not broadcast_display(side, resolver, scope)
                   for side in (value.left, value.right))
    if isinstance(value, cst.Call):
        return resolver.qualname(value.func, scope) in ("builtins.list", "builtins.tuple", "builtins.sorted")
    return False


def builds_list(value: cst.BaseExpression, resolver: Resolver, scope: Scope) -> bool:
    """A list built here (``[...]``, ``list(...)``, ``a + [b]``), or a local name only ever bound to one
    (not tuples: ``x[(0, 1)]`` is ``x[0, 1]``)."""
    if isinstance(value, (cst.List, cst.ListComp)):
        return True
    if isinstance(value, cst.BinaryOperation) and isinstance(value.operator, (cst.Add, cst.Multiply)):
        return any(builds_list(side, resolver, scope) and not broadcast_display(side, resolver, scope)
                   for side in (value.left, value.right))
    if isinstance(value, cst.Call):
        return resolver.qualname(value.func, scope) == "builtins.list"
    if isinstance(value, cst.Name):
        found, bindings = scope.lookup(value.value)
        return (
            found is not None and found.kind == "function" and bool(bindings)
            and all(isinstance(b, ValueBinding) and builds_list(b.value, resolver, found) for b in bindings)
        )
    return False


def sequence_annotation(annotation: cst.Annotation | None) -> bool:
    """``xs: list``, ``xs: List[np.ndarray]``, ``xs: Sequence[float]``: the caller passes a Python sequence."""
    if annotation is None:
        return False
    node = annotation.annotation
    if isinstance(node, cst.Subscript):
        node = node.value
    name = node.attr.value if isinstance(node, cst.Attribute) else node.value if isinstance(node, cst.Name) else None
    return name in SEQUENCE_HINTS


def documented_array_like(name: str, function: cst.CSTNode) -> bool:
    """The docstring says so: ``x : array_like`` (numpydoc), ``x (array-like): ...`` (Google style)."""
    docstring = function.get_docstring() if isinstance(function, cst.FunctionDef) else None
    if not docstring:
        return False
    # the type may follow alternatives: ``x : float or array-like``, ``x (int, list): ...``
    pattern = (rf"^\s*\*?{re.escape(name)}\s*(:|\()\s*([\w.\[\]]+\s*(,|\bor\b)\s*)*"
               r"(array[_ -]?like|sequence|list|tuple|iterable)\b")
    if re.search(pattern, docstring, re.MULTILINE | re.IGNORECASE) is not None:
        return True
    # Sphinx: ``:param array data: (list or numpy.array) ...``, ``:type data: list or ndarray``
    word = re.escape(name)
    for found in re.finditer(rf"^\s*:param\s+(?P<type>[^:\n]*?)\s*\b{word}\s*:(?P<rest>[^\n]*)$|^\s*:type\s+{word}\s*:(?P<typed>[^\n]*)$",
                             docstring, re.MULTILINE):
        text = found.group("typed") or " ".join(filter(None, (found.group("type"),
                                                               *re.findall(r"^\s*\(([^)]*)\)", found.group("rest") or ""))))
        if re.search(r"\b(array[_ -]?like|sequence|list|tuple|iterable)\b", text, re.IGNORECASE):
            return True
    return ">>>" in docstring and name in _doctest_sequences(function, docstring)


def _doctest_sequences(function: cst.FunctionDef, docstring: str) -> frozenset[str]:
    """Parameters the docstring's own examples pass as list or tuple displays (``>>> rms([3, 4])``)."""
    lines, found = [], set()
    for line in docstring.splitlines():
        stripped = line.strip()
        if stripped.startswith(">>>"):
            lines.append(stripped[3:].strip())
        elif stripped.startswith("...") and lines:
            lines[-1] += "\n" + stripped[3:].strip()
    params = function.params
    positional = [p.name.value for p in (*params.posonly_params, *params.params)]
    named = set(positional) | {p.name.value for p in params.kwonly_params}
    for text in lines:
        try:
            tree = ast.parse(text)
        except (SyntaxError, ValueError):
            continue
        for node in ast.walk(tree):
            func = node.func if isinstance(node, ast.Call) else None
            if not (isinstance(func, ast.Name) and func.id == function.name.value
                    or isinstance(func, ast.Attribute) and func.attr == function.name.value):
                continue
            bound = isinstance(func, ast.Attribute) and positional[:1] in (["self"], ["cls"])  # `obj.method([1, 2])`
            for index, arg in enumerate(node.args, start=1 if bound else 0):
                if isinstance(arg, ast.Starred):
                    break
                if index < len(positional) and isinstance(arg, (ast.List, ast.Tuple, ast.ListComp)):
                    found.add(positional[index])
            found.update(k.arg for k in node.keywords
                         if k.arg in named and isinstance(k.value, (ast.List, ast.Tuple, ast.ListComp)))
    return frozenset(found)


def checked_for_list(name: str, function: cst.CSTNode, resolver: Resolver, scope: Scope) -> bool:
    """The function asks whether ``name`` is a list or tuple: ``isinstance(x, (list, np.ndarray))``."""
    finder = _ListChecks(name, resolver, scope)
    visit(function, finder)
    return finder.found


def _is_slice(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.Subscript) and len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Slice)


def _admits_list(annotation: cst.Annotation | cst.BaseExpression, resolver: Resolver | None = None,
                 scope: Scope | None = None, depth: int = 0) -> bool:
    """Does the hint admit a list?  A type alias (``Array = list[Any] | npt.NDArray[Any]`` in this module, or
    one imported from a module other than NumPy's, JAX's or ``typing``) is followed or assumed to: wrapping an
    array in ``jnp.asarray`` changes nothing, leaving a list unwrapped raises."""
    visitor = _HintNames()
    visit(annotation, visitor)
    if visitor.names & LIST_ADMITTING_HINTS:
        return True
    node = annotation.annotation if isinstance(annotation, cst.Annotation) else annotation
    if resolver is None or scope is None or depth > 3 or not isinstance(node, (cst.Name, cst.Attribute)):
        return False
    qualname = resolver.qualname(node, scope) or ""
    if qualname.split(".")[0] in ("numpy", "jax", "typing", "typing_extensions", "builtins", "collections"):
        return False
    if isinstance(node, cst.Name):
        found, bindings = scope.lookup(node.value)
        values = [b.value for b in bindings if isinstance(b, ValueBinding)]
        if found is not None and found.kind == "module" and len(values) == 1 and len(bindings) == 1:
            return _admits_list(values[0], resolver, found, depth + 1)
    return bool(qualname)  # imported from another module of the project: assume it may be a list


class _ListChecks(FastVisitor):
    def __init__(self, name: str, resolver: Resolver, scope: Scope) -> None:
        self.name, self.resolver, self.scope = name, resolver, scope
        self.found = False

    def visit_Call(self, node: cst.Call) -> None:
        if (len(node.args) == 2 and isinstance(node.args[0].value, cst.Name) and node.args[0].value.value == self.name
                and self.resolver.qualname(node.func, self.scope) == "builtins.isinstance"):
            kinds = node.args[1].value
            elements = [e.value for e in kinds.elements] if isinstance(kinds, cst.Tuple) else [kinds]
            self.found = self.found or any(
                self.resolver.qualname(kind, self.scope) in ("builtins.list", "builtins.tuple") for kind in elements)


class _HintNames(FastVisitor):
    def __init__(self) -> None:
        self.names: set[str] = set()

    def visit_Name(self, node: cst.Name) -> None:
        self.names.add(node.value)

    def visit_SimpleString(self, node: cst.SimpleString) -> None:
        self.names.update(str(node.evaluated_value).replace("[", " ").replace("]", " ").replace(".", " ").split())


class SequenceArguments:
    """Per file: which arguments of a NumPy call may be Python sequences."""

    def __init__(self, resolver: Resolver, static_parameters: Callable[[Scope], frozenset[str]]) -> None:
        self.resolver = resolver
        self.static_parameters = static_parameters  # of a function jax.jit will see as Python values
        self._array_uses: dict[int, frozenset[str]] = {}

    def may_be_sequence(
        self, value: cst.BaseExpression, scope: Scope, call: cst.Call, parameters: bool = True, normalising: bool = False
    ) -> bool:
        """A list, tuple or ``range`` built here, a name only ever bound to a list or tuple (``QS = (0.25, 0.75)``,
        ``rhs = [0] * n``), or (with ``parameters``) a parameter its callers may give as one."""
        if builds_sequence(value, self.resolver, scope) or self._splits(value, scope) or _table_row(value, scope, self.resolver):
            return True
        if isinstance(value, cst.Call) and self._returns_displays(value, scope):
            return True  # `np.cross(_vec(a), _vec(b))` with `def _vec(azi): ... return np.cos(azi), np.sin(azi)`
        if isinstance(value, cst.Call) and self.resolver.qualname(value.func, scope) == "builtins.range":
            return True  # `np.interp(t, range(n), y)`: jax.numpy takes no range object either
        if _is_slice(value):  # rs[4:] of a list is a list
            return self.may_be_sequence(value.value, scope, call, parameters, normalising)
        if not isinstance(value, cst.Name):
            return False
        found, bindings = scope.lookup(value.value)
        if not bindings:
            return False
        if all(
            (isinstance(b, ValueBinding) and (b.augmented or builds_sequence(b.value, self.resolver, found)
                                             or self._splits(b.value, found) or _table_row(b.value, found, self.resolver)))
            or (isinstance(b, ParamBinding) and (sequence_annotation(b.param.annotation)
                                                 or documented_sequence(value.value, found.node)))
            for b in bindings
        ) or (found.kind == "function" and value.value in starred_targets(found.node, self.resolver)):
            return True  # (`first, *rest = rows`: `rest` is a list, whatever `rows` is)
        if found.kind == "function" and any(isinstance(b, ValueBinding) and _table_row(b.value, found, self.resolver) for b in bindings):
            return True  # `wp = consts.WHITE[illum]` in one branch, `wp = illum` in the other: a tuple at times
        return parameters and self._caller_sequence(value.value, found, bindings, call, normalising)

    def _returns_displays(self, call: cst.Call, scope: Scope) -> bool:
        """A function of this module every ``return`` of which gives a tuple or list display: a Python sequence."""
        if not isinstance(call.func, cst.Name):
            return False
        found, bindings = scope.lookup(call.func.value)
        if (found is None or found.kind != "module" or len(bindings) != 1 or not isinstance(bindings[0], DefBinding)
                or not isinstance(bindings[0].node, cst.FunctionDef)):
            return False
        returns = [node.value for node, _ in function_nodes(bindings[0].node, self.resolver) if isinstance(node, cst.Return)]
        return bool(returns) and all(isinstance(value, (cst.Tuple, cst.List)) and value.elements for value in returns)

    def holds_sequences(self, value: cst.BaseExpression, scope: Scope, call: cst.Call) -> bool:
        """``mappings``, a local list (``mappings = []``) that may hold Python lists or tuples among its elements
        (``mappings.append(list(itertools.product(*sets)))``), or whose elements np2jax cannot see: the arrays a
        joining function (``np.vstack(mappings)``) is given.  None of its elements may be a list in jax.numpy."""
        if not isinstance(value, cst.Name):
            return False
        found, bindings = scope.lookup(value.value)
        if found is None or found.kind != "function" or not bindings:
            return False
        elements: list[tuple[cst.BaseExpression, Scope]] = []
        for binding in bindings:
            if not isinstance(binding, ValueBinding) or binding.augmented:
                return False  # a parameter, a loop variable, `xs += ...`: not surely a list built here
            made = binding.value
            if isinstance(made, cst.List):
                elements += [(e.value, found) for e in made.elements if not isinstance(e, cst.StarredElement)]
            elif isinstance(made, cst.ListComp):
                elements.append((made.elt, self.resolver.scopes.get(made, found)))
            elif not (isinstance(made, cst.Call) and not made.args and self.resolver.qualname(made.func, found) == "builtins.list"):
                return False
        for node, inner in function_nodes(found.node, self.resolver):
            if (isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value in GROWING_METHODS
                    and isinstance(node.func.value, cst.Name) and node.func.value.value == value.value):
                if node.func.attr.value == "extend" or not node.args:
                    return True  # the elements of another sequence: unseen
                elements.append((node.args[-1].value, inner))
        return any(self._element_may_be_sequence(element, inner, call, set()) for element, inner in elements)

    def _element_may_be_sequence(self, value: cst.BaseExpression, scope: Scope, call: cst.Call, seen: set[str]) -> bool:
        """A list or tuple, or a value np2jax cannot tell is an array (a call of another function); not one that
        NumPy or jax.numpy computed, arithmetic, an index or a parameter taken to be an array."""
        if self.may_be_sequence(value, scope, call):
            return True
        if isinstance(value, cst.Call):
            qualname = self.resolver.qualname(value.func, scope) or ""
            if isinstance(value.func, cst.Attribute) and not qualname:
                return False  # a method: of an array (`x.copy()`, `x.reshape(...)`) as far as np2jax knows
            return not (is_numpy(qualname) or qualname.startswith("jax."))
        if isinstance(value, cst.Name) and value.value not in seen:
            found, bindings = scope.lookup(value.value)
            if found is None or found.kind == "module":
                return False
            seen.add(value.value)
            return any(
                (isinstance(b, ValueBinding) and self._element_may_be_sequence(b.value, found, call, seen))
                or (isinstance(b, LoopBinding) and self.may_be_sequence(b.iterable, found, call))
                for b in bindings
            )
        return False

    def _splits(self, value: cst.BaseExpression, scope: Scope) -> bool:
        """``np.split(x, 2)`` and its kin return a Python list of arrays (``jnp.split`` too)."""
        return isinstance(value, cst.Call) and (self.resolver.qualname(value.func, scope) or "") in SPLITTING

    def _caller_sequence(self, name: str, scope: Scope, bindings: list, call: cst.Call, normalising: bool) -> bool:
        params = [b for b in bindings if isinstance(b, ParamBinding)]
        if len(params) != 1 or scope.kind != "function":
            return False
        param = params[0].param
        if param.star == "**":
            return False
        if param.star != "*" and param.annotation is not None and not _admits_list(param.annotation, self.resolver, scope):
            return False  # annotated as an array, a number ...: the caller's promise
        if not isinstance(scope.node, cst.FunctionDef):  # a lambda's parameter: no docstring, no statements
            return normalising and not self._used_as_array(name, scope, [])
        rebound = [b for b in bindings if not isinstance(b, ParamBinding)]
        if normalising and _normalised_first(name, scope.node, call):
            # `z = np.atleast_2d(z)` before any other use: later uses (`z.shape`, `z = z.T`) are of the array
            return name not in self.static_parameters(scope)
        if any(not (isinstance(b, ValueBinding) and _contains(b.value, call)) for b in rebound):
            return False
        used_as_array = self._used_as_array(name, scope, [b.value for b in rebound])
        if param.default is not None and builds_sequence(param.default, self.resolver, scope.parent or scope):
            # `qs=(0.25, 0.75)`: a tuple by default, static under jit or a pytree of traced numbers: a sequence either way
            return not used_as_array
        said = (param.star == "*" or param.annotation is not None or documented_array_like(name, scope.node)
                or checked_for_list(name, scope.node, self.resolver, scope) or self._given_sequence(name, scope))
        if not (said or normalising):
            return False  # nothing says the function takes lists: plain `np.sum(x)` stays `jnp.sum(x)`
        return not used_as_array and name not in self.static_parameters(scope)

    def _given_sequence(self, name: str, scope: Scope) -> bool:
        """A call of this module-level function in its module passes a list or tuple display for ``name``
        (colorspacious: ``broadcasting_matvec([1, -12. / 11, 1. / 11], rgb)``), or a name the caller binds only
        to such displays (similaritymeasures: ``x = [p[0, 0], ...]; poly_area(x, y)``)."""
        function, module = scope.node, scope.parent
        if not isinstance(function, cst.FunctionDef) or module is None or module.kind != "module":
            return False
        for call, owner in self.resolver.calls_by_name(module.node).get(function.name.value, ()):
            given = argument_for(call, function, name)
            caller = self.resolver.scopes.get(owner) if owner is not None else module
            if given is not None and caller is not None and self.may_be_sequence(given, caller, call, parameters=False):
                return True  # `[1, -12. / 11, 1. / 11]`, or `x` of `x = [p[0, 0], ...]; poly_area(x, y)`
        return False

    def _used_as_array(self, name: str, scope: Scope, rebindings: list[cst.BaseExpression]) -> bool:
        """Is the parameter itself used as an array?  With ``x = np.copy(x)`` (the call being looked at), only
        the uses before that first rebinding are surely the parameter's; those after may be of the copy."""
        if rebindings:
            visitor = _ArrayUses(stop=frozenset(map(id, rebindings)))
            visit(scope.node, visitor)
            return name in visitor.names
        key = id(scope.node)
        if key not in self._array_uses:
            visitor = _ArrayUses()
            visit(scope.node, visitor)
            self._array_uses[key] = frozenset(visitor.names)
        return name in self._array_uses[key]


class _ArrayUses(FastVisitor):
    """Names used in ways only an array (or a number) allows: ``x.shape``, ``x - m``, ``-x``, ``x > 0``, ``x[:, 0]``."""

    def __init__(self, stop: frozenset[int] = frozenset()) -> None:
        self.names: set[str] = set()
        self.stop = stop  # ids of nodes where the walk ends (source order): nothing from there on is looked at
        self.stopped = False

    def on_visit(self, node: cst.CSTNode) -> bool:
        if id(node) in self.stop:
            self.stopped = True
        return not self.stopped and super().on_visit(node)

    def _add(self, *nodes: cst.BaseExpression) -> None:
        self.names.update(node.value for node in nodes if isinstance(node, cst.Name))

    def visit_Attribute(self, node: cst.Attribute) -> None:
        self._add(node.value)

    def visit_BinaryOperation(self, node: cst.BinaryOperation) -> None:
        self._add(node.left, node.right)

    def visit_UnaryOperation(self, node: cst.UnaryOperation) -> None:
        self._add(node.expression)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._add(node.target, node.value)

    def visit_Comparison(self, node: cst.Comparison) -> None:
        for target in node.comparisons:
            if not isinstance(target.operator, _IDENTITY_OR_MEMBERSHIP):
                self._add(node.left, target.comparator)

    def visit_Subscript(self, node: cst.Subscript) -> None:
        if len(node.slice) > 1:
            self._add(node.value)


_IDENTITY_OR_MEMBERSHIP = (cst.Is, cst.IsNot, cst.In, cst.NotIn)


class _Finds(FastVisitor):
    def __init__(self, target: cst.CSTNode) -> None:
        self.target = target
        self.found = False

    def on_visit(self, node: cst.CSTNode) -> bool:
        if node is self.target:
            self.found = True
        return not self.found


def _normalised_first(name: str, function: cst.FunctionDef, call: cst.Call) -> bool:
    """Whether the first statement of ``function``'s body that mentions ``name`` is ``name = ...`` holding ``call``."""
    for statement in function.body.body:
        finder = _Mentions(name)
        visit(statement, finder)
        if finder.found:
            if not _contains(statement, call):
                return False
            small = statement.body[0] if isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1 else None
            return (isinstance(small, cst.Assign) and len(small.targets) == 1
                    and isinstance(small.targets[0].target, cst.Name) and small.targets[0].target.value == name)
    return False


class _Mentions(FastVisitor):
    def __init__(self, name: str) -> None:
        self.name = name
        self.found = False

    def visit_Name(self, node: cst.Name) -> None:
        if node.value == self.name:
            self.found = True


def _contains(tree: cst.CSTNode, node: cst.CSTNode) -> bool:
    finder = _Finds(node)
    visit(tree, finder)
    return finder.found


def _table_row(value: cst.BaseExpression, scope: Scope, resolver: Resolver) -> bool:
    """``WHITE[illum]`` of a module-level table every entry of which is a list or tuple display
    (``WHITE = {"d65": (0.95, 1.0, 1.09), ...}``, ``ROWS = [[1, 2], [3, 4]]``), here or in another module
    (``consts.WHITE[illum]``): a Python sequence."""
    if not (isinstance(value, cst.Subscript) and len(value.slice) == 1 and isinstance(value.slice[0].slice, cst.Index)):
        return False
    if " rows" in (resolver.table_kind(value.value, scope) or ""):
        return True
    if not isinstance(value.value, cst.Name):
        return False
    found, bindings = scope.lookup(value.value.value)
    if found is None or found.kind != "module" or not bindings:
        return False
    for binding in bindings:
        table = binding.value if isinstance(binding, ValueBinding) and not binding.augmented else None
        if isinstance(table, cst.Dict):
            entries = [e.value for e in table.elements if isinstance(e, cst.DictElement)]
        elif isinstance(table, (cst.List, cst.Tuple)):
            entries = [e.value for e in table.elements if isinstance(e, cst.Element)]
        else:
            return False
        if not entries or len(entries) != len(table.elements) or not all(isinstance(e, (cst.List, cst.Tuple)) for e in entries):
            return False
    return True


def starred_targets(function: cst.CSTNode, resolver: Resolver) -> frozenset[str]:
    """Names a function binds with a starred assignment target (``first, *rest = rows``): always lists."""
    memo = resolver.memo.setdefault("starred_targets", {})
    if function not in memo:
        found = set()
        for node, _ in nodes_of(function, resolver, _BINDING_STATEMENTS):
            targets = [t.target for t in node.targets] if isinstance(node, cst.Assign) else [node.target]
            for target in targets:
                stack = [target]
                while stack:
                    part = stack.pop()
                    if isinstance(part, (cst.Tuple, cst.List)):
                        stack.extend(e.value if not isinstance(e, cst.StarredElement) else e for e in part.elements)
                    elif isinstance(part, cst.StarredElement) and isinstance(part.value, cst.Name):
                        found.add(part.value.value)
        memo[function] = frozenset(found)
    return memo[function]


_BINDING_STATEMENTS = frozenset({cst.Assign, cst.For, cst.CompFor})  # what starred_targets looks at (for nodes_of)
