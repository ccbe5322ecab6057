import numpy as np


def normalize_rows_(X):
    X /= np.abs(X).sum(axis=-1, keepdims=True)


def clip_negative_(x):
    x[x < 0] = 0.0
