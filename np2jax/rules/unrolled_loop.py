from __future__ import annotations

from np2jax.rule import Example, RuleDoc
from np2jax.rules.jit import JitBlocker


class UnrolledLoop(JitBlocker):
    CODE = "NPJ303"
    NAME = "unrolled-loop"
    KIND = "loop"
    DOC = RuleDoc(
        what='Reports migrated functions that are not jitted because they contain a Python `for` loop over an array or a `range` longer than the unroll threshold (8 steps; or unknown until run time) that cannot become `jax.lax.fori_loop` (NPJ305 says when it can), or a `while` loop.',
        why='`jax.jit` unrolls Python loops: a 1000-step loop compiles for tens of seconds, where `jax.lax.fori_loop` compiles in milliseconds and runs faster. Loops over short literal ranges and over Python containers (a list of layers) stay as they are.',
        use_instead='`jax.lax.fori_loop(lower, upper, body, carry)`, `jax.lax.scan` to collect per-step outputs, `jax.lax.while_loop` for convergence loops',
        known_problems='The function is left un-jitted (it still works, eagerly).',
    )
    EXAMPLES = (
        Example(
            before="""
            import numpy as np

            def running_peak(x: np.ndarray):
                peaks = []
                best = x[0]
                for value in x:
                    best = np.maximum(best, value)
                    peaks.append(best)
                return np.stack(peaks)
            """,
            after="""
            import numpy as np
            import jax.numpy as jnp

            def running_peak(x: np.ndarray):
                peaks = []
                best = x[0]
                for value in x:
                    best = jnp.maximum(best, value)
                    peaks.append(best)
                return jnp.stack(peaks)
            """,
            diagnostics=("NPJ303",),
        ),
        Example(
            title="a while loop on a static value",
            before="""
            import numpy as np

            def repeated_sqrt(x, n):
                while n > 1:
                    x = np.sqrt(x)
                    n = n // 2
                return x
            """,
            after="""
            import jax.numpy as jnp

            def repeated_sqrt(x, n):
                while n > 1:
                    x = jnp.sqrt(x)
                    n = n // 2
                return x
            """,
            diagnostics=("NPJ303",),
        ),
    )
