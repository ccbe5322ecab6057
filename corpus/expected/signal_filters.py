"""Small 1-D signal filters: moving averages, exponential smoothing, FIR.

Written against the plain ``numpy`` namespace, the way a lot of lab code is.
"""
import numpy
import functools
import jax
import jax.numpy as jnp

#: Five-tap low-pass FIR kernel (a binomial window, already normalised).
LOWPASS_TAPS = numpy.array([1.0, 4.0, 6.0, 4.0, 1.0]) / 16.0


@functools.partial(jax.jit, static_argnums=(1,))
def moving_average(signal, window):
    """Mean over a sliding window of ``window`` samples ('valid' part only)."""
    signal = jnp.asarray(signal)
    kernel = jnp.ones(window) / window
    return jnp.convolve(signal, kernel, mode="valid", preferred_element_type=jnp.result_type(signal, kernel))


@jax.jit
def cumulative_moving_average(signal):
    # Running mean: cumsum divided by the number of samples seen so far.
    counts = jnp.arange(1, signal.shape[0] + 1)
    return jnp.cumsum(signal, dtype=jnp.sum(signal).dtype) / counts.astype(float)


def exponential_smoothing(signal, alpha):
    """Simple exponential smoothing, ``s[t] = alpha * x[t] + (1 - alpha) * s[t-1]``."""
    smoothed = [signal[0]]
    for value in signal[1:]:
        smoothed.append(alpha * value + (1.0 - alpha) * smoothed[-1])
    return jnp.stack(smoothed)


@jax.jit
def fir_filter(signal: numpy.ndarray, taps: numpy.ndarray = LOWPASS_TAPS) -> numpy.ndarray:
    """Apply an FIR filter; output has the same length as the input."""
    return jnp.convolve(signal, taps, mode="same", preferred_element_type=jnp.result_type(signal, taps))


@jax.jit
def remove_dc(signal):
    """Subtract the mean so the signal is centred on zero."""
    signal = jnp.asarray(signal)
    return signal - jnp.mean(signal * 1.0)


@jax.jit
def rms(signal: numpy.ndarray) -> float:
    return jnp.sqrt(jnp.mean(jnp.square(signal) * 1.0))


@functools.partial(jax.jit, static_argnums=(0,))
def hann_window(n):
    """A Hann window of ``n`` points (``n`` is a Python int)."""
    k = jnp.arange(n)
    return 0.5 - 0.5 * jnp.cos(2.0 * numpy.pi * k.astype(float) / (n - 1))


@functools.partial(jax.jit, static_argnums=(1,))
def windowed_energy(signal, n_fft=16):
    """Energy of the Hann-windowed first ``n_fft`` samples in the frequency domain."""
    frame = signal[:n_fft] * hann_window(n_fft)
    spectrum = jnp.fft.rfft(frame)
    return jnp.sum(jnp.abs(spectrum) ** 2)


@jax.jit
def zero_crossings(signal):
    """How many times the signal changes sign."""
    signal = jnp.asarray(signal)
    signs = jnp.sign(signal)
    return jnp.sum(jnp.abs(jnp.diff(signs)) > 0)


@jax.jit
def mix_down(signal):
    """Multiply by a decaying carrier at a quarter of the sample rate, one sample at a time."""
    out = jnp.zeros_like(signal)
    if 0 < signal.shape[0]:
        def _loop_body(i, out):
            out = out.at[i].set(signal[i] * jnp.cos(0.5 * numpy.pi * i) * jnp.exp(-i / 50.0))
            return out
        out = jax.lax.fori_loop(0, signal.shape[0], _loop_body, out)
    return out
