from __future__ import annotations

import math

import libcst as cst

from np2jax.analysis.scope import ParamBinding, ValueBinding
from np2jax.context import FileContext
from np2jax.diagnostics import Severity
from np2jax.rule import Example, RuleDoc
from np2jax.rules.hazard import HazardRule
from np2jax.analysis.narrow_dtypes import DTYPE_CODES, made_dtype
from np2jax.visitors import child_nodes

INTEGER_DTYPES = frozenset({"int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "int", "int_",
                            "intp", "intc", "uint", "uintp", "uintc", "byte", "short", "ubyte", "ushort", "longlong",
                            "ulonglong"})
NARROW_INTEGERS = frozenset({"uint8", "uint16", "uint32", "uint64", "uint", "ubyte", "ushort", "uintc", "uintp",
                             "int8", "int16", "byte", "short", "bool_", "bool"})


# The values each narrow integer type holds (bool: what a cast to it keeps as given).
INTEGER_RANGES = {"uint8": (0, 255), "ubyte": (0, 255), "int8": (-128, 127), "byte": (-128, 127),
                  "uint16": (0, 65535), "ushort": (0, 65535), "int16": (-32768, 32767), "short": (-32768, 32767),
                  "uint32": (0, 2**32 - 1), "uintc": (0, 2**32 - 1)}
CLIPPING = frozenset({"numpy.clip", "jax.numpy.clip"})
BOOLEAN_FUNCTIONS = frozenset(f"numpy.{name}" for name in (
    "isnan", "isinf", "isfinite", "isposinf", "isneginf", "signbit", "isclose", "logical_and", "logical_or",
    "logical_not", "logical_xor", "greater", "greater_equal", "less", "less_equal", "equal", "not_equal"))
CONVERTERS = frozenset({"numpy.array", "numpy.asarray", "numpy.asanyarray", "numpy.ascontiguousarray"})
ROUNDING = frozenset(f"numpy.{name}" for name in ("round", "around", "rint", "floor", "ceil", "trunc", "fix"))


