"""Bad and unusual inputs, through the real CLI: never a traceback, the right exit status,
each failure named on stderr with a one-line reason, and every other file still processed.

Every case runs next to a good file (``good.py``), in a dry run and then with ``--write``;
the good file must be migrated (in the diff, then on disk) whatever happens to the bad one.
"""

from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import pytest

from conftest import SIMPLE, SIMPLE_MIGRATED, write

BOM = b"\xef\xbb\xbf"
SIMPLE_B = SIMPLE.encode()
SIMPLE_MIGRATED_B = SIMPLE_MIGRATED.encode()


def _big_module(functions: int = 1000) -> tuple[bytes, bytes]:
    """A 24,002-line module, NumPy inside every function (24 lines each), and its migration."""
    lines = ["import numpy as np", ""]
    for i in range(functions):
        lines += [f"def stat_{i}(x, y):", f'    """Statistic number {i}.', ""]
        lines += [f"    Line {k} of a long docstring, as real code has." for k in range(16)]
        lines += [
            '    """',
            f"    a = np.sum(x ** {i % 5 + 1}, axis=0)",
            "    b = np.mean(y) + np.max(a)",
            "    return np.sqrt(a + b)",
            "",
        ]
    assert len(lines) == 24_002
    source = "\n".join(lines) + "\n"
    migrated = (
        source.replace("np.", "jnp.")
        .replace("import numpy as np", "import jax\nimport jax.numpy as jnp")
        .replace("\ndef stat_", "\n@jax.jit\ndef stat_")
        .replace("jnp.mean(y)", "jnp.mean(y * 1.0)")  # NumPy's dtype for integer `y`
        .replace('    """\n    a = ', '    """\n    y = jnp.asarray(y)\n    a = ')  # a caller's list (list_arguments.py)
    )
    return source.encode(), migrated.encode()


BIG_SOURCE, BIG_MIGRATED = _big_module()


def _nested(depth: int) -> bytes:
    return ("import numpy as np\n\ndef f(x):\n    return " + "(" * depth + "np.sum(x)" + ")" * depth + "\n").encode()


@dataclass
class Case:
    id: str
    files: dict[str, bytes]  # relative path -> bytes, besides good.py
    paths: list[str]  # the PATH arguments (good.py is always added unless it is in a walked directory)
    dry_exit: int
    write_exit: int
    bad: str | None = None  # the display path that must be reported, if any
    reason: str = ""  # a regex the one-line reason must match
    after_write: dict[str, bytes | None] = field(default_factory=dict)  # None: left exactly as it was
    setup: Callable[[Path], None] | None = None
    dry_stdout: tuple[str, ...] = ()  # substrings of the dry run's diff
    good: str = "good.py"  # where the good file is, relative to tmp_path
    good_display: str = "good.py"


def _symlink_loop(root: Path) -> None:
    os.symlink("..", root / "tree" / "sub" / "loop")  # tree/sub/loop -> tree


def _read_only(root: Path) -> None:
    (root / "locked.py").chmod(0o444)


def _fifo(root: Path) -> None:
    os.mkfifo(root / "tree" / "pipe.py")


