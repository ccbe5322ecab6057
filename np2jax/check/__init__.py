"""``np2jax check``: the differential tester.

Runs every function of an original NumPy module and of its migration on the same
inputs, in worker processes, and compares the outputs. ``run_check`` is the API
(used by ``gate --reference``); ``np2jax check`` and the pytest plugin call it.
"""

from __future__ import annotations

from np2jax.check.report import CheckReport, FunctionCheck


def run_check(*args, **kwargs) -> CheckReport:
    from np2jax.check.runner import run_check as run

    return run(*args, **kwargs)


run_check.__doc__ = """run_check(original, migrated, *, x64=False, examples=None, timeout=30.0, jobs=None,
memory_mb=4096, jax_cache=None, on_result=None) -> CheckReport; see np2jax.check.runner.run_check."""

__all__ = ["CheckReport", "FunctionCheck", "run_check"]
