"""SciPy calls rewritten to their jax.scipy twins (np2jax/analysis/scipy_twins.py): each twin computes what
SciPy does on the inputs below, the rewritten functions are jitted and agree with the originals, and the
calls whose options jax lacks or treats differently stay SciPy, reported (NPJ113)."""

from __future__ import annotations

import importlib

import jax
import numpy as np
import pytest
import scipy.linalg
import scipy.special

from np2jax.analysis.scipy_twins import TWINS
from tests.test_real_code_regressions import migrated_pair, record

RNG = np.random.default_rng(7)
A = RNG.normal(size=(4, 4))
SPD = A @ A.T + 4 * np.eye(4)
LOPSIDED = SPD + np.triu(RNG.normal(size=(4, 4)), 1)  # the upper triangle is not the lower's mirror
b, B = RNG.normal(size=4), RNG.normal(size=(4, 2))
X = np.concatenate([np.linspace(-30, 30, 61), [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-300]])
P = np.concatenate([np.linspace(0, 1, 11), [-0.5, 1.5, np.nan]])
M = RNG.normal(size=(3, 5))

# (SciPy function, positional arguments, keyword arguments): every twin is exercised
CASES = [
    *[("scipy.linalg.inv", (m,), {}) for m in (A, SPD, A.astype(np.float32))],
    *[("scipy.linalg.expm", (m,), {}) for m in (A, 8 * A, np.array([[2.0]]), A.astype(np.float32))],
    *[("scipy.linalg.cholesky", (m,), {"lower": lower}) for m in (SPD, LOPSIDED) for lower in (False, True)],
    ("scipy.linalg.cholesky", (SPD.astype(np.float32), True), {}),
    *[("scipy.linalg.solve", (m, rhs), kw) for m in (A, LOPSIDED) for rhs in (b, B) for kw in ({}, {"assume_a": "gen"})],
    *[("scipy.linalg.solve", (LOPSIDED, b), {"assume_a": "pos", "lower": lower}) for lower in (False, True)],
    *[("scipy.linalg.solve_triangular", (A, rhs, trans, lower, unit), {})
      for rhs in (b, B) for trans in (0, 1, "T") for lower in (False, True) for unit in (False, True)],
    *[("scipy.linalg.qr", (m,), {"mode": mode}) for m in (A, A[:3], np.vstack([A, A[:1]])) for mode in ("full", "economic", "r")],
    ("scipy.linalg.qr", (A.astype(np.float32),), {}),
    ("scipy.linalg.block_diag", (A, b, 3.0, B), {}),
    ("scipy.linalg.block_diag", (np.eye(2, dtype=int), np.array([[1, 2]])), {}),
    *[(f"scipy.special.{name}", (x,), {}) for name in "expit erf erfc erfcx i0 i0e i1 i1e entr".split()
      for x in (X, X.astype(np.float32))],
    *[(f"scipy.special.{name}", (P,), {}) for name in ("logit", "erfinv", "ndtri")],
    *[(f"scipy.special.{name}", (X[:, None], P[None]), {}) for name in ("xlogy", "xlog1py")],
    *[("scipy.special.logsumexp", (M,), {"axis": axis}) for axis in (None, 0, 1, -1)],
    ("scipy.special.logsumexp", (M, 1, np.abs(M), True), {}),
    ("scipy.special.logsumexp", (M,), {"axis": 1, "b": M, "return_sign": True}),
    ("scipy.special.logsumexp", (np.array([-np.inf, -np.inf]),), {}),
    *[(f"scipy.special.{name}", (M,), {"axis": axis}) for name in ("softmax", "log_softmax") for axis in (None, 0, -1)],
    *[(f"scipy.stats.norm.{name}", (X, 1.5, 2.0), {}) for name in "pdf logpdf cdf logcdf sf logsf".split()],
    ("scipy.stats.norm.ppf", (P,), {"loc": -1.0}),
]


def _function(qualname: str):
    module, _, name = qualname.rpartition(".")
    if module.endswith(".norm"):
        return getattr(getattr(importlib.import_module(module.rpartition(".")[0]), "norm"), name)
    return getattr(importlib.import_module(module), name)


def test_every_twin_is_exercised():
    assert {case[0] for case in CASES} == set(TWINS)


