"""The one registry of NPJ codes: every rule, in the order the engine runs them."""

from __future__ import annotations

from np2jax.rule import Rule
from np2jax.rules.astype_narrowing import AstypeNarrowing
from np2jax.rules.calls_unmigrated import CallsUnmigratedFunction
from np2jax.rules.data_dependent_index import DataDependentIndex
from np2jax.rules.decomposition_signs import DecompositionSigns
from np2jax.rules.data_dependent_shape import DataDependentShape
from np2jax.rules.float32_cancellation import Float32Cancellation
from np2jax.rules.float32_range import Float32Range
from np2jax.rules.foreign_array_library import ForeignArrayLibrary
from np2jax.rules.functional_update import FunctionalUpdate
from np2jax.rules.inexact_before_rounding import InexactBeforeRounding
from np2jax.rules.inplace_function import InplaceFunction
from np2jax.rules.int32_overflow import Int32Overflow
from np2jax.rules.integer_division_by_zero import IntegerDivisionByZero
from np2jax.rules.io_and_global_state import IoAndGlobalState
from np2jax.rules.isinstance_ndarray import IsinstanceNdarray
from np2jax.rules.loop_to_fori import LoopToFori
from np2jax.rules.loop_to_scan import LoopToScan
from np2jax.rules.loop_to_while import LoopToWhile
from np2jax.rules.masked_product import MaskedProduct
from np2jax.rules.jit import Jit
from np2jax.rules.jit_side_effect import JitSideEffect
from np2jax.rules.jit_traced_value import JitTracedValue
from np2jax.rules.never_raised_error import NeverRaisedError
from np2jax.rules.no_jax_equivalent import NoJaxEquivalent
from np2jax.rules.not_jitted import NotJitted
from np2jax.rules.np_to_jnp import NumpyToJaxNumpy
from np2jax.rules.numpy_random import NumpyRandom
from np2jax.rules.process_pools import ProcessPools
from np2jax.rules.result_dtype import ResultDtype
from np2jax.rules.returned_argument import ReturnedArgument
from np2jax.rules.round_decimals import RoundDecimals
from np2jax.rules.sort_ties import SortTies
from np2jax.rules.tolerance_below_float32 import ToleranceBelowFloat32
from np2jax.rules.traced_conditional import TracedConditional
from np2jax.rules.unrolled_loop import UnrolledLoop
from np2jax.rules.unsafe_inplace_write import UnsafeInplaceWrite
from np2jax.rules.unsupported_argument import UnsupportedArgument
from np2jax.rules.x64_precision import X64Precision

# Reporting rules run first and may block a rewrite; the rewriting rule runs last.
RULES: tuple[type[Rule], ...] = (
    NoJaxEquivalent,
    DataDependentShape,
    UnsupportedArgument,
    RoundDecimals,
    AstypeNarrowing,
    IsinstanceNdarray,
    X64Precision,
    SortTies,
    DecompositionSigns,
    ResultDtype,
    NumpyRandom,
    InplaceFunction,
    IoAndGlobalState,
    ProcessPools,
    ForeignArrayLibrary,
    UnsafeInplaceWrite,
    CallsUnmigratedFunction,
    # Hazards in rewritten functions, once the errors above are known.
    NeverRaisedError,
    DataDependentIndex,
    Int32Overflow,
    IntegerDivisionByZero,
    Float32Cancellation,
    ToleranceBelowFloat32,
    Float32Range,
    InexactBeforeRounding,
    MaskedProduct,
    NumpyToJaxNumpy,
    FunctionalUpdate,
    ReturnedArgument,
    LoopToFori,
    LoopToScan,
    LoopToWhile,
    TracedConditional,
    # The jit rules decide last, once a function's own diagnostics are known.
    Jit,
    JitTracedValue,
    JitSideEffect,
    UnrolledLoop,
    NotJitted,
)

BY_CODE: dict[str, type[Rule]] = {rule.CODE: rule for rule in RULES}


def rule_for(code: str) -> type[Rule] | None:
    return BY_CODE.get(code.upper())


def selected(select: set[str] | None = None, ignore: set[str] | None = None) -> list[type[Rule]]:
    """The rule classes in run order, filtered by code (ignoring a rewrite rule keeps its code unchanged)."""
    return [rule for rule in RULES if not (select and rule.CODE not in select) and not (ignore and rule.CODE in ignore)]


def instantiate(select: set[str] | None = None, ignore: set[str] | None = None) -> list[Rule]:
    """Fresh instances (rules keep per-walk state) of the ``selected`` rules."""
    return [rule() for rule in selected(select, ignore)]
