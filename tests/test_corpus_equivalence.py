"""Each migrated corpus function computes what the original computes.

For every function that the engine reports as ``migrated`` or
``needs-review`` (no error-level diagnostic in its span), the original module
and its golden migration are imported by path and called on the inputs from
``corpus/examples/<name>.py``: NumPy arrays for the original, the same values
as ``jnp`` arrays for the migrated module.  Results are compared with
``assert_allclose(rtol=1e-5, atol=1e-5)``; integer and boolean results must be
equal.  A function that now returns the arguments it wrote into (NPJ203)
returns what NumPy left in them; a method leaves its object with the same
attribute values.  See ``corpus/README.md`` for the ``EXAMPLES`` format.
"""

from __future__ import annotations

import copy
import importlib.util
import inspect
import sys
from functools import lru_cache
from pathlib import Path

from dataclasses import dataclass

import libcst as cst
import numpy as np
import pytest

from np2jax.analysis.mutation import ModuleMutations
from np2jax.analysis.resolve import Resolver
from np2jax.analysis.scope import collect_scopes
from np2jax.engine import migrate_source

jnp = pytest.importorskip("jax.numpy")

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "corpus"
NAMES = sorted(path.stem for path in (CORPUS / "modules").glob("*.py"))
CHECKED_STATUSES = ("migrated", "needs-review")
RTOL = ATOL = 1e-5

# Functions that cannot be compared by calling them, with the reason.
NOT_CHECKED = {
    ("finance", "Portfolio.__init__"): "constructor: exercised by every Portfolio method example",
    ("mlp", "MLP.__init__"): "constructor: exercised by every MLP method example",
    ("linear_regression", "make_loss"): "returns a closure: checked as make_loss.<locals>.loss",
    ("rigid_motion", "rk4_step"): "takes the right-hand side as a callback: checked through rotate_and_step",
}

# Known gaps and bugs of the tool: strict xfails, so that a fix is noticed
# (then delete the entry and regenerate the goldens).
KNOWN_FAILURES: dict[tuple[str, str], str] = {}

pytestmark = [
    # mean_float64 asks for float64 on purpose; jax (x64 off) warns and uses float32 (NPJ107).
    pytest.mark.filterwarnings("ignore:Explicitly requested dtype.*float64:UserWarning"),
]


