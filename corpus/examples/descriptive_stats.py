"""Inputs for corpus/modules/descriptive_stats.py (see corpus/README.md for the format)."""

import numpy as np

rng = np.random.default_rng(8)


def f32(*shape, loc=0.0, scale=1.0):
    return rng.normal(loc, scale, size=shape).astype(np.float32)


X_50x3 = f32(50, 3, loc=10.0, scale=2.0)
X_20x4 = f32(20, 4)
X_CONST = np.concatenate([f32(10, 2), np.full((10, 1), 5.0, dtype=np.float32)], axis=1)
SAMPLE = f32(200)
COV_3 = np.cov(X_50x3, rowvar=False).astype(np.float32)

EXAMPLES = {
    "zscore": [(X_50x3,), (X_20x4, 1), (X_CONST,)],
    "summary": [(X_50x3,), (X_20x4,)],
    "iqr": [(X_50x3,), (SAMPLE,)],
    "robust_scale": [(X_50x3,), (X_20x4,)],
    "covariance": [(X_50x3,), (X_20x4,)],
    "correlation": [(X_50x3,), (X_20x4,)],
    "mahalanobis": [(X_50x3, X_50x3.mean(axis=0), COV_3), (X_50x3[:5], np.zeros(3, np.float32), np.eye(3, dtype=np.float32))],
    "weighted_mean": [(X_50x3, np.linspace(0.0, 1.0, 50).astype(np.float32)), (X_20x4, np.ones(20, np.float32))],
    "to_float32": [(X_20x4,), (np.arange(5),)],
    "mean_float64": [(X_50x3,), (SAMPLE,)],
    "histogram_density": [(SAMPLE,), (f32(50), 5)],
    "ranks": [(SAMPLE[:20],), (np.array([3.0, 1.0, 2.0, 1.0, 3.0], dtype=np.float32),)],
    "standardized_moments": [(X_50x3,), (X_20x4,)],
    "coefficient_of_variation": [(X_50x3,), (np.concatenate([X_20x4[:, :2], np.zeros((20, 1), np.float32)], axis=1),)],
    "dispersion_index": [(rng.poisson(3.0, size=40).astype(np.float32),), (np.zeros(8, np.float32),), (np.array([0, 2, 5, 1]),)],
    "weighted_center": [(X_20x4, np.linspace(0.0, 1.0, 20).astype(np.float32)), (X_20x4, np.zeros(20, np.float32))],
    "finite_summary": [(np.where(SAMPLE > 1.5, np.nan, SAMPLE).astype(np.float32),),
                       (np.concatenate([SAMPLE[:30], np.array([np.inf, -np.inf, np.nan], np.float32)]),)],
    "pairwise_corr_matrix": [([SAMPLE[:50], SAMPLE[50:100], SAMPLE[100:150]],), ([f32(10), f32(10)],)],
}
