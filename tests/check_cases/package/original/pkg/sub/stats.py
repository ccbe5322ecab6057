import numpy as np

from ..helpers import scale


def centred(x):
    return scale(x - np.mean(x, axis=0), 1.0)
