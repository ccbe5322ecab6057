"""Results keyed by file content + tool version + options, so unchanged trees are fast."""

from __future__ import annotations

import os
import pickle
import tempfile
from pathlib import Path

from np2jax.engine import FileResult


def default_cache_dir() -> Path:
    configured = os.environ.get("NP2JAX_CACHE_DIR")
    if configured:
        return Path(configured)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "np2jax"


class Cache:
    def __init__(self, directory: Path | None) -> None:
        self.directory = directory

    def _file(self, key: str) -> Path:
        assert self.directory is not None
        return self.directory / key[:2] / key

    def get(self, key: str, source: bytes, path: str) -> FileResult | None:
        if self.directory is None:
            return None
        try:
            with open(self._file(key), "rb") as handle:
                status, output, error, diagnostics, functions, links = pickle.load(handle)
        except Exception:
            return None
        result = FileResult(path, status, source, source if output is None else output, error, diagnostics, functions, links)
        return result.with_path(path)

    def put(self, key: str, result: FileResult) -> None:
        if self.directory is None:
            return
        output = None if result.output == result.source else result.output
        payload = (result.status, output, result.error, result.diagnostics, result.functions, result.links)
        target = self._file(key)
        temporary = None
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            fd, temporary = tempfile.mkstemp(dir=target.parent, prefix=".tmp-")
            with os.fdopen(fd, "wb") as handle:
                pickle.dump(payload, handle, protocol=pickle.HIGHEST_PROTOCOL)
            os.replace(temporary, target)
        except Exception:  # noqa: BLE001 - a read-only or full cache directory only costs speed
            if temporary is not None:
                try:
                    os.unlink(temporary)
                except OSError:
                    pass
