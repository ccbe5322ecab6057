"""Inside a worker: import a module, find the function, run it on inputs.

The original side finds the inputs (examples, doctests, probing), runs the
original on each (twice, for determinism, and on two slightly perturbed copies,
which tells the comparison how much rounding noise the function amplifies) and
says what the output is: the return value, the instance's state (a method
returning None), or the arguments it mutated. The migrated side runs the
migrated function on the same inputs as ``jax.numpy`` arrays.
"""

from __future__ import annotations

import copy
import functools
import inspect
import pickle
import signal
import time
import warnings
from collections import Counter
from contextlib import contextmanager

import numpy as np

from np2jax.check import inputs as inputs_module
from np2jax.check import source_hints
from np2jax.check.inputs import Call
from np2jax.check.loading import load_examples, load_examples_file, load_module, quiet_numerics
from np2jax.check.portable import Leaf, Node, beyond_float32, describe, identical, some_finite, to_portable

PERTURBATIONS = 3
VARIANT_TRIES = 8  # fresh-value variants of the user's own inputs
PERTURBATION_ULPS = 4
MAX_CANDIDATES = 160
HYPOTHESIS_EXAMPLES = 60
PROBE_SHARE = 0.5  # of the budget, for finding inputs
PROBE_CALL_SHARE = 0.2  # of the budget, for one probe of the original (one that loops for ever on it: the next)
LATER_PROBE_CALL_SHARE = 0.05  # of the budget, for each probe after one timed out


class CallTimeout(BaseException):
    """Raised by the alarm; a BaseException so that user ``except Exception`` lets it through."""


class InputProblem(Exception):
    """The inputs do not fit the target (a closure example whose outer call returns something else)."""


@contextmanager
def time_limit(seconds: float):
    if seconds <= 0:
        raise CallTimeout

    def alarm(signum, frame):
        raise CallTimeout

    previous = signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def one_line(error: BaseException) -> str:
    if isinstance(error, SystemExit):
        return f"called sys.exit({error.code!r})"
    text = str(error).strip().splitlines()
    message = f"{type(error).__name__}: {text[0]}" if text else type(error).__name__
    return message if len(message) <= 300 else message[:297] + "..."


# --- calling ------------------------------------------------------------------------
def target_object(module, kind: str, qualname: str):
    """The function object behind ``qualname`` (for signatures and the jit check)."""
    if kind == "closure":
        return getattr(module, qualname.split(".<locals>.")[0])
    if "." in qualname:
        class_name, member = qualname.split(".", 1)
        static = inspect.getattr_static(getattr(module, class_name), member)
        if isinstance(static, (staticmethod, classmethod)):
            return static.__func__
        if isinstance(static, property):
            return static.fget
        if isinstance(static, functools.cached_property):
            return static.func
        return static
    return getattr(module, qualname)


def is_jitted(function) -> bool:
    """``jax.jit`` objects (also under ``functools.partial(jax.jit, ...)``) have ``.lower``."""
    return callable(getattr(function, "lower", None))


def invoke(module, kind: str, qualname: str, call: Call):
    """Run one call; returns (result, instance or None)."""
    if kind == "closure":
        outer_name, inner_name = qualname.split(".<locals>.")
        inner = getattr(module, outer_name)(*call.prefix, **call.prefix_kwargs)
        if getattr(inner, "__name__", None) != inner_name.rsplit(".", 1)[-1]:
            raise InputProblem(f"{outer_name} returned {type(inner).__name__}, not {inner_name}")
        return inner(*call.args, **call.kwargs), None
    if "." in qualname:
        class_name, member = qualname.split(".", 1)
        cls = getattr(module, class_name)
        static = inspect.getattr_static(cls, member)
        instance = None if call.prefix is None else cls(*call.prefix, **call.prefix_kwargs)
        if instance is not None:
            set_state(instance, call.state)
        owner = cls if instance is None else instance
        if isinstance(static, (property, functools.cached_property)):
            return getattr(owner, member), instance
        return getattr(owner, member)(*call.args, **call.kwargs), instance
    return getattr(module, qualname)(*call.args, **call.kwargs), None


def set_state(instance, state: dict) -> None:
    """Give the instance's attributes named in ``state`` those values, each as the array type the attribute holds
    (a NumPy array, or a JAX one of its dtype, on the migrated side); an attribute of another type is left."""
    for name, value in state.items():
        current = getattr(instance, name, None)
        if isinstance(current, np.ndarray):
            setattr(instance, name, np.array(value, dtype=current.dtype))
        elif hasattr(current, "at") and hasattr(current, "dtype"):
            import jax.numpy as jnp

            setattr(instance, name, jnp.asarray(value, dtype=current.dtype))


def argument_values(call: Call) -> list[tuple[object, object]]:
    """(position, value) of every argument: ("a", i) positional, ("k", name) keyword."""
    return [(("a", i), v) for i, v in enumerate(call.args)] + [(("k", k), v) for k, v in call.kwargs.items()]


def decide_output(kind: str, call: Call, before: list, result, instance):
    """What the original's output is: (rule, mutated positions)."""
    if kind in ("method", "property") and instance is not None and result is None:
        return "state", ()
    after = argument_values(call)
    mutated = tuple(pos for (pos, old), (_, value) in zip(before, after) if not identical(old, to_portable(value)))
    if not mutated:
        return "return", ()
    if result is None:
        return "mutated", mutated
    returned = result if isinstance(result, (tuple, list)) else (result,)
    values = dict(after)
    if all(any(values[pos] is r for r in returned) for pos in mutated):
        return "return", ()
    return "return+mutated", mutated


def output_value(rule: str, positions, call: Call, result, instance, jax_side: bool):
    if rule == "state":
        return to_portable(instance)
    values = dict(argument_values(call))
    # A migrated function returns the arrays it used to update in place (NPJ203); a list or dict it appends to or
    # fills it still updates in place, as the original did
    containers = bool(positions) and all(isinstance(values[pos], (list, dict, set)) for pos in positions)
    if rule == "return" or (jax_side and not containers):
        return to_portable(result)
    mutated = [to_portable(values[pos]) for pos in positions]
    if rule == "mutated":
        return mutated[0] if len(mutated) == 1 else Node("sequence", "tuple", tuple(range(len(mutated))), tuple(mutated))
    items = (to_portable(result), *mutated)
    return Node("sequence", "tuple", tuple(range(len(items))), items)


