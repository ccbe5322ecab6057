"""Inputs for corpus/modules/histogram_binning.py (see corpus/README.md for the format).

Indices stay in range here: out of range, NumPy raises and JAX clamps (NPJ114).
"""

import numpy as np

rng = np.random.default_rng(21)

X = rng.uniform(0.0, 10.0, size=12).astype(np.float32)
X[3] = 10.0  # the upper edge: safe_bin_index folds it into the last bin
INSIDE = rng.uniform(0.0, 9.99, size=12).astype(np.float32)
SPECTRUM = np.array([1.0, 3.0, 7.0, 12.0, 6.0, 2.0, 1.0], dtype=np.float32)

EXAMPLES = {
    "bin_index": [(INSIDE, 0.0, 10.0, 5)],
    "safe_bin_index": [(X, 0.0, 10.0, 5), (INSIDE, 0.0, 10.0, 8)],
    "bin_centers": [(np.linspace(0.0, 1.0, 6).astype(np.float32),)],
    "weighted_counts": [(INSIDE, rng.uniform(size=12).astype(np.float32), 0.0, 10.0, 4)],
    "calibrate": [(np.array([0, 3, 2, 2, 1]), np.array([0.5, 1.5, 2.5, 3.5], dtype=np.float32))],
    "energy_at_threshold": [(np.array([1.0, 2.0, 4.0, 8.0], dtype=np.float32), np.array([10.0, 20.0, 40.0, 80.0], dtype=np.float32), 3.0)],
    "peak_window": [(SPECTRUM, 1)],
    "peak_value": [(SPECTRUM, np.full(7, 0.5, dtype=np.float32))],
    "neighbor_differences": [(np.cumsum(rng.uniform(size=9)).astype(np.float32),)],
}
