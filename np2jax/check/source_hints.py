"""What a function's own source says about the inputs it takes, for ``np2jax check``'s input generation
(inputs.py): how its code uses each parameter (as an index, unpacked into names, as an array or a number), the
shapes its numpydoc "Parameters" section states, which parameters reach ``np.cross`` (vectors of 3), and which
ones it gives where NumPy wants sorted values (``np.searchsorted``'s ``a``).
"""

from __future__ import annotations

import ast
import inspect
import re
import textwrap
from typing import Callable


def source_tree(function: Callable) -> ast.AST | None:
    """The syntax tree of the function's (or class's) source, None when it cannot be read."""
    try:
        return ast.parse(textwrap.dedent(inspect.getsource(function)))
    except (OSError, TypeError, SyntaxError, ValueError):
        return None


def index_uses(tree: ast.AST | None) -> dict[str, str | int]:
    """Names the function's own code uses as an index: "index" for a whole index or one of a tuple of them
    (``E[y]``, ``ii[r1, c1]``), "bound" for a slice bound (``x[a:b]``); and names it unpacks into a fixed number
    of names (``x, y, z = axis``: 3). Empty when the source cannot be read."""
    if tree is None:
        return {}
    found: dict[str, str] = {}
    for node in ast.walk(tree):
        if (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], (ast.Tuple, ast.List))
                and isinstance(node.value, ast.Name) and not any(isinstance(e, ast.Starred) for e in node.targets[0].elts)):
            found[node.value.id] = len(node.targets[0].elts)
            continue
        if not isinstance(node, ast.Subscript):
            continue
        parts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        for part in parts:
            if isinstance(part, ast.Name):
                found[part.id] = "index"
            elif isinstance(part, ast.Slice):
                for bound in (part.lower, part.upper):
                    if isinstance(bound, ast.Name):
                        found.setdefault(bound.id, "bound")
    return found


def dict_keys(tree: ast.AST | None) -> dict[str, tuple[str, ...]]:
    """Names the code subscripts only with string constants (``params["W"]``, ``params["b"]``): a dict of arrays
    under those keys, in the order first met (hunt51 C2: a network's parameters)."""
    if tree is None:
        return {}
    keys: dict[str, list[str]] = {}
    other: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name):
            key = node.slice
            if isinstance(key, ast.Constant) and isinstance(key.value, str):
                found = keys.setdefault(node.value.id, [])
                if key.value not in found:
                    found.append(key.value)
            else:
                other.add(node.value.id)
    return {name: tuple(found) for name, found in keys.items() if name not in other}


def dtype_guards(tree: ast.AST | None) -> dict[str, str]:
    """Names whose dtype the code tests against a NumPy dtype (``if x.dtype != np.int16: raise``): that dtype's
    name (hunt54 C1: a PCM decoder was skipped, every generated array float)."""
    found: dict[str, str] = {}
    for node in ast.walk(tree) if tree is not None else ():
        if not (isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], (ast.Eq, ast.NotEq))):
            continue
        left, right = node.left, node.comparators[0]
        for side, other in ((left, right), (right, left)):
            if (isinstance(side, ast.Attribute) and side.attr == "dtype" and isinstance(side.value, ast.Name)
                    and isinstance(other, ast.Attribute) and isinstance(other.value, ast.Name)
                    and other.value.id in NUMPY_ROOTS and other.attr in GUARDED_DTYPES):
                found.setdefault(side.value.id, other.attr)
    return found


NUMPY_ROOTS = frozenset({"np", "numpy", "onp"})
GUARDED_DTYPES = frozenset("int8 int16 int32 int64 uint8 uint16 uint32 float16 float32 float64 complex64 complex128 bool_".split())
INT_CALLS = frozenset({"int", "range"})
SHAPE_CALLS = frozenset({"zeros", "ones", "empty", "full"})  # NumPy constructors taking a shape tuple first
NUMBER_CALLS = frozenset({"float", "complex", "round"})
# NumPy functions of vectors (not of sizes, as `np.zeros(n)`, `np.arange(n)` are)
VECTOR_CALLS = frozenset({"norm", "dot", "vdot", "inner", "outer", "cross", "matmul"})


