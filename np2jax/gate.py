"""``np2jax gate``: the CI job that stops a migration in progress from going backwards.

The gate migrates (without writing) every file and turns what is left to do into
*findings*: each diagnostic, each function that ``migrate`` would still change
(``pending-migration``) and each file that cannot be processed (``file-error``).
A committed baseline records the findings of an accepted state; the gate fails
when a finding appears that the baseline does not have, and passes, asking for
``--update-baseline``, when findings only disappeared (a ratchet).

Findings are identified by path, code and a *fingerprint* that does not depend on
line numbers: the code, the enclosing function's qualified name, the flagged
source text without white space, and which occurrence of that it is.
Editing code above a finding, or elsewhere in the same function, leaves it alone.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from collections import Counter
from dataclasses import replace
from pathlib import Path

from np2jax import __version__
from np2jax.configured import check_options, migrate_configured
from np2jax.engine import FileResult
from np2jax.files import SourceFile, UsageError, write_atomic
from np2jax.findings import FILE_ERROR, PENDING, Finding, GateOutcome, relative_key
from np2jax.formats import FORMATS, render, summary
from np2jax.hunks import MODULE, FunctionSpans, split_hunks
from np2jax.notebook import NotebookResult
from np2jax.reference import Reference, check_against
from np2jax.ui.diff import decode, source_lines

BASELINE_VERSION = 1

# -- findings -------------------------------------------------------------------------------


def findings_for(file: SourceFile, result: FileResult) -> list[Finding]:
    """Every finding of one migrated file, fingerprinted."""
    if result.status == "error":
        return [_finding(file, result.path, FILE_ERROR, "error", result.error or "cannot be processed",
                         (1, 1, 1, 1), MODULE, FILE_ERROR, 0)]
    if isinstance(result, NotebookResult):
        return _notebook_findings(file, result)
    lines = split_lines_text(result.source)
    spans = FunctionSpans(result.functions, result.source)
    occurrences: Counter = Counter()
    findings = []
    for diagnostic in result.diagnostics:
        qualname = spans.enclosing(diagnostic.line)
        basis = f"{diagnostic.code}\0{qualname}\0{_span_text(lines, diagnostic)}"
        findings.append(_finding(
            file, result.path, diagnostic.code, diagnostic.severity.value, diagnostic.message,
            (diagnostic.line, diagnostic.col, diagnostic.end_line, diagnostic.end_col), qualname, basis,
            _next(occurrences, basis),
        ))
    if result.status == "changed":
        for qualname, first, last in _pending_functions(result):
            basis = f"{PENDING}\0{qualname}"
            where = "this module's top level" if qualname == MODULE else f"`{qualname}`"
            findings.append(_finding(
                file, result.path, PENDING, "warning", f"`np2jax migrate` would still change {where}",
                (first, 1, last, len(lines[last - 1]) + 1 if last <= len(lines) else 1), qualname, basis,
                _next(occurrences, basis),
            ))
    return findings


def _notebook_findings(file: SourceFile, result: NotebookResult) -> list[Finding]:
    """A notebook's findings: lines count within cells, so each is placed at the file's
    first line and its message says the cell and the line."""
    cells = _cell_texts(result.source)
    occurrences: Counter = Counter()
    findings = []
    for diagnostic in result.diagnostics:
        cell = getattr(diagnostic, "cell", 0)
        text = cells.get(cell, "")
        spans = FunctionSpans([f for f in result.functions if getattr(f, "cell", None) == cell], text.encode())
        qualname = spans.enclosing(diagnostic.line)
        lines = [line.rstrip("\r\n") for line in source_lines(text)]
        basis = f"{diagnostic.code}\0{qualname}\0{_span_text(lines, diagnostic)}"
        findings.append(_finding(
            file, result.path, diagnostic.code, diagnostic.severity.value,
            f"cell {cell}, line {diagnostic.line}: {diagnostic.message}", (1, 1, 1, 1), qualname, basis,
            _next(occurrences, basis),
        ))
    for change in result.changes:
        before, after = change.before.encode(), change.after.encode()
        spans = FunctionSpans([f for f in result.functions if getattr(f, "cell", None) == change.cell], before)
        touched: set[str] = set()
        for hunk in split_hunks(before, after).hunks:
            touched.update(spans.touched_by(hunk))
        for name in sorted(touched - {MODULE}) or [MODULE]:
            where = f"`{name}` in cell {change.cell}" if name != MODULE else f"cell {change.cell}"
            basis = f"{PENDING}\0{name}"
            findings.append(_finding(file, result.path, PENDING, "warning", f"`np2jax migrate` would still change {where}",
                                     (1, 1, 1, 1), name, basis, _next(occurrences, basis)))
    return findings


def _cell_texts(notebook: bytes) -> dict[int, str]:
    """1-based cell number -> the cell's source."""
    try:
        cells = json.loads(decode(notebook)).get("cells", [])
    except (ValueError, AttributeError):
        return {}
    texts = {}
    for number, cell in enumerate(cells, start=1):
        source = cell.get("source", "") if isinstance(cell, dict) else ""
        texts[number] = "".join(source) if isinstance(source, list) else str(source)
    return texts


