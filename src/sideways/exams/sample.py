"""An exam on a sample: which questions to ask, and the whole exam's score from their answers.

The design (:func:`design`): the exam's items sorted by their ease, learned from the models
already run (the logit of the share of them right, smoothed), cut into equal-count strata; each
stratum's questions in a seeded random order; questions allocated to strata one at a time, to
the stratum furthest below its share. The design is nested: for the same ease, strata and seed,
the sample of ``k`` questions holds the sample of every smaller ``k``, so raising ``k`` asks only
new questions. Without models already run every item has the same ease: the strata are then
seeded random groups of equal size, and the sample a simple random sample in effect.

The estimate (:func:`estimate`): prediction-powered and cross-fitted. A Rasch-style predictor
``f_i = sigmoid(theta + ease_i)`` (one ability, fitted on the sampled answers) predicts the model's
result on every item; the sample's residuals ``y_i - f_i`` correct the predictions' mean per
stratum. The sample is cut in two folds, each fold's residuals use the ability fitted on the other,
so a residual never uses its own answer. Whatever the predictor, the correction makes the
estimate unbiased under the design; a good predictor only makes it narrower. The interval is
Student's t on the stratified variance of the residuals with the finite-population correction
``1 - n_h / N_h`` (exact, zero width, when every question was asked). Each stratum's residual variance
is floored at ``q (1 - q)``, ``q = 0.5 / (n_h + 1)``: the variance of half a surprising answer among
the n_h asked (:func:`variance_floor`). A stratum the predictor gets all right on a model that is
almost always wrong (or right) otherwise shows a variance near 0 and an interval too short to cover:
on real per-item results such a model (right on 1.5% of ChemBench's questions) was covered 53% of the
time at k = 50 without it (docs/validation.md, "Exams on a sample").
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from sideways.exams.student import t_quantile

STRATA = 5  # strata on ease: at most this many, each with at least MIN_PER_STRATUM sampled items
MIN_PER_STRATUM = 10
FOLDS = 2
PRIOR_SD = 2.0  # the ability's ridge: keeps the fit finite on an all-right or all-wrong sample
LEVEL = 0.95

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]


@dataclass(frozen=True)
class Estimate:
    """The whole exam's score (a share in [0, 1]) from ``n`` of its ``population`` items."""

    score: float
    se: float
    lo: float
    hi: float
    n: int
    population: int

    @property
    def half_width(self) -> float:
        return (self.hi - self.lo) / 2


def ease(right: npt.ArrayLike, runs: npt.ArrayLike) -> FloatArray:
    """Each item's ease from the models already run: logit((right + 0.5) / (runs + 1)).

    ``right[i]`` of ``runs[i]`` models answered item ``i`` right; all zeros (no model run) gives
    every item the same ease."""
    r = np.asarray(right, dtype=float)
    n = np.asarray(runs, dtype=float)
    p = (r + 0.5) / (n + 1.0)
    return np.asarray(np.log(p) - np.log1p(-p), dtype=float)


