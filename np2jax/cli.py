"""Command line: parse options, call the engine, render results, pick the exit status.

Exit statuses (``shared/CLI_CONTRACT.md``): 0 success, 1 ``--check`` found
pending changes, 2 bad usage, 3 some files could not be processed; 130 after
Ctrl-C and 143 after SIGTERM (a CI job's timeout), each once temporary files are
removed and check's workers are stopped.
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import sys
import threading
from collections import Counter
from pathlib import Path

from np2jax import __version__
from np2jax.cache import Cache, default_cache_dir
from np2jax.check.command import add_check_arguments, run_check_command
from np2jax.codes import BY_CODE, RULES, rule_for
from np2jax.config import ConfigError, load_config
from np2jax.configured import add_migration_arguments
from np2jax.docs import render_rule
from np2jax.engine import FileResult
from np2jax.gate import run_gate
from np2jax.files import SourceFile, UsageError, copy_atomic, data_files, discover, is_read_only, write_atomic
from np2jax.report import migrate_report, write_json
from np2jax.runner import migrate_files
from np2jax.ui.diff import colorize, file_diffs
from np2jax.ui.progress import progress_callback
from np2jax.ui.review import run_review

EXIT_OK, EXIT_PENDING, EXIT_USAGE, EXIT_FAILED = 0, 1, 2, 3


class Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one line, exit 2, no traceback
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\n")


def _codes(value: str) -> frozenset[str]:
    codes = frozenset(code.strip().upper() for code in value.split(",") if code.strip())
    unknown = sorted(code for code in codes if code not in BY_CODE)
    if unknown:
        raise argparse.ArgumentTypeError(f"unknown rule code(s): {', '.join(unknown)}")
    return codes


def build_parser() -> Parser:
    parser = Parser(prog="np2jax", description="Migrate NumPy code to JAX, and prove it equivalent.")
    parser.add_argument("--version", action="version", version=f"np2jax {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=Parser)

    migrate = commands.add_parser("migrate", help="rewrite NumPy code to jax.numpy (dry run by default)")
    migrate.add_argument("paths", nargs="+", metavar="PATH", help=".py files, notebooks (.ipynb) or directories")
    mode = migrate.add_mutually_exclusive_group()
    mode.add_argument("--write", action="store_true", help="rewrite files in place (atomically)")
    mode.add_argument("--out", metavar="DIR", help="write the migrated tree (and a copy of its other files) under DIR")
    mode.add_argument("--check", action="store_true", help="exit 1 if any file would change; write nothing")
    migrate.add_argument("--report", metavar="FILE", help="write the JSON report (version 1) to FILE")
    migrate.add_argument("--jit", action=argparse.BooleanOptionalAction, default=None, help="add jax.jit decorators (default: on)")
    migrate.add_argument("--unsafe-fixes", action=argparse.BooleanOptionalAction, default=None,
                         help="also apply fixes that may change behaviour (default: off)")
    migrate.add_argument("--select", type=_codes, default=None, metavar="CODES", help="only these rules")
    migrate.add_argument("--ignore", type=_codes, default=None, metavar="CODES", help="skip these rules")
    source = migrate.add_mutually_exclusive_group()
    source.add_argument("--config", metavar="FILE", help="read [tool.np2jax] from FILE instead of searching for pyproject.toml")
    source.add_argument("--isolated", "--no-config", action="store_true", help="ignore every configuration file")
    migrate.add_argument("--jobs", "-j", type=int, default=None, metavar="N", help="worker processes (default: cores)")
    migrate.add_argument("--no-cache", action="store_true", help="do not read or write the result cache")
    migrate.add_argument("--color", choices=("auto", "always", "never"), default="auto")
    migrate.add_argument("--quiet", "-q", action="store_true", help="no diagnostics on stderr, only the summary")

    explain = commands.add_parser("explain", help="print the documentation of a rule")
    explain.add_argument("code", metavar="NPJxxx")

    commands.add_parser("rules", help="list every rule")

    check = commands.add_parser("check", help="run original and migrated functions on the same inputs and compare")
    add_check_arguments(check)
    review = commands.add_parser("review", help="review the migration hunk by hunk in a terminal and apply what you accept")
    review.add_argument("paths", nargs="+", metavar="PATH", help=".py files or directories")
    add_migration_arguments(review, _codes)
    review.add_argument("--color", choices=("auto", "always", "never"), default="auto")
    review.add_argument("--verify", action="store_true", help="show the np2jax check verdict of the functions each hunk touches")

    gate = commands.add_parser("gate", help="CI: fail when NumPy usage or diagnostics grow beyond a baseline")
    gate.add_argument("paths", nargs="+", metavar="PATH", help=".py files, notebooks (.ipynb) or directories")
    gate.add_argument("--baseline", metavar="FILE", help="fail only on findings that FILE does not record")
    gate.add_argument("--update-baseline", action="store_true", help="write the current findings to --baseline FILE")
    gate.add_argument("--reference", metavar="DIR|GIT_REF", help="also check every changed function against this version of the tree")
    gate.add_argument("--format", choices=("text", "json", "junit", "sarif", "github"), default="text")
    gate.add_argument("--output", metavar="FILE", help="write the formatted output to FILE instead of stdout")
    add_migration_arguments(gate, _codes)
    return parser


def _tolerant_streams() -> None:
    """Characters the terminal's encoding lacks (a latin-1 file's é on an ASCII stdout) are
    escaped instead of ending the run with UnicodeEncodeError."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None and getattr(stream, "errors", None) == "strict":
            try:
                reconfigure(errors="backslashreplace")
            except (ValueError, OSError):
                pass


