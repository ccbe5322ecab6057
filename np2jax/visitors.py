"""libcst visitor and transformer bases with cheaper dispatch, and a traversal that does not rebuild.

libcst's ``CSTVisitor.on_visit`` looks up ``visit_<Type>`` by building the name
and calling ``getattr`` for every node, finds the typed no-op stub when the
subclass defines no hook, and calls it; it does the same for every child
attribute (``visit_<Type>_<attribute>``).  On a large module that is millions
of string formats and calls that do nothing.  These bases resolve the hooks a
subclass really defines once per (class, node type) and skip attribute hooks:
np2jax defines none (``FastVisitor.__init_subclass__`` refuses them, so one
cannot be added and silently never run).  Behaviour is otherwise libcst's.

``visit(node, visitor)`` walks a tree the way ``node.visit(visitor)`` does
(same nodes, same order, same hook calls, same removal and flattening rules)
without libcst's cost of building a new copy of every node on the way back:
libcst's ``_visit_and_replace_children`` constructs (and validates) a fresh
node for each one even for a read-only visitor.  Here a read-only visitor
builds nothing, and a transformer rebuilds (``with_changes``) only the nodes on
the path to a child its hooks replaced; an unchanged subtree comes back as the
very same object, so a leave hook sees ``updated is original`` there.  It also
skips trivia a visitor has no hook for (see ``_FastDispatch``).  The
order in which libcst visits each node type's fields is read once from that
type's own ``_visit_and_replace_children`` (a test checks it against libcst's
``children`` on real code).
"""

from __future__ import annotations

import ast
import collections.abc
import inspect
import re
import sys
import textwrap
import types
import typing

import libcst as cst
from libcst._typed_visitor import CSTTypedBaseFunctions, CSTTypedTransformerFunctions, CSTTypedVisitorFunctions

_STUBS = (CSTTypedBaseFunctions, CSTTypedVisitorFunctions, CSTTypedTransformerFunctions)
_ATTRIBUTE_HOOK = re.compile(r"(visit|leave)_[A-Z][A-Za-z]*_[a-z_]+")


def _hook(cls: type, name: str):
    """The function ``cls`` defines (or inherits from a non-libcst class) for ``name``, else None."""
    function = getattr(cls, name, None)
    if function is None or any(stub.__dict__.get(name) is function for stub in _STUBS):
        return None
    return function


def _refuse_attribute_hooks(cls: type) -> None:
    for name in vars(cls):
        if _ATTRIBUTE_HOOK.fullmatch(name):
            raise TypeError(f"{cls.__name__}.{name}: attribute hooks are not dispatched by np2jax.visitors")


_WHITESPACE = frozenset({cst.SimpleWhitespace, cst.Newline, cst.Comment, cst.TrailingWhitespace, cst.EmptyLine, cst.ParenthesizedWhitespace})
_PUNCTUATION = (
    cst.Comma, cst.Dot, cst.Colon, cst.Semicolon, cst.AssignEqual, cst.LeftParen, cst.RightParen,
    cst.LeftSquareBracket, cst.RightSquareBracket, cst.LeftCurlyBrace, cst.RightCurlyBrace,
)
# Trivia: node types that hold only layout (whitespace, comments, punctuation), and what may occur inside them.
TRIVIA: dict[type, frozenset[type]] = {
    cst.SimpleWhitespace: frozenset(), cst.Newline: frozenset(), cst.Comment: frozenset(),
    cst.TrailingWhitespace: frozenset({cst.SimpleWhitespace, cst.Comment, cst.Newline}),
    cst.EmptyLine: frozenset({cst.SimpleWhitespace, cst.Comment, cst.Newline}),
    cst.ParenthesizedWhitespace: _WHITESPACE - {cst.ParenthesizedWhitespace},
    **{kind: _WHITESPACE for kind in _PUNCTUATION},
}


