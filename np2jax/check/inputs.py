"""Where inputs come from: explicit examples, doctests, and probing candidates built
from type hints, defaults and parameter names (runs in the original-side worker).

Probing is systematic first (kind assignments x shape plans, seeded values), then
hypothesis-driven (``derandomize=True``) when that finds too few accepted inputs.
"""

from __future__ import annotations

import ast
import doctest
import inspect
import re
import typing
import zlib
from dataclasses import dataclass, field
from typing import Callable, Iterator

import numpy as np

from np2jax.check.source_hints import (SYMBOL_SIZES, body_uses, called_names, dict_keys, dtype_guards, index_uses, shape_kinds,
                                      sorted_uses, source_tree)


@dataclass
class Call:
    """One input: ``prefix`` is the constructor's (methods) or the outer function's
    (closures) arguments, ``None`` for plain functions."""

    prefix: tuple | None
    args: tuple
    kwargs: dict = field(default_factory=dict)
    source: str = "probe"  # example | doctest | probe | hypothesis | variant | special | list input
    prefix_kwargs: dict = field(default_factory=dict)
    # whole-number Python floats are thresholds an input's values tie with (execute.tie_values): not nudged
    fixed_numbers: bool = False
    int_lists: bool = False  # lists of ints made from float ones (execute.int_lists): nudged as floats
    # attributes set on the instance after it is built, before the method runs (execute.state_values): float arrays
    # of the original's instance given other values, so that a method does not only ever see a zero state
    state: dict = field(default_factory=dict)


# --- what a parameter may be ------------------------------------------------------
COUNT_NAMES = frozenset("n k m steps n_steps num count size length iters n_iter n_iters max_iter iterations "
                        "order degree window width height depth bins n_bins repeats times dim ndim rank "
                        "period periods n_clusters n_components n_samples n_features epochs".split())
INDEX_SCALAR_NAMES = frozenset("i j idx index start stop pos position row col column lag shift offset "
                               "step_index t_index".split())
SEED_NAMES = frozenset({"seed", "random_state", "rng_seed"})
AXIS_NAMES = frozenset({"axis", "dim_axis"})
PROB_NAMES = frozenset("alpha beta gamma p prob probability momentum decay rho frac fraction q quantile "
                       "ratio mix weight_decay dropout keep_prob smoothing".split())
PERCENT_NAMES = frozenset({"percentile", "pct", "percent"})
STEP_NAMES = frozenset("dt dx dy h lr learning_rate eps epsilon tol rtol atol delta tau step_size "
                       "rate reg l2 l1 lam lambda_ mu nu".split())
FLOAT_NAMES = frozenset("scale sigma factor gain temperature temp threshold level amount bias_value "
                        "risk_free c const constant value fill fill_value start_value"
                        " strength radius margin damping".split())
MASK_NAMES = frozenset({"mask", "where", "valid", "keep", "selected", "condition", "cond"})
INDEX_ARRAY_NAMES = frozenset("indices idxs labels label classes ids positions targets cluster_ids "
                              "assignments bins_idx perm permutation".split())
# arrays of counts: non-negative ints first (NumPy sums, convolves and wraps them as ints), then positive floats
COUNT_ARRAY_NAMES = frozenset("counts hist histogram tally votes freqs frequencies occurrences".split())
POSITIVE_NAMES = frozenset("prices price variance var std stds sigmas weights probs probabilities "
                           "rates lengths radii volumes intensity intensities image images img".split())
BOOL_PREFIXES = ("is_", "use_", "has_", "with_", "return_", "do_", "allow_")
# flags named by a verb, as it is or as its past participle (`normalize`, `centered`); not a longer name that begins
# with one (`centers` of points, `center_x`, `normalizer`: hunt55 C2), and an array too (`rotate(points, center)`)
BOOL_WORDS = ("normalize", "center")
BOOL_NAMES = frozenset({"keepdims", "reverse", "inplace", "periodic", "closed", "normalized", "cumulative"})
SHAPE_NAMES = frozenset({"shape", "size_tuple", "dims", "axes"})
DTYPE_NAMES = frozenset({"dtype", "out_dtype", "float_dtype"})
IMAGE_NAMES = frozenset({"image", "images", "img", "imgs", "im", "frame", "frames", "pixels"})
# files and paths: no value to make up (an int is a file descriptor to `open`: reading one can block for ever)
FILE_NAMES = frozenset("filename filenames fname fnames file files path paths filepath file_path fp fh fobj "
                       "infile outfile stream url uri dirname directory folder".split())
