"""The ``posterior`` interval: a beta-binomial posterior predictive of the model's true count
(docs/method.md §6). Plain numpy functions, in the style of ``ppi_py``.

Notation, for model m and one jury-score bin v:

- ``n_v`` predictions of m in bin v, of which ``l_v`` carry m's own human label, ``k_v`` of
  them positive, and ``u_v = n_v - l_v`` are unlabelled;
- the pool of other providers has ``b_v`` labelled rows in bin v, ``a_v`` of them positive.

The share of right answers among m's unlabelled predictions in bin v is unknown. Its prior is
the pool's rate, worth at most ``kappa_max`` labels (the pool is other models' predictions, so
its rate need not transfer to m), updated by m's own labels:

    p~_v    = (a_v + 1/2) / (b_v + 1)
    kappa_v = min(kappa_max, b_v + 1)
    alpha_v = kappa_v * p~_v + k_v,   beta_v = kappa_v * (1 - p~_v) + l_v - k_v
    T_v     ~ BetaBinomial(u_v, alpha_v, beta_v)

An empty pool bin (b_v = 0) gives Jeffreys' Beta(1/2, 1/2): no bin is ever left out. m's true
count of right answers is K = sum_v k_v + sum_v T_v. Its pmf is the convolution of the T_v pmfs
(as :func:`sideways.scoring.ppi.binomial_sum_pmf` convolves binomials); the interval is the
shortest set of consecutive counts holding ``level`` of that mass, shifted by sum_v k_v, and the
score is the pmf's mean, E[K] (:func:`summarise`: the point estimate every number of the
leaderboard and the diff share, not the middle of the set). When every prediction is labelled,
every u_v = 0 and the interval is the labelled truth itself.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from sideways.scoring.ppi import CDF_TOLERANCE, FloatArray

#: The most labels the pool's rate in a bin is worth as prior (docs/method.md §6): 2 covered
#: the issue's grid, 4 also the settings where 2 fell short, and a hold-out it was not chosen on.
KAPPA_MAX = 4.0
#: Decimals of a count the posterior mean keeps (:func:`summarise`): the pmf it is the mean of goes through
#: numpy's SIMD kernels and BLAS, which differ between processors in a number's last bits (AVX-512 or not,
#: OpenBLAS's core type); rounded to 1e-9 of a count, those bits reach no score, so the same inputs give the
#: same bytes on every machine (a fresh clone's ``make repro`` leaves dvc.lock as committed).
MEAN_DECIMALS = 9


_LGAMMA = np.frompyfunc(math.lgamma, 1, 1)


def _lgamma(x: FloatArray) -> FloatArray:
    """log Gamma elementwise (numpy has no lgamma; scipy is not a runtime dependency): math.lgamma's values."""
    return np.asarray(_LGAMMA(np.asarray(x, dtype=np.float64)), dtype=np.float64)


def beta_binomial_pmf(u: int, alpha: float, beta: float) -> FloatArray:
    """pmf of BetaBinomial(u, alpha, beta) on 0..u, in log space.

    P(T = t) = C(u, t) * B(t + alpha, u - t + beta) / B(alpha, beta).
    """
    if u < 0 or not (alpha > 0 and beta > 0):
        raise ValueError(f"beta_binomial_pmf: need u >= 0, alpha > 0, beta > 0, got u={u}, {alpha=}, {beta=}")
    t = np.arange(u + 1, dtype=np.float64)
    log_choose = math.lgamma(u + 1) - _lgamma(t + 1) - _lgamma(u - t + 1)
    log_beta = _lgamma(t + alpha) + _lgamma(u - t + beta) - math.lgamma(u + alpha + beta)
    log_norm = math.lgamma(alpha) + math.lgamma(beta) - math.lgamma(alpha + beta)
    pmf: FloatArray = np.exp(log_choose + log_beta - log_norm)
    return pmf / pmf.sum()


def pool_prior(pool_pos: int, pool_n: int, kappa_max: float = KAPPA_MAX) -> tuple[float, float]:
    """(alpha0, beta0) of one bin's prior from the pool: mean (a + 1/2)/(b + 1), weight min(kappa_max, b + 1)."""
    if pool_n < 0 or not 0 <= pool_pos <= pool_n:
        raise ValueError(f"pool_prior: need 0 <= positives <= rows, got {pool_pos} of {pool_n}")
    if kappa_max <= 0:
        raise ValueError(f"pool_prior: kappa_max must be > 0, got {kappa_max}")
    mean = (pool_pos + 0.5) / (pool_n + 1)
    kappa = min(kappa_max, pool_n + 1.0)
    return kappa * mean, kappa * (1 - mean)


