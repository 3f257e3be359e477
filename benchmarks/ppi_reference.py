"""The straightforward stratified-bootstrap PPI, as layton-eval's compute_final_benchmark.py does it.

A faithful, deliberately unoptimised reference for the speed benchmark and the tests (not part
of the library): every replicate samples the pool bin by bin with pandas, with replacement, and
computes the power-tuned PPI++ estimate with ``ppi_py`` (Y = drawn human labels, Yhat = drawn
jury scores, Yhat_unlabeled = the model's jury scores). Bins are the float jury scores, as there.
"""

from __future__ import annotations

import numpy as np
import pandas as pd


def reference_replicates(
    model_scores: np.ndarray, pool: pd.DataFrame, bootstrap: int, seed: int
) -> np.ndarray:
    """B PPI++ estimates for one model.

    ``model_scores``: the model's jury scores (floats); ``pool``: columns ``jury_score`` and
    ``human`` (the calibration rows of other providers).
    """
    from ppi_py import ppi_mean_pointestimate

    model_scores = np.asarray(model_scores, dtype=float)
    values, counts = np.unique(model_scores, return_counts=True)
    by_bin = {v: pool[pool["jury_score"] == v] for v in values}
    rng = np.random.default_rng(seed)
    out = np.empty(bootstrap)
    for b in range(bootstrap):
        drawn = pd.concat(
            [by_bin[v].sample(n=int(c), replace=True, random_state=rng) for v, c in zip(values, counts)]
        )
        out[b] = ppi_mean_pointestimate(
            drawn["human"].to_numpy(dtype=float),
            drawn["jury_score"].to_numpy(dtype=float),
            model_scores,
            lam=None,
        )[0]
    return out


def reference_interval(
    model_scores: np.ndarray, pool: pd.DataFrame, bootstrap: int, seed: int
) -> tuple[float, float, float, float]:
    """(score, lo, hi, half_width) from the 2.5th and 97.5th percentiles of the replicates."""
    reps = reference_replicates(model_scores, pool, bootstrap, seed)
    lo, hi = np.percentile(reps, [2.5, 97.5])
    return (lo + hi) / 2, float(lo), float(hi), (hi - lo) / 2
