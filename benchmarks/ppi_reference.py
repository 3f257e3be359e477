"""The straightforward stratified-bootstrap PPI, as layton-eval's compute_final_benchmark.py does it.

A faithful, deliberately unoptimised reference for the speed benchmark and the tests (not part
of the library). Every replicate redoes what the original's ``get_ppi_inputs`` does: keep the
human-labelled rows of other providers, take the model's jury-score histogram, filter the pool
to each bin and sample it with replacement with pandas, then compute the power-tuned PPI++
estimate with ``ppi_py`` (Y = drawn human labels, Yhat = drawn jury scores, Yhat_unlabeled =
the model's jury scores). Bins are the float jury scores, as there.
"""

from __future__ import annotations

import numpy as np
import pandas as pd


def reference_replicates(
    model_scores: np.ndarray, table: pd.DataFrame, provider: str, bootstrap: int, seed: int
) -> np.ndarray:
    """B PPI++ estimates for one model.

    ``model_scores``: the model's jury scores (floats); ``table``: every prediction of the
    calibration file with columns ``provider``, ``jury_score`` and ``human`` (NaN = unlabelled).
    """
    from ppi_py import ppi_mean_pointestimate

    model_scores = np.asarray(model_scores, dtype=float)
    rng = np.random.default_rng(seed)
    out = np.empty(bootstrap)
    for b in range(bootstrap):
        pool = table[(table["provider"] != provider) & table["human"].notna()]
        distribution = pd.Series(model_scores).value_counts()
        drawn = pd.concat(
            [pool[pool["jury_score"] == v].sample(n=int(c), replace=True, random_state=rng)
             for v, c in distribution.items()]
        )
        out[b] = ppi_mean_pointestimate(
            drawn["human"].to_numpy(dtype=float),
            drawn["jury_score"].to_numpy(dtype=float),
            model_scores,
            lam=None,
        )[0]
    return out


def reference_interval(
    model_scores: np.ndarray, table: pd.DataFrame, provider: str, bootstrap: int, seed: int
) -> tuple[float, float, float, float]:
    """(score, lo, hi, half_width) from the 2.5th and 97.5th percentiles of the replicates."""
    reps = reference_replicates(model_scores, table, provider, bootstrap, seed)
    lo, hi = np.percentile(reps, [2.5, 97.5])
    return (lo + hi) / 2, float(lo), float(hi), (hi - lo) / 2