def shortest_set(pmf: FloatArray, level: float = 0.95) -> tuple[int, int]:
    """(i, j): the shortest run of consecutive support points i..j with mass >= ``level``.

    Among runs of the same length, the one with the most mass wins, then the lowest i. The
    comparison allows :data:`~sideways.scoring.ppi.CDF_TOLERANCE` of float error.
    """
    prefix = np.concatenate([[0.0], np.cumsum(pmf)])
    starts = np.arange(len(pmf))
    # first t with prefix[t] >= prefix[i] + level: the run i..t-1 is the shortest from i
    ends = np.searchsorted(prefix, prefix[starts] + level - CDF_TOLERANCE, side="left")
    ok = ends <= len(pmf)
    if not ok.any():
        raise ValueError(f"shortest_set: the pmf's total mass {prefix[-1]} is below {level}")
    i, t = starts[ok], ends[ok]
    order = np.lexsort((i, -(prefix[t] - prefix[i]), t - i))
    best = int(order[0])
    return int(i[best]), int(t[best]) - 1


def summarise(pmf: FloatArray, known: int, level: float = 0.95) -> tuple[int, int, float]:
    """(K_lo, K_hi, E[K]) of the count ``known + T``, T with ``pmf`` on 0..len - 1: the shortest
    ``level`` set of :func:`shortest_set` and the posterior mean, summed exactly (``math.fsum``, not a
    BLAS dot) and rounded to :data:`MEAN_DECIMALS` (every score a user reads is this mean)."""
    pmf = pmf / pmf.sum()
    lo, hi = shortest_set(pmf, level)
    mean = math.fsum((np.arange(len(pmf)) * pmf).tolist())
    return known + lo, known + hi, known + round(mean, MEAN_DECIMALS)


def posterior_count_pmf(unlabelled: Sequence[int], alpha: Sequence[float], beta: Sequence[float]) -> FloatArray:
    """pmf of sum_v T_v, T_v ~ BetaBinomial(u_v, alpha_v, beta_v) independent, on 0..sum(u_v)."""
    if not len(unlabelled) == len(alpha) == len(beta):
        raise ValueError("posterior_count_pmf: unlabelled, alpha and beta must have the same length")
    pmf = np.ones(1)
    for u_v, a_v, b_v in zip(unlabelled, alpha, beta, strict=True):
        pmf = np.convolve(pmf, beta_binomial_pmf(int(u_v), float(a_v), float(b_v)))
    return pmf


def posterior_counts(
    counts: Sequence[int],
    own: Sequence[tuple[int, int]],
    pool: Sequence[tuple[int, int]],
    *,
    kappa_max: float = KAPPA_MAX,
    level: float = 0.95,
) -> tuple[int, int]:
    """(K_lo, K_hi): the posterior interval of model m's count of right answers, in counts.

    Per bin v: ``counts[v]`` = n_v, ``own[v]`` = (k_v, l_v) m's positive and labelled rows,
    ``pool[v]`` = (a_v, b_v) the pool's. Divide by sum(n_v) for the score.
    """
    if not len(counts) == len(own) == len(pool):
        raise ValueError("posterior_counts: counts, own and pool must have one entry per bin")
    lo, hi, _ = posterior_summary(counts, own, pool, kappa_max=kappa_max, level=level)
    return lo, hi


def posterior_summary(
    counts: Sequence[int], own: Sequence[tuple[int, int]], pool: Sequence[tuple[int, int]], *,
    kappa_max: float = KAPPA_MAX, level: float = 0.95,
) -> tuple[int, int, float]:
    """(K_lo, K_hi, E[K]): :func:`posterior_counts` and the posterior mean of the count."""
    if not len(counts) == len(own) == len(pool):
        raise ValueError("posterior_counts: counts, own and pool must have one entry per bin")
    return summary_from_priors(counts, own, [pool_prior(a_v, b_v, kappa_max) for a_v, b_v in pool], level=level)


def counts_from_priors(
    counts: Sequence[int], own: Sequence[tuple[int, int]], priors: Sequence[tuple[float, float]], *,
    level: float = 0.95,
) -> tuple[int, int]:
    """(K_lo, K_hi) as :func:`posterior_counts`, with each bin's prior ``(alpha0, beta0)`` given."""
    lo, hi, _ = summary_from_priors(counts, own, priors, level=level)
    return lo, hi


def summary_from_priors(
    counts: Sequence[int], own: Sequence[tuple[int, int]], priors: Sequence[tuple[float, float]], *,
    level: float = 0.95,
) -> tuple[int, int, float]:
    """(K_lo, K_hi, E[K]) with each bin's prior ``(alpha0, beta0)`` given."""
    if not len(counts) == len(own) == len(priors):
        raise ValueError("counts_from_priors: counts, own and priors must have one entry per bin")
    alphas, betas, unlabelled = [], [], []
    for n_v, (k_v, l_v), (a0, b0) in zip(counts, own, priors, strict=True):
        if not 0 <= k_v <= l_v <= n_v:
            raise ValueError(f"posterior_counts: need 0 <= positives <= labelled <= n, got {k_v}, {l_v}, {n_v}")
        alphas.append(a0 + k_v)
        betas.append(b0 + l_v - k_v)
        unlabelled.append(n_v - l_v)
    return summarise(posterior_count_pmf(unlabelled, alphas, betas), sum(k for k, _ in own), level)
