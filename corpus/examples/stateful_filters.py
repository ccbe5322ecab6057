"""Inputs for corpus/modules/stateful_filters.py (see corpus/README.md for the format)."""

import numpy as np

rng = np.random.default_rng(21)

KF_A = (0.1, 0.01, 0.5)
KF_B = (0.25, 0.05, 2.0)
ROWS = rng.normal(size=(4, 3)).astype(np.float32)
POINTS = rng.normal(size=(5, 2)).astype(np.float32)
ORIGIN = np.array([0.5, -0.25], dtype=np.float32)
DATA = (rng.normal(size=(6, 3)) * 3.0 + 1.0).astype(np.float32)
SAMPLE = np.array([1.0, 2.0, -3.0], dtype=np.float32)

EXAMPLES = {
    # methods: ((constructor args), (call args)); the object's attributes are compared after the call too
    "KalmanFilter.__init__": [(KF_A, KF_B)],
    "KalmanFilter.predict": [(KF_A, ()), (KF_B, ())],
    "KalmanFilter.update": [(KF_A, (np.array([1.3]),)), (KF_B, (np.array([-0.4]),))],
    "KalmanFilter.position": [(KF_A, ())],
    "KalmanFilter.state": [(KF_B, ())],
    "ExponentialMovingAverage.__init__": [(((3,), 0.2), ((2, 2), 0.5))],
    "ExponentialMovingAverage.update": [(((3,), 0.2), (SAMPLE,)), (((3,), 0.9), (SAMPLE * 2,))],
    "ExponentialMovingAverage.reset": [(((3,), 0.2), ())],
    # functions that now return the argument they wrote into: compared with NumPy's argument after the call
    "normalize_rows_": [(ROWS,), (POINTS,)],
    "_center": [(DATA,), (ROWS,)],
    "unit_directions": [(POINTS, ORIGIN)],
    "standardize": [(DATA,)],
}
