"""Inputs for corpus/modules/integer_stats.py (see corpus/README.md for the format).

Values stay small enough for int32: past 2**31 - 1 JAX wraps where NumPy does not (NPJ115).
"""

import numpy as np

EXAMPLES = {
    "factorial_table": [(8,), (13,)],
    "n_choose_2": [(np.array([0.0, 1.0, 2.0, 5.0, 40.0], dtype=np.float32),)],
    "pairs_total": [(np.array([3, 4, 10, 0]),)],
    "triangular_number": [(10,), (1000,)],
    "checksum": [(np.array([3, 1, 4, 1, 5]),), (np.array([7, 0, 2, 9, 9, 1]),)],  # 7 codes or more overflow int32
    "label_counts": [(np.array([0, 2, 1, 2, 2, 0]), 3)],
    "flat_index": [(np.array([[1.0, 5.0, 2.0], [0.5, 3.0, 9.0]], dtype=np.float32),)],
    "grid_ids": [(3, 4)],
    "mean_count": [(np.array([1, 4, 2, 7]),)],
    "pages_per_reader": [(np.array([120, 37, 9]), np.array([4, 5, 2]))],  # a 0 reader differs: NPJ122
    "pages_per_reader_guarded": [(np.array([120, 37, 0, 9]), np.array([4, 0, 3, 2])), (np.array([5]), np.array([0]))],
}
