"""Shared fixtures: run the real command line in a subprocess, never touching ~/.cache."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

# A small realistic module and what `np2jax migrate` makes of it.
SIMPLE = "import numpy as np\n\ndef f(x):\n    return np.sum(x ** 2)\n"
SIMPLE_MIGRATED = "import jax\nimport jax.numpy as jnp\n\n@jax.jit\ndef f(x):\n    return jnp.sum(x ** 2)\n"

CLI_TIMEOUT_S = 120  # a hang (a FIFO read, a deadlocked pool) fails the test instead of blocking it


@pytest.fixture(autouse=True, scope="session")
def _private_cache_dir(tmp_path_factory):
    """Every test, and every CLI it starts, uses a throw-away result cache."""
    previous = os.environ.get("NP2JAX_CACHE_DIR")
    os.environ["NP2JAX_CACHE_DIR"] = str(tmp_path_factory.mktemp("np2jax-cache"))
    yield
    if previous is None:
        os.environ.pop("NP2JAX_CACHE_DIR", None)
    else:
        os.environ["NP2JAX_CACHE_DIR"] = previous


class CliRun:
    """A finished `python -m np2jax ...`: exit status, stdout and stderr as text."""

    def __init__(self, completed: subprocess.CompletedProcess) -> None:
        self.returncode = completed.returncode
        self.stdout_bytes: bytes = completed.stdout
        self.stderr_bytes: bytes = completed.stderr
        self.stdout = completed.stdout.decode("utf-8", "surrogateescape")
        self.stderr = completed.stderr.decode("utf-8", "surrogateescape")

    @property
    def stderr_lines(self) -> list[str]:
        return self.stderr.splitlines()

    def error_lines(self, display: str) -> list[str]:
        """The `PATH: error: reason` lines naming ``display``."""
        return [line for line in self.stderr.split("\n") if line.startswith(f"{display}: error: ")]

    def __repr__(self) -> str:
        return f"<CliRun exit={self.returncode}\n--- stdout\n{self.stdout[-3000:]}\n--- stderr\n{self.stderr[-3000:]}>"


@pytest.fixture
def cache_dir(tmp_path_factory) -> Path:
    """A per-test cache directory, outside ``tmp_path`` so that it never shows in a tree listing."""
    return tmp_path_factory.mktemp("cache")


@pytest.fixture
def run_cli(cache_dir):
    """``run_cli(*args, cwd=..., env={...})`` runs the real CLI and returns a ``CliRun``.

    The cache is a per-test directory unless ``env`` sets NP2JAX_CACHE_DIR. Any run whose
    stderr holds a Python traceback fails the test: the contract allows none.
    """

    def run(*args: str, cwd: Path | str | None = None, env: dict[str, str] | None = None,
            umask: int | None = None, allow_traceback: bool = False) -> CliRun:
        environment = dict(os.environ)
        environment.pop("NO_COLOR", None)
        environment["NP2JAX_CACHE_DIR"] = str(cache_dir)
        environment.update(env or {})
        completed = subprocess.run(
            [sys.executable, "-m", "np2jax", *map(str, args)],
            cwd=cwd,
            env=environment,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=CLI_TIMEOUT_S,
            preexec_fn=None if umask is None else (lambda: os.umask(umask)),
        )
        result = CliRun(completed)
        if not allow_traceback:
            assert "Traceback" not in result.stderr, result
        return result

    return run


def write(path: Path, data: str | bytes, mode: int | None = None) -> Path:
    """Create ``path`` (and its folders) with exactly these bytes."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data.encode() if isinstance(data, str) else data)
    if mode is not None:
        path.chmod(mode)
    return path
