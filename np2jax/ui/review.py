"""``np2jax review``: hunk-by-hunk review of a migration in a terminal, like ``git add -p``.

Each changed file's diff is split into hunks (``np2jax.hunks``); each hunk is shown
with the diagnostics that fall inside it and a prompt.  Accepted hunks are written
atomically once the file's review ends, and only if the combination parses and
uses no name that it no longer imports.  Hunks that import a name are kept with
the hunks that use it: accepting a ``jnp.`` hunk also applies the hunk that
adds ``import jax.numpy as jnp``.
"""

from __future__ import annotations

import io
import os
import shlex
import subprocess
import sys
import tempfile
import tokenize
from dataclasses import dataclass, field, replace
from pathlib import Path

from rich.console import Console
from rich.syntax import Syntax
from rich.text import Text

from np2jax.diagnostics import Diagnostic
from np2jax.configured import check_options, migrate_configured
from np2jax.engine import FileResult
from np2jax.files import NOTEBOOK_SUFFIX, SourceFile, is_read_only, read_source, write_atomic
from np2jax.hunks import MODULE, FileDiff, FunctionSpans, Hunk, combination_problems, split_hunks, split_region_hunks
from np2jax.notebook import Extraction, NotebookError, cell_regions, extract, module_line, show_magics, write_module
from np2jax.reference import check_versions

EXIT_OK, EXIT_USAGE, EXIT_FAILED, EXIT_INTERRUPTED = 0, 2, 3, 130
NOT_A_TERMINAL = "np2jax: error: review asks about each change and needs a terminal on stdin; use `np2jax migrate --write` to apply every change"
KEYS = "y,n,a,d,e,q,?"
HELP = """y - apply this hunk
n - do not apply this hunk
a - apply this hunk and all later hunks in the file
d - do not apply this hunk or any later hunk in the file
e - edit this hunk's migrated lines in $EDITOR, then apply them
q - quit; hunks accepted so far are written, later files are left as they are
? - print this help"""
SEVERITY_STYLE = {"error": "bold red", "warning": "yellow", "info": "cyan"}


@dataclass
class FileReview:
    """What the user decided for one file, and what became of it."""

    path: str
    hunks: int
    accepted: dict[int, list[bytes]] = field(default_factory=dict)  # hunk number -> replacement lines
    rejected: set[int] = field(default_factory=set)
    edited: set[int] = field(default_factory=set)
    outcome: str = "not reviewed"  # written | unchanged | not written: <reason> | not reviewed


class Quit(Exception):
    """The user answered ``q`` (or closed stdin)."""


@dataclass
class NotebookView:
    """A notebook under review: its code cells as one module (``np2jax.notebook``), hunks per cell.

    The review works on the module (original and migrated); accepted hunks are composed
    there and written back into the notebook's cells with its own JSON formatting.
    """

    raw: bytes  # the notebook as read
    before: Extraction
    after: Extraction

    @classmethod
    def of(cls, result: FileResult) -> tuple[NotebookView, FileResult, FileDiff]:
        """The view, the result restated on the module (lines of the module), and the per-cell diff."""
        before, after = extract(result.source), extract(result.output)
        old, new = cell_regions(before, before.module), cell_regions(after, after.module)
        if [cell for cell, *_ in old] != [cell for cell, *_ in new]:
            raise NotebookError("the migrated notebook's code cells are not the original's")
        regions = [(cell, start, end, new_start, new_end) for (cell, start, end), (_, new_start, new_end) in zip(old, new)]
        diff = split_region_hunks(before.module, after.module, regions)
        functions = [
            replace(f, line=module_line(before.origin, f.cell, f.line), end_line=module_line(before.origin, f.cell, f.end_line))
            for f in result.functions
        ]
        module = FileResult(result.path, result.status, before.module, after.module, result.error,
                            list(result.diagnostics), functions)
        return cls(result.source, before, after), module, diff

    def notebook(self, combined: bytes) -> bytes:
        return write_module(self.before, self.raw, combined.decode("utf-8"))