# plural names that are as often arrays of data (simulated price paths) as lists of files: data where the code
# subscripts them or reads an attribute of them (source_hints.body_uses "array")
DATA_PLURALS = frozenset({"paths"})
FILE_SUFFIXES = ("_file", "_path", "_filename", "_fname", "_dir", "_url")

FLOAT_VALUES = {"prob": (0.3, 0.7, 0.1), "percent": (25.0, 50.0, 90.0), "step": (0.1, 0.01, 0.05),
                "float": (1.5, 0.5, 2.0)}
INT_VALUES = {"count": (3, 2, 5), "index": (1, 2, 0), "seed": (0, 1, 2), "axis": (0, -1, 1), "int": (2, 3, 1)}

Kind = tuple  # ("default",) ("array", role) ("vector", length) ("shape", dims, role) ("arrays", count) (a `*args`)
#              ("dict", keys) (arrays under those keys)
#              ("int", values) ("float", values) ("bool", values) ("value", values)


@dataclass
class Param:
    name: str
    kinds: list[Kind]
    keyword_only: bool = False
    sorted: bool = False  # given where NumPy wants sorted values (`np.searchsorted(a, v)`): its arrays come sorted


def is_file_name(name: str) -> bool:
    lower = name.lower()
    return lower in FILE_NAMES or lower.endswith(FILE_SUFFIXES)


def _name_kinds(name: str) -> list[Kind]:
    lower = name.lower()
    if lower == "fp":  # a file object, or `fp` of np.interp(x, xp, fp): an array only (an int would be a descriptor)
        return [("array", "float")]
    if is_file_name(lower):
        return []
    if lower in AXIS_NAMES:
        return [("int", INT_VALUES["axis"])]
    if lower in SEED_NAMES:
        return [("int", INT_VALUES["seed"])]
    if lower in COUNT_NAMES or lower.startswith(("n_", "num_")) or lower.endswith(("_size", "_len", "_count", "_steps", "_iters")):
        return [("int", INT_VALUES["count"]), ("array", "float")]
    if lower in INDEX_SCALAR_NAMES:
        return [("int", INT_VALUES["index"]), ("array", "index")]
    if lower in MASK_NAMES or lower.endswith("_mask"):
        return [("array", "mask"), ("array", "float")]
    if lower in COUNT_ARRAY_NAMES or lower.endswith("_counts"):
        return [("array", "count"), ("array", "positive")]
    if lower in INDEX_ARRAY_NAMES or lower.endswith(("_idx", "_ids", "_labels", "_indices")):
        return [("array", "index"), ("array", "float")]
    if lower in PROB_NAMES:  # (`p` is also an order or a pad width)
        return [("float", FLOAT_VALUES["prob"]), ("array", "float"), ("int", INT_VALUES["int"])]
    if lower in PERCENT_NAMES:
        return [("float", FLOAT_VALUES["percent"])]
    if lower in STEP_NAMES:
        return [("float", FLOAT_VALUES["step"]), ("array", "float")]
    if lower in FLOAT_NAMES:  # (an int last: `x.reshape(b, scale)` of a `scale : int`, real33 C)
        return [("float", FLOAT_VALUES["float"]), ("array", "float"), ("int", INT_VALUES["int"])]
    if lower in BOOL_NAMES or lower.startswith(BOOL_PREFIXES):
        return [("bool", (True, False))]
    if any(lower in (word, word + "d", word + "ed") for word in BOOL_WORDS):
        return [("bool", (True, False)), ("array", "float")]
    if lower in DTYPE_NAMES:  # (a bool or an array there says nothing about the function)
        return [("value", (np.float32, np.float64))]
    if lower in SHAPE_NAMES or lower.endswith("_shape"):
        return [("value", ((3, 4), (5,), (2, 3, 2)))]
    if lower in IMAGE_NAMES:  # 8-bit images too: float values written into `np.zeros_like(img)` wrap there
        return [("array", "pixels"), ("array", "positive"), ("float", FLOAT_VALUES["float"]), ("int", INT_VALUES["int"])]
    role = "positive" if lower in POSITIVE_NAMES else "float"
    return [("array", role), ("float", FLOAT_VALUES["float"]), ("int", INT_VALUES["int"])]