def _skipped_trivia(cls: type) -> frozenset[type]:
    """The trivia types a visitor class never needs to enter: it has no hook for them or anything inside them."""
    if getattr(cls, "VISITS_TRIVIA", False):
        return frozenset()

    def hooked(kind: type) -> bool:
        return _hook(cls, f"visit_{kind.__name__}") is not None or _hook(cls, f"leave_{kind.__name__}") is not None

    return frozenset(kind for kind, inside in TRIVIA.items() if not hooked(kind) and not any(hooked(k) for k in inside))


class _FastDispatch:
    """Hook lookup cached per (class, node type); attribute hooks skipped.

    With ``np2jax.visitors.visit``, trivia (whitespace, comments, punctuation: ``TRIVIA``) is not
    entered unless the class has a hook for it or for something inside it, or sets ``VISITS_TRIVIA``
    (a generic ``on_visit`` that must see every node).  Trivia is most of a tree's nodes.
    """

    _visit_hooks: dict = {}
    _leave_hooks: dict = {}
    VISITS_TRIVIA: bool = False
    _skipped: frozenset[type] = frozenset()
    _hook_table: dict = {}  # node type -> (visit hook, leave hook, fields to enter): see visit()
    _field_plans: dict = {}  # node type -> fields to enter
    # A transformer whose hooks inside trivia only count something (the walker's visit_Newline counts lines) may
    # define on_trivia(node): the traversal then hands it each piece of trivia it would enter, whole, instead of
    # entering it node by node (trivia is most of a tree's nodes).  It must do what those hooks would have done,
    # and name them in TRIVIA_HOOKS: a class with another hook on trivia is refused (it would never be called).
    on_trivia = None
    TRIVIA_HOOKS: frozenset[str] = frozenset()
    _counted: frozenset[type] = frozenset()  # the trivia types handed to on_trivia
    # A class that overrides on_visit / on_leave may name the node types for which they do more than call its
    # hooks (declared in the class that overrides them): for every other type the traversal calls the hooks
    # itself, which saves several calls per node.  None: on_visit / on_leave are called for every node.
    CUSTOM_DISPATCH: frozenset[type] | None = None
    _direct = False  # whether the traversal may call the hooks itself (for the types outside _custom)
    _custom: frozenset[type] = frozenset()

    def __init_subclass__(cls, **kwargs) -> None:
        super().__init_subclass__(**kwargs)
        _refuse_attribute_hooks(cls)
        cls._visit_hooks, cls._leave_hooks = {}, {}
        cls._skipped = _skipped_trivia(cls)
        cls._hook_table, cls._field_plans = {}, {}
        cls._counted = frozenset(TRIVIA) - cls._skipped if cls.on_trivia is not None else frozenset()
        if cls.on_trivia is not None:
            hooks = {f"{when}_{kind.__name__}" for kind in TRIVIA for when in ("visit", "leave")
                     if _hook(cls, f"{when}_{kind.__name__}") is not None}
            if hooks - cls.TRIVIA_HOOKS:
                raise TypeError(f"{cls.__name__}: on_trivia stands for every hook on trivia, but not for "
                                f"{', '.join(sorted(hooks - cls.TRIVIA_HOOKS))} (add it to TRIVIA_HOOKS, and to on_trivia)")
        cls._direct, cls._custom = _direct_dispatch(cls)

    def on_visit(self, node: cst.CSTNode) -> bool:
        kind = type(node)
        try:
            hook = self._visit_hooks[kind]
        except KeyError:
            hook = self._visit_hooks[kind] = _hook(type(self), f"visit_{kind.__name__}")
        return hook is None or hook(self, node) is not False

    def _leave_hook(self, kind: type):
        try:
            return self._leave_hooks[kind]
        except KeyError:
            hook = self._leave_hooks[kind] = _hook(type(self), f"leave_{kind.__name__}")
            return hook

    def on_visit_attribute(self, node: cst.CSTNode, attribute: str) -> None:
        pass

    def on_leave_attribute(self, original_node: cst.CSTNode, attribute: str) -> None:
        pass


