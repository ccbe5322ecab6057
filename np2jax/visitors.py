"""libcst visitor and transformer bases with cheaper dispatch.

libcst's ``CSTVisitor.on_visit`` looks up ``visit_<Type>`` by building the name
and calling ``getattr`` for every node, finds the typed no-op stub when the
subclass defines no hook, and calls it; it does the same for every child
attribute (``visit_<Type>_<attribute>``).  On a large module that is millions
of string formats and calls that do nothing.  These bases resolve the hooks a
subclass really defines once per (class, node type) and skip attribute hooks:
np2jax defines none (``FastVisitor.__init_subclass__`` refuses them, so one
cannot be added and silently never run).  Behaviour is otherwise libcst's.
"""

from __future__ import annotations

import re

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


class _FastDispatch:
    """Hook lookup cached per (class, node type); attribute hooks skipped."""

    _visit_hooks: dict = {}
    _leave_hooks: dict = {}

    def __init_subclass__(cls, **kwargs) -> None:
        super().__init_subclass__(**kwargs)
        _refuse_attribute_hooks(cls)
        cls._visit_hooks, cls._leave_hooks = {}, {}

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


class FastVisitor(_FastDispatch, cst.CSTVisitor):
    def on_leave(self, original_node: cst.CSTNode) -> None:
        hook = self._leave_hook(type(original_node))
        if hook is not None:
            hook(self, original_node)


class FastTransformer(_FastDispatch, cst.CSTTransformer):
    def on_leave(self, original_node: cst.CSTNode, updated_node: cst.CSTNode):
        hook = self._leave_hook(type(original_node))
        return updated_node if hook is None else hook(self, original_node, updated_node)
