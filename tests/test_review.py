"""`np2jax review`, driven through a pseudo-terminal as a person would use it."""

from __future__ import annotations

import io
import json
import os
import signal
import sys
import textwrap
from pathlib import Path

import pexpect
import pytest

from conftest import write

PROMPT = r"\((\d+/\d+)\) Apply this hunk to (\S+) \[y,n,a,d,e,q,\?\]\? "
TIMEOUT_S = 90

# Seven unchanged lines between the changes, so that each change is a hunk of its own.
# NumPy is still used after migration (np.round is reported and kept), so the import hunk only adds.
KEEPS_NUMPY = textwrap.dedent('''\
    import numpy as np


    def total(x):
        """Sum of squares."""
        y = x * 2
        y = y + 1
        y = y - 1
        return np.sum(y ** 2)


    def spread(x):
        """Largest minus smallest."""
        lo = x.min()
        hi = x.max()
        width = hi - lo
        return np.abs(width)


    def ordered(x):
        """Sorted copy."""
        y = x + 0
        y = y * 1
        y = y - 0
        return np.sort(y) + np.round(y, 2)
''')
KEEPS_NUMPY_IMPORTS = "import numpy as np\nimport jax.numpy as jnp\n"

# Every NumPy use migrates, so the import hunk replaces `import numpy as np`.
DROPS_NUMPY = KEEPS_NUMPY[:KEEPS_NUMPY.index("\n\n\ndef ordered")] + "\n"
DROPS_NUMPY_MIGRATED = DROPS_NUMPY.replace("import numpy as np", "import jax.numpy as jnp").replace("np.", "jnp.")


def _default_interrupt() -> None:
    """The review gets Ctrl-C as a user's terminal delivers it, even when the test run itself was started where
    SIGINT is ignored (a background job of a non-interactive shell: the ignored disposition is inherited)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


class Review:
    """A running `np2jax review` in a pseudo-terminal."""

    def __init__(self, cwd: Path, *args: str, env: dict[str, str] | None = None) -> None:
        environment = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "VISUAL", "EDITOR", "COLUMNS", "LINES")}
        environment.update(env or {})
        self.transcript = io.StringIO()
        self.child = pexpect.spawn(
            sys.executable, ["-m", "np2jax", "review", "--no-jit", *args],
            cwd=str(cwd), env=environment, encoding="utf-8", timeout=TIMEOUT_S, dimensions=(60, 200),
            preexec_fn=_default_interrupt,
        )
        self.child.logfile_read = self.transcript

    def prompt(self) -> tuple[str, str]:
        """Wait for the next hunk prompt; the file it names and the hunk's place (``"2/4"``)."""
        self.child.expect(PROMPT)
        return self.child.match.group(2), self.child.match.group(1)

    def answer(self, *keys: str) -> None:
        for key in keys:
            self.prompt()
            self.child.sendline(key)

    def expect(self, pattern: str) -> None:
        self.child.expect(pattern)

    def finish(self) -> int:
        self.child.expect(pexpect.EOF)
        self.child.close()
        return self.child.exitstatus

    @property
    def output(self) -> str:
        return self.transcript.getvalue().replace("\r\n", "\n")


@pytest.fixture
def review(tmp_path, cache_dir):
    sessions = []

    def start(*args: str, env: dict[str, str] | None = None) -> Review:
        session = Review(tmp_path, "--color", "never", *args, env={"NP2JAX_CACHE_DIR": str(cache_dir), **(env or {})})
        sessions.append(session)
        return session

    yield start
    for session in sessions:
        if session.child.isalive():
            session.child.terminate(force=True)


def migrated_by_cli(run_cli, tmp_path: Path, name: str) -> str:
    """What `np2jax migrate --no-jit` makes of ``name`` (the reference for "accept everything")."""
    result = run_cli("migrate", "--no-jit", name, "--out", str(tmp_path / "expected"), cwd=tmp_path)
    assert result.returncode == 0, result
    return (tmp_path / "expected" / name).read_text()


