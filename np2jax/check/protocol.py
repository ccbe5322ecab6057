"""Length-prefixed pickle frames between the checker and its worker processes.

The parent never unpickles user objects: inputs travel as opaque bytes (pickled in
the original worker, unpickled only in the migrated worker), and outputs are
converted to :mod:`np2jax.check.portable` values (NumPy arrays and builtins) first.
"""

from __future__ import annotations

import os
import pickle
import select
import struct
import time

HEADER = struct.Struct(">Q")


class WorkerGone(Exception):
    """The worker closed its end of the pipe (it exited or crashed)."""


class WorkerTimeout(Exception):
    """No answer before the deadline."""


def write_frame(fd: int, message: object) -> None:
    data = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    view = memoryview(HEADER.pack(len(data)) + data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def read_frame(fd: int, deadline: float | None = None) -> object:
    (length,) = HEADER.unpack(_read_exactly(fd, HEADER.size, deadline))
    return pickle.loads(_read_exactly(fd, length, deadline))


def _read_exactly(fd: int, size: int, deadline: float | None) -> bytes:
    chunks: list[bytes] = []
    while size:
        if deadline is not None:
            # Past the deadline, a reply that is already there still counts (the caller may
            # have been busy elsewhere while the worker answered in time).
            remaining = max(0.0, deadline - time.monotonic())
            if not select.select([fd], [], [], remaining)[0]:
                raise WorkerTimeout
        chunk = os.read(fd, min(size, 1 << 20))
        if not chunk:
            raise WorkerGone
        chunks.append(chunk)
        size -= len(chunk)
    return b"".join(chunks)