CASES = [
    Case(
        "syntax-error",
        {"broken.py": b"import numpy as np\n\ndef f(x:\n    return np.sum(x)\n"},
        ["broken.py"], 3, 3, bad="broken.py", reason=r"syntax error at line 3, column \d+",
        after_write={"broken.py": None},
    ),
    Case(
        "undecodable-bytes",
        {"latin.py": b"x = '\xff\xfe'\n"},
        ["latin.py"], 3, 3, bad="latin.py", reason=r"decode|encoding",
        after_write={"latin.py": None},
    ),
    Case(
        "invalid-coding-cookie",
        {"cookie.py": b"# -*- coding: no-such-codec -*-\nimport numpy as np\n\ndef f(x):\n    return np.sum(x)\n"},
        ["cookie.py"], 3, 3, bad="cookie.py", reason=r"no-such-codec",
        after_write={"cookie.py": None},
    ),
    Case(
        "nul-byte",
        {"nul.py": b"import numpy as np\n\ndef f(x):\n    return np.sum(x)\x00\n"},
        ["nul.py"], 3, 3, bad="nul.py", reason=r"\S",
        after_write={"nul.py": None},
    ),
    Case(
        "utf8-bom",
        {"bom.py": BOM + SIMPLE_B},
        ["bom.py"], 0, 0,
        after_write={"bom.py": BOM + SIMPLE_MIGRATED_B},
        dry_stdout=("--- bom.py\t(original)", "+import jax.numpy as jnp\n"),
    ),
    Case(
        "crlf",
        {"crlf.py": SIMPLE_B.replace(b"\n", b"\r\n")},
        ["crlf.py"], 0, 0,
        after_write={"crlf.py": SIMPLE_MIGRATED_B.replace(b"\n", b"\r\n")},
        dry_stdout=("--- crlf.py\t(original)", "-    return np.sum(x ** 2)\r\n", "+    return jnp.sum(x ** 2)\r\n"),
    ),
    Case(
        "tabs",
        {"tabs.py": SIMPLE_B.replace(b"    ", b"\t")},
        ["tabs.py"], 0, 0,
        after_write={"tabs.py": SIMPLE_MIGRATED_B.replace(b"    ", b"\t")},
        dry_stdout=("+\treturn jnp.sum(x ** 2)\n",),
    ),
    Case(
        "form-feed-and-no-final-newline",
        {"ff.py": b"import numpy as np\n\x0c\ndef f(x):\n    return np.sum(x)  # \xe2\x80\xa8 sep"},
        ["ff.py"], 0, 0,
        after_write={"ff.py": b"import jax\nimport jax.numpy as jnp\n\x0c\n@jax.jit\ndef f(x):\n    x = jnp.asarray(x)\n"
                              b"    return jnp.sum(x)  # \xe2\x80\xa8 sep"},
        # a form feed or U+2028 is part of its line, not a line break, in the diff too
        dry_stdout=(" \x0c\n", "-    return np.sum(x)  # \u2028 sep\n\\ No newline at end of file\n"),
    ),
    Case("empty-file", {"empty.py": b""}, ["empty.py"], 0, 0, after_write={"empty.py": b""}),
    Case(
        "24000-lines",
        {"big.py": BIG_SOURCE},
        ["big.py"], 0, 0,
        after_write={"big.py": BIG_MIGRATED},
        dry_stdout=("--- big.py\t(original)", "+    return jnp.sqrt(a + b)\n"),
    ),
    Case(
        "nested-500",
        {"deep500.py": _nested(500)},
        ["deep500.py"], -1, -1, bad="deep500.py", reason=r"nest|parenthes",  # -1: 0 or 3, see below
    ),
    Case(
        "nested-3000",
        {"deep3000.py": _nested(3000)},
        ["deep3000.py"], 3, 3, bad="deep3000.py", reason=r"nest|deep|crash",
        after_write={"deep3000.py": None},
    ),
    Case(
        # 100,000 unary minus signs overflow the native parser's stack (a segfault): the
        # worker dies, the file is reported, the run goes on.
        "parser-crash",
        {"unary.py": b"import numpy as np\n\ndef f(x):\n    return " + b"-" * 100_000 + b"np.sum(x)\n"},
        ["unary.py"], 3, 3, bad="unary.py", reason=r"crash|nest|deep",
        after_write={"unary.py": None},
    ),
    Case(
        "symlink-loop",
        {"tree/sub/mod.py": SIMPLE_B},
        ["tree"], 0, 0,
        setup=_symlink_loop,
        after_write={"tree/sub/mod.py": SIMPLE_MIGRATED_B},
        dry_stdout=("--- tree/sub/mod.py\t(original)",),
        good="tree/good.py", good_display="tree/good.py",
    ),
    Case(
        "fifo-named-py",
        {"tree/sub/mod.py": SIMPLE_B},
        ["tree"], 3, 3, bad="tree/pipe.py", reason=r"not a regular file",
        setup=_fifo,
        after_write={"tree/sub/mod.py": SIMPLE_MIGRATED_B},
        good="tree/good.py", good_display="tree/good.py",
    ),
    Case(
        "read-only-file",
        {"locked.py": SIMPLE_B},
        ["locked.py"], 0, 3, bad="locked.py", reason=r"read-only",
        setup=_read_only,
        after_write={"locked.py": None},
        dry_stdout=("--- locked.py\t(original)",),
    ),
]


def _snapshot(root: Path, relative: str) -> tuple[bytes, int]:
    path = root / relative
    return path.read_bytes(), stat.S_IMODE(path.stat().st_mode)


def _assert_exit(case: Case, run, expected: int) -> None:
    if expected == -1:  # processed, or reported cleanly
        assert run.returncode in (0, 3), run
    else:
        assert run.returncode == expected, run


STDERR_LINE = re.compile(
    r"^(?:\S.*?:\d+:\d+: NPJ\d{3} \[(?:error|warning|info)\] .+"  # a diagnostic
    r"|\S.*?: error: \S.*"  # a file that could not be processed, and why
    r"|\d+ file\(s\) (?:would be )?migrated, \d+ unchanged, \d+ failed; diagnostics: .+)$"  # the summary
)


