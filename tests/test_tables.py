"""Every row of the NumPy -> jax.numpy table is checked against the installed numpy and jax."""

from __future__ import annotations

import importlib
from collections import Counter

import numpy as np
import pytest

from np2jax.tables import ROWS, lookup_numpy
from np2jax.tables.generate import generate
from np2jax.tables.numpy_api import ApiRow

KINDS = {"function", "constructor", "dtype", "static", "constant", "type", "data_dependent", "random", "inplace", "io", "unsupported"}
REWRITING_KINDS = {"function", "constructor", "dtype"}


def exists(qualname: str) -> bool:
    module_name, _, attr = qualname.rpartition(".")
    try:
        return hasattr(importlib.import_module(module_name), attr)
    except ImportError:
        pass
    try:
        importlib.import_module(qualname)
        return True
    except ImportError:
        return False


def test_names_are_unique():
    duplicates = [name for name, count in Counter(row.numpy for row in ROWS).items() if count > 1]
    assert duplicates == []


@pytest.mark.parametrize("row", ROWS, ids=lambda row: row.numpy)
def test_row(row: ApiRow):
    assert row.kind in KINDS
    if row.jax is not None:
        assert row.kind in REWRITING_KINDS
        assert exists(row.jax), f"{row.jax} does not exist in the installed jax"
    elif row.kind in REWRITING_KINDS - {"dtype"}:
        pytest.fail(f"{row.numpy} is rewritable but has no target")
    if row.kind in {"data_dependent", "random", "inplace", "io", "unsupported"}:
        assert row.guideline or row.numpy.endswith(".test"), f"{row.numpy} needs a 'use instead'"


@pytest.mark.parametrize("row", [r for r in ROWS if not r.numpy.startswith(("numpy.lib.", "numpy.fft.test", "numpy.linalg.test"))], ids=lambda row: row.numpy)
def test_numpy_name_exists_or_is_a_removed_alias(row: ApiRow):
    if row.numpy in {"numpy.row_stack", "numpy.float128", "numpy.complex256"}:
        pytest.skip("removed from or platform-dependent in recent NumPy; kept for older code")
    assert exists(row.numpy), f"{row.numpy} is not in the installed numpy"


def test_module_rows_cover_members():
    assert lookup_numpy("numpy.random.default_rng").kind == "random"
    assert lookup_numpy("numpy.linalg.norm").jax == "jax.numpy.linalg.norm"
    assert lookup_numpy("numpy.not_a_function") is None


def test_generated_signatures_match_installed_jax():
    from pathlib import Path

    committed = Path(__file__).resolve().parent.parent / "np2jax" / "tables" / "jax_signatures.py"
    fresh = generate()
    body = lambda text: text.split("\n", 1)[1]  # the header names the jax version
    assert body(committed.read_text()) == body(fresh), "run: python -m np2jax.tables.generate"


def test_ufunc_arity_matches_the_installed_numpy():
    """np2jax/tables/ufunc_arity.py (a table, so that migrating never imports NumPy) gives each ufunc's inputs and
    outputs as the installed NumPy does (a positional `out` is the argument after the inputs: analysis/inplace_calls.py)."""
    from np2jax.tables.ufunc_arity import UFUNC_ARITY

    assert len(UFUNC_ARITY) > 80
    for name, (nin, nout) in UFUNC_ARITY.items():
        ufunc = getattr(np, name, None)
        if ufunc is None:  # (removed from a later NumPy: the table keeps it for code written for older ones)
            continue
        assert isinstance(ufunc, np.ufunc) and (ufunc.nin, ufunc.nout) == (nin, nout), name