def body_uses(tree: ast.AST | None) -> dict[str, str]:
    """How the code uses a name, where that says array or number whatever the name suggests: "array" for a name it
    subscripts (``axis[0]``), reads an attribute of (``axis.dtype``) or gives to a NumPy function of vectors
    (``np.linalg.norm(axis)``); "int" for one given to ``int``/``range`` or in a shape tuple (``np.zeros((h, w))``);
    "number" for one given to ``float`` or
    ``math.*``, or stored into one element (``x[0], v[0] = x0, v0``). An array use wins over a number one."""
    if tree is None:
        return {}
    found: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name):
            found[node.value.id] = "array"
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id not in NUMPY_ROOTS:
            found[node.value.id] = "array"
        elif isinstance(node, ast.Call):
            root, name = _call_root(node.func)
            names = [arg.id for arg in node.args if isinstance(arg, ast.Name)]
            if root in NUMPY_ROOTS and name in VECTOR_CALLS:
                found.update((n, "array") for n in names)
            elif root is None and name in INT_CALLS:  # (`range(start, stop)`)
                for n in names:
                    found.setdefault(n, "int")
            elif root in NUMPY_ROOTS and name in SHAPE_CALLS and node.args and isinstance(node.args[0], (ast.Tuple, ast.List)):
                for n in node.args[0].elts:  # `np.zeros((h, w))`: sizes (hunt54 C1), whatever `h` suggests
                    if isinstance(n, ast.Name):
                        found.setdefault(n.id, "int")
            elif node.args and isinstance(node.args[0], ast.Name) and (root == "math" or (root is None and name in NUMBER_CALLS)):
                found.setdefault(node.args[0].id, "number")
        elif isinstance(node, ast.Assign):
            for target, value in _element_stores(node):
                found.setdefault(value, "number")
    return found


def _call_root(func: ast.AST) -> tuple[str | None, str | None]:
    """(module, name) of a called ``name`` (module None) or ``module.a.name``; (None, None) for anything else."""
    if isinstance(func, ast.Name):
        return None, func.id
    chain = func
    while isinstance(chain, ast.Attribute):
        chain = chain.value
    if isinstance(func, ast.Attribute) and isinstance(chain, ast.Name):
        return chain.id, func.attr
    return None, None


def _element_stores(node: ast.Assign) -> list[tuple[ast.Subscript, str]]:
    """(target, name) for each name stored into one element (``x[0] = x0``, ``x[0], v[0] = x0, v0``) or an operand
    of the arithmetic stored there (``om[i] = om[i - 1] - g / L * np.sin(th[i - 1]) * dt``: g, L, dt; not the
    arguments of a call or a subscript in it). One element: its place is made of ints, names and arithmetic."""
    pairs = []
    for target in node.targets:
        if isinstance(target, ast.Tuple) and isinstance(node.value, ast.Tuple) and len(target.elts) == len(node.value.elts):
            pairs.extend(zip(target.elts, node.value.elts))
        else:
            pairs.append((target, node.value))
    found = []
    for target, value in pairs:
        if isinstance(target, ast.Subscript) and _one_place(target.slice):
            found.extend((target, name) for name in _operands(value))
    return found


def _one_place(index: ast.AST) -> bool:
    """An index of ints, names and arithmetic on them (no slice, call or subscript): one element per name's int."""
    parts = index.elts if isinstance(index, ast.Tuple) else [index]
    return all(all(isinstance(n, (ast.Constant, ast.Name, ast.BinOp, ast.UnaryOp, ast.operator, ast.unaryop,
                                  ast.expr_context)) for n in ast.walk(part)) for part in parts)


def _operands(value: ast.AST) -> list[str]:
    """Names that are ``value`` or operands of its arithmetic (not inside a call or a subscript)."""
    if isinstance(value, ast.Name):
        return [value.id]
    if isinstance(value, ast.BinOp):
        return _operands(value.left) + _operands(value.right)
    if isinstance(value, ast.UnaryOp):
        return _operands(value.operand)
    return []


# Shapes: ``x : array-like, shape (3,)``, ``shape=(n, 3)``, ``ndarray of shape (4, 4)`` in a numpydoc
# "Parameters" section; a symbolic size (``n``, ``n_samples``) is a small one, the same for the same symbol.
DOC_ENTRY = re.compile(r"^\s*(\*{0,2}\w+(?:\s*,\s*\*{0,2}\w+)*)\s*:\s*(.*\S)\s*$")
DOC_SHAPE = re.compile(r"\bshape\s*[=:]?\s*(\([^()]*\)(?:\s*or\s*\([^()]*\))*)")
SYMBOL_SIZES = (4, 5, 6, 2)
CROSS_SHAPES = ((3,), ("n", 3))  # `np.cross` takes vectors of 3 (or 2) numbers


def shape_kinds(function: Callable, tree: ast.AST | None) -> dict[str, list[tuple]]:
    """Shapes to try first per parameter: those its docstring states (real35 C5), then, for one that reaches
    ``np.cross``, vectors of 3 and rows of them (real35 C3), and as many dimensions as the code unpacks from its
    shape."""
    shapes = doc_shapes(inspect.getdoc(function) or "")
    for name in _cross_reach(tree):
        shapes.setdefault(name, []).extend(s for s in CROSS_SHAPES if s not in shapes.get(name, []))
    for name, dims in _unpacked_shapes(tree).items():  # `n, c, h, w = x.shape`: a 4-D `x` (hunt54 C1)
        if dims not in shapes.get(name, []):
            shapes.setdefault(name, []).append(dims)
    return shapes


