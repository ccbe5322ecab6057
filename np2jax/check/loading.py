"""Inside a worker: import the module under check and the examples file that goes with it.

Modules are imported once per worker.  An examples file runs under a module name derived from its
path (``examples_module_name``), the same in both workers, so functions and classes it defines can
travel as pickled inputs from the original side to the migrated one.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import os
import sys
import warnings
from contextlib import contextmanager

import numpy as np


@contextmanager
def quiet_numerics():
    """No warnings, no floating-point error reports, and ``np.empty``/``np.empty_like`` arrays filled with zeros:
    the elements a function never writes are whatever memory held in NumPy and zeros in ``jnp.empty``'s, and
    comparing that garbage said nothing about the migration (real18 C3)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with np.errstate(all="ignore"), _zeroed_empty():
            yield


def _zeros_after(make):
    def zeroed(*args, **kwargs):
        out = make(*args, **kwargs)
        if isinstance(out, np.ndarray) and out.dtype.kind in "biufc":  # (object arrays hold None: JAX's own fill them)
            out[...] = 0
        return out

    zeroed._np2jax_original = make
    return zeroed


@contextmanager
def _zeroed_empty():
    if hasattr(np.empty, "_np2jax_original"):  # already inside
        yield
        return
    saved = np.empty, np.empty_like
    np.empty, np.empty_like = _zeros_after(np.empty), _zeros_after(np.empty_like)
    try:
        yield
    finally:
        np.empty, np.empty_like = saved



_modules: dict[str, object] = {}


def load_module(spec):
    """Import ``spec`` (a discover.ModuleSpec) once per worker; raises on failure."""
    if spec.path in _modules:
        return _modules[spec.path]
    if spec.alias is not None:
        root = os.path.join(os.getcwd(), "import-root")
        os.makedirs(root, exist_ok=True)
        link = os.path.join(root, spec.alias[0])
        if not os.path.lexists(link):
            os.symlink(spec.alias[1], link)
        _front_of_path(root)
    else:
        _front_of_path(spec.sys_path)
    with quiet_numerics():
        if spec.package:
            module = importlib.import_module(spec.name)
        else:
            name = spec.name if spec.name not in sys.modules else f"_np2jax_checked_{len(_modules)}_{spec.name}"
            source = getattr(spec, "source", None)
            module = _load_file(name, spec.path) if source is None else _load_source(name, spec.path, source)
    _modules[spec.path] = module
    return module


def _front_of_path(entry: str) -> None:
    if entry in sys.path:
        sys.path.remove(entry)
    sys.path.insert(0, entry)


def _load_file(name: str, path: str):
    loader_spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(loader_spec)
    sys.modules[name] = module  # dataclasses and pickling look modules up here
    try:
        loader_spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
    return module


def _load_source(name: str, path: str, source: str):
    """A notebook's code cells run as a module (magics are ``pass`` placeholders: they never run).

    The source is registered with linecache under the notebook's path, so tracebacks and
    ``inspect.getsource`` show the cells' lines.
    """
    import linecache
    import types

    module = types.ModuleType(name)
    module.__file__ = path
    lines = source.splitlines(keepends=True)
    linecache.cache[path] = (len(source), None, lines, path)
    sys.modules[name] = module
    try:
        exec(compile(source, path, "exec", dont_inherit=True), module.__dict__)
    except BaseException:
        del sys.modules[name]
        raise
    return module


_examples: dict[tuple, dict] = {}


def examples_module_name(path: str) -> str:
    """The module name an examples file runs under, the same in both workers: a function or class it
    defines and passes as an input is pickled by that name and must unpickle on the migrated side."""
    return "_np2jax_examples_" + hashlib.sha1(path.encode("utf-8", "surrogateescape")).hexdigest()[:16]


def load_examples_file(path: str):
    """The examples file at ``path`` as a module (once per worker)."""
    name = examples_module_name(path)
    if name in sys.modules:
        return sys.modules[name]
    with quiet_numerics():
        return _load_file(name, path)


def load_examples(module, path: str | None) -> dict:
    """EXAMPLES of the --examples file for this module, then the module's ``__np2jax_examples__``."""
    key = (id(module), path)
    if key not in _examples:
        merged: dict = {}
        if path is not None:
            examples_module = load_examples_file(path)
            for name, cases in dict(getattr(examples_module, "EXAMPLES", {}) or {}).items():
                merged.setdefault(name, []).extend(cases)
        for name, cases in dict(getattr(module, "__np2jax_examples__", {}) or {}).items():
            merged.setdefault(name, []).extend(cases)
        _examples[key] = merged
    return _examples[key]
