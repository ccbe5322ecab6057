"""Inputs for corpus/modules/linear_regression.py (see corpus/README.md for the format)."""

import numpy as np

rng = np.random.default_rng(1)


def f32(*shape, scale=1.0):
    return (scale * rng.standard_normal(size=shape)).astype(np.float32)


def dataset(n, d, noise=0.1):
    X = f32(n, d)
    w = f32(d)
    y = (X @ w + 0.5 + noise * rng.standard_normal(n)).astype(np.float32)
    return X, y


X1, y1 = dataset(32, 3)
X2, y2 = dataset(100, 5)
X3, y3 = dataset(20, 1, noise=0.0)
W1, W2, W3 = f32(3), f32(5), f32(1)
B = np.float32(0.25)

EXAMPLES = {
    "init_params": [(3,), (1,)],
    "predict": [(W1, B, X1), (W2, 0.0, X2)],
    "mse_loss": [(W1, B, X1, y1), (W2, B, X2, y2), (W3, 0.0, X3, y3)],
    "mse_grad": [(W1, B, X1, y1), (W2, B, X2, y2)],
    "sgd_update": [(W1, B, X1, y1), (W2, B, X2, y2, 0.01)],
    "fit": [(X1, y1, 20), (X3, y3, 50, 0.1)],
    "make_loss.<locals>.loss": [((X1, y1), (W1, B)), ((X2, y2), (W2, 0.0))],
    "r_squared": [(W1, B, X1, y1), (W3, 0.5, X3, y3)],
}