def _unpacked_shapes(tree: ast.AST | None) -> dict[str, tuple]:
    """``n, c, h, w = x.shape``: {"x": ("n", "c", "h", "w")}, a symbol per dimension (``_`` and starred names
    leave the number of dimensions unknown)."""
    found: dict[str, tuple] = {}
    for node in ast.walk(tree) if tree is not None else ():
        if (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Tuple)
                and isinstance(node.value, ast.Attribute) and node.value.attr == "shape"
                and isinstance(node.value.value, ast.Name)
                and all(isinstance(e, ast.Name) for e in node.targets[0].elts)):
            found.setdefault(node.value.value.id, tuple(e.id for e in node.targets[0].elts))
    return found


GOOGLE_HEADERS = ("args:", "arguments:", "parameters:", "params:", "keyword args:", "keyword arguments:")
GOOGLE_ENTRY = re.compile(r"^(\s*)(\*{0,2}\w+)\s*(?:\(([^()]*(?:\([^()]*\)[^()]*)*)\))?\s*:(?:\s+(.*\S))?\s*$")
# Other ways to state a shape: `v : 3 element sequence`, `(N, M) array`, `4x4 array`, `A `kx3` stack`, `The `(3,)` point`
ELEMENT_SHAPE = re.compile(r"\b(\d+)[- ]element\b")
ARRAY_SHAPE = re.compile(r"\(([^()]*,[^()]*)\)\s*(?:-?\s*shaped\s+)?(?:float\s+|numpy\s+|np\.)?(?:nd)?(?:array|matrix)")
CROSS_SIZE = re.compile(r"(?<![\w.])(\d+|[A-Za-z])x(\d+)(?![\w.])|(?<![\w.])(\d+)x([A-Za-z])(?![\w.])")
QUOTED_SHAPE = re.compile(r"`\(([^()]*,[^()]*)\)`")


def doc_shapes(doc: str) -> dict[str, list[tuple]]:
    """{parameter: [shape, ...]} from the "Parameters" section of a numpydoc docstring (its type lines) or the
    "Args:" section of a Google-style one (each entry with its continuation lines: real37 C1); a dimension is an
    int or a symbol (a str); ``...`` dimensions are left out."""
    lines = doc.splitlines()
    found: dict[str, list[tuple]] = {}
    entries: list[tuple[str, str]] = []  # (names, text stating the shape)
    inside = google = False
    indent = None
    for i, line in enumerate(lines):
        underline = i + 1 < len(lines) and re.fullmatch(r"\s*-{3,}\s*", lines[i + 1])
        if underline:
            inside, google = line.strip().lower() in ("parameters", "other parameters", "arguments"), False
            continue
        if line.strip().lower() in GOOGLE_HEADERS:
            inside, google, indent = True, True, None
            continue
        if not inside:
            continue
        if google:
            if not line.strip():
                continue
            depth = len(line) - len(line.lstrip())
            if indent is not None and depth > indent and entries:  # a continuation line of the entry
                entries[-1] = (entries[-1][0], entries[-1][1] + " " + line.strip())
                continue
            entry = GOOGLE_ENTRY.match(line)
            if entry is None or (indent is not None and depth < indent) or re.fullmatch(r"[A-Z]\w*( \w+)?:", line.strip()):
                inside = False  # (the next section: `Returns:`)
                continue
            indent = depth
            entries.append((entry.group(2), f"{entry.group(3) or ''} : {entry.group(4) or ''}"))
            continue
        entry = DOC_ENTRY.match(line)
        if entry is not None:
            entries.append((entry.group(1), entry.group(2)))
    for names, text in entries:
        options = text_shapes(text)
        for name in re.split(r"\s*,\s*", names):
            found.setdefault(name.lstrip("*"), []).extend(o for o in options if o not in found.get(name.lstrip("*"), []))
    return {name: shapes for name, shapes in found.items() if shapes}


def text_shapes(text: str) -> list[tuple]:
    """The shapes a parameter's type or description states: ``shape (n, 3)`` (and ``or (3,)``), else ``(N, M)
    array``, ``3 element sequence`` (real38 C1: transforms3d's `v : 3 element sequence`), ``4x4``/``kx3`` or a
    quoted ``(3,)``."""
    shape = DOC_SHAPE.search(text)
    if shape is not None:
        texts = re.findall(r"\(([^()]*)\)", shape.group(1))
    else:
        texts = ARRAY_SHAPE.findall(text) or QUOTED_SHAPE.findall(text)
        texts += [f"{m.group(1)}," for m in ELEMENT_SHAPE.finditer(text)]
        for m in CROSS_SIZE.finditer(text):
            texts.append(", ".join(g for g in m.groups() if g is not None))
    options = []
    for option in (_dims(t) for t in texts):
        if option is not None and option and option not in options:
            options.append(option)
    return options


