"""What ``np2jax gate`` prints: text, JSON, JUnit XML, SARIF 2.1.0 and GitHub annotations.

Each writer takes a ``GateOutcome`` and returns the whole output as a string.
Paths are written relative to the current folder (the repository root in CI),
with forward slashes.
"""

from __future__ import annotations

import json
import os
import re
import xml.etree.ElementTree as ElementTree
from pathlib import Path

from np2jax import __version__
from np2jax.codes import RULES
from np2jax.docs import render_rule
from np2jax.findings import GATE_RULES, REFERENCE_MISMATCH, Finding, GateOutcome

FORMATS = ("text", "json", "junit", "sarif", "github")
SARIF_SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
INFORMATION_URI = "https://pypi.org/project/np2jax/"
SARIF_LEVEL = {"error": "error", "warning": "warning", "info": "note"}
GITHUB_COMMAND = {"error": "error", "warning": "warning", "info": "notice"}
FINGERPRINT_KEY = "np2jax/v1"


def render(outcome: GateOutcome, output_format: str) -> str:
    return {
        "text": text, "json": to_json, "junit": junit, "sarif": lambda o: json.dumps(sarif(o), indent=2) + "\n",
        "github": github,
    }[output_format](outcome)


def uri(path: Path) -> str:
    """``path`` relative to the current folder with forward slashes; a file URI when it lies outside."""
    relative = os.path.relpath(os.path.abspath(path))
    if relative == os.pardir or relative.startswith(os.pardir + os.sep):
        return Path(os.path.abspath(path)).as_uri()
    return Path(relative).as_posix()


def summary(outcome: GateOutcome) -> str:
    """The one line that ends every gate run (on stderr)."""
    baselined = len(outcome.findings) - len(outcome.new)
    mismatches = outcome.failed_checks
    if outcome.baseline is None:
        where = "no baseline, so every finding counts"
    else:
        where = f"{baselined} in the baseline {outcome.baseline}"
    parts = []
    if outcome.new:
        parts.append(f"{len(outcome.new)} new finding(s) ({where})")
    if mismatches:
        parts.append(f"{len(mismatches)} function(s) differ from the reference")
    if parts:
        return f"gate: FAILED: {'; '.join(parts)}"
    line = f"gate: passed: {len(outcome.scanned)} file(s), no new findings ({where})"
    if outcome.checks:
        line += f"; {len(outcome.checks)} function(s) checked against the reference"
    if outcome.fixed:
        line += (f"; {len(outcome.fixed)} baselined finding(s) are gone: record the improvement with "
                 f"`np2jax gate ... --baseline {outcome.baseline} --update-baseline`")
    return line


# -- text and JSON --------------------------------------------------------------------------


def text(outcome: GateOutcome) -> str:
    lines = [f.format() for f in outcome.new]
    lines += [f"{c.path}: {c.qualname}: {c.status} against the reference: {c.message}" for c in outcome.failed_checks]
    lines += [f"fixed: {e['path']}: {e['code']} in {e.get('qualname', '?')} (was line {e.get('line', '?')})" for e in outcome.fixed]
    return "".join(line + "\n" for line in lines)


def to_json(outcome: GateOutcome) -> str:
    data = {
        "version": 1,
        "passed": outcome.passed,
        "baseline": outcome.baseline,
        "files": outcome.scanned,
        "findings": [
            {"path": f.path, "code": f.code, "severity": f.severity, "message": f.message, "line": f.line,
             "col": f.col, "end_line": f.end_line, "end_col": f.end_col, "qualname": f.qualname,
             "fingerprint": f.fingerprint, "state": f.state}
            for f in outcome.findings
        ],
        "fixed": outcome.fixed,
        "reference": [c.to_json() for c in outcome.checks],
    }
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


# -- JUnit ----------------------------------------------------------------------------------

_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def _xml_text(value: str) -> str:
    """XML 1.0 cannot hold most control characters (or lone surrogates) even escaped."""
    return _NOT_XML.sub(lambda m: f"\\x{ord(m.group()):02x}", value)


def junit(outcome: GateOutcome) -> str:
    """One test case per file (failing when it has new findings) and one per reference-checked function."""
    cases = []
    new_by_path: dict[str, list[Finding]] = {}
    for finding in outcome.new:
        new_by_path.setdefault(finding.path, []).append(finding)
    for path in outcome.scanned:
        failures = new_by_path.get(path, [])
        cases.append(("np2jax.gate", path, f"{len(failures)} new finding(s)" if failures else None,
                      "\n".join(f.format() for f in failures)))
    for check in outcome.checks:
        failed = check.failed
        cases.append(("np2jax.gate.reference", f"{check.path}::{check.qualname}",
                      f"{check.status} against the reference" if failed else None, check.message or ""))
    failures = sum(1 for case in cases if case[2])
    suites = ElementTree.Element("testsuites", name="np2jax gate", tests=str(len(cases)), failures=str(failures))
    suite = ElementTree.SubElement(suites, "testsuite", name="np2jax gate", tests=str(len(cases)),
                                   failures=str(failures), errors="0", skipped="0")
    for classname, name, failure, body in cases:
        case = ElementTree.SubElement(suite, "testcase", classname=classname, name=_xml_text(name))
        if failure:
            element = ElementTree.SubElement(case, "failure", message=_xml_text(failure), type="np2jax")
            element.text = _xml_text(body)
    ElementTree.indent(suites)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ElementTree.tostring(suites, encoding="unicode") + "\n"


