"""The single traversal that runs every rule on a module.

The walker keeps the current scope and source line, turns each NumPy name it
meets inside a function body into a ``NumpyRef``, hands it to the rules in
order (reporting rules first, the rewriting rule last) and applies what they
decided.  Code that runs when the module is imported (module level, class
bodies, decorators, default values, annotations) is never rewritten: it is not
traced by ``jax.jit``, and NumPy is the right tool there.  Lambda bodies are the
exception: they run when called, wherever they are defined.
"""

from __future__ import annotations

from typing import Sequence

import libcst as cst

from np2jax.analysis.links import imported_target, star_targets
from np2jax.analysis.resolve import is_numpy, is_scipy
from np2jax.analysis.scope import (
    SCOPE_NODES, DefBinding, ImportBinding, LoopBinding, Scope, ValueBinding, attribute_chain, instance_class,
)
from np2jax.context import BLOCKED_AS_IS, FileContext, FunctionInfo, NumpyRef, as_is_verdict, loop_plan, runs_on_jax_arrays
from np2jax.cstutil import call, dotted, trailing_comment_lines
from np2jax.diagnostics import Diagnostic, Severity
from np2jax.kept_numpy import called_in_a_loop, compiled_body, kept_inside, object_arguments, shape_changing_loop
from np2jax.rule import Rule
from np2jax.tables import lookup_numpy
from np2jax.visitors import FastTransformer, TRIVIA, child_nodes
from np2jax.walker_calls import CallRewrites

HEADER_STATEMENTS = frozenset({cst.If, cst.While, cst.For, cst.With})  # exact types: cheaper than isinstance
_SCOPES_AND_HEADERS = SCOPE_NODES | HEADER_STATEMENTS  # the node types on_visit/on_leave do more for
_PASS_BLOCK = cst.IndentedBlock(body=[cst.SimpleStatementLine(body=[cst.Pass()])])
REWRITE_NOTES = frozenset({"NPJ305", "NPJ306", "NPJ308"})  # info notes about jit-only rewrites, dropped with them


def rules_by_hook(rules: Sequence[Rule]) -> dict[str, list[Rule]]:
    """For each hook of ``Rule``, the rules (in order) that define it: the walker calls only those."""
    names = [name for name, value in vars(Rule).items() if callable(value) and name.startswith(("on_", "rewrite_"))]
    return {name: [rule for rule in rules if getattr(type(rule), name) is not getattr(Rule, name)] for name in names}


