"""Imports are added and removed in one place, after all rules have run."""

from __future__ import annotations

import libcst as cst

from np2jax.analysis.resolve import is_numpy, is_scipy
from np2jax.analysis.scope import ImportBinding, Scope, dotted_name
from np2jax.visitors import child_nodes

JAX_NUMPY = "jax.numpy"


def top_level_imports(module: cst.Module) -> set[int]:
    """The ``import`` / ``from ... import`` statements that always run on import: those directly in the module's
    body (not under ``if __name__ == "__main__":``, ``try:`` or a function)."""
    return {id(small) for statement in module.body if isinstance(statement, cst.SimpleStatementLine)
            for small in statement.body if isinstance(small, (cst.Import, cst.ImportFrom))}


def imported_unconditionally(name: str, module_scope: Scope, top: set[int]) -> bool:
    """Is module-level ``name`` bound by a top-level import (so code added to the module may use it)?  A dotted
    ``name`` (``jax.scipy.linalg``) only by ``import jax.scipy.linalg`` itself."""
    head, _, rest = name.partition(".")
    return any(isinstance(b, ImportBinding) and id(b.node) in top and (
        not rest or (b.alias.asname is None and dotted_name(b.alias.name) == name))
        for b in module_scope.bindings.get(head, ()))


def choose_jnp_alias(module_scope: Scope, all_scopes: list[Scope], top: set[int]) -> tuple[str, bool]:
    """The name to call jax.numpy by, and whether the module already imports it (at its top level: an import
    under ``if __name__ == "__main__":`` gives the name, and the top-level import is added)."""
    for name, bindings in module_scope.bindings.items():
        if all(isinstance(b, ImportBinding) and b.qualname == JAX_NUMPY for b in bindings):
            return name, imported_unconditionally(name, module_scope, top)
    taken = set().union(*(scope.bindings.keys() for scope in all_scopes))
    for candidate in ("jnp", "jax_numpy", "jaxnp"):
        if candidate not in taken:
            return candidate, False
    return "jnp_", False


def _exported_names(module: cst.Module) -> set[str]:
    names: set[str] = set()
    for statement in module.body:
        if not isinstance(statement, cst.SimpleStatementLine):
            continue
        for small in statement.body:
            if isinstance(small, (cst.Assign, cst.AugAssign)):
                targets = [t.target for t in small.targets] if isinstance(small, cst.Assign) else [small.target]
                if any(isinstance(t, cst.Name) and t.value == "__all__" for t in targets) and isinstance(
                    small.value, (cst.List, cst.Tuple)
                ):
                    for element in small.value.elements:
                        if isinstance(element.value, cst.SimpleString):
                            names.add(str(element.value.evaluated_value))
    return names


def _bound_name(alias: cst.ImportAlias, is_from: bool) -> str:
    if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
        return alias.asname.name.value
    if is_from:
        return alias.name.value if isinstance(alias.name, cst.Name) else ""
    return (dotted_name(alias.name) or "").split(".")[0]


def _numpy_import(small: cst.BaseSmallStatement, of=is_numpy) -> bool:
    if isinstance(small, cst.Import):
        return any(of(dotted_name(alias.name)) for alias in small.names)
    if isinstance(small, cst.ImportFrom) and small.module is not None and not small.relative:
        return of(dotted_name(small.module))
    return False


def _removable_import(small: cst.BaseSmallStatement) -> bool:
    """An import of NumPy or SciPy, whose names a rewrite may leave unused (SciPy's: calls rewritten to their
    jax.scipy twins)."""
    return _numpy_import(small) or _numpy_import(small, is_scipy)


def finalize_imports(
    module: cst.Module, *, unused: set[str], add_jnp_as: str | None, is_package_init: bool,
    add_modules: list[str] = (),
) -> cst.Module:
    """Drop module-level NumPy (and SciPy) imports whose names the rewrite left unused; add jax.numpy (and the
    modules jit decorators need, ``add_modules``) once, after the first NumPy import."""
    if is_package_init:
        unused = set()
    unused -= _exported_names(module)
    body = list(module.body)
    insert_at: int | None = None
    for index, statement in enumerate(body):
        if not isinstance(statement, cst.SimpleStatementLine):
            continue
        if not any(_removable_import(small) for small in statement.body):
            continue
        if insert_at is None and any(_numpy_import(small) for small in statement.body):
            insert_at = index + 1
        if unused:
            body[index] = _without_names(statement, unused)
    new_imports = [f"import {name}\n" for name in add_modules]
    if add_jnp_as is not None:
        new_imports.append(f"import jax.numpy as {add_jnp_as}\n" if add_jnp_as != "numpy" else "import jax.numpy\n")
    if new_imports:
        if insert_at is None:
            insert_at = _after_header(body)
        body[insert_at:insert_at] = [cst.parse_statement(text, config=module.config_for_parsing) for text in new_imports]
    # A removed statement's leading comments stay with the line that now follows.
    result: list[cst.BaseStatement] = []
    carried: list[cst.EmptyLine] = []
    for statement in body:
        if isinstance(statement, cst.RemovalSentinel) or statement is None:
            continue
        if isinstance(statement, _Removed):
            carried.extend(statement.leading_lines)
            continue
        if carried:
            statement = statement.with_changes(leading_lines=[*carried, *statement.leading_lines])
            carried = []
        result.append(statement)
    footer = [*carried, *module.footer] if carried else module.footer
    return module.with_changes(body=result, footer=footer)


class _Removed:
    def __init__(self, leading_lines: tuple[cst.EmptyLine, ...]) -> None:
        self.leading_lines = leading_lines


def _has_comment(node: cst.CSTNode) -> bool:
    if isinstance(node, cst.Comment):
        return True
    return any(_has_comment(child) for child in child_nodes(node))


def _without_names(statement: cst.SimpleStatementLine, unused: set[str]):
    """The statement without the unused names; unchanged where that would drop a comment."""
    kept_smalls = []
    for small in statement.body:
        if _removable_import(small) and not isinstance(small.names, cst.ImportStar):
            is_from = isinstance(small, cst.ImportFrom)
            aliases = [alias for alias in small.names if _bound_name(alias, is_from) not in unused]
            removed = [alias for alias in small.names if _bound_name(alias, is_from) in unused]
            if any(_has_comment(alias) for alias in removed):
                return statement  # the comment explains a removed name: keep the import as written
            if not aliases:
                continue
            if len(aliases) != len(small.names):
                aliases[-1] = aliases[-1].with_changes(comma=small.names[-1].comma)
                small = small.with_changes(names=aliases)
        kept_smalls.append(small)
    if not kept_smalls:
        if statement.trailing_whitespace.comment is not None:
            return statement  # `import numpy as np  # why`: keep the comment with its line
        return _Removed(statement.leading_lines)
    if len(kept_smalls) != len(statement.body):
        kept_smalls[-1] = kept_smalls[-1].with_changes(semicolon=cst.MaybeSentinel.DEFAULT)
    return statement.with_changes(body=kept_smalls)


def _after_header(body: list) -> int:
    """Index after the module docstring and ``from __future__`` imports."""
    index = 0
    if body and isinstance(body[0], cst.SimpleStatementLine) and isinstance(body[0].body[0], cst.Expr):
        if isinstance(body[0].body[0].value, (cst.SimpleString, cst.ConcatenatedString)):
            index = 1
    while index < len(body):
        statement = body[index]
        if not (isinstance(statement, cst.SimpleStatementLine) and isinstance(statement.body[0], cst.ImportFrom)):
            break
        module = statement.body[0].module
        if module is None or dotted_name(module) != "__future__":
            break
        index += 1
    return index