# -- SARIF 2.1.0 ----------------------------------------------------------------------------


def sarif_rules() -> list[dict]:
    """Every NPJ rule and every finding kind of the gate's own, with help from the rule docs."""
    rules = []
    for rule in RULES:
        page = render_rule(rule)
        rules.append({
            "id": rule.CODE,
            "name": rule.NAME,
            "shortDescription": {"text": _first_sentence(rule.DOC.what)},
            "fullDescription": {"text": " ".join(rule.DOC.what.split())},
            "help": {"text": page, "markdown": page},
            "defaultConfiguration": {"level": SARIF_LEVEL[rule.SEVERITY.value]},
            "properties": {"fixSafety": rule.FIX_SAFETY.value},
        })
    for rule in GATE_RULES:
        page = f"# {rule.id}\n\n{rule.summary}\n\n{rule.help}\n"
        rules.append({
            "id": rule.id,
            "name": rule.name,
            "shortDescription": {"text": rule.summary},
            "fullDescription": {"text": f"{rule.summary} {rule.help}"},
            "help": {"text": page, "markdown": page},
            "defaultConfiguration": {"level": SARIF_LEVEL[rule.severity]},
        })
    return rules


def _first_sentence(paragraph: str) -> str:
    flat = " ".join(paragraph.split())
    end = flat.find(". ")
    return flat if end < 0 else flat[:end + 1]


def sarif(outcome: GateOutcome) -> dict:
    rules = sarif_rules()
    index = {rule["id"]: number for number, rule in enumerate(rules)}
    results = []
    for finding in outcome.findings:
        result = {
            "ruleId": finding.code,
            "ruleIndex": index.get(finding.code, -1),
            "level": SARIF_LEVEL.get(finding.severity, "warning"),
            "message": {"text": finding.message},
            "locations": [_location(finding.file, finding.line, finding.col, finding.end_line, finding.end_col)],
            "partialFingerprints": {FINGERPRINT_KEY: f"{finding.code}/{finding.fingerprint}"},
        }
        if result["ruleIndex"] < 0:
            del result["ruleIndex"]  # a code this version does not know (from a newer engine)
        if outcome.baseline is not None:
            result["baselineState"] = "new" if finding.state == "new" else "unchanged"
        results.append(result)
    for check in outcome.failed_checks:
        results.append({
            "ruleId": REFERENCE_MISMATCH,
            "ruleIndex": index[REFERENCE_MISMATCH],
            "level": "error",
            "message": {"text": f"`{check.qualname}` {check.status} against the reference: {check.message}"},
            "locations": [_location(Path(check.path), check.line or 1, 1, check.line or 1, 1)],
            "partialFingerprints": {FINGERPRINT_KEY: f"{REFERENCE_MISMATCH}/{check.qualname}"},
        })
    run = {
        "tool": {"driver": {
            "name": "np2jax",
            "version": __version__,
            "semanticVersion": __version__,
            "informationUri": INFORMATION_URI,
            "rules": rules,
        }},
        "originalUriBaseIds": {"%SRCROOT%": {"uri": Path(os.getcwd()).as_uri() + "/"}},
        "columnKind": "unicodeCodePoints",
        "results": results,
    }
    return {"$schema": SARIF_SCHEMA, "version": "2.1.0", "runs": [run]}


def _location(path: Path, line: int, col: int, end_line: int, end_col: int) -> dict:
    artifact = {"uri": uri(path)}
    if not artifact["uri"].startswith("file:"):
        artifact["uriBaseId"] = "%SRCROOT%"
    region = {"startLine": max(line, 1), "startColumn": max(col, 1), "endLine": max(end_line, line, 1)}
    if end_line > line or end_col > col:
        region["endColumn"] = max(end_col, 1)
    return {"physicalLocation": {"artifactLocation": artifact, "region": region}}


# -- GitHub Actions -------------------------------------------------------------------------


def _escape_data(value: str) -> str:
    return value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(value: str) -> str:
    return _escape_data(value).replace(":", "%3A").replace(",", "%2C")


def github(outcome: GateOutcome) -> str:
    """A workflow command per new finding (``::error``, ``::warning`` or ``::notice`` by severity)."""
    lines = []
    for finding in outcome.new:
        properties = {
            "file": uri(finding.file), "line": finding.line, "col": finding.col,
            "endLine": finding.end_line, "endColumn": finding.end_col, "title": finding.code,
        }
        lines.append(_command(GITHUB_COMMAND.get(finding.severity, "warning"), properties, finding.message))
    for check in outcome.failed_checks:
        properties = {"file": uri(Path(check.path)), "line": check.line or 1, "title": REFERENCE_MISMATCH}
        lines.append(_command("error", properties, f"{check.qualname}: {check.status} against the reference: {check.message}"))
    return "".join(line + "\n" for line in lines)


def _command(command: str, properties: dict, message: str) -> str:
    listed = ",".join(f"{key}={_escape_property(str(value))}" for key, value in properties.items())
    return f"::{command} {listed}::{_escape_data(message)}"
