import numpy as np


def column_means(x):
    return np.nanmean(x, axis=0)


def relu(x):
    return np.maximum(x, 0.0)
