"""Inputs for corpus/modules/robust_solvers.py (see corpus/README.md for the format).

The functions that catch LinAlgError or set np.errstate to raise stay NumPy (NPJ118) and are not compared.
"""

import numpy as np

rng = np.random.default_rng(17)

A = (np.eye(4) * 4.0 + rng.normal(scale=0.3, size=(4, 4))).astype(np.float32)
B = rng.normal(size=4).astype(np.float32)
X = rng.normal(size=(10, 3)).astype(np.float32)
Y = rng.normal(size=10).astype(np.float32)

EXAMPLES = {
    "jacobi": [(A, B, 1e-3, 50)],
    "residual_ok": [(A, np.linalg.solve(A, B), B), (A, B, B)],
    "ridge_solve": [(X, Y, 0.5)],
    "condition_number": [(A,)],
    "is_singular": [(A,)],
}
