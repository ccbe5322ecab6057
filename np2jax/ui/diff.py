"""Unified diffs, coloured for terminals."""

from __future__ import annotations

import difflib
import io
import re
import tokenize

from np2jax.engine import FileResult
from np2jax.notebook import NotebookResult

RESET, BOLD, RED, GREEN, CYAN = "\x1b[0m", "\x1b[1m", "\x1b[31m", "\x1b[32m", "\x1b[36m"


def decode(source: bytes) -> str:
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(source).readline)
        return source.decode(encoding)
    except (SyntaxError, UnicodeDecodeError, LookupError):
        return source.decode("utf-8", errors="replace")


# Python's newlines only (\r\n, \n, lone \r): ``str.splitlines`` also breaks at form
# feeds, \x1c-\x1e, \x85 and \u2028/\u2029, which are ordinary characters in a source
# line, and would cut a line in two in the diff.
_LINE_END = re.compile(r"(?<=\n)|(?<=\r)(?!\n)")
_OTHER_BREAKS = re.compile("[\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")


def source_lines(text: str) -> list[str]:
    """``text`` split after each newline Python recognises, newlines kept."""
    if not _OTHER_BREAKS.search(text):
        return text.splitlines(keepends=True)  # the same split, several times faster
    lines = _LINE_END.split(text)
    if lines and not lines[-1]:
        lines.pop()
    return lines


def file_diffs(result: FileResult) -> list[str]:
    """A changed file's diff; for a notebook, one diff per changed cell (``--- nb.ipynb [cell 3]``)."""
    if isinstance(result, NotebookResult):
        return [
            _diff(_cell_lines(change.before), _cell_lines(change.after), f"{result.path} [cell {change.cell}]")
            for change in result.changes
        ]
    return [unified_diff(result.path, result.source, result.output)]


def _cell_lines(text: str) -> list[str]:
    # A cell's last line has no newline as a rule (nbformat strips it): not worth a diff marker.
    return source_lines(text + "\n" if text and not text.endswith("\n") else text)


def unified_diff(path: str, before: bytes, after: bytes) -> str:
    return _diff(source_lines(decode(before)), source_lines(decode(after)), path)


def _diff(before: list[str], after: list[str], name: str) -> str:
    lines = difflib.unified_diff(before, after, fromfile=f"{name}\t(original)", tofile=f"{name}\t(migrated)")
    text = []
    for line in lines:
        if line.endswith("\n"):
            text.append(line)
        elif line.endswith("\r"):  # a lone-CR line ending: keep it, end the diff line
            text.append(line + "\n")
        else:
            text.append(line + "\n\\ No newline at end of file\n")
    return "".join(text)


def colorize(diff: str) -> str:
    """Colour one file's diff (as made by ``unified_diff``) for a terminal."""
    out = []
    # Diff lines end at \n (see unified_diff); a \r or a form feed inside one is content.
    for index, line in enumerate(diff.split("\n")):
        if index < 2 and line.startswith(("+++ ", "--- ")):  # a removed "-- x" line is not a header
            out.append(f"{BOLD}{line}{RESET}")
        elif line.startswith("@@"):
            out.append(f"{CYAN}{line}{RESET}")
        elif line.startswith("+"):
            out.append(f"{GREEN}{line}{RESET}")
        elif line.startswith("-"):
            out.append(f"{RED}{line}{RESET}")
        else:
            out.append(line)
    return "\n".join(out)
