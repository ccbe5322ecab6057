"""Iterative linear solvers, textbook style."""
import numpy as np


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


def gauss_seidel_sweep(A, b, x):
    n = A.shape[0]
    for i in range(n):
        s = A[i, :i] @ x[:i] + A[i, i + 1:] @ x[i + 1:]
        x[i] = (b[i] - s) / A[i, i]
    return x


def conjugate_gradient(A, b, tol=1e-10, maxiter=None):
    n = b.shape[0]
    if maxiter is None:
        maxiter = 10 * n
    x = np.zeros_like(b)
    r = b - A @ x
    p = r.copy()
    rs_old = r @ r
    for _ in range(maxiter):
        Ap = A @ p
        alpha = rs_old / (p @ Ap)
        x += alpha * p
        r -= alpha * Ap
        rs_new = r @ r
        if np.sqrt(rs_new) < tol:
            break
        p = r + (rs_new / rs_old) * p
        rs_old = rs_new
    return x


def residual_norm(A, x, b):
    return np.linalg.norm(A @ x - b) / np.linalg.norm(b)


def power_iteration(A, num_iter=100):
    v = np.ones(A.shape[1]) / np.sqrt(A.shape[1])
    for _ in range(num_iter):
        w = A.dot(v)
        v = w / np.linalg.norm(w)
    return v @ A @ v, v


def laplacian_1d(n, h=1.0):
    L = np.zeros((n, n))
    i = np.arange(n)
    L[i, i] = -2.0
    L[i[:-1], i[:-1] + 1] = 1.0
    L[i[1:], i[1:] - 1] = 1.0
    return L / h ** 2


def solve_normal_equations(X, y, ridge=0.0):
    XtX = X.T @ X
    XtX[np.diag_indices_from(XtX)] += ridge
    return np.linalg.solve(XtX, X.T @ y)


def lstsq_fit(X, y):
    coef, res, rank, sv = np.linalg.lstsq(X, y, rcond=None)
    return coef


def condition_number(A):
    s = np.linalg.svd(A, compute_uv=False)
    return s[0] / s[-1]


def symmetric_sqrt(A):
    w, V = np.linalg.eigh(A)
    w = np.clip(w, 0, None)
    return (V * np.sqrt(w)) @ V.T


def sor_step(A, b, x, omega=1.5):
    for i in range(A.shape[0]):
        sigma = np.dot(A[i], x) - A[i, i] * x[i]
        x[i] = (1 - omega) * x[i] + omega * (b[i] - sigma) / A[i, i]



def cholesky_factor(A):
    n = A.shape[0]
    L = np.zeros_like(A)
    for j in range(n):
        L[j, j] = np.sqrt(A[j, j] - np.sum(L[j, :j] ** 2))
        for i in range(j + 1, n):
            L[i, j] = (A[i, j] - np.sum(L[i, :j] * L[j, :j])) / L[j, j]
    return L


def cholesky_solve(A, b):
    """Solve A x = b for a symmetric positive definite A: L y = b, then L^T x = y."""
    L = cholesky_factor(A)
    n = L.shape[0]
    y = np.zeros(n)
    for i in range(n):
        y[i] = (b[i] - np.dot(L[i, :i], y[:i])) / L[i, i]
    x = np.zeros(n)
    for i in range(n - 1, -1, -1):
        x[i] = (y[i] - L[i + 1:, i] @ x[i + 1:]) / L[i, i]
    return x


def jacobi_to_tolerance(A, b, tol=1e-6, max_iter=200):
    """Jacobi iterations until the update is below `tol` (or `max_iter` sweeps); also returns the sweep count."""
    D = np.diag(A)
    R = A - np.diagflat(D)
    x = np.zeros_like(b)
    err = np.inf
    it = 0
    while it < max_iter and err > tol:
        x_new = (b - R @ x) / D
        err = np.linalg.norm(x_new - x)
        x = x_new
        it += 1
    return x, it


def newton_sqrt(a, tol=1e-6):
    """Elementwise square roots of a positive array by Newton's method."""
    x = np.maximum(a, 1.0)
    while np.max(np.abs(x * x - a)) > tol * np.max(a):
        x = 0.5 * (x + a / x)
    return x


def bisect_cube_root(c, tol=1e-4, max_steps=60):
    """Elementwise cube roots of a non-negative array by bisection; also returns the number of halvings."""
    lo = np.zeros_like(c)
    hi = np.maximum(c, 1.0)
    steps = 0
    while True:
        mid = 0.5 * (lo + hi)
        below = mid * mid * mid < c
        lo = np.where(below, mid, lo)
        hi = np.where(below, hi, mid)
        steps += 1
        if np.max(hi - lo) < tol or steps >= max_steps:
            break
    return mid, steps