_DEFAULT_DISPATCH: set[type] = set()  # _FastDispatch, FastVisitor, FastTransformer: their on_visit / on_leave call hooks


def _direct_dispatch(cls: type) -> tuple[bool, frozenset[type]]:
    """Whether the traversal may call ``cls``'s hooks itself, and the node types for which it may not."""
    custom: set[type] = set()
    for method in ("on_visit", "on_leave"):
        owner = next(c for c in cls.__mro__ if method in vars(c))
        if owner in _DEFAULT_DISPATCH:
            continue
        declared = vars(owner).get("CUSTOM_DISPATCH")
        if declared is None:
            return False, frozenset()
        custom |= declared
    return True, frozenset(custom)


class FastVisitor(_FastDispatch, cst.CSTVisitor):
    def on_leave(self, original_node: cst.CSTNode) -> None:
        hook = self._leave_hook(type(original_node))
        if hook is not None:
            hook(self, original_node)


class FastTransformer(_FastDispatch, cst.CSTTransformer):
    def on_leave(self, original_node: cst.CSTNode, updated_node: cst.CSTNode):
        hook = self._leave_hook(type(original_node))
        return updated_node if hook is None else hook(self, original_node, updated_node)


_DEFAULT_DISPATCH.update((_FastDispatch, FastVisitor, FastTransformer))
FastVisitor._direct = FastTransformer._direct = True


# --- traversal ------------------------------------------------------------------------------
REQUIRED, OPTIONAL, SENTINEL, SEQUENCE, BODY = range(5)
_KINDS = {
    "visit_required": REQUIRED, "visit_optional": OPTIONAL, "visit_sentinel": SENTINEL,
    "visit_sequence": SEQUENCE, "visit_iterable": SEQUENCE, "visit_body_sequence": BODY, "visit_body_iterable": BODY,
}
_FIELDS: dict[type, tuple[tuple[str, int, int], ...]] = {}  # node type -> (field, kind of a node value, kind of a sequence)


def fields_in_visit_order(kind: type) -> tuple[tuple[str, int, int], ...]:
    """The fields libcst's ``kind._visit_and_replace_children`` visits, in its order, with how it visits them.

    A field may be visited one way or another depending on its value (``ImportFrom.names``: one
    ``ImportStar`` or a sequence of aliases), so each entry gives the kind for a node value and
    for a sequence value."""
    try:
        return _FIELDS[kind]
    except KeyError:
        pass
    source = textwrap.dedent(inspect.getsource(kind._visit_and_replace_children))
    found: dict[str, list[int]] = {}
    calls = sorted(
        (node.lineno, node.col_offset, node.args[1].value, _KINDS[node.func.id])
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _KINDS
        and len(node.args) >= 2 and isinstance(node.args[1], ast.Constant)
    )
    for _, _, name, how in calls:
        found.setdefault(name, []).append(how)
    plan = []
    for name, hows in found.items():
        single = next((h for h in hows if h in (REQUIRED, OPTIONAL, SENTINEL)), REQUIRED)
        many = next((h for h in hows if h in (SEQUENCE, BODY)), SEQUENCE)
        plan.append((name, single, many))
    _FIELDS[kind] = result = tuple(plan)
    return result


_NODE_TYPES: set[type] = set()  # classes seen that are CSTNodes; isinstance on libcst's ABC is slow
_OTHER_TYPES: set[type] = {type(None), cst.MaybeSentinel, tuple, list, str}


def _is_node_type(cls: type) -> bool:
    if cls in _NODE_TYPES:
        return True
    if cls in _OTHER_TYPES:
        return False
    (_NODE_TYPES if issubclass(cls, cst.CSTNode) else _OTHER_TYPES).add(cls)
    return cls in _NODE_TYPES


