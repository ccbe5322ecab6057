"""Another module's state written in place: ``TABLE[0] = v`` after ``from pkg.a import TABLE``.

A jitted function of ``pkg/a.py`` that reads its module-level array ``TABLE`` keeps the values it
saw when it was traced.  Within one module ``ModuleTracing.mutated_globals`` finds the functions
that change such arrays; this module finds the writes other modules make, through a name they
import (``from pkg.a import TABLE``) or an imported module (``a.TABLE[1] = v``, ``a.TABLE = new``,
``a.TABLE.fill(0)``), for the project pass (np2jax/project.py, fact kind ``"state"``).

It reads Python's ``ast`` (one walk, no scopes): a local variable spelled like an imported name
counts too, which only ever blocks jit of more readers.
"""

from __future__ import annotations

import ast

from np2jax.astutil import code_children, walk_code
from np2jax.analysis.loops import MUTATING_METHODS

FIRST_ARGUMENT_WRITERS = frozenset({"copyto", "put", "place", "putmask", "fill_diagonal", "at"})


def module_variables(tree: ast.Module | None) -> frozenset[str]:
    """Names the module's top-level statements assign (``TABLE = np.zeros(3)``, ``A, B = ...``) or define as
    classes (a class without methods is named nowhere else: ``class BaseVector3(BaseObject): _shape = (3,)``)."""
    if tree is None:
        return frozenset()
    found = {statement.name for statement in tree.body if isinstance(statement, ast.ClassDef)}
    for statement in tree.body:
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Import, ast.ImportFrom)):
            continue
        found.update(node.id for node in walk_code(statement) if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store))
    return frozenset(found)


def module_tables(tree: ast.Module | None) -> dict[str, str]:
    """Top-level names bound once to a dict, list or tuple display of literals that no function of the module
    changes (``WHITE = {"d65": (0.95, 1.0, 1.09)}``), each with what it is: ``"mapping"`` or ``"sequence"``, plus
    ``" rows"`` when every entry is itself a list or tuple (a row handed to jax.numpy must be wrapped)."""
    if tree is None:
        return {}
    from np2jax.analysis.tracing import _mutated_globals  # (tracing imports the analyses this module serves)

    counts: dict[str, int] = {}
    candidates: dict[str, ast.AST] = {}
    for statement in tree.body:
        for node in walk_code(statement) if not isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) else ():
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                counts[node.id] = counts.get(node.id, 0) + 1
        if (isinstance(statement, ast.Assign) and len(statement.targets) == 1 and isinstance(statement.targets[0], ast.Name)
                and isinstance(statement.value, (ast.Dict, ast.List, ast.Tuple))):
            candidates[statement.targets[0].id] = statement.value
    mutated = _mutated_globals(tree)
    found = {}
    for name, value in candidates.items():
        if counts.get(name) != 1 or name in mutated:
            continue
        try:
            data = ast.literal_eval(value)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            continue
        entries = list(data.values()) if isinstance(data, dict) else list(data)
        kind = "mapping" if isinstance(data, dict) else "sequence"
        found[name] = kind + (" rows" if entries and all(isinstance(e, (list, tuple)) for e in entries) else "")
    return found


def imported_state_writes(tree: ast.Module | None, imports: dict[str, str]) -> dict[str, tuple[str, int]]:
    """Imported targets the module writes in place or rebinds -> (writer qualname or ``<module>``, line).

    ``imports`` maps module-level names to what they import (analysis/links.py ``module_imports``).
    For ``a.TABLE[1] = v`` both ``pkg.a`` and ``pkg.a.TABLE`` are given: the project pass keeps the one
    that names a module-level variable.
    """
    found: dict[str, tuple[str, int]] = {}
    if tree is None or not imports:
        return found
    stack: list[tuple[ast.AST, str, frozenset[str]]] = [(tree, "<module>", frozenset())]
    while stack:
        node, where, params = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            name = node.name if where == "<module>" else f"{where}.{node.name}"
            own = params
            if not isinstance(node, ast.ClassDef):
                own = params | {a.arg for a in walk_code(node.args) if isinstance(a, ast.arg)}
            stack.extend((child, name, own) for child in code_children(node))
            continue
        for chain in _written_chains(node):
            if chain[0] in imports and chain[0] not in params:
                base = imports[chain[0]]
                line = getattr(node, "lineno", 0)
                for target in (base, f"{base}.{chain[1]}") if len(chain) > 1 else (base,):
                    if target not in found or line < found[target][1]:  # the first write, for the message
                        found[target] = (where, line)
        stack.extend((child, where, params) for child in code_children(node))
    return found