class Reviewer:
    def __init__(self, console: Console, verifier=None) -> None:
        self.console = console
        self.syntax = Syntax("", "python", theme="ansi_dark")
        self.verifier = verifier  # ``Verdicts`` with ``--verify``, else None
        self.notebooks: dict[str, NotebookView] = {}  # by path: the notebooks under review

    # -- the whole run ---------------------------------------------------------------------

    def review_all(self, files: list[SourceFile], results: list[FileResult]) -> list[FileReview]:
        reviews: list[FileReview] = []
        changed = [(f, r) for f, r in zip(files, results) if r.status == "changed"]
        if not changed:
            self.console.print("Nothing to review: no file would change.")
        quitting = False
        for file, result in changed:
            if result.path.endswith(NOTEBOOK_SUFFIX):
                try:
                    view, result, diff = NotebookView.of(result)
                except NotebookError as error:
                    reviews.append(FileReview(result.path, 0, outcome=f"not written: {error}"))
                    continue
                self.notebooks[result.path] = view
            else:
                diff = split_hunks(result.source, result.output)
            review = FileReview(result.path, len(diff.hunks))
            reviews.append(review)
            if quitting:
                continue
            try:
                self._review_file(file, result, diff, review)
            except Quit:
                quitting = True
                self._finish_file(file, result, diff, review, quitting=True)
        return reviews

    # -- one file ------------------------------------------------------------------------------

    def _review_file(self, file: SourceFile, result: FileResult, diff: FileDiff, review: FileReview) -> None:
        while True:
            review.accepted.clear(), review.rejected.clear(), review.edited.clear()
            self._show_file_header(result, diff)
            self._ask_hunks(file, result, diff, review)
            if self._finish_file(file, result, diff, review, quitting=False):
                return

    def _show_file_header(self, result: FileResult, diff: FileDiff) -> None:
        self.console.rule(Text(f"{result.path}  ({len(diff.hunks)} hunk{'s' if len(diff.hunks) != 1 else ''})", style="bold"))
        outside = [d for d in result.diagnostics if not any(_in_hunk(d, h) for h in diff.hunks)]
        if outside:
            self.console.print("Reported in this file, on lines no hunk changes:")
            for diagnostic in outside:
                self.console.print(_diagnostic_line(diagnostic))

    def _ask_hunks(self, file: SourceFile, result: FileResult, diff: FileDiff, review: FileReview) -> None:
        encoding = _encoding(result.source)
        rest: str | None = None  # "a" or "d" once the user chose for the rest of the file
        for hunk in diff.hunks:
            if rest == "d" and hunk.number not in review.accepted:
                review.rejected.add(hunk.number)
                continue
            if rest == "a":
                self._accept(diff, review, hunk.number, diff.new_side(hunk))
                continue
            self._show_hunk(file, result, diff, hunk, encoding)
            while True:
                answer = self._ask(f"({hunk.number}/{len(diff.hunks)}) Apply this hunk to {result.path} [{KEYS}]? ")
                if answer in ("y", "a"):
                    self._accept(diff, review, hunk.number, diff.new_side(hunk))
                    rest = "a" if answer == "a" else None
                elif answer in ("n", "d"):
                    self._reject(diff, review, hunk.number)
                    rest = "d" if answer == "d" else None
                elif answer == "e":
                    if not self._edit(diff, review, hunk):
                        continue
                elif answer == "q":
                    raise Quit
                else:
                    if answer != "?":
                        self.console.print(f"Unknown answer {answer!r}.", style="red", markup=False)
                    self.console.print(HELP, markup=False, highlight=False)
                    continue
                break

    def _accept(self, diff: FileDiff, review: FileReview, number: int, lines: list[bytes]) -> None:
        review.accepted[number] = lines
        review.rejected.discard(number)
        for needed in sorted(diff.requires.get(number, ())):
            if needed not in review.accepted:
                names = ", ".join(f"`{n}`" for n in sorted(diff.provides[needed]))
                self.console.print(f"Also applying hunk {needed}: this hunk uses {names}, which hunk {needed} imports.", markup=False)
                self._accept(diff, review, needed, diff.new_side(diff.hunks[needed - 1]))

    def _reject(self, diff: FileDiff, review: FileReview, number: int) -> None:
        dependents = sorted(n for n in review.accepted if number in diff.requires.get(n, ()) and n not in review.edited)
        if number in review.accepted and dependents:
            names = ", ".join(f"`{n}`" for n in sorted(diff.provides[number]))
            self.console.print(
                f"Keeping this hunk: accepted hunk(s) {', '.join(map(str, dependents))} use {names}, which it imports.",
                markup=False,
            )
            return
        review.accepted.pop(number, None)
        review.rejected.add(number)

    def _edit(self, diff: FileDiff, review: FileReview, hunk: Hunk) -> bool:
        """Open the hunk's migrated lines in the editor; False when the edit was abandoned."""
        editor = os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi"
        original = b"".join(diff.new_side(hunk))
        handle, name = tempfile.mkstemp(prefix="np2jax-hunk-", suffix=".py")
        try:
            with os.fdopen(handle, "wb") as stream:
                stream.write(original)
            self.console.print(f"Editing hunk {hunk.number} in {editor}: the lines saved become the hunk; an empty file cancels.", markup=False)
            try:
                status = subprocess.call([*shlex.split(editor), name])
            except (OSError, ValueError) as error:
                self.console.print(f"Cannot run the editor {editor!r}: {error}", style="red", markup=False)
                return False
            if status != 0:
                self.console.print(f"The editor exited with status {status}; hunk left as it was.", style="red", markup=False)
                return False
            edited = Path(name).read_bytes()
        finally:
            try:
                os.unlink(name)
            except OSError:
                pass
        if not edited.strip():
            self.console.print("Edit cancelled (empty file); hunk left as it was.", markup=False)
            return False
        if hunk.old_end < len(diff.old) and not edited.endswith((b"\n", b"\r")):
            edited += _newline_of(original)  # the next line must not be glued to the edited text
        review.edited.add(hunk.number)
        self._accept(diff, review, hunk.number, [edited])
        return True

    def _finish_file(self, file: SourceFile, result: FileResult, diff: FileDiff, review: FileReview, quitting: bool) -> bool:
        """Write the accepted hunks; False when the user wants to review the file again."""
        if not review.accepted:
            review.outcome = "unchanged"
            return True
        combined = diff.compose(review.accepted)
        problems = combination_problems(diff, combined, result.path, result.source, result.output)
        if problems:
            self.console.print(f"The hunks accepted for {result.path} do not work together:", style="bold red", markup=False)
            for problem in problems:
                self.console.print(f"  line {problem.line} {problem.text}", markup=False)
            if quitting:
                review.outcome = "unchanged: the accepted hunks do not work together"
                return True
            while True:
                answer = self._ask(f"Review {result.path} again [r], or leave it unchanged [n]? ")
                if answer == "r":
                    return False
                if answer == "n":
                    review.outcome = "unchanged"
                    return True
                if answer == "q":
                    review.outcome = "unchanged"
                    raise Quit
        view = self.notebooks.get(result.path)
        if view is None:
            review.outcome = _write(file, combined, result.source)
            return True
        try:
            notebook = view.notebook(combined)
        except NotebookError as error:
            self.console.print(f"The hunks accepted for {result.path} cannot be written into its cells: {error}",
                               style="bold red", markup=False)
            review.outcome = f"not written: {error}"
            return True
        review.outcome = _write(file, notebook, view.raw)
        return True

    # -- terminal ------------------------------------------------------------------------------

    def _ask(self, prompt: str) -> str:
        try:
            return input(prompt).strip().lower()
        except EOFError:
            self.console.print()
            return "q"

    def _show_hunk(self, file: SourceFile, result: FileResult, diff: FileDiff, hunk: Hunk, encoding: str) -> None:
        view = self.notebooks.get(result.path)
        if hunk.cell is not None:
            self.console.print(Text(f"{result.path} [cell {hunk.cell}]", style="bold"))
        self.console.print(Text(hunk.header, style="cyan"))
        old = self._highlight(diff.old_side(hunk), encoding, view.before if view else None)
        new = self._highlight(diff.new_side(hunk), encoding, view.after if view else None)
        for tag, i1, i2, j1, j2 in hunk.opcodes:
            if tag == "equal":
                for line in old[i1 - hunk.old_start:i2 - hunk.old_start]:
                    self.console.print(Text(" ") + line, soft_wrap=True)
                continue
            for line in old[i1 - hunk.old_start:i2 - hunk.old_start]:
                self.console.print(Text("-", style="bold red") + line, style="on color(52)", soft_wrap=True)
            for line in new[j1 - hunk.new_start:j2 - hunk.new_start]:
                self.console.print(Text("+", style="bold green") + line, style="on color(22)", soft_wrap=True)
        for diagnostic in result.diagnostics:
            if _in_hunk(diagnostic, hunk):
                self.console.print(_diagnostic_line(diagnostic))
        if self.verifier is not None:
            for line in self.verifier.lines(result, hunk):
                self.console.print(line)

    def _highlight(self, lines: list[bytes], encoding: str, notebook: Extraction | None = None) -> list[Text]:
        shown = [_display(line, encoding) for line in lines]
        if notebook is not None:  # IPython lines as the cell has them, not their placeholders
            shown = [show_magics(notebook, line) for line in shown]
        text = "\n".join(shown)
        highlighted = self.syntax.highlight(text + "\n")
        return list(highlighted.split("\n", allow_blank=True))[: len(lines)]


