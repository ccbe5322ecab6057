"""Inputs for corpus/modules/piecewise.py (see corpus/README.md for the format): every branch is taken."""

import numpy as np

rng = np.random.default_rng(7)


def f32(*shape, low=-2.0, high=2.0):
    return rng.uniform(low, high, size=shape).astype(np.float32)


X = f32(6)
SMALL = f32(6, low=-0.1, high=0.1)
DOWNHILL = (-X).astype(np.float32)

EXAMPLES = {
    "shrink_to_ball": [(X, 0.5), (X, 100.0), (f32(3, 4), 1.0)],
    "clip_if_outside": [(X, -1.0, 1.0), (X, -5.0, 5.0), (SMALL, -0.05, 1.0)],
    "huber": [(X,), (X, 0.1), (SMALL, 1.0)],
    "soft_threshold_mean": [(X + 2.0, 0.5), (X - 2.0, 0.5), (SMALL, 0.5)],
    "backtracking_step": [(X, DOWNHILL * 0.1), (X, DOWNHILL * 10.0), (X, DOWNHILL, 0.5)],
    "trust_radius": [
        (f32(4, low=0.0, high=1.0), f32(4, low=2.0, high=3.0), f32(3), 1.0),
        (np.ones(4, np.float32), np.ones(4, np.float32), np.array([3.0, 4.0], np.float32), 5.0),
        (np.ones(4, np.float32), np.full(4, 2.0, np.float32), np.array([3.0, 4.0], np.float32), 6.0, 8.0),
    ],
    "safe_normalize": [(X,), (np.zeros(5, np.float32),), (f32(2, 3),)],
    "positive_part_or_zero": [(np.abs(X),), (-np.abs(X),)],
    "first_crossing": [(X, 0.0), (X, 10.0)],
}