def _load(path: Path, module_name: str):
    spec = importlib.util.spec_from_file_location(module_name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module  # dataclasses, pickling and friends look modules up here
    writes_bytecode, sys.dont_write_bytecode = sys.dont_write_bytecode, True  # keep corpus/ clean
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[module_name]
        raise
    finally:
        sys.dont_write_bytecode = writes_bytecode
    return module


@lru_cache(maxsize=None)
def original(name: str):
    return _load(CORPUS / "modules" / f"{name}.py", f"_corpus_original_{name}")


@lru_cache(maxsize=None)
def migrated(name: str):
    return _load(CORPUS / "expected" / f"{name}.py", f"_corpus_migrated_{name}")


@lru_cache(maxsize=None)
def examples(name: str) -> dict:
    return _load(CORPUS / "examples" / f"{name}.py", f"_corpus_examples_{name}").EXAMPLES


@lru_cache(maxsize=None)
def function_statuses(name: str) -> dict[str, str]:
    path = CORPUS / "modules" / f"{name}.py"
    result = migrate_source(path.read_bytes(), f"corpus/modules/{name}.py")
    assert result.error is None, result.error
    return {record.qualname: record.status for record in result.functions}


def _checkable(name: str) -> list[str]:
    return [q for q, status in function_statuses(name).items() if status in CHECKED_STATUSES]


def _cases():
    for name in NAMES:
        for qualname in _checkable(name):
            marks = ()
            if (name, qualname) in KNOWN_FAILURES:
                marks = (pytest.mark.xfail(reason=KNOWN_FAILURES[name, qualname], strict=True),)
            yield pytest.param(name, qualname, id=f"{name}::{qualname}", marks=marks)


# --- calling ------------------------------------------------------------------
def to_jax(value):
    """The same values, with every NumPy array (also inside lists/tuples/dicts) as a jnp array."""
    if isinstance(value, np.ndarray):
        return jnp.asarray(value)
    if isinstance(value, tuple):
        return tuple(to_jax(v) for v in value)
    if isinstance(value, list):
        return [to_jax(v) for v in value]
    if isinstance(value, dict):
        return {k: to_jax(v) for k, v in value.items()}
    return value


@dataclass
class Outcome:
    result: object
    arguments: tuple = ()  # the arguments after the call (a plain function's), which it may have mutated
    instance: object = None  # the object a method was called on, after the call


def call(module, qualname: str, example, convert) -> Outcome:
    """Call ``qualname`` of ``module`` on ``example`` (see corpus/README.md)."""
    example = convert(copy.deepcopy(example))
    if ".<locals>." in qualname:
        outer_name, inner_name = qualname.split(".<locals>.")
        outer_args, inner_args = example
        inner = getattr(module, outer_name)(*outer_args)
        assert inner.__name__ == inner_name, f"{outer_name} returned {inner!r}, not {inner_name}"
        return Outcome(inner(*inner_args))
    if "." in qualname:
        class_name, method_name = qualname.split(".")
        init_args, call_args = example
        cls = getattr(module, class_name)
        instance = cls(*init_args)
        if isinstance(inspect.getattr_static(cls, method_name), property):
            assert call_args == (), f"{qualname} is a property: call args must be ()"
            return Outcome(getattr(instance, method_name), instance=instance)
        return Outcome(getattr(instance, method_name)(*call_args), instance=instance)
    return Outcome(getattr(module, qualname)(*example), arguments=example)


@lru_cache(maxsize=None)
def returned_arguments(name: str) -> dict[str, list[int]]:
    """Functions rewritten to return the arguments they mutated (NPJ203) -> those arguments' positions."""
    path = CORPUS / "modules" / f"{name}.py"
    result = migrate_source(path.read_bytes(), f"corpus/modules/{name}.py")
    announced = {d.line for d in result.diagnostics if d.code == "NPJ203"}
    module = cst.parse_module(path.read_bytes())
    mutations = ModuleMutations(module, Resolver(collect_scopes(module).scopes))
    found = {}
    for function in mutations.returning():
        record = next(r for r in result.functions if r.qualname == function.name)
        if record.line in announced:
            names = [p.name.value for p in (*function.node.params.posonly_params, *function.node.params.params)]
            found[function.name] = [names.index(p) for p in function.params]
    return found


def assert_same_outcome(actual: Outcome, expected: Outcome, name: str, qualname: str, where: str) -> None:
    """Same result; a function that now returns its mutated arguments returns what NumPy left in them;
    a method leaves its object with the same attribute values."""
    positions = returned_arguments(name).get(qualname)
    if positions is not None:
        assert expected.result is None, f"{where}: {qualname} returned a value before migration"
        mutated = [expected.arguments[i] for i in positions]
        assert_equivalent(actual.result, mutated[0] if len(mutated) == 1 else tuple(mutated), f"{where} (returned arguments)")
    else:
        assert_equivalent(actual.result, expected.result, where)
    if expected.instance is not None:
        assert_same_state(actual.instance, expected.instance, where)


def assert_same_state(actual, expected, where: str) -> None:
    before, after = vars(expected), vars(actual)
    assert sorted(after) == sorted(before), f"{where}: attributes {sorted(after)} != {sorted(before)}"
    for key, value in before.items():
        if isinstance(value, (np.ndarray, np.generic, int, float, bool, tuple, list)) or value is None:
            assert_equivalent(after[key], value, f"{where}: self.{key}")


# --- comparing ----------------------------------------------------------------
def assert_equivalent(actual, expected, where: str = "result") -> None:
    if isinstance(expected, (tuple, list)):
        assert isinstance(actual, (tuple, list)), f"{where}: expected a sequence, got {type(actual).__name__}"
        assert len(actual) == len(expected), f"{where}: length {len(actual)} != {len(expected)}"
        for index, (a, e) in enumerate(zip(actual, expected)):
            assert_equivalent(a, e, f"{where}[{index}]")
        return
    if expected is None or isinstance(expected, str):
        assert actual == expected, where
        return
    actual_array, expected_array = np.asarray(actual), np.asarray(expected)
    assert actual_array.shape == expected_array.shape, (
        f"{where}: shape {actual_array.shape} != {expected_array.shape}"
    )
    exact_kinds = "biu"  # bool, signed and unsigned integers: must match exactly
    if expected_array.dtype.kind in exact_kinds and actual_array.dtype.kind in exact_kinds:
        np.testing.assert_array_equal(actual_array, expected_array, err_msg=where)
    else:
        np.testing.assert_allclose(
            actual_array.astype(np.result_type(actual_array.dtype, np.float32)),
            expected_array.astype(np.result_type(expected_array.dtype, np.float32)),
            rtol=RTOL, atol=ATOL, err_msg=where,
        )


# --- tests --------------------------------------------------------------------
@pytest.mark.parametrize("name, qualname", list(_cases()))
def test_migrated_function_is_equivalent(name, qualname):
    if (name, qualname) in NOT_CHECKED:
        pytest.skip(NOT_CHECKED[name, qualname])
    cases = examples(name).get(qualname)
    assert cases, (
        f"corpus/examples/{name}.py has no EXAMPLES[{qualname!r}]; "
        "add 2-3 argument tuples or a NOT_CHECKED entry with a reason"
    )
    before, after = original(name), migrated(name)
    for index, example in enumerate(cases):
        expected = call(before, qualname, example, lambda value: value)
        actual = call(after, qualname, example, to_jax)
        assert_same_outcome(actual, expected, name, qualname, f"{name}.{qualname} example {index}")


@pytest.mark.parametrize("name", NAMES)
def test_examples_name_checkable_functions(name):
    """Every EXAMPLES key is a function the engine migrated, with 2-3 examples."""
    statuses = function_statuses(name)
    for qualname, cases in examples(name).items():
        assert qualname in statuses, f"{name}: EXAMPLES[{qualname!r}] names no function of the module"
        assert statuses[qualname] in CHECKED_STATUSES, (
            f"{name}: {qualname} is {statuses[qualname]}; its migration is never compared"
        )
        assert (name, qualname) not in NOT_CHECKED, f"{name}: {qualname} has examples and a NOT_CHECKED entry"
        assert 1 <= len(cases) <= 3, f"{name}: {qualname} has {len(cases)} examples"


def test_skip_lists_are_current():
    for name, qualname in [*NOT_CHECKED, *KNOWN_FAILURES]:
        assert qualname in _checkable(name), f"stale entry ({name}, {qualname})"