# Functions given to a parameter the code calls (`f(x)`, `rhs(t, y)`): plain arithmetic on the last argument, which
# NumPy arrays, JAX arrays and tracers all take; module-level, so that both sides get the same object (a jitted
# migration must make the parameter static, and jit hashes it). Elementwise first, then one returning a number
# (`g[j] = (f(xp) - f(x)) / step`: hunt57 C1).
def elementwise_function(*args):
    """``x * x + 1`` of the last argument."""
    x = args[-1]
    return x * x + 1.0


def scalar_function(*args):
    """The sum of ``x * x + 1`` over the last argument."""
    y = args[-1] * args[-1] + 1.0
    return y.sum() if hasattr(y, "sum") else y


CALLABLE_KINDS = [("value", (elementwise_function,)), ("value", (scalar_function,))]
# names of functions: a parameter so named that the code calls gets only functions
FUNCTION_NAMES = frozenset("f func fn fun function callback cb objective loss rhs integrand fcn residual "
                           "residuals jac deriv derivative g h".split())


def _hint_kinds(hint: object, name: str) -> list[Kind] | None:
    """Kinds from a resolved type hint, or None when the hint says nothing useful."""
    if hint is inspect.Parameter.empty or hint is None:
        return None
    origin = typing.get_origin(hint)
    if origin is typing.Literal:
        return [("value", typing.get_args(hint))]
    if origin in (typing.Union, getattr(__import__("types"), "UnionType", None)):
        kinds: list[Kind] = []
        for option in typing.get_args(hint):
            if option is type(None):
                continue
            kinds.extend(_hint_kinds(option, name) or [])
        if type(None) in typing.get_args(hint):
            kinds.append(("value", (None,)))
        return kinds or None
    if hint is bool:
        return [("bool", (True, False))]
    if hint is int:
        named = _name_kinds(name)
        return [k for k in named if k[0] == "int"] or [("int", INT_VALUES["int"])]
    if hint is float:
        named = [k for k in _name_kinds(name) if k[0] == "float"]
        return named or [("float", FLOAT_VALUES["float"])]
    text = repr(hint)
    if "ndarray" in text or "NDArray" in text or "ArrayLike" in text or "Array" in text:
        if re.search(r"int|bool", text.split("[", 1)[-1]) and "[" in text:
            return [("array", "mask" if "bool" in text.split("[", 1)[-1] else "index")]
        named = [k for k in _name_kinds(name) if k[0] == "array"]
        return named or [("array", "float")]
    if origin in (tuple, list) or hint in (tuple, list):
        return [("value", ((3, 4), (5,)))] if "shape" in name else None
    return None


def _default_kinds(default: object, name: str) -> list[Kind]:
    alternatives: list[Kind]
    if isinstance(default, bool):
        alternatives = [("bool", (not default,))]
    elif isinstance(default, int):
        if name.lower() in AXIS_NAMES:
            alternatives = [("int", tuple(v for v in (1, -1, 0) if v != default))]
        else:
            alternatives = [("int", tuple(v for v in (default + 1, default * 2, max(default - 1, 0)) if v != default))]
            if default > min(SIZES_1D):  # `window=20`: probes of 5 to 13 elements are all shorter; try small ones too
                alternatives.append(("int", (3, 2, 4)))
    elif isinstance(default, float):
        alternatives = [("float", (default * 0.5 if default else 0.5, default * 2.0 if default else 1.5))]
    elif default is None:
        alternatives = [k for k in _name_kinds(name)]
    elif (isinstance(default, (tuple, list)) and 1 < len(default) <= 4
          and all(type(v) in (int, float) for v in default)):
        # `value=(0.0, 0.0, 0.0)`, `center=(0, 0)`: other values of that length too, an array (mut1 C1c: a vector
        # class checked only on its zero default, where `sum` and `mean` of its squares agree)
        alternatives = [("vector", len(default))]
    else:
        alternatives = []
    return [("default",)] + alternatives


