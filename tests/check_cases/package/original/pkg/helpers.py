import numpy as np

OFFSET = 1.0


def scale(x, factor):
    return np.asarray(x) * factor
