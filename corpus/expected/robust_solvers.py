"""Linear solvers with fallbacks, as found in fitting and calibration code.

Several functions rely on NumPy raising LinAlgError for singular or
non-positive-definite matrices; jax.numpy returns inf/nan instead, so these
must stay NumPy.  Iterative solvers compare residuals with tolerances chosen
for float64.
"""

import numpy as np
import functools
import jax
import jax.numpy as jnp


def solve_or_lstsq(A, b):
    """Exact solve, least squares when A is singular."""
    try:
        return np.linalg.solve(A, b)
    except np.linalg.LinAlgError:
        return np.linalg.lstsq(A, b, rcond=None)[0]


def is_positive_definite(S):
    try:
        np.linalg.cholesky(S)
        return True
    except np.linalg.LinAlgError:
        return False


def regularized_inverse(S, ridge=1e-6):
    """Inverse with a ridge added until it exists."""
    k = S.shape[0]
    for _ in range(5):
        try:
            return np.linalg.inv(S + ridge * np.eye(k))
        except ValueError:
            ridge *= 10.0
    return np.linalg.pinv(S)


def safe_log_ratio(a, b):
    with np.errstate(divide="raise", invalid="raise"):
        return np.log(a / b)


@functools.partial(jax.jit, static_argnums=(3,))
def jacobi(A, b, tol=1e-10, max_iter=200):
    """Jacobi iteration; stops when the update is below tol."""
    A = jnp.asarray(A)
    b = jnp.asarray(b)
    D = jnp.diag(A)
    R = A - jnp.diag(D)
    x = jnp.zeros_like(b)
    def _loop_cond(_carry):
        return jnp.logical_and(_carry[0] < max_iter, jnp.logical_not(_carry[1]))
    def _loop_body(_carry):
        _i, _done, x = _carry
        x_new = (b - R @ x) / D
        _done = jnp.linalg.norm(x_new - x) < tol
        x = x_new
        return _i + 1, _done, x
    x = jax.lax.while_loop(_loop_cond, _loop_body, (0, False, x))[2]
    return x


@jax.jit
def residual_ok(A, x, b):
    A = jnp.asarray(A)
    x = jnp.asarray(x)
    b = jnp.asarray(b)
    return jnp.linalg.norm(A @ x - b) <= 1e-6 * jnp.linalg.norm(b)


@jax.jit
def ridge_solve(X, y, lam):
    """Normal equations with a ridge: always solvable for lam > 0."""
    y = jnp.asarray(y)
    lam = jnp.asarray(lam)
    k = X.shape[1]
    return jnp.linalg.solve(X.T @ X + lam * jnp.eye(k), X.T @ y)


@jax.jit
def condition_number(A):
    A = jnp.asarray(A)
    s = jnp.linalg.svd(A, compute_uv=False)
    return s[0] / s[-1]


@jax.jit
def is_singular(A):
    A = jnp.asarray(A)
    return abs(jnp.linalg.det(A)) < np.finfo(float).eps
