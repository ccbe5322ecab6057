"""`np2jax gate`: baselines that ratchet, and output that CI systems accept."""

from __future__ import annotations

import json
import shlex
import subprocess
import textwrap
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import pytest
import yaml

from conftest import write
from np2jax.cli import build_parser
from np2jax.codes import RULES
from np2jax.docs import render_rule

REPO = Path(__file__).resolve().parent.parent

# np.round with decimals is reported (NPJ104) and left as it is; np.sum migrates (pending).
MODULE = textwrap.dedent('''\
    import numpy as np


    def cents(x):
        return np.round(x, 2)


    def total(x):
        return np.sum(x)
''')
NO_NUMPY = "def add(x, y):\n    return x + y\n"


def gate(run_cli, cwd: Path, *args: str):
    return run_cli("gate", "--no-jit", *args, cwd=cwd)


def findings(result) -> list[str]:
    """The finding lines of a text-format run (`path:line:col: CODE ...`), without `fixed:` lines."""
    return [line for line in result.stdout.splitlines() if not line.startswith("fixed: ")]


@pytest.fixture
def project(tmp_path):
    write(tmp_path / "pkg" / "mod.py", MODULE)
    write(tmp_path / "pkg" / "plain.py", NO_NUMPY)
    return tmp_path


def test_without_a_baseline_every_finding_fails(run_cli, project):
    result = gate(run_cli, project, "pkg")
    assert result.returncode == 1, result
    assert findings(result) == [
        "pkg/mod.py:5:12: NPJ104 [warning] `np.round` with decimals may round differently in jax.numpy",
        "pkg/mod.py:9:1: pending-migration [warning] `np2jax migrate` would still change `total`",
    ]
    assert result.stderr_lines[-1] == "gate: FAILED: 2 new finding(s) (no baseline, so every finding counts)"


def test_a_migrated_tree_passes_without_a_baseline(run_cli, tmp_path):
    write(tmp_path / "plain.py", NO_NUMPY)
    write(tmp_path / "done.py", "import jax.numpy as jnp\n\n\ndef total(x):\n    return jnp.sum(x)\n")
    result = gate(run_cli, tmp_path, ".")
    assert result.returncode == 0, result
    assert result.stdout == ""
    assert result.stderr_lines == ["gate: passed: 2 file(s), no new findings (no baseline, so every finding counts)"]


def test_update_baseline_records_the_findings_and_then_the_gate_passes(run_cli, project):
    written = gate(run_cli, project, "pkg", "--baseline", "np2jax-baseline.json", "--update-baseline")
    assert written.returncode == 0, written
    assert written.stderr_lines == ["gate: wrote 2 finding(s) of 2 file(s) to np2jax-baseline.json"]
    baseline = json.loads((project / "np2jax-baseline.json").read_text())
    assert baseline["version"] == 1
    assert [(e["path"], e["code"], e["qualname"], e["line"]) for e in baseline["findings"]] == [
        ("pkg/mod.py", "NPJ104", "cents", 5),
        ("pkg/mod.py", "pending-migration", "total", 9),
    ]
    result = gate(run_cli, project, "pkg", "--baseline", "np2jax-baseline.json")
    assert result.returncode == 0, result
    assert result.stdout == ""
    assert "no new findings (2 in the baseline np2jax-baseline.json)" in result.stderr


def test_the_baseline_survives_unrelated_edits(run_cli, project):
    gate(run_cli, project, "pkg", "--baseline", "base.json", "--update-baseline")
    mod = project / "pkg" / "mod.py"
    edited = MODULE.replace("import numpy as np\n", '"""Money."""\n\nimport os\nimport numpy as np\n\nRATE = 3\n')
    edited = edited.replace("    return np.round(x, 2)", "    x = x * 1  # unrelated\n        \n    return np.round( x,  2 )")
    # the two functions swap places, too
    cents, total = edited.index("def cents"), edited.index("def total")
    edited = edited[:cents] + edited[total:].rstrip("\n") + "\n\n\n" + edited[cents:total].rstrip("\n") + "\n"
    mod.write_text(edited)
    result = gate(run_cli, project, "pkg", "--baseline", "base.json")
    assert result.returncode == 0, (result, edited)
    # ... and it is the baseline that makes it pass: the findings are still there
    assert gate(run_cli, project, "pkg").returncode == 1


