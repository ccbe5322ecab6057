"""Jupyter notebooks (nbformat 4) as one Python module, and back.

The code cells, in order, become one module so that names defined in one cell
are known in the next.  Between two cells stands a marker comment line; IPython
syntax (``%magic``, ``%%cell magic`` cells, ``!shell``, ``name?`` help, ``x = !cmd``)
is replaced line for line by a ``pass`` placeholder that carries its number, so
every line of the module is the same line of the same cell.  After migration the
module is split at the markers and the placeholders are put back exactly; if a
marker or a placeholder is missing or out of place, the notebook is an error
rather than a guess.

Only the ``source`` of changed code cells is replaced.  The JSON is written with
the formatting it was read with (indent, separators, ``ensure_ascii``, trailing
newline, key order), so an unchanged cell, output or metadata keeps its bytes.
"""

from __future__ import annotations

import ast
import json
import re
import sys
from dataclasses import dataclass, field, fields

from np2jax.diagnostics import Diagnostic
from np2jax.engine import FileResult, FunctionRecord

_CELL_MARKER = "# np2jax-cell-{}\n"
_MAGIC_PLACEHOLDER = "pass  # np2jax-magic-{}"
_MARKER_TEXT = ("np2jax-cell-", "np2jax-magic-")
_CELL_MARKER_LINE = re.compile(r"^# np2jax-cell-(\d+)\n", re.M)
_PLACEHOLDER_LINE = re.compile(r"^[ \t]*pass  # np2jax-magic-(\d+)(?=\r?$)", re.M)
_ERROR_LINE = re.compile(r"\bat line (\d+)")  # in the engine's one-line error messages
_SHELL_ASSIGNMENT = re.compile(r"[ \t]*[A-Za-z_][\w.]*(?:[ \t]*,[ \t]*[A-Za-z_][\w.]*)*[ \t]*=[ \t]*[%!]")


class NotebookError(Exception):
    """The file is not a notebook np2jax can read; the message is one line for users."""


@dataclass(frozen=True)
class CellDiagnostic(Diagnostic):
    """A diagnostic in a notebook: ``line``/``end_line`` count lines within cell number ``cell``."""

    cell: int = 0

    def format(self) -> str:  # `nb.ipynb:cell 3:5:1: ...`, as ruff writes notebook positions
        return f"{self.path}:cell {self.cell}:" + super().format()[len(self.path) + 1 :]


@dataclass
class CellFunctionRecord(FunctionRecord):
    cell: int = 0


@dataclass(frozen=True)
class CellChange:
    cell: int  # 1-based position among all the notebook's cells
    before: str
    after: str


@dataclass
class NotebookResult(FileResult):
    """A notebook's result: ``source``/``output`` are the notebook's bytes, ``changes`` its changed cells."""

    changes: list[CellChange] = field(default_factory=list)


@dataclass(frozen=True)
class _JsonStyle:
    indent: int | str | None
    separators: tuple[str, str]
    ensure_ascii: bool
    trailer: str  # what follows the JSON value: usually "\n"
    bom: bool
    newline: str = "\n"  # "\r\n" for a notebook saved with Windows line ends

    def dump(self, data: object) -> bytes:
        text = json.dumps(data, indent=self.indent, separators=self.separators, ensure_ascii=self.ensure_ascii)
        text = text.replace("\n", self.newline)  # JSON strings hold no raw newline: only layout changes
        return ("\ufeff" if self.bom else "").encode() + (text + self.trailer).encode()


@dataclass
class _Cell:
    position: int  # index in the notebook's cells
    text: str  # the cell's source joined
    as_list: bool  # `source` was a list of lines
    newline_added: bool = False  # the module has a newline the cell's last line lacks


@dataclass
class Extraction:
    """A notebook read and turned into one Python module."""

    data: dict
    style: _JsonStyle | None  # None: the file's formatting cannot be reproduced
    cells: list[_Cell]
    module: bytes  # the code cells as one module, UTF-8
    origin: list[tuple[int, int]]  # module line - 1 -> (cell number, line in cell), 1-based
    magics: list[tuple[int, str]]  # placeholder number -> (cell position, the original line without its end)
    language: str | None  # the kernel's language when it is not Python (then nothing is migrated)


def extract(raw: bytes) -> Extraction:
    """Read a notebook; raise NotebookError with a one-line reason for anything else."""
    bom = raw.startswith(b"\xef\xbb\xbf")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise NotebookError(f"not valid UTF-8 (byte {error.start}): not a notebook")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise NotebookError(f"not valid JSON ({error.msg} at line {error.lineno}, column {error.colno}): not a notebook")
    except RecursionError:
        raise NotebookError("JSON nested too deeply: not a notebook")
    cells = _code_cells(data)
    language = _language(data)
    module, origin, magics = _module(cells) if language is None else ("", [], [])
    return Extraction(data, _detect_style(raw, text, data, bom), cells, module.encode(), origin, magics, language)


