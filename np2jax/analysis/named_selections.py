"""A boolean selection bound to a name and only counted or reduced: ``members = X[labels == j]`` followed by
``if len(members) > 0: c[j] = members.mean(axis=0)``.

jax.jit refuses the selection itself (its shape is data); its uses have shape-fixed twins: ``len(members)`` is
``jnp.count_nonzero(labels == j)`` and ``members.mean(axis=0)`` is ``jnp.mean(X, axis=0, where=...)``
(analysis/call_checks.py, function_tracing.counted_mask). When every use of the name is one of those, in the
statements after it in the same block, and nothing rebinds or writes into what the selection reads before the
last use, each use reads ``X[labels == j]`` in place and the binding goes (walker.py): NumPy would compute the
same selection at each use.
"""

from __future__ import annotations

import libcst as cst

from np2jax.analysis.loops import all_names, descendants
from np2jax.analysis.result_writes import INPLACE_FUNCTIONS, INPLACE_METHODS
from np2jax.analysis.resolve import is_numpy
from np2jax.analysis.scope import ValueBinding


NESTED_SCOPES = (cst.Lambda, cst.FunctionDef, cst.ClassDef, cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp)


class NamedSelections:
    """A mixin of ``FunctionTracing`` (analysis/function_tracing.py)."""

    def selection_alias(self, name: cst.Name) -> cst.Subscript | None:
        """The selection ``name`` is bound to, when it is a named selection whose uses all have shape-fixed twins."""
        found, bindings = self.scope.lookup(name.value)
        if found is not self.function_scope or len(bindings) != 1 or not isinstance(bindings[0], ValueBinding):
            return None
        value = bindings[0].value
        if bindings[0].augmented or not isinstance(value, cst.Subscript):
            return None
        sites = self._selection_sites()
        if value not in sites:
            return None
        return value if self._selection_uses(value, sites[value]) is not None else None

    def check_named_selection(self, node: cst.Assign) -> None:
        """Called for each assignment before its value is visited: a named selection's value is no mask index."""
        sites = self._selection_sites()
        if node.value in sites:
            uses = self._selection_uses(node.value, sites[node.value])
            if uses is not None:
                self.module.masked_reads.add(node.value)
                self.module.selection_aliases[node] = uses

    def _selection_sites(self) -> dict[cst.Subscript, tuple[str, list[cst.BaseStatement]]]:
        """``name = X[index]`` lines without comments, each with its name and the statements after it in its block."""
        if getattr(self, "_sites", None) is None:
            self._sites = {}
            self._site_uses = {}
            for block in descendants(self.node.body):
                if not isinstance(block, cst.IndentedBlock):
                    continue
                statements = list(block.body)
                for position, line in enumerate(statements):
                    if not (isinstance(line, cst.SimpleStatementLine) and len(line.body) == 1 and isinstance(line.body[0], cst.Assign)):
                        continue
                    assign = line.body[0]
                    if line.trailing_whitespace.comment is not None or any(e.comment is not None for e in line.leading_lines):
                        continue  # (the line goes: its comment would go with it)
                    value = assign.value
                    if (len(assign.targets) == 1 and isinstance(assign.targets[0].target, cst.Name)
                            and isinstance(value, cst.Subscript) and isinstance(value.value, cst.Name) and len(value.slice) == 1
                            and isinstance(value.slice[0].slice, cst.Index)):
                        self._sites[value] = (assign.targets[0].target.value, statements[position + 1:])
        return self._sites

    def _selection_uses(self, value: cst.Subscript, site: tuple[str, list[cst.BaseStatement]]) -> list[cst.Name] | None:
        if value in self._site_uses:
            return self._site_uses[value]
        self._site_uses[value] = None  # (while deciding)
        name, following = site
        uses = self._decide_uses(value, name, following)
        self._site_uses[value] = uses
        return uses

    def _decide_uses(self, value: cst.Subscript, name: str, following: list[cst.BaseStatement]) -> list[cst.Name] | None:
        if len(self.function_scope.bindings.get(name, ())) != 1 or not self._certain_mask(value.slice[0].slice.value):
            return None
        everywhere = _loads(self.node.body, name)
        statements = [s for s in following if any(u in _descendant_set(s) for u in everywhere)]
        if not everywhere or not statements:
            return None
        inside = [u for s in statements for u in _loads(s, name)]
        if len(inside) != len(everywhere):
            return None  # used before it, or in another block
        nested = {n for s in statements for scope in descendants(s) if isinstance(scope, NESTED_SCOPES) for n in descendants(scope)}
        if any(u in nested for u in inside):
            return None  # a lambda, nested function or comprehension may run later or rebind what the selection reads
        last = following.index(statements[-1])
        read = {n.value for n in all_names(value)}
        if any(_changes(s, read, self.resolver, self.scope) for s in following[:last + 1]):
            return None
        accepted: set[cst.Name] = set()
        for statement in statements:
            for node in descendants(statement):
                if isinstance(node, cst.Call):
                    argument = node.args[0].value if node.args else None
                    qualname = self.resolver.qualname(node.func, self.scope)
                    if qualname == "builtins.len" and len(node.args) == 1 and _is(argument, name):
                        accepted.add(argument)
                    elif self.masked_reduction_form(node, qualname, selection=value) is not None:
                        read_node = node.func.value if isinstance(node.func, cst.Attribute) and qualname is None else argument
                        if _is(read_node, name):
                            accepted.add(read_node)
                elif (isinstance(node, cst.Subscript) and isinstance(node.value, cst.Attribute) and node.value.attr.value == "shape"
                      and _is(node.value.value, name) and len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Index)
                      and isinstance(node.slice[0].slice.value, cst.Integer) and node.slice[0].slice.value.value == "0"):
                    accepted.add(node.value.value)
        return inside if all(u in accepted for u in inside) else None


