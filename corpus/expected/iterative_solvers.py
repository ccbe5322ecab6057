"""Iterative linear solvers, textbook style."""
import numpy as np
import functools
import jax
import jax.numpy as jnp


def jacobi(A, b, x0=None, tol=1e-8, maxiter=500):
    n = len(b)
    x = np.zeros(n) if x0 is None else x0.copy()
    D = np.diag(A)
    R = A - np.diagflat(D)
    for it in range(maxiter):
        x_new = (b - R @ x) / D
        if np.linalg.norm(x_new - x, ord=np.inf) < tol:
            return x_new
        x = x_new
    return x


@jax.jit
def gauss_seidel_sweep(A, b, x):
    b = jnp.asarray(b)
    n = A.shape[0]
    if 0 < n:
        i = 0
        s = jnp.where(jax.lax.broadcasted_iota(int, A[i, :].shape, 0) < i, A[i, :], False) @ jnp.where(jax.lax.broadcasted_iota(int, x.shape, 0) < i, x, False) + jnp.where(jax.lax.broadcasted_iota(int, A[i, :].shape, 0) >= i + 1, A[i, :], False) @ jnp.where(jax.lax.broadcasted_iota(int, x.shape, 0) >= i + 1, x, False)
        x = x.at[i].set((b[i] - s) / A[i, i])
        def _loop_body(i, x):
            s = jnp.where(jax.lax.broadcasted_iota(int, A[i, :].shape, 0) < i, A[i, :], False) @ jnp.where(jax.lax.broadcasted_iota(int, x.shape, 0) < i, x, False) + jnp.where(jax.lax.broadcasted_iota(int, A[i, :].shape, 0) >= i + 1, A[i, :], False) @ jnp.where(jax.lax.broadcasted_iota(int, x.shape, 0) >= i + 1, x, False)
            x = x.at[i].set((b[i] - s) / A[i, i])
            return x
        x = jax.lax.fori_loop(1, n, _loop_body, x)
    return x


@functools.partial(jax.jit, static_argnums=(3,))
def conjugate_gradient(A, b, tol=1e-10, maxiter=None):
    A = jnp.asarray(A)
    n = b.shape[0]
    if maxiter is None:
        maxiter = 10 * n
    x = jnp.zeros_like(b)
    r = b - A @ x
    p = r.copy()
    rs_old = r @ r
    def _loop_cond(_carry):
        return jnp.logical_and(_carry[0] < maxiter, jnp.logical_not(_carry[1]))
    def _loop_body(_carry):
        _i, _done, x, r, p, rs_old = _carry
        Ap = A @ p
        alpha = rs_old / (p @ Ap)
        x += alpha * p
        r -= alpha * Ap
        rs_new = r @ r
        _done = jnp.sqrt(rs_new) < tol
        _kept_p = p
        _kept_rs_old = rs_old
        p = r + (rs_new / rs_old) * p
        rs_old = rs_new
        p = jnp.where(_done, _kept_p, p)
        rs_old = jnp.where(_done, _kept_rs_old, rs_old)
        return _i + 1, _done, x, r, p, rs_old
    x, r, p, rs_old = jax.lax.while_loop(_loop_cond, _loop_body, (0, False, x, r, p, rs_old))[2:]
    return x


@jax.jit
def residual_norm(A, x, b):
    A = jnp.asarray(A)
    x = jnp.asarray(x)
    b = jnp.asarray(b)
    return jnp.linalg.norm(A @ x - b) / jnp.linalg.norm(b)


@functools.partial(jax.jit, static_argnums=(1,))
def power_iteration(A, num_iter=100):
    v = jnp.ones(A.shape[1]) / np.sqrt(A.shape[1])
    def _loop_body(_, v):
        w = A.dot(v)
        v = w / jnp.linalg.norm(w)
        return v
    v = jax.lax.fori_loop(0, num_iter, _loop_body, v)
    return v @ A @ v, v


@functools.partial(jax.jit, static_argnums=(0,))
def laplacian_1d(n, h=1.0):
    L = jnp.zeros((n, n))
    i = jnp.arange(n)
    L = L.at[i, i].set(-2.0)
    L = L.at[i[:-1], i[:-1] + 1].set(1.0)
    L = L.at[i[1:], i[1:] - 1].set(1.0)
    return L / h ** 2


@jax.jit
def solve_normal_equations(X, y, ridge=0.0):
    y = jnp.asarray(y)
    XtX = X.T @ X
    XtX = XtX.at[jnp.diag_indices_from(XtX)].add(ridge)
    return jnp.linalg.solve(XtX, X.T @ y)


@jax.jit
def lstsq_fit(X, y):
    X = jnp.asarray(X)
    y = jnp.asarray(y)
    coef, res, rank, sv = jnp.linalg.lstsq(X, y, rcond=None)
    return coef


@jax.jit
def condition_number(A):
    A = jnp.asarray(A)
    s = jnp.linalg.svd(A, compute_uv=False)
    return s[0] / s[-1]


@jax.jit
def symmetric_sqrt(A):
    A = jnp.asarray(A)
    w, V = jnp.linalg.eigh(A, symmetrize_input=False)
    w = jnp.clip(w, 0, None)
    return (V * jnp.sqrt(w)) @ V.T


