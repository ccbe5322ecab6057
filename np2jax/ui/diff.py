"""Unified diffs, coloured for terminals."""

from __future__ import annotations

import difflib
import io
import tokenize

RESET, BOLD, RED, GREEN, CYAN = "\x1b[0m", "\x1b[1m", "\x1b[31m", "\x1b[32m", "\x1b[36m"


def decode(source: bytes) -> str:
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(source).readline)
        return source.decode(encoding)
    except (SyntaxError, UnicodeDecodeError, LookupError):
        return source.decode("utf-8", errors="replace")


def unified_diff(path: str, before: bytes, after: bytes) -> str:
    lines = difflib.unified_diff(
        decode(before).splitlines(keepends=True),
        decode(after).splitlines(keepends=True),
        fromfile=f"{path}\t(original)",
        tofile=f"{path}\t(migrated)",
    )
    text = []
    for line in lines:
        text.append(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
    return "".join(text)


def colorize(diff: str) -> str:
    out = []
    for line in diff.splitlines(keepends=True):
        if line.startswith(("+++", "---")):
            out.append(f"{BOLD}{line.rstrip(chr(10))}{RESET}\n")
        elif line.startswith("@@"):
            out.append(f"{CYAN}{line.rstrip(chr(10))}{RESET}\n")
        elif line.startswith("+"):
            out.append(f"{GREEN}{line.rstrip(chr(10))}{RESET}\n")
        elif line.startswith("-"):
            out.append(f"{RED}{line.rstrip(chr(10))}{RESET}\n")
        else:
            out.append(line)
    return "".join(out)
