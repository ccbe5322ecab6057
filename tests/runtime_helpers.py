"""Shared by the runtime tests: migrate a module, run both versions, compare a function's results."""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from np2jax.engine import Options, migrate_source


def migrate_and_exec(source: str, filename: str = "m.py"):
    """The migration result (jit on) and the namespaces of the original and the migrated module."""
    result = migrate_source(source.encode(), filename, Options(jit=True))
    original, new = {}, {}
    exec(compile(source, "original.py", "exec"), original)
    exec(compile(result.output, "migrated.py", "exec"), new)
    return result, original, new


def function_record(result, name: str):
    return next(r for r in result.functions if r.qualname == name)


def assert_matches_numpy(original: dict, new: dict, name: str, args: tuple, rtol: float = 1e-6) -> None:
    """``name`` on NumPy copies of ``args`` and, migrated, on JAX arrays: the same values, output by output."""
    expected = original[name](*[a.copy() if isinstance(a, np.ndarray) else a for a in args])
    got = new[name](*[jnp.asarray(a) if isinstance(a, np.ndarray) else a for a in args])
    expected = expected if isinstance(expected, tuple) else (expected,)
    got = got if isinstance(got, tuple) else (got,)
    assert len(got) == len(expected)
    for want, have in zip(expected, got):
        np.testing.assert_allclose(np.asarray(have), np.asarray(want), rtol=rtol)
