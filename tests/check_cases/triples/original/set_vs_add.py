import numpy as np


def bump_third(x, amount=5.0):
    y = x.copy()
    y[2] += amount
    return y


def add_bias_to_rows(X, b):
    out = np.zeros_like(X)
    out[:] = X
    out[1:] += b
    return out
