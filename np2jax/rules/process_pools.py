"""NPJ124: worker processes forked after JAX has started can deadlock; functions they are handed are not jitted."""

from __future__ import annotations

import libcst as cst

from np2jax.context import FileContext
from np2jax.diagnostics import Severity
from np2jax.rule import Example, Rule, RuleDoc

# What forks worker processes (the default start method on Linux before Python 3.14), by qualified name.
FORKING = frozenset({
    "multiprocessing.Pool", "multiprocessing.pool.Pool", "multiprocessing.Process",
    "multiprocessing.process.BaseProcess", "concurrent.futures.ProcessPoolExecutor",
    "concurrent.futures.process.ProcessPoolExecutor",
})


class ProcessPools(Rule):
    CODE = "NPJ124"
    NAME = "process-pools"
    MESSAGE = (
        "`{name}` forks worker processes: once JAX has run in this process (the migrated code), a forked worker can "
        "deadlock, since JAX is multithreaded"
    )
    SEVERITY = Severity.WARNING
    DOC = RuleDoc(
        what=(
            "Reports `multiprocessing.Pool(...)`, `multiprocessing.Process(...)` and "
            "`concurrent.futures.ProcessPoolExecutor(...)` created in a function without a `spawn` or `forkserver` "
            "context (`mp_context=`, `get_context(\"spawn\").Pool`). A module function handed to a pool or a process "
            "(`pool.map(trial, xs)`, `executor.submit(trial, x)`, `Process(target=trial)`) in a module that imports "
            "`multiprocessing` or `concurrent.futures` is not jitted (NPJ302)."
        ),
        why=(
            "Linux starts worker processes with `fork` (before Python 3.14): the child copies the parent's memory but "
            "not its threads, and JAX's runtime threads may hold locks the child then waits on for ever (PyEMD's EEMD "
            "hung this way once the parent had run migrated code; JAX itself warns that `os.fork()` is incompatible "
            "with multithreaded code). A pool sends the function to its workers by pickling it by name, and under "
            "that name the module then holds the `jax.jit` wrapper, not the function: PicklingError."
        ),
        use_instead=(
            "`multiprocessing.get_context(\"spawn\").Pool(...)` or `ProcessPoolExecutor(mp_context="
            "multiprocessing.get_context(\"spawn\"))`; jit the worker's body in a helper it calls"
        ),
    )
    EXAMPLES = (
        Example(
            before="""
            import multiprocessing
            import numpy as np

            def trial(seed):
                x = np.ones(50) * seed
                return np.sum(x ** 2)

            def run(seeds):
                with multiprocessing.Pool(2) as pool:
                    return pool.map(trial, seeds)
            """,
            after="""
            import multiprocessing
            import jax.numpy as jnp

            def trial(seed):
                x = jnp.ones(50) * seed
                return jnp.sum(x ** 2)

            def run(seeds):
                with multiprocessing.Pool(2) as pool:
                    return pool.map(trial, seeds)
            """,
            diagnostics=("NPJ124",),
        ),
    )

    def on_call(self, node: cst.Call, ctx: FileContext) -> None:
        qualname = ctx.qualname(node.func)
        if qualname not in FORKING:
            return
        if any(arg.keyword is not None and arg.keyword.value in ("mp_context", "context") for arg in node.args):
            return
        self.report(ctx, node, self.MESSAGE.format(name=qualname))