def parameters(function: Callable, skip_first: bool = False) -> list[Param] | None:
    """The parameters to fill, or None when the signature cannot be read."""
    try:
        signature = inspect.signature(function)
    except (TypeError, ValueError):
        return None
    try:
        hints = typing.get_type_hints(function)
    except Exception:
        hints = {}
    params = []
    tree = source_tree(function)
    indexing, uses, keyed, typed = index_uses(tree), body_uses(tree), dict_keys(tree), dtype_guards(tree)
    shaped = shape_kinds(function, tree)
    called = called_names(tree)
    ordered = sorted_uses(tree)
    items = list(signature.parameters.values())
    if skip_first and items and items[0].kind in (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD):
        items = items[1:]
    for p in items:
        if p.kind is inspect.Parameter.VAR_KEYWORD:
            continue
        if p.kind is inspect.Parameter.VAR_POSITIONAL:  # none, then 2 or 3 arrays: `np.fmax(*args)` (real35 C4)
            params.append(Param(p.name, [("default",), ("arrays", 2), ("arrays", 3)]))
            continue
        kinds = _hint_kinds(hints.get(p.name, inspect.Parameter.empty), p.name)
        if p.default is not inspect.Parameter.empty:
            kinds = _default_kinds(p.default, p.name) + [k for k in (kinds or []) if k[0] != "default"]
        elif kinds is None:
            kinds = _used_kinds(_name_kinds(p.name), indexing.get(p.name), uses.get(p.name))
        if not kinds and p.name.lower() in DATA_PLURALS and uses.get(p.name) == "array":
            # `paths[:, -1]`, `paths.min(axis=1)`: price paths, data (hunt58 C2); a file path is not sliced so
            kinds = [("array", "float"), ("array", "positive")]
        if p.name in called:  # `f(x)`: a function (only functions where the name says so or it is only called)
            only = called[p.name] or p.name.lower() in FUNCTION_NAMES
            at = 1 if kinds and kinds[0] == ("default",) else 0
            kinds = kinds[:at] + CALLABLE_KINDS + ([] if only else kinds[at:])
        if p.name in typed:  # `if x.dtype != np.int16: raise`: arrays of that dtype first (hunt54 C1)
            at = 1 if kinds and kinds[0] == ("default",) else 0
            kinds = kinds[:at] + [("array", f"dtype:{typed[p.name]}")] + kinds[at:]
        if p.name in keyed and len(keyed[p.name]) <= 8:  # `params["W"]`: a dict of arrays first (hunt51 C2)
            at = 1 if kinds and kinds[0] == ("default",) else 0
            kinds = kinds[:at] + [("dict", keyed[p.name])] + kinds[at:]
        if shaped.get(p.name):  # a stated or needed shape first (after the default)
            at = 1 if kinds and kinds[0] == ("default",) else 0
            role = next((k[1] for k in kinds if k[0] == "array"), "float")
            kinds = kinds[:at] + [("shape", dims, role) for dims in shaped[p.name]] + kinds[at:]
        params.append(Param(p.name, _dedupe(kinds), p.kind is inspect.Parameter.KEYWORD_ONLY, p.name in ordered))
    return params


