"""``np2jax check ORIGINAL MIGRATED``: options, the table, the reports, the exit status."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from np2jax.files import UsageError

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


def _positive(value: str) -> float:
    try:
        number = float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {value!r}") from None
    if not number > 0:
        raise argparse.ArgumentTypeError("must be more than 0")
    return number


def _count(value: str) -> int:
    try:
        number = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {value!r}") from None
    if number < 1:
        raise argparse.ArgumentTypeError("must be 1 or more")
    return number


def add_check_arguments(parser: argparse.ArgumentParser) -> None:
    from np2jax.check.limits import DEFAULT_MEMORY_MB, DEFAULT_TIMEOUT_S

    parser.add_argument("original", metavar="ORIGINAL", help="the NumPy file or directory")
    parser.add_argument("migrated", metavar="MIGRATED", help="its migration (same relative paths)")
    parser.add_argument("--report", metavar="FILE", help="write the JSON report (version 1) to FILE")
    parser.add_argument("--junit", metavar="FILE", help="write JUnit XML, one test case per function")
    parser.add_argument("--x64", action="store_true", help="enable 64-bit JAX and compare at float64 tolerance")
    parser.add_argument("--examples", metavar="DIR", help="DIR/<relative path>.py defines EXAMPLES = {qualname: [...]}")
    parser.add_argument("--timeout", type=_positive, default=DEFAULT_TIMEOUT_S, metavar="SECONDS",
                        help=f"per function and side (default {DEFAULT_TIMEOUT_S:g})")
    parser.add_argument("--jobs", "-j", type=_count, default=None, metavar="N",
                        help="worker lanes (a lane is 2 processes; default: the cores, at most 4)")
    parser.add_argument("--memory-limit", type=_count, default=DEFAULT_MEMORY_MB, metavar="MB",
                        help=f"memory cap per worker process (default {DEFAULT_MEMORY_MB})")
    parser.add_argument("--jax-cache", metavar="DIR", default=os.environ.get("NP2JAX_JAX_CACHE_DIR"),
                        help="JAX persistent compilation cache (default $NP2JAX_JAX_CACHE_DIR)")
    parser.add_argument("--quiet", "-q", action="store_true", help="no table, only the summary line")


def run_check_command(args: argparse.Namespace) -> int:
    from np2jax.check.report import render_table, write_junit, write_report
    from np2jax.check.runner import run_check

    for option in ("report", "junit"):
        value = getattr(args, option)
        if value and os.path.isdir(value):
            raise UsageError(f"--{option} {value}: is a directory")
    report = run_check(
        Path(args.original), Path(args.migrated), x64=args.x64,
        examples=Path(args.examples) if args.examples else None, timeout=args.timeout, jobs=args.jobs,
        memory_mb=args.memory_limit, jax_cache=args.jax_cache,
    )
    failed_output = False
    for path, writer in ((args.report, write_report), (args.junit, write_junit)):
        if path:
            try:
                writer(path, report)
            except OSError as error:
                print(f"np2jax: error: cannot write {path}: {error.strerror or error}", file=sys.stderr)
                failed_output = True
    if not args.quiet:
        from rich.console import Console

        console = Console(soft_wrap=False)
        if not console.is_terminal:
            console = Console(soft_wrap=False, width=160)  # logs and pipes: room for the messages
        render_table(report, console)
    for note in report.notes:
        print(f"note: {note}", file=sys.stderr)
    print(report.summary_line(), file=sys.stderr)
    if report.failed:
        return EXIT_FAILED
    return EXIT_USAGE if failed_output else EXIT_OK
