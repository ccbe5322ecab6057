"""Benchmark a dry-run ``np2jax migrate`` over a large real tree, cold and warm.

Usage::

    python benchmarks/bench_migrate.py [PATH] [--mode cli|api|both] [--jobs N] [--snapshot] [--json FILE]

PATH defaults to the installed NumPy package's own source directory (about 490
files, 260k lines).  Nothing is ever written to PATH: the migration is a dry
run.  Each mode runs twice against a fresh, empty cache directory
(``NP2JAX_CACHE_DIR`` points at a temporary directory):

* cold: empty cache, every file is parsed and migrated;
* warm: the same tree again with the cache the cold run filled.

``--mode cli`` (the headline figure, since it is what users run) times the real
command ``python -m np2jax migrate PATH --quiet`` in a subprocess with stdout
sent to /dev/null, so interpreter start-up, imports and diff rendering count.
``--mode api`` times the same code path in-process: ``np2jax.files.discover``
+ ``np2jax.runner.migrate_files`` (default jobs = every core) with
``np2jax.cache.Cache``, and also checks that the warm results equal the cold
ones.  The targets printed next to the figures: at least 5,000 lines/s cold
and a warm run at least 10x faster than the cold one.

Besides wall-clock lines/s the table shows CPU seconds (user + system of every
process involved) and lines per CPU-second, which stay meaningful when other
programs share the cores.  ``--snapshot`` measures a private copy of the
np2jax package, so edits made to the tree during a run of several minutes do
not change the code under test half-way.  Exit status 1 when a run crashed
(traceback) or warm results differ from cold ones; files with status "error"
are listed but are not a benchmark failure.
"""

from __future__ import annotations

import argparse
import atexit
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path

TARGET_COLD_LINES_PER_S = 5_000
TARGET_WARM_SPEEDUP = 10.0

SNAPSHOT: str | None = None  # a private copy of the np2jax package being measured (--snapshot)

SUMMARY = re.compile(r"(\d+) file\(s\) (?:would be )?migrated, (\d+) unchanged, (\d+) failed")
ERROR_LINE = re.compile(r"^(?P<path>.+?\.py): error: (?P<message>.*)$")


@dataclass
class Run:
    mode: str
    phase: str  # cold | warm
    files: int
    lines: int
    seconds: float
    cpu_seconds: float  # user + system, this process and its waited-for children
    changed: int
    unchanged: int
    errors: int
    exit_status: int | None = None
    error_messages: dict[str, str] = field(default_factory=dict)
    tracebacks: list[str] = field(default_factory=list)

    @property
    def lines_per_s(self) -> float:
        return self.lines / self.seconds if self.seconds > 0 else float("inf")

    @property
    def lines_per_cpu_s(self) -> float:
        return self.lines / self.cpu_seconds if self.cpu_seconds > 0 else float("inf")


def cpu_now() -> float:
    """CPU seconds used so far by this process and every child (and grandchild) already waited for."""
    total = 0.0
    for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN):
        usage = resource.getrusage(who)
        total += usage.ru_utime + usage.ru_stime
    return total


def default_tree() -> str:
    import numpy

    return str(Path(numpy.__file__).parent)


def count_tree(path: str) -> tuple[int, int]:
    """(files, lines) of the tree as np2jax sees it (same discovery, same line count)."""
    from np2jax.files import discover, read_source

    files, _ = discover([path])
    lines = 0
    for file in files:
        source = read_source(file.path)
        lines += source.count(b"\n") + (1 if source and not source.endswith(b"\n") else 0)
    return len(files), lines


# --- CLI mode --------------------------------------------------------------


def run_cli(path: str, cache_dir: str, jobs: int | None, phase: str, files: int, lines: int) -> Run:
    command = [sys.executable, "-m", "np2jax", "migrate", path, "--quiet"]
    if jobs is not None:
        command += ["--jobs", str(jobs)]
    env = dict(os.environ, NP2JAX_CACHE_DIR=cache_dir)
    cwd = None
    if SNAPSHOT is not None:  # `-m` puts the working directory first on sys.path
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [SNAPSHOT, env.get("PYTHONPATH")]))
        cwd = SNAPSHOT
    cpu = cpu_now()
    start = time.perf_counter()
    process = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, cwd=cwd)
    seconds = time.perf_counter() - start
    cpu = cpu_now() - cpu
    stderr = process.stderr.decode("utf-8", "replace")
    match = SUMMARY.search(stderr)
    changed, unchanged, failed = (int(g) for g in match.groups()) if match else (0, 0, 0)
    errors = {m["path"]: m["message"] for m in map(ERROR_LINE.match, stderr.splitlines()) if m}
    tracebacks = [stderr] if "Traceback (most recent call last)" in stderr or match is None else []
    return Run("cli", phase, files, lines, seconds, cpu, changed, unchanged, failed, process.returncode, errors, tracebacks)


