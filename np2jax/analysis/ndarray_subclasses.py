"""Classes that derive from ``np.ndarray``: their objects are NumPy arrays, and stay so.

A ``jax.Array`` cannot be subclassed, nor viewed as a subclass (``np.array(v).view(cls)`` in
``__new__``; ``jax.Array.view`` takes a dtype only), and NumPy hands a subclass's methods objects
of that class (``__array_finalize__``, ``__array_wrap__``): none of its methods can become JAX
code.  Subclasses of such a class in the same module count too; the project pass carries the
decision to subclasses in other modules (``ModuleLinks.numpy_classes``).
"""

from __future__ import annotations

import libcst as cst

from np2jax.analysis.resolve import Resolver

NDARRAY_BASE = "<ndarray subclass>"  # ForcedUnsupported.callee of the methods of such a class


def ndarray_subclasses(module: cst.Module, resolver: Resolver) -> list[str]:
    """Top-level classes deriving (through top-level classes of the module) from numpy.ndarray/matrix."""
    scope = resolver.scopes[module]
    classes = [node for node in module.body if isinstance(node, cst.ClassDef)]
    found: list[str] = []
    changed = True
    while changed:
        changed = False
        for node in classes:
            name = node.name.value
            if name in found:
                continue
            for base in node.bases:
                if base.keyword is not None:
                    continue
                qualname = resolver.qualname(base.value, scope)
                local = isinstance(base.value, cst.Name) and base.value.value in found
                if local or qualname in ("numpy.ndarray", "numpy.matrix", "numpy.recarray", "numpy.ma.MaskedArray"):
                    found.append(name)
                    changed = True
                    break
    return found
