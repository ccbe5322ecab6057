"""Inputs for corpus/modules/rigid_motion.py (see corpus/README.md for the format)."""

import numpy as np

rng = np.random.default_rng(7)
R = np.array([[0.36, -0.48, 0.8], [0.8, 0.6, 0.0], [-0.48, 0.64, 0.6]], np.float32)
y = rng.normal(size=3).astype(np.float32)
EXAMPLES = {
    "rot_z": [(0.3,), (-2.0,)],
    "euler_zyx": [(R,), (np.eye(3, dtype=np.float32),)],
    "trace_of": [(R,)],
    "spin": [(0.0, y)],
    "rotate_and_step": [(0.3, y), (1.2, y, 0.05)],
}