def position_names(positions, params: list | None) -> str:
    names = []
    for tag, key in positions:
        if tag == "k":
            names.append(str(key))
        elif params is not None and key < len(params):
            names.append(params[key].name)
        else:
            names.append(f"argument {key}")
    return ", ".join(names)


# --- the original side -------------------------------------------------------------
class Prober:
    """Finds accepted inputs for one target and records the original's outputs."""

    def __init__(self, module, target, examples: dict, x64: bool, budget: float, min_inputs: int) -> None:
        self.module, self.target = module, target
        self.kind, self.qualname = target.kind, target.qualname
        self.x64 = x64
        self.start = time.monotonic()
        self.deadline = self.start + budget
        self.probe_deadline = self.start + budget * PROBE_SHARE
        self.min_inputs = min_inputs
        self.examples = examples
        self.accepted: list[dict] = []
        self.signatures: set[str] = set()
        self.candidates = 0
        self.failures: Counter[str] = Counter()
        self.last_error: BaseException | None = None  # what the last probe of the original raised
        self.timed_out: str | None = None
        self.budget = budget
        self.probe_timeout: str | None = None  # a probe the original did not finish (others are tried after it)
        self.nondeterministic: str | None = None
        self.params = None
        self.none_returning: Call | None = None  # a probe the original ran, returning None (from_none_returning)

    # Each accepted input: {"call", "rule", "positions", "expected", "perturbed", "description", "source"}
    def run_once(self, call: Call, limit: float | None = None):
        work = copy.deepcopy(call)
        before = [(pos, to_portable(v)) for pos, v in argument_values(work)]
        seconds = self.deadline - time.monotonic()
        with quiet_numerics(), time_limit(seconds if limit is None else min(seconds, limit)):
            result, instance = invoke(self.module, self.kind, self.qualname, work)
        return work, before, result, instance

    def try_call(self, call: Call, probing: bool, distinct_shapes: bool | None = None, finite: bool = True) -> bool:
        """Run the original on ``call``; keep it when it runs (and, for probes, gives finite values unless
        ``finite`` is False, and, unless told otherwise, has shapes no accepted input has)."""
        distinct_shapes = probing if distinct_shapes is None else distinct_shapes
        self.candidates += 1
        # A probe may loop for ever where a real input would not (Newton's method on negative values): the first
        # one that does costs a share of the budget, each later one a smaller share, and the other probes are still
        # tried (an input the original never finishes is discarded: hunt58 C1, a graph with a cycle).
        limit = None
        if probing:
            limit = self.budget * (PROBE_CALL_SHARE if self.probe_timeout is None else LATER_PROBE_CALL_SHARE)
        try:
            work, before, result, instance = self.run_once(call, limit)
            rule, positions = decide_output(self.kind, work, before, result, instance)
            expected = output_value(rule, positions, work, result, instance, jax_side=False)
        except CallTimeout:
            message = f"the original timed out on {self.describe(call)}"
            if limit is not None and time.monotonic() < self.deadline:
                self.probe_timeout = message
                self.failures[f"timed out after {limit:.0f} s"] += 1
            else:
                self.timed_out = message
            return False
        except BaseException as error:  # user code may raise anything, SystemExit included
            self.failures[one_line(error)] += 1
            self.last_error = error
            return False
        if probing and expected is None:
            self.failures["returns None and updates no argument"] += 1
            if self.none_returning is None and rule == "return":
                self.none_returning = call
            return False
        if probing and finite and not some_finite(expected):
            self.failures["no finite output"] += 1
            return False
        if probing and not self.x64 and beyond_float32(expected):
            self.failures["output beyond float32's range (the migration computes in float32 without --x64)"] += 1
            return False
        if rule == "return" and callable(result) and not isinstance(result, type):
            self.failures[f"returns a function: check it through EXAMPLES['{self.qualname}.<locals>.<name>']"] += 1
            return False
        if inspect.isgenerator(result) or inspect.iscoroutine(result):
            self.failures["returns a generator"] += 1
            return False
        signature = self.describe(call)
        if distinct_shapes and signature in self.signatures:
            return False
        try:
            work2, _, result2, instance2 = self.run_once(call, limit)
            again = output_value(rule, positions, work2, result2, instance2, jax_side=False)
        except CallTimeout:
            self.timed_out = f"the original timed out on {signature}"
            return False
        except BaseException as error:
            self.nondeterministic = f"the original raised on a second run with the same input ({one_line(error)})"
            return False
        if not identical(expected, again):
            self.nondeterministic = f"the original is not deterministic: two runs on {signature} differ"
            return False
        self.signatures.add(signature)
        self.accepted.append({
            "call": call, "rule": rule, "positions": positions, "expected": expected,
            "perturbed": self.perturbed_outputs(call, rule, positions), "description": signature,
            "source": call.source, "mutated": position_names(positions, self.params) if positions else "", "nan": False,
            "nan_ties": False,
        })
        return True

    def perturbed_outputs(self, call: Call, rule, positions) -> list:
        eps = np.finfo(np.float64 if self.x64 else np.float32).eps * PERTURBATION_ULPS  # arrays: at least their own
        outputs = []
        for k in range(PERTURBATIONS):
            rng = np.random.default_rng(inputs_module.stable_seed(self.qualname, k))
            nudged = perturb(copy.deepcopy(call), rng, eps)
            try:
                work, _, result, instance = self.run_once(nudged)
                outputs.append(output_value(rule, positions, work, result, instance, jax_side=False))
            except BaseException:
                continue
        return outputs

    def describe(self, call: Call) -> str:
        parts = [describe(to_portable(a)) for a in call.args]
        parts += [f"{k}={describe(to_portable(v))}" for k, v in call.kwargs.items()]
        text = f"({', '.join(parts)})"
        if call.prefix is not None:
            ctor = [describe(to_portable(a)) for a in call.prefix]
            ctor += [f"{k}={describe(to_portable(v))}" for k, v in call.prefix_kwargs.items()]
            text = f"[{', '.join(ctor)}]{text}"
        return text

    def stopped(self) -> bool:
        return bool(self.timed_out or self.nondeterministic)

    # -- sources, in order ----------------------------------------------------------
    def from_examples(self) -> None:
        for case in self.examples.get(self.qualname, []):
            if self.stopped():
                return
            try:
                call = example_call(self.kind, case)
            except InputProblem as problem:
                self.failures[f"bad example: {problem}"] += 1
                continue
            self.try_call(call, probing=False)

    def from_variants(self) -> None:
        """More inputs like the user's own: the same structure, shapes and dtypes, fresh values."""
        given = [entry["call"] for entry in self.accepted]
        rng = np.random.default_rng(inputs_module.stable_seed(self.qualname, "variants"))
        for attempt in range(VARIANT_TRIES):
            if self.stopped() or len(self.accepted) >= self.min_inputs or time.monotonic() > self.probe_deadline:
                return
            variant = resample(copy.deepcopy(given[attempt % len(given)]), rng)
            variant.source = "variant"
            self.try_call(variant, probing=True, distinct_shapes=False)

    def from_special(self) -> None:
        """Three more inputs like the first accepted one. First its float arrays made of distinct whole and half
        values (0 and 0.5 among them, centred on 0 where the array has negative values), its integer arrays with a zero;
        then every such array all zeros; then its float arrays as first accepted, each with one NaN. What random
        values never hit (an exact zero, a value on a threshold, equal elements, a missing value), where a wrong
        comparison, branch or reduction shows: multiplicative nudges leave a zero and a NaN where they are, so a
        difference there is not excused as noise. Distinct values, because NumPy's default sort orders ties in no
        fixed way; an input whose original casts NaN or inf to an integer (a value NumPy leaves to the platform) is
        not kept, nor (but for the NaN one) one whose output has no finite value."""
        if not self.accepted or self.stopped() or time.monotonic() > self.probe_deadline:
            return
        for mode in SPECIAL_MODES:
            rng = np.random.default_rng(inputs_module.stable_seed(self.qualname, "special", mode != "halves"))
            special = special_values(copy.deepcopy(self.accepted[0]["call"]), rng, mode)
            if special is not None and not self.stopped() and not self._casts_invalid(special):
                special.source = "special"
                # (a NaN the original propagates to every output, `np.maximum(x, 0).sum()`, is compared too)
                if self.try_call(special, probing=True, distinct_shapes=False, finite=mode != "nan") and mode == "nan":
                    self.accepted[-1]["description"] += " with a NaN in each float array"
                    self.accepted[-1]["nan"] = True
                    self.accepted[-1]["nan_ties"] = nan_ties_possible(special)
        base = self.accepted[0]["call"]
        for note, special in self.targeted_specials(base):
            if self.stopped() or time.monotonic() > self.probe_deadline:
                return
            if not self._casts_invalid(special):
                special.source = "special"
                if self.try_call(special, probing=True, distinct_shapes=False):
                    self.accepted[-1]["description"] += f" with {note}"

    def targeted_specials(self, call: Call) -> list[tuple[str, Call]]:
        """A few more inputs like the first accepted one, each for a kind of wrong migration that random values and
        the three special inputs above miss (mut1 C3 to C6):
        - one float array argument alone all zeros, the others as they were (a `w.sum() == 0` branch that zeroing
          every array together reaches with `x` zero too, where a wrong branch gives 0 all the same), for the second
          and third such argument;
        - ties with a threshold: float arrays of whole and half values, integer arrays holding 0 and 1, and every
          float number given, or left to a float default, 1.0 (`image > level` of an 8-bit image; `>` for `>=`);
        - magnitudes below and above 1: float arrays of positive values spread from 0.25 to 32 (a loop ending on
          `max(hi - lo)`), parameters named for images floats in [0, 1) (a `clip(..., 0, 1)` that does not
          saturate); a function given only numbers gets each float number that may be an array as 5 such values."""
        rng = np.random.default_rng(inputs_module.stable_seed(self.qualname, "targeted"))
        found: list[tuple[str, Call]] = []
        values = argument_values(call)
        floats = [pos for pos, value in values if plain_float_array(value)]
        for pos in floats[1:3]:
            found.append((f"{position_names([pos], self.params)} all zeros",
                          replace_arguments(call, {pos: np.zeros_like(dict(values)[pos])})))
        compared = source_hints.compared_names(self.source())
        ties = tie_values(call, rng, self.omitted_float_defaults(call, compared), compared, self.argument_names(call))
        if ties is not None:
            found.append(("values tied to a threshold of 1.0", ties))
        names = {pos: name for pos, name in zip((pos for pos, _ in values), self.argument_names(call))}
        spread = magnitude_values(call, names, self.params, rng, np.float64 if self.x64 else np.float32)
        if spread is not None:
            found.append(("values from 0.25 to 32 (images in [0, 1))", spread))
        state = self.state_values(call, rng)
        if state is not None:
            found.append((f"the instance's {', '.join(state.state)} set to random values", state))
        return found

    def state_values(self, call: Call, rng: np.random.Generator) -> Call | None:
        """For a method or property: ``call`` with the float array attributes the constructor leaves constant (all
        zeros: a filter's state, a running sum; all one value) given random values before the method runs (square
        ones symmetric positive definite, as probing's). A method otherwise only ever sees a fresh object's zero
        state, where `x[:] = F @ x` and `x += F @ x` agree, as resetting to 0 and adding 0 do (mut1 C1a, C1b).
        None when there is no such attribute."""
        if self.kind not in ("method", "property") or call.prefix is None:
            return None
        cls = getattr(self.module, self.qualname.split(".")[0])
        try:
            with quiet_numerics(), time_limit(self.deadline - time.monotonic()):
                instance = cls(*copy.deepcopy(call.prefix), **copy.deepcopy(call.prefix_kwargs))
            attributes = dict(vars(instance))
        except BaseException:
            return None
        state = {}
        for name, value in attributes.items():
            if (isinstance(value, np.ndarray) and value.dtype.kind == "f" and value.size >= 1 and value.ndim >= 1
                    and np.all(np.isfinite(value)) and np.all(value == value.reshape(-1)[0])):
                values = rng.standard_normal(value.shape)
                if _square(value):
                    values = values @ values.T / value.shape[0] + np.eye(value.shape[0])
                state[name] = values.astype(value.dtype)
        if not state:
            return None
        special = copy.deepcopy(call)
        special.state = state
        return special

    def argument_names(self, call: Call) -> list[str | None]:
        """The parameter name of each argument of ``call`` (argument_values' order; None where unknown)."""
        params = self.params or []
        named = [params[i].name if i < len(params) else None for i in range(len(call.args))]
        return named + list(call.kwargs)

    def source(self):
        """The target's parsed source (None where it cannot be read)."""
        try:
            return source_hints.source_tree(target_object(self.module, self.kind, self.qualname))
        except BaseException:
            return None

    def omitted_float_defaults(self, call: Call, compared: set[str]) -> list[str]:
        """Parameters of a plain function left to a float default in ``call`` that its code compares (and that
        can be given by keyword: passing one makes jit compile again, so only thresholds)."""
        if self.kind != "function":
            return []
        try:
            signature = inspect.signature(target_object(self.module, self.kind, self.qualname))
        except (TypeError, ValueError):
            return []
        items = list(signature.parameters.values())
        return [p.name for i, p in enumerate(items)
                if i >= len(call.args) and p.name not in call.kwargs and type(p.default) is float and p.name in compared
                and p.kind in (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)]

    def from_lists(self) -> None:
        """For a function that converts a parameter from a list itself (discover.converts_from_lists: callers give it
        lists), one more input: the first generated one the original returns from (updating no argument) with its small
        float and integer arrays (1-D or 2-D) given as Python lists, as callers often pass them (``cross([1., 0.,
        0.], [0., 1., 0.])``): all of them, or else one at a time, the first the original accepts (hunt56 C1). One
        the original raises on is no valid input; one it updates a list of in place (a migrated function returns what
        it updates: NPJ203), or returns something of another structure from (a list's `x.copy()` is a list, `x * 2`
        repeats it: not used as an array), is not kept either."""
        base = next((entry for entry in self.accepted if entry["source"] in ("probe", "hypothesis")
                     and entry["rule"] == "return"), None)
        if base is None or self.stopped() or time.monotonic() > self.probe_deadline:
            return
        positions = [pos for pos, value in argument_values(base["call"]) if _listable(value)]
        if not positions:
            return
        choices = [positions] + ([[pos] for pos in positions] if len(positions) > 1 else [])
        for chosen in choices[:LIST_TRIES]:
            if self.stopped():
                return
            call = copy.deepcopy(base["call"])
            args, kwargs = list(call.args), dict(call.kwargs)
            for tag, key in chosen:
                if tag == "a":
                    args[key] = args[key].tolist()
                else:
                    kwargs[key] = kwargs[key].tolist()
            call = Call(call.prefix, tuple(args), kwargs, "list input", call.prefix_kwargs)
            if not self.try_call(call, probing=True, distinct_shapes=False):
                continue
            entry = self.accepted[-1]
            if entry["rule"] != "return" or skeleton(entry["expected"]) != skeleton(base["expected"]):
                self.accepted.pop()
                continue
            names = position_names(chosen, self.params)
            entry["description"] = f"{base['description']} with {names} given as {'a list' if len(chosen) == 1 else 'lists'}"
            if source_hints.converts_with_dtype(self.source()):  # (another jit compile: only where a dtype is named)
                self.int_lists(call, chosen, names, skeleton(base["expected"]))
            return

    def int_lists(self, call: Call, chosen: list, names: str, structure) -> None:
        """After a list input of float values: the same lists made of whole numbers as Python ints (`[1, 2]`, which
        `np.asarray(x, dtype=np.float32)` makes float and a migration dropping the dtype leaves int: mut1 C7), kept
        on the same terms as the float one (float values doubled and rounded: halves stay distinct)."""
        ints = copy.deepcopy(call)
        args, kwargs = list(ints.args), dict(ints.kwargs)
        changed = False
        for tag, key in chosen:
            values = args[key] if tag == "a" else kwargs[key]
            array = np.asarray(values)
            if array.dtype.kind != "f":
                continue
            whole = np.rint(array * 2).astype(np.int64).tolist()  # (halves made whole: most stay distinct)
            changed = True
            if tag == "a":
                args[key] = whole
            else:
                kwargs[key] = whole
        if not changed or self.stopped():
            return
        ints = Call(ints.prefix, tuple(args), kwargs, "list input", ints.prefix_kwargs, int_lists=True)
        if not self.try_call(ints, probing=True, distinct_shapes=False):
            return
        entry = self.accepted[-1]
        if entry["rule"] != "return" or skeleton(entry["expected"]) != structure:
            self.accepted.pop()
            return
        entry["description"] = f"{self.describe(ints)} with {names} given as integer {'list' if len(chosen) == 1 else 'lists'}"

    def from_none_returning(self) -> None:
        """No input found whose output can be compared, but the original ran and returned None, updating no
        argument (a test function, a setup or a printing one): keep one such input, so that a migrated function
        that raises or returns something is not skipped (real28 C5: a test calling a jitted function with lists).
        The original's run may also set state later targets read (a classmethod's class attributes)."""
        if self.accepted or self.stopped() or self.none_returning is None:
            return
        self.try_call(self.none_returning, probing=False, distinct_shapes=False)

    def _casts_invalid(self, call: Call) -> bool:
        """Does the original cast NaN or an infinity to an integer on ``call`` ("invalid value encountered in
        cast": the result is whatever the platform gives, 0 for XLA)?"""
        work = copy.deepcopy(call)
        with warnings.catch_warnings(record=True) as caught, np.errstate(all="ignore", invalid="warn"):
            warnings.simplefilter("always")
            try:
                with time_limit(self.deadline - time.monotonic()):
                    invoke(self.module, self.kind, self.qualname, work)
            except BaseException:
                return False  # (try_call records why)
        return any("in cast" in str(warning.message) for warning in caught)

    def from_doctests(self, function) -> None:
        if self.kind != "function":
            return
        try:
            calls = inputs_module.doctest_calls(function, self.qualname, vars(self.module))
        except BaseException:
            return
        for call in calls:
            if self.stopped() or len(self.accepted) >= self.min_inputs:
                return
            self.try_call(call, probing=True)

    def probe(self, function) -> None:
        split, params = self.probe_parameters(function)
        if params is None:
            return
        unfilled = next((p.name for p in params if not p.kinds), None)
        if unfilled is not None:  # a file name or handle: check it through EXAMPLES
            self.failures[f"takes a file or path (`{unfilled}`): give it inputs in EXAMPLES"] += 1
            return
        self.params = params if split is None else params[split:]
        float_dtype = np.float64 if self.x64 else np.float32
        seed = inputs_module.stable_seed(self.qualname)
        per_structure: Counter[str] = Counter()
        per_assignment: Counter[str] = Counter()
        wrong_kind: Counter[str] = Counter()  # assignment -> probes that raised TypeError/AttributeError
        zero_d: Counter[str] = Counter()  # assignment -> 0-d probes after it was given up
        for structure, call in inputs_module.systematic_candidates(params, seed, float_dtype, split):
            if self.enough() or self.stopped():
                return
            variant, assignment, plan, _ = structure.split("/")
            # First sizes: one input per shape plan and two per kind assignment, so that the
            # accepted inputs differ in shapes and in non-default arguments.
            if variant == "0" and (per_structure[assignment, plan] or per_assignment[assignment] >= 2):
                continue
            # An assignment whose first probes all raise TypeError or AttributeError (or test an array's truth)
            # gives an argument the wrong kind (a float where np.pad wants an int, a number where `.shape` is
            # read, an array where `if` wants a number): other shapes will not help, so the candidates go to
            # the next assignment.
            # (A 0-d array is what an array in place of a number wants, `np.array([[ct, -st], [st, ct]])`: one
            # such probe per given-up assignment still runs.)
            if not per_assignment[assignment] and wrong_kind[assignment] >= WRONG_KIND_PROBES:
                if plan != "0-D" or zero_d[assignment]:
                    continue
                zero_d[assignment] += 1
            self.last_error = None
            if self.try_call(call, probing=True):
                per_structure[assignment, plan] += 1
                per_assignment[assignment] += 1
            elif isinstance(self.last_error, (TypeError, AttributeError)) or (
                    isinstance(self.last_error, ValueError) and "truth value of an array" in str(self.last_error)) or (
                    isinstance(self.last_error, IndexError) and "must be of integer" in str(self.last_error)) or (
                    isinstance(self.last_error, ValueError) and ("inhomogeneous" in str(self.last_error)
                                                                 or "with a sequence" in str(self.last_error))):
                # (`x[0] = x0` with an array `x0`: "setting an array element with a sequence", a number belongs there)
                wrong_kind[assignment] += 1
        if not self.enough() and not self.stopped():
            inputs_module.hypothesis_candidates(params, float_dtype, split, self.accept_hypothesis, HYPOTHESIS_EXAMPLES)

    def accept_hypothesis(self, call: Call) -> bool:
        if self.enough() or self.stopped():
            return True
        self.try_call(call, probing=True)
        return self.enough() or self.stopped()

    def enough(self) -> bool:
        """Enough generated inputs (doctests' and their variants are not counted: probing runs beside them)."""
        generated = sum(entry["source"] in ("probe", "hypothesis") for entry in self.accepted)
        return (generated >= self.min_inputs or self.candidates >= MAX_CANDIDATES
                or time.monotonic() > self.probe_deadline)

    def probe_parameters(self, function):
        """(split, params): constructor parameters first for methods, then the method's."""
        if self.kind == "closure":
            return None, None
        if self.kind in ("method", "property"):
            cls = getattr(self.module, self.qualname.split(".")[0])
            ctor = inputs_module.parameters(cls)
            if ctor is None:
                ctor = []
            own = inputs_module.parameters(function, skip_first=True)
            if own is None:
                return None, None
            return len(ctor), ctor + own
        own = inputs_module.parameters(function, skip_first=self.kind == "classmethod")
        return None, own


