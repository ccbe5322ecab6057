"""Portfolio statistics on daily price series.

Prices are arrays of shape ``(n_days,)`` or ``(n_days, n_assets)``.
"""

from __future__ import annotations

from numpy import (
    asarray,
    cumprod,
    diff,
    empty_like,
    float32,
    log,
    maximum,
    mean,
    sqrt,
    std,  # always called with ddof=1 below: sample statistics
)
import functools
import jax
import jax.numpy as jnp

TRADING_DAYS = 252


@jax.jit
def simple_returns(prices):
    """Day-over-day relative change."""
    return jnp.diff(prices, axis=0) / prices[:-1]


@jax.jit
def log_returns(prices):
    prices = jnp.asarray(prices)
    return jnp.diff(jnp.log(prices), axis=0)


@jax.jit
def annualized_volatility(prices, periods=TRADING_DAYS):
    """Standard deviation of log returns, scaled to a year."""
    return jnp.std(log_returns(prices), axis=0, ddof=1) * jnp.sqrt(periods).astype(float)


@jax.jit
def sharpe_ratio(returns, risk_free=0.0, periods=TRADING_DAYS):
    """Annualised Sharpe ratio of a series of periodic returns."""
    returns = jnp.asarray(returns)
    excess = returns - risk_free / periods
    return jnp.mean(excess, axis=0) / jnp.std(excess, axis=0, ddof=1) * jnp.sqrt(periods).astype(float)


@jax.jit
def wealth_index(returns, start=1.0):
    # Compound the returns into the value of an initial investment.
    return start * jnp.cumprod(1.0 + returns, axis=0)


@jax.jit
def ewma(returns, alpha=0.06):
    """Exponentially weighted moving average, filled in one day at a time."""
    out = jnp.empty_like(returns)
    out = out.at[0].set(returns[0])
    if 1 < returns.shape[0]:
        def _loop_body(t, out):
            out = out.at[t].set(alpha * returns[t] + (1.0 - alpha) * out[t - 1])
            return out
        out = jax.lax.fori_loop(1, returns.shape[0], _loop_body, out)
    return out


@functools.partial(jax.jit, static_argnums=(1,))
def rolling_volatility(returns, window=20):
    """Annualised sample volatility over each trailing window of ``window`` days."""
    n_days = returns.shape[0]
    out = jnp.empty_like(returns[window - 1:])
    if 0 < n_days - window + 1:
        def _loop_body(t, out):
            out = out.at[t].set(jnp.std(jax.lax.dynamic_slice_in_dim(returns, t, window) * 1.0, axis=0, ddof=1))
            return out
        out = jax.lax.fori_loop(0, n_days - window + 1, _loop_body, out)
    return out * sqrt(TRADING_DAYS)


@jax.jit
def drawdown(prices):
    """Relative distance from the running peak (0 at a new high, negative below)."""
    prices = jnp.asarray(prices)
    running_peak = jnp.maximum.accumulate(prices, axis=0)
    return prices / running_peak - 1.0


@jax.jit
def max_drawdown(prices):
    """The worst peak-to-trough loss, as a negative fraction."""
    return drawdown(prices).min(axis=0)


@jax.jit
def portfolio_returns(asset_returns, weights):
    """Daily returns of a fixed-weight portfolio (weights are renormalised)."""
    asset_returns = jnp.asarray(asset_returns)
    weights = jnp.asarray(weights, dtype=float32)
    weights = weights / weights.sum()
    return asset_returns @ weights


class Portfolio:
    """A fixed-weight portfolio over a price matrix."""

    def __init__(self, prices, weights):
        self.prices = prices
        self.weights = weights

    def returns(self):
        return portfolio_returns(simple_returns(self.prices), self.weights)

    def summary(self):
        """Mean daily return, annualised volatility and Sharpe ratio."""
        r = self.returns()
        vol = jnp.std(r, ddof=1) * sqrt(TRADING_DAYS)
        return jnp.mean(r), vol, sharpe_ratio(r)
