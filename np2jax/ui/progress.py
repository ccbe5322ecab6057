"""A progress bar on stderr for long runs, only when stderr is a terminal."""

from __future__ import annotations

import contextlib
import sys
from typing import Callable, Iterator

MIN_FILES_FOR_PROGRESS = 20


@contextlib.contextmanager
def progress_callback(total: int) -> Iterator[Callable | None]:
    if total < MIN_FILES_FOR_PROGRESS or not sys.stderr.isatty():
        yield None
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    console = Console(file=sys.stderr)
    with Progress(
        TextColumn("migrating"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
        console=console, transient=True,
    ) as progress:
        task = progress.add_task("migrate", total=total)
        yield lambda _result: progress.advance(task)