WRONG_KIND_PROBES = 4  # probes of one kind assignment that raise TypeError/AttributeError before it is given up


def replace_arguments(call: Call, replacements: dict) -> Call:
    """A copy of ``call`` with the arguments at the given positions (argument_values' keys) replaced."""
    args = [replacements.get(("a", i), v) for i, v in enumerate(call.args)]
    kwargs = {k: replacements.get(("k", k), v) for k, v in call.kwargs.items()}
    return Call(copy.deepcopy(call.prefix), tuple(copy.deepcopy(args)), copy.deepcopy(kwargs), call.source,
                copy.deepcopy(call.prefix_kwargs))


def example_call(kind: str, case) -> Call:
    if kind in ("method", "property", "closure", "staticmethod", "classmethod"):
        if not (isinstance(case, (tuple, list)) and len(case) == 2):
            raise InputProblem("a method or closure example is a pair (constructor or outer args, call args)")
        prefix, args = case
        return Call(tuple(prefix), tuple(args), {}, "example")
    return Call(None, tuple(case) if isinstance(case, (tuple, list)) else (case,), {}, "example")


def map_values(value, leaf):
    """``value`` rebuilt with ``leaf`` applied to everything but a ``Call``, a tuple (not a named one), a list or a
    dict, which are walked in order (the order draws from a random generator are made in)."""
    if isinstance(value, Call):
        return Call(map_values(value.prefix, leaf), map_values(value.args, leaf), map_values(value.kwargs, leaf),
                    value.source, map_values(value.prefix_kwargs, leaf), value.fixed_numbers, value.int_lists,
                    map_values(value.state, leaf))
    if isinstance(value, tuple) and not hasattr(type(value), "_fields"):
        return tuple(map_values(v, leaf) for v in value)
    if isinstance(value, list):
        return [map_values(v, leaf) for v in value]
    if isinstance(value, dict):
        return {k: map_values(v, leaf) for k, v in value.items()}
    return leaf(value)


