"""Where does one file's migration spend its time?  In-process, no cache, no workers.

Usage::

    python benchmarks/profile_engine.py [PATH] [--sample 40] [--top 30] [--pstats FILE] [--no-cprofile]

Picks ``--sample`` files from PATH (default: the installed NumPy package),
weighted by their line count so that the sample costs what the whole tree
costs, runs the real ``np2jax.engine.migrate_source`` on each and reports:

1. a phase breakdown in wall time, from timers wrapped around the engine's own
   functions (no re-implementation, so it cannot drift from the engine): the
   bracket-depth pre-scan, libcst parse, ScopeCollector pass, Walker pass,
   import finalisation, codegen, and the safety net (re-parse, ``compile``,
   second ``_transform``), plus, inside the Walker, the time spent in
   ``FileContext.span``, libcst exact positions, ``Resolver.is_static`` and
   each rule's hooks;
2. cProfile of the same calls: cumulative share of interesting functions and
   the top functions by own time (cProfile's overhead inflates small
   functions; trust the timers of part 1 for proportions).

To measure a frozen copy of np2jax while others edit the tree, copy the
package elsewhere and run with ``PYTHONPATH=<copy>`` from another directory.
"""

from __future__ import annotations

import argparse
import cProfile
import functools
import pstats
import sys
import time
from collections import defaultdict
from contextlib import contextmanager
from pathlib import Path

import libcst as cst

from np2jax import engine
from np2jax.analysis import tracing
from np2jax.analysis.resolve import Resolver
from np2jax.analysis.tracing import ModuleTracing
from np2jax.analysis.scope import Scope
from np2jax.codes import RULES
from np2jax.context import FileContext
from np2jax.engine import Options, migrate_source
from np2jax.files import discover, read_source
from np2jax.walker import Walker

RULE_HOOKS = ("on_numpy_ref", "on_call", "rewrite_statement", "rewrite_line")


def line_count(source: bytes) -> int:
    return source.count(b"\n") + (1 if source and not source.endswith(b"\n") else 0)


def sample_files(path: str, n: int) -> list[tuple[str, bytes]]:
    """Files at ``n`` evenly spaced quantiles of the cumulative line count (deterministic)."""
    files, _ = discover([path])
    sources = [(f.display, read_source(f.path)) for f in files]
    if n >= len(sources):
        return sources
    total = sum(line_count(s) for _, s in sources)
    targets = [(k + 0.5) * total / n for k in range(n)]
    picked: list[tuple[str, bytes]] = []
    running = 0
    for display, source in sources:
        before, running = running, running + line_count(source)
        if any(before < t <= running for t in targets):
            picked.append((display, source))
    return picked


