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

:func:`agreeing` then widens the sets, never narrows them (so the stated probability still holds),
until they say what the pairwise verdicts drawn from the same draws say (docs/method.md §5, "Rank
set, tie group, pairwise"): each set holds the model's shown rank; a model that a pair's interval
puts above another has no set below the other's (its best and worst ranks at most the other's);
and two sets that do not overlap belong to a pair whose interval puts one above the other.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

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


def agreeing(sets: Mapping[str, tuple[int, int]], ranks: Mapping[str, int],
             above: Iterable[tuple[str, str]]) -> dict[str, tuple[int, int]]:
    """``sets`` widened until they agree with ``ranks`` (each model's shown rank) and ``above`` (the
    pairs ``(a, b)`` whose paired interval puts a above b; every other pair of ``sets`` is a tie):

    - every set holds its model's rank;
    - ``(a, b)`` above: best_a <= best_b and worst_a <= worst_b;
    - a pair that is not above either way has overlapping sets (worst of one >= best of the other).

    Widening only (a bound moves out, never in), so the sets hold every true rank at least as often
    as ``sets`` did; it stops, each bound moving at most across 1..len(sets).
    """
    best = {m: min(lo, ranks[m]) for m, (lo, _) in sets.items()}
    worst = {m: max(hi, ranks[m]) for m, (_, hi) in sets.items()}
    ordered = {(a, b) for a, b in above if a in best and b in best}
    models = sorted(best)
    changed = True
    while changed:
        changed = False
        for a, b in ordered:
            if best[b] < best[a]:
                best[a], changed = best[b], True
            if worst[b] < worst[a]:
                worst[b], changed = worst[a], True
        for i, x in enumerate(models):
            for y in models[i + 1:]:
                if (x, y) in ordered or (y, x) in ordered:
                    continue
                if worst[x] < best[y]:
                    worst[x], changed = best[y], True
                elif worst[y] < best[x]:
                    worst[y], changed = best[x], True
    return {m: (best[m], worst[m]) for m in models}