def test_a_new_diagnostic_or_a_new_numpy_function_fails(run_cli, project):
    gate(run_cli, project, "pkg", "--baseline", "base.json", "--update-baseline")
    with open(project / "pkg" / "mod.py", "a") as handle:
        handle.write("\n\ndef rounded_mean(x):\n    return np.round(np.mean(x), 1)\n")
    result = gate(run_cli, project, "pkg", "--baseline", "base.json")
    assert result.returncode == 1, result
    assert findings(result) == [
        "pkg/mod.py:13:12: NPJ104 [warning] `np.round` with decimals may round differently in jax.numpy",
        "pkg/mod.py:13:1: pending-migration [warning] `np2jax migrate` would still change `rounded_mean`",
    ]
    assert result.stderr_lines[-1] == "gate: FAILED: 2 new finding(s) (2 in the baseline base.json)"


def test_one_more_copy_of_a_baselined_finding_is_new(run_cli, project):
    (project / "pkg" / "mod.py").write_text(MODULE.replace("return np.round(x, 2)", "return np.round(x, 2) + np.round(x, 2)"))
    gate(run_cli, project, "pkg", "--baseline", "base.json", "--update-baseline")
    (project / "pkg" / "mod.py").write_text(MODULE.replace("return np.round(x, 2)", "return np.round(x, 2) + np.round(x, 2) - np.round(x, 2)"))
    result = gate(run_cli, project, "pkg", "--baseline", "base.json")
    assert result.returncode == 1, result
    assert [line.split(": ")[1] for line in findings(result)] == ["NPJ104 [warning] `np.round` with decimals may round differently in jax.numpy"]


def test_improvements_pass_and_ask_for_update_baseline(run_cli, project):
    gate(run_cli, project, "pkg", "--baseline", "base.json", "--update-baseline")
    (project / "pkg" / "mod.py").write_text(MODULE.replace("np.round(x, 2)", "x"))
    result = gate(run_cli, project, "pkg", "--baseline", "base.json")
    assert result.returncode == 0, result
    assert result.stdout == "fixed: pkg/mod.py: NPJ104 in cents (was line 5)\n"
    assert result.stderr_lines[-1].endswith(
        "1 baselined finding(s) are gone: record the improvement with `np2jax gate ... --baseline base.json --update-baseline`"
    )
    gate(run_cli, project, "pkg", "--baseline", "base.json", "--update-baseline")
    assert len(json.loads((project / "base.json").read_text())["findings"]) == 1  # the ratchet moved


def test_files_not_scanned_keep_their_baseline_entries(run_cli, project):
    write(project / "pkg" / "other.py", MODULE)
    gate(run_cli, project, "pkg", "--baseline", "base.json", "--update-baseline")
    result = gate(run_cli, project, "pkg/mod.py", "--baseline", "base.json")
    assert result.returncode == 0, result
    assert result.stdout == ""
    assert "are gone" not in result.stderr


def test_the_baseline_is_found_by_paths_relative_to_it(run_cli, project):
    gate(run_cli, project, "pkg", "--baseline", "ci/base.json", "--update-baseline")
    assert json.loads((project / "ci" / "base.json").read_text())["findings"][0]["path"] == "../pkg/mod.py"
    result = gate(run_cli, project / "pkg", ".", "--baseline", "../ci/base.json")  # from another folder
    assert result.returncode == 0, result


def test_a_file_that_cannot_be_parsed_is_a_finding(run_cli, project):
    write(project / "pkg" / "broken.py", "import numpy as np\ndef f(:\n")
    result = gate(run_cli, project, "pkg")
    assert result.returncode == 1
    assert findings(result)[0].startswith("pkg/broken.py:1:1: file-error [error] syntax error at line 2")
    gate(run_cli, project, "pkg", "--baseline", "base.json", "--update-baseline")
    assert gate(run_cli, project, "pkg", "--baseline", "base.json").returncode == 0


@pytest.mark.parametrize(
    "args, message",
    [
        (("--baseline", "missing.json"), "--baseline missing.json: no such file; create it with --update-baseline"),
        (("--update-baseline",), "--update-baseline needs --baseline FILE"),
        (("--baseline", "bad.json"), "--baseline bad.json: not a JSON baseline"),
        (("--baseline", "other.json"), "--baseline other.json: not a version 1 np2jax baseline"),
        (("--baseline", "pkg"), "--baseline pkg: is a directory"),
        (("--output", "pkg"), "--output pkg: is a directory"),
        (("--jobs", "-1"), "--jobs must be 0 (in-process) or more"),
        (("--format", "xml"), "invalid choice: 'xml'"),
    ],
)
def test_bad_usage_exits_2_with_one_line(run_cli, project, args, message):
    write(project / "bad.json", "{not json")
    write(project / "other.json", '{"version": 7, "findings": []}')
    result = gate(run_cli, project, "pkg", *args)
    assert result.returncode == 2, result
    assert len(result.stderr_lines) == 1 and message in result.stderr, result


