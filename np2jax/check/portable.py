"""Function outputs as plain data the parent can compare without importing user code.

A portable value is ``None``, ``str``, ``bytes``, a :class:`Leaf` (a NumPy array, with
the Python type it came from), a :class:`Node` (tuple, list, NamedTuple, dict or
an object's attributes) or an :class:`Opaque` (anything else: described, not compared).
"""

from __future__ import annotations

import os
import sys
import sysconfig

from dataclasses import dataclass

import numpy as np

MAX_DEPTH = 12
_STDLIB = os.path.realpath(sysconfig.get_paths()["stdlib"])
MAX_NODES = 20_000  # containers and objects converted for one value at most


@dataclass(frozen=True)
class Leaf:
    array: np.ndarray
    origin: str  # "bool" | "int" | "float" | "complex" | "numpy" | "jax"


@dataclass(frozen=True)
class Node:
    kind: str  # "sequence" | "namedtuple" | "dict" | "object"
    type_name: str  # tuple, list, the NamedTuple's or the object's class name
    keys: tuple  # field names, dict keys (as repr strings) or indices
    children: tuple


@dataclass(frozen=True)
class Opaque:
    type_name: str
    description: str


def _is_jax_array(value: object) -> bool:
    """A jax.Array (checked against the class when JAX is loaded: its array type's module name changes between
    releases), or, without JAX, a value of a jax/jaxlib type that converts to a NumPy array."""
    jax = sys.modules.get("jax")
    array = getattr(jax, "Array", None) if jax is not None else None
    if isinstance(array, type) and isinstance(value, array):
        return True
    module = type(value).__module__ or ""
    return module.startswith(("jax", "jaxlib")) and hasattr(value, "__array__")


def to_portable(value: object, depth: int = 0, seen: dict | None = None) -> object:
    """``seen``: the dicts and objects already converted in this value (by id), and how many nodes: one met again
    (a cycle, a shared registry such as a ``logging.Logger``'s manager) or past ``MAX_NODES`` is described only."""
    if seen is None:
        seen = {}
    if value is None or isinstance(value, bytes):
        return value
    if isinstance(value, str):  # each side runs in a working directory of its own (check/runner.py)
        return value.replace(os.getcwd(), "<working directory>") if os.sep in value else value
    if isinstance(value, bool):
        return Leaf(np.asarray(value), "bool")
    if isinstance(value, int):
        try:
            return Leaf(np.asarray(value, dtype=np.int64), "int")
        except OverflowError:
            return Leaf(np.asarray(value, dtype=object), "int")
    if isinstance(value, (float, complex)):
        return Leaf(np.asarray(value), type(value).__name__)
    if isinstance(value, np.ndarray) and value.dtype == object and depth < MAX_DEPTH:
        # an array of objects (arrays of different lengths, Python numbers): its items, in C order, compared
        # one by one (`==` on it compares arrays inside elementwise and cannot say "equal")
        shape = "x".join(map(str, value.shape))
        return Node("sequence", f"object array[{shape}]", tuple(range(value.size)),
                    tuple(to_portable(v, depth + 1, seen) for v in value.ravel()))
    if isinstance(value, (np.ndarray, np.generic)):
        return Leaf(np.array(value, copy=True), "numpy")
    if _is_jax_array(value):
        try:
            return Leaf(np.array(value, copy=True), "jax")
        except Exception as error:  # PRNG keys and other extended dtypes
            return Opaque(type(value).__name__, f"cannot be read as an array: {error}")
    if depth >= MAX_DEPTH:
        return Opaque(type(value).__name__, "nested too deeply")
    seen[None] = seen.get(None, 0) + 1
    if seen[None] > MAX_NODES:
        return Opaque(type(value).__name__, "too large to compare")
    if isinstance(value, tuple) and hasattr(type(value), "_fields"):
        fields = tuple(type(value)._fields)
        return Node("namedtuple", type(value).__name__, fields, tuple(to_portable(v, depth + 1, seen) for v in value))
    if isinstance(value, (tuple, list)):
        return Node("sequence", type(value).__name__, tuple(range(len(value))),
                    tuple(to_portable(v, depth + 1, seen) for v in value))
    if isinstance(value, dict):
        if id(value) in seen:
            return Opaque("dict", "met before (a shared or cyclic reference)")
        seen[id(value)] = value  # (kept alive: a temporary's id could be reused)
        keys = tuple(sorted(value, key=repr))
        return Node("dict", "dict", tuple(repr(k) for k in keys), tuple(to_portable(value[k], depth + 1, seen) for k in keys))
    if callable(value):
        return Opaque("function", getattr(value, "__qualname__", type(value).__name__))
    attributes = getattr(value, "__dict__", None)
    if isinstance(attributes, dict) and not _library_object(value):
        if id(value) in seen:
            return Opaque(type(value).__name__, "met before (a shared or cyclic reference)")
        seen[id(value)] = value
        names = tuple(sorted(n for n in attributes if not n.startswith("__")))
        return Node("object", type(value).__name__, names, tuple(to_portable(attributes[n], depth + 1, seen) for n in names))
    try:
        text = repr(value)
    except Exception:
        text = "?"
    return Opaque(type(value).__name__, text[:80])


