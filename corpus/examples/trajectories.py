"""Inputs for corpus/modules/trajectories.py (see corpus/README.md for the format).

Trip counts above the unroll threshold (8), so the collecting loops are the ones that become jax.lax.scan.
"""

import numpy as np

rng = np.random.default_rng(11)

SEQUENCE = rng.normal(size=(24, 3)).astype(np.float32)
W_IN = (0.4 * rng.normal(size=(5, 3))).astype(np.float32)
W_REC = (0.3 * rng.normal(size=(5, 5))).astype(np.float32)
BIAS = (0.1 * rng.normal(size=5)).astype(np.float32)
RETURNS = (0.01 * rng.normal(size=(30, 4))).astype(np.float32)
OBSERVATIONS = (np.cumsum(0.05 * rng.normal(size=40)) + 0.2 * rng.normal(size=40)).astype(np.float32)
ROD = np.sin(np.linspace(0.0, np.pi, 16)).astype(np.float32)

EXAMPLES = {
    "projectile_path": [
        (np.array([0.0, 0.0], dtype=np.float32), np.array([3.0, 12.0], dtype=np.float32), 0.05, 20),
        (np.array([1.0, 2.0], dtype=np.float32), np.array([-1.0, 4.0], dtype=np.float32), 0.01, 12, 0.5),
    ],
    "rnn_hidden_states": [(SEQUENCE, W_IN, W_REC, BIAS), (SEQUENCE[:10], W_IN, W_REC, BIAS)],
    "ema_with_bias_correction": [(SEQUENCE,), (SEQUENCE[:, 0], 0.5)],
    "wealth_and_drawdown": [(RETURNS,), (RETURNS[:, 0],)],
    "kalman_1d": [(OBSERVATIONS,), (OBSERVATIONS[:12], 1e-2, 0.5)],
    "heat_snapshots": [(ROD, 0.2, 30, 10)],
    "logistic_orbit": [(3.7, 0.2, 20), (2.5, 0.6, 12)],
}
