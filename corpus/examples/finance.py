"""Inputs for corpus/modules/finance.py (see corpus/README.md for the format)."""

import numpy as np

rng = np.random.default_rng(3)


def prices(n_days, n_assets=None, vol=0.02):
    shape = (n_days,) if n_assets is None else (n_days, n_assets)
    steps = rng.normal(0.0005, vol, size=shape)
    return (100.0 * np.exp(np.cumsum(steps, axis=0))).astype(np.float32)


P1 = prices(60)
P3 = prices(120, 3)
P4 = prices(40, 4, vol=0.05)
R1 = rng.normal(0.001, 0.02, size=60).astype(np.float32)
R3 = rng.normal(0.001, 0.02, size=(80, 3)).astype(np.float32)
W3 = np.array([0.5, 0.3, 0.2], dtype=np.float32)
W4 = [1.0, 1.0, 2.0, 4.0]

EXAMPLES = {
    "simple_returns": [(P1,), (P3,)],
    "log_returns": [(P1,), (P4,)],
    "annualized_volatility": [(P1,), (P3,), (P4, 12)],
    "sharpe_ratio": [(R1,), (R3, 0.02), (R3, 0.0, 52)],
    "wealth_index": [(R1,), (R3, 1000.0)],
    "ewma": [(R1,), (R3, 0.3)],
    "rolling_volatility": [(R1,), (R3, 80), (R1[:10], 20)],  # many windows; one as long as the series; none
    "drawdown": [(P1,), (P3,)],
    "max_drawdown": [(P1,), (P4,)],
    "portfolio_returns": [(R3, W3), (rng.normal(0.0, 0.01, size=(30, 4)).astype(np.float32), W4)],
    "Portfolio.returns": [((P3, W3), ()), ((P4, W4), ())],
    "Portfolio.summary": [((P3, W3), ()), ((P4, W4), ())],
}