def _library_object(value: object) -> bool:
    """An object of a standard-library class (a ``logging.Logger``, a thread, a file): its state is the
    library's, not a result, and may reach the whole process (every logger through the manager)."""
    name = type(value).__module__ or ""
    top = name.split(".")[0].lstrip("_")
    if top not in sys.stdlib_module_names or top in ("collections", "dataclasses", "types"):
        return False
    path = getattr(sys.modules.get(name), "__file__", None)  # (a user's module may be called `statistics` too)
    return path is None or os.path.realpath(path).startswith(_STDLIB)


def leaves(value: object, path: str = "") -> list[tuple[str, Leaf]]:
    """Every leaf with its path (``[0]``, ``['key']``, ``.field``)."""
    if isinstance(value, Leaf):
        return [(path, value)]
    if isinstance(value, Node):
        found = []
        for key, child in zip(value.keys, value.children):
            found.extend(leaves(child, path + child_path(value, key)))
        return found
    return []


def child_path(node: Node, key: object) -> str:
    if node.kind in ("namedtuple", "object"):
        return f".{key}"
    return f"[{key}]"


def some_finite(value: object) -> bool:
    """No float leaves, or a finite value in one of them: an output that still says something where NaN and inf
    sit where the function puts them (a rolling window's NaN padding), compared position by position."""
    floats = [leaf.array for _, leaf in leaves(value) if leaf.array.dtype.kind in "fc"]
    return not floats or any(np.isfinite(array).any() for array in floats)


def beyond_float32(value: object) -> bool:
    """A finite float64 leaf with values float32 cannot hold (|v| > 3.4e38): a probe on which a float32
    migration can only give inf or NaN (a diverging iteration), which says nothing about the migration."""
    limit = float(np.finfo(np.float32).max)
    for _, leaf in leaves(value):
        array = leaf.array
        if array.dtype.kind in "fc" and array.dtype.itemsize >= 8 and array.size:
            magnitudes = np.abs(array[np.isfinite(array)])
            if magnitudes.size and magnitudes.max() > limit:
                return True
    return False


def identical(a: object, b: object) -> bool:
    """Bit-for-bit equal (NaN equals NaN): for determinism and mutation checks."""
    if isinstance(a, Leaf) and isinstance(b, Leaf):
        x, y = a.array, b.array
        if x.shape != y.shape or x.dtype != y.dtype:
            return False
        if x.dtype.kind in "fc":
            return bool(np.array_equal(x, y, equal_nan=True))
        try:
            return bool(np.array_equal(x, y))
        except Exception:
            return False
    if isinstance(a, Node) and isinstance(b, Node):
        return (a.kind, a.type_name, a.keys) == (b.kind, b.type_name, b.keys) and all(
            identical(x, y) for x, y in zip(a.children, b.children))
    if isinstance(a, Opaque) and isinstance(b, Opaque):
        return a.type_name == b.type_name
    return type(a) is type(b) and a == b


def describe(value: object) -> str:
    """A short description of an argument or output: ``float32[5,3]``, ``3``, ``(…, …)``."""
    if isinstance(value, Leaf):
        array = value.array
        if array.ndim == 0 and value.origin in ("bool", "int", "float", "complex"):
            text = repr(array.item())
            return text if len(text) <= 12 else f"{value.origin}"
        return f"{array.dtype}[{','.join(map(str, array.shape))}]"
    if isinstance(value, Node):
        inner = ", ".join(describe(c) for c in value.children[:4])
        more = ", …" if len(value.children) > 4 else ""
        if value.kind == "sequence":
            return f"[{inner}{more}]" if value.type_name == "list" else f"({inner}{more})"
        return f"{value.type_name}({inner}{more})"
    if isinstance(value, Opaque):
        return value.type_name
    return repr(value)[:20]
