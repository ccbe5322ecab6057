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
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from typing import Callable

from np2jax.cache import Cache
from np2jax.engine import FileResult, Options, cache_key, migrate_source
from np2jax.files import SourceFile, read_source

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


def _tracked_work(slot: int, source: bytes, display: str, options: Options) -> FileResult:
    if _STARTED is not None:
        _STARTED[slot] = 1
    return _work(source, display, options)


def _pool(jobs: int, started=None) -> ProcessPoolExecutor:
    return ProcessPoolExecutor(max_workers=jobs, mp_context=_context(), initializer=_set_started, initargs=(started,))


def default_jobs() -> int:
    return max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1))


def migrate_files(
    files: list[SourceFile],
    options: Options,
    *,
    jobs: int | None = None,
    cache: Cache | None = None,
    on_result: Callable[[FileResult], None] | None = None,
) -> list[FileResult]:
    """Results in the order of ``files``; ``jobs=0`` runs in this process (no crash isolation)."""
    cache = cache or Cache(None)
    results: list[FileResult | None] = [None] * len(files)
    pending: list[tuple[int, bytes, str]] = []
    for index, file in enumerate(files):
        if file.display.endswith(".ipynb"):
            results[index] = FileResult(file.display, "error", error="notebooks are not supported yet; export the notebook to a .py file")
            _report(on_result, results[index])
            continue
        try:
            source = read_source(file.path)
        except OSError as error:
            results[index] = FileResult(file.display, "error", error=f"cannot read: {error.strerror or error}")
            _report(on_result, results[index])
            continue
        key = _key(source, file.display, options)
        cached = cache.get(key, source, file.display)
        if cached is not None:
            results[index] = cached
            _report(on_result, cached)
        else:
            pending.append((index, source, key))

    def finish(index: int, key: str, result: FileResult) -> None:
        results[index] = result
        if result.error != CRASH_MESSAGE and not (result.error or "").startswith(INTERNAL_ERROR):
            cache.put(key, result)
        _report(on_result, result)

    if jobs == 0:
        for index, source, key in pending:
            finish(index, key, _work(source, files[index].display, options))
    elif pending:
        _run_isolated(pending, files, options, jobs or default_jobs(), finish)
    return [r for r in results if r is not None]


def _run_isolated(pending, files, options, jobs, finish) -> None:
    # Largest files first, so that one big file does not finish last on an otherwise idle pool.
    remaining = sorted(pending, key=lambda item: len(item[1]), reverse=True)
    suspects: list[tuple[int, bytes, str]] = []
    while remaining:  # each round ends when its pool finishes or breaks
        started = _context().RawArray("b", len(remaining))
        not_started: list[tuple[int, bytes, str]] = []
        with _pool(min(jobs, len(remaining)), started) as pool:
            futures: dict[Future, tuple[int, tuple[int, bytes, str]]] = {
                pool.submit(_tracked_work, slot, item[1], files[item[0]].display, options): (slot, item)
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
    for index, source, key in suspects:  # one at a time, each in a fresh process
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
