"""The `np2jax migrate` contract (shared/CLI_CONTRACT.md), through the real command line."""

from __future__ import annotations

import ast
import json
import os
import pty
import re
import select
import stat
import subprocess
import sys
from pathlib import Path

import pytest

import np2jax
from conftest import SIMPLE, SIMPLE_MIGRATED, write

ANSI = re.compile(r"\x1b\[[0-9;]*m")
SIMPLE_DIFF = (
    "--- mod.py\t(original)\n"
    "+++ mod.py\t(migrated)\n"
    "@@ -1,4 +1,6 @@\n"
    "-import numpy as np\n"
    "+import jax\n"
    "+import jax.numpy as jnp\n"
    " \n"
    "+@jax.jit\n"
    " def f(x):\n"
    "-    return np.sum(x ** 2)\n"
    "+    return jnp.sum(x ** 2)\n"
)
SUMMARY = re.compile(r"^(\d+) file\(s\) (would be migrated|migrated), (\d+) unchanged, (\d+) failed; diagnostics: ", re.M)


def summary(run) -> tuple[int, str, int, int]:
    found = SUMMARY.findall(run.stderr)
    assert len(found) == 1, run
    changed, verb, unchanged, failed = found[0]
    return int(changed), verb, int(unchanged), int(failed)


def tree_state(root: Path) -> dict[str, tuple[bytes, int]]:
    """Every file under ``root`` (links not followed) with its bytes and mode."""
    state = {}
    for path in sorted(root.rglob("*")):
        if path.is_file() and not path.is_symlink():
            state[str(path.relative_to(root))] = (path.read_bytes(), stat.S_IMODE(path.stat().st_mode))
    return state


# --- dry run -------------------------------------------------------------------


def test_dry_run_prints_a_plain_unified_diff_and_writes_nothing(tmp_path, run_cli):
    write(tmp_path / "mod.py", SIMPLE)
    write(tmp_path / "plain.py", "def g(x):\n    return x + 1\n")
    before = tree_state(tmp_path)
    run = run_cli("migrate", "mod.py", "plain.py", cwd=tmp_path)
    assert run.returncode == 0, run
    assert run.stdout == SIMPLE_DIFF  # stdout is a pipe, not a TTY: no colour
    assert summary(run) == (1, "would be migrated", 1, 0)
    assert run.stderr.strip().count("\n") == 0, run  # the summary is the only line here
    assert tree_state(tmp_path) == before


def test_color_always_and_never(tmp_path, run_cli):
    write(tmp_path / "mod.py", SIMPLE)
    always = run_cli("migrate", "--color", "always", "mod.py", cwd=tmp_path)
    assert always.returncode == 0, always
    assert "\x1b[32m+    return jnp.sum(x ** 2)" in always.stdout
    assert "\x1b[31m-    return np.sum(x ** 2)" in always.stdout
    assert ANSI.sub("", always.stdout) == SIMPLE_DIFF
    # A changed line that starts with "--" is a removal, not a file header.
    write(tmp_path / "odd.py", "import numpy as np\n\ndef f(x):\n    return (\n--np.sum(x))\n")
    odd = run_cli("migrate", "--color", "always", "odd.py", cwd=tmp_path)
    assert "\x1b[31m---np.sum(x))\x1b[0m\n\x1b[32m+--jnp.sum(x))\x1b[0m\n" in odd.stdout, odd
    never = run_cli("migrate", "--color", "never", "mod.py", cwd=tmp_path)
    assert never.stdout == SIMPLE_DIFF
    bad = run_cli("migrate", "--color", "sometimes", "mod.py", cwd=tmp_path)
    assert bad.returncode == 2 and bad.stdout == ""