def resample(value, rng: np.random.Generator):
    """The same structure with fresh array values of the same shape, dtype and range."""

    def fresh(leaf):
        if isinstance(leaf, np.ndarray) and leaf.size > 1:
            if leaf.dtype.kind in "biu":
                return leaf if is_sorted(leaf) else rng.permutation(leaf.reshape(-1)).reshape(leaf.shape)
            if leaf.dtype.kind == "f" and np.all(np.isfinite(leaf)):
                low, high = float(leaf.min()), float(leaf.max())
                if low >= 0:
                    values = rng.uniform(low, high, size=leaf.shape).astype(leaf.dtype)
                else:
                    values = (leaf.mean() + leaf.std() * rng.standard_normal(leaf.shape)).astype(leaf.dtype)
                return keep_order(leaf, values)
        return leaf

    return map_values(value, fresh)


def is_sorted(leaf: np.ndarray) -> bool:
    """An array of 3 or more values in ascending order (in C order): bins, knots, a grid (`np.searchsorted(a, v)`
    wants `a` sorted: probing gives it sorted, inputs.build_call); fresh or special values for it stay sorted."""
    flat = leaf.reshape(-1)
    return flat.size >= 3 and flat.dtype.kind in "iuf" and bool(np.all(flat[1:] >= flat[:-1]))