def value_range(node: cst.BaseExpression, scope, ctx: FileContext, depth: int = 0) -> tuple[float, float] | None:
    """Bounds of the values ``node`` can hold, when clipping to number literals gives them (``np.clip(x, 0, 255)``,
    ``x.clip(-1.0, 1.0) * 32767``, ``np.round(...)`` of one, a local name every binding of which has them)."""
    if depth > 6:
        return None
    number = _literal(node)
    if number is not None:
        return number, number
    if isinstance(node, (cst.List, cst.Tuple)) and node.elements:  # `np.array([0, 128, 255], dtype=np.uint8)`
        ranges = [value_range(e.value, scope, ctx, depth + 1) if not isinstance(e, cst.StarredElement) else None
                  for e in node.elements]
        if any(r is None for r in ranges):
            return None
        return min(r[0] for r in ranges), max(r[1] for r in ranges)
    if isinstance(node, cst.Comparison) and not any(
            isinstance(c.operator, (cst.Is, cst.IsNot, cst.In, cst.NotIn)) for c in node.comparisons):
        return 0, 1  # a boolean (array): casts to 0 and 1
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, (cst.BitAnd, cst.BitOr, cst.BitXor)):
        left, right = value_range(node.left, scope, ctx, depth + 1), value_range(node.right, scope, ctx, depth + 1)
        return (0, 1) if left == right == (0, 1) else None  # `(a > 0) & (b > 0)`: booleans stay booleans
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, (cst.BitInvert, cst.Not)):
        # `~mask` of a boolean is a boolean (of a 0/1 int it is -1/-2: only certain booleans count)
        return (0, 1) if _boolean(node.expression, scope, ctx, depth + 1) else None
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
        inner = value_range(node.expression, scope, ctx, depth + 1)
        return (-inner[1], -inner[0]) if inner is not None else None
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, (cst.Add, cst.Subtract, cst.Multiply)):
        left, right = value_range(node.left, scope, ctx, depth + 1), value_range(node.right, scope, ctx, depth + 1)
        if left is None or right is None:
            return None
        if isinstance(node.operator, cst.Multiply):
            products = [a * b for a in left for b in right]
            return min(products), max(products)
        if isinstance(node.operator, cst.Add):
            return left[0] + right[0], left[1] + right[1]
        return left[0] - right[1], left[1] - right[0]
    if isinstance(node, cst.Call):
        qualname = ctx.resolver.qualname(node.func, scope)
        positional = [arg.value for arg in node.args if arg.keyword is None and not arg.star]
        if qualname in CLIPPING and len(positional) >= 3:
            low, high = _literal(positional[1]), _literal(positional[2])
            return (low, high) if low is not None and high is not None else None
        if qualname is None and isinstance(node.func, cst.Attribute) and node.func.attr.value == "clip" and len(positional) == 2:
            low, high = _literal(positional[0]), _literal(positional[1])
            return (low, high) if low is not None and high is not None else None
        if qualname in BOOLEAN_FUNCTIONS:
            return 0, 1
        if qualname == "numpy.sign":
            return -1, 1  # (NaN casts to 0 in NumPy and XLA alike)
        if qualname == "numpy.where" and len(positional) == 3:  # `np.where(img > t, 1, 0)`: one of two values
            branches = [value_range(branch, scope, ctx, depth + 1) for branch in positional[1:]]
            if None in branches:
                return None
            return min(b[0] for b in branches), max(b[1] for b in branches)
        if qualname in ROUNDING and len(positional) == 1:
            inner = value_range(positional[0], scope, ctx, depth + 1)
            return (math.floor(inner[0]), math.ceil(inner[1])) if inner is not None else None
        return None
    if isinstance(node, cst.Name):
        found, bindings = scope.lookup(node.value)
        if found is None or found.kind != "function" or not bindings or not all(
                isinstance(b, ValueBinding) and not b.augmented for b in bindings):
            return None
        if _written_in_place(found.node, node.value):
            return None  # `m[1:] = x[1:] * 100` puts other values in
        ranges = [value_range(b.value, found, ctx, depth + 1) for b in bindings]
        if any(r is None for r in ranges):
            return None
        return min(r[0] for r in ranges), max(r[1] for r in ranges)
    return None


def _boolean(node: cst.BaseExpression, scope, ctx: FileContext, depth: int) -> bool:
    """Certainly a boolean (array): a comparison, ``np.isnan(...)``-like calls, ``~``/``&``/``|``/``^`` of booleans,
    or a local name bound only to such values and never written into."""
    if depth > 6:
        return False
    if isinstance(node, cst.Comparison):
        return not any(isinstance(c.operator, (cst.Is, cst.IsNot, cst.In, cst.NotIn)) for c in node.comparisons)
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.BitInvert):
        return _boolean(node.expression, scope, ctx, depth + 1)
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, (cst.BitAnd, cst.BitOr, cst.BitXor)):
        return _boolean(node.left, scope, ctx, depth + 1) and _boolean(node.right, scope, ctx, depth + 1)
    if isinstance(node, cst.Call):
        return ctx.resolver.qualname(node.func, scope) in BOOLEAN_FUNCTIONS
    if isinstance(node, cst.Name):
        found, bindings = scope.lookup(node.value)
        return (found is not None and found.kind == "function" and bool(bindings)
                and all(isinstance(b, ValueBinding) and not b.augmented for b in bindings)
                and not _written_in_place(found.node, node.value)
                and all(_boolean(b.value, found, ctx, depth + 1) for b in bindings))
    return False