class Walker(CallRewrites, FastTransformer):
    def __init__(self, ctx: FileContext, rules: Sequence[Rule]) -> None:
        super().__init__()
        self.ctx = ctx
        self.hooks = rules_by_hook(rules)
        self.scopes = ctx.resolver.scopes
        self.scope_stack: list[Scope] = [ctx.scope]
        self.function_depth = 0  # > 0 inside a function body
        self.import_time_depth = 0  # > 0 in decorators, defaults, annotations
        self.replacements: dict[cst.CSTNode, cst.BaseExpression] = {}
        self.wraps: dict[cst.CSTNode, set[int | tuple[int, int]]] = {}
        self.keyword_changes: dict[cst.CSTNode, dict] = {}
        self.result_casts: dict[cst.CSTNode, cst.BaseExpression] = {}  # NumpyRef.result_cast of the rewritten calls
        self.functions: list[FunctionInfo] = []
        self._open_functions: list[FunctionInfo] = []
        self._qualname_stack: list[str] = []
        self._frames: list[tuple[int, int, set[str]]] = []  # per open function: diagnostics, jnp uses, import names seen
        self._statements: list[tuple[cst.CSTNode, int]] = []  # enclosing statements with their first lines
        self.import_depth = 0
        self._pending_def_names: dict[cst.Name, FunctionInfo] = {}
        self._class_ancestors: dict[str, tuple[str, ...]] = {}  # class -> its same-module base classes, transitively
        self._default_names: set[cst.Name] = set()  # parameter defaults that are names (`def f(x, g=helper)`)
        self._held: dict[cst.CSTNode, set[str]] = {}  # module-level value -> the module's functions named in it
        module_scope = ctx.scope
        self.numpy_import_names = {
            name
            for name, bindings in module_scope.bindings.items()
            if any(isinstance(b, ImportBinding) and (is_numpy(b.qualname) or is_scipy(b.qualname)) for b in bindings)
        }  # (SciPy's too: calls rewritten to their jax.scipy twins may leave them unused)
        self.used_import_names: set[str] = set()
        self.rewritten_import_names: set[str] = set()
        self.statement_rewrites = 0
        self.callees: set[cst.CSTNode] = set()
        self.inner_chain: set[cst.CSTNode] = set()
        self.not_references: set[cst.CSTNode] = set()
        self._written_flats: set[cst.Attribute] = set()  # `x.flat[i] = v`, `x.flat = v`: not rewritten

    # --- source lines ------------------------------------------------------
    def visit_Newline(self, node: cst.Newline) -> None:
        self.ctx.line += 1

    TRIVIA_HOOKS = frozenset({"visit_Newline", "visit_SimpleWhitespace"})  # what on_trivia does (ContinuationWalker's too)

    def on_trivia(self, node: cst.CSTNode) -> None:
        """What visit_Newline does for every newline in a piece of trivia, at once (np2jax.visitors)."""
        self.ctx.line += _newlines(node, False)

    def visit_SimpleString(self, node: cst.SimpleString) -> None:
        self.ctx.line += node.value.count("\n")

    def visit_FormattedStringText(self, node: cst.FormattedStringText) -> None:
        self.ctx.line += node.value.count("\n")

    # --- scopes (entered and left for every scope-creating node in on_visit / on_leave) ---
    def _enter(self, node: cst.CSTNode) -> None:
        scope = self.scopes.get(node)
        if scope is not None:
            self.scope_stack.append(scope)
            self.ctx.scope = scope

    def _leave(self, node: cst.CSTNode) -> None:
        if node in self.scopes:
            self.scope_stack.pop()
            self.ctx.scope = self.scope_stack[-1]

    def _qualified(self, name: str) -> str:
        return f"{self._qualname_stack[-1]}.{name}" if self._qualname_stack else name

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        info = FunctionInfo(self._qualified(node.name.value), node, self.ctx.line)
        if self._qualname_stack and not self._qualname_stack[-1].endswith(".<locals>"):
            info.class_name = self._qualname_stack[-1]
            info.class_bases = self._class_ancestors.get(info.class_name, ())
        for param in (*node.params.posonly_params, *node.params.params, *node.params.kwonly_params):
            if isinstance(param.default, cst.Name):
                self._default_names.add(param.default)
        self._qualname_stack.append(info.qualname + ".<locals>")
        self._pending_def_names[node.name] = info
        if self._open_functions:
            self._open_functions[0].nested.append(info)
            info.outer = self._open_functions[0]
        self._open_functions.append(info)
        self.functions.append(info)
        self.ctx.function = info
        if info.is_module_level and _has_for_loop(self.scopes.get(node)):
            loop_plan(info, self.ctx)  # before any rule asks what is static in its converted loops
        info.first_diagnostic = len(self.ctx.diagnostics)
        self._frames.append((len(self.ctx.diagnostics), self.ctx.jnp_uses, set(), self._changes()))

    def _changes(self) -> int:
        return self.ctx.jnp_uses + self.statement_rewrites + len(self.replacements)

    def _fresh_items(self) -> frozenset[str]:
        """The function's containers made by a helper of the module whose items no other reference sees."""
        aliasing = self.ctx.aliasing()
        if aliasing is None or aliasing.fresh_results is None:
            return frozenset()
        return frozenset(name for name in aliasing.scope.bindings
                         if aliasing.fresh_results.fresh_container_name(name, aliasing.scope) is not None
                         and aliasing.container_item_blocker(name) is None)

    def leave_FunctionDef(self, original: cst.FunctionDef, updated: cst.FunctionDef) -> cst.FunctionDef:
        first_diagnostic, jnp_uses, import_names, changes = self._frames.pop()
        if self._frames:
            self._frames[-1][2].update(import_names)
        info = self._open_functions[-1]
        info.changed = self._changes() > changes
        if not info.changed:
            verdict = as_is_verdict(info, self.ctx)
            if verdict is None:
                info.changed = True  # array code jitted as it is
            elif verdict is BLOCKED_AS_IS:
                info.blocked_as_is = True
            else:
                info.as_is_reason = verdict
        for rule in self.hooks["on_leave_function"]:
            rule.on_leave_function(info, self.ctx)
        info.fresh_items = self._fresh_items()
        reverted = any(d.severity is Severity.ERROR for d in self.ctx.diagnostics[first_diagnostic:])
        compiled = None if reverted or info.jit or self._returns_arguments(info) else (
            compiled_body(info, self.ctx) or kept_inside(info, self.ctx))
        looping = compiled or (None if reverted or info.jit or not info.changed or self._returns_arguments(info) else (
            shape_changing_loop(info, self.ctx) or called_in_a_loop(info, self.ctx)))
        kept = looping or (None if reverted or info.jit or not info.changed else object_arguments(info, self.ctx))
        if kept is not None:  # un-jitted, eager jax.numpy would be slower than NumPy or fail where NumPy works
            reverted, info.changed, info.kept_numpy = True, False, looping is not None
            message, use_instead = kept
            start_line, col, end_line, end_col = self.ctx.def_name_span(info)
            self.ctx.diagnostics.append(Diagnostic(
                "NPJ304", Severity.INFO, f"not jitted, and left as NumPy code: {message}",
                self.ctx.path, start_line, col, end_line, end_col, use_instead))
        if reverted:
            # Cannot be migrated faithfully: leave the whole function as it was, still working NumPy code.
            updated = original
            self.ctx.jnp_uses = jnp_uses
            self.used_import_names |= import_names
            info.jit, info.static_argnums, info.decorator = False, (), None
            # Notes about rewrites that were just undone go too.
            self.ctx.diagnostics[first_diagnostic:] = [d for d in self.ctx.diagnostics[first_diagnostic:] if d.code not in REWRITE_NOTES]
        else:
            self.ctx.jit_uses |= info.needs
        if info.epilogue is not None and not reverted:
            updated = updated.with_changes(body=_append_statement(updated.body, info.epilogue))
        if info.prologue and not reverted:
            converted = {statement.targets[0].target.value for statement in info.prologue}
            body = updated.body.visit(_Unwrap(converted, self.ctx.jnp_alias))  # `jnp.asarray(x)` of `x` converted first
            updated = updated.with_changes(body=_prepend_statements(body, info.prologue))
        if info.decorator is not None and not reverted:
            decorator = cst.Decorator(decorator=cst.parse_expression(info.decorator))
            updated = updated.with_changes(decorators=[decorator, *updated.decorators])
        info = self._open_functions.pop()
        self.ctx.function = self._open_functions[-1] if self._open_functions else None
        self._qualname_stack.pop()
        info.end_line = self.ctx.line - 1 - trailing_comment_lines(original.body)
        if not self._open_functions:
            for nested in info.nested:  # traced as part of it
                nested.jit = info.jit
            for rule in self.hooks["on_function_decided"]:
                rule.on_function_decided(info, self.ctx)
        return updated

    def _returns_arguments(self, info: FunctionInfo) -> bool:
        """``info``'s function now returns the arguments it mutated (NPJ203) and its calls here rebind them
        (``a = f(a)``): left as NumPy code it would return None to them instead."""
        mutations = self.ctx.mutations
        return mutations is not None and bool(mutations.returned(info.node)[0])

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        qualname = self._qualified(node.name.value)
        self._qualname_stack.append(qualname)
        ancestors = []
        for base in node.bases:
            if base.keyword is None and not base.star and isinstance(base.value, cst.Name):
                name = base.value.value
                found, bindings = self.scope_stack[-2].lookup(name) if len(self.scope_stack) > 1 else (None, [])
                if found is not None and found.kind == "module" and any(
                    isinstance(b, DefBinding) and isinstance(b.node, cst.ClassDef) for b in bindings
                ):
                    ancestors.extend((name, *self._class_ancestors.get(name, ())))
        if ancestors:
            self._class_ancestors[qualname] = tuple(dict.fromkeys(ancestors))

    def leave_ClassDef(self, original: cst.ClassDef, updated: cst.ClassDef) -> cst.ClassDef:
        self._qualname_stack.pop()
        return updated

    # A lambda's body runs when it is called, wherever it is defined.
    def visit_Lambda(self, node: cst.Lambda) -> None:
        self.function_depth += 1

    def leave_Lambda(self, original: cst.Lambda, updated: cst.Lambda) -> cst.Lambda:
        self.function_depth -= 1
        return updated

    # Function and lambda bodies are traced; everything around them is not.
    def visit_IndentedBlock(self, node: cst.IndentedBlock) -> None:
        if self._open_functions and self._open_functions[-1].node.body is node:
            self.function_depth += 1

    def leave_IndentedBlock(self, original: cst.IndentedBlock, updated: cst.IndentedBlock) -> cst.IndentedBlock:
        if self._open_functions and self._open_functions[-1].node.body is original:
            self.function_depth -= 1
        return updated

    def visit_SimpleStatementSuite(self, node: cst.SimpleStatementSuite) -> None:
        if self._open_functions and self._open_functions[-1].node.body is node:
            self.function_depth += 1

    def leave_SimpleStatementSuite(
        self, original: cst.SimpleStatementSuite, updated: cst.SimpleStatementSuite
    ) -> cst.SimpleStatementSuite:
        if self._open_functions and self._open_functions[-1].node.body is original:
            self.function_depth -= 1
        return updated

    def visit_Decorator(self, node: cst.Decorator) -> None:
        self.import_time_depth += 1

    def leave_Decorator(self, original: cst.Decorator, updated: cst.Decorator) -> cst.Decorator:
        self.import_time_depth -= 1
        return updated

    def visit_Parameters(self, node: cst.Parameters) -> None:
        self.import_time_depth += 1

    def leave_Parameters(self, original: cst.Parameters, updated: cst.Parameters) -> cst.Parameters:
        self.import_time_depth -= 1
        return updated

    def visit_Annotation(self, node: cst.Annotation) -> None:
        self.import_time_depth += 1

    def leave_Annotation(self, original: cst.Annotation, updated: cst.Annotation) -> cst.Annotation:
        self.import_time_depth -= 1
        return updated

    # Names inside import statements are bindings, not references.
    def visit_Import(self, node: cst.Import) -> None:
        self.import_depth += 1

    def leave_Import(self, original: cst.Import, updated: cst.Import) -> cst.Import:
        self.import_depth -= 1
        return updated

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        self.import_depth += 1

    def leave_ImportFrom(self, original: cst.ImportFrom, updated: cst.ImportFrom) -> cst.ImportFrom:
        self.import_depth -= 1
        return updated

    @property
    def traced(self) -> bool:
        return self.function_depth > 0 and self.import_time_depth == 0

    @property
    def lookup_scope(self) -> Scope:
        # Defaults and decorators are evaluated in the enclosing scope.
        if self.import_time_depth and len(self.scope_stack) > 1:
            return self.scope_stack[-2]
        return self.scope_stack[-1]

    # --- NumPy references --------------------------------------------------
    def _numpy_ref(self, node: cst.BaseExpression, call: cst.Call | None) -> NumpyRef | None:
        qualname = self.ctx.resolver.qualname(node, self.ctx.scope)
        if not is_numpy(qualname):
            return None
        row = lookup_numpy(qualname)
        member = qualname[len(row.numpy) + 1:] if row is not None and len(qualname) > len(row.numpy) else ""
        return NumpyRef(node, qualname, row, member, call, self.ctx.scope)

    def _run_rules(self, ref: NumpyRef) -> None:
        for rule in self.hooks["on_numpy_ref"]:
            rule.on_numpy_ref(ref, self.ctx)
        if ref.rewrite is not None and not ref.blocked:
            replacement = dotted(self.ctx.jnp_alias + ref.rewrite[len("jax.numpy"):])
            if isinstance(ref.node, (cst.Name, cst.Attribute)):
                replacement = replacement.with_changes(lpar=ref.node.lpar, rpar=ref.node.rpar)
            self.replacements[ref.node] = replacement
            self._rewritten_import_name(ref.node, ref.scope)
            self.ctx.use_jnp()
            if ref.call is not None:
                self.ctx.jax_calls.add(ref.call)
            if ref.call is not None and ref.wrap_args:
                self.wraps[ref.call] = set(ref.wrap_args)
            if ref.call is not None and ref.keyword_changes:
                self.keyword_changes[ref.call] = dict(ref.keyword_changes)
            if ref.call is not None and ref.result_cast is not None:
                self.result_casts[ref.call] = ref.result_cast

    def _rewritten_import_name(self, node: cst.BaseExpression, scope: Scope) -> None:
        """The module-level import name ``node`` (``np.linalg.norm``, ``linalg.inv``) starts with, now that it is
        rewritten: unused after the rewrite, its import goes."""
        base = attribute_chain(node)[0]
        if base in self.numpy_import_names:
            found, _ = scope.lookup(base)
            if found is not None and found.kind == "module":
                self.rewritten_import_names.add(base)
                if self._frames:
                    self._frames[-1][2].add(base)

    def _twin_call(self, node: cst.Call, twin: str) -> None:
        """``linalg.inv(S)`` -> ``jax.scipy.linalg.inv(S)`` (analysis/scipy_twins.py, rules/foreign_array_library.py)."""
        self.replacements[node.func] = dotted(twin).with_changes(lpar=node.func.lpar, rpar=node.func.rpar)
        self._rewritten_import_name(node.func, self.ctx.scope)
        self.ctx.function.needs.add(twin.rpartition(".")[0])

    def _claim_chain(self, node: cst.BaseExpression) -> None:
        """Mark the inner parts of ``a.b.c`` so only the whole chain is a reference."""
        while isinstance(node, cst.Attribute):
            self.not_references.add(node.attr)
            node = node.value
            self.inner_chain.add(node)

    def visit_Call(self, node: cst.Call) -> None:
        self.callees.add(node.func)
        if not self.traced:
            return
        if attribute_chain(node.func) is not None:
            self._claim_chain(node.func)
            ref = self._numpy_ref(node.func, node)
            if ref is not None:
                self._run_rules(ref)
        for rule in self.hooks["on_call"]:
            rule.on_call(node, self.ctx)
        if node in self.ctx.call_funcs and attribute_chain(node.func) is not None and self.ctx.function is not None:
            self._twin_call(node, self.ctx.call_funcs[node])
        self._record_local_call(node)

    def _record_local_call(self, node: cst.Call) -> None:
        """Remember calls to functions and methods of this module, for the engine's propagation."""
        info = self.ctx.function
        if info is None:
            return
        func = node.func
        callee = None
        if isinstance(func, cst.Name):
            found, bindings = self.ctx.scope.lookup(func.value)
            if found is not None and found.kind == "module" and any(isinstance(b, DefBinding) for b in bindings):
                callee = func.value
        elif isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and info.class_name and func.value.value in ("self", "cls"):
            callee = f"{info.class_name}.{func.attr.value}"
        elif isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name):
            owner = instance_class(func.value.value, self.ctx.scope)  # `opt = Adam(shapes)`, then `opt.step(p, g)`
            callee = f"{owner}.{func.attr.value}" if owner is not None else None
        if callee is not None and callee not in info.calls:
            info.calls[callee] = node
            info.call_statements[node] = self.ctx.statement
        if isinstance(func, cst.Name) and callee == func.value:
            for ancestor in self._class_ancestors.get(callee, ()):  # `Leaf(n)` runs its base classes' methods
                info.calls.setdefault(ancestor, node)
        elif callee is None and (self.ctx.imports or self.ctx.stars):  # another module's (np2jax.project follows it)
            target = imported_target(func, self.ctx.scope, self.ctx.imports)
            for target in [target] if target is not None else star_targets(func, self.ctx.scope, self.ctx.stars):
                if target not in info.imported_calls:
                    info.imported_calls[target] = (node, self.ctx.line)
                    info.call_statements[node] = self.ctx.statement

    def _record_local_reference(self, node: cst.Name, callee: bool) -> None:
        """Remember functions of this module used as values (``apply(inc, x)``, ``def f(x, g=inc)``, ``return inc``),
        also through a module-level value that holds them (``HANDLER = inc``, ``HANDLERS = {"inc": inc}``):
        whoever calls them through that value runs them as well, for the engine's propagation."""
        info = self.ctx.function
        if info is None:
            return
        found, bindings = self.lookup_scope.lookup(node.value)
        if found is None or found.kind != "module":
            return
        if not callee and node.value in self.ctx.imports and any(isinstance(b, ImportBinding) for b in bindings):
            # another module's function handed on as a value (`frechet(x, inv=check)`): whoever calls it runs it,
            # so np2jax.project treats it as called here
            info.imported_calls.setdefault(self.ctx.imports[node.value], (node, self.ctx.line))
            info.call_statements.setdefault(node, self.ctx.statement)
        functions = set()
        for binding in bindings:
            if isinstance(binding, DefBinding) and isinstance(binding.node, cst.FunctionDef) and not callee:
                functions.add(node.value)
            elif isinstance(binding, ValueBinding):
                functions |= self._functions_held(binding.value, found)
        for name in sorted(functions):
            if name not in info.references:
                info.references[name] = node
                info.call_statements[node] = self.ctx.statement

    def _functions_held(self, value: cst.BaseExpression, module: Scope) -> set[str]:
        """The module's functions named in a module-level value (``{"inc": inc}``), not called there."""
        found = self._held.get(value)
        if found is None:
            found = self._held[value] = set()
            pending = [value]
            while pending:
                node = pending.pop()
                if isinstance(node, cst.Name) and any(
                    isinstance(b, DefBinding) and isinstance(b.node, cst.FunctionDef) for b in module.bindings.get(node.value, ())
                ):
                    found.add(node.value)
                # `W = init(3)` holds init's result, not init
                pending.extend(c for c in child_nodes(node) if not (isinstance(node, cst.Call) and c is node.func))
        return found

    def visit_Arg(self, node: cst.Arg) -> None:
        if node.keyword is not None:
            self.not_references.add(node.keyword)

    def visit_NameItem(self, node: cst.NameItem) -> None:
        self.not_references.add(node.name)  # global / nonlocal declarations

    def _visit_reference(self, node: cst.Name | cst.Attribute) -> bool:
        if node in self.replacements:
            return False
        if not self.traced or node in self.callees or node in self.inner_chain:
            return True
        self._claim_chain(node)
        ref = self._numpy_ref(node, None)
        if ref is not None:
            self._run_rules(ref)
        return node not in self.replacements

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        self.not_references.add(node.attr)
        if self.import_depth:
            return True
        return self._visit_reference(node)

    def visit_Name(self, node: cst.Name) -> bool:
        info = self._pending_def_names.pop(node, None)
        if info is not None:
            info.line = self.ctx.line
            return False
        if node in self.not_references or self.import_depth:
            return False
        if node.value in self.numpy_import_names and node not in self.replacements:
            found, _ = self.lookup_scope.lookup(node.value)
            if found is not None and found.kind == "module":
                self.used_import_names.add(node.value)
                if self._frames:
                    self._frames[-1][2].add(node.value)
        if node not in self.inner_chain and (self.traced or node in self._default_names):
            self._record_local_reference(node, node in self.callees)
        return self._visit_reference(node)

    def leave_Name(self, original: cst.Name, updated: cst.BaseExpression) -> cst.BaseExpression:
        return self.replacements.get(original, updated)

    # --- statements ------------------------------------------------------------
    def _rewrite_statement(self, original: cst.BaseSmallStatement, updated: cst.BaseSmallStatement):
        if not self.traced:
            return updated
        for rule in self.hooks["rewrite_statement"]:
            replacement = rule.rewrite_statement(original, updated, self.ctx)
            if replacement is not None:
                self.statement_rewrites += 1
                return replacement
        return updated

    # The statement being walked, so exact positions can be computed for it alone.
    def _push_statement(self, node: cst.CSTNode) -> None:
        self._statements.append((node, self.ctx.line))
        self.ctx.statement = self._statements[-1]

    def _pop_statement(self) -> None:
        self._statements.pop()
        self.ctx.statement = self._statements[-1] if self._statements else None

    CUSTOM_DISPATCH = _SCOPES_AND_HEADERS  # on_visit / on_leave only call the hooks for every other node type

    def on_visit(self, node: cst.CSTNode) -> bool:
        if type(node) in _SCOPES_AND_HEADERS:
            self._enter(node)
            if type(node) in HEADER_STATEMENTS:
                # Only the header: the body's statements are pushed themselves.
                self._push_statement(node.with_changes(body=_PASS_BLOCK, **({"orelse": None} if hasattr(node, "orelse") else {})))
        return super().on_visit(node)

    def on_leave(self, original: cst.CSTNode, updated: cst.CSTNode):
        if type(original) not in _SCOPES_AND_HEADERS:
            return super().on_leave(original, updated)
        if type(original) in HEADER_STATEMENTS:
            self._pop_statement()
        result = super().on_leave(original, updated)
        self._leave(original)
        return result

    def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> None:
        self._push_statement(node)

    def leave_SimpleStatementLine(self, original: cst.SimpleStatementLine, updated: cst.SimpleStatementLine):
        self._pop_statement()
        if not self.traced or len(original.body) != 1:
            return updated
        tracing = self.ctx.tracing
        if (tracing is not None and original.body[0] in tracing.selection_aliases and isinstance(updated.body[0], cst.Assign)
                and runs_on_jax_arrays(self.ctx.function, self.ctx)):
            # `members = X[m]` goes; each use reads `X[m]` in a shape-fixed form (analysis/named_selections.py)
            for use in tracing.selection_aliases[original.body[0]]:
                self.replacements[use] = updated.body[0].value.deep_clone()
            self.statement_rewrites += 1
            return cst.RemovalSentinel.REMOVE
        for rule in self.hooks["rewrite_line"]:
            lines = rule.rewrite_line(original, updated, self.ctx)
            if lines is not None:
                self.statement_rewrites += 1
                return cst.FlattenSentinel(lines)
        return updated

    def leave_While(self, original: cst.While, updated: cst.While):
        return self.leave_For(original, updated)  # type: ignore[arg-type]  # rewrite_loop takes both

    def leave_For(self, original: cst.For, updated: cst.For):
        if not self.traced:
            return updated
        for rule in self.hooks["rewrite_loop"]:
            statements = rule.rewrite_loop(original, updated, self.ctx)
            if statements is not None:
                self.statement_rewrites += 1
                return cst.FlattenSentinel(statements)
        return updated

    def _rewrite_conditional(self, original: cst.If | cst.IfExp, updated: cst.If | cst.IfExp):
        if not self.traced:
            return updated
        for rule in self.hooks["rewrite_conditional"]:
            replacement = rule.rewrite_conditional(original, updated, self.ctx)
            if replacement is not None:
                self.statement_rewrites += 1
                return cst.FlattenSentinel(replacement) if isinstance(replacement, list) else replacement
        return updated

    def leave_If(self, original: cst.If, updated: cst.If):
        return self._rewrite_conditional(original, updated)

    def leave_IfExp(self, original: cst.IfExp, updated: cst.IfExp):
        return self._rewrite_conditional(original, updated)

    def leave_Assign(self, original: cst.Assign, updated: cst.Assign) -> cst.BaseSmallStatement:
        return self._rewrite_statement(original, updated)

    def leave_AugAssign(self, original: cst.AugAssign, updated: cst.AugAssign) -> cst.BaseSmallStatement:
        return self._rewrite_statement(original, updated)

    def leave_Expr(self, original: cst.Expr, updated: cst.Expr) -> cst.BaseSmallStatement:
        return self._rewrite_statement(original, updated)

    def leave_Return(self, original: cst.Return, updated: cst.Return) -> cst.BaseSmallStatement:
        return self._rewrite_statement(original, updated)

    def leave_Subscript(self, original: cst.Subscript, updated: cst.Subscript) -> cst.BaseExpression:
        if not self.traced:
            return updated
        tracing = self.ctx.tracing
        # (the function's jit plan, which finds the constant reads, may not be computed before this asks for it)
        if tracing is not None and original in tracing.mask_counts and runs_on_jax_arrays(self.ctx.function, self.ctx):
            return self._mask_count(updated.value.value, updated)  # `X[m].shape[0]`
        if tracing is not None and runs_on_jax_arrays(self.ctx.function, self.ctx) and original in tracing.constant_reads:
            # a NumPy array refuses a traced index (TracerArrayConversionError); a JAX one takes it
            self.statement_rewrites += 1
            return updated.with_changes(value=call(f"{self.ctx.use_jnp()}.asarray", updated.value))
        for rule in self.hooks["rewrite_subscript"]:
            replacement = rule.rewrite_subscript(original, updated, self.ctx)
            if replacement is not None:
                self.statement_rewrites += 1
                return replacement
        return updated