def child_nodes(node: cst.CSTNode) -> list[cst.CSTNode]:
    """``node.children`` (the same nodes in the same order) without libcst's rebuild of ``node``."""
    found: list[cst.CSTNode] = []
    fields = _FIELDS.get(type(node))
    for name, _, _ in fields if fields is not None else fields_in_visit_order(type(node)):
        value = getattr(node, name)
        cls = type(value)
        if cls is tuple or cls is list:
            found.extend(value)
        elif cls in _NODE_TYPES or _is_node_type(cls):
            found.append(value)
    return found


# --- fields that can hold only skipped trivia ------------------------------------------------
# A field whose declared type allows only trivia (``whitespace_after``, ``lpar``, ``comma``) holds nothing a visitor
# that skips that trivia would enter, so the traversal does not even read it.  The node classes a field may hold
# come from its annotation; an annotation this does not understand keeps the field.
_DECLARED: dict[tuple[type, str], frozenset[type] | None] = {}
_LIVE_SUBCLASSES: dict[type, frozenset[type]] = {}


def _live_subclasses(cls: type) -> frozenset[type]:
    """``cls`` and its subclasses that can have instances: not abstract, and not the class object libcst's
    ``add_slots`` replaced (its module's name now stands for the rebuilt class)."""
    found = _LIVE_SUBCLASSES.get(cls)
    if found is None:
        result: set[type] = set()
        stack = [cls]
        seen: set[type] = set()
        while stack:
            current = stack.pop()
            if current in seen:
                continue
            seen.add(current)
            stack.extend(current.__subclasses__())
            module = sys.modules.get(current.__module__)
            named = getattr(module, current.__name__, current) if module is not None else current
            if named is not current and isinstance(named, type) and named.__qualname__ == current.__qualname__:
                continue  # replaced by add_slots: never instantiated
            if not inspect.isabstract(current):
                result.add(current)
        found = _LIVE_SUBCLASSES[cls] = frozenset(result)
    return found


def _hint_node_types(hint) -> frozenset[type] | None:
    """The node classes an annotation allows (None, MaybeSentinel: none); None when it is not understood."""
    if hint is type(None) or hint is cst.MaybeSentinel:
        return frozenset()
    if isinstance(hint, type):
        return _live_subclasses(hint) if issubclass(hint, cst.CSTNode) else None
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if origin is typing.Union or origin is types.UnionType:
        found: set[type] = set()
        for arg in args:
            part = _hint_node_types(arg)
            if part is None:
                return None
            found |= part
        return frozenset(found)
    if origin in (collections.abc.Sequence, list, tuple) and args:
        return _hint_node_types(typing.Union[tuple(arg for arg in args if arg is not Ellipsis)])
    return None


def _declared_node_types(kind: type, name: str) -> frozenset[type] | None:
    key = (kind, name)
    try:
        return _DECLARED[key]
    except KeyError:
        pass
    try:
        hints = _HINTS.get(kind)
        if hints is None:
            hints = _HINTS[kind] = typing.get_type_hints(kind)
        hint = hints.get(name)
        found = None if hint is None else _hint_node_types(hint)
    except Exception:  # noqa: BLE001 - an annotation that cannot be resolved keeps its field
        found = None
    _DECLARED[key] = found
    return found


_HINTS: dict[type, dict] = {}


def _visited_fields(kind: type, skipped: frozenset[type]) -> tuple[tuple[str, int, int], ...]:
    """``fields_in_visit_order(kind)`` without the fields that can hold only node types in ``skipped``."""
    fields = _FIELDS.get(kind)
    if fields is None:
        fields = fields_in_visit_order(kind)
    if not skipped:
        return fields
    kept = []
    for field in fields:
        declared = _declared_node_types(kind, field[0])
        if declared is None or not declared <= skipped:
            kept.append(field)
    return tuple(kept)


def exact_types(*classes: type) -> frozenset[type]:
    """The classes of the nodes ``isinstance(node, classes)`` accepts, for ``type(node) in ...`` instead: libcst's
    node classes are ABCs, whose isinstance is several times slower, most of all when it answers no."""
    return frozenset().union(*(_live_subclasses(cls) for cls in classes))