def _used_kinds(kinds: list[Kind], index_use: str | int | None, body_use: str | None) -> list[Kind]:
    """The name's kinds reordered by how the function's own code uses the parameter (that wins over the name)."""
    if isinstance(index_use, int):  # `x, y, z = axis`: a vector of that many numbers first (real34 C1)
        return [("vector", index_use)] + kinds
    if index_use is not None:
        if kinds and kinds[0][0] not in ("int", "bool") and kinds[0][1:2] != ("index",):
            # `np.eye(k)[y]`: integer labels first; `ii[r1, c1]`, `x[a:b]`: an int first (hunt50 C1)
            first = [("array", "index"), ("int", INT_VALUES["index"])] if index_use == "index" else [("int", INT_VALUES["index"])]
            return first + kinds
        return kinds
    if body_use == "array" and kinds and kinds[0][0] in ("int", "float", "bool"):  # `axis[0]`, `axis.dtype` (real35 C2)
        return [("array", next((k[1] for k in kinds if k[0] == "array"), "float"))] + kinds
    if (body_use in ("int", "number") and kinds and kinds[0][0] == "array") or (
            body_use == "int" and kinds and kinds[0][0] == "float"):  # `range(steps)`, `x[0] = x0` (hunt52 C2), `np.zeros((h, w))`
        tag = "int" if body_use == "int" else "float"
        return [next((k for k in kinds if k[0] == tag), (tag, INT_VALUES["int"] if tag == "int" else FLOAT_VALUES["float"]))] + kinds
    return kinds


def _dedupe(kinds: list[Kind]) -> list[Kind]:
    seen, result = set(), []
    for kind in kinds:
        key = repr(kind)
        if key not in seen:
            seen.add(key)
            result.append(kind)
    return result


# --- shape plans --------------------------------------------------------------------
SIZES_1D = (8, 5, 13)
SIZES_2D = ((6, 4), (5, 3), (9, 2))
SQUARE = (4, 5, 3)
SIZES_3D = ((3, 4, 5), (2, 3, 4), (4, 2, 3))
CENTRES = (3, 2, 4)

Plan = tuple[str, Callable[[int, int], list[tuple[int, ...]]]]


def plans(count: int) -> list[Plan]:
    """Shape plans for ``count`` array parameters (deduplicated by the shapes they give)."""
    options: list[Plan] = [
        ("1-D", lambda v, c: [(SIZES_1D[v],)] * c),
        ("2-D", lambda v, c: [SIZES_2D[v]] * c),
        ("matrix, row vectors", lambda v, c: [SIZES_2D[v]] + [(SIZES_2D[v][1],)] * (c - 1)),
        ("matrix, column vectors", lambda v, c: [SIZES_2D[v]] + [(SIZES_2D[v][0],)] * (c - 1)),
        ("points, centres", lambda v, c: [SIZES_2D[v], (CENTRES[v], SIZES_2D[v][1])] + [(SIZES_2D[v][0],)] * (c - 2)),
        ("matmul chain", lambda v, c: [SIZES_2D[v], SIZES_2D[v][::-1]] + [(SIZES_2D[v][0],)] * (c - 2)),
        ("square", lambda v, c: [(SQUARE[v], SQUARE[v])] * c),
        ("square, vectors", lambda v, c: [(SQUARE[v], SQUARE[v])] + [(SQUARE[v],)] * (c - 1)),
        ("vectors, matrix", lambda v, c: [(SIZES_2D[v][1],)] * (c - 1) + [SIZES_2D[v]]),
        ("3-D", lambda v, c: [SIZES_3D[v]] * c),
        ("0-D", lambda v, c: [()] * c),
    ]
    unique, seen = [], set()
    for name, shapes in options:
        key = tuple(tuple(s) for s in shapes(0, count))
        if count and key not in seen:
            seen.add(key)
            unique.append((name, shapes))
    return unique or [("scalars", lambda v, c: [])]


