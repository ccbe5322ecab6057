"""The project pass (np2jax/project.py): what one module's migration means for the modules importing it.

Each case migrates a small package with the real command line, then imports the original and the
migrated package in fresh interpreters and compares what the consumer functions compute.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import write
from np2jax.analysis.links import ModuleLinks
from np2jax.project import Module, Project, module_name

PRODUCER = """\
import numpy as np

def make(n):
    return np.zeros(n) + 1.0

def bump(x):
    x += 1.0

def clear(x):
    x[0] = 0.0

def scale(x, s):
    return np.asarray(x) * s
"""


def migrate(run_cli, src: Path, out: Path, *extra: str):
    """``np2jax migrate src --out out`` from the folder holding ``src`` (diagnostics name ``src/...``)."""
    run = run_cli("migrate", src.name, "--out", out, *extra, cwd=src.parent)
    assert run.returncode in (0, 1), run
    return run


def evaluate(root: Path, code: str) -> str:
    """What ``code`` prints with ``root`` first on the import path (a fresh interpreter, JAX on CPU)."""
    env = dict(os.environ, PYTHONPATH=str(root), JAX_PLATFORMS="cpu")
    completed = subprocess.run([sys.executable, "-c", code], cwd=root, env=env, capture_output=True, text=True, timeout=120)
    assert completed.returncode == 0, completed.stderr[-3000:]
    return completed.stdout


def same_results(src: Path, out: Path, code: str) -> str:
    original = evaluate(src, code)
    assert evaluate(out, code) == original
    return original


@pytest.fixture
def package(tmp_path):
    src = tmp_path / "src"
    write(src / "pkg" / "__init__.py", "from .prod import make, clear\n")
    write(src / "pkg" / "prod.py", PRODUCER)
    return src


def test_a_write_into_an_imported_result_keeps_the_producer_numpy(run_cli, package, tmp_path):
    write(package / "pkg" / "cons.py", """\
import numpy as np
from pkg.prod import make

def patched(n):
    y = make(n)
    y[0] = 5.0
    return np.sum(y)
""")
    run = migrate(run_cli, package, tmp_path / "out")
    assert "pkg/prod.py:3:5: NPJ202 [error] `patched` (src/pkg/cons.py:5), in another module, writes in place" in run.stderr
    assert "def make(n):\n    return np.zeros(n)" in (tmp_path / "out" / "pkg" / "prod.py").read_text()
    printed = same_results(package, tmp_path / "out", "from pkg.cons import patched; print(patched(4))")
    assert printed.strip() == "8.0"


def test_augmenting_a_second_reference_to_an_imported_result_across_modules(run_cli, package, tmp_path):
    # NumPy updates the one array through `z`; on a JAX array `z += 1` would only rebind `z`, silently
    write(package / "pkg" / "cons.py", """\
from . import prod

def aliased(n):
    y = prod.make(n)
    z = y
    z += 1
    return y
""")
    migrate(run_cli, package, tmp_path / "out")
    printed = same_results(package, tmp_path / "out", "from pkg.cons import aliased; print(aliased(3).tolist())")
    assert printed.strip() == "[2.0, 2.0, 2.0]"


def test_a_caller_in_another_module_relying_on_a_mutation_keeps_it(run_cli, package, tmp_path):
    # `clear` would return its argument (NPJ203); `clear(b)` elsewhere is not rewritten to rebind
    write(package / "user.py", """\
import numpy as np
from pkg import clear

def cleared_sum(a):
    b = np.cumsum(a)
    clear(b)
    return np.sum(b)
""")
    run = migrate(run_cli, package, tmp_path / "out")
    assert "`cleared_sum` (src/user.py:6), in another module, calls it and relies on the mutation" in run.stderr
    assert "calls `pkg.clear`, which stays NumPy code in src/pkg/prod.py" in run.stderr
    printed = same_results(package, tmp_path / "out", "import numpy as np; from user import cleared_sum; print(cleared_sum(np.arange(1.0, 5.0)))")
    assert printed.strip() == "19.0"


def test_a_migrated_caller_of_a_function_left_numpy_elsewhere_stays_numpy(run_cli, package, tmp_path):
    # `bump` keeps `x += 1.0` on its argument (NPJ201); handed a JAX array it would only rebind `x`
    write(package / "pkg" / "cons.py", """\
import numpy as np
from .prod import bump

def bumped_sum(a):
    b = np.cumsum(a)
    bump(b)
    return np.sum(b)