TRIVIA_TYPES = frozenset(TRIVIA)
_INNER_FIELDS: dict[type, tuple[str, ...]] = {}


def inner_nodes(node: cst.CSTNode) -> list[cst.CSTNode]:
    """``child_nodes(node)`` without the trivia (``TRIVIA``: whitespace, comments, punctuation), in the same
    order: for searches that look for other nodes, most of a tree's nodes need not be looked at."""
    kind = type(node)
    names = _INNER_FIELDS.get(kind)
    if names is None:
        names = _INNER_FIELDS[kind] = tuple(name for name, _, _ in _visited_fields(kind, TRIVIA_TYPES))
    found: list[cst.CSTNode] = []
    for name in names:
        value = getattr(node, name)
        cls = type(value)
        if cls is tuple or cls is list:
            for child in value:
                if type(child) not in TRIVIA_TYPES:
                    found.append(child)
        elif cls not in TRIVIA_TYPES and (cls in _NODE_TYPES or _is_node_type(cls)):
            found.append(value)
    return found


# Node type -> fields to enter, for visitors that are not _FastDispatch's (they skip no trivia).  A _FastDispatch
# class keeps its own (_field_plans; and _hook_table, node type -> (visit hook, leave hook, fields), when its
# on_visit / on_leave are _FastDispatch's own, which only call the hooks: the traversal calls them directly).
_ALL_FIELDS: dict[type, tuple[tuple[str, int, int], ...]] = {}


def visit(node: cst.CSTNode, visitor: cst.CSTVisitor | cst.CSTTransformer):
    """``node.visit(visitor)``, without rebuilding unchanged nodes (see the module's docstring)."""
    cls = type(visitor)
    if isinstance(visitor, _FastDispatch):
        skipped, plans = cls._skipped, cls._field_plans
    else:
        skipped, plans = frozenset(), _ALL_FIELDS
    if isinstance(visitor, cst.CSTVisitor):
        if isinstance(visitor, _FastDispatch) and cls._direct:
            _walk_hooks(node, visitor, skipped, cls._hook_table)
            return node
        _walk(node, visitor, skipped, plans)
        return node
    if isinstance(visitor, _FastDispatch) and cls._direct:
        result = _transform_hooks(node, visitor, skipped, cls._hook_table, cls._counted, visitor.on_trivia)
    elif isinstance(visitor, _FastDispatch) and cls._counted:
        result = _transform(node, visitor, skipped, plans, cls._counted, visitor.on_trivia)
    else:
        result = _transform(node, visitor, skipped, plans)
    if isinstance(node, cst.Module) and isinstance(result, cst.RemovalSentinel):
        return node.with_changes(body=(), header=(), footer=())
    return result


def _hook_entry(visitor, kind: type, skipped: frozenset[type], table: dict) -> tuple:
    """(visit hook, leave hook, fields to enter, whether on_visit / on_leave must be called instead of the hooks)"""
    cls = type(visitor)
    fields = _visited_fields(kind, skipped)
    entry = table[kind] = (
        _hook(cls, f"visit_{kind.__name__}"), _hook(cls, f"leave_{kind.__name__}"),
        tuple(name for name, _, _ in fields) if isinstance(visitor, cst.CSTVisitor) else fields, kind in cls._custom,
    )
    return entry


def _walk_hooks(node: cst.CSTNode, visitor: cst.CSTVisitor, skipped: frozenset[type], table: dict) -> None:
    """``_walk`` for a visitor whose on_visit / on_leave only call its hooks (but for its CUSTOM_DISPATCH types):
    the hooks are called directly."""
    entry = table.get(type(node))
    if entry is None:
        entry = _hook_entry(visitor, type(node), skipped, table)
    visit_hook, leave_hook, names, custom = entry
    if custom:
        _walk_custom(node, visitor, skipped, table, names)
        return
    if visit_hook is None or visit_hook(visitor, node) is not False:
        for name in names:
            value = getattr(node, name)
            cls = type(value)
            if cls is tuple or cls is list:
                for child in value:
                    if type(child) not in skipped:
                        _walk_hooks(child, visitor, skipped, table)
            elif cls not in skipped and (cls in _NODE_TYPES or _is_node_type(cls)):
                _walk_hooks(value, visitor, skipped, table)
    if leave_hook is not None:
        leave_hook(visitor, node)