def test_accept_every_hunk_gives_the_full_migration(review, run_cli, tmp_path):
    source = write(tmp_path / "mod.py", KEEPS_NUMPY)
    expected = migrated_by_cli(run_cli, tmp_path, "mod.py")
    session = review("mod.py")
    session.answer("y", "y", "y", "y")
    assert session.finish() == 0
    assert source.read_text() == expected
    assert "(4/4) Apply this hunk to mod.py" in session.output
    assert "mod.py: 4 of 4 hunk(s) accepted, 0 rejected; written" in session.output


def test_reject_every_hunk_leaves_the_file_alone(review, tmp_path):
    source = write(tmp_path / "mod.py", KEEPS_NUMPY)
    before = source.stat().st_mtime_ns
    session = review("mod.py")
    session.answer("n", "n", "n", "n")
    assert session.finish() == 0
    assert source.read_text() == KEEPS_NUMPY
    assert source.stat().st_mtime_ns == before
    assert "mod.py: 0 of 4 hunk(s) accepted, 4 rejected; unchanged" in session.output


def test_hunks_show_the_diff_and_the_diagnostics_inside_them(review, tmp_path):
    write(tmp_path / "mod.py", KEEPS_NUMPY)
    session = review("mod.py")
    session.prompt()
    first = session.child.before.replace("\r\n", "\n")
    assert "@@ -1,4 +1,5 @@\n import numpy as np\n+import jax.numpy as jnp\n" in first
    assert "+import jax.numpy as jnp" in first
    assert "NPJ104" not in first  # the diagnostic belongs to the last hunk
    session.child.sendline("n")
    session.answer("n", "n")
    session.prompt()
    last = session.child.before.replace("\r\n", "\n")
    assert "-    return np.sort(y) + np.round(y, 2)" in last
    assert "+    return jnp.sort(y) + np.round(y, 2)" in last
    assert "NPJ104 warning 25:" in last
    session.child.sendline("n")
    assert session.finish() == 0


def test_mixed_answers_apply_only_the_accepted_hunks(review, tmp_path):
    source = write(tmp_path / "mod.py", KEEPS_NUMPY)
    session = review("mod.py")
    session.answer("y", "n", "y", "n")
    assert session.finish() == 0
    text = source.read_text()
    assert text.startswith(KEEPS_NUMPY_IMPORTS)
    assert "    return np.sum(y ** 2)\n" in text  # rejected
    assert "    return jnp.abs(width)\n" in text  # accepted
    assert "    return np.sort(y) + np.round(y, 2)\n" in text  # rejected
    assert "mod.py: 2 of 4 hunk(s) accepted, 2 rejected; written" in session.output


def test_a_applies_and_d_skips_the_rest_of_the_file(review, run_cli, tmp_path):
    first = write(tmp_path / "a.py", KEEPS_NUMPY)
    second = write(tmp_path / "b.py", KEEPS_NUMPY)
    expected = migrated_by_cli(run_cli, tmp_path, "b.py")
    session = review("a.py", "b.py")
    session.answer("y", "d")  # a.py: the import only, then skip the rest
    assert session.prompt() == ("b.py", "1/4")
    session.child.sendline("a")  # b.py: everything from the first hunk on
    assert session.finish() == 0
    assert first.read_text() == KEEPS_NUMPY.replace("import numpy as np\n", KEEPS_NUMPY_IMPORTS)
    assert second.read_text() == expected
    assert "a.py: 1 of 4 hunk(s) accepted, 3 rejected; written" in session.output
    assert "b.py: 4 of 4 hunk(s) accepted, 0 rejected; written" in session.output
    assert session.output.count("Apply this hunk to b.py") == 1


def test_q_writes_what_was_accepted_and_leaves_later_files(review, tmp_path):
    first = write(tmp_path / "a.py", KEEPS_NUMPY)
    second = write(tmp_path / "b.py", KEEPS_NUMPY)
    session = review("a.py", "b.py")
    session.answer("y", "y", "q")
    assert session.finish() == 0
    text = first.read_text()
    assert text.startswith(KEEPS_NUMPY_IMPORTS) and "jnp.sum(y ** 2)" in text and "np.abs(width)" in text
    assert second.read_text() == KEEPS_NUMPY
    assert "a.py: 2 of 4 hunk(s) accepted, 2 rejected; written" in session.output
    assert "b.py: not reviewed" in session.output


