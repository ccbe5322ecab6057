import numpy as np

from pkg.helpers import OFFSET
from .helpers import scale


def smooth(x):
    out = x.copy()
    out[1:-1] = (x[:-2] + x[1:-1] + x[2:]) / 3.0
    return scale(out, 2.0) + OFFSET


def differs_on_purpose(x):
    return np.diff(x, axis=0)
