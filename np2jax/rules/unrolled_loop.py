from __future__ import annotations

from np2jax.rule import Example, RuleDoc
from np2jax.rules.jit import JitBlocker


class UnrolledLoop(JitBlocker):
    CODE = "NPJ303"
    NAME = "unrolled-loop"
    KIND = "loop"
    DOC = RuleDoc(
        what='Reports migrated functions that are not jitted because they contain a Python `for` loop over an array or a `range` longer than the unroll threshold (8 steps; or unknown until run time) that cannot become `jax.lax.fori_loop` or `jax.lax.scan` (NPJ305 and NPJ307 say when they can), or a `while` loop; or a comprehension over a `range` as long as an array (`[np.sum(x[:i + 1]) for i in range(len(x))]`, `range(x.shape[0])`), which jax.jit would unroll one copy per element (17 s to compile 400 samples).',
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
                for value in x:
                    if peaks:
                        peaks.append(np.maximum(peaks[-1], value))
                    else:
                        peaks.append(value)
                return np.stack(peaks)
            """,
            after="""
            import numpy as np
            import jax.numpy as jnp

            def running_peak(x: np.ndarray):
                peaks = []
                for value in x:
                    if peaks:
                        peaks.append(jnp.maximum(peaks[-1], value))
                    else:
                        peaks.append(value)
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