def test_question_mark_and_unknown_answers_print_the_help_and_ask_again(review, tmp_path):
    source = write(tmp_path / "mod.py", KEEPS_NUMPY)
    session = review("mod.py")
    session.answer("?")
    session.expect("e - edit this hunk's migrated lines in \\$EDITOR")
    assert session.prompt() == ("mod.py", "1/4")  # the same hunk again
    session.child.sendline("x")
    session.expect("Unknown answer 'x'")
    session.expect("q - quit")
    session.answer("d")
    assert session.finish() == 0
    assert source.read_text() == KEEPS_NUMPY


def test_e_replaces_the_hunk_with_what_the_editor_saved(review, tmp_path):
    source = write(tmp_path / "mod.py", KEEPS_NUMPY)
    editor = write(tmp_path / "edit.py", textwrap.dedent("""\
        import pathlib, sys
        path = pathlib.Path(sys.argv[1])
        path.write_text(path.read_text().replace("jnp.abs(width)", "jnp.abs(width) * 1.0  # reviewed"))
    """))
    session = review("mod.py", env={"EDITOR": f"{sys.executable} {editor}"})
    session.answer("n", "n", "e", "n")
    assert session.finish() == 0
    text = source.read_text()
    assert "    return jnp.abs(width) * 1.0  # reviewed\n" in text
    assert text.startswith(KEEPS_NUMPY_IMPORTS)  # the edited line uses jnp: its import came along
    assert "Also applying hunk 1" in session.output
    assert "mod.py: 2 of 4 hunk(s) accepted (1 edited), 2 rejected; written" in session.output


def test_an_editor_that_fails_leaves_the_hunk_to_answer_again(review, tmp_path):
    source = write(tmp_path / "mod.py", KEEPS_NUMPY)
    session = review("mod.py", env={"EDITOR": f"{sys.executable} -c 'raise SystemExit(3)'"})
    session.answer("e")
    session.expect("The editor exited with status 3")
    assert session.prompt() == ("mod.py", "1/4")
    session.child.sendline("d")
    assert session.finish() == 0
    assert source.read_text() == KEEPS_NUMPY


def test_accepting_a_hunk_that_uses_jnp_brings_the_import_hunk(review, tmp_path):
    source = write(tmp_path / "mod.py", KEEPS_NUMPY)
    session = review("mod.py")
    session.answer("n", "y")  # reject the import hunk, accept `jnp.sum`
    session.expect("Also applying hunk 1: this hunk uses `jnp`, which hunk 1 imports.")
    session.answer("n", "n")
    assert session.finish() == 0
    text = source.read_text()
    assert text.startswith(KEEPS_NUMPY_IMPORTS) and "jnp.sum(y ** 2)" in text
    assert "mod.py: 2 of 4 hunk(s) accepted, 2 rejected; written" in session.output


def test_an_import_removed_while_a_line_still_uses_it_is_explained_and_asked_again(review, tmp_path):
    source = write(tmp_path / "mod.py", DROPS_NUMPY)
    session = review("mod.py")
    session.answer("y", "y", "n")  # `import numpy as np` goes, but `np.abs` stays
    session.expect("The hunks accepted for mod.py do not work together:")
    session.expect(r"line 17 uses `np`, which nothing imports or defines any more \(hunk 1 removes its import\)")
    session.expect(r"again \[r\], or leave it unchanged \[n\]\? ")
    assert source.read_text() == DROPS_NUMPY  # nothing written yet
    session.child.sendline("r")
    assert session.prompt() == ("mod.py", "1/3")
    session.child.sendline("a")
    assert session.finish() == 0
    assert source.read_text() == DROPS_NUMPY_MIGRATED


def test_leaving_a_broken_combination_unchanged_writes_nothing(review, tmp_path):
    source = write(tmp_path / "mod.py", DROPS_NUMPY)
    session = review("mod.py")
    session.answer("y", "n", "n")
    session.expect(r"leave it unchanged \[n\]\? ")
    session.child.sendline("n")
    assert session.finish() == 0
    assert source.read_text() == DROPS_NUMPY
    assert "mod.py: 1 of 3 hunk(s) accepted, 2 rejected; unchanged" in session.output


