"""Calls that change a local array in place and have an exact functional form.

``np.add.at(x, idx, v)`` adds ``v`` at every listed index, repeats included
(unbuffered); ``x = x.at[idx].add(v)`` does the same (repeats accumulate in
JAX's scatter-add).  Likewise:

* ``np.subtract.at`` / ``np.multiply.at`` / ``np.minimum.at`` / ``np.maximum.at``
  -> ``.at[idx].subtract / multiply / min / max``;
* ``x.fill(v)`` -> ``x = jnp.full_like(x, v)`` (same shape and dtype);
* ``x.sort()`` / ``x.sort(axis=k)`` -> ``x = jnp.sort(x, axis=k)`` (NaN last in both);
* ``np.fill_diagonal(a, v)`` -> ``a = jnp.fill_diagonal(a, v, inplace=False)``;
* ``np.copyto(dst, src)`` -> ``dst = jnp.broadcast_to(jnp.asarray(src, dst.dtype), dst.shape)``; with
  ``where=m``, ``dst = jnp.where(m, jnp.asarray(src, dst.dtype), dst).reshape(dst.shape)`` (NumPy broadcasts
  ``src`` and ``m`` to ``dst``'s shape, dropping extra leading axes of length 1: the reshape drops them too, and
  raises where NumPy does, on other extra axes);
* ``np.putmask(a, mask, number)`` -> ``a = jnp.where(mask, jnp.asarray(number, a.dtype), a)``;
* ``np.f(..., out=y)`` -> ``y = jnp.f(...).astype(y.dtype)`` (NumPy casts into ``out``'s dtype; its
  shape must already be the result's); with ``where=m``, which keeps ``y``'s old values elsewhere,
  ``y = jnp.where(m, jnp.f(...), y).astype(y.dtype)``;
* ``x.clip(lo, hi, out=x)`` / ``x.round(k, out=x)`` -> ``x = x.clip(lo, hi)``.

Each is exact only when rebinding the name is all the in-place change did:
the call is a statement of its own, the array is a local name that no other
name, view or container can see (the same test as for ``x[i] = v``), and not
a parameter (the caller's array would no longer change).  Method forms need
evidence that the name holds a NumPy array (``lst.sort()`` sorts a list).
Anything else keeps its diagnostic (NPJ111, NPJ201).
"""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from np2jax.analysis.aliasing import FunctionAliasing
from np2jax.analysis.narrow_dtypes import rebound_first
from np2jax.analysis.resolve import is_numpy
from np2jax.analysis.scope import ParamBinding, ValueBinding, dotted_name
from np2jax.analysis.value_kinds import literal_value
from np2jax.tables import lookup_numpy
from np2jax.tables.ufunc_arity import UFUNC_ARITY

UFUNC_AT = {"add": "add", "subtract": "subtract", "multiply": "multiply", "minimum": "min", "maximum": "max"}
OUT_METHODS = frozenset({"clip", "round"})  # `x.clip(lo, hi, out=x)`: the method's result, rebound
# ndarray methods taking `out=` that jax arrays have (without it): `A.sum(axis=0, out=s)` is
# `s = A.sum(axis=0).astype(s.dtype)`, `ii.cumsum(axis=0, out=ii)` is `ii = ii.cumsum(axis=0).astype(ii.dtype)`
OUT_ARRAY_METHODS = frozenset(
    "sum prod cumsum cumprod mean std var min max argmin argmax any all dot take trace conj conjugate clip round".split())
FUNCTIONS = {"numpy.fill_diagonal": 2, "numpy.copyto": 2, "numpy.putmask": 3}  # -> positional arguments


@dataclass(frozen=True)
class InplaceCall:
    name: str  # the array the call changes
    kind: str  # "at", "fill", "sort", "fill_diagonal", "copyto", "copyto_where", "putmask", "out", "out_where",
    #            "out_method", "out_positional"
    method: str = ""  # for "at": the `.at[]` method
    attribute: cst.Attribute | None = None  # for "at": `self.counts` in a method, when it is the array changed


_NAMES = frozenset({"at", "fill", "sort", "fill_diagonal", "copyto", "putmask"}) | OUT_METHODS
# NumPy's ufuncs and how many inputs each takes: one more positional argument is `out` (`np.negative(q, q)`).
# (One output only: `np.divmod(a, 3, q)` writes the quotient, and jnp.divmod returns both.)
UFUNC_INPUTS = {name: nin for name, (nin, nout) in UFUNC_ARITY.items() if nout == 1}


