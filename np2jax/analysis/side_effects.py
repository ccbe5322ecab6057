"""Statements of a traced function that would run once, at trace time, instead of on every call.

``jax.jit`` runs a function's Python once per combination of static arguments:
``global``, ``try``, ``with``, ``yield``, attribute writes to parameters or module
objects, reads of module state that functions change, and returning a function
or a string all behave differently under it (NPJ302).
"""

from __future__ import annotations

import libcst as cst

from np2jax.analysis.scope import DefBinding, ValueBinding
from np2jax.analysis.tracing_tables import BUILTIN_CONSTANTS, STRING_LITERALS
from np2jax.cstutil import string_valued

# np.errstate's settings that make NumPy ignore, warn about or log floating-point errors, never raise them.
SILENT_ERRSTATE = frozenset({"ignore", "warn", "print", "log"})
ERRSTATE_KEYWORDS = frozenset({"all", "divide", "over", "under", "invalid"})


class SideEffectChecks:
    """The side-effect visitors of ``FunctionTracing`` (analysis/function_tracing.py)."""

    def visit_Arg(self, node: cst.Arg) -> None:
        if node.keyword is not None:  # `np.sum(x, axis=0)`: a keyword, no read of a module-level `axis` (hunt51 FP3)
            self.handled_names.add(node.keyword)

    def visit_Name(self, node: cst.Name) -> None:
        name = node.value
        if node in self.handled_names or name in BUILTIN_CONSTANTS:
            return
        found, _ = self.scope.lookup(name)
        if found is not self.module.module_scope:
            return
        if name in self.module.mutated_globals:
            writer = self.module.external_state.get(name)
            who = f"{writer} changes" if writer else "functions of this module change"
            self._block(node, "side-effect", f"reads module-level `{name}`, which {who}; "
                        "jax.jit would keep the value it saw when tracing", "pass it as an argument")
        elif self.module.is_mutable_object(name):
            self._block(node, "side-effect", f"reads module-level `{name}`, a mutable object; jax.jit would keep the "
                        "values it saw when tracing", "pass it (or the values it holds) as an argument")

    def visit_Global(self, node: cst.Global) -> None:
        self._block(node, "side-effect", "`global` statement: jax.jit runs the function body once, at trace time",
                    "return the new value instead of assigning a global")

    def visit_Nonlocal(self, node: cst.Nonlocal) -> None:
        self._block(node, "side-effect", "`nonlocal` statement: jax.jit runs the function body once, at trace time",
                    "return the new value instead")

    def visit_Try(self, node: cst.Try) -> None:
        self._block(node, "side-effect", "`try` statement: JAX does not raise NumPy's errors (it returns inf/nan or clamps)",
                    "check inputs before calling, or handle inf/nan with jnp.where")

    def visit_TryStar(self, node: cst.CSTNode) -> None:
        self.visit_Try(node)  # type: ignore[arg-type]

    def visit_With(self, node: cst.With) -> None:
        if all(self._silences_warnings(item.item) for item in node.items):
            return  # jax.numpy never warns nor raises on floating-point errors: the setting changes nothing
        self._block(node, "side-effect", "`with` statement: its context manager runs once, at trace time",
                    "move it out of the function")

    def _silences_warnings(self, item: cst.BaseExpression) -> bool:
        """``np.errstate(divide="ignore", invalid="warn")``: settings that only say whether NumPy warns ('raise' and
        'call' are NPJ118's business; a setting that is not a string literal may be either)."""
        if not (isinstance(item, cst.Call) and self.resolver.qualname(item.func, self.scope) == "numpy.errstate"):
            return False
        return all(arg.keyword is not None and arg.keyword.value in ERRSTATE_KEYWORDS and isinstance(arg.value, cst.SimpleString)
                   and arg.value.evaluated_value in SILENT_ERRSTATE for arg in item.args)

    def visit_Yield(self, node: cst.Yield) -> None:
        self._block(node, "side-effect", "generator function: jax.jit cannot trace `yield`", "return an array")

    def visit_Await(self, node: cst.Await) -> None:
        self._block(node, "side-effect", "`await`: jax.jit cannot trace coroutines", "call it outside")

    def visit_Return(self, node: cst.Return) -> None:
        if node.value is None:
            return
        if self.scope is self.function_scope:
            self.returns.append(node.value)
            if self._returns_non_array(node.value):
                self._block(node.value, "side-effect", "returns a function or a string: jax.jit can only return arrays",
                            "jit the returned function instead; return strings from an un-jitted wrapper")

    def _returns_non_array(self, value: cst.BaseExpression) -> bool:
        """A function or a string (or a tuple/list holding one, or an item picked from such a literal): not a JAX type."""
        if isinstance(value, cst.Lambda) or string_valued(value):  # also `",".join(names)`, `"{}".format(n)`
            return True
        if isinstance(value, cst.BinaryOperation) and isinstance(value.operator, cst.Modulo):
            return isinstance(value.left, STRING_LITERALS)
        if isinstance(value, (cst.Tuple, cst.List)):
            return any(self._returns_non_array(element.value) for element in value.elements)
        if isinstance(value, cst.Subscript):
            return isinstance(value.value, (cst.Tuple, cst.List)) and self._returns_non_array(value.value)
        if isinstance(value, cst.IfExp):
            return self._returns_non_array(value.body) or self._returns_non_array(value.orelse)
        if isinstance(value, cst.Name):
            found, bindings = self.scope.lookup(value.value)
            if found is not None and any(isinstance(b, DefBinding) and isinstance(b.node, cst.FunctionDef) for b in bindings):
                return True
            if found is not None and found.kind == "function" and any(  # `subscripts = ",".join(...)`, `s += "->"`
                    isinstance(b, ValueBinding) and string_valued(b.value) for b in bindings):
                return True
        return self._numpy_function(value, self.scope)

    def _check_store(self, target: cst.BaseExpression) -> None:
        if isinstance(target, (cst.Tuple, cst.List)):
            for element in target.elements:
                self._check_store(element.value)
            return
        if isinstance(target, cst.Attribute):
            base = target.value
            while isinstance(base, (cst.Attribute, cst.Subscript)):
                base = base.value
            if isinstance(base, cst.Name):
                found, _ = self.scope.lookup(base.value)
                if found is not None and (found.kind == "module" or base.value in self.params):
                    self._block(target, "side-effect", f"sets an attribute of `{base.value}`: jax.jit runs this once, at trace time",
                                "return the new value instead")
