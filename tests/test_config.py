"""`[tool.np2jax]` in pyproject.toml: how it is found, what each key does through the real CLI,
command-line options overriding it, and every bad configuration reported (exit 2), never ignored."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from conftest import SIMPLE, write
from np2jax.config import CheckConfig, load_config
from np2jax.engine import Options

SUMMARY = re.compile(r"^(\d+) file\(s\) (migrated|would be migrated), (\d+) unchanged, (\d+) failed", re.M)
MIGRATED = SIMPLE.replace("import numpy as np", "import jax.numpy as jnp").replace("np.", "jnp.")


def changed_paths(run) -> list[str]:
    return re.findall(r"^--- (\S+)\t", run.stdout, re.M)


def test_the_nearest_pyproject_with_the_table_is_used(tmp_path, run_cli):
    write(tmp_path / "repo" / "pyproject.toml", '[tool.np2jax]\nignore = ["NPJ100"]\n')
    write(tmp_path / "repo" / "sub" / "pyproject.toml", '[project]\nname = "sub"\n')  # no table: passed by
    write(tmp_path / "repo" / "sub" / "pkg" / "m.py", SIMPLE)
    for cwd, path in ((tmp_path / "repo", "sub/pkg"), (tmp_path, "repo/sub/pkg/m.py"), (tmp_path / "repo" / "sub" / "pkg", ".")):
        run = run_cli("migrate", path, "--no-jit", cwd=cwd)
        assert (run.returncode, run.stdout) == (0, ""), (cwd, path, run)
    write(tmp_path / "repo" / "sub" / "pyproject.toml", '[project]\nname = "sub"\n\n[tool.np2jax]\njit = false\n')
    run = run_cli("migrate", "repo/sub/pkg", cwd=tmp_path)  # the nearer table wins and has no ignore
    assert changed_paths(run) == ["repo/sub/pkg/m.py"]
    assert "@jax.jit" not in run.stdout


def test_the_search_starts_where_all_paths_meet(tmp_path, run_cli):
    write(tmp_path / "pyproject.toml", '[tool.np2jax]\nignore = ["NPJ100"]\n')
    write(tmp_path / "a" / "pyproject.toml", '[tool.np2jax]\n')
    write(tmp_path / "a" / "m.py", SIMPLE)
    write(tmp_path / "b" / "m.py", SIMPLE)
    assert changed_paths(run_cli("migrate", "a", "--no-jit", cwd=tmp_path)) == ["a/m.py"]
    assert changed_paths(run_cli("migrate", "a", "b", "--no-jit", cwd=tmp_path)) == []  # both: the top one


def test_config_file_and_isolated(tmp_path, run_cli):
    write(tmp_path / "pyproject.toml", '[tool.np2jax]\nignore = ["NPJ100"]\n')
    write(tmp_path / "ci" / "strict.toml", '[tool.np2jax]\nselect = ["NPJ100"]\n')
    write(tmp_path / "m.py", SIMPLE)
    assert changed_paths(run_cli("migrate", "m.py", cwd=tmp_path)) == []
    for flags in (["--config", "ci/strict.toml"], ["--isolated"], ["--no-config"]):
        assert changed_paths(run_cli("migrate", "m.py", "--no-jit", *flags, cwd=tmp_path)) == ["m.py"], flags
    both = run_cli("migrate", "m.py", "--isolated", "--config", "ci/strict.toml", cwd=tmp_path)
    assert both.returncode == 2 and "not allowed with argument" in both.stderr


def test_command_line_options_replace_the_files_values(tmp_path, run_cli):
    write(tmp_path / "pyproject.toml", '[tool.np2jax]\nselect = ["NPJ110"]\nignore = ["NPJ100"]\njit = false\n')
    write(tmp_path / "m.py", SIMPLE)
    assert changed_paths(run_cli("migrate", "m.py", cwd=tmp_path)) == []
    assert changed_paths(run_cli("migrate", "m.py", "--ignore", "NPJ102", cwd=tmp_path)) == []  # select still NPJ110
    run = run_cli("migrate", "m.py", "--select", "NPJ100", "--ignore", "NPJ102", cwd=tmp_path)
    assert changed_paths(run) == ["m.py"]
    assert "@jax.jit" not in run.stdout  # jit = false from the file


def test_include_exclude_and_explicit_paths(tmp_path, run_cli):
    write(tmp_path / "pyproject.toml", '[tool.np2jax]\nexclude = ["legacy", "*_pb2.py"]\ninclude = ["src"]\n')
    for name in ("src/a.py", "src/legacy/b.py", "src/gen/c_pb2.py", "src/d.py", "scripts/e.py"):
        write(tmp_path / name, SIMPLE)
    run = run_cli("migrate", ".", "--no-jit", cwd=tmp_path)
    assert sorted(changed_paths(run)) == ["./src/a.py", "./src/d.py"]
    assert SUMMARY.search(run.stderr).groups() == ("2", "would be migrated", "0", "0")
    explicit = run_cli("migrate", "src/legacy/b.py", "src/a.py", "--no-jit", cwd=tmp_path)
    assert changed_paths(explicit) == ["src/a.py"]
    assert "src/legacy/b.py: excluded by pyproject.toml; not migrated (--isolated migrates it)" in explicit.stderr
    # --out still copies the excluded files, so the migrated package stays importable.
    out = run_cli("migrate", "src", "--out", "out", "--no-jit", cwd=tmp_path)
    assert out.returncode == 0, out
    assert (tmp_path / "out" / "a.py").read_text() == MIGRATED
    assert (tmp_path / "out" / "legacy" / "b.py").read_text() == SIMPLE
    assert (tmp_path / "out" / "gen" / "c_pb2.py").read_text() == SIMPLE


def test_per_file_ignores_are_per_file_and_part_of_the_cache_key(tmp_path, run_cli):
    write(tmp_path / "pyproject.toml", '[tool.np2jax]\nper-file-ignores = {"pkg/a.py" = ["NPJ100"], "**/tests/*" = ["NPJ100"]}\n')
    for name in ("pkg/a.py", "pkg/b.py", "pkg/tests/t.py"):
        write(tmp_path / name, SIMPLE)
    assert changed_paths(run_cli("migrate", "pkg", "--no-jit", cwd=tmp_path)) == ["pkg/b.py"]
    write(tmp_path / "pyproject.toml", "[tool.np2jax]\n")  # same sources, same cache directory
    assert changed_paths(run_cli("migrate", "pkg", "--no-jit", cwd=tmp_path)) == ["pkg/a.py", "pkg/b.py", "pkg/tests/t.py"]


BAD_CONFIGS = [
    ('[tool.np2jax]\nexlude = ["x"]\n', ["[tool.np2jax] unknown key 'exlude'; did you mean 'exclude'?"]),
    ('[tool.np2jax]\nper_file_ignores = {}\n', ["[tool.np2jax] unknown key 'per_file_ignores'; did you mean 'per-file-ignores'?"]),
    ('[tool.np2jax]\nzzz = 1\n', ["[tool.np2jax] unknown key 'zzz'; known keys: include, exclude, select, ignore, "
                                  "per-file-ignores, unsafe-fixes, jit, loop-unroll-threshold, migrated, check"]),
    ('[tool.np2jax]\njit = "yes"\nunsafe-fixes = 1\n', [
        "[tool.np2jax] 'jit' must be true or false, not the string 'yes'",
        "[tool.np2jax] 'unsafe-fixes' must be true or false, not int 1",
    ]),
    ('[tool.np2jax]\nloop-unroll-threshold = -1\n', ["[tool.np2jax] 'loop-unroll-threshold' must be a whole number >= 0, not int -1"]),
    ('[tool.np2jax]\nloop-unroll-threshold = true\n', ["[tool.np2jax] 'loop-unroll-threshold' must be a whole number >= 0, not true"]),
    ('[tool.np2jax]\nexclude = "build"\n', ["[tool.np2jax] 'exclude' must be a list of glob strings, not the string 'build'"]),
    ('[tool.np2jax]\nmigrated = [1]\n', ["[tool.np2jax] 'migrated' must be a list of glob strings, not a list with non-string items"]),
    ('[tool.np2jax]\nselect = ["NPJ1188"]\n', ["[tool.np2jax] 'select' has unknown rule code(s) 'NPJ1188'; did you mean 'NPJ118'?"]),
    ('[tool.np2jax]\nignore = "NPJ100"\n', ["[tool.np2jax] 'ignore' must be a list of rule codes such as [\"NPJ100\"], not the string 'NPJ100'"]),
    ('[tool.np2jax]\nper-file-ignores = {"t/*" = ["E501"]}\n',
     ["[tool.np2jax] 'per-file-ignores' entry 't/*' has unknown rule code(s) 'E501'; `np2jax rules` lists them"]),
    ('[tool.np2jax]\nper-file-ignores = ["t/*"]\n', ["[tool.np2jax] 'per-file-ignores' must be a table of glob = [codes], not a list"]),
    ('[tool.np2jax]\ncheck = 3\n', ["[tool.np2jax.check] must be a table, not int 3"]),
    ('[tool.np2jax.check]\ntimout = 3\nrtol = -1\natol = "0"\nx64 = "on"\ntimeout = 0\n', [
        "[tool.np2jax.check] unknown key 'timout'; did you mean 'timeout'?",
        "[tool.np2jax.check] 'rtol' must be a number >= 0, not int -1",
        "[tool.np2jax.check] 'atol' must be a number >= 0, not the string '0'",
        "[tool.np2jax.check] 'x64' must be true or false, not the string 'on'",
        "[tool.np2jax.check] 'timeout' must be a number > 0, not int 0",
    ]),
    ("[tool.np2jax]\nselect = [\n", None),  # not TOML
    ("[tool]\nnp2jax = 3\n", ["[tool.np2jax] must be a table, not int 3"]),
]


@pytest.mark.parametrize("text, problems", BAD_CONFIGS)
def test_bad_configuration_is_a_usage_error_naming_every_problem(tmp_path, run_cli, text, problems):
    write(tmp_path / "pyproject.toml", text)
    write(tmp_path / "m.py", SIMPLE)
    run = run_cli("migrate", "m.py", "--write", cwd=tmp_path)
    assert run.returncode == 2, run
    if problems is None:
        assert re.fullmatch(r"np2jax: error: pyproject\.toml: not valid TOML: .+", run.stderr.strip()), run
    else:
        assert run.stderr_lines == [f"np2jax: error: pyproject.toml: {problem}" for problem in problems]
    assert (tmp_path / "m.py").read_text() == SIMPLE


def test_bad_config_file_argument(tmp_path, run_cli):
    write(tmp_path / "m.py", SIMPLE)
    write(tmp_path / "other.toml", '[project]\nname = "x"\n')
    missing = run_cli("migrate", "m.py", "--config", "nope.toml", cwd=tmp_path)
    assert (missing.returncode, missing.stderr_lines) == (2, ["np2jax: error: nope.toml: cannot read: No such file or directory"])
    no_table = run_cli("migrate", "m.py", "--config", "other.toml", cwd=tmp_path)
    assert (no_table.returncode, no_table.stderr_lines) == (2, ["np2jax: error: other.toml: no [tool.np2jax] table"])


def test_the_api_exposes_every_key_for_the_other_commands(tmp_path, monkeypatch):
    write(tmp_path / "pyproject.toml", """\
