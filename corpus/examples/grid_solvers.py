"""Inputs for corpus/modules/grid_solvers.py (see corpus/README.md for the format)."""

import numpy as np

rng = np.random.default_rng(11)

U9 = np.sin(np.linspace(0.0, np.pi, 9)).astype(np.float32)
U16 = rng.normal(size=16).astype(np.float32)

EXAMPLES = {
    "grid_size": [((3, 4),), ((2, 5, 7),)],
    "central_weights": [(1,), (2,)],
    "laplacian": [(U9, 0.125), (U16, 0.5)],
    "apply_stencil": [(U9, 0.125), (U16, 0.5)],
    "explicit_heat": [(U9, 0.2), (U16, 0.1, 5), (U9, 0.25, 0)],
    "implicit_step": [(U9, 0.01, 0.125), (U16, 0.005, 0.1)],
    # methods: ((constructor args), (call args)); the object's attributes are compared after the call too
    "HeatRod.__init__": [((U9, 0.1), (U16, 0.2))],
    "HeatRod.energy": [((U9, 0.1), ()), ((U16, 0.3), ())],
    "HeatRod.clamp_ends": [((U9, 0.1), (0.0,)), ((U16, 0.2), (1.5,))],
}
