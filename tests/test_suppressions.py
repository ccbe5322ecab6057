"""Inline suppression comments through the real CLI: `# np2jax: ignore[...]` hides diagnostics
on its line (or on the whole statement from its first or last line), `# np2jax: skip-file` leaves
a file alone, and comments np2jax cannot use are reported as warnings."""

from __future__ import annotations

import json
import re

from conftest import write

SUMMARY = re.compile(r"^(\d+) file\(s\) (migrated|would be migrated), (\d+) unchanged, (\d+) failed", re.M)
MODULE = """\
import numpy as np

def g(x):
    u = np.unique(x){u}
    np.random.seed(0){seed}
    w = np.sum({w1}
        np.unique(x)){w2}
    return np.mean(u) + w
"""


def module(**comments: str) -> str:
    return MODULE.format(**{key: comments.get(key, "") for key in ("u", "seed", "w1", "w2")})


def codes_by_line(run, path: str = "m.py") -> list[tuple[int, str]]:
    return [(int(line), code) for line, code in re.findall(rf"^{re.escape(path)}:(\d+):\d+: (NPJ\d+) ", run.stderr, re.M)]


ALL_FOUND = [(4, "NPJ102"), (5, "NPJ110"), (7, "NPJ102")]


def test_without_comments_every_diagnostic_is_reported(tmp_path, run_cli):
    write(tmp_path / "m.py", module())
    assert codes_by_line(run_cli("migrate", "m.py", cwd=tmp_path)) == ALL_FOUND


def test_a_code_list_hides_only_those_codes_on_that_line(tmp_path, run_cli):
    write(tmp_path / "m.py", module(u="  # np2jax: ignore[NPJ102]", seed="  # np2jax: ignore[NPJ102]"))
    assert codes_by_line(run_cli("migrate", "m.py", cwd=tmp_path)) == [(5, "NPJ110"), (7, "NPJ102")]
    write(tmp_path / "m.py", module(seed="  # noqa: E501  # np2jax: ignore[npj102, NPJ110]"))
    assert codes_by_line(run_cli("migrate", "m.py", cwd=tmp_path)) == [(4, "NPJ102"), (7, "NPJ102")]


def test_a_bare_ignore_hides_every_code_on_its_line(tmp_path, run_cli):
    write(tmp_path / "m.py", module(seed="  # np2jax: ignore"))
    assert codes_by_line(run_cli("migrate", "m.py", cwd=tmp_path)) == [(4, "NPJ102"), (7, "NPJ102")]


def test_the_first_or_last_line_of_a_statement_covers_the_whole_statement(tmp_path, run_cli):
    for comments in ({"w1": "  # np2jax: ignore[NPJ102]"}, {"w2": "  # np2jax: ignore[NPJ102]"}):
        write(tmp_path / "m.py", module(**comments))
        assert codes_by_line(run_cli("migrate", "m.py", cwd=tmp_path)) == [(4, "NPJ102"), (5, "NPJ110")], comments


def test_a_middle_line_covers_only_itself(tmp_path, run_cli):
    source = "import numpy as np\n\ndef g(x):\n    return (\n        np.unique(x),  # np2jax: ignore\n        np.unique(x),\n    )\n"
    write(tmp_path / "m.py", source)
    assert codes_by_line(run_cli("migrate", "m.py", cwd=tmp_path)) == [(6, "NPJ102")]


def test_text_in_a_string_is_not_a_comment(tmp_path, run_cli):
    write(tmp_path / "m.py", module(u='; s = "# np2jax: ignore"'))
    assert codes_by_line(run_cli("migrate", "m.py", cwd=tmp_path)) == ALL_FOUND


