"""Stencil operations on grayscale images stored as 2-D float arrays.

All filters use slicing instead of explicit loops; borders are handled by
edge padding so outputs keep the input's shape.
"""

import numpy as np
import functools
import jax
import jax.numpy as jnp

SOBEL_SCALE = 1.0 / 8.0


@functools.partial(jax.jit, static_argnums=(1,))
def pad_edges(image, width=1):
    image = jnp.asarray(image)
    return jnp.pad(image, width, mode="edge")


@jax.jit
def box_blur(image):
    """3x3 mean filter."""
    p = pad_edges(image)
    h, w = image.shape
    total = jnp.zeros_like(image)
    for dy in range(3):
        for dx in range(3):
            total = total + p[dy:dy + h, dx:dx + w]
    return total / 9.0


@jax.jit
def sobel(image):
    """Horizontal and vertical Sobel derivatives (scaled to unit gain)."""
    p = pad_edges(image)
    gx = (p[:-2, 2:] + 2 * p[1:-1, 2:] + p[2:, 2:]) - (p[:-2, :-2] + 2 * p[1:-1, :-2] + p[2:, :-2])
    gy = (p[2:, :-2] + 2 * p[2:, 1:-1] + p[2:, 2:]) - (p[:-2, :-2] + 2 * p[:-2, 1:-1] + p[:-2, 2:])
    return gx * SOBEL_SCALE, gy * SOBEL_SCALE


@jax.jit
def gradient_magnitude(image):
    gx, gy = sobel(image)
    return jnp.hypot(gx, gy)


@jax.jit
def sharpen(image, amount=0.5):
    """Unsharp masking with the Laplacian on the interior, clamped to [0, 1]."""
    out = image.copy()
    lap = image[:-2, 1:-1] + image[2:, 1:-1] + image[1:-1, :-2] + image[1:-1, 2:] - 4 * image[1:-1, 1:-1]
    out = out.at[1:-1, 1:-1].subtract(amount * lap)
    out = jnp.where(out < 0.0, jnp.asarray(0.0, out.dtype), out)
    out = jnp.where(out > 1.0, jnp.asarray(1.0, out.dtype), out)
    return out


@jax.jit
def normalize(image, eps=1e-8):
    """Rescale to [0, 1]."""
    lo, hi = image.min(), image.max()
    return (image - lo) / (hi - lo + eps)


@jax.jit
def adjust_contrast(image, gain, bias=0.0):
    return jnp.clip(gain * (image - 0.5) + 0.5 + bias, 0.0, 1.0)


@jax.jit
def saturate(image):
    """Clamp to the displayable range (keyword style, as in older code)."""
    image = jnp.asarray(image)
    return jnp.clip(image, min=0.0, max=1.0)


def to_uint8(image):
    """Convert a [0, 1] image to 8-bit for saving."""
    return (image * 255.0).astype(np.uint8)


@jax.jit
def threshold(image, level=0.5):
    return jnp.where(image > level, 1.0, 0.0)


@jax.jit
def laplacian(image):
    """5-point discrete Laplacian."""
    p = pad_edges(image)
    return p[:-2, 1:-1] + p[2:, 1:-1] + p[1:-1, :-2] + p[1:-1, 2:] - 4 * image


@jax.jit
def downsample(image):
    """Halve each side by averaging 2x2 blocks (sides must be even)."""
    h, w = image.shape
    blocks = image.reshape(h // 2, 2, w // 2, 2)
    return (blocks * 1.0).mean(axis=(1, 3))