def _write(file: SourceFile, combined: bytes, source: bytes) -> str:
    """Write ``combined`` over the file, unless it is no longer ``source`` (as the review read it)."""
    try:
        if read_source(file.path) != source:
            return "not written: the file changed on disk during the review"
        if is_read_only(file.path):
            return "not written: the file is read-only"
        write_atomic(file.path, combined)
    except OSError as error:
        return f"not written: {error.strerror or error}"
    return "written"


def _in_hunk(diagnostic: Diagnostic, hunk: Hunk) -> bool:
    if hunk.cell is not None:  # a notebook: the diagnostic's lines count within its cell
        if getattr(diagnostic, "cell", None) != hunk.cell:
            return False
        return diagnostic.line <= hunk.old_end - hunk.old_base and diagnostic.end_line >= hunk.old_start - hunk.old_base + 1
    return diagnostic.line <= hunk.old_end and diagnostic.end_line >= hunk.old_start + 1


def _diagnostic_line(diagnostic: Diagnostic) -> Text:
    severity = diagnostic.severity.value
    text = Text("  ")
    text.append(f"{diagnostic.code} {severity}", style=SEVERITY_STYLE.get(severity, ""))
    cell = getattr(diagnostic, "cell", None)
    text.append(f" {'' if cell is None else f'cell {cell}:'}{diagnostic.line}:{diagnostic.col} {diagnostic.message}")
    if diagnostic.use_instead:
        text.append(f" (use instead: {diagnostic.use_instead})", style="dim")
    return text