def strata_count(k: int) -> int:
    """Strata for a sample of ``k``: :data:`STRATA`, fewer when ``k`` is too small to fill them."""
    return max(1, min(STRATA, k // MIN_PER_STRATUM))


def strata(item_ease: FloatArray, count: int, seed: int) -> IntArray:
    """Each item's stratum (0 = hardest): equal-count groups of items sorted by ease (seeded ties)."""
    n = len(item_ease)
    tie = np.random.default_rng([seed, 1]).permutation(n)
    order = np.lexsort((tie, item_ease))
    out = np.empty(n, dtype=np.int64)
    out[order] = np.arange(n) * count // n
    return out


def design(item_ease: FloatArray, k: int, seed: int, count: int | None = None) -> IntArray:
    """The ``k`` items to ask (indices, in the order they join the sample): nested in ``k``.

    ``count`` fixes the number of strata (default :func:`strata_count` of ``k``; fix it to keep
    samples of different ``k`` nested)."""
    n = len(item_ease)
    if not 0 < k <= n:
        raise ValueError(f"sample of {k} from {n} items")
    count = strata_count(k) if count is None else count
    stratum = strata(item_ease, count, seed)
    priority = np.random.default_rng([seed, 2]).permutation(n)
    queues = [np.flatnonzero(stratum == h)[np.argsort(priority[stratum == h], kind="stable")] for h in range(count)]
    share = np.array([len(q) for q in queues], dtype=float) / n
    taken = np.zeros(count, dtype=np.int64)
    chosen: list[int] = []
    for step in range(1, k + 1):
        deficit = np.where(taken < [len(q) for q in queues], step * share - taken, -np.inf)
        h = int(np.argmax(deficit))
        chosen.append(int(queues[h][taken[h]]))
        taken[h] += 1
    return np.array(chosen, dtype=np.int64)


def _sigmoid(x: FloatArray) -> FloatArray:
    return np.asarray(1.0 / (1.0 + np.exp(-np.clip(x, -30, 30))), dtype=float)


def ability(y: FloatArray, item_ease: FloatArray) -> float:
    """The ability ``theta`` maximising the Rasch likelihood of answers ``y``, ``sigmoid(theta + ease)``
    (ridge :data:`PRIOR_SD`)."""
    theta = 0.0
    for _ in range(25):
        p = _sigmoid(theta + item_ease)
        grad = float(np.sum(y - p)) - theta / PRIOR_SD**2
        hess = float(np.sum(p * (1 - p))) + 1 / PRIOR_SD**2
        step = grad / hess
        theta += step
        if abs(step) < 1e-8:
            break
    return theta


def variance_floor(n: int) -> float:
    """The least residual variance a stratum of ``n`` sampled answers is given: ``q (1 - q)`` with
    ``q = 0.5 / (n + 1)``, as if half an answer against the predictor had been seen (module docstring)."""
    q = 0.5 / (n + 1)
    return q * (1 - q)


def _groups(sampled: IntArray, stratum: IntArray) -> IntArray:
    """The strata the estimate uses: the design's, or one stratum when one holds fewer than
    :data:`FOLDS` sampled items (too thin to cross-fit)."""
    counts = np.bincount(stratum[sampled], minlength=int(stratum.max()) + 1)
    present = np.bincount(stratum, minlength=len(counts)) > 0
    return np.zeros_like(stratum) if np.any(counts[present] < FOLDS) else stratum


def _folds(sampled: IntArray, stratum: IntArray) -> IntArray:
    """Each sampled item's fold: alternating, in the order sampled, within its stratum."""
    fold = np.zeros(len(sampled), dtype=np.int64)
    for h in np.unique(stratum[sampled]):
        at = np.flatnonzero(stratum[sampled] == h)
        fold[at] = np.arange(len(at)) % FOLDS
    return fold


def estimate(y: npt.ArrayLike, sampled: npt.ArrayLike, item_ease: FloatArray, stratum: IntArray,
             level: float = LEVEL, weights: npt.ArrayLike | None = None) -> Estimate:
    """The whole exam's score from the answers ``y`` (0/1, or points as a share) to the ``sampled`` items.

    ``stratum`` is each item's stratum in the design that drew the sample (:func:`strata`).
    ``weights`` (each item's points; default all equal) make the target the share of all points,
    sum(w y) / sum(w): the predictions and residuals are scaled by ``w / mean(w)``."""
    s = np.asarray(sampled, dtype=np.int64)
    ys = np.asarray(y, dtype=float)
    population = len(item_ease)
    points = np.ones(population) if weights is None else np.asarray(weights, dtype=float)
    scale = points / float(np.mean(points))
    if len(s) == population:  # every question asked: the score itself, no uncertainty left
        mean = float(np.mean(ys * scale[s]))
        return Estimate(mean, 0.0, mean, mean, len(s), population)
    if len(s) < 2 * FOLDS:  # too few answers to cross-fit and estimate a variance: the plain mean, no bound
        return Estimate(float(np.sum(ys * scale[s]) / np.sum(scale[s])), float("inf"), 0.0, 1.0, len(s), population)
    stratum = _groups(s, stratum)
    fold = _folds(s, stratum)
    weight = {int(h): float(np.mean(stratum == h)) for h in np.unique(stratum)}
    residual = np.empty(len(s))
    score = 0.0
    for f in range(FOLDS):
        theta = ability(ys[fold != f], item_ease[s[fold != f]])
        predicted = _sigmoid(theta + item_ease) * scale
        here = fold == f
        residual[here] = ys[here] * scale[s[here]] - predicted[s[here]]
        for h, w in weight.items():
            in_h = here & (stratum[s] == h)
            score += w * (float(np.mean(predicted[stratum == h])) + float(np.mean(residual[in_h]))) / FOLDS
    variance = 0.0
    for h, w in weight.items():
        in_h = stratum[s] == h
        r = residual[in_h]
        spread = max(float(np.var(r, ddof=1)), variance_floor(len(r)) * float(np.mean(scale[s[in_h]])) ** 2)
        variance += w**2 * (1 - len(r) / (w * population)) * spread / len(r)
    se = float(np.sqrt(max(variance, 0.0)))
    half = t_quantile(level, len(s) - len(weight)) * se
    return Estimate(score, se, max(0.0, score - half), min(1.0, score + half), len(s), population)


def random_estimate(y: npt.ArrayLike, population: int, level: float = LEVEL) -> Estimate:
    """The plain mean of a simple random sample ``y`` of ``population`` items, finite-population t interval."""
    ys = np.asarray(y, dtype=float)
    n = len(ys)
    mean = float(np.mean(ys))
    se = float(np.sqrt((1 - n / population) * np.var(ys, ddof=1) / n)) if n > 1 else float("inf")
    half = t_quantile(level, max(1, n - 1)) * se
    return Estimate(mean, se, max(0.0, mean - half), min(1.0, mean + half), n, population)
