import numpy as np


def hangs(x):
    return x + 1.0


def hangs_with_alarm_blocked(x):
    return x + 2.0


def segfaults(x):
    return x * 2.0


def aborts(x):
    return x * 3.0


def calls_sys_exit(x):
    return x - 1.0


def calls_os_exit(x):
    return x - 2.0


def allocates_too_much(x):
    return x / 2.0


def original_segfaults(x):
    import ctypes

    ctypes.string_at(0)


def not_deterministic(x):
    return x + np.random.rand(*np.shape(x))


def fine(x):
    return np.tanh(x)