def _encoding(source: bytes) -> str:
    try:
        return tokenize.detect_encoding(io.BytesIO(source).readline)[0]
    except (SyntaxError, LookupError):
        return "utf-8"


def _display(line: bytes, encoding: str) -> str:
    return line.rstrip(b"\r\n").decode(encoding, errors="replace").replace("\x1b", "\\x1b")


def _newline_of(data: bytes) -> bytes:
    for newline in (b"\r\n", b"\n", b"\r"):
        if newline in data:
            return newline
    return b"\n"


class Verdicts:
    """``--verify``: the ``np2jax check`` verdict of every function a hunk touches.

    Each changed file is checked once, before the review starts: the original run with
    NumPy against the full migration, so a verdict says whether the function as
    migrated (all of its hunks applied) computes what it computed before.
    """

    STYLE = {"equivalent": "green", "mismatch": "bold red", "error": "red", "skipped": "dim"}

    def __init__(self, records: list) -> None:
        self.records = {(r.path, r.qualname): r for r in records}
        self.spans: dict[str, FunctionSpans] = {}

    @classmethod
    def run(cls, console: Console, files: list[SourceFile], results: list[FileResult], options: dict) -> Verdicts:
        changed = [(f, r.source, r.output) for f, r in zip(files, results) if r.status == "changed"]
        if changed:
            console.print(f"Checking the migration of {len(changed)} file(s) with np2jax check ...", markup=False)
        records, notes = check_versions(changed, **options)
        for note in notes:
            console.print(f"check: {note}", markup=False)
        return cls(records)

    def lines(self, result: FileResult, hunk: Hunk) -> list[Text]:
        spans = self.spans.get(result.path)
        if spans is None:
            spans = self.spans[result.path] = FunctionSpans(result.functions, result.source)
        out = []
        for name in spans.touched_by(hunk):
            if name == MODULE:
                continue
            record = self.records.get((result.path, name))
            text = Text(f"  check {name}: ")
            if record is None:
                text.append("not checked", style="dim")
            else:
                text.append(record.status, style=self.STYLE.get(record.status, ""))
                details = [f"{record.inputs_tried} input(s)"]
                if record.max_abs_err is not None:
                    details.append(f"max abs err {record.max_abs_err:.3g}")
                if record.message and record.status != "equivalent":
                    details.append(record.message)
                text.append(f" ({'; '.join(details)})")
            out.append(text)
        return out


