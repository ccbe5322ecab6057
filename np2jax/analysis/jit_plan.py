"""The tracing analysis's answer for one function: what ``jax.jit`` needs, or why it cannot have it.

``JitPlan`` is what the jit rules (NPJ300-NPJ308) read: the static parameters, the
blockers, and the loops and conditionals that become ``jax.lax`` control flow;
``jit_decorator`` spells the decorator a plan asks for.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst

from np2jax.analysis.conditionals import Conversion, Truth


@dataclass(frozen=True)
class Blocker:
    """Why a function cannot be jitted: the node Python would need a concrete value for, and what to say."""

    node: cst.CSTNode
    kind: str  # "traced-value" | "side-effect" | "loop"
    message: str
    use_instead: str
    objects: bool = False  # parameters hold Python objects (`d.simplify()`): jax.numpy cannot take them either


@dataclass(frozen=True)
class LoopConversion:
    """A ``for`` loop that becomes ``jax.lax.fori_loop``: the same operations, in the same order.

    ``kind`` is ``"range"`` (``for i in range(a, b)``), ``"reversed"`` (``range(a, b, -1)``: a fori_loop
    from ``-a`` to ``-b`` whose body starts with ``i = -k``), ``"iter"`` (``for v in xs``: ``v = xs[i]``)
    or ``"enumerate"`` (``for i, v in enumerate(xs)``) or ``"zip"`` (``for a, b in zip(xs, ys)``: ``a = xs[i]``,
    ``b = ys[i]``, the names in ``zipped``, for ``min(len(xs), len(ys))`` steps).  ``carried`` are the names the body
    assigns that exist before the loop, in order of first assignment.  ``collected`` are the
    lists it appends one value to per step: then it becomes ``jax.lax.scan`` (analysis/collect.py);
    ``starts`` their ``ys = []`` statements, which go away.
    """

    kind: str
    index: str
    value: str | None
    carried: tuple[str, ...]
    collected: tuple[str, ...] = ()
    starts: tuple[cst.Assign, ...] = ()
    peel: int = 0  # steps run before the fori_loop (a carried name starts as a Python value: see for_loops._steps_to_array)
    guard: bool = False  # it slices at its index (SliceWindow): it runs only if it has a step, under `if lower < upper:`
    masked: bool = False  # a sum over a prefix at its index reads full-length masked operands (PrefixMask)
    as_array: bool = False  # `for c in coeffs` of a parameter that may be a Python list: iterates jnp.asarray(coeffs)
    zipped: tuple[str, ...] = ()  # kind "zip": the names the elements get, one per zipped sequence


@dataclass(frozen=True)
class WhileConversion:
    """A convergence loop that becomes ``jax.lax.while_loop`` (analysis/while_loops.py, NPJ308).

    ``kind`` is ``"while"`` (``while test: body``), ``"break"`` (``for i in range(a, b): S1; if test:
    break; S2``: the carry gains the step counter and a ``done`` flag, and the names S2 assigns, ``after``,
    keep S1's values on the step that breaks) or ``"until"`` (``while True: S1; if test: break; S2``: S1
    runs once before ``while not test: S2; S1``).  ``carried`` are the names the body assigns that exist before
    the loop, in order of first assignment; ``truth`` how the (while or break) test gives Python's truth
    value (``returns``: the body's ``if test: return v`` stands for ``break`` before the ``return v`` right after the loop);
    ``guard``: the body indexes at the counter, so it runs under ``if a < b:`` (jax traces the body
    even for zero steps, where ``x[i]`` of an empty array raises).
    """

    kind: str
    carried: tuple[str, ...]
    truth: Truth
    index: str | None = None
    after: tuple[str, ...] = ()
    guard: bool = False
    returns: str = ""  # "break"/"step": the break is `if test: return v` right before `return w` (analysis/while_loops.py)


@dataclass(frozen=True)
class SliceWindow:
    """A slice ``x[i + a:i + b]`` at a fori_loop index that becomes ``jax.lax.dynamic_slice_in_dim``
    (analysis/slice_windows.py): its position in the subscript (its axis) and its static length, as code."""

    position: int
    size: str


@dataclass(frozen=True)
class PrefixMask:
    """A prefix ``x[:b]`` (or suffix ``x[b:]``) at a fori_loop index inside a sum of elementwise terms, which
    becomes the full-length ``jnp.where(k < b, x[:], False)`` (analysis/prefix_masks.py): its position in the
    subscript, the axis it becomes in the operand, which side is kept, and the bound, as code."""

    position: int
    axis: int
    suffix: bool
    bound: str


@dataclass
class JitPlan:
    """What ``jax.jit`` needs for one function, or why it cannot have it."""

    static: list[str] = field(default_factory=list)  # parameter names, in signature order
    static_argnums: tuple[int, ...] = ()
    static_argnames: tuple[str, ...] = ()  # keyword-only static parameters
    blockers: list[Blocker] = field(default_factory=list)
    returns_array: bool = False
    loops: dict[cst.For, LoopConversion] = field(default_factory=dict)
    whiles: dict[cst.While | cst.For, WhileConversion] = field(default_factory=dict)  # -> jax.lax.while_loop
    conditionals: dict[cst.CSTNode, Conversion] = field(default_factory=dict)  # If / IfExp -> jax.lax.cond
    windows: dict[cst.Subscript, tuple[SliceWindow, ...]] = field(default_factory=dict)  # -> dynamic_slice_in_dim
    prefixes: dict[cst.Subscript, PrefixMask] = field(default_factory=dict)  # -> jnp.where(iota < bound, ...)
    # values Python needs as Python values even un-jitted, with their scopes (analysis/eager_values.py)
    python_values: list[tuple[cst.BaseExpression, object]] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.blockers


def jit_decorator(plan: JitPlan) -> str:
    """The decorator expression (without ``@``) for ``plan``."""
    if not plan.static_argnums and not plan.static_argnames:
        return "jax.jit"
    parts = ["jax.jit"]
    if plan.static_argnums:
        parts.append(f"static_argnums=({', '.join(map(str, plan.static_argnums))}{',' if len(plan.static_argnums) == 1 else ''})")
    if plan.static_argnames:
        names = ", ".join(repr(n).replace("'", '"') for n in plan.static_argnames)
        parts.append(f"static_argnames=({names}{',' if len(plan.static_argnames) == 1 else ''})")
    return f"functools.partial({', '.join(parts)})"
