"""The NumPy -> jax.numpy table.  Data only: rows, never logic.

Every public NumPy name the rules know is one row: where it goes in
``jax.numpy`` (or nowhere), what kind of thing it is, and the guideline shown
when it cannot be rewritten.  ``tests/test_tables.py`` checks every row
against the installed numpy and jax.  Kinds:

``function``     pure array function; rewritten to its jax.numpy twin when an
                 argument may be traced, kept as NumPy when all arguments are
                 known at trace time (shape arithmetic stays static)
``constructor``  builds an array that later code computes with or updates;
                 always rewritten inside functions
``dtype``        scalar type: kept as a reference (``dtype=np.float32``),
                 called on a traced value it becomes its jax.numpy twin
``static``       introspection of dtypes/shapes, computed at trace time: kept
``constant``     ``np.pi``, ``np.newaxis``...: kept
``type``         classes such as ``np.ndarray``: kept
``data_dependent`` output shape depends on values: reported (NPJ102)
``random``       NumPy's stateful RNG: reported (NPJ110)
``inplace``      mutates an argument: reported (NPJ111)
``io``           files, printing, global state: reported (NPJ112)
``unsupported``  no jax.numpy equivalent: reported (NPJ101)
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ApiRow:
    numpy: str  # qualified NumPy name, e.g. "numpy.linalg.norm"
    jax: str | None  # qualified replacement, e.g. "jax.numpy.linalg.norm"
    kind: str
    guideline: str = ""


# Keywords jax.numpy spells differently, with the same meaning: numpy name -> {numpy keyword: jax keyword}.
KEYWORD_RENAMES: dict[str, dict[str, str]] = {
    "numpy.clip": {"a_min": "min", "a_max": "max"},
}
# Keywords the jnp twin needs to compute what NumPy computes, appended to every rewritten call.
# NumPy's eigh/eigvalsh/cholesky read one triangle of the matrix; jnp's average it with its transpose
# first (symmetrize_input=True), which differs whenever the input is not exactly symmetric.
KEYWORD_ADDITIONS: dict[str, dict[str, str]] = {
    "numpy.linalg.eigh": {"symmetrize_input": "False"},
    "numpy.linalg.eigvalsh": {"symmetrize_input": "False"},
    "numpy.linalg.cholesky": {"symmetrize_input": "False"},
}
# Keyword values jax.numpy cannot honour (NotImplementedError, or a check that needs concrete values under jit):
# numpy name -> {keyword: (the values it takes, as source text; whether leaving the keyword out is fine)}.
# The advice is NPJ103's "use instead".
# Quantile methods jax.numpy computes as NumPy does: its "nearest" rounds a position halfway between two elements
# down, NumPy's to the even one (the median of 4 values is the 3rd in NumPy, the 2nd in JAX).
_EXACT_QUANTILE_METHODS = tuple(f"{quote}{method}{quote}" for method in ("linear", "lower", "higher", "midpoint")
                                for quote in ("'", '"'))
_NEAREST_ADVICE = ("method='lower' or 'higher' where ties do not matter; NumPy's 'nearest' rounds a position halfway "
                   "between two elements to the even one, jax.numpy's rounds it down")
KEYWORD_VALUES: dict[str, dict[str, tuple[tuple[str, ...], bool, str]]] = {
    # jnp.gradient computes NumPy's edge_order=1 and rejects the keyword itself (NotImplementedError)
    "numpy.gradient": {"edge_order": ((), True, "leave edge_order out for edge_order=1; write second-order ends by hand")},
    # NumPy's default mode="raise" checks the indices; jnp's does too, which a traced index cannot take under jit
    "numpy.ravel_multi_index": {"mode": (("'clip'", '"clip"', "'wrap'", '"wrap"'), False,
                                         "i * dims[1] + j for in-range indices, or mode='clip' once they are checked")},
    **{f"numpy.{name}": {keyword: (_EXACT_QUANTILE_METHODS, True, _NEAREST_ADVICE) for keyword in ("method", "interpolation")}
       for name in ("quantile", "percentile", "nanquantile", "nanpercentile")},
}
# Arguments NumPy makes inexact itself (``x = asarray(x) + 0.0``) where jax.numpy refuses an integer array
# ("data type int32 not inexact"): ``np.polyfit(np.arange(n), y, 1)``.  The rewritten call gets the same ``+ 0.0``.
INEXACT_ARGUMENTS: dict[str, tuple[int, ...]] = {"numpy.polyfit": (0, 1)}
# Functions that flatten each positional argument themselves (``reshape(-1)``) where jax.numpy refuses one that is
# not 1-D ("must be 1D"): ``np.meshgrid(a, b)`` of 2-D ``a``.  Arguments not certainly 1-D get ``jnp.ravel(a)``.
FLATTENED_ARGUMENTS = frozenset({"numpy.meshgrid"})
# Functions that make each positional argument at least 1-D themselves (``array(a, ndmin=1)``) where jax.numpy refuses
# a 0-d one: ``np.convolve(x, taps)`` with ``taps`` an element of a 1-D array iterated (``for taps in bank``) or
# indexed (``bank[i]``) gets ``jnp.atleast_1d(taps)``.
AT_LEAST_1D_ARGUMENTS = frozenset({"numpy.convolve"})
# Index results jax.numpy gives as int32 even with jax_enable_x64, where NumPy gives intp (int64): with a
# Python int, `np.searchsorted(xs, v) / n` is float64 in NumPy and float32 in JAX.  The rewritten call gets
# `.astype(int)`, JAX's default integer (int32 without x64, int64 with it).  Methods of the same names too.
INT32_INDEX_RESULTS = frozenset({"numpy.searchsorted", "numpy.digitize", "numpy.argpartition"})
# Array libraries that cannot take traced JAX values: top-level module -> what to say.
FOREIGN_LIBRARIES: dict[str, str] = {
    "scipy": "jax.scipy{twin}, or call SciPy outside the migrated function",
    "sklearn": "call scikit-learn outside the migrated function",
    "pandas": "convert to arrays before the migrated function",
    "numba": "drop the numba kernel and write it with jnp (jax.jit compiles it)",
    "numexpr": "write the expression with jnp directly",
    "cv2": "call OpenCV outside the migrated function",
    "skimage": "call scikit-image outside the migrated function",
    "matplotlib": "plot outside the migrated function",
    "torch": "convert at the boundary (jax.dlpack) outside the migrated function",
    "tensorflow": "convert at the boundary outside the migrated function",
    "statsmodels": "call statsmodels outside the migrated function",
}
# Sort kinds: NumPy's stable kinds map to stable=True; the others only change the order of ties.
STABLE_SORT_KINDS = ("stable", "mergesort")


def _same(module: str, names: str, kind: str) -> list[ApiRow]:
    jax_module = "jax.numpy" + module[len("numpy"):]
    return [ApiRow(f"{module}.{name}", f"{jax_module}.{name}", kind) for name in names.split()]


def _rows(module: str, names: str, kind: str, guideline: str) -> list[ApiRow]:
    return [ApiRow(f"{module}.{name}", None, kind, guideline) for name in names.split()]


FUNCTIONS = """
abs absolute acos acosh add all allclose amax amin angle any append apply_along_axis
apply_over_axes arccos arccosh arcsin arcsinh arctan arctan2 arctanh argmax argmin
argpartition argsort around array_equal array_equiv array_split asin asinh astype atan
atan2 atanh atleast_1d atleast_2d atleast_3d average bartlett bitwise_and bitwise_count
bitwise_invert bitwise_left_shift bitwise_not bitwise_or bitwise_right_shift bitwise_xor
blackman broadcast_arrays broadcast_to cbrt ceil choose clip conj conjugate convolve
copysign corrcoef correlate cos cosh count_nonzero cov cross cumprod cumsum
cumulative_prod cumulative_sum deg2rad degrees delete diagonal diff digitize divide
divmod dot dsplit ediff1d einsum exp exp2 expand_dims expm1 fabs flip fliplr flipud
float_power floor floor_divide fmax fmin fmod frexp gcd gradient greater greater_equal
hamming hanning heaviside histogram histogram2d histogram_bin_edges histogramdd hsplit
hypot i0 imag inner insert interp invert isclose iscomplex isfinite isin isinf isnan
isneginf isposinf isreal kaiser kron lcm ldexp left_shift less less_equal lexsort log
log10 log1p log2 logaddexp logaddexp2 logical_and logical_not logical_or logical_xor
matmul matrix_transpose matvec max maximum mean median min minimum mod modf moveaxis
multiply nan_to_num nanargmax nanargmin nancumprod nancumsum nanmax nanmean nanmedian
nanmin nanpercentile nanprod nanquantile nanstd nansum nanvar negative nextafter
not_equal outer packbits pad partition percentile permute_dims piecewise poly polyadd
polyder polydiv polyfit polyint polymul polysub polyval positive pow power prod ptp
quantile rad2deg radians ravel ravel_multi_index real reciprocal remainder reshape resize
right_shift rint roll rollaxis rot90 round searchsorted select sign signbit sin sinc
sinh sort sort_complex spacing split sqrt square squeeze std subtract sum swapaxes take
take_along_axis tan tanh tensordot trace transpose trapezoid tril tril_indices
tril_indices_from triu triu_indices triu_indices_from true_divide trunc unpackbits
unravel_index unstack unwrap var vdot vecdot vecmat vsplit where diag_indices
diag_indices_from mask_indices ix_
"""

CONSTRUCTORS = """
arange array asarray block column_stack concat concatenate diag diagflat dstack
empty empty_like eye fromfunction full full_like geomspace hstack identity indices
linspace logspace meshgrid ones ones_like stack tile tri vander vectorize vstack zeros
zeros_like repeat c_ r_ mgrid ogrid
"""

DTYPES = """
bool bool_ int8 int16 int32 int64 uint8 uint16 uint32 uint64 float16 float32 float64
complex64 complex128 single double csingle cdouble int_ uint
"""

STATIC = """
dtype finfo iinfo promote_types result_type can_cast issubdtype isdtype isscalar
iscomplexobj isrealobj ndim shape size broadcast_shapes iterable min_scalar_type
common_type mintypecode typename einsum_path s_ index_exp ndindex errstate
"""

CONSTANTS = "pi e inf nan newaxis euler_gamma little_endian"

TYPES = """
ndarray generic number integer floating inexact complexfloating signedinteger
unsignedinteger character flexible object_ ufunc str_ bytes_ void
"""

LINALG = """
cholesky cond cross det diagonal eig eigh eigvals eigvalsh inv lstsq matmul matrix_norm
matrix_power matrix_rank matrix_transpose multi_dot norm outer pinv qr slogdet solve
svd svdvals tensordot tensorinv tensorsolve trace vecdot vector_norm
"""

FFT = """
fft fft2 fftfreq fftn fftshift hfft ifft ifft2 ifftn ifftshift ihfft irfft irfft2 irfftn
rfft rfft2 rfftfreq rfftn
"""

SIZE_HINT = "pass a static size: jnp.{name}(..., size=N, fill_value=...), or compute with jnp.where on a fixed-size array"

# jax.numpy functions whose ``*operands`` (from this position on) must be arrays: a list raises TypeError.
# The generated signatures probe the leading positional parameters only.
ARRAY_OPERANDS_FROM = {"jax.numpy.einsum": 1}
# Rows naming a whole NumPy submodule without a jax.numpy counterpart: every function in it is unsupported
# (``np.ma.masked_less``, ``np.testing.assert_allclose``, ``numpy.polynomial.polynomial.polyval``).
UNSUPPORTED_MODULES = frozenset({
    "numpy.testing", "numpy.ma", "numpy.polynomial", "numpy.char", "numpy.strings", "numpy.rec", "numpy.emath", "numpy.lib",
})
ROWS: tuple[ApiRow, ...] = (
    *_same("numpy", FUNCTIONS, "function"),
    *_same("numpy", CONSTRUCTORS, "constructor"),
    *_same("numpy", DTYPES, "dtype"),
    *_same("numpy.linalg", LINALG, "function"),
    *_same("numpy.fft", FFT, "function"),
    *_rows("numpy", STATIC, "static", ""),
    *_rows("numpy", CONSTANTS, "constant", ""),
    *_rows("numpy", TYPES, "type", ""),
    ApiRow("numpy.linalg.LinAlgError", None, "type"),
    # Same values, other memory layout: layout does not exist in JAX.
    ApiRow("numpy.asanyarray", "jax.numpy.asarray", "constructor"),
    ApiRow("numpy.ascontiguousarray", "jax.numpy.asarray", "constructor"),
    ApiRow("numpy.asfortranarray", "jax.numpy.asarray", "constructor"),
    ApiRow("numpy.row_stack", "jax.numpy.vstack", "constructor"),
    # A copy of any array_like: jnp.copy refuses a list (ahrs passes quaternions as lists), jnp.array copies it.
    ApiRow("numpy.copy", "jax.numpy.array", "constructor"),
    # Output shape depends on the values.
    *[
        ApiRow(f"numpy.{name}", None, "data_dependent", SIZE_HINT.format(name=name))
        for name in "unique unique_all unique_counts unique_inverse unique_values nonzero argwhere flatnonzero".split()
    ],
    ApiRow("numpy.extract", None, "data_dependent", "jnp.where(condition, arr, 0) keeps the shape; or jnp.extract(..., size=N)"),
    ApiRow("numpy.compress", None, "data_dependent", "jnp.where on the condition keeps the shape; or jnp.compress(..., size=N)"),
    ApiRow("numpy.trim_zeros", None, "data_dependent", "keep the zeros and mask them; the trimmed length is not static"),
    ApiRow("numpy.roots", None, "data_dependent",
           "jnp.roots(p, strip_zeros=False), which keeps one root per coefficient after the first (NaN or inf where "
           "NumPy strips leading zeros)"),
    ApiRow("numpy.bincount", None, "data_dependent", "jnp.bincount(x, length=N) with a static N"),
    *[
        ApiRow(f"numpy.{name}", None, "data_dependent", SIZE_HINT.format(name=name))
        for name in "union1d intersect1d setdiff1d setxor1d".split()
    ],
    # Mutate an argument in place.
    ApiRow("numpy.copyto", None, "inplace", "dst = jnp.broadcast_to(jnp.asarray(src, dst.dtype), dst.shape)"),
    ApiRow("numpy.putmask", None, "inplace", "a = jnp.where(mask, values, a)"),
    ApiRow("numpy.place", None, "inplace", "a = jnp.place(a, mask, vals, inplace=False)"),
    ApiRow("numpy.put", None, "inplace", "a = a.at[ind].set(v) (or jnp.put(a, ind, v, inplace=False))"),
    ApiRow("numpy.put_along_axis", None, "inplace", "arr = jnp.put_along_axis(arr, indices, values, axis, inplace=False)"),
    ApiRow("numpy.fill_diagonal", None, "inplace", "a = jnp.fill_diagonal(a, val, inplace=False)"),
    # Files, printing and process-wide state.
    *_rows(
        "numpy",
        "load save savez savez_compressed loadtxt savetxt genfromtxt fromregex fromfile memmap",
        "io",
        "do file I/O outside the migrated function and pass arrays in",
    ),
    *_rows(
        "numpy",
        "set_printoptions get_printoptions printoptions seterr geterr seterrcall geterrcall "
        "setbufsize getbufsize array_repr array_str array2string format_float_positional "
        "format_float_scientific base_repr binary_repr",
        "io",
        "format or configure outside the migrated function; traced values have no concrete digits",
    ),
    *_rows("numpy", "frombuffer fromstring fromiter", "io", "build the array outside the function and pass it in"),
    ApiRow("numpy.random", None, "random", "jax.random with an explicit key argument: key, sub = jax.random.split(key)"),
    # No equivalent in jax.numpy.
    ApiRow("numpy.fix", None, "unsupported", "jnp.trunc(x) (same values)"),
    ApiRow("numpy.asarray_chkfinite", None, "unsupported", "jnp.asarray(x) and check jnp.isfinite(x).all() outside jit"),
    ApiRow("numpy.real_if_close", None, "unsupported", "jnp.real(x) once you know the imaginary part is negligible"),
    ApiRow("numpy.frompyfunc", None, "unsupported", "jnp.vectorize(func)"),
    ApiRow("numpy.ndenumerate", None, "unsupported", "iterate over np.ndindex(x.shape) and index x"),
    ApiRow("numpy.nditer", None, "unsupported", "vectorise the loop with jnp operations"),
    ApiRow("numpy.nested_iters", None, "unsupported", "vectorise the loop with jnp operations"),
    ApiRow("numpy.broadcast", None, "unsupported", "jnp.broadcast_arrays(...) or np.broadcast_shapes(a.shape, b.shape)"),
    ApiRow("numpy.may_share_memory", None, "unsupported", "JAX arrays never share mutable memory; drop the check"),
    ApiRow("numpy.shares_memory", None, "unsupported", "JAX arrays never share mutable memory; drop the check"),
    ApiRow("numpy.require", None, "unsupported", "jnp.asarray(x, dtype=...)"),
    *_rows("numpy", "matrix asmatrix bmat poly1d recarray record", "unsupported", "use plain arrays with jnp operations"),
    *_rows(
        "numpy",
        "datetime64 timedelta64 datetime_as_string datetime_data busday_count busday_offset busdaycalendar is_busday isnat",
        "unsupported",
        "convert dates to numbers before the migrated function",
    ),
    *_rows("numpy", "intc intp long longlong half byte short ubyte ushort uintc uintp ulong ulonglong", "dtype", ""),
    *_rows("numpy", "longdouble float128 complex256 clongdouble", "unsupported", "JAX has no extended precision; use float64 with jax_enable_x64"),
    *_rows("numpy", "info test show_config show_runtime get_include", "io", "call it outside the migrated function"),
    ApiRow("numpy.testing", None, "unsupported", "keep numpy.testing in tests, outside the migrated function"),
    ApiRow("numpy.ma", None, "unsupported", "masked arrays: carry an explicit mask and use jnp.where"),
    ApiRow("numpy.polynomial", None, "unsupported", "jnp.polyval / jnp.polyfit on coefficient arrays"),
    ApiRow("numpy.char", None, "unsupported", "JAX has no string arrays"),
    ApiRow("numpy.strings", None, "unsupported", "JAX has no string arrays"),
    ApiRow("numpy.rec", None, "unsupported", "use a dict or NamedTuple of arrays"),
    ApiRow("numpy.emath", None, "unsupported", "jnp.sqrt / jnp.log on a complex input"),
    ApiRow("numpy.lib.stride_tricks.sliding_window_view", None, "unsupported", "build the windows with jnp.stack of slices or jax.lax.conv_general_dilated_patches"),
    ApiRow("numpy.lib.stride_tricks.as_strided", None, "unsupported", "JAX arrays have no strides; build the view with indexing"),
    ApiRow("numpy.lib", None, "unsupported", "no jax.numpy equivalent"),
    ApiRow("numpy.linalg.test", None, "unsupported", ""),
    ApiRow("numpy.fft.test", None, "unsupported", ""),
)