def _dims(text: str) -> tuple | None:
    """``3,`` -> (3,); ``n, 3`` -> ("n", 3); None for a size that is neither an int nor a name."""
    dims = []
    for part in (p.strip() for p in text.split(",")):
        if part in ("", "...", "…"):
            continue
        if part.isdigit():
            dims.append(int(part))
        elif re.fullmatch(r"[A-Za-z_]\w*", part):
            dims.append(part)
        else:
            return None
    return tuple(dims)


def _cross_reach(tree: ast.AST | None) -> set[str]:
    """Names whose values reach an argument of ``np.cross``, directly or through assignments in the function
    (``forward = _normalize(target - eye)``; ``np.cross(forward, up)``)."""
    if tree is None:
        return set()
    sources: dict[str, set[str]] = {}  # assigned name -> names its value reads
    crossed: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign):
            read = _names_in(node.value)
            for target in node.targets:
                for name in _names_in(target):
                    sources.setdefault(name, set()).update(read - {name})
        elif isinstance(node, ast.Call) and _call_root(node.func)[1] == "cross" and _call_root(node.func)[0] in NUMPY_ROOTS:
            for arg in node.args:
                crossed |= _names_in(arg)
    reached, todo = set(), list(crossed)
    while todo:
        name = todo.pop()
        if name not in reached:
            reached.add(name)
            todo.extend(sources.get(name, ()))
    return reached


def _names_in(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


# NumPy functions whose result is defined only for sorted values at one argument (binary search): the position and
# keyword of that argument (``np.searchsorted(a, v)``, ``np.digitize(x, bins)``, ``np.interp(x, xp, fp)``)
SORTED_ARGUMENTS = {"searchsorted": (0, "a"), "digitize": (1, "bins"), "interp": (1, "xp")}


def sorted_uses(tree: ast.AST | None) -> set[str]:
    """Names the code gives directly where NumPy wants sorted values: ``np.searchsorted(a, v)`` (without a
    ``sorter``), ``a.searchsorted(v)``, ``np.digitize(x, bins)``, ``np.interp(x, xp, fp)``. On unsorted values NumPy's
    result is whatever its binary search finds, which another implementation need not find (hunt56 C2)."""
    found: set[str] = set()
    for node in ast.walk(tree) if tree is not None else ():
        if not isinstance(node, ast.Call):
            continue
        if any(k.arg == "sorter" for k in node.keywords):
            continue
        root, name = _call_root(node.func)
        if (name == "searchsorted" and isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Name)
                and node.func.value.id not in NUMPY_ROOTS):
            found.add(node.func.value.id)  # `a.searchsorted(v)`
            continue
        if root not in NUMPY_ROOTS or name not in SORTED_ARGUMENTS:
            continue
        position, keyword = SORTED_ARGUMENTS[name]
        given = node.args[position] if len(node.args) > position else next(
            (k.value for k in node.keywords if k.arg == keyword), None)
        if isinstance(given, ast.Name):
            found.add(given.id)
    return found


def called_names(tree: ast.AST | None) -> dict[str, bool]:
    """Names the code calls (``f(x)``, ``func(t, y)``): {name: whether every use of it is a call}."""
    called: set[str] = set()
    loads: dict[str, int] = {}
    calls: dict[str, int] = {}
    for node in ast.walk(tree) if tree is not None else ():
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            called.add(node.func.id)
            calls[node.func.id] = calls.get(node.func.id, 0) + 1
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            loads[node.id] = loads.get(node.id, 0) + 1
    return {name: loads.get(name, 0) == calls.get(name, 0) for name in called}


def compared_names(tree: ast.AST | None) -> set[str]:
    """Names the code compares directly (``image > level``, ``if total == 0``): thresholds and the values against
    them (execute.tie_values gives such a float number a whole value its arrays hold)."""
    found: set[str] = set()
    for node in ast.walk(tree) if tree is not None else ():
        if isinstance(node, ast.Compare):
            found.update(operand.id for operand in (node.left, *node.comparators) if isinstance(operand, ast.Name))
    return found


def converts_with_dtype(tree: ast.AST | None) -> bool:
    """Does the code name a dtype where it converts (``np.asarray(x, dtype=np.float32)``, ``x.astype(float)``)?"""
    for node in ast.walk(tree) if tree is not None else ():
        if isinstance(node, ast.Call) and (any(k.arg == "dtype" for k in node.keywords)
                                           or (isinstance(node.func, ast.Attribute) and node.func.attr == "astype")):
            return True
    return False