def _walk_custom(node: cst.CSTNode, visitor: cst.CSTVisitor, skipped: frozenset[type], table: dict, names) -> None:
    """``_walk_hooks`` for a node its visitor's own on_visit / on_leave must see."""
    if visitor.on_visit(node):
        for name in names:
            value = getattr(node, name)
            cls = type(value)
            if cls is tuple or cls is list:
                for child in value:
                    if type(child) not in skipped:
                        _walk_hooks(child, visitor, skipped, table)
            elif cls not in skipped and (cls in _NODE_TYPES or _is_node_type(cls)):
                _walk_hooks(value, visitor, skipped, table)
    visitor.on_leave(node)


def _walk(node: cst.CSTNode, visitor: cst.CSTVisitor, skipped: frozenset[type], plans: dict) -> None:
    if visitor.on_visit(node):
        fields = plans.get(type(node))
        if fields is None:
            fields = plans[type(node)] = _visited_fields(type(node), skipped)
        for name, _, _ in fields:
            value = getattr(node, name)
            cls = type(value)
            if cls is tuple or cls is list:
                for child in value:
                    if type(child) not in skipped:
                        _walk(child, visitor, skipped, plans)
            elif cls not in skipped and (cls in _NODE_TYPES or _is_node_type(cls)):
                _walk(value, visitor, skipped, plans)
    visitor.on_leave(node)


def _transform(node: cst.CSTNode, visitor: cst.CSTTransformer, skipped: frozenset[type], plans: dict,
               counted: frozenset[type] = frozenset(), on_trivia=None):
    """``counted``: trivia types handed to ``on_trivia`` whole (see _FastDispatch.on_trivia), unchanged."""
    updated = node
    if visitor.on_visit(node):
        changes = None
        fields = plans.get(type(node))
        if fields is None:
            fields = plans[type(node)] = _visited_fields(type(node), skipped)
        for name, single, many in fields:
            value = getattr(node, name)
            cls = type(value)
            if cls is tuple or cls is list:
                new = _transform_sequence(value, visitor, many == BODY, skipped, plans, counted, on_trivia)
                if new is None:
                    continue
            elif cls not in skipped and (cls in _NODE_TYPES or _is_node_type(cls)):
                if cls in counted:
                    on_trivia(value)
                    continue
                new = _transform(value, visitor, skipped, plans, counted, on_trivia)
                if new is value:
                    continue
                new = _single(new, value, single)
            else:
                continue
            if changes is None:
                changes = {}
            changes[name] = new
        if changes is not None:
            updated = node.with_changes(**changes)
    result = visitor.on_leave(node, updated)
    return _checked(result, updated)


def _checked(result, updated: cst.CSTNode):
    """What a leave hook returned, when it is a node or a sentinel (as libcst's own traversal requires)."""
    if result is not updated and not isinstance(result, (cst.CSTNode, cst.RemovalSentinel, cst.FlattenSentinel)):
        raise cst.CSTValidationError(
            f"Expected a node of type CSTNode or a RemovalSentinel, but got a return value of {type(result).__name__}"
        )
    return result