def cli_startup_seconds() -> float:
    """Interpreter start-up + ``import np2jax.cli``: the fixed cost of every CLI run."""
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        env = dict(os.environ)
        if SNAPSHOT is not None:
            env["PYTHONPATH"] = os.pathsep.join(filter(None, [SNAPSHOT, env.get("PYTHONPATH")]))
        subprocess.run([sys.executable, "-c", "import np2jax.cli"], check=True, env=env, cwd=SNAPSHOT)
        best = min(best, time.perf_counter() - start)
    return best


# --- API mode --------------------------------------------------------------


def run_api(path: str, cache_dir: str, jobs: int | None, phase: str, lines: int):
    os.environ["NP2JAX_CACHE_DIR"] = cache_dir
    from np2jax.cache import Cache, default_cache_dir
    from np2jax.engine import Options
    from np2jax.files import discover
    from np2jax.runner import migrate_files

    tracebacks: list[str] = []
    cpu = cpu_now()
    start = time.perf_counter()
    try:
        found, _problems = discover([path])
        results = migrate_files(found, Options(), jobs=jobs, cache=Cache(default_cache_dir()))
    except Exception:  # a crash of the runner is a bug to report, not a benchmark result
        import traceback

        tracebacks.append(traceback.format_exc())
        found, results = [], []
    seconds = time.perf_counter() - start
    cpu = cpu_now() - cpu
    statuses = Counter(r.status for r in results)
    errors = {r.path: r.error or "" for r in results if r.status == "error"}
    run = Run(
        "api", phase, len(found), lines, seconds, cpu,
        statuses["changed"], statuses["unchanged"], statuses["error"], None, errors, tracebacks,
    )
    return run, results


def same_results(cold, warm) -> list[str]:
    """Differences between the cold and the cached warm results (there should be none)."""
    problems = []
    if len(cold) != len(warm):
        return [f"cold has {len(cold)} results, warm {len(warm)}"]
    for a, b in zip(cold, warm):
        for attribute in ("path", "status", "output", "error", "diagnostics", "functions"):
            if getattr(a, attribute) != getattr(b, attribute):
                problems.append(f"{a.path}: {attribute} differs between cold and warm run")
    return problems


# --- driver ----------------------------------------------------------------


def take_snapshot() -> str:
    """Copy the np2jax package to a temporary directory and measure that copy.

    Files being edited while a run of several minutes goes on would otherwise
    make the cold and warm runs (and the CLI and API modes) measure different
    code.  Must run before anything imports np2jax.
    """
    import importlib.util

    spec = importlib.util.find_spec("np2jax")
    assert spec is not None and spec.origin is not None, "np2jax is not importable"
    package = Path(spec.origin).parent
    root = tempfile.mkdtemp(prefix="np2jax-bench-code-")
    shutil.copytree(package, Path(root) / "np2jax", ignore=shutil.ignore_patterns("__pycache__"))
    sys.path.insert(0, root)
    atexit.register(shutil.rmtree, root, ignore_errors=True)
    return root


def code_identity() -> str:
    """Which np2jax is measured: its directory, and the git commit (+ whether the tree is dirty)."""
    import np2jax

    package = Path(np2jax.__file__).resolve().parent
    repo = Path(__file__).resolve().parent.parent
    if SNAPSHOT is None and repo not in package.parents:
        return f"{package} (not this repository's working tree)"
    try:
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=repo, capture_output=True, text=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "np2jax"], cwd=repo, capture_output=True, text=True).stdout.strip()
    except OSError:
        head, dirty = "?", ""
    state = f"git {head or '?'}{', uncommitted changes in np2jax/' if dirty else ''}"
    return f"{package} (a copy of the working tree at {state})" if SNAPSHOT else f"{package} ({state})"



def bench(mode: str, path: str, jobs: int | None, files: int, lines: int) -> tuple[Run, Run, list[str]]:
    with tempfile.TemporaryDirectory(prefix="np2jax-bench-cache-") as cache_dir:
        if mode == "cli":
            cold = run_cli(path, cache_dir, jobs, "cold", files, lines)
            warm = run_cli(path, cache_dir, jobs, "warm", files, lines)
            return cold, warm, []
        saved = os.environ.get("NP2JAX_CACHE_DIR")
        try:
            cold, cold_results = run_api(path, cache_dir, jobs, "cold", lines)
            warm, warm_results = run_api(path, cache_dir, jobs, "warm", lines)
        finally:
            if saved is None:
                os.environ.pop("NP2JAX_CACHE_DIR", None)
            else:
                os.environ["NP2JAX_CACHE_DIR"] = saved
        return cold, warm, same_results(cold_results, warm_results)