def _append_statement(body: cst.BaseSuite, statement: cst.BaseSmallStatement) -> cst.BaseSuite:
    if isinstance(body, cst.SimpleStatementSuite):
        return body.with_changes(body=[*body.body, statement])
    return body.with_changes(body=[*body.body, cst.SimpleStatementLine(body=[statement])])


class _Unwrap(cst.CSTTransformer):
    """``jnp.asarray(x)`` -> ``x`` for the names ``x`` the function converts first."""

    def __init__(self, names: set[str], jnp: str) -> None:
        self.names = names
        self.jnp = jnp

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        func = updated.func
        if (len(updated.args) == 1 and updated.args[0].keyword is None and not updated.args[0].star
                and isinstance(updated.args[0].value, cst.Name) and updated.args[0].value.value in self.names
                and isinstance(func, cst.Attribute) and func.attr.value == "asarray"
                and isinstance(func.value, cst.Name) and func.value.value == self.jnp):
            return updated.args[0].value.with_changes(lpar=updated.lpar, rpar=updated.rpar)
        return updated


def _prepend_statements(body: cst.BaseSuite, statements: tuple[cst.BaseSmallStatement, ...]) -> cst.BaseSuite:
    """``statements`` first in ``body``, after its docstring."""
    if isinstance(body, cst.SimpleStatementSuite):  # `def f(x): "doc"; return ...`
        first = 1 if _is_docstring(body.body[0]) else 0
        return body.with_changes(body=[*body.body[:first], *statements, *body.body[first:]])
    lines = list(body.body)
    if lines and isinstance(lines[0], cst.SimpleStatementLine) and _is_docstring(lines[0].body[0]):
        if len(lines[0].body) > 1:  # `"doc"; return ...` on one line
            return body.with_changes(body=[lines[0].with_changes(
                body=[lines[0].body[0], *statements, *lines[0].body[1:]]), *lines[1:]])
        first = 1
    else:
        first = 0
    added = [cst.SimpleStatementLine(body=[statement]) for statement in statements]
    return body.with_changes(body=[*lines[:first], *added, *lines[first:]])