""")
    run = migrate(run_cli, package, tmp_path / "out")
    assert "NPJ202 [error] calls `.prod.bump`, which stays NumPy code in src/pkg/prod.py" in run.stderr
    printed = same_results(package, tmp_path / "out", "import numpy as np; from pkg.cons import bumped_sum; print(bumped_sum(np.arange(3.0)))")
    assert printed.strip() == "7.0"


def test_namesake_nested_functions_calling_a_function_left_numpy_elsewhere(run_cli, package, tmp_path):
    """real34 (scipy.signal's `_spectral_helper`): `def detrend_func` in two branches of one function share a
    qualname; only one calls the other module's NumPy-only `bump`. Both are reported (one qualname, one status),
    and the file no longer fails with an internal error."""
    write(package / "pkg" / "cons.py", """\
import numpy as np
from . import prod

def helper(a, keep):
    if keep:
        def detrend_func(d):
            return d
    else:
        def detrend_func(d):
            b = np.cumsum(d)
            prod.bump(b)
            return b
    return np.sum(detrend_func(a))
""")
    run = migrate(run_cli, package, tmp_path / "out")
    assert "internal error" not in run.stderr and "failed" not in run.stderr.splitlines()[-1].replace(" 0 failed", "")
    assert run.stderr.count("NPJ202 [error] calls `.prod.bump`, which stays NumPy code in src/pkg/prod.py") == 2
    for keep in (True, False):
        printed = same_results(package, tmp_path / "out", f"import numpy as np; from pkg.cons import helper; print(helper(np.arange(3.0), {keep}))")
        assert printed.strip() == ("3.0" if keep else "7.0")


def test_a_consumer_that_never_mentions_numpy_counts_too(run_cli, package, tmp_path):
    write(package / "script.py", """\
from pkg.prod import make

def first_five(n):
    y = make(n)
    y[0] = 5.0
    return float(y.sum())
""")
    migrate(run_cli, package, tmp_path / "out")
    assert same_results(package, tmp_path / "out", "from script import first_five; print(first_five(3))").strip() == "7.0"


def test_functions_nobody_else_writes_into_still_migrate(run_cli, package, tmp_path):
    write(package / "pkg" / "cons.py", """\
import numpy as np
from pkg.prod import make, scale

def total(n):
    return np.sum(scale(make(n), 2.0))
""")
    migrate(run_cli, package, tmp_path / "out")
    produced = (tmp_path / "out" / "pkg" / "prod.py").read_text()
    assert "def make(n):\n    return jnp.zeros(n)" in produced and "def scale(x, s):\n    s = jnp.asarray(s)\n    return jnp.asarray(x) * s" in produced
    assert same_results(package, tmp_path / "out", "from pkg.cons import total; print(float(total(3)))").strip() == "6.0"


def test_the_project_pass_is_stable_across_cached_runs_and_a_second_migration(run_cli, package, tmp_path):
    write(package / "pkg" / "cons.py", "from pkg.prod import make\n\ndef f(n):\n    y = make(n)\n    y[0] = 2.0\n    return y\n")
    first = migrate(run_cli, package, tmp_path / "out")
    again = migrate(run_cli, package, tmp_path / "out2")  # from the cache
    assert "NPJ202" in first.stderr and again.stderr == first.stderr
    for path in (tmp_path / "out").rglob("*.py"):
        assert path.read_bytes() == (tmp_path / "out2" / path.relative_to(tmp_path / "out")).read_bytes()
    third = run_cli("migrate", tmp_path / "out", "--check")  # the migrated tree migrates to itself
    assert "0 file(s) would be migrated" in third.stderr, third


# --- resolving imports -----------------------------------------------------------


def test_module_names_follow_the_packages_init_files(tmp_path):
    write(tmp_path / "a" / "__init__.py", "")
    write(tmp_path / "a" / "b" / "__init__.py", "")
    assert module_name(write(tmp_path / "a" / "b" / "c.py", "")) == "a.b.c"
    assert module_name(tmp_path / "a" / "b" / "__init__.py") == "a.b"
    assert module_name(write(tmp_path / "loose.py", "")) == "loose"


def test_relative_imports_re_exports_and_namespace_packages_resolve():
    core = Module("pkg.sub.core", "core.py", False, ModuleLinks(defined=frozenset({"make", "Box.__init__", "Box.grow"})))
    init = Module("pkg", "pkg/__init__.py", True, ModuleLinks(imports={"make": ".sub.core.make"}))
    user = Module("pkg.sub.user", "user.py", False, ModuleLinks())
    project = Project({0: core, 1: init, 2: user})
    assert project.resolve(2, ".core.make") == [(0, "make")]
    assert project.resolve(2, "..sub.core.Box") == [(0, "Box")]
    assert project.resolve(2, "pkg.make") == [(0, "make")]  # through the package's __init__
    assert project.resolve(2, "ns.pkg.sub.core.make") == [(0, "make")]  # `ns` has no __init__.py
    assert project.resolve(2, "....too.far") == []
    assert project.resolve(2, "other.thing") == []


def test_functions_whose_augmented_parameter_another_module_relies_on_keep_updating_it(run_cli, tmp_path):
    # `x *= s; return x` rebinds x once migrated; `scale(y, 3.0)` elsewhere ignores the result and reads y.
    # Also in a module that never mentions NumPy (left as it is): its caller must hand it NumPy arrays.
    src = tmp_path / "src"
    write(src / "pkg" / "__init__.py", "")
    write(src / "pkg" / "a.py", "import numpy as np\n\ndef scale(x, s):\n    x *= np.float64(s)\n    return x\n")
    write(src / "pkg" / "c.py", "def shift(x, s):\n    x += s\n    return x\n")
    write(src / "pkg" / "b.py", """\
import numpy as np
from .a import scale
from .c import shift

def scaled(n):
    y = np.ones(n)
    scale(y, 3.0)
    return y

def shifted(n):
    y = np.ones(n)
    shift(y, 2.0)
    return y
""")
    run = migrate(run_cli, src, tmp_path / "out")
    assert "`scaled` (src/pkg/b.py:7), in another module, calls it and relies on the mutation" in run.stderr
    assert "calls `.c.shift`, which stays NumPy code in src/pkg/c.py" in run.stderr
    code = "from pkg.b import scaled, shifted; print(scaled(2).tolist(), shifted(2).tolist())"
    assert same_results(src, tmp_path / "out", code).strip() == "[3.0, 3.0] [3.0, 3.0]"


def test_a_package_re_exporting_with_a_star_import_is_followed(run_cli, tmp_path):
    src = tmp_path / "src"
    write(src / "pkg" / "__init__.py", "from .a import *\n")
    write(src / "pkg" / "a.py", "import numpy as np\n\ndef make(n):\n    return np.zeros(n) + 1.0\n")
    write(src / "use.py", "from pkg import make\n\ndef g(n):\n    y = make(n)\n    z = y\n    z += 1\n    return y\n")
    run = migrate(run_cli, src, tmp_path / "out")
    assert "`g` (src/use.py), in another module, writes in place into what this function returns" in run.stderr
    assert same_results(src, tmp_path / "out", "from use import g; print(g(2).tolist())").strip() == "[2.0, 2.0]"


BASE = "import numpy as np\n\nclass Base:\n    def __init__(self, n):\n        self.x = np.zeros(n)\n"


@pytest.mark.parametrize("subclass", [
    "from .base import Base\n\nclass Sub(Base):\n    def bump(self):\n        x = self.x\n        x += 2\n        return self.x\n",
    "import numpy as np\nfrom pkg import base\n\nclass Sub(base.Base):\n    def bump(self):\n        self.x[0] = 7.0\n        return np.sum(self.x)\n",
])
def test_a_subclass_in_another_module_that_changes_self_arrays_keeps_its_base_numpy(run_cli, tmp_path, subclass):
    src = tmp_path / "src"
    write(src / "pkg" / "__init__.py", "")
    write(src / "pkg" / "base.py", BASE + "\n    def total(self):\n        return np.sum(self.x)\n")
    write(src / "pkg" / "sub.py", subclass)
    run = migrate(run_cli, src, tmp_path / "out")
    assert "`Sub` (src/pkg/sub.py), a subclass in another module, stays NumPy code and shares `self`" in run.stderr
    code = "import numpy as np; from pkg.sub import Sub; print(np.asarray(Sub(3).bump()).tolist())"
    same_results(src, tmp_path / "out", code)


def test_a_subclass_of_a_class_left_numpy_in_another_module_stays_numpy(run_cli, tmp_path):
    src = tmp_path / "src"
    write(src / "pkg" / "__init__.py", "")
    # repeated indices: NumPy adds once per distinct index, JAX's .at[].add once per entry
    write(src / "pkg" / "base.py", BASE + "\n    def hit(self, idx):\n        self.x[idx] += 1.0\n")
    write(src / "pkg" / "sub.py", """\
import numpy as np
from .base import Base

class Sub(Base):
    def fill(self, v):
        self.x = self.x + v
        return np.sum(self.x)
""")
    run = migrate(run_cli, src, tmp_path / "out")
    assert "`Base` (src/pkg/base.py), its base class in another module, stays NumPy code" in run.stderr
    code = "import numpy as np; from pkg.sub import Sub; s = Sub(3); s.fill(2.0); s.hit(np.array([0, 0])); print(s.x.tolist())"
    assert same_results(src, tmp_path / "out", code).strip() == "[3.0, 2.0, 2.0]"


def test_a_function_a_consumer_star_imports_is_followed(run_cli, tmp_path):
    # `from helpers import *` then `add_drift(y, d)`: the name is bound nowhere in sim.py; it was jitted and
    # add_drift's `x += d` only rebound its argument ([1, 2] instead of [2.5, 3.5])
    src = tmp_path / "src"
    write(src / "helpers.py", "import numpy as np\n\n__all__ = ['add_drift']\n\ndef add_drift(x, d):\n    x += d\n")
    write(src / "sim.py", """\
import numpy as np
from helpers import *

def drift_many(x, d, n):
    y = np.array(x, dtype=float)
    for _ in range(n):
        add_drift(y, d)
    return y
""")
    run = migrate(run_cli, src, tmp_path / "out")
    assert "calls `helpers.add_drift`, which stays NumPy code in src/helpers.py" in run.stderr
    code = "from sim import drift_many; print(drift_many([1.0, 2.0], 0.5, 3).tolist())"
    assert same_results(src, tmp_path / "out", code).strip() == "[2.5, 3.5]"


def test_a_result_handed_on_by_a_middle_module_keeps_its_producer_numpy(run_cli, package, tmp_path):
    # two hops: `use` (cons.py) augments a second reference to what `passthru` (mid.py) returns, which is
    # `make`'s (prod.py) result: NumPy updates `y` in place, a JAX `make` would only rebind `z`
    write(package / "pkg" / "mid.py", """\
from pkg.prod import make

def passthru(n):
    y = make(n)
    return y
""")
    write(package / "pkg" / "cons.py", """\
import numpy as np
from pkg.mid import passthru

def use(n):
    y = passthru(n)
    z = y
    z += 1.0
    return np.sum(y)
""")
    run = migrate(run_cli, package, tmp_path / "out")
    assert "pkg/prod.py:3:5: NPJ202 [error] `use` (src/pkg/cons.py:5), in another module, writes in place" in run.stderr
    printed = same_results(package, tmp_path / "out", "from pkg.cons import use; print(use(3))")
    assert printed.strip() == "6.0"


def test_a_result_handed_back_by_a_function_that_stays_numpy_keeps_its_producer_numpy(run_cli, tmp_path):
    # real29 L2 (scikit-commpy's decimal2bitarray): `bits_any` stays NumPy for its own loop (NPJ304) and returns
    # `bits(n, width).copy()`; another module writes into `bits_any`'s result. `bits` was migrated, so the copy
    # was a JAX array and the write raised; in one module it already stayed NumPy
    src = tmp_path / "src"
    write(src / "pkg2" / "__init__.py", "")
    write(src / "pkg2" / "util.py", """\
import numpy as np


def bits(number, width):
    result = np.zeros(width, np.int8)
    if number & 1:
        result[width - 1] = 1
    return result


def bits_any(n, width):
    if isinstance(n, int):
        return bits(n, width).copy()
    result = np.zeros(width * len(n), np.int8)
    for i, v in enumerate(n):
        result[i * width:(i + 1) * width] = bits(v, width).copy()
    return result
""")
    write(src / "pkg2" / "user.py", """\
import numpy as np
from pkg2.util import bits_any


def user(n):
    s = bits_any(n, 4)
    s[0:2] = 1
    return s
""")
    run = migrate(run_cli, src, tmp_path / "out")
    assert "pkg2/util.py:4:5: NPJ202 [error] `user` (src/pkg2/user.py:6), in another module, writes in place" in run.stderr, run.stderr[-3000:]
    printed = same_results(src, tmp_path / "out", "from pkg2.user import user; print(user(3).tolist())")
    assert printed.strip() == "[1, 1, 0, 1]"


def test_a_module_level_name_holding_an_imported_result_written_by_a_function(run_cli, package, tmp_path):
    write(package / "pkg" / "cons.py", """\
import numpy as np
from pkg.prod import make

BUF = make(3)

def poke(v):
    BUF[0] = v
    return np.sum(BUF)
""")
    run = migrate(run_cli, package, tmp_path / "out")
    assert "pkg/prod.py:3:5: NPJ202 [error] `poke` (src/pkg/cons.py), in another module, writes in place" in run.stderr
    printed = same_results(package, tmp_path / "out", "from pkg.cons import poke; print(poke(7.0), poke(2.0))")
    assert printed.split() == ["9.0", "4.0"]


def test_a_consumer_that_never_mentions_numpy_and_star_imports_is_followed(run_cli, package, tmp_path):
    # cons.py has no NumPy in it (np2jax leaves it as it is); `make` reaches it through `from pkg.prod import *`
    write(package / "pkg" / "cons.py", """\
from pkg.prod import *

def patched(n):
    y = make(n)
    y[0] = 5.0
    return float(y.sum())
""")
    run = migrate(run_cli, package, tmp_path / "out")
    assert "pkg/prod.py:3:5: NPJ202 [error] `patched` (src/pkg/cons.py), in another module, writes in place" in run.stderr
    printed = same_results(package, tmp_path / "out", "from pkg.cons import patched; print(patched(4))")
    assert printed.strip() == "8.0"


@pytest.mark.parametrize("writer", [
    "from .table import TABLE\n\ndef set_first(v):\n    TABLE[0] = v\n",
    "from . import table\n\ndef set_first(v):\n    table.TABLE[0] = v\n",
    "import numpy as np\nfrom pkg import table\n\ndef set_first(v):\n    np.copyto(table.TABLE, np.full(3, v))\n",
    "from . import table\n\ndef set_first(v):\n    table.TABLE = table.TABLE + v\n",
], ids=["imported-name", "module-attribute", "copyto", "rebound"])
def test_module_level_state_another_module_writes_is_not_frozen_by_jit(run_cli, tmp_path, writer):
    # jax.jit keeps the TABLE it traced with: after set_first, NumPy's total sees the write, a jitted one would not
    src = tmp_path / "src"
    write(src / "pkg" / "__init__.py", "")
    write(src / "pkg" / "table.py", "import numpy as np\n\nTABLE = np.zeros(3)\n\ndef total(y):\n    return np.sum(TABLE * y)\n")
    write(src / "pkg" / "setter.py", writer)
    run = migrate(run_cli, src, tmp_path / "out")
    assert "NPJ302 [warning] not jitted: reads module-level `TABLE`, which `set_first` (src/pkg/setter.py:" in run.stderr
    code = "import numpy as np\nfrom pkg import table, setter\ny = np.ones(3)\nprint(float(table.total(y)))\nsetter.set_first(2.0)\nprint(float(table.total(y)))"
    assert same_results(src, tmp_path / "out", code).split() == ["0.0", "2.0" if "TABLE[0]" in writer else "6.0"]


@pytest.mark.parametrize("middle", ["", "\n\nclass Middle(Base):\n    _shape = (3,)\n"], ids=["direct", "through-a-class-without-methods"])
def test_a_subclass_of_an_ndarray_subclass_in_another_module_stays_numpy(run_cli, tmp_path, middle):
    # pyrr: Vector3(BaseVector3) in vector3.py, BaseVector3(BaseObject) without methods, BaseObject(np.ndarray)
    src = tmp_path / "src"
    write(src / "pkg" / "__init__.py", "")
    write(src / "pkg" / "base.py", "import numpy as np\n\nclass Base(np.ndarray):\n    def total(self):\n        return np.sum(self)\n" + middle)
    base = "Middle" if middle else "Base"
    write(src / "pkg" / "vec.py", f"""\
import numpy as np
from .base import {base}

class Vec({base}):
    def __new__(cls, value):
        return np.asarray(value, dtype=float).view(cls)

    def doubled(self):
        return np.multiply(self, 2.0)
""")
    run = migrate(run_cli, src, tmp_path / "out")
    assert "src/pkg/base.py:4:9: NPJ202 [error] `Base` derives from np.ndarray" in run.stderr
    assert f"src/pkg/vec.py:5:9: NPJ202 [error] `{base}` (src/pkg/base.py), its base class in another module" in run.stderr
    code = "from pkg.vec import Vec\nv = Vec([1.0, 2.0])\nprint(type(v.doubled()).__name__, v.doubled().tolist(), float(v.total()))"
    assert same_results(src, tmp_path / "out", code).split() == ["Vec", "[2.0,", "4.0]", "3.0"]


def test_a_function_of_another_module_handed_on_as_a_callback_counts_as_called(run_cli, tmp_path):
    # `check` stays NumPy (it writes into its argument and returns a value): a caller handing it on as a value
    # runs NumPy code through it, as a caller that calls it does
    src = tmp_path / "src"
    write(src / "pkg" / "__init__.py", "")
    write(src / "pkg" / "helpers.py", "import numpy as np\n\ndef check(m):\n    m[np.abs(m) < 1e-12] = 0.0\n    return m\n")
    write(src / "pkg" / "use.py", """\
import numpy as np
from .helpers import check

def apply(f, x):
    return f(x)

def cleaned(x):
    return np.sum(apply(f=check, x=np.asarray(x)))
""")
    run = migrate(run_cli, src, tmp_path / "out")
    assert "src/pkg/use.py:8:27: NPJ202 [error] calls `.helpers.check`, which stays NumPy code in src/pkg/helpers.py" in run.stderr
    # `apply` calls what it is handed on its arrays: handed `check`, it stays NumPy too (jitted, it raised)
    assert "src/pkg/use.py:4:5: NPJ202 [error] `cleaned` hands it `.helpers.check`, which stays NumPy code" in run.stderr
    assert (tmp_path / "out" / "pkg" / "use.py").read_text() == (src / "pkg" / "use.py").read_text()
    code = "from pkg.use import cleaned\nprint(cleaned([1e-13, 2.0]))"
    assert same_results(src, tmp_path / "out", code).strip() == "2.0"


def test_a_result_another_module_stores_in_an_attribute_and_writes_in_place_keeps_its_producer_numpy(run_cli, tmp_path):
    # Filter stays NumPy (inflate writes self.P in place); self.P holds predict's result: a JAX array would make
    # `self.P *= k` rebind the attribute, and the array a caller kept would not change (1.1 instead of 2.2)
    src = tmp_path / "src"
    write(src / "pkg" / "__init__.py", "")
    write(src / "pkg" / "a.py", "import numpy as np\n\ndef predict(P, F, Q):\n    return F @ P @ F.T + Q\n")
    write(src / "pkg" / "b.py", """\
import numpy as np
from .a import predict

class Filter:
    def __init__(self, P0):
        self.P = np.array(P0, dtype=float)
        self.F = np.eye(2)
        self.Q = 0.1 * np.eye(2)

    def step(self):
        self.P = predict(self.P, self.F, self.Q)

    def inflate(self, k):
        self.P *= k

def run():
    f = Filter(np.eye(2))
    f.step()
    P = f.P
    f.inflate(2.0)
    return float(P[0, 0])
""")
    run = migrate(run_cli, src, tmp_path / "out")
    assert "src/pkg/a.py:3:5: NPJ202 [error] `Filter.inflate` (src/pkg/b.py" in run.stderr
    assert same_results(src, tmp_path / "out", "from pkg.b import run; print(run())").strip() == "2.2"


def test_an_attribute_numpy_code_in_another_module_writes_in_place_stays_a_numpy_array(run_cli, tmp_path):
    # emcee: State.__init__ stores coords; a move (NumPy code: NPJ201) writes old.coords[m] = ... and another
    # adds in place: with JAX arrays the first raised and the second rebound coords (the kept `keep` went stale)
    src = tmp_path / "src"
    write(src / "pkg" / "__init__.py", "")
    write(src / "pkg" / "state.py", """\
import numpy as np

class State:
    def __init__(self, coords):
        self.coords = np.atleast_2d(coords)
        self.scale = np.ones(2)

    def norm(self):
        return np.linalg.norm(self.coords)
""")
    write(src / "pkg" / "moves.py", """\
def update(old, new, accepted):
    old.coords[accepted] = new.coords[accepted]

def shift(state, d):
    state.coords += d
""")
    write(src / "pkg" / "run.py", """\
import numpy as np
from .state import State
from . import moves

def go():
    a = State(np.zeros((3, 2)))
    keep = a.coords
    moves.update(a, State(np.ones((3, 2))), np.array([True, False, True]))
    moves.shift(a, 1.0)
    return keep.tolist()
""")
    run = migrate(run_cli, src, tmp_path / "out")
    assert "src/pkg/state.py:4:9: NPJ202 [error] `update` (src/pkg/moves.py:2), in another module, writes `.coords`" in run.stderr
    assert (tmp_path / "out" / "pkg" / "state.py").read_text() == (src / "pkg" / "state.py").read_text()
    printed = same_results(src, tmp_path / "out", "from pkg.run import go; print(go())")
    assert printed.strip() == "[[2.0, 2.0], [1.0, 1.0], [2.0, 2.0]]"


def test_a_result_handed_to_a_third_module_that_only_reads_it_keeps_its_producer_migrated(run_cli, tmp_path):
    # b.total stays NumPy (np.nonzero, NPJ102) but writes nothing: make() may be migrated (transforms3d's
    # mat2axangle(axangle2mat(...)) in its tests kept half the package NumPy)
    src = tmp_path / "src"
    write(src / "pkg" / "__init__.py", "")
    write(src / "pkg" / "a.py", "import numpy as np\n\ndef make(n):\n    return np.ones((n, 2))\n")
    write(src / "pkg" / "b.py", "import numpy as np\n\ndef total(M):\n    return float(np.sum(M[np.nonzero(M)]))\n")
    write(src / "pkg" / "c.py", "from .a import make\nfrom .b import total\n\ndef h(n):\n    M = make(n)\n    return total(M)\n")
    run = migrate(run_cli, src, tmp_path / "out")
    assert "a.py:3:5: NPJ202" not in run.stderr
    assert "jnp.ones" in (tmp_path / "out" / "pkg" / "a.py").read_text()
    assert same_results(src, tmp_path / "out", "from pkg.c import h; print(h(3))").strip() == "6.0"


THIRD_MODULE_NUMPY_USERS = [
    pytest.param(  # transforms3d: mat2quat stays NumPy (here: np.unique, NPJ102) and reads `M.flat`, which a JAX array lacks
        "import numpy as np\n\ndef make(n):\n    return np.ones((n, 2))\n",
        "import numpy as np\n\ndef first(M):\n    q = np.unique(np.array(list(M.flat)))\n    return float(q.sum())\n",
        "from .a import make\nfrom .b import first\n\ndef h(n):\n    M = make(n)\n    return first(M)\n",
        "1.0", id="reading-flat"),
    pytest.param(  # hunt9's pipeline: ops.accumulate_histogram_(counts, ...) does np.add.at(counts, idx, 1) on counts_table()
        "import numpy as np\n\ndef table(n):\n    return np.zeros(n, dtype=np.int64)\n",
        "import numpy as np\n\ndef add_(counts, idx):\n    np.add.at(counts, idx, 1)\n",
        "import numpy as np\nfrom .a import table\nfrom .b import add_\n\ndef h(n):\n    c = table(n)\n"
        "    add_(c, np.array([0, 0, 1]))\n    return c.tolist()\n",
        "[2, 1, 0]", id="adding-into-it-with-add-at"),
]


@pytest.mark.parametrize("a, b, c, printed", THIRD_MODULE_NUMPY_USERS)
def test_a_result_handed_to_a_third_modules_numpy_function_keeps_its_producer_numpy(run_cli, tmp_path, a, b, c, printed):
    src = tmp_path / "src"
    write(src / "pkg" / "__init__.py", "")
    write(src / "pkg" / "a.py", a)
    write(src / "pkg" / "b.py", b)
    write(src / "pkg" / "c.py", c)
    run = migrate(run_cli, src, tmp_path / "out")
    assert "a.py:3:5: NPJ202" in run.stderr
    assert same_results(src, tmp_path / "out", "from pkg.c import h; print(h(3))").strip() == printed


@pytest.mark.parametrize("b_imports_numpy", [False, True])
def test_a_result_handed_to_a_third_module_that_writes_into_it_keeps_its_producer_numpy(run_cli, tmp_path, b_imports_numpy):
    # c.py hands make()'s result to b.bump, which adds in place: a JAX array would only be rebound in bump (0.0, not 6.0)
    src = tmp_path / "src"
    write(src / "pkg" / "__init__.py", "")
    write(src / "pkg" / "a.py", "import numpy as np\n\ndef make(n):\n    return np.zeros((n, 2))\n")
    write(src / "pkg" / "b.py", ("import numpy as np\n\n" if b_imports_numpy else "") + "def bump(M):\n    M += 1.0\n")
    write(src / "pkg" / "c.py", "from .a import make\nfrom .b import bump\n\ndef h(n):\n    M = make(n)\n    bump(M)\n    return float(M.sum())\n")
    run = migrate(run_cli, src, tmp_path / "out")
    assert "src/pkg/a.py:3:5: NPJ202 [error] `h` (src/pkg/c.py), in another module, writes in place" in run.stderr
    assert same_results(src, tmp_path / "out", "from pkg.c import h; print(h(3))").strip() == "6.0"


def test_another_modules_table_of_literals_gives_static_keys_and_wrapped_rows(run_cli, tmp_path):
    """real14 L2/L3 (colormath's white points): `consts.WHITE[illum]` with `WHITE` a dict of tuples in another
    module.  Jitted with `illum` traced, the key raised (a JAX array is no dict key), and `np.dot(m, wp)` became
    `jnp.dot`, which refuses a tuple.  The project pass tells the importer that `consts.WHITE` (or `WHITE`
    imported by name) is a table: its key is static and its rows are wrapped."""
    src = tmp_path / "src"
    write(src / "pkg" / "__init__.py", "")
    write(src / "pkg" / "consts.py", "WHITE = {'d65': (0.95047, 1.0, 1.08883), 'c': (0.98074, 1.0, 1.18232)}\n")
    write(src / "pkg" / "adapt.py", """\
import numpy as np
from pkg import consts
from pkg.consts import WHITE

def sharpen(m, illum):
    wp = consts.WHITE[illum]
    return np.dot(m, wp)

def first(x, illum):
    return np.asarray(x) * WHITE[illum][0]

def either(m, illum):
    if isinstance(illum, str):
        wp = consts.WHITE[illum.lower()]
    else:
        wp = illum
    return np.dot(m, wp)
""")
    migrate(run_cli, src, tmp_path / "out")
    migrated = (tmp_path / "out" / "pkg" / "adapt.py").read_text()
    assert "@functools.partial(jax.jit, static_argnums=(1,))\ndef sharpen" in migrated
    assert "jnp.dot(m, jnp.asarray(wp))" in migrated
    code = ("import numpy as np; from pkg.adapt import sharpen, first, either; m = np.arange(9.0).reshape(3, 3); "
            "r = lambda v: np.round(np.asarray(v, dtype=float), 4).tolist(); "
            "print(r(sharpen(m, 'c')), r(first(np.ones(2), 'd65')), r(either(m, 'D65')))")
    same_results(src, tmp_path / "out", code)


def test_a_table_another_module_changes_is_no_constant(run_cli, tmp_path):
    """A table some other module writes (`consts.GAINS["a"] = 2.0`) is state: its readers are not told it is a
    table of constants (a jitted reader would keep the values it traced with: NPJ302 instead)."""
    src = tmp_path / "src"
    write(src / "pkg" / "__init__.py", "")
    write(src / "pkg" / "consts.py", "GAINS = {'a': 1.0, 'b': 0.5}\n")
    write(src / "pkg" / "tune.py", "from pkg import consts\n\ndef boost():\n    consts.GAINS['a'] = 2.0\n")
    write(src / "pkg" / "use.py", """\
import numpy as np
from pkg import consts

def scaled(x, key):
    return np.asarray(x) * consts.GAINS[key]
""")
    migrate(run_cli, src, tmp_path / "out")
    migrated = (tmp_path / "out" / "pkg" / "use.py").read_text()
    assert "static_argnums" not in migrated
    code = ("import numpy as np; from pkg.use import scaled; from pkg.tune import boost; a = float(np.asarray(scaled(np.ones(1), 'a'))[0]); "
            "boost(); print(a, float(np.asarray(scaled(np.ones(1), 'a'))[0]))")
    assert same_results(src, tmp_path / "out", code).split() == ["1.0", "2.0"]


def test_numpy_names_another_module_takes_from_a_migrated_one_stay_imported(run_cli, tmp_path):
    # `cos` and `exp` are no longer used where they are imported from NumPy, but `user` star-imports
    # `tools` and `third` imports `exp` from `other`: dropping them would break those imports
    src = tmp_path / "src"
    write(src / "pkg" / "__init__.py", "")
    write(src / "pkg" / "tools.py", """\
import numpy as np
from numpy import array, cos, pi


def twice(x):
    return cos(np.asarray(x)) * 2.0
""")
    write(src / "pkg" / "user.py", """\
from .tools import *


def wave(n):
    return cos(array(range(n)) * pi / n)
""")
    write(src / "pkg" / "other.py", """\
from numpy import exp


def grow(x):
    return exp(x) + 1.0
""")
    write(src / "pkg" / "third.py", """\
from pkg.other import exp


def f(x):
    return exp(x) * 2.0
""")
    migrate(run_cli, src, tmp_path / "out")
    tools = (tmp_path / "out" / "pkg" / "tools.py").read_text()
    assert "jnp.cos(" in tools and "from numpy import array, cos, pi" in tools
    assert "jnp.exp(x)" in (tmp_path / "out" / "pkg" / "other.py").read_text()
    printed = same_results(src, tmp_path / "out", "from pkg import user, third; print(user.wave(4).round(6), round(third.f(1.0), 6))")
    assert printed.split()[-1] == "5.436564"


def test_numpy_names_nobody_imports_are_still_dropped(run_cli, tmp_path):
    src = tmp_path / "src"
    write(src / "pkg" / "__init__.py", "")
    write(src / "pkg" / "other.py", "from numpy import exp\n\n\ndef grow(x):\n    return exp(x) + 1.0\n")
    write(src / "pkg" / "third.py", "from pkg.other import grow\n\n\ndef f(x):\n    return grow(x) * 2.0\n")
    migrate(run_cli, src, tmp_path / "out")
    assert "from numpy import exp" not in (tmp_path / "out" / "pkg" / "other.py").read_text()


def test_an_exact_test_of_an_imported_inexact_result_is_reported(run_cli, tmp_path):
    """real25 S1 (pymcdm's COMET): `minmax(x) == 1.0` in another module than `minmax`, migrated, missed the maximum
    (XLA divides by the reciprocal: 0.9999999999999999) with no diagnostic; NPJ120 now reaches that caller."""
    src = tmp_path / "src"
    write(src / "pk" / "__init__.py", "")
    write(src / "pk" / "norm.py", """\
import numpy as np

def minmax(x):
    return (x - np.min(x)) / (np.max(x) - np.min(x))
""")
    write(src / "pk" / "use.py", """\
import numpy as np
from .norm import minmax

def is_best(x):
    return minmax(x) == 1.0

def total(x):
    return float(np.sum(minmax(x)))
""")
    write(src / "pk" / "attr.py", """\
from . import norm

def is_top(x):
    return norm.minmax(x) == 1.0
""")
    run = migrate(run_cli, src, tmp_path / "out")
    assert "src/pk/use.py:5:12: NPJ120 [warning] `minmax(x)` can be one unit in the last place off" in run.stderr, run.stderr
    # hunt37 S3: through the module (`norm.minmax`), in a module that does not import NumPy itself
    assert "src/pk/attr.py:4:12: NPJ120 [warning] `norm.minmax(x)` can be one unit" in run.stderr, run.stderr
    assert run.stderr.count("NPJ120") == 2, run.stderr  # a sum is no exact test
    assert (tmp_path / "out" / "pk" / "attr.py").read_text() == (src / "pk" / "attr.py").read_text()


def test_an_exact_test_of_an_inexact_function_handed_in_as_a_value_is_reported(run_cli, tmp_path):
    """real26 S1/S1b (pymcdm's COMET stores `normalization_function=normalizations.minmax_normalization`): the result
    of a function a parameter defaults to (`f=minmax`), or that a constructor stores (`self.f = f`), was tested
    exactly with no diagnostic: migrated, `best(np.array([0.1, 0.2, 0.3]))` is [False, False, False] under x64."""
    src = tmp_path / "src"
    write(src / "pk" / "__init__.py", "")
    write(src / "pk" / "norm.py", """\
import numpy as np

def minmax(x):
    return (x - np.min(x)) / (np.max(x) - np.min(x))

def best(x, f=minmax):
    return f(x) == 1.0

def spread(x, f=np.max):
    return f(x) == 1.0
""")
    write(src / "pk" / "use.py", """\
import numpy as np
from . import norm

class Best:
    def __init__(self, f=norm.minmax, g=np.abs):
        self.f = f
        self.g = g

    def __call__(self, x):
        return self.f(x) == 1.0, self.g(x) == 1.0
""")
    run = migrate(run_cli, src, tmp_path / "out")
    assert "src/pk/norm.py:7:12: NPJ120 [warning] `f(x)` can be one unit in the last place off" in run.stderr, run.stderr
    assert "src/pk/use.py:10:16: NPJ120 [warning] `self.f(x)` can be one unit" in run.stderr, run.stderr
    assert run.stderr.count("NPJ120") == 2, run.stderr  # np.max and np.abs are exact
