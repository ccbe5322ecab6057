"""The bundled corpus: every module migrates to its golden file, byte for byte.

Goldens live in ``corpus/expected`` and are regenerated with
``python corpus/regenerate.py`` (then reviewed by eye).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import libcst as cst
import pytest

from np2jax.engine import migrate_source

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "corpus"
MODULES = CORPUS / "modules"
EXPECTED = CORPUS / "expected"

NAMES = sorted(path.stem for path in MODULES.glob("*.py"))


def display_path(name: str) -> str:
    return f"corpus/modules/{name}.py"


def format_diagnostics(diagnostics) -> str:
    # Keep in step with corpus/regenerate.py.
    return "".join(f"{d.line}:{d.col} {d.code} {d.severity.value} {d.message}\n" for d in diagnostics)


def _golden_changes(name: str) -> bool:
    return (EXPECTED / f"{name}.py").read_bytes() != (MODULES / f"{name}.py").read_bytes()


def migrate(name: str):
    return migrate_source((MODULES / f"{name}.py").read_bytes(), display_path(name))


def test_corpus_is_not_empty():
    assert len(NAMES) >= 8


def test_every_module_has_goldens_and_examples():
    for name in NAMES:
        assert (EXPECTED / f"{name}.py").is_file(), f"run python corpus/regenerate.py ({name})"
        assert (EXPECTED / f"{name}.diagnostics.txt").is_file(), f"run python corpus/regenerate.py ({name})"
        assert (CORPUS / "examples" / f"{name}.py").is_file(), f"corpus/examples/{name}.py is missing"
    stems = {path.name.split(".")[0] for path in EXPECTED.iterdir() if path.is_file()}
    assert stems <= set(NAMES), f"stale golden files: {sorted(stems - set(NAMES))}"


@pytest.mark.parametrize("name", NAMES)
def test_output_matches_golden(name):
    result = migrate(name)
    assert result.error is None, result.error
    assert result.output == (EXPECTED / f"{name}.py").read_bytes(), (
        f"{name}: output differs from corpus/expected/{name}.py; "
        "if the change is intended, run python corpus/regenerate.py and review the diff"
    )


@pytest.mark.parametrize("name", NAMES)
def test_diagnostics_match_golden(name):
    result = migrate(name)
    expected = (EXPECTED / f"{name}.diagnostics.txt").read_text(encoding="utf-8")
    assert format_diagnostics(result.diagnostics) == expected
    assert all(d.path == display_path(name) for d in result.diagnostics)


@pytest.mark.parametrize("name", NAMES)
def test_output_parses(name):
    output = (EXPECTED / f"{name}.py").read_bytes()
    cst.parse_module(output)
    compile(output, f"{name}.py", "exec", dont_inherit=True)


@pytest.mark.parametrize("name", NAMES)
def test_second_pass_changes_nothing(name):
    once = migrate(name).output
    again = migrate_source(once, display_path(name))
    assert again.error is None, again.error
    assert again.output == once
    assert again.status == "unchanged"


@pytest.mark.parametrize("name", NAMES)
def test_golden_of_golden_is_itself(name):
    """Feeding the golden file back in leaves it alone (no second migration)."""
    golden = (EXPECTED / f"{name}.py").read_bytes()
    assert migrate_source(golden, f"corpus/expected/{name}.py").output == golden


def _parse_cli_diagnostic(line: str) -> tuple[str, str] | None:
    """``path:line:col: CODE [severity] message (use instead: ...)`` -> (name, golden line)."""
    prefix = "corpus/modules/"
    if not line.startswith(prefix):
        return None
    location, _, rest = line.partition(": ")
    path, row, col = location.rsplit(":", 2)
    code, severity, message = rest.split(" ", 2)
    message = message.split(" (use instead: ", 1)[0]
    return Path(path).stem, f"{row}:{col} {code} {severity.strip('[]')} {message}\n"


def test_cli_out_tree_matches_goldens(tmp_path):
    out = tmp_path / "out"
    report = tmp_path / "report.json"
    env = {**os.environ, "NP2JAX_CACHE_DIR": str(tmp_path / "cache")}
    process = subprocess.run(
        [sys.executable, "-m", "np2jax", "migrate", "corpus/modules", "--out", str(out),
         "--report", str(report), "--no-cache", "--color", "never"],
        cwd=ROOT, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=120,
    )
    assert process.returncode == 0, process.stderr
    assert "Traceback" not in process.stderr, process.stderr
    assert process.stdout == ""

    written = sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file())
    assert written == [f"{name}.py" for name in NAMES]
    for name in NAMES:
        assert (out / f"{name}.py").read_bytes() == (EXPECTED / f"{name}.py").read_bytes(), name

    # Diagnostics on stderr are the golden ones, file by file, in order.
    printed: dict[str, str] = {name: "" for name in NAMES}
    for line in process.stderr.splitlines():
        parsed = _parse_cli_diagnostic(line)
        if parsed is not None:
            printed[parsed[0]] += parsed[1]
    for name in NAMES:
        assert printed[name] == (EXPECTED / f"{name}.diagnostics.txt").read_text(encoding="utf-8"), name
    total = sum(len(text.splitlines()) for text in printed.values())

    # The JSON report agrees with the in-process engine.
    data = json.loads(report.read_text())
    assert data["version"] == 1
    assert {f["path"]: f["status"] for f in data["files"]} == {
        display_path(name): "changed" if _golden_changes(name) else "unchanged" for name in NAMES
    }
    assert len(data["diagnostics"]) == total
    for name in NAMES:
        result = migrate(name)
        functions = [
            (f["qualname"], f["line"], f["end_line"], f["status"])
            for f in data["functions"]
            if f["path"] == display_path(name)
        ]
        assert functions == [(f.qualname, f.line, f.end_line, f.status) for f in result.functions], name
