"""The checker's side of a worker process: start, ask with a deadline, kill, restart.

A worker that crashes, hangs, exits or runs out of memory fails only the request
in flight; the next request starts a fresh one.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path

from np2jax.check.protocol import WorkerGone, WorkerTimeout, read_frame, write_frame

STARTUP_S = 120.0  # importing JAX on a loaded machine can take a while
GRACE_S = 3.0  # beyond the worker's own alarm, for code that ignores signals


class WorkerFailure(Exception):
    """The request got no answer: the reason, in one line."""


class Worker:
    def __init__(self, side: str, workdir: Path, *, x64: bool, memory_mb: int, jax_cache: str | None) -> None:
        self.side, self.workdir = side, workdir
        self.x64, self.memory_mb, self.jax_cache = x64, memory_mb, jax_cache
        self.process: subprocess.Popen | None = None
        self.ready: dict | None = None
        self.stderr_path = workdir / f"{side}.stderr"
        self.restarts = 0
        self._deadline, self._timeout = 0.0, 0.0

    def start(self) -> None:
        """Start the process now (it imports NumPy/JAX while the caller does other work)."""
        if self.process is not None and self.process.poll() is None:
            return
        self.workdir.mkdir(parents=True, exist_ok=True)
        command = [sys.executable, "-m", "np2jax.check.worker", "--side", self.side, "--memory-mb", str(self.memory_mb)]
        if self.x64:
            command.append("--x64")
        if self.jax_cache:
            command += ["--jax-cache", self.jax_cache]
        environment = dict(os.environ, PYTHONDONTWRITEBYTECODE="1", PYTHONUNBUFFERED="1")
        # Several workers share one GPU: JAX's default of taking 75% of its memory up front leaves the others too
        # little for XLA's autotuning ("All configs failed during profiling"). A user's own setting wins.
        environment.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")
        environment["PYTHONPATH"] = os.pathsep.join(filter(None, [_package_root(), os.getcwd(), os.environ.get("PYTHONPATH")]))
        with open(self.stderr_path, "wb") as stderr:
            self.process = subprocess.Popen(
                command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr,
                cwd=self.workdir, env=environment, start_new_session=True,
            )
        self.ready = None

    def request(self, message: dict, timeout: float) -> dict:
        """Send ``message`` and wait for the reply; WorkerFailure if none comes (the worker is then gone)."""
        self.submit(message, timeout)
        return self.collect()

    def submit(self, message: dict, timeout: float) -> None:
        """Send ``message``; :meth:`collect` waits up to ``timeout`` (+ grace) from now for the reply."""
        self.start()
        assert self.process is not None
        with self._failures(timeout):
            if self.ready is None:
                self.ready = read_frame(self.process.stdout.fileno(), time.monotonic() + STARTUP_S)
                if not self.ready.get("ready"):
                    raise WorkerFailure(self.ready.get("message", "the worker could not start"))
            write_frame(self.process.stdin.fileno(), message)
        self._deadline, self._timeout = time.monotonic() + timeout + GRACE_S, timeout

    def collect(self) -> dict:
        assert self.process is not None
        with self._failures(self._timeout):
            return read_frame(self.process.stdout.fileno(), self._deadline)

    @contextmanager
    def _failures(self, timeout: float):
        try:
            yield
        except WorkerTimeout:
            self.stop()
            raise WorkerFailure(f"timed out after {timeout:g} s (worker killed)") from None
        except (WorkerGone, OSError):
            reason = self._death_reason()
            self.stop()
            raise WorkerFailure(reason) from None

    @property
    def device(self) -> str | None:
        return (self.ready or {}).get("device")

    def _death_reason(self) -> str:
        assert self.process is not None
        try:
            code = self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            return "the worker stopped answering"
        tail = _last_line(self.stderr_path)
        if code < 0:
            try:
                name = signal.Signals(-code).name
            except ValueError:
                name = f"signal {-code}"
            what = f"crashed ({name})"
        else:
            what = f"exited with status {code} (os._exit or a fatal error)"
        return what + (f": {tail}" if tail else "")

    def stop(self) -> None:
        if self.process is None:
            return
        if self.process.poll() is None:
            try:
                os.killpg(self.process.pid, signal.SIGKILL)  # its own session: children go too
            except (ProcessLookupError, PermissionError):
                self.process.kill()
        self.process.wait()
        for stream in (self.process.stdin, self.process.stdout):
            try:
                stream.close()
            except OSError:
                pass
        self.process = None
        self.ready = None
        self.restarts += 1


def _package_root() -> str:
    return str(Path(__file__).resolve().parent.parent.parent)


def _last_line(path: Path) -> str:
    try:
        data = path.read_bytes()[-4000:]
    except OSError:
        return ""
    lines = [line.strip() for line in data.decode("utf-8", "replace").splitlines() if line.strip()]
    for line in reversed(lines):
        if line.startswith(("Fatal Python error", "MemoryError", "terminate called", "Aborted")):
            return line[:200]
    return lines[-1][:200] if lines else ""