def _positional_out(call: cst.Call, name: str | None) -> bool:
    """``np.add(a, b, a)``, ``np.negative(q, q)``: a ufunc given its output array by position."""
    if name not in UFUNC_INPUTS or not all(arg.keyword is None for arg in call.args):
        return False
    return sum(1 for arg in call.args if not arg.star) == UFUNC_INPUTS[name] + 1


def may_be_inplace_call(call: cst.Call) -> bool:
    """A cheap first look, before any analysis: ``x.sort()``, ``np.add.at(...)``, ``np.copyto(...)``, ``out=``."""
    func = call.func
    name = func.attr.value if isinstance(func, cst.Attribute) else func.value if isinstance(func, cst.Name) else None
    return name in _NAMES or any(arg.keyword is not None and arg.keyword.value == "out" for arg in call.args) or (
        _positional_out(call, name))


def plan_inplace_call(statement: cst.BaseSmallStatement, aliasing: FunctionAliasing) -> InplaceCall | None:
    """The functional form of ``statement``, a call changing a local array in place; None if it has none."""
    if not isinstance(statement, cst.Expr) or not isinstance(statement.value, cst.Call):
        return None
    call = statement.value
    if any(arg.star for arg in call.args):
        return None
    found = _recognise(call, aliasing) or _attribute_at(call, aliasing)
    if found is None:
        return None
    if found.attribute is None and not _rebinding_is_enough(found.name, statement, aliasing):
        return None
    if found.kind in ("fill", "sort") and found.attribute is None and not (aliasing.holds_numpy_array(found.name, strict=True)
                                             or aliasing.arithmetic_array(found.name) or _copy_of_parameter(found.name, aliasing)):
        return None
    return found


def _copy_of_parameter(name: str, aliasing: FunctionAliasing) -> bool:
    """Every binding of ``name`` is ``p.copy()`` of a parameter not annotated or defaulted as a Python sequence, or
    of a slice or element of one (``x[:3].copy()``), or of a slice of a local NumPy array (``padded[i:i + k].copy()``
    of ``padded = np.pad(...)``): ``y = x.copy(); y.sort()`` sorts an array's copy (a list given there makes the
    rewritten `jnp.sort` raise, loudly)."""
    from np2jax.analysis.sequences import sequence_annotation  # (sequences imports much of analysis)

    bindings = aliasing.scope.bindings.get(name, ())
    if not bindings:
        return False
    for binding in bindings:
        value = binding.value if isinstance(binding, ValueBinding) and not binding.augmented else None
        if not (isinstance(value, cst.Call) and not value.args and isinstance(value.func, cst.Attribute)
                and value.func.attr.value == "copy"):
            return False
        source, sliced = value.func.value, False
        while isinstance(source, cst.Subscript):
            source, sliced = source.value, True
        if not isinstance(source, cst.Name) or source.value == name:
            return False
        sources = aliasing.scope.bindings.get(source.value, ())
        if sliced and aliasing.holds_numpy_array(source.value, strict=True):
            continue
        if not sources or not all(isinstance(b, ParamBinding) and not sequence_annotation(b.param.annotation)
                                  and not isinstance(b.param.default, (cst.List, cst.Tuple)) for b in sources):
            return False
    return True