def assignments(params: list[Param], limit: int = 12) -> list[tuple[Kind, ...]]:
    """Kind choices for all parameters, the most likely first (lowest total rank, then lexicographic): the first
    ``limit`` of ``sorted(product(...), key=(sum, idx))``, enumerated total by total instead of building the product
    (12 optional parameters with a few kinds each are millions of tuples)."""
    bounds = [len(p.kinds) for p in params]
    chosen: list[tuple[int, ...]] = []
    for total in range(sum(b - 1 for b in bounds) + 1):
        for idx in _with_total(bounds, total):
            chosen.append(idx)
            if len(chosen) == limit:
                break
        if len(chosen) == limit:
            break
    return [tuple(p.kinds[i] for p, i in zip(params, idx)) for idx in chosen]


def _with_total(bounds: list[int], total: int, start: int = 0):
    """Index tuples for ``bounds[start:]`` (each ``i < bound``) summing to ``total``, in lexicographic order."""
    if start == len(bounds):
        if total == 0:
            yield ()
        return
    rest = sum(b - 1 for b in bounds[start + 1:])
    for first in range(max(0, total - rest), min(bounds[start] - 1, total) + 1):
        for tail in _with_total(bounds, total - first, start + 1):
            yield (first, *tail)


def coherent_assignments(params: list[Param]) -> list[tuple[Kind, ...]]:
    """Numbers of one kind together, which the order by total rank buries when several parameters are numbers
    only by their second or third kind (hunt52 C2): every required parameter that can be an int gets its first
    int kind, but the first (the data: `nearest_resize(img, new_h, new_w)`), or every one that can be a float its
    first float, but the first, then with it too (`velocity_verlet(x0, v0, k, m, dt, steps)`). The others keep
    their likeliest kind. (Not every one an int: Python ints make NumPy compute in float64, which a float32
    migration's rounding then differs from in long recurrences where no nudge of an int measures the noise.)"""
    chosen = []
    for tag, keep_first in (("int", True), ("float", True), ("float", False)):
        chosen.append(tuple(
            p.kinds[0] if (keep_first and i == 0) or p.kinds[0] == ("default",)
            else next((k for k in p.kinds if k[0] == tag), p.kinds[0]) for i, p in enumerate(params)))
    return chosen


def stable_seed(*parts: object) -> int:
    return zlib.crc32(repr(parts).encode())


def make_array(role: str, shape: tuple[int, ...], rng: np.random.Generator, float_dtype, flavor: str,
               index_bound: int) -> np.ndarray:
    if role == "mask":
        return rng.random(shape) < 0.5
    if role == "index":
        return rng.integers(0, max(index_bound, 1), size=shape)
    if role == "int":
        return rng.integers(-3, 4, size=shape)
    if role == "count":
        return rng.integers(0, 10, size=shape)
    if role == "pixels":
        return rng.integers(0, 256, size=shape).astype(np.uint8)
    if role.startswith("dtype:"):  # the dtype the code tests for
        dtype = np.dtype(role[len("dtype:"):])
        if dtype.kind in "iu":
            info = np.iinfo(dtype)
            return rng.integers(max(info.min, -1000), min(info.max, 1000) + 1, size=shape).astype(dtype)
        if dtype.kind == "b":
            return rng.random(shape) < 0.5
        values = rng.standard_normal(size=shape) + (1j * rng.standard_normal(size=shape) if dtype.kind == "c" else 0)
        return values.astype(dtype)
    if flavor == "positive" or role == "positive":
        values = rng.uniform(0.5, 2.0, size=shape)
        if len(shape) == 2 and shape[0] == shape[1]:  # square: symmetric positive definite as well (solvers, covariances)
            values = values @ values.T / shape[0] + np.eye(shape[0])
        return values.astype(float_dtype)
    return rng.standard_normal(size=shape).astype(float_dtype)