def test_comments_np2jax_cannot_use_are_warned_about_and_known_codes_still_apply(tmp_path, run_cli):
    write(tmp_path / "m.py", module(
        u="  # np2jax: ignore[NPJ102, NPJ999]", seed="  # np2jax: ignroe", w2="  # np2jax: ignore[NPJ102",
    ))
    run = run_cli("migrate", "m.py", cwd=tmp_path)
    assert run.returncode == 0, run
    assert codes_by_line(run) == [(5, "NPJ110"), (7, "NPJ102")]
    warnings = [line for line in run.stderr_lines if ": warning: " in line]
    assert warnings == [
        "m.py:4: warning: unknown rule code 'NPJ999' in np2jax suppression comment",
        "m.py:5: warning: unknown np2jax comment '# np2jax: ignroe' (known: ignore, ignore[CODES], skip-file); ignored",
        "m.py:7: warning: malformed np2jax suppression comment '# np2jax: ignore[NPJ102'; ignored",
    ]
    assert "warning" not in run_cli("migrate", "m.py", "--quiet", cwd=tmp_path).stderr.replace("warning(s)", "")


def test_suppression_hides_diagnostics_but_does_not_change_the_rewrite(tmp_path, run_cli):
    rewritten = "import numpy as np\n\ndef f(x):\n    return np.argsort(x)  # np2jax: ignore[NPJ108]\n"
    kept = "import numpy as np\n\ndef f(x):\n    return np.unique(x)  # np2jax: ignore\n"
    write(tmp_path / "rewritten.py", rewritten)
    write(tmp_path / "kept.py", kept)
    run = run_cli("migrate", "rewritten.py", "kept.py", "--write", "--report", "r.json", "--no-jit", cwd=tmp_path)
    assert run.returncode == 0, run
    assert (tmp_path / "rewritten.py").read_text() == rewritten.replace("numpy as np", "jax.numpy as jnp").replace("np.", "jnp.")
    assert (tmp_path / "kept.py").read_text() == kept  # NPJ102 still blocks the rewrite, only its report is hidden
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["diagnostics"] == []
    assert [(f["path"], f["status"]) for f in report["functions"]] == [("rewritten.py", "migrated"), ("kept.py", "unsupported")]


def test_suppressions_apply_to_cached_results(tmp_path, run_cli):
    write(tmp_path / "m.py", module(seed="  # np2jax: ignore"))
    first = run_cli("migrate", "m.py", cwd=tmp_path)
    second = run_cli("migrate", "m.py", cwd=tmp_path)
    assert codes_by_line(first) == codes_by_line(second) == [(4, "NPJ102"), (7, "NPJ102")]
    assert second.stderr == first.stderr


def test_skip_file_leaves_the_file_alone_in_every_mode(tmp_path, run_cli):
    source = '"""A module."""\n# np2jax: skip-file\nimport numpy as np\n\ndef f(x):\n    np.random.seed(0)\n    return np.sum(x)\n'
    write(tmp_path / "m.py", source)
    for mode in ((), ("--write",), ("--check",)):
        run = run_cli("migrate", "m.py", "--report", "r.json", *mode, cwd=tmp_path)
        assert run.returncode == 0, run
        assert run.stdout == ""
        assert "NPJ" not in run.stderr
        assert SUMMARY.search(run.stderr).group(3) == "1"
    assert (tmp_path / "m.py").read_text() == source
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["files"] == [{"path": "m.py", "status": "unchanged", "error": None}]
    assert report["diagnostics"] == []


def test_skip_file_counts_only_as_a_top_level_comment_line(tmp_path, run_cli):
    indented = "import numpy as np\n\ndef f(x):\n    # np2jax: skip-file\n    return np.sum(x)\n"
    in_string = 'import numpy as np\nDOC = """\n# np2jax: skip-file\n"""\n\ndef f(x):\n    return np.sum(x)\n'
    write(tmp_path / "indented.py", indented)
    write(tmp_path / "in_string.py", in_string)
    run = run_cli("migrate", "indented.py", "in_string.py", "--no-jit", cwd=tmp_path)
    assert run.returncode == 0, run
    assert "indented.py:4: warning: `np2jax: skip-file` works only on a comment line of its own in column 1; ignored" in run.stderr
    assert SUMMARY.search(run.stderr).groups() == ("2", "would be migrated", "0", "0")


def test_skip_file_is_honoured_in_a_file_that_does_not_parse(tmp_path, run_cli):
    write(tmp_path / "m.py", "# np2jax: skip-file\ndef f(:\n")
    run = run_cli("migrate", "m.py", cwd=tmp_path)
    assert run.returncode == 0, run
    assert SUMMARY.search(run.stderr).groups() == ("0", "would be migrated", "1", "0")
