"""Migrate many files: cache look-ups, worker processes, crash isolation.

Parsing happens in worker processes, so a file that crashes the native parser
(pathological nesting can overflow its stack) costs that file only: it is
retried alone and, if it crashes again, reported as an error while every other
file is still processed.  Workers mark each file when they start it, so after a
crash only the files that were being worked on are retried one by one; files
that had not started yet go to a fresh pool, in parallel as before.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, replace
from typing import Callable

from np2jax.analysis.links import ModuleLinks
from np2jax.cache import Cache
from np2jax.engine import FileResult, Options, cache_key, migrate_source
from np2jax.files import NOTEBOOK_SUFFIX, SourceFile, read_source
from np2jax.notebook import Extraction, NotebookError, NotebookResult, extract, locate, rebuild
from np2jax.project import Module, Project, module_name
from np2jax.suppressions import Directives, scan, suppress

CRASH_MESSAGE = "the parser crashed on this file (pathologically deep nesting?); file left unchanged"
INTERNAL_ERROR = "internal error ("  # how the results of an unexpected exception begin; never cached


def _work(source: bytes, display: str, options: Options) -> FileResult:
    """One file, never raising: a bug in the engine costs that file only, not the run."""
    try:
        return migrate_source(source, display, options)
    except Exception as error:  # noqa: BLE001 - reported per file, the run goes on
        return _internal_error(display, source, error)


def _internal_error(display: str, source: bytes, error: BaseException) -> FileResult:
    reason = " ".join(str(error).split())[:200]
    message = f"{INTERNAL_ERROR}{type(error).__name__}{': ' + reason if reason else ''}); file left unchanged"
    return FileResult(display, "error", source, source, error=message)


def _key(source: bytes, display: str, options: Options) -> str:
    """The cache key: what the engine's output depends on, the file name's role included."""
    return cache_key(source, options, display)


_STARTED = None  # in a worker: shared flags, one per file of the current round


def _context():
    return multiprocessing.get_context("fork" if "fork" in multiprocessing.get_all_start_methods() else None)


def _set_started(flags) -> None:
    global _STARTED
    _STARTED = flags
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # a forked worker must not inherit the CLI's handler


class _Pool(ProcessPoolExecutor):
    """On Ctrl-C or SIGTERM, stop at once: drop the queued files and end the workers instead of waiting for them."""

    def __exit__(self, kind, error, traceback):
        if kind is not None and not issubclass(kind, Exception):
            processes = list((getattr(self, "_processes", None) or {}).values())
            self.shutdown(wait=False, cancel_futures=True)
            for process in processes:
                process.terminate()
            return False
        return super().__exit__(kind, error, traceback)


def _tracked_work(slot: int, source: bytes, display: str, options: Options) -> FileResult:
    if _STARTED is not None:
        _STARTED[slot] = 1
    return _work(source, display, options)


def _pool(jobs: int, started=None) -> ProcessPoolExecutor:
    return _Pool(max_workers=jobs, mp_context=_context(), initializer=_set_started, initargs=(started,))


def default_jobs() -> int:
    return max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1))


def migrate_files(
    files: list[SourceFile],
    options: Options | Callable[[SourceFile], Options],
    *,
    jobs: int | None = None,
    cache: Cache | None = None,
    on_result: Callable[[FileResult], None] | None = None,
    on_note: Callable[[str], None] | None = None,
) -> list[FileResult]:
    """Results in the order of ``files``; ``jobs=0`` runs in this process (no crash isolation).

    ``options`` may differ per file (a function of the file).  Inline suppression comments are
    applied to each result here, after the cache, so cached results stay the engine's own.
    ``on_note`` receives one-line warnings meant for users (``path:line: warning: ...``).
    """
    cache = cache or Cache(None)
    options_for = options if callable(options) else (lambda _file: options)
    results: list[FileResult | None] = [None] * len(files)
    inputs: dict[int, _Input] = {}
    pending: list[tuple[int, bytes, str, Options]] = []
    links: dict[int, ModuleLinks] = {}  # the engine's links of each file, for the project pass
    first_round = True

    def done(index: int, result: FileResult) -> None:
        links.pop(index, None)
        if result.links is not None:
            links[index] = result.links
        results[index] = inputs[index].finish(result, on_note) if index in inputs else result
        if first_round:
            _report(on_result, results[index])

    for index, file in enumerate(files):
        try:
            raw = read_source(file.path)
        except OSError as error:
            done(index, FileResult(file.display, "error", error=f"cannot read: {error.strerror or error}"))
            continue
        prepared = _prepare(file.display, raw, on_note)
        if isinstance(prepared, FileResult):
            done(index, prepared)
            continue
        inputs[index] = prepared
        pending.append((index, prepared.module, "", options_for(file)))

    def finish(index: int, key: str, result: FileResult) -> None:
        if result.error != CRASH_MESSAGE and not (result.error or "").startswith(INTERNAL_ERROR):
            cache.put(key, result)
        done(index, result)

    def run(round_: list[tuple[int, bytes, str, Options]]) -> None:
        uncached = []
        for index, source, _, file_options in round_:
            key = _key(source, files[index].display, file_options)
            cached = cache.get(key, source, files[index].display)
            if cached is not None:
                done(index, cached)
            else:
                uncached.append((index, source, key, file_options))
        if jobs == 0:
            for index, source, key, file_options in uncached:
                finish(index, key, _work(source, files[index].display, file_options))
        elif uncached:
            _run_isolated(uncached, files, jobs or default_jobs(), finish)

    run(pending)
    first_round = False
    # The project pass: files whose functions other files rely on (or that rely on others) again.
    external: dict[int, set] = {}
    names: dict[int, str | None] = {}  # each file's module name, worked out once
    for _ in range(MAX_PROJECT_ROUNDS):
        if len(links) < 2:
            break
        grown = _grown_facts(files, links, external, names)
        if not grown:
            break
        run([(index, inputs[index].module, "", replace(options_for(files[index]), external=tuple(sorted(external[index]))))
             for index in grown])
    return [r for r in results if r is not None]


MAX_PROJECT_ROUNDS = 8  # each round only adds facts; real chains of modules settle in two or three


def _grown_facts(files: list[SourceFile], links: dict, external: dict[int, set], names: dict) -> list[int]:
    """Add the facts the current links imply to ``external``; the files whose facts grew.
    ``names`` memoises the files' module names (None: a notebook, which nothing imports)."""
    for index in links.keys() - names.keys():
        names[index] = None if files[index].display.endswith(NOTEBOOK_SUFFIX) else module_name(files[index].path)
    modules = {
        index: Module(names[index], files[index].display, files[index].path.name == "__init__.py", found)
        for index, found in links.items()
    }
    grown = []
    for index, facts in Project(modules).facts().items():
        if not facts <= external.get(index, set()):
            external[index] = external.get(index, set()) | facts
            grown.append(index)
    return sorted(grown)