def test_an_edit_that_does_not_parse_is_never_written(review, tmp_path):
    source = write(tmp_path / "mod.py", KEEPS_NUMPY)
    editor = write(tmp_path / "edit.py", "import sys\nopen(sys.argv[1], 'a').write('    return (\\n')\n")
    session = review("mod.py", env={"EDITOR": f"{sys.executable} {editor}"})
    session.answer("y", "e", "n", "n")
    session.expect("do not work together")
    session.expect("does not parse")
    session.child.sendline("n")
    assert session.finish() == 0
    assert source.read_text() == KEEPS_NUMPY


def test_colour_highlights_the_diff(review, tmp_path):
    write(tmp_path / "mod.py", KEEPS_NUMPY)
    session = review("mod.py", "--color", "always")
    session.prompt()
    assert "\x1b[" in session.child.before
    session.child.sendline("d")
    assert session.finish() == 0


def test_nothing_to_review(review, tmp_path):
    write(tmp_path / "plain.py", "def f(x):\n    return x + 1\n")
    session = review("plain.py")
    session.expect("Nothing to review")
    assert session.finish() == 0


def test_eof_on_the_terminal_quits_like_q(review, tmp_path):
    source = write(tmp_path / "mod.py", KEEPS_NUMPY)
    session = review("mod.py")
    session.answer("y")
    session.prompt()
    session.child.sendeof()
    assert session.finish() == 0
    assert source.read_text().startswith(KEEPS_NUMPY_IMPORTS)


def test_without_a_terminal_it_exits_2_with_one_line(run_cli, tmp_path):
    source = write(tmp_path / "mod.py", KEEPS_NUMPY)
    result = run_cli("review", "mod.py", cwd=tmp_path)
    assert result.returncode == 2, result
    assert len(result.stderr_lines) == 1 and "needs a terminal on stdin" in result.stderr
    assert result.stdout == ""
    assert source.read_text() == KEEPS_NUMPY


def test_a_missing_path_is_a_usage_error(review, tmp_path):
    session = review("missing.py")
    session.expect("np2jax: error: missing.py: no such file or directory")
    assert session.finish() == 2


def test_verify_shows_the_check_verdict_of_the_functions_a_hunk_touches(review, tmp_path):
    write(tmp_path / "mod.py", KEEPS_NUMPY)
    session = review("mod.py", "--verify")
    session.expect("Checking the migration of 1 file\\(s\\) with np2jax check")
    assert session.prompt() == ("mod.py", "1/4")
    assert "check " not in session.child.before  # the import hunk touches no function
    session.child.sendline("n")
    assert session.prompt() == ("mod.py", "2/4")
    hunk = session.child.before.replace("\r\n", "\n")
    assert "  check total: equivalent (" in hunk and "check spread" not in hunk
    session.child.sendline("n")
    assert session.prompt() == ("mod.py", "3/4")
    assert "  check spread: equivalent (" in session.child.before
    session.child.sendline("q")
    assert session.finish() == 0


def test_ctrl_c_writes_nothing_for_the_file_under_review(review, tmp_path):
    first = write(tmp_path / "a.py", KEEPS_NUMPY)
    second = write(tmp_path / "b.py", KEEPS_NUMPY)
    session = review("a.py", "b.py")
    session.answer("a")  # a.py: everything, written when its review ends
    session.answer("y")  # b.py: the first hunk, then Ctrl-C
    session.prompt()
    session.child.sendintr()
    session.expect("np2jax: interrupted")
    assert session.finish() == 130
    assert first.read_text() != KEEPS_NUMPY
    assert second.read_text() == KEEPS_NUMPY


def test_a_file_that_cannot_be_migrated_is_named_and_the_others_reviewed(review, tmp_path):
    write(tmp_path / "broken.py", "import numpy as np\ndef f(:\n")
    source = write(tmp_path / "mod.py", KEEPS_NUMPY)
    session = review(".")
    session.expect("broken.py: error: syntax error at line 2")
    session.answer("a")
    assert session.finish() == 3
    assert source.read_text() != KEEPS_NUMPY