def verdict(ok: bool) -> str:
    return "PASS" if ok else "FAIL"


def print_table(pairs: list[tuple[Run, Run, list[str]]], jobs_label: str, startup: float | None) -> None:
    header = (
        f"{'mode':<5} {'run':<5} {'files':>6} {'lines':>8} {'seconds':>9} {'lines/s':>10} "
        f"{'CPU s':>8} {'lines/CPU-s':>11} {'changed':>8} {'errors':>7}  target"
    )
    print()
    print(header)
    print("-" * len(header))
    for cold, warm, _ in pairs:
        speedup = cold.seconds / warm.seconds if warm.seconds > 0 else float("inf")
        for run in (cold, warm):
            if run.phase == "cold":
                ok = run.lines_per_s >= TARGET_COLD_LINES_PER_S
                target = f">= {TARGET_COLD_LINES_PER_S:,} lines/s  {verdict(ok)}"
            else:
                ok = speedup >= TARGET_WARM_SPEEDUP
                target = f">= {TARGET_WARM_SPEEDUP:g}x faster than cold: {speedup:.1f}x  {verdict(ok)}"
            print(
                f"{run.mode:<5} {run.phase:<5} {run.files:>6} {run.lines:>8,} {run.seconds:>9.2f} "
                f"{run.lines_per_s:>10,.0f} {run.cpu_seconds:>8.1f} {run.lines_per_cpu_s:>11,.0f} "
                f"{run.changed:>8} {run.errors:>7}  {target}"
            )
    print("-" * len(header))
    print(f"jobs: {jobs_label}; cores available: {len(os.sched_getaffinity(0)) if hasattr(os, 'sched_getaffinity') else os.cpu_count()}")
    print(
        "lines/s is wall clock (what users wait for; slowed down when other programs share the cores); "
        "lines/CPU-s counts CPU time of all processes, so it does not depend on contention"
    )
    try:
        load = os.getloadavg()
        print(f"load average at the end: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    except OSError:
        pass
    if startup is not None:
        print(f"cli fixed cost (python start-up + import np2jax.cli): {startup:.2f} s per run")


def print_problems(pairs: list[tuple[Run, Run, list[str]]]) -> None:
    for cold, warm, differences in pairs:
        for run in (cold, warm):
            if run.error_messages:
                print(f"\n{run.mode} {run.phase}: {len(run.error_messages)} file(s) with status 'error':")
                for path, message in sorted(run.error_messages.items()):
                    print(f"  {path}: {message}")
            if run.exit_status not in (None, 0, 3):
                print(f"\n{run.mode} {run.phase}: unexpected exit status {run.exit_status}")
            for text in run.tracebacks:
                print(f"\n{run.mode} {run.phase}: traceback / unexpected output:\n{text}")
        if differences:
            print(f"\n{cold.mode}: warm (cached) results differ from cold ones:")
            for line in differences[:20]:
                print(f"  {line}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("path", nargs="?", metavar="PATH", help="tree to migrate (default: the installed numpy package)")
    parser.add_argument("--mode", choices=("cli", "api", "both"), default="cli", help="what to time (default: cli)")
    parser.add_argument("--jobs", "-j", type=int, default=None, metavar="N", help="worker processes (default: all cores)")
    parser.add_argument("--json", metavar="FILE", help="also write the figures as JSON to FILE")
    parser.add_argument(
        "--snapshot", action="store_true",
        help="measure a private copy of the np2jax package (immune to edits made while the benchmark runs)",
    )
    args = parser.parse_args(argv)
    global SNAPSHOT
    if args.snapshot:
        SNAPSHOT = take_snapshot()

    path = args.path or default_tree()
    if not os.path.exists(path):
        parser.error(f"{path}: no such file or directory")
    files, lines = count_tree(path)
    print(f"np2jax: {code_identity()}")
    print(f"tree: {path}\n{files} files, {lines:,} lines; dry run (nothing is written)", flush=True)
    modes = ["cli", "api"] if args.mode == "both" else [args.mode]
    startup = cli_startup_seconds() if "cli" in modes else None

    pairs = []
    for mode in modes:
        print(f"running {mode}: cold then warm ...", flush=True)
        pairs.append(bench(mode, path, args.jobs, files, lines))
    print_table(pairs, "all cores (default)" if args.jobs is None else str(args.jobs), startup)
    print_problems(pairs)

    if args.json:
        payload = [
            {**asdict(run), "lines_per_s": run.lines_per_s, "speedup": cold.seconds / warm.seconds}
            for cold, warm, _ in pairs
            for run in (cold, warm)
        ]
        Path(args.json).write_text(json.dumps(payload, indent=2))
    bad = any(cold.tracebacks or warm.tracebacks or differences for cold, warm, differences in pairs)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