def _written_in_place(function: cst.CSTNode, name: str) -> bool:
    """Is ``name``'s array written into anywhere in ``function``: ``name[...] = v``, ``name[...] op= v``, ``out=name``,
    a method call on it (``name.fill(v)``), or ``name`` passed to any call but a NumPy function of values?"""
    stack: list[cst.CSTNode] = [function]
    while stack:
        current = stack.pop()
        if isinstance(current, (cst.Assign, cst.AugAssign)):
            targets = [t.target for t in current.targets] if isinstance(current, cst.Assign) else [current.target]
            for target in targets:
                for element in ([e.value for e in target.elements] if isinstance(target, (cst.Tuple, cst.List)) else [target]):
                    if isinstance(element, cst.Subscript) and isinstance(element.value, cst.Name) and element.value.value == name:
                        return True
        if isinstance(current, cst.Call):
            if any(arg.keyword is not None and arg.keyword.value == "out" and _names(arg.value, name) for arg in current.args):
                return True
            func = current.func
            if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value == name and (
                    func.attr.value in ("fill", "sort", "put", "itemset", "partition", "resize", "setfield", "clip")):
                return True
            if isinstance(func, cst.Attribute) and func.attr.value in ("copyto", "place", "put", "putmask", "fill_diagonal") and (
                    current.args and _names(current.args[0].value, name)):
                return True
        stack.extend(child_nodes(current))
    return False


def _names(node: cst.BaseExpression, name: str) -> bool:
    if isinstance(node, cst.Tuple):
        return any(_names(e.value, name) for e in node.elements)
    return isinstance(node, cst.Name) and node.value == name


def _literal(node: cst.BaseExpression) -> float | None:
    if isinstance(node, cst.Name) and node.value in ("True", "False"):
        return float(node.value == "True")
    if isinstance(node, (cst.Integer, cst.Float)):
        return float(node.evaluated_value)
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus) and isinstance(node.expression, (cst.Integer, cst.Float)):
        return -float(node.expression.evaluated_value)
    return None


def _fits(bounds: tuple[float, float] | None, dtype: str) -> bool:
    limits = INTEGER_RANGES.get(dtype)
    return bounds is not None and limits is not None and limits[0] <= bounds[0] and bounds[1] <= limits[1]


def integer_writes(node: cst.CSTNode, scope, ctx: FileContext):
    """(array name, its dtype name) for each ``a[...] = v`` / ``a[...] op= v`` of ``node`` into an array ``a`` every
    binding of which is made with an integer dtype: NumPy casts ``v`` into it (analysis/narrow_dtypes.made_dtype)."""
    if not isinstance(node, (cst.Assign, cst.AugAssign)):
        return
    targets = [t.target for t in node.targets] if isinstance(node, cst.Assign) else [node.target]
    for target in targets:
        if isinstance(node, cst.AugAssign) and isinstance(target, cst.Subscript) and not _one_element(target, scope, ctx):
            continue  # `out[1:-1] -= v`: the ufunc writes into the view itself, and NumPy refuses float into int
        if isinstance(target, cst.Subscript) and isinstance(target.value, cst.Name):
            dtype = made_dtype(target.value.value, scope, ctx.resolver, defaults=True) or _image_dtype(target.value.value, scope, ctx)
            if dtype in INTEGER_DTYPES:
                yield target.value.value, dtype


def _one_element(target: cst.Subscript, scope, ctx: FileContext) -> bool:
    """``a[i]``, ``a[i, j]`` with integer indices (a scalar, which ``a[i] += v`` then casts back into ``a``)."""
    from np2jax.analysis.indexing import IndexClassifier

    ints = IndexClassifier(ctx.resolver, scope)
    return all(isinstance(e.slice, cst.Index) and ints.is_int(e.slice.value) for e in target.slice)


# Parameters named for images: 8-bit (uint8) arrays as often as float ones.
IMAGE_NAMES = frozenset({"image", "images", "img", "imgs", "im", "frame", "frames", "pixels"})
_LIKE = frozenset({"numpy.zeros_like", "numpy.empty_like", "numpy.ones_like", "numpy.full_like", "numpy.copy"})


