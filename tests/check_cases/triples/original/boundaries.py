import numpy as np


def count_non_negative(signal):
    return np.count_nonzero(signal >= 0)


def local_max(x):
    p = np.pad(x, 1, mode="constant", constant_values=-np.inf)
    return (x >= p[:-2]) & (x >= p[2:])


def sign_units(x):
    return np.sign(x).astype(int)


def zero_crossing_rate(x):
    s = np.sign(x)
    s[s == 0] = 1
    return np.mean(np.abs(np.diff(s)) > 0)
