"""Which values are JAX arrays once migrated, whatever the function's arguments are?

A jitted function only ever sees JAX arrays (``jax.jit`` turns NumPy arguments
into tracers), so ``x = x.at[i].set(v)`` works on anything it computes.  A
function that is migrated but *not* jitted (a method, a function with a
``print`` or a loop np2jax cannot convert) runs on whatever its caller passes:
``x = xs.copy()`` or ``b = a * 1.0`` of a NumPy argument is still a NumPy
array, which has no ``.at``.  The functional-update rewrite therefore reads
such an array through ``jnp.asarray`` unless every binding of it makes a JAX
array: a NumPy constructor (which np2jax turns into its jax.numpy twin) or a
jax.numpy call.
"""

from __future__ import annotations

import libcst as cst

from np2jax.analysis.resolve import Resolver, is_numpy
from np2jax.analysis.scope import Scope, every_value_made
from np2jax.tables import lookup_numpy


def makes_jax_array(expr: cst.BaseExpression, resolver: Resolver, scope: Scope) -> bool:
    """``expr``, migrated, is certainly a JAX array: a NumPy constructor or jax.numpy call (``np.zeros(n)``,
    ``jnp.asarray(x)``), arithmetic with one (JAX arrays win over NumPy's: ``np.eye(2) * 10.0``), or a
    method, attribute or element of one (``np.eye(n).T``)."""
    if isinstance(expr, cst.BinaryOperation):
        return makes_jax_array(expr.left, resolver, scope) or makes_jax_array(expr.right, resolver, scope)
    if isinstance(expr, cst.UnaryOperation):
        return makes_jax_array(expr.expression, resolver, scope)
    if isinstance(expr, (cst.Attribute, cst.Subscript)):
        return makes_jax_array(expr.value, resolver, scope)
    if not isinstance(expr, cst.Call):
        return False
    if isinstance(expr.func, cst.Attribute) and makes_jax_array(expr.func.value, resolver, scope):
        return True  # a method of a JAX array
    qualname = resolver.qualname(expr.func, scope) or ""
    if qualname.startswith("jax.numpy."):
        return True
    if not is_numpy(qualname):
        return False
    row = lookup_numpy(qualname)
    return row is not None and row.kind == "constructor" and bool(row.jax)


def name_holds_jax_array(name: str, scope: Scope, resolver: Resolver) -> bool:
    """Every binding of ``name`` (augmented assignments aside, which keep the kind of array) makes a JAX array."""
    return every_value_made(name, scope, lambda value, found: makes_jax_array(value, resolver, found))


# NumPy functions that make a NumPy array of what they are given: on a JAX result, a hand-back to NumPy code.
HOST_CONVERSIONS = frozenset(
    {"numpy.asarray", "numpy.array", "numpy.asanyarray", "numpy.ascontiguousarray", "numpy.asfortranarray"})


def computed_by_jax(expr: cst.BaseExpression, resolver: Resolver, scope: Scope) -> bool:
    """``expr`` is, before any migration, the result of a JAX call: ``jnp.sum(x)``, ``jax.vmap(f)(x)``, or a call of a
    name every binding of which is one (``jfn = jax.jit(fn)`` then ``jfn(*arrays)``)."""
    if not isinstance(expr, cst.Call):
        return False
    func = expr.func
    if isinstance(func, cst.Call):
        return _jax_callable(func.func, resolver, scope)  # `jax.jit(f)(x)`
    if _jax_callable(func, resolver, scope):
        return True
    return isinstance(func, cst.Name) and every_value_made(
        func.value, scope, lambda value, found: isinstance(value, cst.Call) and _jax_callable(value.func, resolver, found))


def _jax_callable(func: cst.BaseExpression, resolver: Resolver, scope: Scope) -> bool:
    qualname = resolver.qualname(func, scope) or ""
    return qualname == "jax" or qualname.startswith("jax.")
