"""The base of the rules that look for NumPy behaviour a migrated function silently loses.

They run when the walker leaves a function and look at its original code,
node by node with the scope of each (``function_nodes``), only when the
function was rewritten: code that stays NumPy keeps NumPy's behaviour.
"""

from __future__ import annotations

from typing import ClassVar

import libcst as cst

from np2jax.analysis.scope import Scope
from np2jax.analysis.values import function_nodes, nodes_of
from np2jax.context import FileContext, FunctionInfo
from np2jax.rule import Rule


class HazardRule(Rule):
    # The node types ``check`` looks at (exact types; None: every node).
    NODE_TYPES: ClassVar[frozenset[type] | None] = None

    def on_leave_function(self, info: FunctionInfo, ctx: FileContext) -> None:
        if not info.changed or info.has_errors(ctx):
            return
        kinds = self.NODE_TYPES
        for node, scope in function_nodes(info.node, ctx.resolver) if kinds is None else nodes_of(info.node, ctx.resolver, kinds):
            self.check(node, scope, ctx)

    def check(self, node: cst.CSTNode, scope: Scope, ctx: FileContext) -> None:
        """Called for every node of a rewritten function's original body (nested ``def``s apart)."""