def _transform_hooks(node: cst.CSTNode, visitor: cst.CSTTransformer, skipped: frozenset[type], table: dict,
                     counted: frozenset[type], on_trivia):
    """``_transform`` for a transformer whose on_visit / on_leave only call its hooks (but for its CUSTOM_DISPATCH
    types): the hooks are called directly."""
    entry = table.get(type(node))
    if entry is None:
        entry = _hook_entry(visitor, type(node), skipped, table)
    visit_hook, leave_hook, fields, custom = entry
    updated = node
    if visitor.on_visit(node) if custom else (visit_hook is None or visit_hook(visitor, node) is not False):
        changes = None
        for name, single, many in fields:
            value = getattr(node, name)
            cls = type(value)
            if cls is tuple or cls is list:
                results = []
                changed = False
                for child in value:
                    kind = type(child)
                    if kind in skipped:
                        results.append(child)
                    elif kind in counted:
                        on_trivia(child)
                        results.append(child)
                    else:
                        result = _transform_hooks(child, visitor, skipped, table, counted, on_trivia)
                        if result is not child:
                            changed = True
                        results.append(result)
                if not changed:
                    continue
                new = _changed_sequence(results, value, many == BODY)
            elif cls not in skipped and (cls in _NODE_TYPES or _is_node_type(cls)):
                if cls in counted:
                    on_trivia(value)
                    continue
                new = _transform_hooks(value, visitor, skipped, table, counted, on_trivia)
                if new is value:
                    continue
                new = _single(new, value, single)
            else:
                continue
            if changes is None:
                changes = {}
            changes[name] = new
        if changes is not None:
            updated = node.with_changes(**changes)
    if custom:
        result = visitor.on_leave(node, updated)
    elif leave_hook is None:
        return updated
    else:
        result = leave_hook(visitor, node, updated)
    return _checked(result, updated)


def _single(new, old: cst.CSTNode, kind: int):
    """libcst's visit_required / visit_optional / visit_sentinel on a child's result."""
    if isinstance(new, cst.FlattenSentinel):
        raise TypeError(f"We got a FlattenSentinel while visiting a {type(old).__name__}. This node's parent does not allow it.")
    if isinstance(new, cst.RemovalSentinel):
        if kind == REQUIRED:
            raise TypeError(f"We got a RemovalSentinel while visiting a {type(old).__name__}. This node's parent does not allow it to be removed.")
        return None if kind == OPTIONAL else cst.MaybeSentinel.DEFAULT
    return new


def _transform_sequence(children, visitor: cst.CSTTransformer, body: bool, skipped: frozenset[type], plans: dict,
                        counted: frozenset[type] = frozenset(), on_trivia=None) -> tuple | None:
    """libcst's visit_sequence / visit_body_sequence; None when every child came back unchanged."""
    results = [
        child if type(child) in skipped
        else (on_trivia(child) or child) if type(child) in counted
        else _transform(child, visitor, skipped, plans, counted, on_trivia)
        for child in children
    ]
    return _changed_sequence(results, children, body)


def _changed_sequence(results: list, children, body: bool) -> tuple | None:
    """The new sequence from each child's result (removals dropped, flattened ones spliced in); None when every
    child came back unchanged."""
    if all(new is old for new, old in zip(results, children)):
        return None
    out = []
    for old, new in zip(children, results):
        if isinstance(new, cst.RemovalSentinel):
            continue
        if isinstance(new, cst.FlattenSentinel):
            out.extend(n for n in new if not (body and not old._is_removable() and n._is_removable()))
        elif not (body and not old._is_removable() and new._is_removable()):
            out.append(new)
    return tuple(out)


class _NamedCalls(FastVisitor):
    def __init__(self) -> None:
        self.calls: dict[str, list[tuple[cst.Call, cst.FunctionDef | None]]] = {}
        self.functions: list[cst.FunctionDef] = []

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.functions.append(node)

    def leave_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.functions.pop()

    def visit_Call(self, node: cst.Call) -> None:
        if isinstance(node.func, cst.Name):
            self.calls.setdefault(node.func.value, []).append((node, self.functions[-1] if self.functions else None))


def named_calls(node: cst.CSTNode) -> dict[str, list[tuple[cst.Call, cst.FunctionDef | None]]]:
    """Every call ``name(...)`` of a plain name in ``node``, by name, with the function it is in (None at
    module level)."""
    finder = _NamedCalls()
    visit(node, finder)
    return finder.calls