[tool.np2jax]
jit = false
unsafe-fixes = true
loop-unroll-threshold = 3
migrated = ["pkg/done", "pkg/fast_*.py"]

[tool.np2jax.check]
timeout = 30
rtol = 1e-5
atol = 0
x64 = true
""")
    monkeypatch.chdir(tmp_path / "..")
    config = load_config([str(tmp_path / "pkg")])
    assert config.path == tmp_path / "pyproject.toml"
    assert config.check == CheckConfig(timeout=30.0, rtol=1e-5, atol=0.0, x64=True)
    assert [config.is_migrated(tmp_path / p) for p in ("pkg/done/x.py", "pkg/fast_fft.py", "pkg/slow.py")] == [True, True, False]
    assert config.base_options() == Options(jit=False, unsafe_fixes=True, unroll_threshold=3)
    assert config.base_options(jit=True, unsafe_fixes=False).jit is True
    assert load_config([str(tmp_path)], isolated=True).base_options() == Options()
    assert Options(unroll_threshold=3).key() != Options().key() != Options(unsafe_fixes=True).key()


def test_no_configuration_anywhere_means_the_defaults(tmp_path):
    config = load_config([str(tmp_path)])
    if config.path is not None:  # a pyproject.toml with the table above the temporary folder
        pytest.skip(f"{config.path} configures np2jax")
    assert config.base_options() == Options()
    assert config.is_selected(Path(tmp_path) / "any.py") and not config.is_migrated(Path(tmp_path) / "any.py")