def _finding(file, path, code, severity, message, region, qualname, basis, occurrence) -> Finding:
    digest = hashlib.sha256(f"{basis}\0{occurrence}".encode("utf-8", "surrogatepass")).hexdigest()[:20]
    return Finding(path, Path(file.path), code, severity, message, *region, qualname, digest)


def _next(counter: Counter, basis: str) -> int:
    counter[basis] += 1
    return counter[basis] - 1


def split_lines_text(source: bytes) -> list[str]:
    return [line.rstrip("\r\n") for line in source_lines(decode(source))]


def _span_text(lines: list[str], diagnostic) -> str:
    """The flagged source text without white space (so re-indenting or re-spacing does not change it)."""
    chunk = lines[diagnostic.line - 1:diagnostic.end_line]
    if not chunk:
        return ""
    if len(chunk) == 1:
        chunk = [chunk[0][diagnostic.col - 1:diagnostic.end_col - 1]]
    else:
        chunk[0] = chunk[0][diagnostic.col - 1:]
        chunk[-1] = chunk[-1][:diagnostic.end_col - 1]
    return "".join("".join(chunk).split())


def _pending_functions(result: FileResult) -> list[tuple[str, int, int]]:
    """(qualname, first, last changed original line) of every function the migration changes.

    Changes at the top level count as ``<module>`` unless they are only the imports
    that the functions' changes need.
    """
    spans = FunctionSpans(result.functions, result.source)
    touched: dict[str, list[int]] = {}
    for hunk in split_hunks(result.source, result.output).hunks:
        for name, lines in spans.touched_by(hunk).items():
            touched.setdefault(name, []).extend(lines)
    module_lines = touched.pop(MODULE, [])
    if module_lines and (not touched or not set(module_lines) <= spans.import_lines()):
        touched[MODULE] = module_lines
    return sorted(((name, min(lines), max(lines)) for name, lines in touched.items()), key=lambda t: (t[1], t[0]))


# -- the baseline ---------------------------------------------------------------------------


def read_baseline(path: str) -> list[dict]:
    try:
        with open(path, "rb") as handle:
            data = json.load(handle)
    except FileNotFoundError:
        raise UsageError(f"--baseline {path}: no such file; create it with --update-baseline")
    except IsADirectoryError:
        raise UsageError(f"--baseline {path}: is a directory")
    except OSError as error:
        raise UsageError(f"--baseline {path}: cannot read: {error.strerror or error}")
    except (ValueError, UnicodeDecodeError) as error:
        raise UsageError(f"--baseline {path}: not a JSON baseline ({error})")
    if not isinstance(data, dict) or data.get("version") != BASELINE_VERSION or not isinstance(data.get("findings"), list):
        raise UsageError(f"--baseline {path}: not a version {BASELINE_VERSION} np2jax baseline")
    entries = data["findings"]
    if not all(isinstance(e, dict) and all(isinstance(e.get(k), str) for k in ("path", "code", "fingerprint")) for e in entries):
        raise UsageError(f"--baseline {path}: each finding needs string path, code and fingerprint")
    return entries


def write_baseline(path: str, findings: list[Finding]) -> None:
    root = Path(path).parent
    entries = [
        {"path": relative_key(f.file, root), "code": f.code, "fingerprint": f.fingerprint,
         "qualname": f.qualname, "line": f.line, "message": f.message}
        for f in findings
    ]
    entries.sort(key=lambda e: (e["path"], e["line"], e["code"], e["fingerprint"]))
    data = {"version": BASELINE_VERSION, "tool": f"np2jax {__version__}", "findings": entries}
    write_atomic(Path(path), (json.dumps(data, indent=2, ensure_ascii=False) + "\n").encode())