def _code_cells(data: object) -> list[_Cell]:
    if not isinstance(data, dict):
        raise NotebookError("not a notebook (the JSON is not an object)")
    version = data.get("nbformat")
    if version != 4:
        found = "no nbformat field" if version is None else f"nbformat {version!r}"
        raise NotebookError(f"not an nbformat 4 notebook ({found}); convert it with `jupyter nbconvert --to notebook`")
    cells = data.get("cells")
    if not isinstance(cells, list):
        raise NotebookError("not a valid notebook: 'cells' is not a list")
    code = []
    for position, cell in enumerate(cells):
        if not isinstance(cell, dict) or not isinstance(cell.get("cell_type"), str):
            raise NotebookError(f"not a valid notebook: cell {position + 1} has no cell_type")
        if cell["cell_type"] != "code":
            continue
        source = cell.get("source")
        if isinstance(source, str):
            text, as_list = source, False
        elif isinstance(source, list) and all(isinstance(line, str) for line in source):
            text, as_list = "".join(source), True
        else:
            raise NotebookError(f"not a valid notebook: cell {position + 1} has no source text")
        if any(marker in text for marker in _MARKER_TEXT):
            raise NotebookError(f"cell {position + 1} contains np2jax's own marker text ({_MARKER_TEXT[0]}...)")
        code.append(_Cell(position, text, as_list))
    return code


def _language(data: dict) -> str | None:
    """The kernel's language if the notebook says it is not Python."""
    metadata = data.get("metadata") if isinstance(data.get("metadata"), dict) else {}
    for table, key in (("kernelspec", "language"), ("language_info", "name")):
        value = metadata.get(table, {}).get(key) if isinstance(metadata.get(table), dict) else None
        if isinstance(value, str) and value:
            return None if value.lower() == "python" else value
    return None


def _module(cells: list[_Cell]) -> tuple[str, list[tuple[int, int]], list[tuple[int, str]]]:
    parts: list[str] = []
    origin: list[tuple[int, int]] = []
    magics: list[tuple[int, str]] = []
    for index, cell in enumerate(cells):
        number = cell.position + 1
        if index:
            parts.append(_CELL_MARKER.format(cell.position))
            origin.append((number, 1))
        lines = _lines(cell.text)
        is_magic = _magic_lines(lines)
        python_lines = []
        for line_number, (line, magic) in enumerate(zip(lines, is_magic), 1):
            if magic:
                body = line.rstrip("\r\n")
                indent = "" if all(is_magic) else body[: len(body) - len(body.lstrip())]
                line = indent + _MAGIC_PLACEHOLDER.format(len(magics)) + line[len(body):]
                magics.append((cell.position, body))
            python_lines.append(line)
            origin.append((number, line_number))
        _check_cell(python_lines, number)
        parts.extend(python_lines)
        if cell.text and not cell.text.endswith("\n"):
            parts.append("\n")
            cell.newline_added = True
    return "".join(parts), origin, magics


def _check_cell(lines: list[str], number: int) -> None:
    """Each cell must be Python on its own (as IPython runs it): a statement never spans two cells."""
    try:
        compile("".join(lines), f"cell {number}", "exec", flags=ast.PyCF_ONLY_AST | ast.PyCF_ALLOW_TOP_LEVEL_AWAIT,
                dont_inherit=True)
    except SyntaxError as error:
        message = (error.msg or "invalid syntax").split("\n")[0]
        where = f" at line {error.lineno}" + (f", column {error.offset}" if error.offset else "") if error.lineno else ""
        raise NotebookError(f"syntax error in cell {number}{where}: {message} (as Python {_PYTHON} parses it)")
    except (ValueError, RecursionError, MemoryError) as error:
        raise NotebookError(f"cannot compile cell {number}: {error or type(error).__name__}")


_PYTHON = ".".join(map(str, sys.version_info[:2]))


def _lines(text: str) -> list[str]:
    """Lines with their ends; only ``\\n`` ends a line, as in nbformat's list form."""
    lines = text.split("\n")
    result = [line + "\n" for line in lines[:-1]]
    return result + [lines[-1]] if lines[-1] else result


def _magic_lines(lines: list[str]) -> list[bool]:
    """Which lines are IPython syntax rather than Python (only at the start of a statement)."""
    first = next((line for line in lines if line.strip()), "")
    if first.lstrip().startswith("%%"):
        return [True] * len(lines)  # a cell magic: the whole cell is its input
    flags = []
    scanner = _Scanner()
    continued_magic = False
    for line in lines:
        if continued_magic:
            flags.append(True)
            continued_magic = line.rstrip("\r\n").endswith("\\")
            continue
        at_statement_start = scanner.at_statement_start()
        code_end = scanner.feed(line)
        stripped = line.strip()
        magic = at_statement_start and bool(stripped) and (
            stripped[0] in "%!?" or code_end == "?" or _SHELL_ASSIGNMENT.match(line) is not None
        )
        if magic:
            scanner.restore()
            continued_magic = line.rstrip("\r\n").endswith("\\")
        flags.append(magic)
    return flags


