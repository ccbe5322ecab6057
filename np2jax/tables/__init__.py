"""Data tables the rules consult."""

from __future__ import annotations

from functools import lru_cache

from np2jax.tables.numpy_api import ROWS, ApiRow

_BY_NAME = {row.numpy: row for row in ROWS}


@lru_cache(maxsize=4096)
def lookup_numpy(qualname: str) -> ApiRow | None:
    """The row for a qualified NumPy name; a module row covers its members."""
    name = qualname
    while True:
        row = _BY_NAME.get(name)
        if row is not None:
            return row
        if "." not in name:
            return None
        name = name.rsplit(".", 1)[0]
        if name == "numpy":
            return None


__all__ = ["ApiRow", "ROWS", "lookup_numpy"]


def positional_parameter(names: tuple[str, ...], index: int) -> str:
    """The parameter the ``index``-th positional argument binds, from a SIGNATURES name list; "" for one
    that lands in ``*args`` (``jnp.meshgrid(x, y)``: ``y`` is not ``copy=``) or past the end."""
    for position, name in enumerate(names[: index + 1]):
        if name.startswith("*"):
            return ""
        if position == index:
            return name
    return ""