def _image_dtype(name: str, scope, ctx: FileContext) -> str | None:
    """``out = np.zeros_like(img)`` (``img.copy()``, ``np.copy(img)``) of a parameter named for an image: uint8
    when the image is 8-bit, the usual case (a float written into it then wraps in NumPy, saturates in JAX)."""
    found, bindings = scope.lookup(name)
    made = [b for b in bindings if not (isinstance(b, ValueBinding) and b.augmented)]
    if found is None or found.kind != "function" or not made or not all(isinstance(b, ValueBinding) for b in made):
        return None
    for binding in made:
        value = binding.value
        if not isinstance(value, cst.Call) or any(a.keyword is not None and a.keyword.value == "dtype" for a in value.args):
            return None
        if isinstance(value.func, cst.Attribute) and value.func.attr.value == "copy" and not value.args:
            source = value.func.value
        elif ctx.resolver.qualname(value.func, found) in _LIKE and value.args:
            source = value.args[0].value
        else:
            return None
        if not (isinstance(source, cst.Name) and source.value.lower() in IMAGE_NAMES
                and any(isinstance(b, ParamBinding) for b in found.lookup(source.value)[1])):
            return None
    return "uint8"


class AstypeNarrowing(HazardRule):
    CODE = "NPJ105"
    NAME = "astype-narrowing"
    MESSAGE = "casting to `{dtype}` wraps out-of-range values in NumPy but not in JAX"
    SEVERITY = Severity.WARNING
    DOC = RuleDoc(
        what=(
            "Reports `.astype(...)`, dtype calls and `np.array`/`np.asarray` with `dtype=` (`np.array(img * 255.0, "
            "dtype=np.uint8)`) to unsigned or narrow integer types on traced values, also "
            "when the dtype is chosen at run time among such types (`np.uint8 if bits == 8 else np.uint16`, directly "
            "or through a local or module-level name, or a parameter's default: `def to_image(x, dtype=np.uint8)`). "
            "Integer values are not reported (`np.argmax(p, axis=-1).astype(np.uint8)`: NumPy and XLA wrap an int "
            "cast to a narrower int alike). Values clipped into the type's range by number literals are not reported "
            "(`np.clip(lut, 0, 255).astype(np.uint8)`, `np.round(np.clip(x, -1, 1) * 32767).astype(np.int16)`, also "
            "through local names), nor booleans and choices between literals (`(img > t).astype(np.uint8)`, "
            "`(~mask).astype(np.uint8)`, `np.where(img > t, 255, 0).astype(np.uint8)`) unless the array is written "
            "into (`m[1:] = x[1:] * 100`). Also writes that make the same cast unwritten: `out[:] = x * 32767.0` "
            "or `img[i] += v` into an array made with such a dtype (`out = np.zeros(n, dtype=np.int16)`), or made "
            "like a parameter named for an image (`out = np.zeros_like(img)`, `img.copy()`: uint8 for an 8-bit "
            "image), unless the values are integers or clipped into range."
        ),
        why=(
            "NumPy wraps (or leaves undefined) float and wide-int values outside the target range; "
            "XLA saturates or gives other values. Negative floats cast to unsigned ints differ most often."
        ),
        use_instead="clip into range first: x.clip(0, 255).astype(jnp.uint8), or cast through int32.",
        known_problems=(
            "Casts to `int`, `int32` and `int64` are not reported: they differ only for NaN, ±inf and values "
            "beyond the integer range (NumPy gives the smallest integer and warns 'invalid value encountered in "
            "cast'; XLA gives 0 for NaN and saturates the others)."
        ),
    )
    EXAMPLES = (
        Example(
            before="""
            import numpy as np

            def to_image(x):
                return (x * 255).astype(np.uint8)
            """,
            diagnostics=("NPJ105",),
        ),
        Example(
            title="`np.array`/`np.asarray` with a narrow integer dtype make the same cast",
            before="""
            import numpy as np

            def to_image(x):
                return np.array(x * 255.0, dtype=np.uint8)
            """,
            after="""
            import numpy as np
            import jax.numpy as jnp

            def to_image(x):
                return jnp.array(x * 255.0, dtype=np.uint8)
            """,
            diagnostics=("NPJ105",),
        ),
        Example(
            before="""
            import numpy as np

            def to_float(x):
                return x.astype(np.float32)
            """,
        ),
        Example(
            title="values clipped into the type's range",
            before="""
            import numpy as np

            def quantize_pcm16(x):
                y = np.clip(x, -1.0, 1.0) * 32767
                return np.round(y).astype(np.int16)
            """,
            after="""
            import numpy as np
            import jax.numpy as jnp

            def quantize_pcm16(x):
                y = jnp.clip(x, -1.0, 1.0) * 32767
                return jnp.round(y).astype(np.int16)
            """,
        ),
        Example(
            title="booleans and choices between literals that fit",
            before="""
            import numpy as np

            def threshold(img, t):
                mask = img > t
                return mask.astype(np.uint8), np.where(mask, 255, 0).astype(np.uint8)
            """,
            after="""
            import numpy as np
            import jax.numpy as jnp

            def threshold(img, t):
                mask = img > t
                return mask.astype(np.uint8), jnp.where(mask, 255, 0).astype(np.uint8)
            """,
        ),
        Example(
            title="a write into a narrow integer array casts as astype does",
            before="""
            import numpy as np

            def to_pcm(x):
                out = np.zeros(x.shape[0], dtype=np.int16)
                out[:] = x * 32767.0
                return out
            """,
            after="""
            import numpy as np
            import jax.numpy as jnp

            def to_pcm(x):
                out = jnp.zeros(x.shape[0], dtype=np.int16)
                out = out.at[:].set(x * 32767.0)
                return out
            """,
            diagnostics=("NPJ105",),
        ),
        Example(
            title="a dtype parameter whose default is narrow (what callers that say nothing get)",
            before="""
            import numpy as np

            def to_image(x, dtype=np.uint8):
                return (x * 255.0).astype(dtype)

            def pack(x, dtype=np.uint8):
                out = np.empty(x.shape, dtype=dtype)
                out[:] = x * 255.0
                return out
            """,
            after="""
            import numpy as np
            import jax.numpy as jnp

            def to_image(x, dtype=np.uint8):
                return (x * 255.0).astype(dtype)

            def pack(x, dtype=np.uint8):
                out = jnp.empty(x.shape, dtype=dtype)
                out = out.at[:].set(x * 255.0)
                return out
            """,
            diagnostics=("NPJ105", "NPJ105"),
        ),
        Example(
            title="a module-level dtype (hunt43); an integer result cast narrower wraps alike in both: not reported",
            before="""
            import numpy as np

            IMAGE_DTYPE = np.uint8

            def to_image(x, dtype=IMAGE_DTYPE):
                return (x * 255.0).astype(dtype)

            def labels_image(p, dtype=np.uint8):
                return np.argmax(p, axis=-1).astype(dtype)
            """,
            after="""
            import numpy as np
            import jax.numpy as jnp

            IMAGE_DTYPE = np.uint8

            def to_image(x, dtype=IMAGE_DTYPE):
                return (x * 255.0).astype(dtype)

            def labels_image(p, dtype=np.uint8):
                return jnp.argmax(p, axis=-1).astype(dtype)
            """,
            diagnostics=("NPJ105",),
        ),
        Example(
            title="a dtype chosen at run time among narrow ones",
            before="""
            import numpy as np

            def quantize(x, bits=8):
                dtype = np.uint8 if bits == 8 else np.uint16
                return (x * ((1 << bits) - 1)).astype(dtype)
            """,
            diagnostics=("NPJ105",),
        ),
    )

    WRITE_MESSAGE = ("writing into `{name}` casts the values to `{dtype}`: NumPy wraps out-of-range values, JAX's "
                     "`.at[...]` update saturates them")
    NODE_TYPES = frozenset({cst.Assign, cst.AugAssign})

    def check(self, node: cst.CSTNode, scope, ctx: FileContext) -> None:
        """``out = np.zeros(n, dtype=np.int16); out[:] = x * 32767.0``: the cast `.astype` would make, unwritten."""
        for name, dtype in integer_writes(node, scope, ctx):
            if dtype in NARROW_INTEGERS and not ctx.values.is_integer(node.value, scope) and not _fits(
                    value_range(node.value, scope, ctx), dtype):
                self.report(ctx, node, self.WRITE_MESSAGE.format(name=name, dtype=dtype),
                            use_instead=f"clip into range first: {name}[...] = jnp.clip(v, lo, hi), or keep a wider array")
                return

    def on_call(self, node: cst.Call, ctx: FileContext) -> None:
        if not isinstance(node.func, cst.Attribute) or node.func.attr.value != "astype":
            self._constructor_dtype(node, ctx)
            return
        qualname = ctx.qualname(node.func)
        if qualname is not None and not qualname.startswith("numpy."):
            return  # a module-level function named astype that is not NumPy's
        args = [arg for arg in node.args if arg.keyword is None or arg.keyword.value == "dtype"]
        if qualname == "numpy.astype":
            args = args[1:]
        if not args:
            return
        dtype = self._dtype_name(args[0].value, ctx)
        if dtype in NARROW_INTEGERS and not _fits(value_range(node.func.value, ctx.scope, ctx), dtype) and not (
                ctx.values.is_integer(node.func.value, ctx.scope)):  # int -> int wraps alike (hunt43 FP1: argmax)
            self.report(ctx, node, self.MESSAGE.format(dtype=dtype))

    def _constructor_dtype(self, node: cst.Call, ctx: FileContext) -> None:
        """``np.array(img * 255.0, dtype=np.uint8)``, ``np.asarray(x, np.int16)``: the same cast as ``.astype``."""
        if ctx.qualname(node.func) not in CONVERTERS or not node.args or node.args[0].keyword is not None:
            return
        dtype_arg = next((arg for arg in node.args if arg.keyword is not None and arg.keyword.value == "dtype"), None)
        if dtype_arg is None and len(node.args) > 1 and node.args[1].keyword is None:
            dtype_arg = node.args[1]
        if dtype_arg is None:
            return
        dtype = self._dtype_name(dtype_arg.value, ctx)
        if dtype in NARROW_INTEGERS and not _fits(value_range(node.args[0].value, ctx.scope, ctx), dtype) and not (
                ctx.values.is_integer(node.args[0].value, ctx.scope)):
            self.report(ctx, node, self.MESSAGE.format(dtype=dtype))

    @classmethod
    def _dtype_name(cls, value: cst.BaseExpression, ctx: FileContext, depth: int = 0) -> str | None:
        """The dtype's NumPy name; for a choice (`np.uint8 if bits == 8 else np.uint16`, also through a local name
        bound to one), a narrow one among the choices if there is one."""
        if depth > 4:
            return None
        choices: list[cst.BaseExpression] = []
        if isinstance(value, cst.IfExp):
            choices = [value.body, value.orelse]
        elif isinstance(value, cst.Name) and ctx.qualname(value) is None:
            found, bindings = ctx.scope.lookup(value.value)
            if found is not None and found.kind in ("function", "module"):  # (`IMAGE_DTYPE = np.uint8`, hunt43 S3)
                choices = [b.value for b in bindings if isinstance(b, ValueBinding) and not b.augmented]
                # `def to_image(x, dtype=np.uint8)`: the default is what callers that say nothing get (hunt42 S3)
                choices += [b.param.default for b in bindings if isinstance(b, ParamBinding) and b.param.default is not None]
        if choices:
            names = [cls._dtype_name(choice, ctx, depth + 1) for choice in choices]
            return next((name for name in names if name in NARROW_INTEGERS), None)
        if isinstance(value, cst.SimpleString):
            text = value.evaluated_value
            if not isinstance(text, str):
                return None
            text = text.lstrip("<>=|")  # "u1", "B", "<i2": NumPy's codes for the same types
            return DTYPE_CODES.get(text, text)
        if (isinstance(value, cst.Call) and ctx.qualname(value.func) == "numpy.dtype" and len(value.args) == 1
                and value.args[0].keyword is None):
            return cls._dtype_name(value.args[0].value, ctx, depth + 1)  # `np.dtype(np.uint8)`
        qualname = ctx.qualname(value)
        if qualname is not None and (qualname.startswith("numpy.") or qualname.startswith("jax.numpy.")):
            return qualname.rsplit(".", 1)[1]
        return None