def print_summary(console: Console, reviews: list[FileReview]) -> None:
    if not reviews:
        return
    console.rule(Text("Summary", style="bold"))
    for review in reviews:
        if review.outcome == "not reviewed":
            console.print(f"{review.path}: not reviewed", markup=False)
            continue
        edited = f" ({len(review.edited)} edited)" if review.edited else ""
        console.print(
            f"{review.path}: {len(review.accepted)} of {review.hunks} hunk(s) accepted{edited}, "
            f"{review.hunks - len(review.accepted)} rejected; {review.outcome}",
            markup=False,
        )


def make_console(color: str) -> Console:
    if color == "never" or (color == "auto" and os.environ.get("NO_COLOR")):
        return Console(color_system=None, highlight=False, emoji=False, soft_wrap=True)
    # soft_wrap: long lines are left to the terminal to wrap, so they stay whole when copied
    return Console(force_terminal=True if color == "always" else None, highlight=False, emoji=False, soft_wrap=True)


def stdin_is_terminal() -> bool:
    try:
        return sys.stdin is not None and sys.stdin.isatty()
    except (ValueError, OSError):
        return False


def run_review(args) -> int:
    """The ``np2jax review`` command; returns the exit status."""
    if not stdin_is_terminal():
        print(NOT_A_TERMINAL, file=sys.stderr)
        return EXIT_USAGE
    migrated = migrate_configured(args)
    console = make_console(args.color)
    for path, reason in migrated.walk_problems:
        print(f"{path}: error: {reason}", file=sys.stderr)
    for note in migrated.notes:
        print(note, file=sys.stderr)
    files, results = migrated.files, migrated.results
    for result in results:
        if result.status == "error":
            print(f"{result.path}: error: {result.error}", file=sys.stderr)
    verifier = Verdicts.run(console, files, results, check_options(migrated.config)) if args.verify else None
    reviewer = Reviewer(console, verifier)
    try:
        reviews = reviewer.review_all(files, results)
    finally:
        sys.stdout.flush()
    print_summary(console, reviews)
    failed = migrated.walk_problems or any(r.status == "error" for r in results)
    failed = failed or any(r.outcome.startswith("not written") for r in reviews)
    return EXIT_FAILED if failed else EXIT_OK