@dataclass
class _Input:
    """One file as the engine sees it: a module, plus what turns the module's result into the file's."""

    display: str
    raw: bytes  # the file's bytes
    module: bytes  # what the engine migrates (the file itself, or a notebook's code cells)
    directives: Directives
    notebook: Extraction | None = None

    def finish(self, result: FileResult, on_note) -> FileResult:
        result = suppress(result, self.directives)
        origin = self.notebook.origin if self.notebook is not None else None
        for line, message in self.directives.warnings:
            _note(on_note, self.display, message, line, origin)
        if self.notebook is None:
            return result
        result, notes = rebuild(self.notebook, self.raw, result)
        for message in notes:
            _note(on_note, self.display, message)
        return result


def _prepare(display: str, raw: bytes, on_note) -> _Input | FileResult:
    """The engine's input for one file, or the file's final result when the engine is not needed."""
    extraction = None
    module = raw
    if display.endswith(NOTEBOOK_SUFFIX):
        try:
            extraction = extract(raw)
        except NotebookError as error:
            return NotebookResult(display, "error", raw, raw, error=str(error))
        if extraction.language is not None:
            _note(on_note, display, f"not a Python notebook (kernel language {extraction.language!r}); left unchanged")
            return NotebookResult(display, "unchanged", raw, raw)
        module = extraction.module
    directives = scan(module)
    if directives.skip_file:
        return (NotebookResult if extraction else FileResult)(display, "unchanged", raw, raw)
    return _Input(display, raw, module, directives, extraction)


def _note(on_note, display: str, message: str, line: int | None = None, origin=None) -> None:
    if on_note is None:
        return
    where = display
    if line is not None:
        if origin is not None:
            cell, line = locate(origin, line)
            where += f":cell {cell}"
        where += f":{line}"
    on_note(f"{where}: warning: {message}")


def _run_isolated(pending, files, jobs, finish) -> None:
    # Largest files first, so that one big file does not finish last on an otherwise idle pool.
    remaining = sorted(pending, key=lambda item: len(item[1]), reverse=True)
    suspects: list[tuple[int, bytes, str, Options]] = []
    while remaining:  # each round ends when its pool finishes or breaks
        started = _context().RawArray("b", len(remaining))
        not_started: list[tuple[int, bytes, str, Options]] = []
        with _pool(min(jobs, len(remaining)), started) as pool:
            futures: dict[Future, tuple[int, tuple[int, bytes, str, Options]]] = {
                pool.submit(_tracked_work, slot, item[1], files[item[0]].display, item[3]): (slot, item)
                for slot, item in enumerate(remaining)
            }
            while futures:
                done, _ = wait(futures, return_when=FIRST_COMPLETED)
                for future in done:
                    slot, item = futures.pop(future)
                    try:
                        result = future.result()
                    except BrokenProcessPool:
                        # A worker died: the culprit is among the files already started.
                        (suspects if started[slot] else not_started).append(item)
                        continue
                    except Exception as error:  # noqa: BLE001 - e.g. a result that cannot be sent back
                        result = _internal_error(files[item[0]].display, item[1], error)
                    finish(item[0], item[2], result)
        if len(not_started) == len(remaining):  # the pool broke before any file started
            suspects.extend(not_started)
            break
        remaining = not_started  # shorter each round: the crashing file was started
    for index, source, key, options in suspects:  # one at a time, each in a fresh process
        with _pool(1) as pool:
            try:
                result = pool.submit(_work, source, files[index].display, options).result()
            except BrokenProcessPool:
                result = FileResult(files[index].display, "error", source, source, error=CRASH_MESSAGE)
            except Exception as error:  # noqa: BLE001
                result = _internal_error(files[index].display, source, error)
        finish(index, key, result)


def _report(callback, result) -> None:
    if callback is not None:
        callback(result)