def build_call(params: list[Param], kinds: tuple[Kind, ...], shapes: list[tuple[int, ...]], variant: int,
               flavor: str, rng: np.random.Generator, float_dtype, split: int | None) -> Call:
    """Arguments for ``params`` from ``kinds``; the first ``split`` go to the prefix (constructor)."""
    array_shapes = iter(shapes)
    firsts = [s[0] for s in shapes if s]
    index_bound = min([3, *firsts])
    values: list[tuple[Param, object]] = []
    symbols: dict[str, int] = {}
    for param, kind in zip(params, kinds):
        tag = kind[0]
        if tag == "default":
            values.append((param, _OMIT))
        elif tag == "array":
            values.append((param, make_array(kind[1], next(array_shapes), rng, float_dtype, flavor, index_bound)))
        elif tag == "vector":  # a fixed number of values, whatever the shape plan
            values.append((param, make_array("float", (kind[1],), rng, float_dtype, flavor, index_bound)))
        elif tag == "shape":  # a stated shape, whatever the plan; a symbol the same size wherever it appears
            shape = tuple(d if isinstance(d, int) else SYMBOL_SIZES[(symbols.setdefault(d, len(symbols)) + variant) % len(SYMBOL_SIZES)]
                          for d in kind[1])
            values.append((param, make_array(kind[2], shape, rng, float_dtype, flavor, index_bound)))
        elif tag == "dict":  # arrays of the plan under the keys the code reads
            values.append((param, {key: make_array("float", next(array_shapes), rng, float_dtype, flavor, index_bound)
                                   for key in kind[1]}))
        elif tag == "arrays":  # a `*args` of that many arrays of the plan
            values.append((param, _Spread(make_array("float", next(array_shapes), rng, float_dtype, flavor, index_bound)
                                          for _ in range(kind[1]))))
        else:
            options = kind[1]
            values.append((param, options[variant % len(options)]))
        if param.sorted and isinstance(values[-1][1], np.ndarray) and values[-1][1].ndim:
            values[-1] = (param, np.sort(values[-1][1], axis=None).reshape(values[-1][1].shape))
    if split is None:
        args, kwargs = _arrange(values)
        return Call(None, args, kwargs)
    prefix_args, prefix_kwargs = _arrange(values[:split])
    args, kwargs = _arrange(values[split:])
    return Call(prefix_args, args, kwargs, prefix_kwargs=prefix_kwargs)


_OMIT = object()


class _Spread(tuple):
    """The values of a ``*args`` parameter."""


def _arrange(values: list[tuple[Param, object]]) -> tuple[tuple, dict]:
    """Positional while nothing is omitted, keywords after the first omitted parameter."""
    args, kwargs, positional = [], {}, True
    for param, value in values:
        if value is _OMIT:
            positional = False
            continue
        if isinstance(value, _Spread):  # (not after an omitted parameter: nothing could be passed to it)
            args.extend(value if positional else ())
        elif positional and not param.keyword_only:
            args.append(value)
        else:
            kwargs[param.name] = value
    return tuple(args), kwargs


def array_count(kinds: tuple[Kind, ...]) -> int:
    """How many arrays take their shapes from the plan."""
    return sum(1 if kind[0] == "array" else kind[1] if kind[0] == "arrays" else len(kind[1]) if kind[0] == "dict" else 0
               for kind in kinds)


def flavors(params: list[Param]) -> tuple[str, ...]:
    """Normal values first, then positive ones (parameters named for positive values get them either way:
    role "positive"), so that `cash` beside `prices` is also drawn negative (check39 C3)."""
    return ("normal", "positive")


def systematic_candidates(params: list[Param], seed: int, float_dtype, split: int | None) -> Iterator[tuple[str, Call]]:
    """(structure key, call): every kind assignment x shape plan, normal then positive values;
    then other sizes of the same structures."""
    rng = np.random.default_rng(seed)
    order = flavors(params)
    chosen = _dedupe(assignments(params) + coherent_assignments(params))
    # Degenerate structures come last: 0-d arrays, and numbers given to parameters whose likeliest kind is an
    # array (`ranks(1.5)`). NumPy often accepts them where jax.numpy raises (`np.convolve` of a 0-d array, axis
    # -1 of a number), which says little about a migration checked on the arrays it is written for.
    for degenerate in (False, True):
        for variant in range(3):
            for a_index, kinds in enumerate(chosen):
                scalar_for_array = any(p.kinds[0][0] in ("array", "shape") and kind[0] not in ("array", "shape", "default")
                                       for p, kind in zip(params, kinds))
                # (a third array for a `*args` too: NumPy's ufuncs take it as `out`, `np.fmax(*args)`)
                scalar_for_array = scalar_for_array or any(kind[0] == "arrays" and kind[1] > 2 for kind in kinds)
                for plan_name, shapes in plans(array_count(kinds)):
                    if (scalar_for_array or plan_name == "0-D") != degenerate:
                        continue
                    for flavor in order:
                        call = build_call(params, kinds, shapes(variant, array_count(kinds)), variant, flavor, rng,
                                          float_dtype, split)
                        yield f"{variant}/{a_index}/{plan_name}/{flavor}", call