def _assert_reported(case: Case, run) -> None:
    """Exit 3 iff the bad file is named on exactly one stderr line, with a reason on that line."""
    for line in run.stderr.splitlines():  # nothing else: no traceback, no continuation lines
        assert STDERR_LINE.match(line), (line, run)
    assert run.error_lines(case.good_display) == [], run
    if run.returncode == 0:
        assert ": error: " not in run.stderr, run
        return
    assert case.bad is not None, run
    lines = [line for line in run.stderr.splitlines() if ": error: " in line]
    assert lines == run.error_lines(case.bad) and len(lines) == 1, run
    reason = lines[0][len(f"{case.bad}: error: "):]
    assert re.search(case.reason, reason), (case.reason, run)


@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
def test_bad_input(case: Case, tmp_path: Path, run_cli) -> None:
    for relative, data in case.files.items():
        write(tmp_path / relative, data)
    write(tmp_path / case.good, SIMPLE)
    if case.setup is not None:
        case.setup(tmp_path)
    args = list(case.paths) + ([] if case.good.startswith(tuple(p + "/" for p in case.paths)) else [case.good])
    before = {relative: _snapshot(tmp_path, relative) for relative in case.files}

    # Dry run: diffs on stdout, nothing written.
    dry = run_cli("migrate", *args, cwd=tmp_path)
    _assert_exit(case, dry, case.dry_exit)
    assert "Traceback" not in dry.stderr
    _assert_reported(case, dry)
    assert f"--- {case.good_display}\t(original)" in dry.stdout, dry
    assert "+    return jnp.sum(x ** 2)\n" in dry.stdout, dry
    for expected in case.dry_stdout:
        assert expected in dry.stdout, (expected, dry)
    diffed = re.findall(r"^--- (.+)\t\(original\)$", dry.stdout, re.M)
    assert len(diffed) == len(set(diffed)) and set(diffed) <= {case.good_display, *case.files}, diffed  # each file once
    assert re.search(r"^\d+ file\(s\) would be migrated, \d+ unchanged, \d+ failed", dry.stderr, re.M), dry
    assert {relative: _snapshot(tmp_path, relative) for relative in case.files} == before
    assert (tmp_path / case.good).read_text() == SIMPLE

    # --write: the good file is rewritten whatever happened to the bad one.
    written = run_cli("migrate", "--write", *args, cwd=tmp_path)
    _assert_exit(case, written, case.write_exit)
    assert "Traceback" not in written.stderr
    _assert_reported(case, written)
    assert written.stdout == "", written
    assert (tmp_path / case.good).read_text() == SIMPLE_MIGRATED
    for relative, expected in case.after_write.items():
        if expected is None:
            assert _snapshot(tmp_path, relative) == before[relative], relative
        else:
            assert (tmp_path / relative).read_bytes() == expected, relative
    if case.id == "nested-500":  # either migrated correctly or left exactly as it was
        data = (tmp_path / "deep500.py").read_bytes()
        if written.returncode == 0:
            migrated = _nested(500).replace(b"np.sum", b"jnp.sum").replace(b"import numpy as np", b"import jax\nimport jax.numpy as jnp")
            assert data == migrated.replace(b"\ndef f", b"\n@jax.jit\ndef f")
        else:
            assert data == _nested(500)
    leftovers = [p.name for p in tmp_path.rglob("*np2jax-tmp*")]
    assert not leftovers, leftovers  # no temporary file left behind by an atomic write


def test_a_module_that_only_mentions_numpy_in_words_is_left_as_it_is():
    """opt_einsum's backends (real12): `# numpy` or a docstring naming NumPy in a module that never imports it sent
    the file down the full path, and `def t(x, axes): return x.transpose(axes)` (duck-typed for any backend) was
    jitted, which raises for a user's own array class."""
    from np2jax.engine import migrate_source

    for head in ("# numpy\n", '"""Helpers that also work for numpy arrays."""\n', 'BACKEND = "numpy"\n'):
        source = (head + "\n\ndef default_transpose(x, axes):\n    return x.transpose(axes)\n").encode()
        result = migrate_source(source, "backend.py")
        assert result.status == "unchanged" and result.output == source, result.output
    imported = b"import os, numpy\n\n\ndef default_transpose(x, axes):\n    return x.transpose(axes)\n"
    assert b"jax.jit" in migrate_source(imported, "backend.py").output
