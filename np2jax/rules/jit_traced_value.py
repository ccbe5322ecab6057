from __future__ import annotations

from np2jax.rule import Example, RuleDoc
from np2jax.rules.jit import JitBlocker


class JitTracedValue(JitBlocker):
    CODE = "NPJ301"
    NAME = "traced-control-flow"
    KIND = "traced-value"
    DOC = RuleDoc(
        what='Reports migrated functions that are not jitted because Python needs the value of a traced array: an `if`/`while` test, `and`/`or`/`not`, `assert`, `int()`/`float()`/`bool()`/`.item()`/`.tolist()`, a slice bound, a shape, `axis` or `range()` bound, or an index into a Python list computed from array data (or from an argument that is also used as an array).',
        why='`jax.jit` traces with abstract values: asking Python for a concrete value raises a ConcretizationTypeError. The function is still migrated and works without jit, exactly as before.',
        use_instead='`jnp.where(cond, a, b)` for values, `jax.lax.cond` / `jax.lax.while_loop` for control flow, `jax.lax.dynamic_slice` for slices at traced offsets',
        known_problems='The analysis is per module: a callee imported from another module is not looked into (see NPJ302).',
    )
    EXAMPLES = (
        Example(
            before="""
            import numpy as np

            def relu_sum(x):
                total = np.sum(x)
                if total > 0:
                    return total
                return 0.0
            """,
            after="""
            import jax.numpy as jnp

            def relu_sum(x):
                total = jnp.sum(x)
                if total > 0:
                    return total
                return 0.0
            """,
            diagnostics=("NPJ301",),
        ),
        Example(
            title="int() of an array result, and a slice bound",
            before="""
            import numpy as np

            def head(x, k):
                n = int(np.argmax(x))
                return x[:n] * k
            """,
            after="""
            import jax.numpy as jnp

            def head(x, k):
                n = int(jnp.argmax(x))
                return x[:n] * k
            """,
            diagnostics=("NPJ301", "NPJ301",),
        ),
    )
