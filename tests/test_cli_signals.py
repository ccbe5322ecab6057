"""A CI job's timeout sends SIGTERM: np2jax stops its workers, removes its temporary files and exits 143."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

SOURCE = '''
import numpy as np


def smooth(x):
    y = np.empty_like(x)
    y[0] = x[0]
    for i in range(1, 200):
        y[i] = 0.5 * y[i - 1] + 0.5 * x[i]
    return y
'''


def _started(tmp: Path, process: subprocess.Popen, limit: float = 120.0) -> bool:
    """True once check's worker folders exist (its workers are starting or running)."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline and process.poll() is None:
        if any(tmp.glob("np2jax-check-*/lane0/migrated")):
            return True
        time.sleep(0.05)
    return False


def test_sigterm_during_check_removes_its_work_folder(tmp_path):
    original = tmp_path / "filters.py"
    original.write_text(SOURCE)
    migrated = tmp_path / "out"
    subprocess.run([sys.executable, "-m", "np2jax", "migrate", str(original), "--out", str(migrated), "-q"],
                   check=True)
    private_tmp = tmp_path / "tmp"
    private_tmp.mkdir()
    environment = dict(os.environ, TMPDIR=str(private_tmp))
    process = subprocess.Popen(
        [sys.executable, "-m", "np2jax", "check", str(original), str(migrated / "filters.py"), "-q", "-j", "1"],
        env=environment, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert _started(private_tmp, process), process.communicate()
    process.send_signal(signal.SIGTERM)
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == 143, stderr
    assert "np2jax: terminated" in stderr
    assert "Traceback" not in stderr
    assert list(private_tmp.iterdir()) == []


def test_sigterm_handler_is_restored_after_main(tmp_path):
    from np2jax.cli import main

    before = signal.getsignal(signal.SIGTERM)
    (tmp_path / "a.py").write_text("import numpy as np\n\ndef f(x):\n    return np.sum(x)\n")
    assert main(["migrate", str(tmp_path / "a.py"), "--out", str(tmp_path / "out"), "-q"]) == 0
    assert signal.getsignal(signal.SIGTERM) is before


def _children(pid: int) -> list[str]:
    path = Path(f"/proc/{pid}/task/{pid}/children")
    return path.read_text().split() if path.exists() else []


def test_sigterm_during_migrate_stops_without_finishing_the_queue(tmp_path):
    """The worker pool used to finish every queued file first (55 s on 421 files) before the process exited."""
    if not Path(f"/proc/{os.getpid()}/task/{os.getpid()}/children").exists():
        import pytest

        pytest.skip("needs Linux's /proc children list to see the worker pool start")
    source_dir = tmp_path / "src"
    source_dir.mkdir()
    body = "".join(f"\ndef f{k}(x):\n    y = np.zeros_like(x)\n    y[0] = x[0] * {k}\n    return np.cumsum(y)\n"
                   for k in range(60))
    for index in range(400):
        (source_dir / f"m{index}.py").write_text("import numpy as np\n" + body)
    process = subprocess.Popen(
        [sys.executable, "-m", "np2jax", "migrate", str(source_dir), "--out", str(tmp_path / "out"), "-q",
         "-j", "2", "--no-cache"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while not _children(process.pid) and time.monotonic() < deadline and process.poll() is None:
        time.sleep(0.05)
    assert process.poll() is None, process.communicate()
    time.sleep(0.5)
    process.send_signal(signal.SIGTERM)
    stopped = time.monotonic()
    _, stderr = process.communicate(timeout=120)
    assert process.returncode == 143, stderr
    assert "np2jax: terminated" in stderr and "Traceback" not in stderr
    assert time.monotonic() - stopped < 20  # the whole queue takes far longer on two cores
    assert not list(tmp_path.rglob("*np2jax-tmp*"))