def _attribute_at(call: cst.Call, aliasing: FunctionAliasing) -> InplaceCall | None:
    """``np.add.at(self.counts, idx, 1)`` in a method, on an array attribute that no other reference can see (the
    rules of ``self.x[i] += v``, analysis/attributes.py): ``self.counts = self.counts.at[idx].add(1)``, exact; a
    NumPy function writing into such an attribute with ``out=`` (its result, cast to the attribute's dtype); and its
    ``.fill(v)`` and ``.sort()`` (``self.w = jnp.full_like(self.w, v)``)."""
    positional = [arg.value for arg in call.args if arg.keyword is None]
    keywords = {arg.keyword.value: arg.value for arg in call.args if arg.keyword is not None}
    out = keywords.get("out")
    if isinstance(out, cst.Attribute) and set(keywords) == {"out"} and aliasing.attributes is not None:
        # `np.minimum(self.min, x, out=self.min)`: `self.min = jnp.minimum(self.min, x).astype(self.min.dtype)`
        qualname = aliasing.resolver.qualname(call.func, aliasing.scope) or ""
        row = lookup_numpy(qualname) if is_numpy(qualname) and not qualname.endswith(".at") else None
        if (row is None or row.jax is None or not aliasing.attributes.is_array(aliasing.function, out)
                or aliasing.attribute_blocker(out) is not None):
            return None
        return InplaceCall(dotted_name(out) or "", "out", attribute=out)
    func = call.func
    if (isinstance(func, cst.Attribute) and func.attr.value in ("fill", "sort") and isinstance(func.value, cst.Attribute)
            and aliasing.attributes is not None and aliasing.resolver.qualname(func, aliasing.scope) is None):
        target = func.value  # `self.w.fill(c)` (hunt52 FP1), `self.order.sort()`: the attribute gets the new array
        if (not aliasing.attributes.is_array(aliasing.function, target) or aliasing.attribute_blocker(target) is not None
                or (func.attr.value == "fill" and (len(positional) != 1 or keywords))
                or (func.attr.value == "sort" and (len(positional) + len(keywords) > 2 or not set(keywords) <= {"axis", "kind"}
                                                   or (len(positional) == 2 and keywords)))):
            return None
        return InplaceCall(dotted_name(target) or "", func.attr.value, attribute=target)
    if len(positional) != 3 or len(call.args) != 3 or not isinstance(positional[0], cst.Attribute) or aliasing.attributes is None:
        return None
    parts = (aliasing.resolver.qualname(call.func, aliasing.scope) or "").split(".")
    if not (len(parts) == 3 and parts[0] == "numpy" and parts[2] == "at" and parts[1] in UFUNC_AT):
        return None
    target = positional[0]
    if not aliasing.attributes.is_array(aliasing.function, target) or aliasing.attribute_blocker(target) is not None:
        return None
    return InplaceCall(dotted_name(target) or "", "at", UFUNC_AT[parts[1]], attribute=target)


def _recognise(call: cst.Call, aliasing: FunctionAliasing) -> InplaceCall | None:
    func = call.func
    positional = [arg.value for arg in call.args if arg.keyword is None]
    keywords = {arg.keyword.value: arg.value for arg in call.args if arg.keyword is not None
                and not (arg.keyword.value == "out" and isinstance(arg.value, cst.Name) and arg.value.value == "None")}
    out = keywords.get("out")  # (`out=None`, NumPy's default, writes nothing: hunt53 FP2)
    if (isinstance(func, cst.Attribute) and func.attr.value in OUT_METHODS and isinstance(func.value, cst.Name)
            and aliasing.resolver.qualname(func, aliasing.scope) is None  # `np.clip(x, lo, hi, out=x)` is a function
            and isinstance(out, cst.Name) and out.value == func.value.value and set(keywords) == {"out"}):
        return InplaceCall(out.value, "out_method")
    if (isinstance(func, cst.Attribute) and func.attr.value in OUT_ARRAY_METHODS and out is not None
            and aliasing.resolver.qualname(func, aliasing.scope) is None):  # (not `np.sum(..., out=s)`: below)
        return InplaceCall(out.value, "out") if isinstance(out, cst.Name) and "where" not in keywords else None
    if isinstance(func, cst.Attribute) and func.attr.value in ("fill", "sort") and isinstance(func.value, cst.Name):
        qualname = aliasing.resolver.qualname(func, aliasing.scope)
        if qualname is not None:  # `np.sort`, a module's function: not a method
            return None
        if func.attr.value == "fill" and len(positional) == 1 and not keywords:
            return InplaceCall(func.value.value, "fill")
        if func.attr.value == "sort" and len(positional) + len(keywords) <= 2 and set(keywords) <= {"axis", "kind"} and (
                len(positional) < 2 or not keywords):
            return InplaceCall(func.value.value, "sort")  # (sorted values are the same whatever `kind` sorts them)
        return None
    qualname = aliasing.resolver.qualname(func, aliasing.scope) or ""
    if isinstance(out, cst.Name) and is_numpy(qualname) and not qualname.endswith(".at"):
        row = lookup_numpy(qualname)
        kind = "out_where" if "where" in keywords else "out"
        return InplaceCall(out.value, kind) if row is not None and row.jax is not None else None
    if (is_numpy(qualname) and qualname.count(".") == 1 and _positional_out(call, qualname[len("numpy."):])
            and isinstance(positional[-1], cst.Name)):
        return InplaceCall(positional[-1].value, "out_positional")  # `np.negative(q, q)`: its result, into `q`
    if (qualname == "numpy.copyto" and set(keywords) == {"where"} and len(positional) == 2
            and isinstance(positional[0], cst.Name)):
        return InplaceCall(positional[0].value, "copyto_where")
    if keywords or not positional or not isinstance(positional[0], cst.Name):
        return None
    name = positional[0].value
    parts = qualname.split(".")
    if len(parts) == 3 and parts[0] == "numpy" and parts[2] == "at" and parts[1] in UFUNC_AT and len(positional) == 3:
        return InplaceCall(name, "at", UFUNC_AT[parts[1]])
    if FUNCTIONS.get(qualname) == len(positional):
        kind = qualname.rsplit(".", 1)[1]
        if kind == "putmask" and literal_value(positional[2]) is None:
            return None  # an array of values is repeated along the masked places: no jnp.where twin
        return InplaceCall(name, kind)
    return None


