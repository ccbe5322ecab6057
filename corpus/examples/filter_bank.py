"""Inputs for corpus/modules/filter_bank.py (see corpus/README.md for the format)."""

import numpy as np
rng = np.random.default_rng(0)
X = rng.normal(size=40).astype(np.float32)
F = rng.normal(size=(3, 32)).astype(np.float32)
B = np.array([0.2, 0.3, 0.2], np.float32)
A = np.array([1.0, -0.5, 0.1], np.float32)
EXAMPLES = {
    "remove_dc": [(F,), (X,)],
    "moving_average": [(X,), (X, 3)],
    "fir_filter": [(B, X)],
    "lfilter": [(B, A, X)],
    "one_pole_lowpass": [(X, 0.3)],
    "hann_window": [(8,), (16,)],
    "windowed_sinc": [(0.2, 9)],
    "apply_bank": [([B, B * 2.0], X)],
    "band_energy": [(F,), (F.T, 0)],
    "pre_emphasis": [(X,), (X, 0.5)],
    "zero_crossing_rate": [(F,)],
    "frame_signal": [(X, 8, 4)],
    "rms_envelope": [(X, 4), (X, 5)],
}