def hypothesis_candidates(params: list[Param], float_dtype, split: int | None, accept: Callable[[Call], bool],
                          max_examples: int) -> None:
    """Broader random structures drawn by hypothesis (derandomized: the same every run);
    ``accept`` is called on each and returns True once enough inputs were found."""
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import strategies as st

    done = [False]
    kind_pool: list[Kind] = [("array", "float"), ("array", "positive"), ("array", "index"), ("array", "mask"),
                             ("float", FLOAT_VALUES["float"]), ("int", INT_VALUES["count"]), ("bool", (True, False))]

    @st.composite
    def calls(draw):
        # A parameter whose every candidate is a scalar (a count, an axis, a flag) stays a scalar:
        # a 0-d array there is not how the function is called, and jit's static arguments refuse it.
        kinds = tuple(draw(st.sampled_from(p.kinds + kind_pool if any(k[0] == "array" for k in p.kinds) else p.kinds))
                      for p in params)
        count = array_count(kinds)
        ndim = draw(st.integers(0, 3))
        shared = tuple(draw(st.integers(1, 6)) for _ in range(ndim))
        shapes = [shared if draw(st.booleans()) else tuple(draw(st.integers(1, 6)) for _ in range(draw(st.integers(0, 3))))
                  for _ in range(count)]
        variant = draw(st.integers(0, 2))
        seed = draw(st.integers(0, 2**31 - 1))
        flavor = draw(st.sampled_from(("normal", "positive")))
        return build_call(params, kinds, shapes, variant, flavor, np.random.default_rng(seed), float_dtype, split)

    @settings(max_examples=max_examples, derandomize=True, database=None, deadline=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck), print_blob=False)
    @given(calls())
    def explore(call):
        if not done[0]:
            call.source = "hypothesis"
            done[0] = accept(call)

    explore()


# --- doctests -----------------------------------------------------------------------
def doctest_calls(function: Callable, name: str, namespace: dict) -> list[Call]:
    """``>>> name(args)`` lines of the docstring, with the setup lines before them run."""
    doc = inspect.getdoc(function) or ""
    if ">>>" not in doc:
        return []
    try:
        examples = doctest.DocTestParser().get_examples(doc)
    except ValueError:
        return []
    scope = dict(namespace)
    found: list[Call] = []

    def capture(*args, **kwargs):
        found.append(Call(None, args, kwargs, "doctest"))

    scope["__np2jax_capture__"] = capture
    for example in examples:
        try:
            tree = ast.parse(example.source)
        except SyntaxError:
            continue
        calls_target = _rewrite_target_calls(tree, name)
        try:
            if calls_target:
                exec(compile(tree, "<doctest>", "exec"), scope)
            elif not _mentions(tree, name):
                exec(compile(tree, "<doctest>", "exec"), scope)
        except Exception:
            continue
    return found


def _mentions(tree: ast.AST, name: str) -> bool:
    return any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(tree))


def _rewrite_target_calls(tree: ast.Module, name: str) -> bool:
    """Replace the outermost ``name(...)`` call of each statement by a capture of its arguments."""
    changed = False
    for statement in tree.body:
        for node in ast.walk(statement):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == name:
                node.func = ast.Name("__np2jax_capture__", ast.Load())
                changed = True
                break
    ast.fix_missing_locations(tree)
    return changed
