"""Prediction-powered inference for a mean, and the stratified bootstrap of docs/method.md §4.

Plain numpy functions, in the style of ``ppi_py`` (no scipy at runtime).

Notation. ``Y`` are the human labels of the ``n`` labelled rows, ``Yhat`` the jury scores of
the same rows, ``Yhat_unlabeled`` the jury scores of the ``N`` rows whose mean we want.

The stratified bootstrap draws, for every jury-score bin v of the evaluated model, ``n_v``
labelled rows with replacement from the pool rows of bin v. The drawn set then has exactly the
model's histogram, so ``mean(Yhat) == mean(Yhat_unlabeled)`` and the PPI++ estimate of every
replicate is ``mean(Y)`` whatever lambda is (no PPI++ estimator is needed here; a numpy one,
checked against ``ppi_py``, is in benchmarks/lab/ppi_reference.py). Replicate b is therefore

    theta_b = (1/n) * sum_v S_v,   S_v ~ Binomial(n_v, p_v) independent,

where ``p_v`` is the share of positive labels among pool rows of bin v. That distribution can
be sampled directly (:func:`bootstrap_interval`, the "layton" mode) or computed exactly by
convolving the binomial pmfs (:func:`binomial_sum_pmf`, :func:`exact_quantile_counts`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

#: A float vector: the pmfs, and the label and score columns once converted.
FloatArray = npt.NDArray[np.float64]

#: Slack when comparing a cumulative sum of floats with a quantile level (exact mode): the
#: CDF is a sum of a few hundred floats, so a mathematically exact tie can land 1e-16 below.
CDF_TOLERANCE = 1e-12


def binomial_pmf(n: int, p: float) -> FloatArray:
    """pmf of Binomial(n, p) on 0..n, computed in log space (stable for large n)."""
    if n < 0 or not 0.0 <= p <= 1.0:
        raise ValueError(f"binomial_pmf: need n >= 0 and 0 <= p <= 1, got n={n}, p={p}")
    if p == 0.0 or p == 1.0 or n == 0:
        out = np.zeros(n + 1)
        out[n if p == 1.0 else 0] = 1.0
        return out
    k = np.arange(n + 1)
    log_fact = np.array([math.lgamma(i + 1) for i in range(n + 1)])
    log_pmf: FloatArray = log_fact[n] - log_fact[k] - log_fact[n - k] + k * math.log(p) + (n - k) * math.log1p(-p)
    return np.exp(log_pmf)


def binomial_sum_pmf(counts: Sequence[int], p: Sequence[float]) -> FloatArray:
    """pmf of S = sum_v S_v with independent S_v ~ Binomial(n_v, p_v), on 0..sum(n_v).

    P(S = k) = (pmf_1 * pmf_2 * ... )(k), the convolution of the binomial pmfs.
    """
    if len(counts) != len(p):
        raise ValueError(f"binomial_sum_pmf: {len(counts)} counts but {len(p)} probabilities")
    pmf = np.ones(1)
    for n_v, p_v in zip(counts, p, strict=True):
        pmf = np.convolve(pmf, binomial_pmf(int(n_v), float(p_v)))
    return pmf


def exact_quantile_counts(counts: Sequence[int], p: Sequence[float], alpha: float = 0.05) -> tuple[int, int]:
    """(k_lo, k_hi): the smallest k with CDF(k) >= alpha/2, resp. >= 1 - alpha/2 (integers).

    CDF is that of S = sum_v S_v (:func:`binomial_sum_pmf`); the comparison allows
    :data:`CDF_TOLERANCE` of float error so exact ties are not lost to rounding.
    """
    cdf = np.cumsum(binomial_sum_pmf(counts, p))
    k_lo = int(np.argmax(cdf >= alpha / 2 - CDF_TOLERANCE))
    k_hi = int(np.argmax(cdf >= 1 - alpha / 2 - CDF_TOLERANCE))
    return k_lo, k_hi


def bootstrap_interval(
    counts: Sequence[int],
    p: Sequence[float],
    bootstrap: int,
    rng: np.random.Generator,
    alpha: float = 0.05,
) -> tuple[float, float]:
    """Monte Carlo (lo, hi) of the stratified bootstrap ("layton" mode, docs/method.md §4).

    For b = 1..B: theta_b = (1/n) sum_v S_v with S_v ~ Binomial(n_v, p_v) drawn from ``rng``,
    bin after bin in the order given. lo and hi are numpy's linear-interpolation percentiles
    100 * alpha/2 and 100 * (1 - alpha/2) of the B replicates.
    """
    if len(counts) != len(p):
        raise ValueError(f"bootstrap_interval: {len(counts)} counts but {len(p)} probabilities")
    n = int(sum(counts))
    if n == 0:
        raise ValueError("bootstrap_interval: no observations (all counts are zero)")
    if bootstrap < 1:
        raise ValueError(f"bootstrap_interval: bootstrap must be >= 1, got {bootstrap}")
    total = np.zeros(bootstrap, dtype=np.int64)
    for n_v, p_v in zip(counts, p, strict=True):
        total += rng.binomial(int(n_v), float(p_v), size=bootstrap)
    lo, hi = np.percentile(total / n, [100 * alpha / 2, 100 * (1 - alpha / 2)])
    return float(lo), float(hi)
