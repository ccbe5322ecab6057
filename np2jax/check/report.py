"""The result of a check run: records, JSON report v1, JUnit XML, the terminal table."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
from xml.etree import ElementTree

from np2jax.files import write_atomic

VERSION = 1
STATUSES = ("equivalent", "mismatch", "error", "skipped")


@dataclass
class FunctionCheck:
    """One function's verdict. ``inputs_tried``: inputs run on both sides and compared."""

    path: str
    qualname: str
    status: str  # equivalent | mismatch | error | skipped
    inputs_tried: int = 0
    max_abs_err: float | None = None
    message: str = ""
    max_rel_err: float | None = None
    first_diff_index: list[int] | None = None
    first_diff_input: int | None = None  # 1-based
    jitted: bool | None = None
    inputs_accepted: int = 0
    candidates_tried: int = 0
    input_sources: list[str] = field(default_factory=list)
    original_ran: bool = False
    unchanged: bool = False
    jax_callers: bool = False  # unchanged, and rewritten functions of its module call it: also run on JAX arrays
    line: int | None = None  # in a notebook: the line within cell ``cell``
    seconds: float = 0.0
    cell: int | None = None  # a notebook's cell number (1-based, among all its cells)

    @property
    def failed(self) -> bool:
        """Counts against the exit status: a mismatch, or an error where the original ran."""
        return self.status == "mismatch" or (self.status == "error" and self.original_ran)

    def to_json(self) -> dict:
        data = asdict(self)
        data["seconds"] = round(self.seconds, 3)
        return data


@dataclass
class CheckReport:
    functions: list[FunctionCheck] = field(default_factory=list)
    device: str | None = None
    x64: bool = False
    seconds: float = 0.0
    notes: list[str] = field(default_factory=list)  # file-level remarks (missing twins, unreadable files)

    @property
    def failed(self) -> bool:
        return any(f.failed for f in self.functions)

    def counts(self) -> Counter:
        return Counter(f.status for f in self.functions)

    def to_json(self) -> dict:
        """The `np2jax check --report` document, version 1 (extra fields are additions)."""
        return {
            "version": VERSION,
            "device": self.device or "cpu:0",
            "x64": self.x64,
            "functions": [f.to_json() for f in self.functions],
            "summary": {status: self.counts()[status] for status in STATUSES},
            "notes": list(self.notes),
        }

    def summary_line(self) -> str:
        counts = self.counts()
        parts = ", ".join(f"{counts[s]} {s}" for s in STATUSES)
        return f"{len(self.functions)} function(s) checked: {parts} ({self.seconds:.1f} s, device {self.device or '?'})"


def write_report(path: str | Path, report: CheckReport) -> None:
    write_atomic(Path(path), (json.dumps(report.to_json(), indent=2) + "\n").encode())


def junit_xml(report: CheckReport) -> bytes:
    """One <testcase> per function: mismatch -> failure, error -> error, skipped -> skipped."""
    counts = report.counts()
    suite = ElementTree.Element("testsuite", {
        "name": "np2jax.check", "tests": str(len(report.functions)), "failures": str(counts["mismatch"]),
        "errors": str(counts["error"]), "skipped": str(counts["skipped"]), "time": f"{report.seconds:.3f}",
    })
    for record in report.functions:
        case = ElementTree.SubElement(suite, "testcase", {
            "classname": record.path, "name": record.qualname, "time": f"{record.seconds:.3f}",
        })
        if record.status == "mismatch":
            ElementTree.SubElement(case, "failure", {"message": record.message, "type": "mismatch"}).text = record.message
        elif record.status == "error":
            ElementTree.SubElement(case, "error", {"message": record.message, "type": "error"}).text = record.message
        elif record.status == "skipped":
            ElementTree.SubElement(case, "skipped", {"message": record.message})
    root = ElementTree.Element("testsuites")
    root.append(suite)
    return ElementTree.tostring(root, encoding="utf-8", xml_declaration=True) + b"\n"


def write_junit(path: str | Path, report: CheckReport) -> None:
    write_atomic(Path(path), junit_xml(report))


STYLE = {"equivalent": "green", "mismatch": "bold red", "error": "red", "skipped": "yellow"}


def render_table(report: CheckReport, console) -> None:
    """The rich table on the terminal: function, status, inputs, max error, jit, message."""
    from rich.table import Table

    table = Table(show_lines=False, header_style="bold")
    for column in ("function", "status", "inputs", "max abs err", "jit", "message"):
        table.add_column(column, overflow="fold")
    for record in report.functions:
        error = "" if record.max_abs_err is None else f"{record.max_abs_err:.2g}"
        jit = "" if record.jitted is None else ("yes" if record.jitted else "no")
        table.add_row(f"{record.path}::{record.qualname}", f"[{STYLE[record.status]}]{record.status}[/]",
                      str(record.inputs_tried), error, jit, record.message)
    console.print(table)
