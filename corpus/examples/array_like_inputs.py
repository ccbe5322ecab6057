"""Inputs for corpus/modules/array_like_inputs.py (see corpus/README.md for the format).

Plain Python lists on purpose: NumPy takes them wherever it takes an array.
"""

import numpy as np

rng = np.random.default_rng(21)
SIGNAL = rng.normal(0.0, 1.0, size=32).astype(np.float32)

EXAMPLES = {
    "weighted_average": [([1.0, 2.0, 4.0], [0.5, 0.25, 0.25]), (SIGNAL, np.ones(32, np.float32))],
    "trapezoid_area": [([0.0, 1.0, 3.0], [1.0, 2.0, 0.5]), (np.linspace(0.0, 1.0, 32, dtype=np.float32), SIGNAL)],
    "peak_to_peak": [([3.0, -1.0, 2.5],), (SIGNAL,), (4.0,)],
    "linear_trend": [([0.0, 1.0, 2.0, 3.0], [1.0, 2.9, 5.1, 7.0]), (np.arange(32, dtype=np.float32), SIGNAL)],
    "clipped_rms": [([0.5, -2.0, 0.25], [1.5, 0.1, -0.3]), (SIGNAL, SIGNAL * 0.5)],
    "Calibration.__init__": [((2.0, 0.5), (4.0, -1.0))],
    "Calibration.__call__": [((2.0, 0.5), ([1.0, 2.0, 3.0],)), ((0.5, -1.0), (SIGNAL,)), ((2.0, 0.5), (7.0,))],
    "Calibration.inverse": [((2.0, 0.5), ([1.0, 2.0],)), ((0.5, -1.0), (SIGNAL,))],
}