def _run_on_a_tty(args: list[str], cwd: Path, env: dict[str, str]) -> str:
    """Run the CLI with stdout on a pseudo-terminal and return what it printed there."""
    master, slave = pty.openpty()
    try:
        process = subprocess.Popen(
            [sys.executable, "-m", "np2jax", *args], cwd=cwd, env=env,
            stdin=subprocess.DEVNULL, stdout=slave, stderr=subprocess.PIPE,
        )
    finally:
        os.close(slave)
    chunks = []
    while True:
        ready, _, _ = select.select([master], [], [], 60)
        assert ready, "no output from the CLI on the terminal"
        try:
            chunk = os.read(master, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(master)
    stderr = process.stderr.read().decode()
    process.stderr.close()
    assert process.wait(timeout=60) == 0, stderr
    assert "Traceback" not in stderr
    return b"".join(chunks).decode().replace("\r\n", "\n")


def test_color_auto_follows_the_terminal_and_no_color(tmp_path, cache_dir):
    write(tmp_path / "mod.py", SIMPLE)
    env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
    env["NP2JAX_CACHE_DIR"] = str(cache_dir)
    on_tty = _run_on_a_tty(["migrate", "mod.py"], tmp_path, env)
    assert "\x1b[32m+    return jnp.sum(x ** 2)" in on_tty
    assert ANSI.sub("", on_tty) == SIMPLE_DIFF
    no_color = _run_on_a_tty(["migrate", "mod.py"], tmp_path, {**env, "NO_COLOR": "1"})
    assert no_color == SIMPLE_DIFF


def test_diff_survives_a_stdout_that_cannot_encode_the_file(tmp_path, run_cli):
    source = '# -*- coding: latin-1 -*-\nimport numpy as np\n\ndef f(x):\n    s = "caf\xe9"\n    return np.sum(x), s\n'
    write(tmp_path / "lat.py", source.encode("latin-1"))
    run = run_cli("migrate", "lat.py", cwd=tmp_path, env={"PYTHONIOENCODING": "ascii"})
    assert run.returncode == 0, run
    assert "+    return jnp.sum(x), s\n" in run.stdout
    assert '     s = "caf\\xe9"\n' in run.stdout  # escaped, not a UnicodeEncodeError
    written = run_cli("migrate", "--write", "lat.py", cwd=tmp_path, env={"PYTHONIOENCODING": "ascii"})
    assert written.returncode == 0, written
    # (not jitted: it returns a str)
    assert (tmp_path / "lat.py").read_bytes() == source.replace("np.sum", "jnp.sum").replace(
        "import numpy as np", "import jax.numpy as jnp").encode("latin-1")


def test_a_closed_pipe_on_stdout_is_not_a_traceback(tmp_path, cache_dir):
    # Diffs far larger than a pipe's buffer: the CLI is still writing when the reader leaves.
    big_line = "x" * 100_000
    for name in ("a", "b", "c", "d"):
        write(tmp_path / f"{name}.py", f'import numpy as np\n\ndef f(x):\n    s = "{big_line}"\n    return np.sum(x), s\n')
    env = {**os.environ, "NP2JAX_CACHE_DIR": str(cache_dir)}
    process = subprocess.Popen(
        [sys.executable, "-m", "np2jax", "migrate", "."], cwd=tmp_path, env=env,
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )
    assert process.stdout.readline() == b"--- ./a.py\t(original)\n"
    process.stdout.close()  # like `np2jax migrate . | head -1`
    stderr = process.stderr.read().decode()
    process.stderr.close()
    process.wait(timeout=60)
    assert "Traceback" not in stderr and "BrokenPipe" not in stderr, stderr
    assert SUMMARY.search(stderr), stderr  # the run still finished and summed up


# --- --write -------------------------------------------------------------------


def test_write_rewrites_atomically_and_keeps_the_mode(tmp_path, run_cli):
    script = write(tmp_path / "tool.py", "#!/usr/bin/env python\n" + SIMPLE, mode=0o755)
    private = write(tmp_path / "private.py", SIMPLE, mode=0o600)
    os.symlink("tool.py", tmp_path / "alias.py")  # reached twice: written once, the link kept
    inode = script.stat().st_ino
    run = run_cli("migrate", "--write", ".", cwd=tmp_path)
    assert run.returncode == 0, run
    assert run.stdout == ""
    assert summary(run)[1:] == ("migrated", 0, 0)
    assert script.read_text() == "#!/usr/bin/env python\n" + SIMPLE_MIGRATED
    assert private.read_text() == SIMPLE_MIGRATED
    assert stat.S_IMODE(script.stat().st_mode) == 0o755
    assert stat.S_IMODE(private.stat().st_mode) == 0o600
    assert script.stat().st_ino != inode  # a new file renamed over the old one, not rewritten in place
    assert (tmp_path / "alias.py").is_symlink() and os.readlink(tmp_path / "alias.py") == "tool.py"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["alias.py", "private.py", "tool.py"]


def test_write_is_idempotent(tmp_path, run_cli):
    write(tmp_path / "pkg" / "a.py", SIMPLE)
    # b.py keeps a flagged call (NPJ104 warning) next to a rewritten one
    write(tmp_path / "pkg" / "b.py", "import numpy as np\n\ndef g(x):\n    u = np.round(x, 2)\n    return np.mean(u)\n")
    first = run_cli("migrate", "--write", "pkg", cwd=tmp_path)
    assert first.returncode == 0, first
    assert summary(first) == (2, "migrated", 0, 0)
    after_first = tree_state(tmp_path / "pkg")
    second = run_cli("migrate", "--write", "pkg", cwd=tmp_path)
    assert second.returncode == 0, second
    assert summary(second) == (0, "migrated", 2, 0)
    assert tree_state(tmp_path / "pkg") == after_first
    dry = run_cli("migrate", "pkg", cwd=tmp_path)
    assert dry.stdout == "" and dry.returncode == 0
    check = run_cli("migrate", "--check", "pkg", cwd=tmp_path)
    assert check.returncode == 0, check


# --- --out ---------------------------------------------------------------------


def _project(root: Path) -> Path:
    project = root / "proj"
    write(project / "pkg" / "__init__.py", "from . import core\nfrom .sub import deep\n")
    write(project / "pkg" / "core.py", "import numpy as np\n\n\ndef f(x):\n    return np.sum(x ** 2)\n")
    write(project / "pkg" / "util.py", "def helper(x):\n    return x + 1\n", mode=0o755)
    write(project / "pkg" / "sub" / "__init__.py", "")
    write(project / "pkg" / "sub" / "deep.py", "import numpy as np\nfrom ..util import helper\n\n\ndef g(x):\n    return np.mean(x) + helper(1)\n")
    write(project / "pkg" / "notes.txt", "not python\n")
    write(project / "pkg" / "data" / "table.csv", "1,2,3\n")
    write(project / "pkg" / "data" / ".cache", "hidden files stay behind\n")
    return project


def test_out_mirrors_the_tree_and_the_package_imports(tmp_path, run_cli):
    project = _project(tmp_path)
    before = tree_state(project)
    run = run_cli("migrate", "proj", "--out", "migrated", cwd=tmp_path)
    assert run.returncode == 0, run
    assert summary(run) == (2, "migrated", 3, 0)
    assert run.stdout == ""
    assert tree_state(project) == before  # the inputs are untouched
    out = tmp_path / "migrated"
    assert sorted(str(p.relative_to(out)) for p in out.rglob("*.py")) == [
        "pkg/__init__.py", "pkg/core.py", "pkg/sub/__init__.py", "pkg/sub/deep.py", "pkg/util.py",
    ]
    # Package data comes along (hidden files do not), so code that loads it still finds it.
    assert sorted(str(p.relative_to(out)) for p in out.rglob("*") if p.is_file() and p.suffix != ".py") == [
        "pkg/data/table.csv", "pkg/notes.txt",
    ]
    assert (out / "pkg" / "data" / "table.csv").read_text() == "1,2,3\n"
    assert (out / "pkg" / "core.py").read_text() == "import jax\nimport jax.numpy as jnp\n\n\n@jax.jit\ndef f(x):\n    return jnp.sum(x ** 2)\n"
    assert (out / "pkg" / "util.py").read_bytes() == (project / "pkg" / "util.py").read_bytes()
    assert stat.S_IMODE((out / "pkg" / "util.py").stat().st_mode) == 0o755
    # g calls a helper of another module, which np2jax cannot see into: migrated, not jitted (NPJ302)
    assert (out / "pkg" / "sub" / "deep.py").read_text().startswith("import jax.numpy as jnp\nfrom ..util import helper\n")
    check = subprocess.run(
        [sys.executable, "-c", "import pkg; print(float(pkg.core.f(pkg.core.jnp.arange(3.0))), float(pkg.deep.g(pkg.core.jnp.ones(2))))"],
        cwd=out, capture_output=True, text=True, timeout=120,
        env={**os.environ, "JAX_PLATFORMS": "cpu", "PYTHONPATH": ""},
    )
    assert check.returncode == 0, check.stderr
    assert check.stdout.split() == ["5.0", "3.0"]


def test_out_with_a_single_file_and_inside_the_tree(tmp_path, run_cli):
    project = _project(tmp_path)
    single = run_cli("migrate", "proj/pkg/core.py", "--out", "one", cwd=tmp_path)
    assert single.returncode == 0, single
    assert sorted(p.name for p in (tmp_path / "one").iterdir()) == ["core.py"]
    assert "jnp.sum" in (tmp_path / "one" / "core.py").read_text()
    # DIR inside PATH: the second run must not walk (and nest) the first run's output.
    for _ in range(2):
        nested = run_cli("migrate", "proj", "--out", "proj/migrated", cwd=tmp_path)
        assert nested.returncode == 0, nested
        assert summary(nested) == (2, "migrated", 3, 0)
    assert not (project / "migrated" / "migrated").exists()
    assert (project / "migrated" / "pkg" / "core.py").is_file()


def test_out_copies_data_files_once_and_keeps_going_past_ones_it_cannot_copy(tmp_path, run_cli):
    project = _project(tmp_path)
    first = run_cli("migrate", "proj", "--out", "migrated", cwd=tmp_path)
    assert first.returncode == 0, first
    copied = tmp_path / "migrated" / "pkg" / "data" / "table.csv"
    os.utime(copied, ns=(1, 1))  # a changed copy is refreshed from the input on the next run
    os.mkfifo(project / "pkg" / "data" / "pipe")
    second = run_cli("migrate", "proj", "--out", "migrated", cwd=tmp_path)
    assert second.returncode == 0, second
    assert copied.stat().st_mtime_ns == (project / "pkg" / "data" / "table.csv").stat().st_mtime_ns
    assert "proj/pkg/data/pipe: note: not a regular file; not copied to --out" in second.stderr
    assert not (tmp_path / "migrated" / "pkg" / "data" / "pipe").exists()
    blocked = tmp_path / "migrated" / "pkg" / "notes.txt"
    blocked.unlink()
    blocked.mkdir()  # a directory where the copy must go: reported, the rest still written
    third = run_cli("migrate", "proj", "--out", "migrated", cwd=tmp_path)
    assert third.returncode == 3, third
    assert "proj/pkg/notes.txt: error: cannot copy to" in third.stderr
    assert (tmp_path / "migrated" / "pkg" / "core.py").is_file()


def test_out_refuses_to_overwrite_inputs_or_merge_two_files(tmp_path, run_cli):
    write(tmp_path / "a" / "mod.py", SIMPLE)
    write(tmp_path / "b" / "mod.py", SIMPLE.replace("f(x)", "g(x)"))
    before = tree_state(tmp_path / "a")
    same = run_cli("migrate", "a", "--out", "a", cwd=tmp_path)
    assert same.returncode == 2, same
    assert tree_state(tmp_path / "a") == before
    clash = run_cli("migrate", "a", "b", "--out", "out", cwd=tmp_path)
    assert clash.returncode == 2, clash
    assert "a/mod.py" in clash.stderr and "b/mod.py" in clash.stderr
    assert not (tmp_path / "out").exists()
    write(tmp_path / "c" / "weights.npy", "c")
    write(tmp_path / "d" / "weights.npy", "d")
    data_clash = run_cli("migrate", "c", "d", "--out", "out", cwd=tmp_path)
    assert data_clash.returncode == 2, data_clash
    assert "c/weights.npy" in data_clash.stderr and "d/weights.npy" in data_clash.stderr
    assert not (tmp_path / "out").exists()


# --- --check -------------------------------------------------------------------


def test_check_exit_status_and_writes_nothing(tmp_path, run_cli):
    write(tmp_path / "pending" / "mod.py", SIMPLE)
    write(tmp_path / "done" / "mod.py", SIMPLE_MIGRATED)
    before = tree_state(tmp_path)
    pending = run_cli("migrate", "--check", "pending", "done", cwd=tmp_path)
    assert pending.returncode == 1, pending
    assert "pending/mod.py" in pending.stderr and "done/mod.py" not in pending.stderr
    assert tree_state(tmp_path) == before
    done = run_cli("migrate", "--check", "done", cwd=tmp_path)
    assert done.returncode == 0, done
    assert done.stdout == ""
    assert tree_state(tmp_path) == before
    broken = write(tmp_path / "broken" / "bad.py", "def f(:\n")
    failed = run_cli("migrate", "--check", "done", str(broken.relative_to(tmp_path)), cwd=tmp_path)
    assert failed.returncode == 3, failed  # a file that cannot be processed wins over "nothing pending"


# --- --report ------------------------------------------------------------------

REPORTED = '''"""Docs."""
import functools
import numpy as np

LIMIT = 3


@functools.lru_cache(
    maxsize=None,
)
def decorated(n):
    text = """a
b"""
    return np.arange(n).max() + len(text)


class Klass:
    def method(self, x):
        y = x + \\
            1
        return np.sum(y)

    @staticmethod
    def shapes(x):
        u = np.unique(x); u.sort()
        return u

    class Inner:
        def deep(self, x):
            def local(z):
                return np.abs(z)
            return local(x)
    # comment after the class body


async def coro(x):
    return np.max(x)
'''


def _ast_functions(source: str) -> list[tuple[str, int, int]]:
    found = []

    def walk(node, prefix):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                found.append((prefix + child.name, child.lineno, child.end_lineno))
                walk(child, f"{prefix}{child.name}.<locals>.")
            elif isinstance(child, ast.ClassDef):
                walk(child, f"{prefix}{child.name}.")
            else:
                walk(child, prefix)

    walk(ast.parse(source), "")
    return sorted(found, key=lambda item: item[1])


@pytest.mark.parametrize("newline", ["\n", "\r\n"], ids=["lf", "crlf"])
def test_report_version_1(tmp_path, run_cli, newline):
    write(tmp_path / "proj" / "pkg" / "mod.py", REPORTED.replace("\n", newline))
    write(tmp_path / "proj" / "pkg" / "plain.py", "def plain(a):\n    return a\n\n\nclass C:\n    def m(self):\n        pass\n")
    write(tmp_path / "proj" / "pkg" / "broken.py", "def f(:\n")
    before = tree_state(tmp_path / "proj")
    run = run_cli("migrate", "proj", "--report", "out/report.json", "--quiet", cwd=tmp_path)
    assert run.returncode == 3, run  # broken.py
    assert tree_state(tmp_path / "proj") == before
    assert "NPJ102" not in run.stderr  # --quiet: no diagnostics on stderr
    report = json.loads((tmp_path / "out" / "report.json").read_text())

    assert set(report) == {"version", "files", "functions", "diagnostics"}
    assert report["version"] == 1
    files = {entry["path"]: entry for entry in report["files"]}
    assert list(files) == ["proj/pkg/broken.py", "proj/pkg/mod.py", "proj/pkg/plain.py"]
    for entry in report["files"]:
        assert set(entry) == {"path", "status", "error"}
    assert files["proj/pkg/mod.py"]["status"] == "changed" and files["proj/pkg/mod.py"]["error"] is None
    assert files["proj/pkg/plain.py"]["status"] == "unchanged"
    assert files["proj/pkg/broken.py"]["status"] == "error"
    assert isinstance(files["proj/pkg/broken.py"]["error"], str) and "\n" not in files["proj/pkg/broken.py"]["error"]

    for entry in report["functions"]:
        assert set(entry) == {"path", "qualname", "line", "end_line", "jit", "static_argnums", "status"}
        assert isinstance(entry["jit"], bool) and isinstance(entry["static_argnums"], list)
        assert entry["status"] in {"migrated", "needs-review", "unsupported"}
    # Every function and method, lines of the ORIGINAL file (the output gained an import line).
    by_path = lambda path: [(f["qualname"], f["line"], f["end_line"]) for f in report["functions"] if f["path"] == path]
    assert by_path("proj/pkg/mod.py") == _ast_functions(REPORTED)
    assert [q for q, _, _ in by_path("proj/pkg/mod.py")] == [
        "decorated", "Klass.method", "Klass.shapes", "Klass.Inner.deep", "Klass.Inner.deep.<locals>.local", "coro",
    ]
    assert by_path("proj/pkg/plain.py") == [("plain", 1, 2), ("C.m", 6, 7)]
    status = {f["qualname"]: f["status"] for f in report["functions"]}
    assert status["Klass.shapes"] == "unsupported" and status["decorated"] == "migrated"
    # methods share `self`, but a static method has none: `Klass.shapes`, left untouched (np.unique), does not
    # keep `Klass.method` untouched (np2jax/propagation.py, is_static_method)
    assert status["Klass.method"] == "migrated"
    assert not any(d["code"] == "NPJ202" and "Klass.shapes" in d["message"] for d in report["diagnostics"])

    (diagnostic,) = [d for d in report["diagnostics"] if d["code"] == "NPJ102"]
    assert set(diagnostic) >= {"path", "line", "col", "code", "severity", "message"}
    assert diagnostic["path"] == "proj/pkg/mod.py"
    line = REPORTED.splitlines().index("        u = np.unique(x); u.sort()") + 1
    assert (diagnostic["line"], diagnostic["col"]) == (line, 13)  # `np.unique` in the original, 1-based
    assert diagnostic["severity"] == "error" and diagnostic["message"]
    for entry in report["diagnostics"]:
        assert entry["severity"] in {"error", "warning", "info"}


def test_report_destination_problems(tmp_path, run_cli):
    write(tmp_path / "mod.py", SIMPLE)
    (tmp_path / "adir").mkdir()
    run = run_cli("migrate", "mod.py", "--report", "adir", cwd=tmp_path)
    assert run.returncode == 2, run
    assert run.stdout == ""
    # A report that cannot be written is an error (exit 3) named on stderr, not a traceback.
    blocked = run_cli("migrate", "mod.py", "--report", "mod.py/report.json", cwd=tmp_path)
    assert blocked.returncode == 3, blocked
    assert "mod.py/report.json" in blocked.stderr
    assert blocked.stdout == SIMPLE_DIFF  # the migration itself still ran
    # A new report is created like any new file: under umask 077 nobody else can read it.
    private = run_cli("migrate", "mod.py", "--report", "private.json", cwd=tmp_path, umask=0o077)
    assert private.returncode == 0, private
    assert stat.S_IMODE((tmp_path / "private.json").stat().st_mode) == 0o600


# --- bad usage -----------------------------------------------------------------

BAD_USAGE = {
    "unknown-option": ["migrate", "--frobnicate", "mod.py"],
    "missing-path": ["migrate"],
    "nonexistent-path": ["migrate", "mod.py", "no/such/file.py"],
    "write-with-out": ["migrate", "--write", "--out", "dest", "mod.py"],
    "write-with-check": ["migrate", "--write", "--check", "mod.py"],
    "unknown-select": ["migrate", "--select", "NPJ102,NPJ999", "mod.py"],
    "unknown-ignore": ["migrate", "--ignore", "BOGUS", "mod.py"],
    "negative-jobs": ["migrate", "--jobs", "-1", "mod.py"],
    "jobs-not-a-number": ["migrate", "--jobs", "many", "mod.py"],
    "out-is-a-file": ["migrate", "--out", "mod.py", "mod.py"],
    "no-command": [],
    "unknown-command": ["transmogrify", "mod.py"],
}


@pytest.mark.parametrize("args", list(BAD_USAGE.values()), ids=list(BAD_USAGE))
def test_bad_usage_exits_2_without_a_traceback(tmp_path, run_cli, args):
    write(tmp_path / "mod.py", SIMPLE)
    before = tree_state(tmp_path)
    run = run_cli(*args, cwd=tmp_path)
    assert run.returncode == 2, run
    assert "Traceback" not in run.stderr
    assert run.stdout == ""
    assert "error:" in run.stderr_lines[-1], run  # the last line says what is wrong
    assert tree_state(tmp_path) == before
    assert not (tmp_path / "dest").exists()


# --- walking -------------------------------------------------------------------


def test_walk_skips_hidden_dirs_venvs_and_build_output(tmp_path, run_cli):
    root = tmp_path / "repo"
    kept = ["src/app.py", "src/env/__init__.py", "src/env/cartpole.py", "tools/build_docs.py"]
    skipped = [
        ".git/hooks/x.py", ".hidden/mod.py", ".dotfile.py", "venv/lib/mod.py", "my-env/lib/mod.py",
        "conda/lib/mod.py", "tools/env/lib/mod.py", "build/lib/mod.py",
        "dist/mod.py", "src/__pycache__/mod.py", "node_modules/pkg/mod.py", "src/env/.cache/mod.py",
    ]
    for relative in kept + skipped:
        write(root / relative, SIMPLE)
    write(root / "venv" / "pyvenv.cfg", "home = /usr/bin\n")
    write(root / "my-env" / "pyvenv.cfg", "home = /usr/bin\n")  # a venv under any name
    (root / "conda" / "conda-meta").mkdir(parents=True)
    write(root / "tools" / "env" / "bin" / "activate", "# an old virtualenv without pyvenv.cfg\n")
    write(root / "README.md", "# not python\n")
    run = run_cli("migrate", "repo", "--report", "report.json", cwd=tmp_path)
    assert run.returncode == 0, run
    report = json.loads((tmp_path / "report.json").read_text())
    assert [entry["path"] for entry in report["files"]] == [f"repo/{relative}" for relative in sorted(kept)]
    assert sorted(re.findall(r"^--- (\S+)\t", run.stdout, re.M)) == [f"repo/{relative}" for relative in sorted(kept)]
    # An explicitly named skipped directory is still migrated.
    explicit = run_cli("migrate", "repo/build", cwd=tmp_path)
    assert "--- repo/build/lib/mod.py\t(original)" in explicit.stdout


# --- the cache -----------------------------------------------------------------


def test_cache_gives_identical_results_and_no_cache_touches_nothing(tmp_path, run_cli):
    write(tmp_path / "pkg" / "mod.py", SIMPLE)
    write(tmp_path / "pkg" / "review.py", "import numpy as np\n\ndef g(x):\n    u = np.unique(x)\n    return np.mean(u)\n")
    write(tmp_path / "pkg" / "plain.py", "def h(x):\n    return x\n")
    cache = tmp_path / "cache"
    env = {"NP2JAX_CACHE_DIR": str(cache)}
    args = ("migrate", "pkg", "--report", "r.json")
    first = run_cli(*args, cwd=tmp_path, env=env)
    first_report = (tmp_path / "r.json").read_text()
    entries = [p for p in cache.rglob("*") if p.is_file()]
    assert len(entries) == 3, entries  # one per file
    second = run_cli(*args, cwd=tmp_path, env=env)
    assert (second.returncode, second.stdout, second.stderr) == (first.returncode, first.stdout, first.stderr)
    assert (tmp_path / "r.json").read_text() == first_report
    assert "review.py:4:" in second.stderr  # diagnostics come back from the cache too

    # The same trees under another PATH spelling: paths in the output follow the new spelling.
    moved = run_cli("migrate", "./pkg", cwd=tmp_path, env=env)
    assert moved.stdout == first.stdout.replace("pkg/", "./pkg/")
    assert "./pkg/review.py:4:" in moved.stderr

    # Corrupt cache entries are ignored, not fatal.
    for entry in entries:
        entry.write_bytes(b"not a pickle")
    corrupt = run_cli(*args, cwd=tmp_path, env=env)
    assert (corrupt.returncode, corrupt.stdout, corrupt.stderr) == (first.returncode, first.stdout, first.stderr)

    fresh = tmp_path / "fresh-cache"
    for extra in (["--no-cache"], ["--no-cache", "--jobs", "0"]):
        uncached = run_cli(*args, *extra, cwd=tmp_path, env={"NP2JAX_CACHE_DIR": str(fresh)})
        assert (uncached.returncode, uncached.stdout, uncached.stderr) == (first.returncode, first.stdout, first.stderr)
        assert (tmp_path / "r.json").read_text() == first_report
    assert not fresh.exists()

    # A cache location that cannot be used only costs speed.
    blocked = write(tmp_path / "not-a-dir", "")
    unusable = run_cli(*args, cwd=tmp_path, env={"NP2JAX_CACHE_DIR": str(blocked)})
    assert (unusable.returncode, unusable.stdout, unusable.stderr) == (first.returncode, first.stdout, first.stderr)


def test_cache_does_not_confuse_init_with_a_module(tmp_path, run_cli):
    # NumPy imports stay in a package's __init__.py (they may be re-exported); the same bytes
    # in mod.py lose them. A cached __init__.py result must not be reused for mod.py.
    write(tmp_path / "pkg" / "__init__.py", SIMPLE)
    write(tmp_path / "pkg" / "mod.py", SIMPLE)
    env = {"NP2JAX_CACHE_DIR": str(tmp_path / "cache")}
    run_cli("migrate", "pkg/__init__.py", cwd=tmp_path, env=env)
    cached = run_cli("migrate", "pkg/mod.py", cwd=tmp_path, env=env)
    uncached = run_cli("migrate", "pkg/mod.py", "--no-cache", cwd=tmp_path)
    assert cached.stdout == uncached.stdout == SIMPLE_DIFF.replace("mod.py", "pkg/mod.py")


# --- explain, --version ----------------------------------------------------------


def test_explain(run_cli, tmp_path):
    doc = run_cli("explain", "NPJ102", cwd=tmp_path)
    assert doc.returncode == 0, doc
    assert doc.stdout.startswith("# NPJ102 data-dependent-shape\n")
    assert "## What it does" in doc.stdout
    assert run_cli("explain", "npj102", cwd=tmp_path).stdout == doc.stdout
    unknown = run_cli("explain", "NPJ999", cwd=tmp_path)
    assert unknown.returncode == 2, unknown
    assert unknown.stdout == ""
    assert "NPJ999" in unknown.stderr and len(unknown.stderr_lines) == 1


def test_version(run_cli, tmp_path):
    run = run_cli("--version", cwd=tmp_path)
    assert run.returncode == 0
    assert run.stdout.strip() == f"np2jax {np2jax.__version__}"


# --- the runner: one file's engine bug is that file's error ----------------------


@pytest.mark.parametrize("jobs", [0, 2])
def test_an_engine_exception_costs_only_that_file(monkeypatch, jobs):
    import np2jax.runner as runner
    from np2jax.engine import Options, migrate_source
    from np2jax.files import SourceFile

    def flaky(source, path, options):
        if path == "boom.py":
            raise KeyError("no such node")
        return migrate_source(source, path, options)

    monkeypatch.setattr(runner, "migrate_source", flaky)  # workers are forked: they see it too
    root = Path(__file__).parent
    files = [SourceFile(name, root / "conftest.py", Path(name)) for name in ("boom.py", "fine.py")]
    results = runner.migrate_files(files, Options(), jobs=jobs)
    assert [r.status for r in results] == ["error", "unchanged"]
    assert results[0].error.startswith("internal error (KeyError") and "\n" not in results[0].error


def test_a_parser_crash_among_many_files(tmp_path, run_cli):
    # The native parser overflows its stack on 100,000 unary minus signs and kills its worker;
    # the crashing file is reported once and every other file is still migrated.
    for index in range(12):
        write(tmp_path / "tree" / f"m{index:02}.py", SIMPLE)
    write(tmp_path / "tree" / "m05_crash.py", "import numpy as np\n\ndef f(x):\n    return " + "-" * 100_000 + "np.sum(x)\n")
    run = run_cli("migrate", "tree", "--jobs", "2", cwd=tmp_path)
    assert run.returncode == 3, run
    assert len(run.error_lines("tree/m05_crash.py")) == 1, run
    assert sorted(re.findall(r"^--- (\S+)\t", run.stdout, re.M)) == [f"tree/m{index:02}.py" for index in range(12)]
    assert summary(run) == (12, "would be migrated", 0, 1)


def test_notebook_is_read_as_json_not_parsed_as_python(tmp_path, run_cli):
    # Notebooks are migrated cell by cell (tests/test_notebooks.py); Python source named .ipynb is bad input.
    write(tmp_path / "nb.ipynb", '{"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}\n')
    write(tmp_path / "script.ipynb", SIMPLE)
    run = run_cli("migrate", "nb.ipynb", "script.ipynb", cwd=tmp_path)
    assert run.returncode == 3, run
    assert run.error_lines("script.ipynb") == ["script.ipynb: error: not valid JSON (Expecting value at line 1, column 1): not a notebook"]
    assert run.error_lines("nb.ipynb") == []
    assert summary(run) == (0, "would be migrated", 1, 1)


def test_cached_results_never_outlive_a_change_to_np2jax_itself(tmp_path):
    """The cache key holds a hash of the package source, so an edited checkout (same version) misses."""
    import shutil

    from np2jax.engine import Options, code_fingerprint

    assert code_fingerprint() in Options().key()
    package = tmp_path / "np2jax"
    shutil.copytree(Path(__file__).resolve().parent.parent / "np2jax", package, ignore=shutil.ignore_patterns("__pycache__"))
    before = code_fingerprint(package)
    assert before == code_fingerprint()  # the copy is the same code
    rule = package / "rules" / "jit.py"
    rule.write_text(rule.read_text() + "\n# an edit\n")
    code_fingerprint.cache_clear()
    assert code_fingerprint(package) != before


def test_migrate_imports_neither_numpy_nor_jax(tmp_path):
    # Start-up is most of a warm run's time; NumPy alone took 0.3 s to import. Only a star
    # import of numpy needs its names, and then NumPy is imported for them.
    write(tmp_path / "plain.py", SIMPLE)
    write(tmp_path / "star.py", "from numpy import *\n\n\ndef f(x):\n    return sum(x) + zeros(3)\n")
    probe = (
        "import sys\nfrom np2jax.cli import main\n"
        "try:\n    main(['migrate', sys.argv[1], '--quiet', '--no-cache', '--jobs', '0'])\n"
        "except SystemExit:\n    pass\n"
        "print(sorted(m for m in ('numpy', 'jax') if m in sys.modules))\n"
    )
    runs = {
        name: subprocess.run(
            [sys.executable, "-c", probe, str(tmp_path / name)], capture_output=True, text=True, timeout=120
        )
        for name in ("plain.py", "star.py")
    }
    assert runs["plain.py"].stdout.splitlines()[-1] == "[]", runs["plain.py"]
    assert runs["star.py"].stdout.splitlines()[-1] == "['numpy']", runs["star.py"]
    assert "jnp.zeros(3)" in runs["star.py"].stdout