def test_output_goes_to_the_file(run_cli, project):
    result = gate(run_cli, project, "pkg", "--format", "json", "--output", "out/gate.json")
    assert result.returncode == 1
    assert result.stdout == ""
    data = json.loads((project / "out" / "gate.json").read_text())
    assert data["passed"] is False
    assert [(f["code"], f["state"]) for f in data["findings"]] == [("NPJ104", "new"), ("pending-migration", "new")]


def test_json_marks_baselined_and_new(run_cli, project):
    gate(run_cli, project, "pkg", "--baseline", "base.json", "--update-baseline")
    with open(project / "pkg" / "mod.py", "a") as handle:
        handle.write("\n\ndef more(x):\n    return np.round(np.sum(x), 3)\n")
    data = json.loads(gate(run_cli, project, "pkg", "--baseline", "base.json", "--format", "json").stdout)
    assert data["baseline"] == "base.json" and data["files"] == ["pkg/mod.py", "pkg/plain.py"]
    assert [(f["qualname"], f["code"], f["state"]) for f in data["findings"]] == [
        ("cents", "NPJ104", "baselined"), ("more", "NPJ104", "new"),
        ("total", "pending-migration", "baselined"), ("more", "pending-migration", "new"),
    ]


# -- SARIF ----------------------------------------------------------------------------------

SARIF_LEVELS = {"none", "note", "warning", "error"}


def validate_sarif(log: dict) -> None:
    """The parts of the SARIF 2.1.0 schema that code-scanning services read, checked one by one."""
    assert log["$schema"].endswith("sarif-schema-2.1.0.json")
    assert log["version"] == "2.1.0"
    assert isinstance(log["runs"], list) and len(log["runs"]) == 1
    run = log["runs"][0]
    driver = run["tool"]["driver"]
    assert driver["name"] == "np2jax" and driver["version"]
    assert driver["informationUri"].startswith("https://")
    ids = [rule["id"] for rule in driver["rules"]]
    assert len(ids) == len(set(ids)), "rule ids must be unique"
    for rule in driver["rules"]:
        assert rule["name"] and rule["shortDescription"]["text"] and rule["fullDescription"]["text"]
        assert rule["help"]["text"] and rule["help"]["markdown"]
        assert rule["defaultConfiguration"]["level"] in SARIF_LEVELS
    assert isinstance(run["results"], list)
    for result in run["results"]:
        assert result["ruleId"] in ids
        assert ids[result["ruleIndex"]] == result["ruleId"]
        assert result["level"] in SARIF_LEVELS
        assert result["message"]["text"]
        assert result["partialFingerprints"] and all(isinstance(v, str) for v in result["partialFingerprints"].values())
        for location in result["locations"]:
            physical = location["physicalLocation"]
            uri = physical["artifactLocation"]["uri"]
            assert not uri.startswith("/") and "\\" not in uri and ":" not in uri.split("/")[0]
            assert physical["artifactLocation"]["uriBaseId"] in run["originalUriBaseIds"]
            region = physical["region"]
            for key in ("startLine", "startColumn", "endLine", "endColumn"):
                assert isinstance(region.get(key, 1), int) and region.get(key, 1) >= 1
            assert region["endLine"] >= region["startLine"]
        if "baselineState" in result:
            assert result["baselineState"] in {"new", "unchanged", "updated", "absent"}


