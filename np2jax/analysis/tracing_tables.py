"""What ``jax.jit`` needs as Python values, and what breaks under tracing, as data.

The tracing analysis (analysis/tracing.py) reads these tables: which parameters of
jax.numpy functions and which ndarray methods' arguments must be static, which
builtins look at their arguments' values or act on the world, which type hints say
"array" or "Python value", and the advice each kind of blocker carries.
"""

from __future__ import annotations

import libcst as cst

from np2jax.analysis.resolve import SHAPE_ATTRIBUTES

# The token of a value that comes out of an array computation (see analysis/traced_tokens.py).
ARRAY = "<array>"
BRANCH_INSTEAD = ("jax.lax.cond(pred, lambda: a, lambda: b) with a scalar boolean `pred` and branches of one shape and dtype; "
                  "jnp.where(cond, a, b) to choose elementwise")
WHILE_INSTEAD = "jax.lax.while_loop(cond_fun, body_fun, init)"
STATIC_INSTEAD = "compute shapes and sizes from `x.shape` or pass them as Python ints"
VALUE_INSTEAD = "keep the value as an array; jax.lax.dynamic_slice / dynamic_update_slice for slices at traced offsets"
DEFAULT_UNROLL_THRESHOLD = 8

# Parameters of jax.numpy functions that must be Python values when jit traces the call.
STATIC_PARAMETERS = frozenset(
    """shape newshape axis axes axis1 axis2 keepdims ord k n num N M deg bins dtype indices_or_sections
    sections mode side repeats reps order endpoint retstep kind source destination size decimals norm
    sparse indexing copy full_matrices compute_uv UPLO hermitian ndmin ddof return_index return_inverse
    return_counts rowvar bias increasing total_repeat_length stable descending offset s method
    interpolation edge_order pad_width range density subscripts correction length minlength kth obj""".split()
)
# Array parameters that share a name with STATIC_PARAMETERS (`M` is eye's column count, matrix_rank's matrix;
# `bins` is histogram's count, digitize's array of edges).
ARRAY_PARAMETERS = frozenset({("jax.numpy.linalg.matrix_rank", "M"), ("jax.numpy.digitize", "bins"),
                              ("jax.numpy.insert", "obj")})  # (`delete`'s `obj` must be concrete, `insert`'s need not)
# ... and whole calls whose arguments all must be (arange's bounds are its shape).
ALL_STATIC_FUNCTIONS = frozenset({"jax.numpy.arange", "jax.numpy.eye", "jax.numpy.identity", "jax.numpy.tri"})
# ndarray methods: which positional arguments are static (None: all of them).
METHOD_STATIC_POSITIONS: dict[str, tuple[int, ...] | None] = {
    **{name: None for name in "reshape transpose swapaxes squeeze astype repeat view ravel flatten resize diagonal trace".split()},
    **{name: (0,) for name in "sum mean std var min max argmin argmax prod cumsum cumprod any all ptp sort argsort".split()},
    "round": (0,),
}
# Methods that only exist on arrays (not on lists, tuples, str, dict).
ARRAY_METHODS = frozenset(
    """sum mean std var min max argmin argmax prod cumsum cumprod any all ptp sort argsort round reshape
    transpose swapaxes squeeze astype repeat view ravel flatten resize diagonal trace dot clip conj
    conjugate nonzero take fill item tolist at""".split()
)
ARRAY_ATTRIBUTES = frozenset({*SHAPE_ATTRIBUTES, "T", "mT", "real", "imag", "flat", "at"})
# Every public attribute and method of numpy.ndarray and jax.Array (tests/test_jit_static_params.py checks it
# against the installed versions), and those of Python's numbers, strings and containers: any other attribute
# or method of a parameter says it is a Python object, which jax.jit cannot trace (NPJ302).
ARRAY_MEMBERS = frozenset(
    """T addressable_data addressable_shards all any argmax argmin argpartition argsort astype at base byteswap
    choose clip committed compress conj conjugate copy copy_to_host_async ctypes cumprod cumsum data device diagonal
    dot dtype dump dumps fill flags flat flatten getfield global_shards imag is_fully_addressable
    is_fully_replicated item itemsize mT max mean min nbytes ndim nonzero partition prod ptp put ravel real repeat
    reshape resize round searchsorted setfield setflags shape sharding size sort squeeze std strides sum swapaxes
    take to_device tobytes tofile tolist trace transpose var view""".split()
)
PYTHON_VALUE_MEMBERS = frozenset(
    """add append as_integer_ratio bit_count bit_length capitalize casefold center clear count decode denominator
    difference difference_update discard encode endswith expandtabs extend find format format_map from_bytes
    fromhex fromkeys get hex index insert intersection intersection_update is_integer isalnum isalpha isascii
    isdecimal isdigit isdisjoint isidentifier islower isnumeric isprintable isspace issubset issuperset istitle
    isupper items join keys ljust lower lstrip maketrans numerator pop popitem remove removeprefix removesuffix
    replace reverse rfind rindex rjust rpartition rsplit rstrip setdefault split splitlines startswith strip
    swapcase symmetric_difference symmetric_difference_update title to_bytes translate union update upper values
    zfill""".split()
)
# Builtins whose arguments Python looks at (they need concrete values).
CONCRETE_BUILTINS = frozenset(
    "int float bool complex round range min max sorted any all str repr format hash chr ord bin hex oct slice".split()
)
SIDE_EFFECT_BUILTINS = frozenset("print input open exec eval breakpoint setattr delattr globals locals vars id exit quit".split())
ITERATOR_BUILTINS = frozenset({"iter", "next"})
IMMUTABLE_BUILTINS = frozenset(f"builtins.{name}" for name in "int float complex bool str tuple frozenset bytes range slice len abs round pow min max sum".split())
BUILTIN_CONSTANTS = frozenset({"True", "False", "None"})
MASK_FUNCTIONS = frozenset(
    "isnan isfinite isinf isposinf isneginf logical_and logical_or logical_not logical_xor signbit isclose all any isin "
    "greater greater_equal less less_equal equal not_equal".split())
# NumPy functions that join arrays: of masks (and bool literals) they make a mask (`np.append(m, [True])`).
MASK_JOINERS = frozenset("append concatenate hstack vstack stack".split())
# Modules whose functions may be called from traced code.
TRACEABLE_MODULES = ("numpy", "jax", "builtins", "functools", "operator", "itertools", "typing", "collections")
NAMEDTUPLE_BASES = frozenset({"typing.NamedTuple", "collections.namedtuple", "NamedTuple"})

SCALAR_HINTS = frozenset({"int", "float", "bool", "str", "complex", "tuple", "Callable", "Literal", "Sequence", "None"})
ARRAY_HINTS = frozenset({"ndarray", "NDArray", "ArrayLike", "Array", "array"})

STRING_LITERALS = (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)
