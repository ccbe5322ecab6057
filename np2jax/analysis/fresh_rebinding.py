"""Is a name, at one in-place write, certainly holding a fresh array that nothing else refers to?

The name-level judgement of ``analysis/aliasing.py`` looks at every binding of
a name in the whole function: ``xk = z[0]`` (a view of a 2-D ``z``), or
``m = out`` at the end of a loop, makes every ``xk += v`` / ``out |= v`` look
shared.  But a write that always comes after the name was rebound to a fresh
array (``xk = xk + vk``, ``out = np.zeros_like(m)``), with nothing between
that could take another reference to it, updates an array no other name sees,
whatever the other bindings do::

    for _ in range(iterations):
        out = np.zeros_like(m)          # fresh, every iteration
        for di in range(3):
            out |= p[di:di + h]         # only `out` sees this array
        m = out                         # handed on after the writes

``rebound_fresh_before`` walks backwards from the write through the
statements that run before it: earlier statements of its block, then the
block's owner (an ``if`` branch, a ``with`` body or a loop body, when the
whole owning statement, header and body, which earlier iterations ran too,
neither rebinds the name nor may take a reference to it), up to a plain
``name = <fresh array>``.  Anything else (the function's start, an ``else``
of a loop or ``try``, ``except``/``finally``, ``match``, a compound statement
that binds the name, a possible reference, a nested function or lambda that
mentions the name) is "not proven".
"""

from __future__ import annotations

from typing import Callable

import libcst as cst

from np2jax.analysis.aliasing import _binds as target_binds
from np2jax.analysis.aliasing import mentions
from np2jax.visitors import FastVisitor, exact_types, inner_nodes, visit

_NESTED = exact_types(cst.FunctionDef, cst.Lambda, cst.ClassDef)
_OWNERS = exact_types(cst.BaseCompoundStatement, cst.Else, cst.ExceptHandler, cst.Finally)


class _Suites(FastVisitor):
    """For every statement, the statement list it is in, its index there and the compound statement owning it."""

    def __init__(self) -> None:
        self.place: dict[cst.CSTNode, tuple[cst.CSTNode, tuple[cst.CSTNode, ...], int]] = {}
        self.statement_of: dict[cst.CSTNode, cst.BaseSmallStatement] = {}  # every node of a simple statement
        self._owners: list[cst.CSTNode] = []

    def on_visit(self, node: cst.CSTNode) -> bool:
        kind = type(node)
        if kind in _NESTED:
            return False  # (the visit starts at the function's body: these are nested)
        if kind is cst.IndentedBlock or kind is cst.SimpleStatementSuite:
            owner = self._owners[-1] if self._owners else node
            for index, statement in enumerate(node.body):
                self.place[statement] = (owner, node.body, index)
            return True
        if kind is cst.SimpleStatementLine:
            for index, small in enumerate(node.body):
                self.place[small] = (node, node.body, index)
                stack: list[cst.CSTNode] = [small]
                while stack:
                    current = stack.pop()
                    self.statement_of[current] = small
                    stack.extend(inner_nodes(current))  # (a write is never trivia)
            return False
        if kind in _OWNERS:
            self._owners.append(node)
        return True

    def on_leave(self, original_node: cst.CSTNode) -> None:
        if self._owners and self._owners[-1] is original_node:
            self._owners.pop()


