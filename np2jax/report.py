"""Machine-readable reports (format version 1 of the CLI contract)."""

from __future__ import annotations

import json
from pathlib import Path

from np2jax.engine import FileResult
from np2jax.files import write_atomic

VERSION = 1


def migrate_report(results: list[FileResult]) -> dict:
    return {
        "version": VERSION,
        "files": [{"path": r.path, "status": r.status, "error": r.error} for r in results],
        "functions": [
            {
                "path": r.path,
                "qualname": f.qualname,
                "line": f.line,
                "end_line": f.end_line,
                "jit": f.jit,
                "static_argnums": list(f.static_argnums),
                "status": f.status,
                **({"cell": f.cell} if hasattr(f, "cell") else {}),  # notebooks: lines count within the cell
            }
            for r in results
            for f in r.functions
        ],
        "diagnostics": [d.to_json() for r in results for d in r.diagnostics],
    }


def write_json(path: str, data: dict) -> None:
    write_atomic(Path(path), (json.dumps(data, indent=2) + "\n").encode())