def compare(findings: list[Finding], entries: list[dict], baseline: str, scanned: list[SourceFile],
            never_baselined=lambda finding: False) -> GateOutcome:
    """Mark each finding new or baselined; list the baseline entries that are gone.

    Entries of files this run did not look at are neither new nor gone, so the gate can
    run on a subset of the tree (pre-commit passes only the staged files).  A finding
    for which ``never_baselined`` is true (in a module the configuration lists as
    ``migrated``) is new even when the baseline records it.
    """
    root = Path(baseline).parent
    looked_at = {relative_key(Path(f.path), root) for f in scanned}
    remaining = Counter((e["path"], e["code"], e["fingerprint"]) for e in entries if e["path"] in looked_at)
    marked = []
    for finding in findings:
        key = finding.key(root)
        if remaining[key] > 0:
            remaining[key] -= 1
            marked.append(finding if never_baselined(finding) else replace(finding, state="baselined"))
        else:
            marked.append(finding)
    fixed = []
    for entry in entries:
        key = (entry["path"], entry["code"], entry["fingerprint"])
        if remaining[key] > 0:
            remaining[key] -= 1
            fixed.append(entry)
    return GateOutcome(marked, [f.display for f in scanned], baseline, fixed)


# -- the command ----------------------------------------------------------------------------

EXIT_PASS, EXIT_REGRESSION, EXIT_USAGE = 0, 1, 2


def run_gate(args) -> int:
    """The ``np2jax gate`` command; returns the exit status."""
    baseline, update_baseline, output = args.baseline, args.update_baseline, args.output
    if args.format not in FORMATS:
        raise UsageError(f"--format {args.format}: choose one of {', '.join(FORMATS)}")
    if update_baseline and not baseline:
        raise UsageError("--update-baseline needs --baseline FILE")
    for option, value in (("--baseline", baseline), ("--output", output)):
        if value and os.path.isdir(value):
            raise UsageError(f"{option} {value}: is a directory")
    entries = read_baseline(baseline) if baseline and not update_baseline else None
    versions = Reference(args.reference) if args.reference and not update_baseline else None
    migrated = migrate_configured(args)
    files, results, config = migrated.files, migrated.results, migrated.config
    for note in migrated.notes:
        print(note, file=sys.stderr)
    findings = [finding for file, result in zip(files, results) for finding in findings_for(file, result)]
    for path, reason in migrated.walk_problems:  # what cannot be looked at cannot pass silently
        findings.append(_finding(SourceFile(path, Path(path), Path(path)), path, FILE_ERROR, "error", reason,
                                 (1, 1, 1, 1), MODULE, FILE_ERROR, 0))
    if update_baseline:
        try:
            write_baseline(baseline, findings)
        except OSError as error:
            raise UsageError(f"--baseline {baseline}: cannot write: {error.strerror or error}")
        print(f"gate: wrote {len(findings)} finding(s) of {len(files)} file(s) to {baseline}", file=sys.stderr)
        return EXIT_PASS
    if entries is None:
        outcome = GateOutcome(findings, [f.display for f in files])
    else:
        outcome = compare(findings, entries, baseline, files, never_baselined=lambda f: config.is_migrated(f.file))
    if versions is not None:
        checks, notes = check_against(versions, files, args.jobs, **check_options(config))
        current_lines = {(r.path, f.qualname): f.line for r in results for f in r.functions}
        outcome.checks = [replace(c, line=current_lines.get((c.path, c.qualname), c.line)) for c in checks]
        for note in notes:
            print(f"gate: {note}", file=sys.stderr)
    emit(render(outcome, args.format), output)
    print(summary(outcome), file=sys.stderr)
    return EXIT_PASS if outcome.passed else EXIT_REGRESSION


def emit(text: str, output: str | None) -> None:
    if output is None:
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    try:
        write_atomic(Path(output), text.encode("utf-8", "surrogateescape"))
    except OSError as error:
        raise UsageError(f"--output {output}: cannot write: {error.strerror or error}")
