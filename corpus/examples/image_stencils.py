"""Inputs for corpus/modules/image_stencils.py (see corpus/README.md for the format)."""

import numpy as np

rng = np.random.default_rng(5)


def image(h, w):
    return rng.uniform(0.0, 1.0, size=(h, w)).astype(np.float32)


def gradient_image(h, w):
    yy, xx = np.mgrid[0:h, 0:w]
    return ((xx + 2 * yy) / (w + 2 * h)).astype(np.float32)


IMG_8 = image(8, 8)
IMG_RECT = image(6, 10)
RAMP = gradient_image(12, 16)

EXAMPLES = {
    "pad_edges": [(IMG_8,), (IMG_RECT, 2)],
    "box_blur": [(IMG_8,), (IMG_RECT,), (RAMP,)],
    "sobel": [(IMG_8,), (RAMP,)],
    "gradient_magnitude": [(IMG_RECT,), (RAMP,)],
    "sharpen": [(IMG_8,), (RAMP, 2.0)],
    "normalize": [(IMG_8 * 3.0 - 1.0,), (RAMP,)],
    "adjust_contrast": [(IMG_8, 1.5), (RAMP, 0.5, 0.1)],
    "saturate": [(IMG_8 * 2.0 - 0.5,), (RAMP,)],
    "to_uint8": [(IMG_8,), (RAMP,)],
    "threshold": [(IMG_8,), (RAMP, 0.25)],
    "laplacian": [(IMG_8,), (RAMP,)],
    "downsample": [(IMG_8,), (RAMP,)],
}
