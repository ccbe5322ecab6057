"""Inputs for corpus/modules/hazards.py (see corpus/README.md for the format).

Only the functions the migration could rewrite without an error have inputs:
the others are reported as unsupported and never compared.
"""

import numpy as np

rng = np.random.default_rng(9)

WITH_NAN = rng.normal(size=(6, 3)).astype(np.float32)
WITH_NAN[[1, 4, 2], [0, 1, 2]] = np.nan  # at most one NaN per column: no ties

EXAMPLES = {
    "zero_negatives": [(rng.normal(size=6).astype(np.float32),), (rng.normal(size=(3, 4)).astype(np.float32),)],
    "ensure_array": [(rng.normal(size=4).astype(np.float32),), ([1.0, 2.5, 3.0],)],
    "round_prices": [(np.array([1.234, 5.678, 9.1], dtype=np.float32),)],
    "round_to_units": [(np.array([0.4, 1.6, -2.3, 7.0], dtype=np.float32),), (rng.normal(size=(3, 3)).astype(np.float32) * 10,)],
    "clean_and_rank": [(WITH_NAN,), (rng.normal(size=(8, 2)).astype(np.float32),)],
    # repeated indices: np.add.at counts each one, and so does .at[].add
    "histogram_counts": [(np.array([0, 2, 2, 4, 2, 1]), 5), (rng.integers(0, 7, size=40), 7)],
}
