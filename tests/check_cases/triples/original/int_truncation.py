import numpy as np


def scaled(x):
    out = np.zeros(x.shape)
    out[...] = x * 1.5
    return out


def half_counts(counts):
    return np.asarray(counts) / 2
