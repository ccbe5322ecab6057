"""Simulations and recurrences that record their state at every step.

Each function keeps the per-step values in a Python list and stacks them at
the end, the way such code is usually written before anyone thinks about
compilation.
"""

import numpy as np
import functools
import jax
import jax.numpy as jnp


@functools.partial(jax.jit, static_argnums=(3,))
def projectile_path(position: np.ndarray, velocity: np.ndarray, dt, steps: int, drag=0.1):
    """Explicit Euler integration of a point mass under gravity and linear drag."""
    gravity = jnp.array([0.0, -9.81])
    def _loop_body(_carry, _step):
        velocity, position = _carry
        acceleration = gravity - drag * velocity
        velocity = velocity + dt * acceleration
        position = position + dt * velocity
        positions = position
        velocities = velocity
        return (velocity, position), (positions, velocities)
    (velocity, position), (positions, velocities) = jax.lax.scan(_loop_body, (velocity, position), length=len(range(steps)))
    return jnp.stack(positions), jnp.stack(velocities)


@jax.jit
def rnn_hidden_states(inputs, w_in, w_rec, bias):
    """Hidden states of an Elman network over a sequence (one row of ``inputs`` per time step)."""
    w_in = jnp.asarray(w_in)
    h = jnp.zeros(w_rec.shape[0])
    states = []
    for x_t in inputs:
        h = jnp.tanh(w_in @ x_t + w_rec @ h + bias)
        states.append(h)
    return jnp.stack(states)


@jax.jit
def ema_with_bias_correction(x, beta=0.9):
    """Adam-style bias-corrected exponential moving average of each row of ``x``."""
    m = jnp.zeros(x.shape[1:])
    def _loop_body(_carry, _):
        t, m = _carry
        m = beta * m + (1.0 - beta) * x[t]
        corrected = m / (1.0 - beta ** (t + 1))
        return (t + 1, m), corrected
    (t, m), corrected = jax.lax.scan(_loop_body, (0, m), length=len(range(x.shape[0])))
    return jnp.stack(corrected)


@jax.jit
def wealth_and_drawdown(returns):
    """Wealth path of a portfolio and its drawdown from the running peak."""
    wealth = jnp.ones(returns.shape[1:])
    peak = jnp.ones(returns.shape[1:])
    def _loop_body(_carry, _):
        t, wealth, peak = _carry
        wealth = wealth * (1.0 + returns[t])
        peak = jnp.maximum(peak, wealth)
        wealth_path = wealth
        drawdowns = 1.0 - wealth / peak
        return (t + 1, wealth, peak), (wealth_path, drawdowns)
    (t, wealth, peak), (wealth_path, drawdowns) = jax.lax.scan(_loop_body, (0, wealth, peak), length=len(range(returns.shape[0])))
    return jnp.stack(wealth_path), jnp.stack(drawdowns).max(axis=0)


@jax.jit
def kalman_1d(observations: np.ndarray, q=1e-3, r=0.1):
    """Scalar Kalman filter: filtered means and variances for a random-walk model."""
    mean = jnp.zeros(())
    var = jnp.ones(())
    def _loop_body(_carry, _):
        _i, var, mean = _carry
        z = observations[_i]
        var = var + q
        gain = var / (var + r)
        mean = mean + gain * (z - mean)
        var = (1.0 - gain) * var
        means = mean
        variances = var
        return (_i + 1, var, mean), (means, variances)
    (_i, var, mean), (means, variances) = jax.lax.scan(_loop_body, (0, var, mean), length=len(observations))
    return jnp.stack(means), jnp.stack(variances)


def heat_snapshots(u, alpha, steps: int, every: int):
    """Explicit 1-D heat equation with fixed ends; returns the rod every ``every`` steps (kept as a list)."""
    snapshots = []
    for n in range(steps):
        laplacian = jnp.zeros_like(u)
        laplacian = laplacian.at[1:-1].set(u[:-2] - 2.0 * u[1:-1] + u[2:])
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
    return jnp.array(orbit)
