from __future__ import annotations

from np2jax.rule import Example, RuleDoc
from np2jax.rules.jit import JitBlocker


class JitSideEffect(JitBlocker):
    CODE = "NPJ302"
    NAME = "trace-side-effect"
    KIND = "side-effect"
    DOC = RuleDoc(
        what="Reports migrated functions that are not jitted because tracing would change what they do: `print` and other I/O, `global`/`nonlocal`, reading module-level state that functions of the module or of another module migrated with it change (directly or through a module-level view of it, `V = A[1:]`) or a module-level container or object (a dict, list or set display of literals that no function changes, `WHITE = {\"d65\": (0.95, 1.0, 1.09)}`, is a table of constants and does not block (so is another module's, read as `consts.WHITE` or imported by name, when the project is migrated together and no other module of it changes the table; one that does blocks jit like changed state): a parameter used as its key is static, and a row of it handed to jax.numpy is wrapped in `jnp.asarray`), mutating an argument's list or dict, `try`/`with` (except `with np.errstate(...)` whose settings only say whether NumPy warns: 'ignore', 'warn', 'print', 'log'; jax.numpy never warns nor raises on floating-point errors, so it changes nothing there), generators, `iter`/`next`, a `collections.deque` (its methods would run at trace time on tracers; the NumPy call converting it, `np.array(d)`, stays NumPy: jax.numpy takes no deque), returning a function, a string or a custom object, returning what another jitted function of the module takes as a static argument (`one_hot(labels, n_classes(labels))`: a static argument must be hashable and a JAX array is not, so `n_classes` stays un-jitted and the NumPy calls computing its result stay NumPy) or tests with `is True`/`is False` (`if equal(a, b) is False:`), and calls into other modules np2jax cannot see, calls of a function with a decorator other than JAX's own (`jax.jit`, `jax.custom_jvp`, `jax.checkpoint`) or `typing.overload` (`@np.vectorize` converts tracers to NumPy arrays; what another decorator does is not known), and a parameter that holds a Python object, or whose elements do (`[v._mcpts for v in items]`): its attribute or method that neither arrays nor Python numbers, strings and containers have (`swarm.position`, `d.simplify()`) says so, and jax.jit can only trace arrays and containers of them (a parameter hinted with a NamedTuple class of the module is a pytree and does not block). Module-level arrays built at import (`A = np.zeros(...)`, `A[1, 0] = ...`, `B = A[6].copy()`) that no function writes are constants and do not block jit.",
        why='Under `jax.jit` the Python body runs once, at trace time, with abstract values: side effects happen once (on tracers), module state is frozen at its first value, and JAX never raises the errors NumPy raises. The function is still migrated and works without jit.',
        use_instead='`jax.debug.print` for printing; pass state in and return it; check inputs before the call',
        known_problems='Calls to functions of other modules of the same package block jit, even when those are traceable.',
    )
    EXAMPLES = (
        Example(
            before="""
            import numpy as np

            def scale(x, factor):
                print("scaling", factor)
                return np.multiply(x, factor)
            """,
            after="""
            import jax.numpy as jnp

            def scale(x, factor):
                print("scaling", factor)
                return jnp.multiply(x, factor)
            """,
            diagnostics=("NPJ302",),
        ),
        Example(
            title="mutating module state",
            before="""
            import numpy as np

            calls = []

            def log_norm(x):
                calls.append(1)
                return np.linalg.norm(x)
            """,
            after="""
            import jax.numpy as jnp

            calls = []

            def log_norm(x):
                calls.append(1)
                return jnp.linalg.norm(x)
            """,
            diagnostics=("NPJ302",),
        ),
        Example(
            title="a parameter that holds a Python object",
            before="""
            import numpy as np

            def mean_position(swarm):
                return np.mean(swarm.position, axis=0)
            """,
            after="""
            import jax.numpy as jnp

            def mean_position(swarm):
                return jnp.mean(swarm.position, axis=0)
            """,
            diagnostics=("NPJ302",),
        ),
    )
