"""Small 1-D signal filters: moving averages, exponential smoothing, FIR.

Written against the plain ``numpy`` namespace, the way a lot of lab code is.
"""
import numpy

#: Five-tap low-pass FIR kernel (a binomial window, already normalised).
LOWPASS_TAPS = numpy.array([1.0, 4.0, 6.0, 4.0, 1.0]) / 16.0


def moving_average(signal, window):
    """Mean over a sliding window of ``window`` samples ('valid' part only)."""
    kernel = numpy.ones(window) / window
    return numpy.convolve(signal, kernel, mode="valid")


def cumulative_moving_average(signal):
    # Running mean: cumsum divided by the number of samples seen so far.
    counts = numpy.arange(1, signal.shape[0] + 1)
    return numpy.cumsum(signal) / counts


def exponential_smoothing(signal, alpha):
    """Simple exponential smoothing, ``s[t] = alpha * x[t] + (1 - alpha) * s[t-1]``."""
    smoothed = [signal[0]]
    for value in signal[1:]:
        smoothed.append(alpha * value + (1.0 - alpha) * smoothed[-1])
    return numpy.stack(smoothed)


def fir_filter(signal: numpy.ndarray, taps: numpy.ndarray = LOWPASS_TAPS) -> numpy.ndarray:
    """Apply an FIR filter; output has the same length as the input."""
    return numpy.convolve(signal, taps, mode="same")


def remove_dc(signal):
    """Subtract the mean so the signal is centred on zero."""
    return signal - numpy.mean(signal)


def rms(signal: numpy.ndarray) -> float:
    return numpy.sqrt(numpy.mean(numpy.square(signal)))


def hann_window(n):
    """A Hann window of ``n`` points (``n`` is a Python int)."""
    k = numpy.arange(n)
    return 0.5 - 0.5 * numpy.cos(2.0 * numpy.pi * k / (n - 1))


def windowed_energy(signal, n_fft=16):
    """Energy of the Hann-windowed first ``n_fft`` samples in the frequency domain."""
    frame = signal[:n_fft] * hann_window(n_fft)
    spectrum = numpy.fft.rfft(frame)
    return numpy.sum(numpy.abs(spectrum) ** 2)


def zero_crossings(signal):
    """How many times the signal changes sign."""
    signs = numpy.sign(signal)
    return numpy.sum(numpy.abs(numpy.diff(signs)) > 0)


def mix_down(signal):
    """Multiply by a decaying carrier at a quarter of the sample rate, one sample at a time."""
    out = numpy.zeros_like(signal)
    for i in range(signal.shape[0]):
        out[i] = signal[i] * numpy.cos(0.5 * numpy.pi * i) * numpy.exp(-i / 50.0)
    return out
