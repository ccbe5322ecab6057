"""Inputs for corpus/modules/iterative_solvers.py (see corpus/README.md for the format)."""

import numpy as np
rng = np.random.default_rng(1)
M = rng.normal(size=(5, 5)).astype(np.float32)
SPD = (M @ M.T + 5 * np.eye(5)).astype(np.float32)
b = rng.normal(size=5).astype(np.float32)
X = rng.normal(size=(12, 3)).astype(np.float32)
y = rng.normal(size=12).astype(np.float32)
SPD2, SPD1 = SPD[:2, :2].copy(), SPD[:1, :1].copy()
EXAMPLES = {
    "gauss_seidel_sweep": [(SPD, b, np.zeros(5, np.float32)), (SPD, b, b)],
    "jacobi": [(SPD, b), (SPD, b, np.zeros(5, np.float32), 1e-4, 50)],
    "conjugate_gradient": [(SPD, b, 1e-4), (SPD, b, 1e-4, 3)],
    "residual_norm": [(SPD, b, b)],
    "power_iteration": [(SPD,), (SPD, 20)],
    "laplacian_1d": [(5,), (4, 0.5)],
    "solve_normal_equations": [(X, y), (X, y, 0.5)],
    "lstsq_fit": [(X, y)],
    "condition_number": [(SPD,)],
    "symmetric_sqrt": [(SPD,), (M,)],  # M is not symmetric: NumPy reads its lower triangle
    "sor_step": [(SPD, b, np.zeros(5, np.float32))],
    "cholesky_factor": [(SPD,), (SPD2,), (SPD1,)],
    # converged at the first sweep, out of sweeps, no sweep at all
    "jacobi_to_tolerance": [(SPD, np.zeros(5, np.float32)), (SPD + np.diag(np.abs(SPD).sum(1)), b, 1e-4, 3), (SPD, b, 1e-4, 0)],
    "newton_sqrt": [(np.array([4.0, 9.0, 2.0, 0.5], np.float32), 1e-4), (np.ones(3, np.float32),)],
    "cholesky_solve": [(SPD, b), (SPD2, b[:2].copy()), (SPD1, b[:1].copy())],
    # to tolerance, stopped at the first halving, out of halvings
    "bisect_cube_root": [(np.array([8.0, 2.0, 0.5, 27.0], np.float32),), (np.array([8.0, 2.0], np.float32), 10.0),
                         (np.array([8.0, 2.0], np.float32), 1e-4, 5)],
}
