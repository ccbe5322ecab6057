"""Inline suppression comments, applied to a file's result after the engine ran.

- ``# np2jax: ignore[NPJ200]`` (or ``ignore[NPJ200, NPJ201]``) hides those codes'
  diagnostics whose span starts on the comment's line; a bare ``# np2jax: ignore``
  hides every code.  On the first or the last line of a statement that spans
  several lines, the comment covers every line of that statement (for a
  ``def``/``for``/``if``... header: the lines of the header, not the body).
- ``# np2jax: skip-file``, a comment line of its own starting in column 1, leaves
  the whole file untouched: no rewrite, no diagnostics.

A suppression hides a diagnostic; it does not change what is rewritten (use
``--ignore``, ``per-file-ignores`` or ``skip-file`` for that).  A comment np2jax
cannot use (an unknown code, an unknown directive, a malformed list) is reported
as a warning and otherwise ignored; the known codes of the same comment still apply.
"""

from __future__ import annotations

import io
import re
import tokenize
from dataclasses import dataclass, field, replace

from np2jax.codes import BY_CODE
from np2jax.engine import FileResult

MARKER = b"np2jax"  # files without it are never tokenized (the common, fast case)
_DIRECTIVE = re.compile(r"#\s*np2jax\s*:\s*(?P<word>[\w-]*)(?P<codes>\[[^\]]*\]?)?")
_SKIP_FILE_LINE = re.compile(rb"^#\s*np2jax\s*:\s*skip-file\s*$", re.M)
ALL = None  # in Directives.suppressed: every code


@dataclass
class Directives:
    """What a file's np2jax comments ask for."""

    skip_file: bool = False
    suppressed: dict[int, frozenset[str] | None] = field(default_factory=dict)  # line -> codes (ALL: every code)
    warnings: list[tuple[int, str]] = field(default_factory=list)  # (line, message)

    def hides(self, line: int, code: str) -> bool:
        if line not in self.suppressed:
            return False
        codes = self.suppressed[line]
        return codes is ALL or code in codes


def scan(source: bytes) -> Directives:
    """The np2jax comments of a Python module given as bytes (any encoding Python accepts)."""
    directives = Directives()
    if MARKER not in source:
        return directives
    try:
        comments = list(_comments(source))
    except (tokenize.TokenError, SyntaxError, UnicodeDecodeError, LookupError):
        # Not tokenizable (the engine reports why); a skip-file line is still honoured.
        directives.skip_file = _SKIP_FILE_LINE.search(source) is not None
        return directives
    for comment in comments:
        for match in _DIRECTIVE.finditer(comment.text):
            _apply(match, comment, directives)
    return directives


@dataclass(frozen=True)
class _Comment:
    text: str
    line: int
    col: int
    own_line: bool  # nothing but this comment on its line
    covers: tuple[int, int]  # the lines a suppression on this comment's line applies to


def _comments(source: bytes):
    """Every comment, with the span of the statement it ends or starts."""
    pending: list[tuple[str, int, int, bool]] = []  # comments of the logical line in progress
    start = None  # first line of the logical line in progress
    skip = {tokenize.ENCODING, tokenize.NL, tokenize.INDENT, tokenize.DEDENT, tokenize.COMMENT, tokenize.ENDMARKER}
    for token in tokenize.tokenize(io.BytesIO(source).readline):
        if token.type == tokenize.COMMENT:
            if start is None:
                yield _Comment(token.string, token.start[0], token.start[1], True, (token.start[0],) * 2)
            else:
                pending.append((token.string, token.start[0], token.start[1]))
        elif token.type == tokenize.NEWLINE:
            end = token.start[0]
            for text, line, col in pending:
                covers = (start, end) if line in (start, end) else (line, line)
                yield _Comment(text, line, col, False, covers)
            pending, start = [], None
        elif token.type not in skip and start is None:
            start = token.start[0]
    for text, line, col in pending:  # a file ending inside a statement
        yield _Comment(text, line, col, False, (line, line))


def _apply(match: re.Match, comment: _Comment, directives: Directives) -> None:
    word, codes_text = match["word"], match["codes"]
    if word == "skip-file" and codes_text is None:
        if comment.own_line and comment.col == 0:
            directives.skip_file = True
        else:
            directives.warnings.append(
                (comment.line, "`np2jax: skip-file` works only on a comment line of its own in column 1; ignored")
            )
        return
    if word != "ignore":
        directives.warnings.append(
            (comment.line, f"unknown np2jax comment '{match.group(0)}' (known: ignore, ignore[CODES], skip-file); ignored")
        )
        return
    codes: frozenset[str] | None = ALL
    if codes_text is not None:
        names = [name.strip().upper() for name in codes_text.strip("[]").split(",") if name.strip()]
        if not codes_text.endswith("]") or not names:
            directives.warnings.append((comment.line, f"malformed np2jax suppression comment '{match.group(0)}'; ignored"))
            return
        for name in names:
            if name not in BY_CODE:
                directives.warnings.append((comment.line, f"unknown rule code '{name}' in np2jax suppression comment"))
        codes = frozenset(name for name in names if name in BY_CODE)
        if not codes:
            return
    first, last = comment.covers
    for line in range(first, last + 1):
        previous = directives.suppressed.get(line, frozenset())
        directives.suppressed[line] = ALL if codes is ALL or previous is ALL else previous | codes


def suppress(result: FileResult, directives: Directives) -> FileResult:
    """``result`` without the diagnostics the comments hide (function statuses are kept)."""
    if not directives.suppressed or not result.diagnostics:
        return result
    kept = [d for d in result.diagnostics if not directives.hides(d.line, d.code)]
    return result if len(kept) == len(result.diagnostics) else replace(result, diagnostics=kept)
