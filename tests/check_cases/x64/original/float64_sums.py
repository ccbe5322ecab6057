import numpy as np


def mean_square(x):
    return np.mean(x ** 2)


def weighted_total(x, w):
    return np.dot(x, w)