class Timers:
    """Wall-clock timers around functions; only the outermost of recursive calls counts."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = defaultdict(float)
        self.calls: dict[str, int] = defaultdict(int)
        self._depth: dict[str, int] = defaultdict(int)
        self.prefix = ""  # "safety: " while engine._check_safety runs
        self._patches: list[tuple[object, str, object]] = []

    def timed(self, name: str, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            if self._depth[name]:
                return fn(*args, **kwargs)
            key = self.prefix + name
            self._depth[name] += 1
            start = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                self.seconds[key] += time.perf_counter() - start
                self.calls[key] += 1
                self._depth[name] -= 1

        return wrapper

    def patch(self, owner, attribute: str, name: str) -> None:
        original = owner.__dict__.get(attribute) if isinstance(owner, type) else getattr(owner, attribute, None)
        if original is None:
            return  # not in this version of np2jax
        if isinstance(original, property):
            replacement = property(self.timed(name, original.fget))
        elif isinstance(original, (staticmethod, classmethod)):
            return
        else:
            replacement = self.timed(name, original)
        self._patches.append((owner, attribute, original))
        setattr(owner, attribute, replacement)

    def restore(self) -> None:
        for owner, attribute, original in reversed(self._patches):
            setattr(owner, attribute, original)
        self._patches.clear()


@contextmanager
def instrumented(timers: Timers):
    timers.patch(engine, "_functions_without_numpy", "no-numpy fast path (ast)")
    timers.patch(engine, "_parse", "_parse (pre-scan + libcst parse)")
    timers.patch(cst, "parse_module", "libcst parse")
    timers.patch(engine, "collect_scopes", "scope collector")
    timers.patch(engine, "finalize_imports", "finalize imports")
    timers.patch(cst.Module, "bytes", "codegen")
    timers.patch(cst.Module, "code", "codegen")
    timers.patch(engine, "render", "codegen")
    engine.compile = timers.timed("compile to ast", compile)  # shadows the builtin in engine only
    timers._patches.append((engine, "compile", None))
    timers.patch(FileContext, "span", "  ctx.span (diagnostic positions)")
    timers.patch(FileContext, "_exact_positions", "  libcst PositionProvider (in span)")
    timers.patch(FileContext, "code", "  ctx.code (code_for_node)")
    timers.patch(Resolver, "is_static", "  Resolver.is_static")
    timers.patch(Resolver, "qualname", "  Resolver.qualname")
    timers.patch(Scope, "lookup", "  Scope.lookup")
    timers.patch(ModuleTracing, "plan", "  jit analysis (ModuleTracing.plan)")
    timers.patch(tracing, "_mutated_globals", "  jit analysis: module state (ast)")
    timers.patch(FileContext, "aliasing", "  in-place write aliasing (FileContext.aliasing)")
    timers.patch(FileContext, "_planned", "  in-place write plans (FileContext._planned)")
    for rule in RULES:
        for hook in RULE_HOOKS:
            if hook in rule.__dict__:
                timers.patch(rule, hook, f"  rule {rule.CODE} {rule.__name__}")

    original_visit = engine.visit  # np2jax.visitors.visit, as the engine imported it

    def visit(node, visitor):
        if isinstance(visitor, Walker):
            return timers.timed("walker pass (rules incl.)", original_visit)(node, visitor)
        return original_visit(node, visitor)

    engine.visit = visit
    timers._patches.append((engine, "visit", original_visit))

    original_safety = engine._check_safety

    def check_safety(*args, **kwargs):
        timers.prefix = "safety: "
        try:
            return timers.timed("safety net total", original_safety)(*args, **kwargs)
        finally:
            timers.prefix = ""

    engine._check_safety = check_safety
    timers._patches.append((engine, "_check_safety", original_safety))
    try:
        yield timers
    finally:
        for owner, attribute, original in reversed(timers._patches):
            if original is None:
                delattr(owner, attribute)
            else:
                setattr(owner, attribute, original)
        timers._patches.clear()


def print_phases(timers: Timers, total: float) -> None:
    s = timers.seconds

    def row(label: str, seconds: float, calls: int | None = None) -> None:
        count = f"{calls:>8}" if calls is not None else " " * 8
        print(f"  {label:<46} {seconds:8.2f} s {100 * seconds / total:6.1f} %  {count}")

    print(f"\nphase breakdown (wall time of migrate_source, instrumented: {total:.2f} s = 100 %):")
    print(f"  {'phase':<46} {'seconds':>10} {'share':>8}  {'calls':>8}")
    for prefix in ("", "safety: "):
        parse = s.get(prefix + "libcst parse", 0.0)
        if not prefix:
            row("bracket-depth pre-scan", s.get("_parse (pre-scan + libcst parse)", 0.0) - parse)
            row("no-numpy fast path (ast)", s.get("no-numpy fast path (ast)", 0.0))
        row(prefix + "libcst parse", parse, timers.calls.get(prefix + "libcst parse"))
        if prefix:
            row(prefix + "compile to ast", s.get(prefix + "compile to ast", 0.0))
        row(prefix + "scope collector", s.get(prefix + "scope collector", 0.0))
        walker = prefix + "walker pass (rules incl.)"
        row(walker, s.get(walker, 0.0))
        nested = sorted((k for k in s if k.startswith(prefix + "  ")), key=lambda k: -s[k])
        for key in nested:
            row(key, s[key], timers.calls[key])
        row(prefix + "finalize imports", s.get(prefix + "finalize imports", 0.0))
        row(prefix + "codegen (render / Module.code)", s.get(prefix + "codegen", 0.0), timers.calls.get(prefix + "codegen"))
    safety = s.get("safety: safety net total", 0.0)
    print(f"  {'=> safety net (second pass) in total':<46} {safety:8.2f} s {100 * safety / total:6.1f} %")
    top = ["_parse (pre-scan + libcst parse)", "no-numpy fast path (ast)", "scope collector",
           "walker pass (rules incl.)", "finalize imports", "codegen", "safety: safety net total"]
    glue = total - sum(s.get(k, 0.0) for k in top)
    print(f"  {'(glue: decode, FileContext, results, ...)':<46} {glue:8.2f} s {100 * glue / total:6.1f} %")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("path", nargs="?", metavar="PATH")
    parser.add_argument("--sample", type=int, default=40, metavar="N")
    parser.add_argument("--top", type=int, default=30, metavar="N")
    parser.add_argument("--pstats", metavar="FILE", help="save the raw cProfile data here")
    parser.add_argument("--no-cprofile", action="store_true", help="only the timers (faster)")
    args = parser.parse_args(argv)
    if args.path is None:
        import numpy

        args.path = str(Path(numpy.__file__).parent)
    import np2jax

    options = Options()
    files = sample_files(args.path, args.sample)
    lines = sum(line_count(s) for _, s in files)
    print(f"np2jax from {Path(np2jax.__file__).parent}")
    print(f"{len(files)} files, {lines:,} lines from {args.path}")

    # 1. plain wall time, and the errors
    statuses: dict[str, int] = defaultdict(int)
    start = time.perf_counter()
    cpu = time.process_time()
    results = [migrate_source(source, path, options) for path, source in files]
    plain, plain_cpu = time.perf_counter() - start, time.process_time() - cpu
    for result in results:
        statuses[result.status] += 1
    print(
        f"migrate_source, plain: {plain:.2f} s wall, {plain_cpu:.2f} s CPU = "
        f"{lines / plain_cpu:,.0f} lines per CPU-second; {dict(statuses)}"
    )
    for result in results:
        if result.status == "error":
            print(f"  error: {result.path}: {result.error}")

    # 2. timers around the engine's functions
    timers = Timers()
    with instrumented(timers):
        start = time.perf_counter()
        for path, source in files:
            migrate_source(source, path, options)
        total = time.perf_counter() - start
    print_phases(timers, total)

    # 3. cProfile
    if args.no_cprofile:
        return 0
    profiler = cProfile.Profile()
    profiler.enable()
    for path, source in files:
        migrate_source(source, path, options)
    profiler.disable()
    if args.pstats:
        profiler.dump_stats(args.pstats)
    stats = pstats.Stats(profiler)
    total = max(stats.total_tt, 1e-9)
    interesting = {
        ("engine.py", "migrate_source"), ("engine.py", "_parse"), ("engine.py", "_transform"),
        ("engine.py", "_check_safety"), ("scope.py", "collect_scopes"), ("imports.py", "finalize_imports"),
        ("context.py", "span"), ("context.py", "_exact_positions"), ("context.py", "code"),
        ("context.py", "report"), ("resolve.py", "is_static"), ("resolve.py", "qualname"),
        ("scope.py", "lookup"), ("walker.py", "_numpy_ref"), ("walker.py", "_run_rules"),
        ("visitors.py", "_transform"), ("visitors.py", "_walk"), ("base.py", "__post_init__"),
        ("module.py", "code_for_node"), ("module.py", "bytes"), ("module.py", "code"),
        ("entrypoints.py", "parse_module"), ("wrapper.py", "resolve"), ("base.py", "_codegen"),
        ("base.py", "deep_clone"),
    }
    rows = []
    for (filename, _line, function), (_cc, nc, tt, ct, _callers) in stats.stats.items():
        if (Path(filename).name, function) in interesting:
            rows.append((ct, tt, nc, f"{Path(filename).parent.name}/{Path(filename).name}:{function}"))
    rows.sort(reverse=True)
    print(f"\ncProfile of migrate_source (profiled total {total:.2f} s; overhead inflates small functions):")
    print(f"  {'function':<48} {'calls':>9} {'cum s':>8} {'cum %':>6} {'own s':>8}")
    for ct, tt, nc, name in rows:
        print(f"  {name:<48} {nc:>9} {ct:8.2f} {100 * ct / total:6.1f} {tt:8.2f}")
    print(f"\ntop {args.top} functions by own time:")
    own = sorted(stats.stats.items(), key=lambda item: item[1][2], reverse=True)[: args.top]
    for (filename, line, function), (_cc, nc, tt, _ct, _callers) in own:
        where = f"{Path(filename).parent.name}/{Path(filename).name}:{line}({function})"
        print(f"  {tt:7.2f} s {100 * tt / total:5.1f} %  {nc:>9} calls  {where}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