class _Scanner:
    """Just enough of Python's lexer to know whether a line starts a statement:
    open brackets, open strings and backslash continuations carry a statement on."""

    def __init__(self) -> None:
        self.depth = 0
        self.string: str | None = None  # the open string's closing quote
        self.continued = False
        self._saved = (0, None, False)

    def at_statement_start(self) -> bool:
        return self.depth == 0 and self.string is None and not self.continued

    def restore(self) -> None:
        """Forget the last line fed (it was not Python)."""
        self.depth, self.string, self.continued = self._saved

    def feed(self, line: str) -> str:
        """Scan one line; return its last character of code outside strings and comments."""
        self._saved = (self.depth, self.string, self.continued)
        body = line.rstrip("\r\n")
        last, i, comment = "", 0, False
        while i < len(body):
            char = body[i]
            if self.string is not None:
                if char == "\\":
                    i += 2
                    continue
                if body.startswith(self.string, i):
                    i += len(self.string)
                    self.string = None
                    last = char
                    continue
                i += 1
                continue
            if char == "#":
                comment = True
                break
            if char in "'\"":
                self.string = char * 3 if body.startswith(char * 3, i) else char
                i += len(self.string)
                continue
            if char in "([{":
                self.depth += 1
            elif char in ")]}":
                self.depth = max(0, self.depth - 1)
            if not char.isspace():
                last = char
            i += 1
        self.continued = not comment and body.endswith("\\") and (self.string is None or len(self.string) == 1)
        if self.string is not None and len(self.string) == 1 and not self.continued:
            self.string = None  # an unterminated one-line string: Python reports it
        return last


def rebuild(extraction: Extraction, raw: bytes, result: FileResult) -> tuple[FileResult, list[str]]:
    """The notebook's result from the module's result, and notes for the user."""
    if result.status == "error":
        failed = _notebook_result(result, raw, raw)
        failed.error = _ERROR_LINE.sub(lambda m: "in cell {} at line {}".format(*locate(extraction.origin, int(m[1]))), failed.error or "")
        return failed, []
    notes: list[str] = []
    changes: list[CellChange] = []
    if result.status == "changed":
        try:
            texts = _split(extraction, result.output.decode("utf-8"))
        except NotebookError as error:
            failed = FileResult(result.path, "error", raw, raw, error=str(error))
            return _notebook_result(failed, raw, raw), []
        for cell, text in zip(extraction.cells, texts):
            if text != cell.text:
                changes.append(CellChange(cell.position + 1, cell.text, text))
                extraction.data["cells"][cell.position]["source"] = _lines(text) if cell.as_list else text
        style = extraction.style
        if style is None:
            notes.append("the notebook's JSON formatting could not be reproduced exactly; it is written as nbformat writes it")
            style = _JsonStyle(1, (",", ": "), False, "\n", raw.startswith(b"\xef\xbb\xbf"))
        output = style.dump(extraction.data)
    else:
        output = raw
    mapped = _notebook_result(result, raw, output)
    mapped.status = "changed" if changes else "unchanged"
    mapped.changes = changes
    mapped.diagnostics = [_map_diagnostic(d, extraction.origin) for d in result.diagnostics]
    mapped.functions = [_map_function(f, extraction.origin) for f in result.functions]
    return mapped, notes


def _notebook_result(result: FileResult, source: bytes, output: bytes) -> NotebookResult:
    return NotebookResult(
        result.path, result.status, source, output, result.error, list(result.diagnostics), list(result.functions)
    )


def _split(extraction: Extraction, module: str) -> list[str]:
    """The cells' new texts, magics restored; NotebookError if the structure did not survive."""
    expected = [cell.position for cell in extraction.cells[1:]]
    found = [int(match[1]) for match in _CELL_MARKER_LINE.finditer(module)]
    if found != expected:
        raise NotebookError("the migration moved a cell boundary; notebook left unchanged")
    pieces = _CELL_MARKER_LINE.split(module)[::2]  # the groups (cell numbers) stand between the pieces
    texts = []
    next_magic = 0
    for cell, piece in zip(extraction.cells, pieces):
        def restore(match: re.Match) -> str:
            nonlocal next_magic
            number = int(match[1])
            if number != next_magic or extraction.magics[number][0] != cell.position:
                raise NotebookError("the migration moved an IPython line; notebook left unchanged")
            next_magic += 1
            return extraction.magics[number][1]

        piece = _PLACEHOLDER_LINE.sub(restore, piece)
        if cell.newline_added:
            if not piece.endswith("\n"):
                raise NotebookError("the migration changed the end of a cell; notebook left unchanged")
            piece = piece[:-1]
        texts.append(piece)
    if next_magic != len(extraction.magics):
        raise NotebookError("the migration removed an IPython line; notebook left unchanged")
    return texts


