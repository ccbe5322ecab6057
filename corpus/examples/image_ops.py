"""Inputs for corpus/modules/image_ops.py (see corpus/README.md for the format)."""

import numpy as np
rng = np.random.default_rng(3)
I = rng.random((8, 10)).astype(np.float32)
RGB = rng.random((4, 5, 3)).astype(np.float32)
BATCH = rng.random((2, 4, 4, 3)).astype(np.float32)
EXAMPLES = {
    "add_border": [(I, 0.5), (I, 1.0, 1)],
    "correlate2d": [(I, np.ones((3, 3), np.float32) / 9)],
    "sobel_magnitude": [(I,)],
    "box_blur": [(I,), (I, 2)],
    "equalize_hist": [(I,), (I, 16)],
    "normalize": [(I,)],
    "to_gray": [(RGB,)],
    "threshold": [(I, 0.5)],
    "gamma_correct": [(I - 0.2, 2.2)],
    "downsample2": [(I,), (I[:7, :9],)],
    "flip_and_stack": [(I[:6, :6],)],
    "local_max_mask": [(I,)],
    "channel_stats": [(BATCH,)],
    "to_pixel_grid": [
        # exact binary fractions: NumPy multiplies float32 by its int64 list in float64, JAX in float32
        (np.array([[0.125, 0.5], [0.875, 0.25], [1.25, -0.375]], np.float32), 640, 480),
        (np.array([[0.0, 0.0], [0.5, 1.0]], np.float32), 4, 3),
    ],
}
