"""A worker process: ``python -m np2jax.check.worker --side original|migrated``.

It reads requests from the checker on stdin and answers on stdout (length-prefixed
pickle frames, see :mod:`np2jax.check.protocol`). Before any user code runs, the
protocol pipes are moved to private file descriptors and fds 0 and 1 point at
/dev/null, so user code that prints or reads stdin cannot corrupt the protocol.
"""

from __future__ import annotations

import argparse
import faulthandler
import os
import resource
import sys


def _limit_memory(megabytes: int) -> None:
    # RLIMIT_DATA, not RLIMIT_AS: XLA's CPU runtime reserves address space it never uses,
    # and RLIMIT_AS would count it; RLIMIT_DATA counts memory actually mapped for data.
    if megabytes > 0:
        limit = megabytes * 1024 * 1024
        try:
            resource.setrlimit(resource.RLIMIT_DATA, (limit, limit))
        except (ValueError, OSError):
            pass


def _private_pipes() -> tuple[int, int]:
    requests, replies = os.dup(0), os.dup(1)
    devnull = os.open(os.devnull, os.O_RDWR)
    os.dup2(devnull, 0)
    os.dup2(devnull, 1)
    os.close(devnull)
    sys.stdin = open(os.devnull)  # noqa: SIM115 - lives as long as the process
    sys.stdout = open(os.devnull, "w")  # noqa: SIM115
    return requests, replies


def _configure_jax(x64: bool, cache_dir: str | None) -> str:
    import jax

    jax.config.update("jax_default_matmul_precision", "highest")
    jax.config.update("jax_enable_x64", x64)
    if cache_dir:
        jax.config.update("jax_compilation_cache_dir", cache_dir)
        jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.0)
        jax.config.update("jax_persistent_cache_min_entry_size_bytes", 0)
    device = jax.devices()[0]
    return f"{device.platform}:{device.id}"


def main() -> None:
    parser = argparse.ArgumentParser(prog="np2jax.check.worker")
    parser.add_argument("--side", choices=("original", "migrated"), required=True)
    parser.add_argument("--x64", action="store_true")
    parser.add_argument("--memory-mb", type=int, default=0)
    parser.add_argument("--jax-cache", default=None)
    args = parser.parse_args()
    requests, replies = _private_pipes()
    faulthandler.enable(sys.stderr)
    sys.dont_write_bytecode = True  # never a __pycache__ in the user's tree
    _limit_memory(args.memory_mb)

    from np2jax.check import execute
    from np2jax.check.protocol import WorkerGone, read_frame, write_frame

    hello = {"ready": True, "device": None}
    if args.side == "migrated":
        try:
            hello["device"] = _configure_jax(args.x64, args.jax_cache)
        except BaseException as error:
            hello = {"ready": False, "message": f"cannot start JAX: {execute.one_line(error)}"}
    write_frame(replies, hello)
    handlers = {"original": execute.run_original, "migrated": execute.run_migrated}
    while True:
        try:
            message = read_frame(requests)
        except WorkerGone:
            return
        try:
            reply = handlers[message["op"]](message)
        except BaseException as error:  # the worker's own failure: say so, keep serving
            reply = {"status": "error", "message": f"checker error: {execute.one_line(error)}"}
        write_frame(replies, reply)


if __name__ == "__main__":
    main()
