"""Migrate many files: cache look-ups, worker processes, crash isolation.

Parsing happens in worker processes, so a file that crashes the native parser
(pathological nesting can overflow its stack) costs that file only: it is
retried alone and, if it crashes again, reported as an error while every other
file is still processed.
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


def _work(source: bytes, display: str, options: Options) -> FileResult:
    return migrate_source(source, display, options)


def _pool(jobs: int) -> ProcessPoolExecutor:
    method = "fork" if "fork" in multiprocessing.get_all_start_methods() else None
    return ProcessPoolExecutor(max_workers=jobs, mp_context=multiprocessing.get_context(method))


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
        try:
            source = read_source(file.path)
        except OSError as error:
            results[index] = FileResult(file.display, "error", error=f"cannot read: {error.strerror or error}")
            _report(on_result, results[index])
            continue
        key = cache_key(source, options)
        cached = cache.get(key, source, file.display)
        if cached is not None:
            results[index] = cached
            _report(on_result, cached)
        else:
            pending.append((index, source, key))

    def finish(index: int, key: str, result: FileResult) -> None:
        results[index] = result
        if result.error != CRASH_MESSAGE:
            cache.put(key, result)
        _report(on_result, result)

    if jobs == 0:
        for index, source, key in pending:
            finish(index, key, migrate_source(source, files[index].display, options))
    elif pending:
        _run_isolated(pending, files, options, jobs or default_jobs(), finish)
    return [r for r in results if r is not None]


def _run_isolated(pending, files, options, jobs, finish) -> None:
    remaining = list(pending)
    suspects: list[tuple[int, bytes, str]] = []
    with _pool(min(jobs, len(remaining))) as pool:
        futures: dict[Future, tuple[int, bytes, str]] = {
            pool.submit(_work, source, files[index].display, options): (index, source, key)
            for index, source, key in remaining
        }
        while futures:
            done, _ = wait(futures, return_when=FIRST_COMPLETED)
            for future in done:
                item = futures.pop(future)
                try:
                    finish(item[0], item[2], future.result())
                except BrokenProcessPool:
                    suspects.append(item)
    for index, source, key in suspects:  # one at a time, each in a fresh process
        with _pool(1) as pool:
            try:
                result = pool.submit(_work, source, files[index].display, options).result()
            except BrokenProcessPool:
                result = FileResult(files[index].display, "error", source, source, error=CRASH_MESSAGE)
        finish(index, key, result)


def _report(callback, result) -> None:
    if callback is not None:
        callback(result)