def keep_order(leaf: np.ndarray, values: np.ndarray) -> np.ndarray:
    """``values`` (new values for ``leaf``) sorted as ``leaf`` is, when it is (is_sorted)."""
    return np.sort(values, axis=None).reshape(values.shape) if is_sorted(leaf) else values


SPECIAL_MODES = ("halves", "zeros", "nan")
LIST_TRIES = 3  # list variants of one input tried (execute.Prober.from_lists); at most one is kept
LIST_SIZE = 100  # the most elements of an array given as a list


def _listable(value) -> bool:
    """A small 1-D or 2-D float or integer array (a caller could write it as a list)."""
    return (isinstance(value, np.ndarray) and value.ndim in (1, 2) and 0 < value.size <= LIST_SIZE
            and value.dtype.kind in "iuf")


def skeleton(value) -> object:
    """The structure of a portable value: nodes' kinds, types and keys, down to the leaves (an array or number,
    whatever its shape: `np.histogramdd` of a list of rows has other dimensions, and that is compared)."""
    if isinstance(value, Leaf):
        return "leaf"
    if isinstance(value, Node):
        return (value.kind, value.type_name, value.keys, tuple(skeleton(child) for child in value.children))
    return type(value).__name__


def special_values(value, rng: np.random.Generator, mode: str = "halves"):
    """``value`` with every float array of more than one element but square matrices made of distinct whole and
    half values (0, 0.5, 1, ..., centred on 0 where the array has negative values, in a random order) and a zero put
    first in every integer one (``mode`` "zeros": every such array all zeros; "nan": each such float array as it
    was, with one NaN at a random place); None when it has no such array."""
    changed = []

    def special(leaf):
        if not isinstance(leaf, np.ndarray) or leaf.size <= 1:
            return leaf
        if leaf.dtype.kind == "f" and np.all(np.isfinite(leaf)) and (mode == "zeros" or not _square(leaf)):
            changed.append(leaf)
            if mode == "zeros":
                return np.zeros_like(leaf)
            if mode == "nan":
                if is_sorted(leaf):  # (sorted values with a NaN are no longer sorted: np.digitize's bins)
                    changed.pop()
                    return leaf
                result = leaf.copy()
                result.reshape(-1)[rng.integers(leaf.size)] = np.nan
                return result
            start = 0.0 if leaf.min() >= 0 else -0.5 * (leaf.size // 2)  # as many negative values as positive ones
            values = rng.permutation(start + 0.5 * np.arange(leaf.size)).reshape(leaf.shape).astype(leaf.dtype)
            return keep_order(leaf, values)
        if leaf.dtype.kind in "iu" and mode != "nan":
            changed.append(leaf)
            result = np.zeros_like(leaf) if mode == "zeros" else leaf.copy()
            result.reshape(-1)[0] = 0  # (a valid index, pixel, count)
            return keep_order(leaf, result)
        return leaf

    result = map_values(value, special)
    return result if changed else None


def _square(value: np.ndarray) -> bool:
    """A square matrix: probing made it symmetric positive definite (solvers, covariances); whole and half values
    in a random order would be neither, and a solver's result on them is rounding."""
    return value.ndim == 2 and value.shape[0] == value.shape[1]


# --- targeted special inputs (execute.Prober.targeted_specials) ---------------------------------------------
MAGNITUDE_RANGE = (0.25, 32.0)  # positive values spread over both sides of 1 (geometrically)
MAGNITUDE_SIZE = 5  # the array given for a number that may be one, in a call of numbers only


def plain_float_array(value) -> bool:
    """A finite float array of more than one element, not a square matrix (special_values changes the same ones)."""
    return (isinstance(value, np.ndarray) and value.dtype.kind == "f" and value.size > 1 and not _square(value)
            and bool(np.all(np.isfinite(value))))


def tie_values(call: Call, rng: np.random.Generator, omitted: list[str], compared: set[str],
               names: list) -> Call | None:
    """``call`` with its float arrays made of whole and half values (special_values), 0 and 1 first in its integer
    arrays (1 only where the array already reaches 1: still a valid index), and every float number given (and each
    float default in ``omitted``, passed by keyword) 1.0, a value those arrays hold: `image > level` and
    `image >= level` then differ. None when no float number the code compares (a name in ``compared``; ``names``:
    the parameter name of each argument, in argument_values' order) is given or left to a default."""
    given = [name for name, value in zip(names, (*call.args, *call.kwargs.values())) if type(value) is float]
    if not omitted and not any(name in compared for name in given):
        return None
    base = special_values(copy.deepcopy(call), rng, "halves") or copy.deepcopy(call)
    def tie(leaf):
        if type(leaf) is float:
            return 1.0
        if isinstance(leaf, np.ndarray) and leaf.dtype.kind in "iu" and leaf.size > 1 and leaf.max() >= 1:
            result = leaf.copy()
            result.reshape(-1)[1] = 1
            return keep_order(leaf, result)
        return leaf

    args, kwargs = map_values(base.args, tie), map_values(base.kwargs, tie)
    kwargs.update((name, 1.0) for name in omitted)
    return Call(base.prefix, args, kwargs, "special", base.prefix_kwargs, fixed_numbers=True)


def magnitude_values(call: Call, names: dict, params: list | None, rng: np.random.Generator,
                     float_dtype) -> Call | None:
    """``call`` with its float arrays (special_values' ones) made of positive values spread from 0.25 to 32 in a
    random order (sorted where they were), arrays of parameters named for images floats in [0, 1); or, when it has
    no array, each float number given for a parameter that may be an array (`c` of an elementwise cube root) 5 such
    values. None when nothing changes."""
    changed = []
    low, high = MAGNITUDE_RANGE

    def spread(size, dtype):
        return rng.permutation(np.geomspace(low, high, size)).astype(dtype)

    def new_value(pos, value):
        name = (names.get(pos) or "").lower()
        if isinstance(value, np.ndarray) and value.size > 1 and name in inputs_module.IMAGE_NAMES and value.dtype.kind in "uif":
            changed.append(pos)
            return rng.uniform(0.0, 1.0, size=value.shape).astype(value.dtype if value.dtype.kind == "f" else float_dtype)
        if plain_float_array(value):
            changed.append(pos)
            return keep_order(value, spread(value.size, value.dtype).reshape(value.shape))
        return value

    has_arrays = any(isinstance(v, np.ndarray) and v.size > 1 for v in (*call.args, *call.kwargs.values()))
    kinds = {p.name: p.kinds for p in params or []}

    def array_number(pos, value):
        if type(value) is float and any(k[0] == "array" for k in kinds.get(names.get(pos), [])):
            changed.append(pos)
            return spread(MAGNITUDE_SIZE, float_dtype)
        return value

    change = new_value if has_arrays else array_number
    args = tuple(change(("a", i), v) for i, v in enumerate(call.args))
    kwargs = {k: change(("k", k), v) for k, v in call.kwargs.items()}
    if not changed:
        return None
    return Call(copy.deepcopy(call.prefix), copy.deepcopy(args), copy.deepcopy(kwargs), "special",
                copy.deepcopy(call.prefix_kwargs))


SMALL_SORT = 16  # NumPy sorts this many elements or fewer by insertion: ties keep their order, as in JAX's stable sort


def nan_ties_possible(call: Call) -> bool:
    """May NaN ties on the NaN special input be ordered differently by NumPy and JAX? Up to SMALL_SORT elements
    NumPy's sorts (its SIMD ones too) keep tied NaNs in their order, as JAX's stable sort does; longer arrays are
    sorted by introsort or sorting networks, which order ties in no fixed way (an argsort of a row of NaN distances,
    hunt29's knn_indices). Taken from the input: an array of more than SMALL_SORT elements in it."""
    sizes = []

    def size(leaf):
        if isinstance(leaf, np.ndarray):
            sizes.append(leaf.size)
        return leaf

    map_values(call, size)
    return any(n > SMALL_SORT for n in sizes)


def _float_list(value):
    """A list of ints (nested) as the same list of floats; anything else as it is."""
    if isinstance(value, list):
        return [float(v) if type(v) is int else _float_list(v) for v in value]
    return value


def perturb(value, rng: np.random.Generator, eps: float):
    """The same structure with every float nudged by a few units in the last place.

    ``eps`` is the nudge for Python floats; in a call of tie_values, whole Python floats and the whole and half
    values of arrays are not nudged (the tie is the point); an array is nudged by at least as many units of its
    own dtype (a float32 input under --x64 would not move by float64 units: its rounding is float32's).
    """
    fixed = isinstance(value, Call) and value.fixed_numbers
    if isinstance(value, Call) and value.int_lists:  # (ints are not nudged: the noise of the same values as floats)
        value = Call(value.prefix, tuple(_float_list(v) for v in value.args),
                     {k: _float_list(v) for k, v in value.kwargs.items()}, value.source, value.prefix_kwargs)

    def nudged(leaf):
        if fixed and type(leaf) is float and leaf.is_integer():  # (a threshold the values tie with: tie_values)
            return leaf
        if isinstance(leaf, np.ndarray) and leaf.dtype.kind in "fc":
            signs = rng.choice(np.array([-1.0, 1.0]), size=leaf.shape)
            own = float(np.finfo(leaf.dtype).eps) * PERTURBATION_ULPS
            moved = (leaf * (1.0 + max(eps, own) * signs)).astype(leaf.dtype)
            if fixed and leaf.dtype.kind == "f":  # (whole and half values tie with the thresholds: kept)
                with np.errstate(invalid="ignore"):
                    return np.where(np.mod(2 * leaf, 1) == 0, leaf, moved).astype(leaf.dtype)
            return moved
        if isinstance(leaf, float) and not isinstance(leaf, bool):
            return leaf * (1.0 + eps * rng.choice([-1.0, 1.0]))
        return leaf

    return map_values(value, nudged)


def run_original(message: dict) -> dict:
    try:
        module = load_module(message["spec"])
    except ImportError as error:  # (a module the original needs is not installed here: nothing to compare)
        return {"status": "skipped", "original_ran": False,
                "message": f"the original cannot be imported here (a missing module): {one_line(error)}"}
    except BaseException as error:
        if any(c.__module__.startswith("_pytest") for c in type(error).__mro__):  # `pytest.skip(...)` at import
            # (real27: pymap3d's Matlab tests)
            return {"status": "skipped", "original_ran": False, "message": f"the original skips itself: {one_line(error)}"}
        return {"status": "error", "original_ran": False, "message": f"cannot import the original: {one_line(error)}"}
    target = message["target"]
    try:
        examples = load_examples(module, message.get("examples"))
    except BaseException as error:
        return {"status": "error", "original_ran": False, "message": f"cannot load the examples: {one_line(error)}"}
    try:
        function = target_object(module, target.kind, target.qualname)
    except BaseException as error:
        return {"status": "error", "original_ran": False, "message": f"cannot find it in the original: {one_line(error)}"}
    prober = Prober(module, target, examples, message["x64"], message["budget"], message["min_inputs"])
    prober.from_examples()
    given = bool(prober.accepted)  # EXAMPLES the user wrote for the check: the inputs that function is checked on
    if not prober.stopped() and len(prober.accepted) < prober.min_inputs:
        prober.from_doctests(function)
    if prober.accepted and not prober.stopped() and len(prober.accepted) < prober.min_inputs:
        prober.from_variants()  # the user's inputs say what valid input looks like: stay close to them
    if not given and not prober.stopped():
        # A doctest shows one input (often a small one, taking one branch): the function's own probing still runs
        # beside it (real36 C1: a doctest's 3 rows took the numeric branch, probes' 6 the one the migration broke)
        prober.probe(function)
    if prober.accepted and all(entry["source"] in ("probe", "hypothesis") for entry in prober.accepted):
        prober.from_special()  # (not beside the user's own inputs: they say what valid input looks like)
    if not given and target.takes_lists:
        prober.from_lists()
    prober.from_none_returning()
    return _original_reply(prober)


def _original_reply(prober: Prober) -> dict:
    reply = {"candidates": prober.candidates, "original_ran": bool(prober.accepted)}
    if prober.nondeterministic:
        return {**reply, "status": "skipped", "message": prober.nondeterministic}
    if (prober.timed_out or prober.probe_timeout) and not prober.accepted:
        return {**reply, "status": "error", "message": prober.timed_out or prober.probe_timeout}
    if not prober.accepted:
        common = "; ".join(f"{reason} (x{count})" for reason, count in prober.failures.most_common(2))
        if prober.kind == "closure":
            what = "no example given (closures need EXAMPLES['outer.<locals>.inner'])"
        else:
            what = f"no accepted input among {prober.candidates} candidate(s)"
        return {**reply, "status": "skipped", "message": what + (f"; {common}" if common else "")}
    calls = [entry["call"] for entry in prober.accepted]
    try:
        blob = pickle.dumps(calls, protocol=pickle.HIGHEST_PROTOCOL)
    except Exception as error:
        return {**reply, "status": "skipped", "message": f"the inputs cannot be sent to the migrated side: {one_line(error)}"}
    fields = ("rule", "positions", "expected", "perturbed", "description", "source", "mutated", "nan", "nan_ties")
    return {**reply, "status": "ok", "message": "", "calls": blob,
            "inputs": [{k: entry[k] for k in fields} for entry in prober.accepted]}


# --- the migrated side -----------------------------------------------------------
def static_scalars(function, call: Call) -> Call:
    """A 0-d array given for a parameter the migrated function's ``jax.jit`` makes static (``window`` of
    ``static_argnums``) is passed as the Python number it holds: callers pass numbers there (jit cannot hash an
    array), and the NumPy original computes the same with either."""
    info = getattr(function, "_jit_info", None)  # (JAX's own record of static_argnums/argnames; absent: as given)
    names = set(getattr(info, "static_argnames", ()) or ())
    signature = getattr(info, "fun_signature", None)
    if not names or signature is None:
        return call
    positional = [p.name for p in signature.parameters.values()
                  if p.kind in (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)]

    def scalar(value):
        return value.item() if getattr(value, "shape", None) == () and hasattr(value, "item") else value

    args = tuple(scalar(v) if i < len(positional) and positional[i] in names else v for i, v in enumerate(call.args))
    kwargs = {k: scalar(v) if k in names else v for k, v in call.kwargs.items()}
    return Call(call.prefix, args, kwargs, call.source, call.prefix_kwargs)


def to_jax(value):
    import jax.numpy as jnp

    if isinstance(value, Call):
        return Call(to_jax(value.prefix), to_jax(value.args), to_jax(value.kwargs), value.source,
                    to_jax(value.prefix_kwargs), state=value.state)  # (the state takes each attribute's own type)
    if isinstance(value, np.ndarray):
        return jnp.asarray(value)
    if isinstance(value, tuple) and not hasattr(type(value), "_fields"):
        return tuple(to_jax(v) for v in value)
    if isinstance(value, list):
        return [to_jax(v) for v in value]
    if isinstance(value, dict):
        return {k: to_jax(v) for k, v in value.items()}
    return value


def run_migrated(message: dict) -> dict:
    try:
        module = load_module(message["spec"])
    except BaseException as error:
        return {"status": "error", "message": f"cannot import the migrated module: {one_line(error)}"}
    target = message["target"]
    try:
        jitted = is_jitted(target_object(module, target.kind, target.qualname))
    except BaseException as error:
        return {"status": "error", "message": f"cannot find it in the migrated module: {one_line(error)}"}
    numpy_inputs = message["numpy_inputs"]
    examples = message.get("examples")
    if examples is not None:
        try:  # inputs may be functions or objects the examples file defines
            load_examples_file(examples)
        except BaseException as error:
            return {"status": "error", "message": f"cannot load the examples: {one_line(error)}"}
    try:
        calls = pickle.loads(message["calls"])
    except BaseException as error:
        return {"status": "error", "message": f"cannot read the inputs: {one_line(error)}"}
    deadline = time.monotonic() + message["budget"]
    results = []
    for index, (call, (rule, positions)) in enumerate(zip(calls, message["rules"])):
        try:
            with quiet_numerics():
                # A function left unjitted runs on what its callers pass: migrated callers pass JAX arrays,
                # the rest of a codebase NumPy's (which have no `.at`), so every other call gets NumPy's.
                as_given = numpy_inputs or (not jitted and index % 2 == 0)
                work = copy.deepcopy(call) if as_given else to_jax(copy.deepcopy(call))
                if jitted and target.kind == "function":
                    work = static_scalars(target_object(module, target.kind, target.qualname), work)
                with time_limit(deadline - time.monotonic()):
                    result, instance = invoke(module, target.kind, target.qualname, work)
                    value = output_value(rule, positions, work, result, instance, jax_side=not numpy_inputs)
            results.append(("ok", value))
        except CallTimeout:
            results.append(("error", f"timed out after {message['budget']:.0f} s"))
            break
        except BaseException as error:
            results.append(("error", one_line(error)))
    return {"status": "ok", "jitted": jitted, "results": results}
