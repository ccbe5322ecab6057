"""Inputs for corpus/modules/kmeans.py (see corpus/README.md for the format)."""

import numpy as np

rng = np.random.default_rng(4)


def blobs(centres, per_cluster, spread=0.3):
    centres = np.asarray(centres, dtype=np.float32)
    points = [c + spread * rng.standard_normal((per_cluster, centres.shape[1])) for c in centres]
    return np.concatenate(points).astype(np.float32)


CENTRES_2D = [[0.0, 0.0], [3.0, 3.0], [0.0, 4.0]]
PTS_2D = blobs(CENTRES_2D, 20)
PTS_3D = blobs([[1.0, 0.0, 0.0], [-1.0, 2.0, 1.0]], 15)
INIT_2D = PTS_2D[[0, 25, 45]].copy()
INIT_3D = PTS_3D[[3, 20]].copy()
LABELS_2D = np.repeat(np.arange(3), 20)
LABELS_3D = np.repeat(np.arange(2), 15)
LABELS_EMPTY = np.zeros(30, dtype=np.int64)  # cluster 1 gets no points

EXAMPLES = {
    "pairwise_sq_distances": [(PTS_2D, INIT_2D), (PTS_3D, INIT_3D)],
    "assign": [(PTS_2D, INIT_2D), (PTS_3D, INIT_3D)],
    "update_centroids": [(PTS_2D, LABELS_2D, 3), (PTS_3D, LABELS_3D, 2), (PTS_3D, LABELS_EMPTY, 2)],
    "kmeans_step": [(PTS_2D, INIT_2D), (PTS_3D, INIT_3D)],
    "inertia": [(PTS_2D, INIT_2D, LABELS_2D), (PTS_3D, INIT_3D, LABELS_3D)],
    "centroid_shift": [(INIT_2D, INIT_2D + 0.5), (INIT_3D, INIT_3D * 2.0)],
    "one_hot": [(LABELS_2D, 3), (LABELS_3D, 4)],
    "kmeans": [(PTS_2D, INIT_2D), (PTS_3D, INIT_3D, 3)],
}
