"""The migration options that ``review`` and ``gate`` share with ``migrate``, and the configured run.

Both commands migrate in memory exactly as ``np2jax migrate`` would: the same
``[tool.np2jax]`` configuration (found by walking up from the paths, or
``--config FILE``, or none with ``--isolated``), the same command-line overrides,
the same ``include``/``exclude`` and ``per-file-ignores``.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass

from np2jax.cache import Cache, default_cache_dir
from np2jax.config import Config, ConfigError, load_config
from np2jax.engine import FileResult
from np2jax.files import SourceFile, UsageError, discover
from np2jax.runner import migrate_files


def add_migration_arguments(parser: argparse.ArgumentParser, codes) -> None:
    """``codes``: the argparse type that reads a comma-separated list of rule codes."""
    parser.add_argument("--jit", action=argparse.BooleanOptionalAction, default=None, help="add jax.jit decorators (default: on)")
    parser.add_argument("--unsafe-fixes", action=argparse.BooleanOptionalAction, default=None,
                        help="also apply fixes that may change behaviour (default: off)")
    parser.add_argument("--select", type=codes, default=None, metavar="CODES", help="only these rules")
    parser.add_argument("--ignore", type=codes, default=None, metavar="CODES", help="skip these rules")
    source = parser.add_mutually_exclusive_group()
    source.add_argument("--config", metavar="FILE", help="read [tool.np2jax] from FILE instead of searching for pyproject.toml")
    source.add_argument("--isolated", "--no-config", action="store_true", help="ignore every configuration file")
    parser.add_argument("--jobs", "-j", type=int, default=None, metavar="N", help="worker processes (default: cores)")
    parser.add_argument("--no-cache", action="store_true", help="do not read or write the result cache")


@dataclass
class Migrated:
    config: Config
    files: list[SourceFile]  # the files the configuration selects
    results: list[FileResult]  # one per file
    walk_problems: list[tuple[str, str]]
    notes: list[str]


def migrate_configured(args: argparse.Namespace) -> Migrated:
    """Discover and migrate ``args.paths`` (in memory) under the configuration in force."""
    if args.jobs is not None and args.jobs < 0:
        raise UsageError("--jobs must be 0 (in-process) or more")
    try:
        config = load_config(args.paths, config_file=args.config, isolated=args.isolated)
    except ConfigError as error:
        for problem in error.problems[:-1]:  # the last one is printed as the command's error
            print(f"np2jax: error: {problem}", file=sys.stderr)
        raise UsageError(error.problems[-1] if error.problems else str(error)) from None
    found, walk_problems = discover(args.paths)
    files = [file for file in found if config.is_selected(file.path)]
    base = config.base_options(jit=args.jit, select=args.select, ignore=args.ignore, unsafe_fixes=args.unsafe_fixes)
    notes: list[str] = []
    results = migrate_files(
        files, lambda file: config.options_for(file.path, base), jobs=args.jobs,
        cache=Cache(None if args.no_cache else default_cache_dir()), on_note=notes.append,
    )
    return Migrated(config, files, results, walk_problems, notes)


def check_options(config: Config) -> dict:
    """``[tool.np2jax.check]`` settings as ``run_check`` keyword arguments (only those that are set)."""
    options = {"timeout": config.check.timeout, "x64": config.check.x64}
    return {key: value for key, value in options.items() if value is not None}
