"""Small FIR/IIR filter bank, numpy only."""
import numpy as np
import functools
import jax
import jax.numpy as jnp


@functools.partial(jax.jit, static_argnums=(1,))
def moving_average(x, n=5):
    x = jnp.asarray(x)
    kernel = jnp.ones(n) / n
    return jnp.convolve(x, kernel, mode="same", preferred_element_type=jnp.result_type(x, kernel))


def fir_filter(b, x):
    """Direct-form FIR: y[n] = sum_k b[k] x[n-k]."""
    y = np.zeros_like(x, dtype=float)
    for k in range(len(b)):
        y[k:] += b[k] * x[: len(x) - k]
    return y


@jax.jit
def lfilter(b, a, x):
    """Direct form I IIR filter (a[0] normalised)."""
    x = jnp.asarray(x)
    b = jnp.asarray(b, dtype=float) / a[0]
    a = jnp.asarray(a, dtype=float) / a[0]
    y = jnp.zeros(len(x))
    if 0 < len(x):
        def _loop_body_3(n, y):
            acc = 0.0
            if 0 < len(b):
                k = 0
                acc = jax.lax.cond(n - k >= 0, lambda: acc + (b[k] * x[n - k]), lambda: acc)
                def _loop_body(k, acc):
                    acc = jax.lax.cond(n - k >= 0, lambda: acc + (b[k] * x[n - k]), lambda: acc)
                    return acc
                acc = jax.lax.fori_loop(1, len(b), _loop_body, acc)
            if 1 < len(a):
                k = 1
                acc = jax.lax.cond(n - k >= 0, lambda: acc - (a[k] * y[n - k]), lambda: acc)
                def _loop_body_2(k, acc):
                    acc = jax.lax.cond(n - k >= 0, lambda: acc - (a[k] * y[n - k]), lambda: acc)
                    return acc
                acc = jax.lax.fori_loop(2, len(a), _loop_body_2, acc)
            y = y.at[n].set(acc)
            return y
        y = jax.lax.fori_loop(0, len(x), _loop_body_3, y)
    return y


@jax.jit
def one_pole_lowpass(x, alpha):
    y = jnp.empty_like(x)
    y = y.at[0].set(x[0])
    if 1 < x.shape[0]:
        def _loop_body(i, y):
            y = y.at[i].set(alpha * x[i] + (1 - alpha) * y[i - 1])
            return y
        y = jax.lax.fori_loop(1, x.shape[0], _loop_body, y)
    return y


@functools.partial(jax.jit, static_argnums=(0,))
def hann_window(n):
    k = jnp.arange(n)
    return 0.5 - 0.5 * jnp.cos(2 * np.pi * k.astype(float) / (n - 1))


@functools.partial(jax.jit, static_argnums=(1,))
def windowed_sinc(cutoff, numtaps):
    m = jnp.arange(numtaps) - (numtaps - 1) / 2.0
    h = jnp.sinc(2 * cutoff * m) * hann_window(numtaps)
    h /= h.sum()
    return h


@jax.jit
def apply_bank(bank, x):
    out = jnp.empty((len(bank), x.size))
    for i, taps in enumerate(bank):
        out = out.at[i].set(jnp.convolve(x, jnp.atleast_1d(taps), mode="same", preferred_element_type=jnp.result_type(x, taps)))
    return out


@functools.partial(jax.jit, static_argnums=(1,))
def band_energy(frames, axis=-1):
    spec = jnp.abs(jnp.fft.rfft(frames, axis=axis)) ** 2
    return spec.sum(axis=axis, keepdims=True) / frames.shape[axis]


@jax.jit
def pre_emphasis(signal, coeff=0.97):
    out = signal.copy()
    out = out.at[1:].subtract(coeff * signal[:-1])
    return out


@jax.jit
def remove_dc(x):
    x = x - x.mean(axis=-1, keepdims=True)
    return x


@jax.jit
def zero_crossing_rate(frames):
    frames = jnp.asarray(frames)
    signs = jnp.sign(frames)
    signs = jnp.where(signs == 0, jnp.asarray(1, signs.dtype), signs)
    return jnp.mean(jnp.abs(jnp.diff(signs, axis=1)) > 0, axis=1, dtype=float)


@functools.partial(jax.jit, static_argnums=(1, 2))
def frame_signal(x, frame_len, hop):
    n_frames = 1 + (len(x) - frame_len) // hop
    idx = jnp.arange(frame_len)[None, :] + hop * jnp.arange(n_frames)[:, None]
    return x[idx]


@functools.partial(jax.jit, static_argnums=(1,))
def rms_envelope(x, win):
    sq = jnp.pad(x ** 2, (win // 2, win - 1 - win // 2), mode="edge")
    c = jnp.cumsum(sq, dtype=jnp.sum(sq).dtype)
    c = jnp.concatenate([jnp.asarray([0.0]), c])
    return jnp.sqrt((c[win:] - c[:-win]) / win)
