import ctypes
import os
import signal
import sys

import jax.numpy as jnp
import numpy as np


def hangs(x):
    while True:
        pass


def hangs_with_alarm_blocked(x):
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGALRM})
    while True:
        pass


def segfaults(x):
    ctypes.string_at(0)


def aborts(x):
    os.abort()


def calls_sys_exit(x):
    sys.exit(3)


def calls_os_exit(x):
    os._exit(7)


def allocates_too_much(x):
    return np.ones(3 << 27) + x.sum()  # 3 GiB of float64, over the test's --memory-limit


def original_segfaults(x):
    return x


def not_deterministic(x):
    return x


def fine(x):
    return jnp.tanh(x)