@pytest.mark.parametrize("qualname, args, kwargs", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_the_twin_computes_what_scipy_does(qualname, args, kwargs):
    """Same shapes, dtypes and values (x64 on, as NumPy computes in float64)."""
    with np.errstate(all="ignore"):
        expected = _function(qualname)(*args, **kwargs)
    with jax.enable_x64(True):
        found = _function(TWINS[qualname].target)(*args, **kwargs)
    expected = expected if isinstance(expected, tuple) else (expected,)
    found = found if isinstance(found, tuple) else (found,)
    assert len(found) == len(expected)
    for want, got in zip(expected, found):
        want, got = np.asarray(want), np.asarray(got)
        assert got.shape == want.shape and got.dtype == want.dtype, (got.shape, want.shape, got.dtype, want.dtype)
        tolerance = 2e-6 if want.dtype == np.float32 else 1e-9
        np.testing.assert_allclose(got, want, rtol=tolerance, atol=tolerance * 1e-3, equal_nan=True)


SOURCE = """
import numpy as np
from scipy import linalg
import scipy.linalg as sla
from scipy.linalg import cholesky, block_diag
from scipy.special import expit, logsumexp
from scipy.stats import norm


def kalman_update(x, P, z, H, R):
    S = H @ P @ H.T + R
    K = P @ H.T @ sla.inv(S)
    x = x + K @ (z - H @ x)
    P = (np.eye(P.shape[0]) - K @ H) @ P
    return x, P


def sigma_points(x, P, kappa=1.0):
    n = x.shape[0]
    U = cholesky((n + kappa) * P)
    pts = np.zeros((2 * n + 1, n))
    pts[0] = x
    for k in range(n):
        pts[k + 1] = x + U[k]
        pts[n + k + 1] = x - U[k]
    return pts


def process_noise(q, dt):
    block = q * np.array([[dt ** 3 / 3, dt ** 2 / 2], [dt ** 2 / 2, dt]])
    return block_diag(block, block)


def discretise(F, dt):
    return linalg.expm(F * dt)


def logistic_nll(w, X, y):
    p = expit(X @ w)
    return -np.mean(y * np.log(p) + (1 - y) * np.log(1 - p))


def log_normalise(logits):
    return logits - logsumexp(logits, axis=-1, keepdims=True)


def band(x, mu):
    return norm.cdf(x, mu, 2.0) - norm.cdf(x - 1.0, mu)


def solve_symmetric(a, rhs):
    return linalg.solve(a, rhs, assume_a="sym")


def gaussian(x, mu, sigma):
    return norm.pdf(x, mu, sigma)


def whitened(a, rhs, how):
    return linalg.solve(a, rhs, assume_a=how)


def safe_inverse(a):
    try:
        return linalg.inv(a)
    except np.linalg.LinAlgError:
        return np.zeros_like(a)
"""


def test_twins_are_rewritten_jitted_and_agree_with_scipy():
    result, original, migrated = migrated_pair(SOURCE)
    output = result.output.decode()
    for name in ("kalman_update", "sigma_points", "process_noise", "discretise", "logistic_nll", "log_normalise", "band"):
        assert record(result, name).status == "migrated" and record(result, name).jit, name
    assert "import scipy.linalg as sla" not in output  # every use rewritten: the import goes
    assert "from scipy.linalg import" not in output
    assert "from scipy import linalg\n" in output  # still used by the functions left SciPy
    assert "jax.scipy.linalg.inv(S)" in output and "jax.scipy.special.logsumexp(logits, axis=-1, keepdims=True)" in output
    x, P, z = np.array([0.5, -1.0]), np.array([[2.0, 0.3], [0.3, 1.0]]), np.array([0.7])
    H, R = np.array([[1.0, 0.0]]), np.array([[0.25]])
    for got, want in zip(migrated.kalman_update(x, P, z, H, R), original.kalman_update(x, P, z, H, R)):
        np.testing.assert_allclose(got, want, rtol=1e-5)
    np.testing.assert_allclose(migrated.sigma_points(x, P), original.sigma_points(x, P), rtol=1e-5)
    np.testing.assert_allclose(migrated.process_noise(0.1, 0.5), original.process_noise(0.1, 0.5), rtol=1e-6)
    F = np.array([[0.0, 1.0], [-2.0, -0.3]])
    np.testing.assert_allclose(migrated.discretise(F, 0.1), original.discretise(F, 0.1), rtol=1e-5)
    w, Xs, y = np.array([0.3, -0.2]), RNG.normal(size=(6, 2)), np.array([0, 1, 1, 0, 1, 0.0])
    np.testing.assert_allclose(migrated.logistic_nll(w, Xs, y), original.logistic_nll(w, Xs, y), rtol=1e-5)
    np.testing.assert_allclose(migrated.log_normalise(M), original.log_normalise(M), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(migrated.band(X[:40], 0.5), original.band(X[:40], 0.5), rtol=1e-4, atol=1e-7)


def test_calls_jax_treats_differently_stay_scipy_and_reported():
    """assume_a="sym" (SciPy reads one triangle), a scale that may be <= 0 (SciPy: nan), an option not known at
    migration time; a handler of SciPy's LinAlgError (jax never raises it) is NPJ118."""
    result, _, _ = migrated_pair(SOURCE)
    for name in ("solve_symmetric", "gaussian", "whitened"):
        assert record(result, name).status == "unsupported", name
        assert any(d.code == "NPJ113" and d.line == record(result, name).line + 1 for d in result.diagnostics), name
    flagged = [d for d in result.diagnostics if d.code == "NPJ118"]
    assert len(flagged) == 1 and "`scipy.linalg.inv`" in flagged[0].message


def test_static_options_of_a_twin_make_the_parameter_static():
    """logsumexp's axis from a parameter: jax.jit must know it, as for jnp.sum's."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np
        from scipy.special import logsumexp

        def pooled(x, axis):
            return logsumexp(x, axis=axis) - np.log(x.shape[axis])
        """
    )
    assert record(result, "pooled").jit
    assert "@functools.partial(jax.jit, static_argnums=(1,))" in result.output.decode()
    for axis in (0, 1):
        np.testing.assert_allclose(migrated.pooled(M, axis), original.pooled(M, axis), rtol=1e-5)


def test_twins_that_would_differ_at_the_edges_stay_scipy():
    """hunt27: norm.isf (jax computes ppf(1 - q): inf for q = 1e-20, SciPy 9.26), block_diag given a Python number
    (float64 in SciPy beside float32 blocks), and a tuple reaching logsumexp's b= through a name (jax refuses it)
    stay SciPy, reported (NPJ113)."""
    result, original, migrated = migrated_pair(
        """
        import numpy as np
        from scipy.linalg import block_diag
        from scipy.special import logsumexp
        from scipy.stats import norm

        def critical(alpha, n):
            return norm.isf(alpha / n) + np.zeros(1)

        def noise(Q, q):
            return block_diag(Q, 0.1 * q, 0.01)

        def weighted(x, w=(1.0, 2.0, 3.0)):
            return logsumexp(x, b=w) + np.sum(x)
        """
    )
    for name in ("critical", "noise", "weighted"):
        assert record(result, name).status == "unsupported", name
    assert sum(d.code == "NPJ113" for d in result.diagnostics) == 3
    np.testing.assert_allclose(migrated.critical(1e-18, 100), original.critical(1e-18, 100))


def test_a_twin_of_values_jit_keeps_static_is_still_traced():
    """real27 L1 (PyEMD's significance test): with every parameter static, `stats.norm.ppf(...)` became its jax.scipy
    twin, a traced array under jit, and `not (e <= upper)` raised TracerBoolConversionError on every call; the
    twin's result now counts as traced, so the test blocks jit and the function runs un-jitted."""
    result, original, migrated = migrated_pair(
        """
        import math
        import numpy as np
        from scipy import stats

        def significance(e, T, N, alpha):
            k = abs(stats.norm.ppf((1 - alpha) / 2))
            upper = -T + k * math.sqrt(2 / N) * math.exp(T / 2)
            return not (e <= upper)
        """
    )
    assert not record(result, "significance").jit
    for args in ((0.5, 2.0, 100, 0.95), (-20.0, 2.0, 100, 0.95)):
        assert migrated.significance(*args) == original.significance(*args)