@jax.jit
def sor_step(A, b, x, omega=1.5):
    b = jnp.asarray(b)
    x = jnp.asarray(x)
    if 0 < A.shape[0]:
        i = 0
        sigma = jnp.dot(A[i], x) - A[i, i] * x[i]
        x = x.at[i].set((1 - omega) * x[i] + omega * (b[i] - sigma) / A[i, i])
        def _loop_body(i, x):
            sigma = jnp.dot(A[i], x) - A[i, i] * x[i]
            x = x.at[i].set((1 - omega) * x[i] + omega * (b[i] - sigma) / A[i, i])
            return x
        x = jax.lax.fori_loop(1, A.shape[0], _loop_body, x)
    return x



@jax.jit
def cholesky_factor(A):
    n = A.shape[0]
    L = jnp.zeros_like(A)
    if 0 < n:
        def _loop_body_2(j, L):
            L = L.at[j, j].set(jnp.sqrt(A[j, j] - jnp.sum(jnp.where(jax.lax.broadcasted_iota(int, L[j, :].shape, 0) < j, L[j, :], False) ** 2)))
            def _loop_body(i, L):
                L = L.at[i, j].set((A[i, j] - jnp.sum(jnp.where(jax.lax.broadcasted_iota(int, L[i, :].shape, 0) < j, L[i, :], False) * jnp.where(jax.lax.broadcasted_iota(int, L[j, :].shape, 0) < j, L[j, :], False))) / L[j, j])
                return L
            L = jax.lax.fori_loop(j + 1, n, _loop_body, L)
            return L
        L = jax.lax.fori_loop(0, n, _loop_body_2, L)
    return L


@jax.jit
def cholesky_solve(A, b):
    """Solve A x = b for a symmetric positive definite A: L y = b, then L^T x = y."""
    b = jnp.asarray(b)
    L = cholesky_factor(A)
    n = L.shape[0]
    y = jnp.zeros(n)
    if 0 < n:
        def _loop_body(i, y):
            y = y.at[i].set((b[i] - jnp.dot(jnp.where(jax.lax.broadcasted_iota(int, L[i, :].shape, 0) < i, L[i, :], False), jnp.where(jax.lax.broadcasted_iota(int, y.shape, 0) < i, y, False))) / L[i, i])
            return y
        y = jax.lax.fori_loop(0, n, _loop_body, y)
    x = jnp.zeros(n)
    if -1 < n - 1:
        def _loop_body_2(_minus_i, x):
            i = -_minus_i
            x = x.at[i].set((y[i] - jnp.where(jax.lax.broadcasted_iota(int, L[:, i].shape, 0) >= i + 1, L[:, i], False) @ jnp.where(jax.lax.broadcasted_iota(int, x.shape, 0) >= i + 1, x, False)) / L[i, i])
            return x
        x = jax.lax.fori_loop(-(n - 1), 1, _loop_body_2, x)
    return x


@functools.partial(jax.jit, static_argnums=(3,))
def jacobi_to_tolerance(A, b, tol=1e-6, max_iter=200):
    """Jacobi iterations until the update is below `tol` (or `max_iter` sweeps); also returns the sweep count."""
    A = jnp.asarray(A)
    b = jnp.asarray(b)
    D = jnp.diag(A)
    R = A - jnp.diagflat(D)
    x = jnp.zeros_like(b)
    err = np.inf
    it = 0
    def _loop_cond(_carry):
        err, x, it = _carry
        return jnp.logical_and(it < max_iter, err > tol)
    def _loop_body(_carry):
        err, x, it = _carry
        x_new = (b - R @ x) / D
        err = jnp.linalg.norm(x_new - x)
        x = x_new
        it += 1
        return err, x, it
    err, x, it = jax.lax.while_loop(_loop_cond, _loop_body, (err, x, it))
    return x, it


@jax.jit
def newton_sqrt(a, tol=1e-6):
    """Elementwise square roots of a positive array by Newton's method."""
    a = jnp.asarray(a)
    x = jnp.maximum(a, 1.0)
    def _loop_cond(x):
        return jnp.max(jnp.abs(x * x - a)) > tol * jnp.max(a)
    def _loop_body(x):
        x = 0.5 * (x + a / x)
        return x
    x = jax.lax.while_loop(_loop_cond, _loop_body, x)
    return x


@functools.partial(jax.jit, static_argnums=(2,))
def bisect_cube_root(c, tol=1e-4, max_steps=60):
    """Elementwise cube roots of a non-negative array by bisection; also returns the number of halvings."""
    lo = jnp.zeros_like(c)
    hi = jnp.maximum(c, 1.0)
    steps = 0
    mid = 0.5 * (lo + hi)
    below = mid * mid * mid < c
    lo = jnp.where(below, mid, lo)
    hi = jnp.where(below, hi, mid)
    steps += 1
    def _loop_cond(_carry):
        mid, lo, hi, steps = _carry
        return jnp.logical_not(jnp.logical_or(jnp.max(hi - lo) < tol, steps >= max_steps))
    def _loop_body(_carry):
        mid, lo, hi, steps = _carry
        mid = 0.5 * (lo + hi)
        below = mid * mid * mid < c
        lo = jnp.where(below, mid, lo)
        hi = jnp.where(below, hi, mid)
        steps += 1
        return mid, lo, hi, steps
    mid, lo, hi, steps = jax.lax.while_loop(_loop_cond, _loop_body, (mid, lo, hi, steps))
    return mid, steps
