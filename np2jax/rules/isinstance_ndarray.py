from __future__ import annotations

import libcst as cst

from np2jax.context import FileContext
from np2jax.diagnostics import Severity
from np2jax.rule import Example, Rule, RuleDoc


class IsinstanceNdarray(Rule):
    CODE = "NPJ106"
    NAME = "isinstance-ndarray"
    MESSAGE = "a jax.Array is not a `np.ndarray`: this check becomes False after migration"
    SEVERITY = Severity.WARNING
    DOC = RuleDoc(
        what="Reports `isinstance(x, np.ndarray)` inside functions.",
        why="Migrated functions receive and build `jax.Array` values, so branches on `np.ndarray` silently take the other path.",
        use_instead="isinstance(x, (np.ndarray, jax.Array))",
    )
    EXAMPLES = (
        Example(
            before="""
            import numpy as np

            def as_vector(x):
                if isinstance(x, np.ndarray):
                    return x.ravel()
                return np.asarray([x])
            """,
            after="""
            import numpy as np
            import jax.numpy as jnp

            def as_vector(x):
                if isinstance(x, np.ndarray):
                    return x.ravel()
                return jnp.asarray([x])
            """,
            diagnostics=("NPJ106",),
        ),
    )

    def on_call(self, node: cst.Call, ctx: FileContext) -> None:
        if ctx.qualname(node.func) != "builtins.isinstance" or len(node.args) != 2:
            return
        classes = node.args[1].value
        elements = [e.value for e in classes.elements] if isinstance(classes, cst.Tuple) else [classes]
        names = {ctx.qualname(element) for element in elements}
        if "numpy.ndarray" in names and not any(name and name.startswith("jax") for name in names):
            self.report(ctx, node)
