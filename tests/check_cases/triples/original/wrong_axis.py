import numpy as np


def column_norms(X):
    return np.sqrt((X ** 2).sum(axis=0))


def running_total(x, axis=0):
    return np.cumsum(x, axis=axis)
