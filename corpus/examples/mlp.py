"""Inputs for corpus/modules/mlp.py (see corpus/README.md for the format)."""

import numpy as np

rng = np.random.default_rng(6)


def f32(*shape, scale=1.0):
    return (scale * rng.standard_normal(size=shape)).astype(np.float32)


def layers(*sizes):
    return [(f32(m, n, scale=1.0 / np.sqrt(m)), f32(n, scale=0.1)) for m, n in zip(sizes[:-1], sizes[1:])]


NET_A = layers(4, 8, 3)
NET_B = layers(6, 16, 16, 5)
X_A, X_B = f32(10, 4), f32(7, 6)
LOGITS = f32(12, 5, scale=3.0)
LABELS_12 = rng.integers(0, 5, size=12)
LABELS_10 = rng.integers(0, 3, size=10)
LABELS_7 = rng.integers(0, 5, size=7)

EXAMPLES = {
    "relu": [(f32(6),), (f32(2, 3),)],
    "tanh": [(f32(6),), (f32(2, 3, scale=4.0),)],
    "softmax": [(LOGITS,), (f32(3, 4), 0), (f32(9),)],
    "log_softmax": [(LOGITS,), (f32(3, 4), 0)],
    "cross_entropy": [(LOGITS, LABELS_12), (f32(10, 3), LABELS_10)],
    "accuracy": [(LOGITS, LABELS_12), (f32(10, 3), LABELS_10)],
    "glorot_scale": [(4, 8), (784, 128)],
    "dense": [(NET_A[0], X_A), (NET_B[1], f32(7, 16))],
    "MLP.depth": [((NET_A,), ()), ((NET_B,), ())],
    "MLP.init_layer": [((NET_A,), NET_A[0]), ((NET_B,), (*NET_B[2], 0.5))],
    "MLP.forward": [((NET_A,), (X_A,)), ((NET_B,), (X_B,))],
    "MLP.predict_proba": [((NET_A,), (X_A,)), ((NET_B,), (X_B,))],
    "MLP.loss": [((NET_A,), (X_A, LABELS_10)), ((NET_B,), (X_B, LABELS_7))],
    "MLP.l2_penalty": [((NET_A,), ()), ((NET_B,), (1e-2,))],
}
