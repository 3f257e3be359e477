"""Rank sets: each model's set of ranks, holding every model's true rank at once with a stated
posterior probability (docs/method.md §5, §8), from joint draws of every model's score.

In the spirit of prediction-powered ranking (Chatzi, Straitouri, Thejaswi, Gomez-Rodriguez,
"Prediction-powered ranking of large language models", NeurIPS 2024), which builds rank sets with a
simultaneous coverage guarantee from a confidence region of the models' win rates: here the region
is the posterior's. In every draw each model gets its competition rank (1 + the number of models
whose drawn score is strictly higher); a model's set is [the t-quantile, the (1 - t)-quantile] of
its drawn ranks, with the largest tail t (the same for every model) for which at least ``level``
of the draws have every model's rank inside its set. So the sets hold all true ranks together
with posterior probability ``level``; their frequentist coverage is measured in simulation
(benchmarks/rank_coverage.py).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from sideways.scoring.ppi import FloatArray

LEVEL = 0.95
_STEPS = 40


def draw_ranks(scores: FloatArray) -> np.ndarray:
    """draws x models competition ranks: 1 + the number of models with a strictly higher score."""
    return 1 + (scores[:, None, :] > scores[:, :, None]).sum(axis=2)


def _sets(ordered: np.ndarray, tail: float) -> tuple[np.ndarray, np.ndarray]:
    """Each model's [tail, 1 - tail] quantiles of its drawn ranks, ``ordered`` sorted along the draws:
    numpy's ``quantile(method="lower")`` and ``"higher"`` (index floor/ceil((n - 1) q)), read off
    the one sort instead of partitioning every model's draws at each step of the search."""
    n = ordered.shape[0]
    lo = ordered[int(np.floor((n - 1) * np.float64(tail)))]
    hi = ordered[int(np.ceil((n - 1) * np.float64(1 - tail)))]
    return lo.astype(np.int64), hi.astype(np.int64)


def _joint(ranks: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> float:
    return float(np.mean(np.all((ranks >= lo) & (ranks <= hi), axis=1)))


def rank_sets(draws: Mapping[str, FloatArray], level: float = LEVEL) -> dict[str, tuple[int, int]]:
    """model -> (best, worst) rank of its set, from ``draws`` (element 0 the estimate, then joint draws
    aligned by index, as :mod:`sideways.scoring.paired` gives them); non-finite draws are dropped."""
    models = sorted(draws)
    if not models:
        return {}
    scores = np.stack([np.asarray(draws[m][1:], dtype=np.float64) for m in models], axis=1)
    scores = scores[np.all(np.isfinite(scores), axis=1)]
    if not len(scores):
        return {m: (1, len(models)) for m in models}
    ranks = draw_ranks(scores)
    ordered = np.sort(ranks, axis=0)
    low, high = 0.0, (1 - level) / 2  # tail 0 is every drawn rank: joint coverage 1
    if _joint(ranks, *_sets(ordered, high)) >= level:
        low = high
    else:
        for _ in range(_STEPS):
            mid = (low + high) / 2
            low, high = (mid, high) if _joint(ranks, *_sets(ordered, mid)) >= level else (low, mid)
    lo, hi = _sets(ordered, low)
    return {m: (int(lo[i]), int(hi[i])) for i, m in enumerate(models)}
