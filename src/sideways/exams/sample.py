"""An exam on a sample: which questions to ask, and the whole exam's score from their answers.

The design (:func:`design`): the exam's items sorted by their ease, learned from the models
already run (the logit of the share of them right, smoothed), cut into equal-count strata; each
stratum's questions in a seeded random order; questions allocated to strata one at a time, to
the stratum furthest below its share. The design is nested: for the same ease, strata and seed,
the sample of ``k`` questions holds the sample of every smaller ``k``, so raising ``k`` asks only
new questions. Without models already run every item has the same ease: one stratum, a simple
random sample.

The estimate (:func:`estimate`): prediction-powered and cross-fitted. A Rasch-style predictor
``f_i = sigmoid(theta + ease_i)`` (one ability, fitted on the sampled answers) predicts the model's
result on every item; the sample's residuals ``y_i - f_i`` correct the predictions' mean per
stratum. The sample is cut in two folds, each fold's residuals use the ability fitted on the other,
so a residual never uses its own answer. Whatever the predictor, the correction makes the
estimate unbiased under the design; a good predictor only makes it narrower. The interval is
Student's t on the stratified variance of the residuals with the finite-population correction
``1 - n_h / N_h`` (exact, zero width, when every question was asked).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from sideways.exams.changes import t_quantile

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


def ability(y: FloatArray, intercept: FloatArray, slope: FloatArray | None = None) -> float:
    """The ability ``theta`` maximising the likelihood of answers ``y`` under
    ``sigmoid(slope * theta + intercept)`` (slope 1: Rasch), ridge :data:`PRIOR_SD`."""
    a = np.ones(len(intercept)) if slope is None else slope
    theta = 0.0
    for _ in range(25):
        p = _sigmoid(a * theta + intercept)
        grad = float(np.sum(a * (y - p))) - theta / PRIOR_SD**2
        hess = float(np.sum(a * a * p * (1 - p))) + 1 / PRIOR_SD**2
        step = grad / hess
        theta += step
        if abs(step) < 1e-8:
            break
    return theta


def estimate(y: npt.ArrayLike, sampled: npt.ArrayLike, item_ease: FloatArray, stratum: IntArray,
             level: float = LEVEL, slope: FloatArray | None = None) -> Estimate:
    """The whole exam's score from the answers ``y`` (0/1, or points as a share) to the ``sampled`` items.

    ``stratum`` is each item's stratum in the design that drew the sample (:func:`strata`); the
    folds alternate in the order of ``sampled`` within each stratum."""
    s = np.asarray(sampled, dtype=np.int64)
    ys = np.asarray(y, dtype=float)
    population = len(item_ease)
    if len(s) == population:  # every question asked: the score itself, no uncertainty left
        mean = float(np.mean(ys))
        return Estimate(mean, 0.0, mean, mean, len(s), population)
    groups = [h for h in np.unique(stratum) if np.any(stratum[s] == h)]
    if len(groups) < len(np.unique(stratum)) or any(np.sum(stratum[s] == h) < FOLDS for h in groups):
        stratum = np.zeros(population, dtype=np.int64)  # a stratum too thin to cross-fit: one stratum
        groups = [0]
    fold = np.zeros(len(s), dtype=np.int64)
    for h in groups:
        at = np.flatnonzero(stratum[s] == h)
        fold[at] = np.arange(len(at)) % FOLDS
    if len(s) < FOLDS:
        fold[:] = 0
    residual = np.empty(len(s))
    score = 0.0
    folds = sorted(set(fold.tolist()))
    for f in folds:
        train = fold != f if len(folds) > 1 else np.ones(len(s), dtype=bool)
        a = np.ones(population) if slope is None else slope
        theta = ability(ys[train], item_ease[s[train]], a[s[train]])
        predicted = _sigmoid(a * theta + item_ease)
        here = fold == f
        residual[here] = ys[here] - predicted[s[here]]
        for h in groups:
            weight = np.mean(stratum == h)
            in_h = here & (stratum[s] == h)
            score += weight * (float(np.mean(predicted[stratum == h])) + float(np.mean(residual[in_h]))) / len(folds)
    variance = 0.0
    for h in groups:
        r = residual[stratum[s] == h]
        size = int(np.sum(stratum == h))
        weight = size / population
        if len(r) > 1:
            variance += weight**2 * (1 - len(r) / size) * float(np.var(r, ddof=1)) / len(r)
    se = float(np.sqrt(variance))
    df = max(1, len(s) - len(groups))
    half = t_quantile(level, df) * se
    return Estimate(score, se, max(0.0, score - half), min(1.0, score + half), len(s), population)


def random_estimate(y: npt.ArrayLike, population: int, level: float = LEVEL) -> Estimate:
    """The plain mean of a simple random sample ``y`` of ``population`` items, finite-population t interval."""
    ys = np.asarray(y, dtype=float)
    n = len(ys)
    mean = float(np.mean(ys))
    se = float(np.sqrt((1 - n / population) * np.var(ys, ddof=1) / n)) if n > 1 else float("inf")
    half = t_quantile(level, max(1, n - 1)) * se
    return Estimate(mean, se, max(0.0, mean - half), min(1.0, mean + half), n, population)
