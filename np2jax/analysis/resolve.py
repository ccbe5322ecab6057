"""Qualified names and "static or traced?" for expressions inside a module.

``qualname`` answers "which library object does this expression name?"
through scopes (never by spelling).  ``is_static`` answers "is this value
known when ``jax.jit`` traces the function?": literals, shapes, ``len()``,
dtypes, module-level objects and anything computed only from those.  Function
parameters are not static here (the jit rule decides which ones become
``static_argnums``), so values derived from them count as possibly traced.
"""

from __future__ import annotations

import functools

import libcst as cst

from np2jax.analysis.scope import (
    BUILTIN_NAMES,
    DefBinding,
    ImportBinding,
    LoopBinding,
    ParamBinding,
    Scope,
    ValueBinding,
    attribute_chain,
)
from np2jax.tables import lookup_numpy
from np2jax.visitors import named_calls

SHAPE_ATTRIBUTES = frozenset({"shape", "ndim", "size", "dtype", "itemsize", "nbytes"})
STATIC_BUILTINS = frozenset(
    {
        "len", "range", "int", "float", "bool", "str", "abs", "min", "max", "round", "sum", "tuple",
        "list", "enumerate", "zip", "reversed", "sorted", "divmod", "pow", "isinstance", "type",
        "slice", "map", "all", "any", "hash", "getattr", "hasattr", "complex", "dict", "set",
    }
)
# Whatever the argument, these give a value fixed at trace time.
SHAPE_FUNCTIONS = frozenset({"len", "isinstance", "type", "hasattr"})
STATIC_NUMPY_KINDS = frozenset({"function", "dtype", "static", "constant", "type"})
_LITERALS = (
    cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString, cst.ConcatenatedString,
    cst.FormattedString, cst.Ellipsis, cst.Lambda,
)
_LITERAL_TYPES = frozenset(_LITERALS)  # (none has subclasses: an exact-type test answers as isinstance does)


# Parameters with these names hold shapes, axes or dimension counts: Python values, static under jit.
SHAPE_PARAMETER_NAMES = frozenset({"shape", "dims", "axes", "axis", "ndim", "ndims", "newshape", "new_shape"})


def is_shape_name(name: str) -> bool:
    return name in SHAPE_PARAMETER_NAMES or name.endswith("_shape") or name.endswith("_axis") or name.endswith("_axes")


@functools.cache
def numpy_star_names() -> frozenset[str]:
    """The names ``from numpy import *`` binds with the installed NumPy (imported only when needed)."""
    import numpy

    return frozenset(getattr(numpy, "__all__", ()))


def is_numpy(qualname: str | None) -> bool:
    return qualname is not None and (qualname == "numpy" or qualname.startswith("numpy."))


def is_scipy(qualname: str | None) -> bool:
    return qualname is not None and (qualname == "scipy" or qualname.startswith("scipy."))


_NO_QUALNAME = object()