class FreshRebinding:
    """Answers ``rebound_fresh_before`` for the writes of one function."""

    def __init__(self, function: cst.FunctionDef, is_fresh: Callable[[cst.BaseExpression], bool],
                 referenced: Callable[[str, cst.CSTNode], bool]) -> None:
        """``is_fresh(value)``: a new array nothing else refers to; ``referenced(name, node)``: may ``node``
        (a statement, or a loop's whole body) give another name or a container a reference to ``name``'s array."""
        self.function = function
        self.is_fresh = is_fresh
        self.referenced = referenced
        self._suites: _Suites | None = None
        self._captured_names: dict[str, bool] = {}
        self._nested: list[cst.CSTNode] | None = None

    def _place(self, node: cst.CSTNode):
        if self._suites is None:
            self._suites = _Suites()
            visit(self.function.body, self._suites)
        return self._suites.place.get(node)

    def rebound_fresh_before(self, name: str, write: cst.CSTNode) -> bool:
        """``write``: the write statement, or any node of it (its target, its call)."""
        self._place(write)
        if self._captured(name):
            return False  # a closure may hold the array (`record = lambda: history.append(out)`)
        node = self._suites.statement_of.get(write, write)
        for _ in range(64):
            place = self._place(node)
            if place is None:
                return False
            owner, statements, index = place
            for statement in reversed(statements[:index]):
                verdict = self._before(name, statement)
                if verdict is not None:
                    return verdict
            if isinstance(owner, cst.SimpleStatementLine):
                node = owner
                continue
            # Leaving a block: only a branch of an `if`, a loop's body or a `with` body, and only when the statement
            # owning it neither binds the name nor may take a reference to it anywhere (its test, iterable, items;
            # the whole body, which earlier iterations ran). An `else` of a loop or `try`, an `except`, a `finally`
            # and `match` cases run after other code of their statement: not followed.
            if isinstance(owner, cst.Else):
                owner = self._owner_of(owner)
                if not isinstance(owner, cst.If):
                    return False
            while isinstance(owner, cst.If) and self._place(owner) is None:  # an `elif`
                owner = self._owner_of(owner)
                if not isinstance(owner, cst.If):
                    return False
            if not isinstance(owner, (cst.If, cst.For, cst.While, cst.With)):
                return False
            if _binds(owner, name, augmented_too=False) or self.referenced(name, owner):
                return False
            node = owner
        return False

    def _captured(self, name: str) -> bool:
        """Does a nested function or lambda of the function mention ``name``?"""
        if name not in self._captured_names:
            if self._nested is None:  # the outermost nested functions, lambdas and classes, found once
                self._nested = []
                stack: list[cst.CSTNode] = [self.function.body]
                while stack:
                    current = stack.pop()
                    if type(current) in _NESTED:
                        self._nested.append(current)
                    else:
                        stack.extend(inner_nodes(current))
            self._captured_names[name] = any(mentions(nested, name) for nested in self._nested)
        return self._captured_names[name]

    def _owner_of(self, node: cst.CSTNode) -> cst.CSTNode | None:
        """The compound statement an ``else``/``except``/``finally`` clause (or an ``elif``) belongs to."""
        finder = _OwnerFinder(node)
        visit(self.function.body, finder)
        return finder.found[0] if finder.found else None

    def _before(self, name: str, statement: cst.CSTNode) -> bool | None:
        """True: ``statement`` rebinds ``name`` to a fresh array; False: it may rebind it otherwise or take a
        reference to it; None: it leaves ``name``'s array as it is (an in-place update, a read)."""
        if isinstance(statement, cst.SimpleStatementLine):
            for small in reversed(statement.body):
                verdict = self._before(name, small)
                if verdict is not None:
                    return verdict
            return None
        if isinstance(statement, cst.Assign) and len(statement.targets) == 1 and isinstance(
                statement.targets[0].target, cst.Name) and statement.targets[0].target.value == name:
            return self.is_fresh(statement.value)
        if isinstance(statement, cst.AugAssign) and isinstance(statement.target, cst.Name) and statement.target.value == name:
            return False if self.referenced(name, statement.value) else None
        if _binds(statement, name, augmented_too=False) or self.referenced(name, statement):
            return False
        return None


class _OwnerFinder(FastVisitor):
    def __init__(self, node: cst.CSTNode) -> None:
        self.node = node
        self.found: list[cst.CSTNode] = []

    def on_visit(self, current: cst.CSTNode) -> bool:
        if self.found:
            return False
        if isinstance(current, cst.BaseCompoundStatement) and current is not self.node and any(
                child is self.node for child in _clauses(current)):
            self.found.append(current)
            return False
        return True


def _clauses(node: cst.BaseCompoundStatement) -> list[cst.CSTNode]:
    clauses = [getattr(node, "orelse", None), getattr(node, "finalbody", None), *getattr(node, "handlers", ())]
    return [clause for clause in clauses if clause is not None]


def _binds(node: cst.CSTNode, name: str, augmented_too: bool) -> bool:
    """Does ``node`` (re)bind ``name`` anywhere (assignment, loop target, ``with ... as``, ``:=``, ``del``, import)?"""
    stack = [node]
    while stack:
        current = stack.pop()
        kind = type(current)
        if kind in _BINDERS:
            if kind in _NESTED:
                continue
            targets: list[cst.CSTNode] = []
            if kind is cst.Assign:
                targets = [t.target for t in current.targets]
            elif kind is cst.AnnAssign or kind is cst.For or kind is cst.NamedExpr:
                targets = [current.target]
            elif kind is cst.AugAssign:
                if augmented_too:
                    targets = [current.target]
            elif kind is cst.AsName:
                targets = [current.name]
            elif kind is cst.Del:
                targets = [current.target]
            else:  # global, nonlocal
                return True
            if any(target_binds(target, name) for target in targets):
                return True
        stack.extend(inner_nodes(current))  # (trivia binds nothing)
    return False


# The node types _binds looks at (exact types: none of them has subclasses)
_BINDERS = _NESTED | {cst.Assign, cst.AnnAssign, cst.For, cst.NamedExpr, cst.AugAssign, cst.AsName, cst.Del, cst.Global,
                      cst.Nonlocal}
