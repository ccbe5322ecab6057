"""A fresh array handed on to another name once it is written: ``new = p.copy(); new[...] = v; p = new``.

The alias check (aliasing.py) refuses to turn writes into ``new`` into ``.at[]`` updates because ``p = new``
makes the array reachable through another name.  Order makes it safe here: when every mention of ``new``
sits, in one block (a function or loop body), between a statement binding it to a fresh array and the
statements handing it on (``p = new``), no other name can hold its array when it is written: the array
each write changes was made earlier in the same pass through the block, and ``p`` only gets it afterwards
(the next pass through a loop body binds ``new`` to another fresh array before writing).  NumPy's in-place
writes and JAX's rebinding then leave ``p`` with the same values.
"""

from __future__ import annotations

import libcst as cst

from np2jax.visitors import FastVisitor, visit


def handed_on_after_writes(function: cst.FunctionDef, name: str, hand_offs: list[cst.CSTNode], fresh) -> bool:
    """Whether every statement in ``hand_offs`` (``p = name``: plain names bound to ``name``) comes, in one block,
    after a statement binding ``name`` to a fresh array (``fresh(value)``), with every mention of ``name`` in
    the function between the two.  ``fresh``: ``value -> bool``."""
    if not hand_offs:
        return False
    finder = _BlockOf(set(map(id, hand_offs)))
    visit(function.body, finder)
    if len(finder.blocks) != 1 or len(finder.positions) != len(hand_offs):
        return False  # not all in one block, or not all statements of a block
    block = finder.blocks[0]
    first, last = min(finder.positions), max(finder.positions)
    start = next((i for i in range(first - 1, -1, -1) if _binds_fresh(block[i], name, fresh)), None)
    if start is None:
        return False
    inside = sum(_mentions(statement, name) for statement in block[start:last + 1])
    return inside == _mentions(function.body, name)


def _binds_fresh(statement: cst.BaseStatement, name: str, fresh) -> bool:
    if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
        return False
    small = statement.body[0]
    return (isinstance(small, cst.Assign) and len(small.targets) == 1 and isinstance(small.targets[0].target, cst.Name)
            and small.targets[0].target.value == name and fresh(small.value))


def _mentions(node: cst.CSTNode, name: str) -> int:
    counter = _Mentions(name)
    visit(node, counter)
    return counter.count


class _Mentions(FastVisitor):
    def __init__(self, name: str) -> None:
        self.name = name
        self.count = 0

    def visit_Name(self, node: cst.Name) -> None:
        if node.value == self.name:
            self.count += 1


class _BlockOf(FastVisitor):
    """The blocks holding the statements whose small statements are ``wanted`` (by id), and their positions."""

    def __init__(self, wanted: set[int]) -> None:
        self.wanted = wanted
        self.blocks: list[list[cst.BaseStatement]] = []
        self.positions: list[int] = []

    def visit_IndentedBlock(self, node: cst.IndentedBlock) -> None:
        for position, statement in enumerate(node.body):
            if isinstance(statement, cst.SimpleStatementLine) and any(id(s) in self.wanted for s in statement.body):
                if not any(block is node.body for block in self.blocks):
                    self.blocks.append(node.body)
                self.positions.append(position)
