"""Compare the migrated output with the original's, as pytrees.

Structure, shapes and dtype *kinds* (bool / int / float / complex) must match, and an int8/int16/float16 result
must not come back wider;
ints and bools exactly; floats within a tolerance (docs/check.md):

    |actual - expected| <= R * eps * |expected| + A * eps * max|expected| + 8 * noise

``eps`` is the machine epsilon of the expected dtype (never finer than float32's
without --x64, since JAX then computes in float32, nor where the original names float32 or float16 on its way:
``narrow``); R = 32 and A = 4 when both
sides have that precision, R = 64 and A = 8 for a float64 reference against a
float32 computation. ``noise`` is, element by element, how far the original's own
output moves when its float inputs are nudged by 4 units in the last place (at
least the 90th percentile of that over the leaf): what the function amplifies
rounding into (cancellation, long recurrences, argmin ties).
NaN and inf must sit at the same positions. Under --x64 a float result narrower than the
original's (float32 where NumPy returns float64) is a mismatch whatever its values (a Python float is
weakly typed, in NumPy as in JAX: it is compared by value).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from np2jax.check.portable import Leaf, Node, Opaque, child_path, describe

RELATIVE, ABSOLUTE, NOISE = 32, 4, 8
LOOSE_RELATIVE, LOOSE_ABSOLUTE = 64, 8
EPS32 = float(np.finfo(np.float32).eps)
UNIT_SCALE_LOOSENESS = 4  # special inputs: 16 (float32) or 32 units of 1.0


@dataclass
class Outcome:
    ok: bool = True
    max_abs: float | None = None
    max_rel: float | None = None
    where: str = ""
    index: tuple | None = None
    message: str = ""

    def fold(self, abs_err: float | None, rel_err: float | None) -> None:
        if abs_err is not None and np.isfinite(abs_err):
            self.max_abs = abs_err if self.max_abs is None else max(self.max_abs, abs_err)
        if rel_err is not None and np.isfinite(rel_err):
            self.max_rel = rel_err if self.max_rel is None else max(self.max_rel, rel_err)

    def fail(self, where: str, message: str, index: tuple | None = None) -> None:
        if self.ok:
            self.ok, self.where, self.index, self.message = False, where, index, message


@dataclass(frozen=True)
class Mode:
    x64: bool
    narrow: bool = False  # the original computes in float32 or float16 on its way (a dtype it names)
    unit_scale: bool = False  # a special input: whole and half values, zeros (execute.special_values)
    nan_input: bool = False  # the special input with a NaN in each float array


def compare(expected: object, actual: object, perturbed: list, *, x64: bool, narrow: bool = False,
            unit_scale: bool = False, nan_input: bool = False) -> Outcome:
    """``narrow``: the original computes in float32 or float16 on its way (a dtype it names): even under --x64,
    float results are held to float32's precision (the "precision lost" test on result dtypes stays).
    ``unit_scale``: a special input (execute.special_values: whole and half values, zeros): intermediate values are
    about 1 even where the result cancels to exactly 0, so the absolute tolerance is taken relative to at least 1,
    and loosely (a few units in the last place of the values cancelled).
    ``nan_input``: the special input with a NaN in each float array, where NaN ties in a sort may be ordered
    differently (an argsort of a row of NaN distances: NumPy orders ties of more than 16 elements in no fixed way;
    the runner passes it only for an input with an array of more than 16 elements, execute.nan_ties_possible):
    integer arrays in the output are compared in dtype and shape only; 0-d integers (an argmax), booleans and floats
    are compared."""
    outcome = Outcome()
    _walk(expected, actual, perturbed, "output", outcome, Mode(x64, narrow, unit_scale, nan_input))
    return outcome


def _kind(dtype: np.dtype) -> str:
    return {"b": "bool", "i": "int", "u": "int", "f": "float", "c": "complex"}.get(dtype.kind, dtype.kind)


def _walk(expected, actual, perturbed: list, where: str, outcome: Outcome, mode: Mode) -> None:
    if isinstance(expected, Leaf):
        if not isinstance(actual, Leaf):
            outcome.fail(where, f"{where}: expected {describe(expected)}, got {describe(actual)}")
            return
        _compare_leaf(expected, actual, [p for p in perturbed if isinstance(p, Leaf)], where, outcome, mode)
        return
    if isinstance(expected, Node):
        problem = _structure_problem(expected, actual)
        if problem:
            outcome.fail(where, f"{where}: {problem}")
            return
        for position, key in enumerate(expected.keys):
            child = actual.children[actual.keys.index(key)] if expected.kind in ("dict", "object") else actual.children[position]
            twins = [p.children[position] for p in perturbed
                     if isinstance(p, Node) and p.keys == expected.keys and len(p.children) == len(expected.children)]
            _walk(expected.children[position], child, twins, where + child_path(expected, key), outcome, mode)
        return
    if isinstance(expected, Opaque):
        if not (isinstance(actual, Opaque) and actual.type_name == expected.type_name):
            outcome.fail(where, f"{where}: expected {expected.type_name}, got {describe(actual)}")
        return
    if type(expected) is not type(actual) or expected != actual:
        if isinstance(expected, (str, bytes)) and type(expected) is type(actual):
            outcome.fail(where, f"{where}: {_text_difference(expected, actual)}")
            return
        outcome.fail(where, f"{where}: expected {describe(expected)}, got {describe(actual)}")


def _text_difference(expected: str | bytes, actual: str | bytes) -> str:
    """Where two strings first differ, with some of each around it (their common start says nothing)."""
    at = next((i for i, (e, a) in enumerate(zip(expected, actual)) if e != a), min(len(expected), len(actual)))
    start = max(0, at - 10)

    def part(text):
        return ("…" if start else "") + repr(text[start:at + 20]) + ("…" if len(text) > at + 20 else "")

    return f"differs at character {at}: expected {part(expected)}, got {part(actual)}"


def _structure_problem(expected: Node, actual: object) -> str:
    if not isinstance(actual, Node):
        return f"expected {describe(expected)}, got {describe(actual)}"
    if expected.kind == "sequence":
        if actual.kind not in ("sequence", "namedtuple"):
            return f"expected a {expected.type_name}, got {actual.type_name}"
        if len(actual.children) != len(expected.children):
            return f"expected {len(expected.children)} items, got {len(actual.children)}"
        return ""
    if expected.kind == "namedtuple":
        if actual.kind != "namedtuple" or actual.keys != expected.keys:
            return f"expected {expected.type_name}{expected.keys}, got {describe(actual)}"
        return ""
    if expected.kind != actual.kind:
        return f"expected {describe(expected)}, got {describe(actual)}"
    missing = [k for k in expected.keys if k not in actual.keys]
    extra = [k for k in actual.keys if k not in expected.keys] if expected.kind == "dict" else []
    if missing or extra:
        return f"keys differ: missing {missing}, unexpected {extra}"
    return ""


def _noise(expected: np.ndarray, perturbed: list[Leaf]) -> np.ndarray:
    """Elementwise: the largest move of the original's output under nudged inputs (inf if it became NaN)."""
    noise = np.zeros(expected.shape, dtype=np.float64)
    base = _as_float(expected)
    for leaf in perturbed:
        if leaf.array.shape != expected.shape or leaf.array.dtype.kind not in "biufc":
            continue
        nudged = _as_float(leaf.array)
        with np.errstate(invalid="ignore", over="ignore"):  # (inf - inf: an inf that stayed put did not move)
            moved = np.where(nudged == base, 0.0, np.abs(nudged - base))
        noise = np.fmax(noise, np.where(np.isnan(moved) & ~np.isnan(base), np.inf, np.nan_to_num(moved, nan=0.0)))
    return noise