FRESH_CONSTANT_ARRAYS = frozenset({"zeros", "zeros_like", "ones", "ones_like", "full", "full_like"})


def masked_into_fresh(call: cst.Call, resolver, scope) -> bool:
    """``np.divide(a, b, out=np.zeros_like(a), where=b != 0)``: a ufunc written into a new constant array
    where ``where`` holds; elsewhere the array keeps its constant.  That is
    ``jnp.where(b != 0, jnp.divide(a, b), jnp.zeros_like(a)).astype(a.dtype)`` (the walker writes it): the
    result is computed everywhere and picked where the mask holds, so a division by zero or a log of a
    negative number outside the mask is computed and dropped, never seen; and cast to the constant array's
    dtype, as NumPy casts what it writes into ``out`` (``constant_dtype``)."""
    keywords = {arg.keyword.value: arg.value for arg in call.args if arg.keyword is not None}
    out = keywords.get("out")
    if "where" not in keywords or not isinstance(out, cst.Call) or any(arg.star for arg in call.args):
        return False
    qualname = resolver.qualname(call.func, scope) or ""
    made = resolver.qualname(out.func, scope) or ""
    return (is_numpy(qualname) and qualname.count(".") == 1 and is_numpy(made)
            and made.rsplit(".", 1)[1] in FRESH_CONSTANT_ARRAYS and not any(arg.star for arg in out.args)
            and constant_dtype(out) is not None)


def constant_dtype(made: cst.Call) -> cst.BaseExpression | None:
    """The dtype of a new constant array, which NumPy casts the ufunc's result to: its ``dtype=``, the array
    a ``*_like`` copies the shape of (``a.dtype``, for a name or attribute), or ``float`` for ``zeros``/``ones``
    (NumPy's float64; JAX's default float); None when the source does not tell (``np.full(n, 0)``)."""
    for arg in made.args:
        if arg.keyword is not None and arg.keyword.value == "dtype":
            return arg.value
    name = made.func.attr.value if isinstance(made.func, cst.Attribute) else made.func.value if isinstance(made.func, cst.Name) else ""
    if name.endswith("_like") and made.args and isinstance(made.args[0].value, (cst.Name, cst.Attribute)):
        return cst.Attribute(value=made.args[0].value, attr=cst.Name("dtype"))
    return cst.Name("float") if name in ("zeros", "ones") else None


def _rebinding_is_enough(name: str, statement: cst.CSTNode, aliasing: FunctionAliasing) -> bool:
    """``name`` is a local array only this name refers to: rebinding it changes all there is to change."""
    bindings = aliasing.scope.bindings.get(name, ())
    if any(isinstance(b, ParamBinding) for b in bindings) and rebound_first(aliasing.function, name):
        bindings = [b for b in bindings if not isinstance(b, ParamBinding)]  # `counts = counts.copy()` first thing
    if not bindings or any(isinstance(b, ParamBinding) for b in bindings) or aliasing.is_container(name):
        return False
    return aliasing.blocker(name, statement) is None