def test_sarif_is_a_valid_sarif_2_1_0_log_with_rule_help_from_the_docs(run_cli, project):
    result = gate(run_cli, project, "pkg", "--format", "sarif", "--output", "gate.sarif")
    assert result.returncode == 1
    log = json.loads((project / "gate.sarif").read_text())
    validate_sarif(log)
    run = log["runs"][0]
    rules = {rule["id"]: rule for rule in run["tool"]["driver"]["rules"]}
    for rule in RULES:
        assert rules[rule.CODE]["help"]["markdown"] == render_rule(rule)
        assert rules[rule.CODE]["name"] == rule.NAME
    assert {"pending-migration", "file-error"} <= set(rules)
    [npj104, pending] = run["results"]
    assert npj104["ruleId"] == "NPJ104" and npj104["level"] == "warning"
    assert npj104["locations"][0]["physicalLocation"] == {
        "artifactLocation": {"uri": "pkg/mod.py", "uriBaseId": "%SRCROOT%"},
        "region": {"startLine": 5, "startColumn": 12, "endLine": 5, "endColumn": 26},
    }
    assert pending["ruleId"] == "pending-migration"
    assert "baselineState" not in npj104  # no baseline, no state


def test_sarif_with_a_baseline_says_which_results_are_new(run_cli, project):
    gate(run_cli, project, "pkg", "--baseline", "base.json", "--update-baseline")
    with open(project / "pkg" / "mod.py", "a") as handle:
        handle.write("\n\ndef more(x):\n    return np.round(np.sum(x), 3)\n")
    log = json.loads(gate(run_cli, project, "pkg", "--baseline", "base.json", "--format", "sarif").stdout)
    validate_sarif(log)
    states = [(r["ruleId"], r["baselineState"]) for r in log["runs"][0]["results"]]
    assert states == [("NPJ104", "unchanged"), ("NPJ104", "new"), ("pending-migration", "unchanged"), ("pending-migration", "new")]
    fingerprints = [r["partialFingerprints"]["np2jax/v1"] for r in log["runs"][0]["results"]]
    assert len(set(fingerprints)) == 4


def test_the_structural_validator_rejects_broken_logs(run_cli, project):
    log = json.loads(gate(run_cli, project, "pkg", "--format", "sarif").stdout)
    validate_sarif(log)
    for breakage in (
        lambda l: l.update(version="2.0.0"),
        lambda l: l["runs"][0]["results"][0].update(ruleIndex=0),
        lambda l: l["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"].update(startLine=0),
        lambda l: l["runs"][0]["tool"]["driver"]["rules"][0].pop("help"),
    ):
        broken = json.loads(json.dumps(log))
        breakage(broken)
        with pytest.raises((AssertionError, KeyError)):
            validate_sarif(broken)


# -- GitHub annotations and JUnit -----------------------------------------------------------


def test_github_annotations_for_new_findings(run_cli, project):
    result = gate(run_cli, project, "pkg", "--format", "github")
    assert result.returncode == 1
    assert result.stdout.splitlines() == [
        "::warning file=pkg/mod.py,line=5,col=12,endLine=5,endColumn=26,title=NPJ104::"
        "`np.round` with decimals may round differently in jax.numpy",
        "::warning file=pkg/mod.py,line=9,col=1,endLine=9,endColumn=21,title=pending-migration::"
        "`np2jax migrate` would still change `total`",
    ]


def test_github_annotations_escape_what_github_reads_as_syntax(run_cli, tmp_path):
    write(tmp_path / "50%,a:b.py", "import numpy as np\ndef f(:\n")
    result = gate(run_cli, tmp_path, ".")
    assert result.returncode == 1
    result = gate(run_cli, tmp_path, ".", "--format", "github")
    [line] = result.stdout.splitlines()
    assert line.startswith("::error file=50%25%2Ca%3Ab.py,line=1,col=1,endLine=1,endColumn=1,title=file-error::syntax error")


def test_github_message_escaping():
    from np2jax.formats import _command

    assert _command("error", {"file": "a,b:c%.py", "title": "T"}, "100%\r\nsure: yes, no") == (
        "::error file=a%2Cb%3Ac%25.py,title=T::100%25%0D%0Asure: yes, no"
    )


def test_junit_has_a_case_per_file(run_cli, project):
    result = gate(run_cli, project, "pkg", "--format", "junit")
    assert result.returncode == 1
    root = ElementTree.fromstring(result.stdout)
    suite = root.find("testsuite")
    assert (suite.get("tests"), suite.get("failures")) == ("2", "1")
    cases = {case.get("name"): case for case in suite.iter("testcase")}
    assert set(cases) == {"pkg/mod.py", "pkg/plain.py"}
    failure = cases["pkg/mod.py"].find("failure")
    assert failure.get("message") == "2 new finding(s)"
    assert "NPJ104" in failure.text and "pending-migration" in failure.text
    assert cases["pkg/plain.py"].find("failure") is None


# -- shipped CI files -----------------------------------------------------------------------


