"""Writes to an array's own attributes: ``y.shape = (2, -1)``, ``z.real = x``, ``z.imag += 1``, ``a.flat = 0``.

NumPy lets code set an array's ``shape``, ``strides``, ``data``, ``dtype``, ``real``, ``imag`` and ``flat``:
each changes the array in place (its elements, or how they are read), and every other name that refers
to it sees the change.  A jax array has no setter for any of them (``AttributeError``).  Only
``y.shape = s`` on a local array that no other name or view can observe has an exact functional form,
``y = y.reshape(s)``: the same elements in the same order, the same dtype.  The others are reported.
"""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from np2jax.analysis.aliasing import FunctionAliasing, array_evidence, is_fresh_array
from np2jax.analysis.scope import ParamBinding, ValueBinding
from np2jax.cstutil import target_parts

# ndarray attributes that NumPy lets code set.
SETTABLE = frozenset("shape strides data dtype real imag flat".split())
# ... and those a custom object often has too: setting them says nothing about the object being an array.
COMMON_NAMES = frozenset({"shape", "dtype", "data"})


# What to write instead, per attribute.
INSTEAD = {
    "shape": "y = y.reshape(shape), on an array no other name refers to",
    "real": "build the array from its parts: z = jax.lax.complex(x, z.imag)",
    "imag": "build the array from its parts: z = jax.lax.complex(z.real, y)",
    "flat": "a = jnp.full_like(a, v), or a = a.ravel().at[i].set(v).reshape(a.shape)",
    "dtype": "y = jax.lax.bitcast_convert_type(y, dtype) (the same bytes read as another type)",
}


@dataclass(frozen=True)
class AttributeWrite:
    target: cst.Attribute  # `y.shape`
    name: str  # `y` (the code of the array written to)
    blocker: str | None  # None: `y = y.reshape(s)` is exact

    @property
    def instead(self) -> str:
        return INSTEAD.get(self.target.attr.value, "build a new array instead of changing this one")


def plan_attribute_writes(node: cst.BaseSmallStatement, aliasing: FunctionAliasing, _classifier=None) -> list[AttributeWrite]:
    """The writes of ``node`` (an assignment or augmented assignment) into a settable attribute of an array."""
    if isinstance(node, cst.Assign):
        targets = [t for target in node.targets for t in target_parts(target.target)]
    elif isinstance(node, cst.AugAssign):
        targets = [node.target]
    else:
        return []
    writes = []
    for target in targets:
        if not (isinstance(target, cst.Attribute) and target.attr.value in SETTABLE and _is_array(target, aliasing)):
            continue
        name = cst.Module([]).code_for_node(target.value)
        reshape = (isinstance(node, cst.Assign) and len(node.targets) == 1 and target.attr.value == "shape"
                   and isinstance(target.value, cst.Name) and _unshared_local(target.value.value, node, aliasing))
        writes.append(AttributeWrite(target, name, None if reshape else (
            f"`{name}.{target.attr.value} {'=' if isinstance(node, cst.Assign) else cst.Module([]).code_for_node(node.operator).strip()} ...` "
            f"changes the array in place in NumPy; a jax array's `.{target.attr.value}` cannot be set"
            + (f", and `{name}` may be seen through another name, a view or the caller" if target.attr.value == "shape" else ""))))
    return writes




def _is_array(target: cst.Attribute, aliasing: FunctionAliasing) -> bool:
    """Is the object whose attribute is set an array (so the attribute is NumPy's, not a class's own)?"""
    receiver = target.value
    if isinstance(receiver, cst.Attribute):
        return aliasing.attributes is not None and aliasing.attributes.is_array(aliasing.function, receiver)
    if not isinstance(receiver, cst.Name):
        return False
    name = receiver.value
    if aliasing.is_container(name):
        return False
    if aliasing.holds_numpy_array(name, strict=True):
        return True
    bindings = aliasing.scope.bindings.get(name, ())
    values = [b.value for b in bindings if isinstance(b, ValueBinding) and not b.augmented]
    if values and all(is_fresh_array(v, aliasing.resolver, aliasing.scope) for v in values):
        return True
    # used like an array (`x.sum()`, `x[0]`), or a function's result; `.shape = ...` is no proof that the object
    # is an array (a class may have its own `shape`), and it counts as a use
    evidence = array_evidence(aliasing.function, aliasing.resolver, aliasing.scope)
    return target.attr.value not in COMMON_NAMES and (name in evidence.used or aliasing.bound_to_call(name))


def _unshared_local(name: str, node: cst.BaseSmallStatement, aliasing: FunctionAliasing) -> bool:
    """``name`` is a local array always bound to a fresh array that no other name, view or caller can see."""
    if any(isinstance(b, ParamBinding) for b in aliasing.scope.bindings.get(name, ())):
        return False
    return aliasing.blocker(name, node) is None