def _is(node: cst.CSTNode | None, name: str) -> bool:
    return isinstance(node, cst.Name) and node.value == name


def _descendant_set(node: cst.CSTNode) -> set[cst.CSTNode]:
    return set(descendants(node))


def _loads(root: cst.CSTNode, name: str) -> list[cst.Name]:
    """The ``name`` references in ``root``: not attribute names (``obj.name``) or keywords (``f(name=1)``)."""
    skipped: set[cst.CSTNode] = set()
    found = []
    for node in descendants(root):
        if isinstance(node, cst.Attribute):
            skipped.add(node.attr)
        elif isinstance(node, cst.AssignTarget):
            skipped.add(node.target)  # (the binding itself: the only one, named_selections checks)
        elif isinstance(node, cst.Arg) and node.keyword is not None:
            skipped.add(node.keyword)
        elif isinstance(node, (cst.FunctionDef, cst.ClassDef)):
            skipped.add(node.name)
        elif isinstance(node, cst.Param):
            skipped.add(node.name)
        elif isinstance(node, cst.Name) and node.value == name and node not in skipped:
            found.append(node)
    return found


def _changes(statement: cst.CSTNode, names: set[str], resolver, scope) -> bool:
    """Does ``statement`` rebind one of ``names``, write into it (``x[i] = v``, ``x += v``, ``x.sort()``,
    ``np.copyto(x, ...)``, ``out=x``) or delete it?"""
    for node in descendants(statement):
        targets: list[cst.CSTNode] = []
        if isinstance(node, cst.AssignTarget):
            targets.append(node.target)
        elif isinstance(node, (cst.AugAssign, cst.AnnAssign)):
            targets.append(node.target)
        elif isinstance(node, (cst.For, cst.CompFor)):
            targets.append(node.target)
        elif isinstance(node, cst.Del):
            targets.append(node.target)
        elif isinstance(node, (cst.NamedExpr, cst.WithItem)):
            targets.append(node.target if isinstance(node, cst.NamedExpr) else node.asname or cst.Name("_"))
        elif isinstance(node, cst.Call):
            func = node.func
            if isinstance(func, cst.Attribute) and func.attr.value in INPLACE_METHODS:
                targets.append(func.value)
            qualname = resolver.qualname(func, scope) or ""
            if node.args and (is_numpy(qualname) and qualname.rsplit(".", 1)[-1] in INPLACE_FUNCTIONS or qualname.endswith(".at")):
                targets.append(node.args[0].value)
            targets.extend(arg.value for arg in node.args if arg.keyword is not None and arg.keyword.value == "out")
        if any(name in names for target in targets for name in _written(target)):
            return True
    return False


def _written(target: cst.CSTNode) -> list[str]:
    """The names a store into ``target`` binds or writes into: ``a`` of ``a``, ``a[i]`` and ``a.b[j]`` (not ``i``)."""
    if isinstance(target, cst.AsName):
        target = target.name
    if isinstance(target, cst.Name):
        return [target.value]
    if isinstance(target, (cst.Subscript, cst.Attribute)):
        return _written(target.value)
    if isinstance(target, (cst.Tuple, cst.List)):
        return [name for element in target.elements for name in _written(element.value)]
    if isinstance(target, cst.StarredElement):
        return _written(target.value)
    return [n.value for n in all_names(target)]