def _as_float(array: np.ndarray) -> np.ndarray:
    if array.dtype.kind == "c":
        return array.astype(np.complex128)
    return array.astype(np.float64)


def _compare_leaf(expected: Leaf, actual: Leaf, perturbed: list[Leaf], where: str, outcome: Outcome, mode: Mode) -> None:
    x64, narrow = mode.x64, mode.narrow
    e, a = expected.array, actual.array
    if e.dtype.kind not in "biufc" or a.dtype.kind not in "biufc":
        same = e.shape == a.shape and bool(np.all(e == a)) if e.dtype == a.dtype or e.dtype.kind == a.dtype.kind else False
        if not same:
            outcome.fail(where, f"{where}: expected {describe(expected)}, got {describe(actual)}")
        return
    if _kind(e.dtype) != _kind(a.dtype):
        outcome.fail(where, f"{where}: dtype kind differs: expected {e.dtype} ({_kind(e.dtype)}), got {a.dtype} ({_kind(a.dtype)})")
        return
    if e.shape != a.shape:
        outcome.fail(where, f"{where}: shape differs: expected {e.shape}, got {a.shape}")
        return
    if x64 and e.dtype.kind in "fc" and a.dtype.itemsize < e.dtype.itemsize and expected.origin not in ("float", "complex"):
        outcome.fail(where, f"{where}: precision lost: got {a.dtype}, the original returns {e.dtype} (--x64)")
        return
    if e.dtype.kind in "iuf" and e.dtype.itemsize <= 2 and a.dtype.itemsize > e.dtype.itemsize:
        # int8/int16/float16 results (NumPy's in-place ops keep them; values past the range wrap or round there)
        outcome.fail(where, f"{where}: dtype widened: got {a.dtype}, the original returns {e.dtype}")
        return
    if e.size == 0 or (mode.nan_input and e.dtype.kind in "iu" and e.ndim):
        return
    noise = _noise(e, perturbed)
    if e.dtype.kind in "fc" and noise.size:
        # Elementwise noise misses elements whose nudges happened to cancel (log(p[t+1]) - log(p[t])
        # with both nudged the same way); the 90th percentile of the leaf's noise covers them,
        # while a few unstable elements (threshold flips) do not loosen the rest.
        finite_noise = noise[np.isfinite(noise)]
        if finite_noise.size:
            noise = np.where(np.isfinite(noise), np.maximum(noise, np.percentile(finite_noise, 90)), noise)
    ef, af = _as_float(e), _as_float(a)
    with np.errstate(all="ignore"):
        diff = np.abs(af - ef)
        finite = np.isfinite(ef) & np.isfinite(af)
        abs_err = float(np.max(diff[finite])) if finite.any() else None
        nonzero = finite & (ef != 0)
        rel_err = float(np.max(diff[nonzero] / np.abs(ef[nonzero]))) if nonzero.any() else None
        outcome.fold(abs_err, rel_err)
        if e.dtype.kind in "biu":
            tolerance = noise
            bad = (af != ef) & ~(diff <= noise)
        else:
            eps = float(np.finfo(e.dtype).eps)
            float32_math = not x64 or narrow  # JAX computes in float32, or the original itself does on its way
            loose = float32_math and eps < EPS32
            if float32_math:
                eps = max(eps, EPS32)
            relative, absolute = (LOOSE_RELATIVE, LOOSE_ABSOLUTE) if loose else (RELATIVE, ABSOLUTE)
            scale = float(np.max(np.abs(ef[np.isfinite(ef)]))) if np.isfinite(ef).any() else 0.0
            if mode.unit_scale:
                scale, absolute = max(scale, 1.0), absolute * UNIT_SCALE_LOOSENESS
            tolerance = absolute * eps * scale + relative * eps * np.abs(ef) + NOISE * noise
            unstable = np.isinf(noise)
            nan_e, nan_a = np.isnan(ef), np.isnan(af)
            inf_e, inf_a = np.isinf(ef), np.isinf(af)
            bad = (nan_e != nan_a) | ((inf_e | inf_a) & ~(nan_e | nan_a) & (af != ef)) | (finite & (diff > tolerance))
            bad &= ~unstable
    if not bad.any():
        return
    index = tuple(int(i) for i in np.argwhere(bad)[0]) if e.ndim else ()
    got, want = a[index].item(), e[index].item()
    allowed = np.broadcast_to(tolerance, e.shape)[index]
    text = f"{where}{list(index) if index else ''}: got {_number(got)}, expected {_number(want)}"
    if np.isnan(diff[index]):
        text += " (NaN on one side only)"
    else:
        text += f" (abs err {float(diff[index]):.3g}, tolerance {float(allowed):.3g})"
    if a.dtype != e.dtype:
        text += f"; dtype {a.dtype} vs {e.dtype}"
    outcome.fail(where, text, index)


def _number(value: object) -> str:
    return f"{value:.7g}" if isinstance(value, float) else repr(value)
