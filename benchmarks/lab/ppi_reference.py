"""Reference implementations for the speed benchmark and the tests (not part of the library).

The straightforward stratified-bootstrap PPI, as layton-eval's compute_final_benchmark.py does it:
a faithful, deliberately unoptimised reference. Every replicate redoes what the original's
``get_ppi_inputs`` does: keep the human-labelled rows of other providers, take the model's
jury-score histogram, filter the pool to each bin and sample it with replacement with pandas,
then compute the power-tuned PPI++ estimate with ``ppi_py`` (Y = drawn human labels, Yhat =
drawn jury scores, Yhat_unlabeled = the model's jury scores). Bins are the float jury scores,
as there.

And the PPI++ point estimate of a mean in numpy (:func:`ppi_mean_pointestimate`), equal to
``ppi_py``'s to 1e-12 (tests/scoring/test_ppi.py). sideways does not need it: in
that bootstrap every replicate's estimate is the mean of the drawn labels whatever lambda is
(docs/method.md §4), so sideways.scoring.ppi samples those means directly.
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


def ppi_mean_pointestimate(
    Y: np.ndarray, Yhat: np.ndarray, Yhat_unlabeled: np.ndarray, lam: float | None = None
) -> float:
    """PPI++ point estimate of a scalar mean (Angelopoulos, Duchi, Zrnic 2023).

    theta(lam) = lam * mean(Yhat_unlabeled) + mean(Y - lam * Yhat)

    With ``lam=None`` lambda is power-tuned as ``ppi_py`` does: starting from the plain PPI
    estimate theta_1 = mean(Yhat_unlabeled) + mean(Y - Yhat), with g = Y - theta_1,
    h = Yhat - theta_1, h_u = Yhat_unlabeled - theta_1,

        lam = 2 Cov_n(g, h) / (2 (1 + n/N) Var(h ++ h_u)),  clipped to [0, 1],

    where Cov_n is the biased (1/n) covariance and Var the unbiased variance of the
    concatenation. Equals ``ppi_py.ppi_mean_pointestimate`` to rounding. One deviation: when
    every prediction is the same value (Var = 0) ppi_py returns nan; then theta(lam) is mean(Y)
    for every lam, so lam = 0 is used and mean(Y) returned.
    """
    Y = np.asarray(Y, dtype=float).ravel()
    Yhat = np.asarray(Yhat, dtype=float).ravel()
    Yhat_unlabeled = np.asarray(Yhat_unlabeled, dtype=float).ravel()
    if lam is None:
        lam = power_tuned_lambda(Y, Yhat, Yhat_unlabeled)
    return float((lam * Yhat_unlabeled).mean() + (Y - lam * Yhat).mean())


def power_tuned_lambda(Y: np.ndarray, Yhat: np.ndarray, Yhat_unlabeled: np.ndarray) -> float:
    """The PPI++ lambda for a mean, clipped to [0, 1] (see :func:`ppi_mean_pointestimate`)."""
    n, N = Y.shape[0], Yhat_unlabeled.shape[0]
    theta = Yhat_unlabeled.mean() + (Y - Yhat).mean()
    g = Y - theta
    h = Yhat - theta
    h_u = Yhat_unlabeled - theta
    gc = g - g.mean()
    hc = h - h.mean()
    cov = (1 / n) * (gc @ hc + hc @ gc)
    var = float(np.cov(np.concatenate([h, h_u])))
    if var == 0.0:
        return 0.0
    lam = cov / (2 * (1 + n / N) * var)
    return float(np.clip(lam, 0.0, 1.0))