def _written_chains(node: ast.AST) -> list[list[str]]:
    """``[root, attr, ...]`` of what ``node`` writes: ``TABLE[0] = v`` -> [TABLE]; ``a.T.fill(0)`` -> [a, T]."""
    bases: list[ast.expr] = []
    if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Delete)):
        targets = node.targets if isinstance(node, (ast.Assign, ast.Delete)) else [node.target]
        for target in targets:
            bases.extend(_stored(target))
    elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in MUTATING_METHODS:
        bases.append(node.func.value)
    elif isinstance(node, ast.Call):
        bases.extend(keyword.value for keyword in node.keywords if keyword.arg == "out")
        if isinstance(node.func, ast.Attribute) and node.func.attr in FIRST_ARGUMENT_WRITERS and node.args:
            bases.append(node.args[0])  # np.copyto(TABLE, v), np.add.at(TABLE, i, v)
    return [chain for chain in map(_chain, bases) if chain]


def _stored(target: ast.expr) -> list[ast.expr]:
    if isinstance(target, (ast.Tuple, ast.List)):
        return [inner for element in target.elts for inner in _stored(element)]
    if isinstance(target, ast.Starred):
        return _stored(target.value)
    if isinstance(target, ast.Subscript):
        return [target.value]
    if isinstance(target, ast.Attribute):
        return [target]  # `a.TABLE = new` rebinds another module's name
    return []


def _chain(node: ast.expr) -> list[str]:
    """Attribute names from the root name, subscripts skipped past: ``a.T[0].x`` -> [a, T, x]."""
    parts: list[str] = []
    while isinstance(node, (ast.Attribute, ast.Subscript)):
        if isinstance(node, ast.Attribute):
            parts.append(node.attr)
        else:
            parts.clear()  # what lies past a subscript is inside an element: the chain restarts below it
        node = node.value
    if not isinstance(node, ast.Name):
        return []
    return [node.id, *reversed(parts)]


def attribute_writes(tree: ast.Module | None, numpy_code: frozenset[str] | None = None) -> dict[str, tuple[str, int]]:
    """Attributes of objects written in place -> (writer, line): ``old.coords[m] = v``, ``s.coords += d``,
    ``s.w.fill(0)``, in the functions ``numpy_code`` names (None: every one) and at module level.

    ``self``/``cls`` attributes are the module's own classes' business (np2jax.propagation); another
    module's object whose attribute NumPy code here writes holds NumPy arrays there too, or the write
    raises (a jax.Array) or, for ``op=``, rebinds the attribute where NumPy updates the array.
    """
    found: dict[str, tuple[str, int]] = {}
    if tree is None:
        return found
    for where, node in _function_nodes(tree):
        if numpy_code is not None and where != "<module>" and where not in numpy_code:
            continue
        if isinstance(node, ast.Assign) and not any(isinstance(t, ast.Subscript) for t in node.targets):
            continue  # `obj.x = new` rebinds the attribute: nothing is written in place
        for chain in _written_chains(node):
            if len(chain) > 1 and chain[0] not in ("self", "cls"):
                line = getattr(node, "lineno", 0)
                if chain[-1] not in found or line < found[chain[-1]][1]:
                    found[chain[-1]] = (where, line)
    return found


def attribute_stores(tree: ast.Module | None) -> dict[str, frozenset[str]]:
    """Function qualname -> the attributes it assigns (``self.coords = np.atleast_2d(c)``, ``b.F, b.G = ...``)."""
    found: dict[str, set[str]] = {}
    if tree is None:
        return {}
    for where, node in _function_nodes(tree):
        if where == "<module>" or not isinstance(node, (ast.Assign, ast.AnnAssign)):
            continue
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        for target in targets:
            for element in walk_code(target):
                if isinstance(element, ast.Attribute) and isinstance(element.ctx, ast.Store):
                    found.setdefault(where, set()).add(element.attr)
    return {name: frozenset(attrs) for name, attrs in found.items()}


_WRITES = (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Delete, ast.Call)


def _function_nodes(tree: ast.Module) -> list[tuple[str, ast.AST]]:
    """(qualname of the enclosing top-level function or method, or ``<module>``; node) for the assignments,
    deletions and calls of the module, found once per tree (the engine asks again in every round)."""
    found = getattr(tree, "_np2jax_writes", None)
    if found is not None:
        return found
    found = []
    for statement in tree.body:
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
            parts = [(statement.name, statement)]
        elif isinstance(statement, ast.ClassDef):
            parts = [(f"{statement.name}.{child.name}" if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef))
                      else "<module>", child) for child in statement.body]
        else:
            parts = [("<module>", statement)]
        for where, part in parts:
            found.extend((where, node) for node in walk_code(part) if isinstance(node, _WRITES))
    tree._np2jax_writes = found  # type: ignore[attr-defined]
    return found
