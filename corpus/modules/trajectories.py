"""Simulations and recurrences that record their state at every step.

Each function keeps the per-step values in a Python list and stacks them at
the end, the way such code is usually written before anyone thinks about
compilation.
"""

import numpy as np


def projectile_path(position: np.ndarray, velocity: np.ndarray, dt, steps: int, drag=0.1):
    """Explicit Euler integration of a point mass under gravity and linear drag."""
    gravity = np.array([0.0, -9.81])
    positions = []
    velocities = []
    for _ in range(steps):
        acceleration = gravity - drag * velocity
        velocity = velocity + dt * acceleration
        position = position + dt * velocity
        positions.append(position)
        velocities.append(velocity)
    return np.stack(positions), np.stack(velocities)


def rnn_hidden_states(inputs, w_in, w_rec, bias):
    """Hidden states of an Elman network over a sequence (one row of ``inputs`` per time step)."""
    h = np.zeros(w_rec.shape[0])
    states = []
    for x_t in inputs:
        h = np.tanh(w_in @ x_t + w_rec @ h + bias)
        states.append(h)
    return np.stack(states)


def ema_with_bias_correction(x, beta=0.9):
    """Adam-style bias-corrected exponential moving average of each row of ``x``."""
    m = np.zeros(x.shape[1:])
    corrected = []
    for t in range(x.shape[0]):
        m = beta * m + (1.0 - beta) * x[t]
        corrected.append(m / (1.0 - beta ** (t + 1)))
    return np.stack(corrected)


def wealth_and_drawdown(returns):
    """Wealth path of a portfolio and its drawdown from the running peak."""
    wealth = np.ones(returns.shape[1:])
    peak = np.ones(returns.shape[1:])
    wealth_path = []
    drawdowns = []
    for t in range(returns.shape[0]):
        wealth = wealth * (1.0 + returns[t])
        peak = np.maximum(peak, wealth)
        wealth_path.append(wealth)
        drawdowns.append(1.0 - wealth / peak)
    return np.stack(wealth_path), np.stack(drawdowns).max(axis=0)


def kalman_1d(observations: np.ndarray, q=1e-3, r=0.1):
    """Scalar Kalman filter: filtered means and variances for a random-walk model."""
    mean = np.zeros(())
    var = np.ones(())
    means = []
    variances = []
    for z in observations:
        var = var + q
        gain = var / (var + r)
        mean = mean + gain * (z - mean)
        var = (1.0 - gain) * var
        means.append(mean)
        variances.append(var)
    return np.stack(means), np.stack(variances)


def heat_snapshots(u, alpha, steps: int, every: int):
    """Explicit 1-D heat equation with fixed ends; returns the rod every ``every`` steps (kept as a list)."""
    snapshots = []
    for n in range(steps):
        laplacian = np.zeros_like(u)
        laplacian[1:-1] = u[:-2] - 2.0 * u[1:-1] + u[2:]
        u = u + alpha * laplacian
        if n % every == 0:
            snapshots.append(u)
    return snapshots


def logistic_orbit(r, x0, steps: int):
    """Orbit of the logistic map, recorded with np.array (so an empty orbit is an empty float array)."""
    x = x0
    orbit = []
    for _ in range(steps):
        x = r * x * (1.0 - x)
        orbit.append(x)
    return np.array(orbit)
