"""SciPy calls whose ``jax.scipy`` twin computes the same thing, with the arguments that keep it so.

Each twin was compared with SciPy on random, singular-free and edge inputs (``tests/test_scipy_twins.py``
runs that comparison): same shapes, same dtypes, the same values to rounding.  What is left out, and why:

- ``scipy.linalg.det``, ``norm``: SciPy gives float64 for float32 input, jax float32;
- ``solve(assume_a="sym"/"her")``: SciPy reads one triangle, jax the whole matrix; ``transposed=`` jax lacks;
- ``qr(pivoting=True)``: pivots of equal columns may be chosen differently; ``mode="raw"`` jax lacks;
- ``cho_factor``: SciPy leaves the input in the unused triangle, jax zeros;
- ``scipy.special.gammaln``, ``digamma`` (-inf and 0 differ), ``ndtr``, ``log_ndtr`` (tails differ in float32),
  ``rel_entr``, ``kl_div`` (negative arguments differ);
- ``scipy.stats.norm`` with a ``scale`` that is not a positive number: SciPy gives nan for scale <= 0, jax a value;
  ``norm.isf``: jax computes ``ppf(1 - q)``, inf for q below float eps (``isf(1e-20)``: SciPy 9.26);
- ``block_diag`` given a Python number (SciPy makes it float64 beside float32 blocks; jax keeps float32);
- a name bound to a tuple or list where jax needs an array (``b=w`` with ``w = (1.0, 2.0)``).

What stays different everywhere, as for ``np.linalg``: SciPy raises LinAlgError on a singular or indefinite
matrix and ValueError on inf/nan input (``check_finite``); jax returns inf/nan (NPJ118 reports handlers
that rely on it).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst

from np2jax.analysis.resolve import Resolver
from np2jax.analysis.scope import ParamBinding, Scope, ValueBinding
from np2jax.analysis.sequences import builds_list


@dataclass(frozen=True)
class Twin:
    target: str  # the jax function's qualified name
    positional: tuple[str, ...]  # the parameters that may be given by position, in SciPy's order (jax's agrees)
    keywords: frozenset[str] = frozenset()  # the others that may be given by keyword
    literals: dict[str, frozenset] = field(default_factory=dict)  # parameter -> the literal values allowed
    variadic: bool = False  # ``block_diag(*arrs)``: any number of positional arguments
    positive: frozenset[str] = frozenset()  # parameters given only as positive number literals


# Parameters jax needs known at trace time (the others are data).
STATIC_PARAMETERS = frozenset({"axis", "keepdims", "return_sign", "lower", "trans", "unit_diagonal", "mode",
                               "assume_a", "overwrite_a", "overwrite_b", "check_finite", "pivoting", "lwork"})


def _special(names: str, *parameters: str) -> dict[str, Twin]:
    return {f"scipy.special.{name}": Twin(f"jax.scipy.special.{name}", parameters) for name in names.split()}


_NORM = {f"scipy.stats.norm.{name}": Twin(f"jax.scipy.stats.norm.{name}", (first, "loc", "scale"),
                                           positive=frozenset({"scale"}))
         for name, first in [(name, "x") for name in "pdf logpdf cdf logcdf sf logsf".split()] + [("ppf", "q")]}

TWINS: dict[str, Twin] = {
    "scipy.linalg.inv": Twin("jax.scipy.linalg.inv", ("a",), frozenset({"overwrite_a", "check_finite"})),
    "scipy.linalg.expm": Twin("jax.scipy.linalg.expm", ("A",)),
    "scipy.linalg.cholesky": Twin("jax.scipy.linalg.cholesky", ("a", "lower"), frozenset({"overwrite_a", "check_finite"})),
    "scipy.linalg.solve": Twin("jax.scipy.linalg.solve", ("a", "b"),
                               frozenset({"lower", "overwrite_a", "overwrite_b", "check_finite", "assume_a"}),
                               {"assume_a": frozenset({"gen", "pos"})}),
    "scipy.linalg.solve_triangular": Twin("jax.scipy.linalg.solve_triangular", ("a", "b", "trans", "lower", "unit_diagonal"),
                                          frozenset({"overwrite_b", "check_finite"})),
    "scipy.linalg.qr": Twin("jax.scipy.linalg.qr", ("a",), frozenset({"overwrite_a", "lwork", "mode", "pivoting", "check_finite"}),
                            {"mode": frozenset({"full", "economic", "r"}), "pivoting": frozenset({False})}),
    "scipy.linalg.block_diag": Twin("jax.scipy.linalg.block_diag", (), variadic=True),
    **_special("expit logit erf erfc erfinv erfcx i0 i0e i1 i1e entr", "x"),
    **_special("ndtri", "p"),
    **_special("xlogy xlog1py", "x", "y"),
    "scipy.special.logsumexp": Twin("jax.scipy.special.logsumexp", ("a", "axis", "b", "keepdims", "return_sign")),
    "scipy.special.softmax": Twin("jax.scipy.special.softmax", ("x",), frozenset({"axis"})),
    "scipy.special.log_softmax": Twin("jax.scipy.special.log_softmax", ("x",), frozenset({"axis"})),
    **_NORM,
}


def twin_arguments(call: cst.Call, twin: Twin) -> list[tuple[cst.Arg, str | None]]:
    """Each argument of ``call`` with the parameter it gives (None: one of ``*arrs``, or one the twin lacks)."""
    found = []
    for position, arg in enumerate(a for a in call.args if a.keyword is None):
        found.append((arg, twin.positional[position] if position < len(twin.positional) else None))
    found.extend((arg, arg.keyword.value) for arg in call.args if arg.keyword is not None)
    return found


def _literal(node: cst.BaseExpression) -> object:
    """The value of a string, number, True/False/None literal; ``_literal`` itself when it is not one."""
    if isinstance(node, cst.SimpleString):
        return node.evaluated_value
    if isinstance(node, cst.Name) and node.value in ("True", "False", "None"):
        return {"True": True, "False": False, "None": None}[node.value]
    if isinstance(node, (cst.Integer, cst.Float)):
        return node.evaluated_value
    return _literal


def twin_for(call: cst.Call, qualname: str | None, resolver: Resolver, scope: Scope) -> Twin | None:
    """The jax twin of SciPy's ``call``, or None: only for listed functions, given only the arguments listed with
    them, in the values listed, and no list or tuple of values where jax needs an array."""
    twin = TWINS.get(qualname) if qualname else None
    if twin is None:
        return None
    for arg, name in twin_arguments(call, twin):
        if arg.star or (name is None and not twin.variadic) or (
                arg.keyword is not None and name not in twin.keywords and name not in twin.positional):
            return None
        if name in twin.literals and _literal(arg.value) not in twin.literals[name]:
            return None
        if name in twin.positive:
            value = _literal(arg.value)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
                return None
        if name not in STATIC_PARAMETERS and _sequence(arg.value, resolver, scope):
            return None  # (jax takes arrays, not lists of values)
        if twin.variadic and _literal(_number_operand(arg.value)) is not _literal:
            return None  # `block_diag(Q, 0.01)`: SciPy's float64 number, jax's weakly typed one
    return twin


def _number_operand(node: cst.BaseExpression) -> cst.BaseExpression:
    """``-0.5`` -> ``0.5``; anything else as it is."""
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, (cst.Minus, cst.Plus)):
        return node.expression
    return node


def _sequence(node: cst.BaseExpression, resolver: Resolver, scope: Scope) -> bool:
    """A list or tuple built here, or a name with a binding to one (also a parameter's default)."""
    if builds_list(node, resolver, scope) or isinstance(node, cst.Tuple):
        return True
    if not isinstance(node, cst.Name):
        return False
    _, bindings = scope.lookup(node.value)
    return any((isinstance(b, ValueBinding) and isinstance(b.value, (cst.Tuple, cst.List, cst.ListComp)))
               or (isinstance(b, ParamBinding) and isinstance(b.param.default, (cst.Tuple, cst.List)))
               for b in bindings)
