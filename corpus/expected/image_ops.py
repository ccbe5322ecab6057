"""Image processing helpers."""
import numpy as np
import functools
import jax
import jax.numpy as jnp

SOBEL_X = np.array([[-1, 0, 1], [-2, 0, 2], [-1, 0, 1]], dtype=float)


@jax.jit
def correlate2d(img, kernel):
    kh, kw = kernel.shape
    padded = jnp.pad(img, ((kh // 2, kh // 2), (kw // 2, kw // 2)), mode="reflect")
    out = jnp.zeros(img.shape, dtype=float)
    if 0 < kh:
        def _loop_body_2(i, out):
            if 0 < kw:
                def _loop_body(j, out):
                    out += kernel[i, j] * jax.lax.dynamic_slice_in_dim(jax.lax.dynamic_slice_in_dim(padded, i, img.shape[0]), j, img.shape[1], axis=1)
                    return out
                out = jax.lax.fori_loop(0, kw, _loop_body, out)
            return out
        out = jax.lax.fori_loop(0, kh, _loop_body_2, out)
    return out


@jax.jit
def sobel_magnitude(img):
    gx = correlate2d(img, SOBEL_X)
    gy = correlate2d(img, SOBEL_X.T)
    return jnp.hypot(gx, gy)


@functools.partial(jax.jit, static_argnums=(1,))
def box_blur(img, r=1):
    p = jnp.pad(img, r, mode="edge")
    s = p.cumsum(0, dtype=jnp.sum(p).dtype).cumsum(1)
    s = jnp.pad(s, ((1, 0), (1, 0)))
    k = 2 * r + 1
    h, w = img.shape
    tot = s[k:k + h, k:k + w] - s[:h, k:k + w] - s[k:k + h, :w] + s[:h, :w]
    return tot / k ** 2


@functools.partial(jax.jit, static_argnums=(1,))
def equalize_hist(img, nbins=256):
    hist, edges = jnp.histogram(img.ravel(), bins=nbins, range=(0.0, 1.0))
    cdf = jnp.cumsum(hist, dtype=jnp.sum(hist).dtype).astype(float)
    cdf /= cdf[-1]
    centers = 0.5 * (edges[:-1] + edges[1:])
    return jnp.interp(jnp.asarray(img.ravel(), dtype=float), jnp.asarray(centers, dtype=float), jnp.asarray(cdf, dtype=jnp.result_type(cdf, jnp.float64))).reshape(img.shape)


@jax.jit
def normalize(img, eps=1e-8):
    lo, hi = img.min(), img.max()
    return (img - lo) / (hi - lo + eps)


@jax.jit
def to_gray(rgb):
    return rgb[..., :3] @ jnp.array([0.299, 0.587, 0.114])


@jax.jit
def threshold(img, t):
    out = jnp.zeros_like(img)
    out = jnp.where(img > t, jnp.asarray(1.0, out.dtype), out)
    return out


def clip_inplace(img, lo=0.0, hi=1.0):
    np.clip(img, lo, hi, out=img)
    return img


@jax.jit
def gamma_correct(img, gamma):
    with np.errstate(invalid="ignore"):
        return jnp.where(img > 0, img ** (1.0 / gamma), 0.0)


@jax.jit
def downsample2(img):
    h, w = img.shape[0] // 2 * 2, img.shape[1] // 2 * 2
    x = img[:h, :w]
    return 0.25 * (x[0::2, 0::2] + x[1::2, 0::2] + x[0::2, 1::2] + x[1::2, 1::2])


@jax.jit
def flip_and_stack(img):
    return jnp.stack([img, img[::-1], img[:, ::-1], img.T], axis=0)


@functools.partial(jax.jit, static_argnums=(2,))
def add_border(img, value, width=2):
    img = img.at[:width, :].set(value)
    img = img.at[-width:, :].set(value)
    img = img.at[:, :width].set(value)
    img = img.at[:, -width:].set(value)
    return img


@jax.jit
def local_max_mask(img):
    p = jnp.pad(img, 1, mode="constant", constant_values=-np.inf)
    center = p[1:-1, 1:-1]
    mask = jnp.ones(img.shape, dtype=bool)
    for di in (-1, 0, 1):
        for dj in (-1, 0, 1):
            if di == 0 and dj == 0:
                continue
            mask &= center >= p[1 + di:p.shape[0] - 1 + di, 1 + dj:p.shape[1] - 1 + dj]
    return mask


@jax.jit
def channel_stats(batch):
    mean = (batch * 1.0).mean(axis=(0, 1, 2))
    std = (batch * 1.0).std(axis=(0, 1, 2), ddof=1)
    return mean, std


@jax.jit
def to_pixel_grid(points, width, height):
    """Normalised (x, y) points to integer pixel indices, and whether each lies inside the image.

    Parameters
    ----------
    points : ndarray, shape (n, 2)
    width, height : int
    """
    pixels = jnp.floor(points * jnp.asarray([width, height])).astype(int)
    inside = jnp.all((points >= jnp.asarray((0.0, 0.0))) & (points < jnp.asarray((1.0, 1.0))), axis=1)
    return pixels, inside
