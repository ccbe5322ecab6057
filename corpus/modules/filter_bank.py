"""Small FIR/IIR filter bank, numpy only."""
import numpy as np


def moving_average(x, n=5):
    kernel = np.ones(n) / n
    return np.convolve(x, kernel, mode="same")


def fir_filter(b, x):
    """Direct-form FIR: y[n] = sum_k b[k] x[n-k]."""
    y = np.zeros_like(x, dtype=float)
    for k in range(len(b)):
        y[k:] += b[k] * x[: len(x) - k]
    return y


def lfilter(b, a, x):
    """Direct form I IIR filter (a[0] normalised)."""
    b = np.asarray(b, dtype=float) / a[0]
    a = np.asarray(a, dtype=float) / a[0]
    y = np.zeros(len(x))
    for n in range(len(x)):
        acc = 0.0
        for k in range(len(b)):
            if n - k >= 0:
                acc += b[k] * x[n - k]
        for k in range(1, len(a)):
            if n - k >= 0:
                acc -= a[k] * y[n - k]
        y[n] = acc
    return y


def one_pole_lowpass(x, alpha):
    y = np.empty_like(x)
    y[0] = x[0]
    for i in range(1, x.shape[0]):
        y[i] = alpha * x[i] + (1 - alpha) * y[i - 1]
    return y


def hann_window(n):
    k = np.arange(n)
    return 0.5 - 0.5 * np.cos(2 * np.pi * k / (n - 1))


def windowed_sinc(cutoff, numtaps):
    m = np.arange(numtaps) - (numtaps - 1) / 2.0
    h = np.sinc(2 * cutoff * m) * hann_window(numtaps)
    h /= h.sum()
    return h


def apply_bank(bank, x):
    out = np.empty((len(bank), x.size))
    for i, taps in enumerate(bank):
        out[i] = np.convolve(x, taps, mode="same")
    return out


def band_energy(frames, axis=-1):
    spec = np.abs(np.fft.rfft(frames, axis=axis)) ** 2
    return spec.sum(axis=axis, keepdims=True) / frames.shape[axis]


def pre_emphasis(signal, coeff=0.97):
    out = signal.copy()
    out[1:] -= coeff * signal[:-1]
    return out


def remove_dc(x):
    x -= x.mean(axis=-1, keepdims=True)
    return x


def zero_crossing_rate(frames):
    signs = np.sign(frames)
    signs[signs == 0] = 1
    return np.mean(np.abs(np.diff(signs, axis=1)) > 0, axis=1)


def frame_signal(x, frame_len, hop):
    n_frames = 1 + (len(x) - frame_len) // hop
    idx = np.arange(frame_len)[None, :] + hop * np.arange(n_frames)[:, None]
    return x[idx]


def rms_envelope(x, win):
    sq = np.pad(x ** 2, (win // 2, win - 1 - win // 2), mode="edge")
    c = np.cumsum(sq)
    c = np.concatenate([[0.0], c])
    return np.sqrt((c[win:] - c[:-win]) / win)