def locate(origin: list[tuple[int, int]], line: int) -> tuple[int, int]:
    """(cell number, line in cell) of a 1-based module line."""
    if not origin:
        return 0, line
    return origin[min(max(line, 1), len(origin)) - 1]


def _map_diagnostic(diagnostic: Diagnostic, origin: list[tuple[int, int]]) -> CellDiagnostic:
    return CellDiagnostic(**_in_cell(diagnostic, origin))


def _map_function(record: FunctionRecord, origin: list[tuple[int, int]]) -> CellFunctionRecord:
    return CellFunctionRecord(**_in_cell(record, origin))


def _in_cell(item, origin: list[tuple[int, int]]) -> dict:
    """The fields of a diagnostic or function record with lines counted within its cell."""
    values = {f.name: getattr(item, f.name) for f in fields(item)}
    cell, line = locate(origin, item.line)
    end_cell, end_line = locate(origin, item.end_line)
    values.update(line=line, end_line=end_line if end_cell == cell else line, cell=cell)
    return values


def _detect_style(raw: bytes, text: str, data: object, bom: bool) -> _JsonStyle | None:
    """The json.dumps settings that reproduce the file (``raw``, decoded: ``text``) exactly, if any."""
    body = text.rstrip()
    trailer = text[len(body):]
    newline = "\r\n" if "\r\n" in body else "\n"
    lines = body.split(newline, 2)
    if len(lines) > 1:
        second = lines[1]
        whitespace = second[: len(second) - len(second.lstrip())]
        indent: int | str | None = len(whitespace) if whitespace.strip(" ") == "" else whitespace
        separator_choices = ((",", ": "), (", ", ": "))
    else:
        indent = None
        separator_choices = ((", ", ": "), (",", ":"))
    for ensure_ascii in (False, True):
        for separators in separator_choices:
            style = _JsonStyle(indent, separators, ensure_ascii, trailer, bom, newline)
            if style.dump(data) == raw:
                return style
    return None


# --- for `np2jax review`: a notebook's module edited line by line, and written back ------------------


def cell_regions(extraction: Extraction, module: bytes) -> list[tuple[int, int, int]]:
    """(cell number, first line, end line) of each code cell in ``module`` (0-based line indices, markers excluded).

    ``module`` is this notebook's module or any version of it that kept the cell markers.
    """
    lines = module.decode("utf-8").split("\n")
    starts = [0] + [index + 1 for index, line in enumerate(lines) if _CELL_MARKER_LINE.match(line + "\n")]
    count = len(module.decode("utf-8").splitlines(keepends=True))
    if len(starts) != len(extraction.cells):
        raise NotebookError("the cell markers of the notebook's module do not match its cells")
    regions = []
    for index, (cell, start) in enumerate(zip(extraction.cells, starts)):
        end = starts[index + 1] - 1 if index + 1 < len(starts) else count
        regions.append((cell.position + 1, start, end))
    return regions


def show_magics(extraction: Extraction, line: str) -> str:
    """A module line as the cell has it: a magic placeholder becomes the IPython line it stands for."""
    match = _PLACEHOLDER_LINE.match(line)
    if match is None or int(match[1]) >= len(extraction.magics):
        return line
    return extraction.magics[int(match[1])][1] + line[match.end():]


def module_line(origin: list[tuple[int, int]], cell: int, line: int) -> int:
    """The 1-based module line of ``line`` in cell ``cell`` (the inverse of ``locate``)."""
    for index in range(len(origin) - 1, -1, -1):
        if origin[index] == (cell, line) and (index + 1 == len(origin) or origin[index + 1] != (cell, line)):
            return index + 1
    return line


def write_module(extraction: Extraction, raw: bytes, module: str) -> bytes:
    """The notebook ``raw`` (read as ``extraction``) with its code cells taken from ``module``.

    Magic placeholders are put back and the JSON is written with the notebook's own
    formatting, as ``migrate`` writes it; NotebookError if the module lost its structure.
    """
    data = json.loads(json.dumps(extraction.data))  # a copy: the extraction stays as read
    for cell, text in zip(extraction.cells, _split(extraction, module)):
        if text != cell.text:
            data["cells"][cell.position]["source"] = _lines(text) if cell.as_list else text
    style = extraction.style or _JsonStyle(1, (",", ": "), False, "\n", raw.startswith(b"\xef\xbb\xbf"))
    return style.dump(data)
