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
            if fa.get("exam_score_se") is None or fb.get("exam_score_se") is None:
                continue
            se = math.hypot(float(fa["exam_score_se"]), float(fb["exam_score_se"]))
            df = max(1, min(int(fa["asked_n"]), int(fb["asked_n"])) - 1)
            if abs(float(fa["exam_score"]) - float(fb["exam_score"])) > t_quantile(0.95, df) * se:
                apart.add(frozenset((a, b)))
    groups = {m: ",".join(map(str, g)) for m, g in tie_groups(order, apart).items()}
    return groups, apart