def _np2jax_commands(text: str) -> list[list[str]]:
    """Every `np2jax ...` command line in a shell script or YAML text, split as the shell would."""
    commands = []
    for line in text.splitlines():
        line = line.strip().lstrip("-").strip()
        if line.startswith(("run: np2jax ", "np2jax ")):
            commands.append(shlex.split(line.removeprefix("run: "))[1:])
    return commands


def test_pre_commit_hooks_run_real_commands(run_cli, project):
    hooks = yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text())
    by_id = {hook["id"]: hook for hook in hooks}
    assert set(by_id) == {"np2jax-migrate-check", "np2jax-gate"}
    for hook in hooks:
        assert hook["language"] == "python" and hook["types"] == ["python"]
        entry = shlex.split(hook["entry"])
        assert entry[0] == "np2jax"
        build_parser().parse_args([*entry[1:], *hook.get("args", []), "x.py"])
    # pre-commit runs `entry args... staged files`
    check = shlex.split(by_id["np2jax-migrate-check"]["entry"])[1:]
    assert run_cli(*check, "pkg/mod.py", cwd=project).returncode == 1
    assert run_cli(*check, "pkg/plain.py", cwd=project).returncode == 0


def test_the_documented_workflow_uses_valid_commands():
    workflow = yaml.safe_load((REPO / "docs" / "github-workflow.yml").read_text())
    steps = [step for job in workflow["jobs"].values() for step in job["steps"]]
    assert any(step.get("uses", "").startswith("github/codeql-action/upload-sarif") for step in steps)
    commands = [c for step in steps for c in _np2jax_commands(step.get("run", ""))]
    assert any(c[0] == "gate" and "sarif" in c for c in commands)
    for command in commands:
        build_parser().parse_args(command)
    assert (REPO / "docs" / "github-workflow.yml").read_text() in (REPO / "docs" / "ci.md").read_text()


# -- --reference ----------------------------------------------------------------------------

ORIGINAL = "import numpy as np\n\n\ndef total(x):\n    return np.sum(x * 2)\n\n\ndef mean(x):\n    return np.mean(x)\n"


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args], cwd=cwd, check=True,
                   capture_output=True)


@pytest.fixture
def migrated_repo(run_cli, tmp_path):
    """A git repository whose HEAD has a NumPy module; the working tree holds its migration."""
    write(tmp_path / "pkg" / "m.py", ORIGINAL)
    write(tmp_path / "pkg" / "same.py", NO_NUMPY)
    _git(tmp_path, "init", "-q")
    _git(tmp_path, "add", ".")
    _git(tmp_path, "commit", "-q", "-m", "numpy")
    assert run_cli("migrate", "--no-jit", "--write", "pkg", cwd=tmp_path).returncode == 0
    assert "jnp.mean(x)" in (tmp_path / "pkg" / "m.py").read_text()
    return tmp_path


def test_reference_git_revision_passes_an_equivalent_migration(run_cli, migrated_repo):
    result = gate(run_cli, migrated_repo, "pkg", "--reference", "HEAD", "--format", "json")
    assert result.returncode == 0, result
    checks = json.loads(result.stdout)["reference"]
    assert sorted((c["path"], c["qualname"], c["status"]) for c in checks) == [
        ("pkg/m.py", "mean", "equivalent"), ("pkg/m.py", "total", "equivalent"),
    ]  # pkg/same.py did not change, so it is not checked
    assert "2 function(s) checked against the reference" in result.stderr_lines[-1]
    assert (migrated_repo / "pkg" / "m.py").read_text().startswith("import jax.numpy")  # nothing checked out


def test_reference_mismatch_fails_and_is_annotated(run_cli, migrated_repo):
    module = migrated_repo / "pkg" / "m.py"
    module.write_text(module.read_text().replace("jnp.mean(x)", "jnp.mean(x) + 1"))
    write(migrated_repo / "pkg" / "new.py", NO_NUMPY)
    result = gate(run_cli, migrated_repo, "pkg", "--reference", "HEAD", "--format", "github")
    assert result.returncode == 1, result
    [annotation] = result.stdout.splitlines()
    assert annotation.startswith("::error file=pkg/m.py,line=8,title=reference-mismatch::mean: mismatch against the reference")
    assert "gate: pkg/new.py: not in the reference HEAD (a new file); not checked" in result.stderr_lines
    assert result.stderr_lines[-1] == "gate: FAILED: 1 function(s) differ from the reference"
    sarif = json.loads(gate(run_cli, migrated_repo, "pkg", "--reference", "HEAD", "--format", "sarif").stdout)
    validate_sarif(sarif)
    assert [r["ruleId"] for r in sarif["runs"][0]["results"]] == ["reference-mismatch"]


