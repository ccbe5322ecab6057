"""Inputs for corpus/modules/quickstart.py (see corpus/README.md for the format)."""

import numpy as np

rng = np.random.default_rng(0)


def f32(*shape, low=-2.0, high=2.0):
    return rng.uniform(low, high, size=shape).astype(np.float32)


EXAMPLES = {
    "reset_first": [(f32(4),), (f32(3, 2),)],
    "sum_of_squares": [(f32(5),), (f32(3, 4),), (np.arange(6, dtype=np.float32),)],
    "sum_of_squares_dx": [(f32(5),), (f32(2, 3),)],
    "selu": [(f32(8),), (f32(3, 4),), (f32(6), 1.0, 1.0)],
    "normalize_rows": [(f32(10, 3),), (f32(50, 4, low=0.0, high=10.0),)],
    "negate_if": [(f32(4), True), (f32(4), False), (f32(2, 2), True)],
    "flatten": [(f32(2, 3),), (f32(2, 3, 4),), (f32(7),)],
    "with_first_set": [(f32(4),), (f32(3, 2),)],
    "log_sum_exp": [(f32(10),), (f32(4, 5, low=-30.0, high=30.0),)],
}