class Resolver:
    """Name resolution and static-ness for one module."""

    def __init__(self, scopes: dict[cst.CSTNode, Scope]) -> None:
        self.scopes = scopes
        self._static_cache: dict[tuple[int, int], bool] = {}
        self._qualnames: dict[tuple[str, int], tuple[Scope, str | None]] = {}  # see name_qualname
        self.memo: dict[str, dict] = {}  # per-module results of analyses keyed by node (see values.function_nodes)
        self.traced_loops: set[cst.BaseExpression] = set()  # iterables of loops jit turns into fori_loop/scan
        # other modules' tables of literals as this module spells them (`consts.WHITE`) -> their kind
        # ("mapping", "sequence", with " rows" when every entry is a list or tuple: state_writes.module_tables)
        self.tables: dict[str, str] = {}
        # imported functions whose migrated results are inexact under XLA (name as imported -> NPJ120's example and
        # advice; project.py's "inexact" facts)
        self.inexact_imports: dict[str, tuple[str, str]] = {}

    def table_kind(self, node: cst.BaseExpression, scope: Scope) -> str | None:
        """What another module's table ``node`` names is (``consts.WHITE``, or ``WHITE`` imported), if it is one."""
        if not self.tables:
            return None
        parts = attribute_chain(node)
        if parts is None:
            return None
        found, _ = scope.lookup(parts[0])
        if found is None or found.kind != "module":
            return None
        return self.tables.get(".".join(parts))

    def calls_by_name(self, module: cst.Module) -> dict[str, list[tuple[cst.Call, cst.FunctionDef | None]]]:
        """The module's calls ``name(...)`` by name, with the function each is in (visitors.named_calls), once."""
        memo = self.memo.setdefault("calls_by_name", {})
        if module not in memo:
            memo[module] = named_calls(module)
        return memo[module]

    def trace_loops(self, iterables) -> None:
        """The loops over ``iterables`` become fori_loop/scan bodies: the names they bind are traced values."""
        new = set(iterables) - self.traced_loops
        if new:
            self.traced_loops |= new
            self._static_cache.clear()

    # --- names ----------------------------------------------------------
    def name_qualname(self, name: str, scope: Scope) -> str | None:
        """What ``name`` names from ``scope``, once per (name, scope): the scopes never change after collection."""
        key = (name, id(scope))
        entry = self._qualnames.get(key)
        if entry is not None and entry[0] is scope:
            return entry[1]
        qualname = self._name_qualname(name, scope)
        self._qualnames[key] = (scope, qualname)
        return qualname

    def _name_qualname(self, name: str, scope: Scope) -> str | None:
        found, bindings = scope.lookup(name)
        if found is None:
            module = scope.module
            if "numpy" in module.star_imports and name in numpy_star_names():
                return f"numpy.{name}"
            return f"builtins.{name}" if name in BUILTIN_NAMES else None
        # the one qualname of its bindings when every one is an import (of the same thing), else None
        qualname = _NO_QUALNAME
        for binding in bindings:
            if not isinstance(binding, ImportBinding):
                return None
            if qualname is _NO_QUALNAME:
                qualname = binding.qualname
            elif binding.qualname != qualname:
                return None
        return None if qualname is _NO_QUALNAME else qualname

    def qualname(self, node: cst.BaseExpression, scope: Scope) -> str | None:
        parts = attribute_chain(node)
        if parts is None:
            return None
        base = self.name_qualname(parts[0], scope)
        if base is None:
            return None
        return ".".join([base, *parts[1:]])

    # --- static or traced -------------------------------------------------
    def is_static(self, node: cst.BaseExpression, scope: Scope) -> bool:
        key = (id(node), id(scope))
        cached = self._static_cache.get(key)
        if cached is not None:
            return cached
        self._static_cache[key] = True  # coinductive: a cycle alone does not make a value traced
        result = self._is_static(node, scope)
        self._static_cache[key] = result
        return result

    def _is_static(self, node: cst.BaseExpression, scope: Scope) -> bool:
        if type(node) in _LITERAL_TYPES:
            return True
        if isinstance(node, cst.Name):
            return self._name_is_static(node.value, scope)
        if isinstance(node, cst.Attribute):
            if node.attr.value in SHAPE_ATTRIBUTES:
                return True
            qualname = self.qualname(node, scope)
            if qualname is not None:
                return True  # an attribute of an imported module
            return self.is_static(node.value, scope)
        if isinstance(node, cst.Subscript):
            return self.is_static(node.value, scope) and all(
                self._slice_is_static(element.slice, scope) for element in node.slice
            )
        if isinstance(node, cst.BinaryOperation):
            return self.is_static(node.left, scope) and self.is_static(node.right, scope)
        if isinstance(node, cst.UnaryOperation):
            return self.is_static(node.expression, scope)
        if isinstance(node, cst.BooleanOperation):
            return self.is_static(node.left, scope) and self.is_static(node.right, scope)
        if isinstance(node, cst.Comparison):
            return self.is_static(node.left, scope) and all(
                self.is_static(target.comparator, scope) for target in node.comparisons
            )
        if isinstance(node, (cst.Tuple, cst.List, cst.Set)):
            return all(self.is_static(element.value, scope) for element in node.elements)
        if isinstance(node, cst.Dict):
            return all(
                isinstance(element, cst.DictElement)
                and self.is_static(element.key, scope)
                and self.is_static(element.value, scope)
                for element in node.elements
            )
        if isinstance(node, cst.IfExp):
            return all(self.is_static(part, scope) for part in (node.test, node.body, node.orelse))
        if isinstance(node, cst.Call):
            return self._call_is_static(node, scope)
        return False

    def _slice_is_static(self, index: cst.BaseSlice, scope: Scope) -> bool:
        if isinstance(index, cst.Index):
            return self.is_static(index.value, scope)
        return all(part is None or self.is_static(part, scope) for part in (index.lower, index.upper, index.step))

    def _call_is_static(self, node: cst.Call, scope: Scope) -> bool:
        qualname = self.qualname(node.func, scope)
        if qualname is None:
            return False
        if qualname.startswith("builtins."):
            name = qualname[len("builtins."):]
            if name in SHAPE_FUNCTIONS:
                return True
            if name not in STATIC_BUILTINS:
                return False
        elif qualname.startswith("math."):
            pass
        elif is_numpy(qualname):
            row = lookup_numpy(qualname)
            if row is None or row.kind not in STATIC_NUMPY_KINDS:
                return False
        else:
            return False
        return self.args_static(node, scope)

    def args_static(self, node: cst.Call, scope: Scope) -> bool:
        return all(self.is_static(arg.value, scope) for arg in node.args)

    def _grown(self, name: str, scope: Scope) -> bool:
        """Is list ``name`` of function ``scope`` appended/extended with values that are not static?"""
        from np2jax.analysis.values import grown_at_run_time  # values builds on this module

        memo = self.memo.setdefault("grown", {})
        key = (scope.node, name)
        if key not in memo:
            memo[key] = False  # while it is being decided (an append of the list's own items)
            memo[key] = grown_at_run_time(name, scope, self)
        return memo[key]

    def _name_is_static(self, name: str, scope: Scope) -> bool:
        if name in ("True", "False", "None"):
            return True
        found, bindings = scope.lookup(name)
        if found is None:
            return name in BUILTIN_NAMES
        if found.kind in ("module", "class"):
            return True  # known when the function is traced (mutable globals are another rule's concern)
        for binding in bindings:
            if isinstance(binding, (ImportBinding, DefBinding)):
                continue
            if isinstance(binding, ValueBinding):
                if not self.is_static(binding.value, found):
                    return False
                if found.kind == "function" and isinstance(binding.value, (cst.List, cst.ListComp)) and self._grown(name, found):
                    return False  # acc = [] then acc.append(np.mean(p)): filled with run-time values
            elif isinstance(binding, LoopBinding):
                if binding.iterable in self.traced_loops or not self.is_static(binding.iterable, found):
                    return False
            elif isinstance(binding, ParamBinding):
                if not is_shape_name(name):
                    return False
            else:
                return False
        return True