def _is_docstring(statement: cst.BaseSmallStatement) -> bool:
    return isinstance(statement, cst.Expr) and isinstance(statement.value, (cst.SimpleString, cst.ConcatenatedString))


def _has_for_loop(scope: Scope | None) -> bool:
    """A ``for`` statement binds a name in this function's own scope (comprehensions have their own)."""
    return scope is not None and any(
        isinstance(binding, LoopBinding) for bindings in scope.bindings.values() for binding in bindings
    )


class ContinuationWalker(Walker):
    """The walker for sources with backslash continuations, whose newlines sit in plain whitespace.

    Counting them means looking at every whitespace node, so sources without one use ``Walker``.
    """

    def visit_SimpleWhitespace(self, node: cst.SimpleWhitespace) -> None:
        if "\\" in node.value:
            self.ctx.line += node.value.count("\n")

    def on_trivia(self, node: cst.CSTNode) -> None:
        """What visit_Newline and visit_SimpleWhitespace do in a piece of trivia, at once."""
        self.ctx.line += _newlines(node, True)


def _newlines(node: cst.CSTNode, continuations: bool) -> int:
    """The newlines in a piece of trivia: its Newline nodes, and (``continuations``) those of backslash continuations
    in its whitespace."""
    kind = type(node)
    if kind is cst.SimpleWhitespace:
        return node.value.count("\n") if continuations and "\\" in node.value else 0
    if kind is cst.Newline:
        return 1
    if kind is cst.Comment:
        return 0
    if (kind is cst.TrailingWhitespace or kind is cst.EmptyLine) and not continuations:
        return 1  # its newline (its whitespace and comment hold none)
    if kind in _PUNCTUATION:  # most trivia: a comma, a dot, a bracket with plain spaces around
        before = getattr(node, "whitespace_before", None)
        after = getattr(node, "whitespace_after", None)
        if type(before) is not cst.ParenthesizedWhitespace and type(after) is not cst.ParenthesizedWhitespace \
                and not continuations:
            return 0
    count = 0
    for child in child_nodes(node):
        count += _newlines(child, continuations)
    return count


# Trivia whose only children are its whitespace_before / whitespace_after
_PUNCTUATION = frozenset(TRIVIA) - {cst.SimpleWhitespace, cst.Newline, cst.Comment, cst.TrailingWhitespace, cst.EmptyLine,
                                    cst.ParenthesizedWhitespace}


def walker_for(ctx: FileContext, rules: Sequence[Rule]) -> Walker:
    """A walker for ``ctx``'s source; one that counts lines in continuation whitespace only if it has any."""
    continued = any(line.endswith("\\") for line in ctx.source_lines)
    return (ContinuationWalker if continued else Walker)(ctx, rules)
