"""A sampled exam's score for the whole exam, and the tie groups on it: one estimator for every view.

exam_score reads each model's frozen design (:mod:`sideways.exams.frozen`) and its detail rows:
the exam score, its se and 95% interval, and how many questions it was estimated from, are
:func:`score_estimate`'s; the tie groups compare the same estimates (:func:`estimate_ties`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from sideways.exams import sample
from sideways.exams.frozen import Frozen
from sideways.exams.student import t_quantile
from sideways.scoring.verdicts import tie_groups


def score_estimate(frozen: Frozen, detail: pd.DataFrame, points: Mapping[str, float]) -> sample.Estimate:
    """The whole exam's score (share of all points) from one model's EXAM_DETAIL rows of its sample;
    ``points`` maps every item of the exam, in the items table's order, to its points.

    Prediction-powered and cross-fitted (:func:`sideways.exams.sample.estimate`), weighted by points;
    the items whose request failed are left out of the sample."""
    item_ids = list(points)
    done = detail[detail["status"] != "api_error"]
    position = {i: n for n, i in enumerate(item_ids)}
    values = np.array([frozen.ease[i] for i in item_ids], dtype=float)
    stratum = sample.strata(values, frozen.strata, frozen.seed)
    sampled = np.array([position[str(i)] for i in done["item_id"]], dtype=np.int64)
    y = np.array([float(e) / float(points[str(i)]) for i, e in zip(done["item_id"], done["earned"], strict=True)])
    weights = np.array([float(points[i]) for i in item_ids], dtype=float)
    return sample.estimate(y, sampled, values, stratum, weights=weights)



def sampled_metrics(estimate: sample.Estimate) -> dict[str, Any]:
    """The exam score's figures from a sample (percent): the estimate, its se and 95% interval, and
    how many questions of how many it was estimated from."""
    def pct(x: float) -> float | None:
        return round(100 * x, 2) if math.isfinite(x) else None

    return {"exam_score": pct(estimate.score), "exam_score_se": pct(estimate.se), "exam_score_lo": pct(estimate.lo),
            "exam_score_hi": pct(estimate.hi), "asked_n": estimate.n, "exam_n": estimate.population}


def estimate_difference(a: Mapping[str, Any], b: Mapping[str, Any]) -> tuple[float, float, int] | None:
    """``b``'s exam score minus ``a``'s, as two sampled estimates' figures (:func:`sampled_metrics`) give them:
    (change, se, degrees of freedom): independent samples, so the square root of the sum of their variances,
    Student's t on the smaller sample's degrees of freedom (a side that asked every question counts its
    ``exam_n``). None when a side has no finite score or se."""
    for side in (a, b):
        if not all(isinstance(side.get(k), int | float) and math.isfinite(side[k]) for k in ("exam_score",
                                                                                          "exam_score_se")):
            return None
    asked = [int(s.get("asked_n") or s.get("exam_n") or 0) for s in (a, b)]
    return (float(b["exam_score"]) - float(a["exam_score"]), math.hypot(float(a["exam_score_se"]),
            float(b["exam_score_se"])), max(1, min(asked) - 1))


def estimate_ties(figures: Mapping[str, Mapping[str, Any]]) -> tuple[dict[str, str], set[frozenset[str]]]:
    """Tie groups on a sampled exam's score, from the same estimates the metrics show: two models are
    apart when the 95% interval of their difference (independent samples: the square root of the sum
    of their variances, Student's t on the smaller sample's degrees of freedom) excludes 0."""
    scored = {m: f for m, f in figures.items() if f.get("exam_score") is not None}
    order = sorted(scored, key=lambda m: (-float(scored[m]["exam_score"]), m))
    apart: set[frozenset[str]] = set()
    for i, a in enumerate(order):
        for b in order[i + 1:]:
            fa, fb = scored[a], scored[b]
            found = estimate_difference(fa, fb)
            if found is not None and abs(found[0]) > t_quantile(0.95, found[2]) * found[1]:
                apart.add(frozenset((a, b)))
    groups = {m: ",".join(map(str, g)) for m, g in tie_groups(order, apart).items()}
    return groups, apart
