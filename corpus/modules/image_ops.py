"""Image processing helpers."""
import numpy as np

SOBEL_X = np.array([[-1, 0, 1], [-2, 0, 2], [-1, 0, 1]], dtype=float)


def correlate2d(img, kernel):
    kh, kw = kernel.shape
    padded = np.pad(img, ((kh // 2, kh // 2), (kw // 2, kw // 2)), mode="reflect")
    out = np.zeros(img.shape, dtype=float)
    for i in range(kh):
        for j in range(kw):
            out += kernel[i, j] * padded[i:i + img.shape[0], j:j + img.shape[1]]
    return out


def sobel_magnitude(img):
    gx = correlate2d(img, SOBEL_X)
    gy = correlate2d(img, SOBEL_X.T)
    return np.hypot(gx, gy)


def box_blur(img, r=1):
    p = np.pad(img, r, mode="edge")
    s = p.cumsum(0).cumsum(1)
    s = np.pad(s, ((1, 0), (1, 0)))
    k = 2 * r + 1
    h, w = img.shape
    tot = s[k:k + h, k:k + w] - s[:h, k:k + w] - s[k:k + h, :w] + s[:h, :w]
    return tot / k ** 2


def equalize_hist(img, nbins=256):
    hist, edges = np.histogram(img.ravel(), bins=nbins, range=(0.0, 1.0))
    cdf = np.cumsum(hist).astype(float)
    cdf /= cdf[-1]
    centers = 0.5 * (edges[:-1] + edges[1:])
    return np.interp(img.ravel(), centers, cdf).reshape(img.shape)


def normalize(img, eps=1e-8):
    lo, hi = img.min(), img.max()
    return (img - lo) / (hi - lo + eps)


def to_gray(rgb):
    return rgb[..., :3] @ np.array([0.299, 0.587, 0.114])


def threshold(img, t):
    out = np.zeros_like(img)
    out[img > t] = 1.0
    return out


def clip_inplace(img, lo=0.0, hi=1.0):
    np.clip(img, lo, hi, out=img)
    return img


def gamma_correct(img, gamma):
    with np.errstate(invalid="ignore"):
        return np.where(img > 0, img ** (1.0 / gamma), 0.0)


def downsample2(img):
    h, w = img.shape[0] // 2 * 2, img.shape[1] // 2 * 2
    x = img[:h, :w]
    return 0.25 * (x[0::2, 0::2] + x[1::2, 0::2] + x[0::2, 1::2] + x[1::2, 1::2])


def flip_and_stack(img):
    return np.stack([img, img[::-1], img[:, ::-1], img.T], axis=0)


def add_border(img, value, width=2):
    img[:width, :] = value
    img[-width:, :] = value
    img[:, :width] = value
    img[:, -width:] = value
    return img


def local_max_mask(img):
    p = np.pad(img, 1, mode="constant", constant_values=-np.inf)
    center = p[1:-1, 1:-1]
    mask = np.ones(img.shape, dtype=bool)
    for di in (-1, 0, 1):
        for dj in (-1, 0, 1):
            if di == 0 and dj == 0:
                continue
            mask &= center >= p[1 + di:p.shape[0] - 1 + di, 1 + dj:p.shape[1] - 1 + dj]
    return mask


def channel_stats(batch):
    mean = batch.mean(axis=(0, 1, 2))
    std = batch.std(axis=(0, 1, 2), ddof=1)
    return mean, std


def to_pixel_grid(points, width, height):
    """Normalised (x, y) points to integer pixel indices, and whether each lies inside the image.

    Parameters
    ----------
    points : ndarray, shape (n, 2)
    width, height : int
    """
    pixels = np.floor(points * [width, height]).astype(int)
    inside = np.all((points >= (0.0, 0.0)) & (points < (1.0, 1.0)), axis=1)
    return pixels, inside
