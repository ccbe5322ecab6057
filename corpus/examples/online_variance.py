"""Inputs for corpus/modules/online_variance.py (see corpus/README.md for the format).

Data centred near zero: with a large mean the one-pass formulas lose every digit in float32 (NPJ116).
"""

import numpy as np

rng = np.random.default_rng(5)

X = rng.normal(size=20).astype(np.float32)
Y = (0.5 * X + rng.normal(size=20)).astype(np.float32)

EXAMPLES = {
    "naive_variance": [(X,)],
    "naive_std": [(X,)],
    "naive_covariance": [(X, Y)],
    "two_pass_variance": [(X,), (X + 1000.0,)],
    "welford": [(X,)],
    "zscore": [(X,)],
    "has_drifted": [(0.0, X), (float(np.mean(X)) + 0.01, X)],  # an unchanged mean differs by float32 rounding (NPJ117)
    "same_calibration": [(X, X.copy()), (X, Y)],
    "moments_converged": [(X, X + 1.0), (X, X.copy())],
    "rolling_mean": [(X, 4)],
}
