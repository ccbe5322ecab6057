"""Inputs for corpus/modules/signal_filters.py (see corpus/README.md for the format)."""

import numpy as np

rng = np.random.default_rng(2)


def noisy_sine(n, freq=3.0, noise=0.2):
    t = np.linspace(0.0, 1.0, n)
    return (np.sin(2 * np.pi * freq * t) + noise * rng.standard_normal(n)).astype(np.float32)


S64 = noisy_sine(64)
S100 = noisy_sine(100, freq=5.0)
S20 = noisy_sine(20, noise=0.5)
TAPS = np.array([0.25, 0.5, 0.25], dtype=np.float32)

EXAMPLES = {
    "moving_average": [(S64, 4), (S100, 7), (S20, 1)],
    "cumulative_moving_average": [(S64,), (S20,)],
    "exponential_smoothing": [(S20, 0.3), (S64, 0.9)],
    "fir_filter": [(S64,), (S100, TAPS)],
    "remove_dc": [(S64 + 3.0,), (S20,)],
    "rms": [(S64,), (S100,)],
    "hann_window": [(8,), (33,)],
    "windowed_energy": [(S64,), (S100, 32)],
    "zero_crossings": [(S64,), (S100,), (np.array([1, -1, 1, 0, -2], dtype=np.float32),)],
    "mix_down": [(S64,), (S100,), (S20,)],
}