class Terminated(BaseException):
    """SIGTERM, raised where the program is so that `finally` blocks and context managers clean up."""


def _terminate(signum, frame) -> None:
    raise Terminated


def main(argv: list[str] | None = None) -> int:
    _tolerant_streams()
    args = build_parser().parse_args(argv)
    in_main_thread = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGTERM, _terminate) if in_main_thread else None
    try:
        return _dispatch(args)
    except UsageError as error:
        print(f"np2jax: error: {error}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("np2jax: interrupted", file=sys.stderr)
        return 130
    except Terminated:
        print("np2jax: terminated", file=sys.stderr)
        return 143
    finally:
        if in_main_thread:
            signal.signal(signal.SIGTERM, previous)


def _dispatch(args: argparse.Namespace) -> int:
    if args.command == "migrate":
        return run_migrate(args)
    if args.command == "review":
        return run_review(args)
    if args.command == "check":
        return run_check_command(args)
    if args.command == "gate":
        return run_gate(args)
    if args.command == "explain":
        return run_explain(args.code)
    if args.command == "rules":
        for rule in RULES:
            print(f"{rule.CODE}  {rule.SEVERITY.value:<7}  {rule.FIX_SAFETY.value:<6}  {rule.NAME}")
        return EXIT_OK
    return EXIT_USAGE


def run_explain(code: str) -> int:
    rule = rule_for(code)
    if rule is None:
        print(f"np2jax: error: unknown rule code {code!r}; `np2jax rules` lists them", file=sys.stderr)
        return EXIT_USAGE
    print(render_rule(rule), end="")
    return EXIT_OK


def run_migrate(args: argparse.Namespace) -> int:
    if args.jobs is not None and args.jobs < 0:
        raise UsageError("--jobs must be 0 (in-process) or more")
    out_dir = Path(args.out) if args.out else None
    if out_dir is not None and out_dir.exists() and not out_dir.is_dir():
        raise UsageError(f"--out {args.out}: exists and is not a directory")
    if args.report and os.path.isdir(args.report):
        raise UsageError(f"--report {args.report}: is a directory")
    try:
        config = load_config(args.paths, config_file=args.config, isolated=args.isolated)
    except ConfigError as error:
        for problem in error.problems:
            print(f"np2jax: error: {problem}", file=sys.stderr)
        return EXIT_USAGE
    found, walk_problems = discover(args.paths, exclude=[out_dir] if out_dir else [])
    files = [file for file in found if config.is_selected(file.path)]
    passed_over = [file for file in found if not config.is_selected(file.path)]
    data: list[SourceFile] = []
    data_problems: list[tuple[str, str]] = []
    if out_dir is not None:
        data, data_problems = data_files(args.paths, exclude=[out_dir])
        _check_out_targets(found + data, out_dir)
    base = config.base_options(jit=args.jit, select=args.select, ignore=args.ignore, unsafe_fixes=args.unsafe_fixes)
    cache = Cache(None if args.no_cache else default_cache_dir())
    notes: list[str] = []
    with progress_callback(len(files)) as on_result:
        results = migrate_files(
            files, lambda file: config.options_for(file.path, base), jobs=args.jobs, cache=cache,
            on_result=on_result, on_note=notes.append,
        )

    write_errors: dict[str, str] = {}
    copy_errors: list[tuple[str, str]] = []
    if args.write:
        write_errors = _write_in_place(files, results)
    elif out_dir is not None:
        # Files the configuration excludes are copied as they are, so the tree stays importable.
        untouched = [FileResult(file.display, "unchanged") for file in passed_over]
        write_errors = _write_out_tree(files + passed_over, results + untouched, out_dir)
        copy_errors = _copy_data_files(data, data_problems, out_dir)
    elif not args.check:
        _print_diffs(results, args.color)
    for result in results:
        if result.path in write_errors:
            result.status, result.error = "error", write_errors[result.path]

    report_failed = False
    if args.report:
        try:
            write_json(args.report, migrate_report(results))
        except OSError as error:
            print(f"np2jax: error: cannot write the report {args.report}: {error.strerror or error}", file=sys.stderr)
            report_failed = True
    _print_diagnostics(results, args.quiet)
    if not args.quiet:
        for note in notes:
            print(note, file=sys.stderr)
    for file in passed_over:
        if file.display in args.paths:  # named explicitly: say why nothing happened
            print(f"{file.display}: excluded by {config.name}; not migrated (--isolated migrates it)", file=sys.stderr)
    for path, reason in walk_problems + copy_errors:
        print(f"{path}: error: {reason}", file=sys.stderr)
    changed = [r for r in results if r.status == "changed"]
    if args.check:
        for result in changed:
            print(f"would migrate {result.path}", file=sys.stderr)
    _print_summary(results, args)
    if walk_problems or copy_errors or report_failed or any(r.status == "error" for r in results):
        return EXIT_FAILED
    if args.check and changed:
        return EXIT_PENDING
    return EXIT_OK


def _check_out_targets(files: list[SourceFile], out_dir: Path) -> None:
    """--out must neither overwrite an input nor write two inputs to the same place."""
    targets: dict[str, SourceFile] = {}
    for file in files:
        target = out_dir / file.relative
        real_target = os.path.realpath(target)
        if real_target == os.path.realpath(file.path):
            raise UsageError(f"--out {out_dir}: would overwrite the input {file.display}; use --write to migrate in place")
        other = targets.setdefault(real_target, file)
        if other is not file:
            raise UsageError(f"--out {out_dir}: {other.display} and {file.display} would both be written to {target}")


def _write_in_place(files: list[SourceFile], results: list[FileResult]) -> dict[str, str]:
    errors = {}
    written: set[str] = set()  # a file reached twice (through a symlink) is written once
    for file, result in zip(files, results):
        if result.status != "changed":
            continue
        real = os.path.realpath(file.path)
        if real in written:
            continue
        if is_read_only(file.path):
            errors[result.path] = "file is read-only; not written"
            continue
        try:
            write_atomic(file.path, result.output)
        except OSError as error:
            errors[result.path] = f"cannot write: {error.strerror or error}"
        else:
            written.add(real)
    return errors


def _write_out_tree(files: list[SourceFile], results: list[FileResult], out_dir: Path) -> dict[str, str]:
    errors = {}
    for file, result in zip(files, results):
        target = out_dir / file.relative
        try:
            if result.status == "changed":
                write_atomic(target, result.output, mode_from=file.path)
            else:
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(file.path, target)
                shutil.copymode(file.path, target)
        except OSError as error:
            errors[result.path] = f"cannot write {target}: {error.strerror or error}"
    return errors


def _copy_data_files(found: list[SourceFile], problems: list[tuple[str, str]], out_dir: Path) -> list[tuple[str, str]]:
    """Copy the non-source files of the trees to ``out_dir`` (package data, test data ...).

    A file already there with the same size and modification time is left alone, so a second
    run over a large data directory costs one ``stat`` per file. Returns (path, reason) for
    each file that could not be copied.
    """
    for path, reason in problems:  # a FIFO or socket in the tree: nothing a package could load
        print(f"{path}: note: {reason}; not copied to --out", file=sys.stderr)
    errors = []
    for file in found:
        target = out_dir / file.relative
        try:
            source = file.path.stat()
            if _same_file_data(target, source):
                continue
            copy_atomic(file.path, target)
        except OSError as error:
            errors.append((file.display, f"cannot copy to {target}: {error.strerror or error}"))
    return errors


def _same_file_data(target: Path, source: os.stat_result) -> bool:
    try:
        existing = target.stat()
    except OSError:
        return False
    return existing.st_size == source.st_size and existing.st_mtime_ns == source.st_mtime_ns


def _print_diffs(results: list[FileResult], color: str) -> None:
    use_color = color == "always" or (color == "auto" and sys.stdout.isatty() and not os.environ.get("NO_COLOR"))
    try:
        for result in results:
            if result.status == "changed":
                for diff in file_diffs(result):
                    sys.stdout.write(colorize(diff) if use_color else diff)
        sys.stdout.flush()
    except BrokenPipeError:
        # The reader went away (`np2jax migrate . | head`): stop printing diffs, finish the run.
        # Python would report the pipe again when flushing stdout at exit; point it at /dev/null.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)


def _print_diagnostics(results: list[FileResult], quiet: bool) -> None:
    for result in results:
        if result.status == "error":
            print(f"{result.path}: error: {result.error}", file=sys.stderr)
        if not quiet:
            for diagnostic in result.diagnostics:
                print(diagnostic.format(), file=sys.stderr)


def _print_summary(results: list[FileResult], args: argparse.Namespace) -> None:
    statuses = Counter(r.status for r in results)
    severities = Counter(d.severity.value for r in results for d in r.diagnostics)
    verb = "migrated" if (args.write or args.out) else "would be migrated"
    print(
        f"{statuses['changed']} file(s) {verb}, {statuses['unchanged']} unchanged, "
        f"{statuses['error']} failed; diagnostics: {severities['error']} error(s), "
        f"{severities['warning']} warning(s), {severities['info']} info",
        file=sys.stderr,
    )