def test_reference_directory(run_cli, tmp_path):
    write(tmp_path / "old" / "pkg" / "m.py", ORIGINAL)
    write(tmp_path / "pkg" / "m.py", ORIGINAL.replace("np.", "jnp.").replace("import numpy as np", "import jax.numpy as jnp")
          .replace("jnp.sum(x * 2)", "jnp.sum(x * 3)"))
    result = gate(run_cli, tmp_path, "pkg", "--reference", "old", "--format", "junit")
    assert result.returncode == 1, result
    cases = {c.get("name"): c for c in ElementTree.fromstring(result.stdout).iter("testcase")}
    assert cases["pkg/m.py::total"].find("failure") is not None
    assert cases["pkg/m.py::mean"].find("failure") is None


def test_reference_that_is_neither_a_folder_nor_a_revision(run_cli, project):
    result = gate(run_cli, project, "pkg", "--reference", "no-such-ref")
    assert result.returncode == 2
    assert result.stderr_lines == ["np2jax: error: --reference no-such-ref: neither a directory nor a git revision of the repository here"]


# -- configuration and notebooks ------------------------------------------------------------


def test_the_configuration_applies_and_migrated_modules_are_never_baselined(run_cli, project):
    write(project / "pkg" / "done.py", MODULE)
    gate(run_cli, project, "pkg", "--baseline", "base.json", "--update-baseline")
    write(project / "pyproject.toml", '[tool.np2jax]\nignore = ["NPJ104"]\nmigrated = ["pkg/done.py"]\n')
    result = gate(run_cli, project, "pkg", "--baseline", "base.json")
    assert result.returncode == 1, result
    # NPJ104 is ignored (so `cents` migrates, a new pending function); done.py must stay
    # clean whatever the baseline says
    assert findings(result) == [
        "pkg/done.py:5:1: pending-migration [warning] `np2jax migrate` would still change `cents`",
        "pkg/done.py:9:1: pending-migration [warning] `np2jax migrate` would still change `total`",
        "pkg/mod.py:5:1: pending-migration [warning] `np2jax migrate` would still change `cents`",
    ]
    assert "fixed: pkg/done.py: pending-migration" not in result.stdout  # still there, so not fixed
    assert gate(run_cli, project, "pkg", "--baseline", "base.json", "--isolated").returncode == 0


def test_a_bad_configuration_is_a_usage_error(run_cli, project):
    write(project / "pyproject.toml", '[tool.np2jax]\nno-such-key = 1\n')
    result = gate(run_cli, project, "pkg")
    assert result.returncode == 2, result
    assert len(result.stderr_lines) == 1 and "no-such-key" in result.stderr


def test_notebook_findings_name_the_cell(run_cli, tmp_path):
    cells = [
        {"cell_type": "markdown", "metadata": {}, "source": ["# Notes\n"]},
        {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [],
         "source": ["import numpy as np\n", "\n", "def total(x):\n", "    return np.round(np.sum(x), 2)\n"]},
    ]
    notebook = {"cells": cells, "metadata": {"kernelspec": {"language": "python", "name": "python3"}},
                "nbformat": 4, "nbformat_minor": 5}
    write(tmp_path / "nb.ipynb", json.dumps(notebook, indent=1) + "\n")
    result = gate(run_cli, tmp_path, "nb.ipynb")
    assert result.returncode == 1, result
    assert findings(result) == [
        "nb.ipynb:1:1: NPJ104 [warning] cell 2, line 4: `np.round` with decimals may round differently in jax.numpy",
        "nb.ipynb:1:1: pending-migration [warning] `np2jax migrate` would still change `total` in cell 2",
    ]
    gate(run_cli, tmp_path, "nb.ipynb", "--baseline", "base.json", "--update-baseline")
    cells.insert(0, {"cell_type": "markdown", "metadata": {}, "source": ["Another cell above.\n"]})
    (tmp_path / "nb.ipynb").write_text(json.dumps(notebook, indent=1) + "\n")
    assert gate(run_cli, tmp_path, "nb.ipynb", "--baseline", "base.json").returncode == 0
