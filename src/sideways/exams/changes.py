"""What changed on an exam between two versions, model by model and metric by metric, paired
on the questions both versions answered (docs/method.md §8).

Each metric is a weighted mean over questions, ``sum(w_i x_i) / sum(w_i)``: ``trad_score`` and
``idk_score`` over the multiple-choice questions (weight 1, evaluate-idk's per-question values),
``short_answer`` over the short answers (x = earned / points, weight = points) and
``exam_score`` over every question (the same). The change is the weighted mean of the per-question
differences; its standard error is clustered by topic when the exam has more than one (CR1:
G / (G - 1) times the sum of squared cluster sums of influences), by question otherwise; the
interval and p-value use Student's t with G - 1 degrees of freedom. A question is right when it
earned at least half its points; the flips are the questions that changed side.

The same paired difference between two models of one version gives an exam's tie groups
(:func:`exam_tie_groups`, in ``metrics/exams.json``). Those are computed for every pair at once
from one questions x models matrix (:mod:`sideways.exams.tie_matrix`); the few pairs whose
interval ends within rounding of 0 are recomputed here, one by one, so the groups are exactly
those of the pair-by-pair computation.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from sideways.exams.sampled import estimate_difference
from sideways.exams.student import t_quantile, t_sf2
from sideways.exams.tie_matrix import pair_intervals, value_table
from sideways.scoring.display import model_label
from sideways.scoring.verdicts import tie_groups

#: z_0.80: the power term of the minimal detectable change (80% power), added to the t critical value.
POWER_Z = 0.8416212335729143
#: metric -> (question kinds it averages, per-question value column or None for earned / points, weighted)
METRICS: dict[str, tuple[tuple[str, ...], str | None]] = {
    "trad_score": (("mcq",), "trad"),
    "idk_score": (("mcq",), "idk"),
    "short_answer": (("short_answer",), None),
    "exam_score": (("mcq", "short_answer"), None),
}


def _values(detail: pd.DataFrame, metric: str) -> pd.DataFrame:
    """item_id -> (x, w, topic, right) of one version for ``metric`` (answered questions only)."""
    return _value_rows(detail, metric).drop(columns="model")


def _value_rows(detail: pd.DataFrame, metric: str) -> pd.DataFrame:
    """:func:`_values` with each row's ``model``, over rows of any number of models."""
    kinds, column = METRICS[metric]
    rows = detail[detail["kind"].isin(kinds) & (detail["status"] != "api_error")]
    x = rows[column].astype(float) if column else rows["earned"].astype(float) / rows["points"].astype(float)
    w = pd.Series(1.0, index=rows.index) if column else rows["points"].astype(float)
    right = rows["earned"].astype(float) >= rows["points"].astype(float) / 2
    return pd.DataFrame({"x": x, "w": w, "topic": rows["topic"].fillna(""), "right": right,
                         "model": rows["model"].astype(str)}).set_axis(pd.Index(rows["item_id"])).dropna(subset=["x"])


def clustered_mean(x: np.ndarray, w: np.ndarray, topics: np.ndarray, ids: np.ndarray) -> tuple[float, float, int]:
    """The weighted mean of ``x`` and its standard error clustered by topic (by question, ``ids``, when
    there is one topic): CR1, G / (G - 1) times the sum of squared cluster sums of influences; and G."""
    mean = float(np.sum(w * x) / np.sum(w))
    influence = w * (x - mean) / np.sum(w)
    groups = topics if len(set(topics)) > 1 else ids
    sums = pd.Series(influence).groupby(groups).sum().to_numpy()
    g = len(sums)
    se = math.sqrt(g / (g - 1) * float(np.sum(sums ** 2))) if g > 1 else math.nan
    return mean, se, g


def score_interval(detail: pd.DataFrame) -> dict[str, float | int | None]:
    """One model's exam score (percent of the points) with its standard error and 95% interval clustered by
    topic, Student's t on G - 1 degrees of freedom: the estimator of its paired changes and tie groups."""
    v = _values(detail, "exam_score")
    if v.empty:
        return {"exam_score_se": None, "exam_score_lo": None, "exam_score_hi": None}
    mean, se, g = clustered_mean(v["x"].to_numpy(), v["w"].to_numpy(), v["topic"].to_numpy(), v.index.to_numpy())
    if not math.isfinite(se):
        return {"exam_score_se": None, "exam_score_lo": None, "exam_score_hi": None}
    crit = t_quantile(0.95, g - 1)  # the interval kept within the scale, as a sampled exam's is: [0, 100]
    return {"exam_score_se": round(100 * se, 2), "exam_score_lo": round(100 * max(0.0, mean - crit * se), 2),
            "exam_score_hi": round(100 * min(1.0, mean + crit * se), 2)}


def paired_metric(a: pd.DataFrame, b: pd.DataFrame, metric: str) -> dict[str, Any] | None:
    """The paired change of ``metric`` from detail rows ``a`` to ``b`` of one model; None without shared questions."""
    return paired_values(_values(a, metric), _values(b, metric))


def paired_values(va: pd.DataFrame, vb: pd.DataFrame) -> dict[str, Any] | None:
    """:func:`paired_metric` of two versions' values (:func:`_values`); None without shared questions."""
    shared = va.index.intersection(vb.index)
    if not len(shared):
        return None
    va, vb = va.loc[shared], vb.loc[shared]
    w, d = va["w"].to_numpy(), vb["x"].to_numpy() - va["x"].to_numpy()
    change, se, g = clustered_mean(d, w, va["topic"].to_numpy(), np.asarray(shared))
    crit = t_quantile(0.95, g - 1) if g > 1 else math.nan
    p = 1.0 if se == 0 or not math.isfinite(se) else t_sf2(change / se, g - 1)
    if se == 0:
        p = 1.0 if change == 0 else 0.0
    return {"change": 100 * change, "lo": 100 * (change - crit * se), "hi": 100 * (change + crit * se),
            "se": 100 * se, "p": p, "clusters": g, "items": len(shared),
            "mde": max(100 * (crit + POWER_Z) * se if math.isfinite(se) else math.nan, 100 * w.min() / w.sum()),
            "to_wrong": sorted(str(i) for i in shared[va["right"].to_numpy() & ~vb["right"].to_numpy()]),
            "to_right": sorted(str(i) for i in shared[~va["right"].to_numpy() & vb["right"].to_numpy()])}


def estimate_change(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    """The change of a sampled exam's score from version ``a``'s published estimate to ``b``'s (the
    whole exam's, :mod:`sideways.exams.sampled`): the difference of the two estimates the metrics show,
    its se and degrees of freedom :func:`sideways.exams.sampled.estimate_difference`'s, as the tie groups
    compare two models. A version that asked every question has se 0. Not paired
    on the shared questions: each version's estimate weighs its strata, a per-question mean does not, so
    a paired mean would not be the change of the two scores shown beside it."""
    found = estimate_difference(a, b)
    if found is None:
        return {"change": math.nan, "lo": math.nan, "hi": math.nan, "se": math.nan, "p": 1.0, "mde": math.nan,
                "estimated": True}
    change, se, df = found
    crit = t_quantile(0.95, df)
    p = (1.0 if change == 0 else 0.0) if se == 0 else t_sf2(change / se, df)
    return {"change": change, "lo": change - crit * se, "hi": change + crit * se, "se": se, "p": p,
            "mde": (crit + POWER_Z) * se, "estimated": True}


def exam_changes(exam: str, a: pd.DataFrame, b: pd.DataFrame, names: tuple[str, str],
                 scores: tuple[dict[str, Any], dict[str, Any]]) -> tuple[list[dict[str, Any]], list[str]]:
    """Rows (every model in both and every metric with shared questions) and one-line problems.

    ``scores`` are the two versions' published metrics of the exam (``{model: {metric: value}}``).
    """
    rows: list[dict[str, Any]] = []
    ma, mb = set(a["model"]), set(b["model"])
    problems = [f"{exam}, {model_label(m)}: took the exam in {names[0] if m in ma else names[1]} only; "
                "no change to compute"
                for m in sorted(ma ^ mb)]
    by_a, by_b = dict(iter(a.groupby("model", sort=False))), dict(iter(b.groupby("model", sort=False)))
    for model in sorted(ma & mb):
        for metric in METRICS:
            got = paired_metric(by_a[model], by_b[model], metric)
            if got is None:
                continue
            estimated = (scores[0].get(model, {}), scores[1].get(model, {}))
            if metric == "exam_score" and any(e.get("asked_n") is not None for e in estimated):
                got = estimate_change(*estimated) | {"items": got["items"], "to_wrong": got["to_wrong"],
                                                     "to_right": got["to_right"]}
            rows.append({"benchmark": exam, "model": model, "metric": metric,
                         "a": scores[0].get(model, {}).get(metric), "b": scores[1].get(model, {}).get(metric), **got})
    return rows, problems


def _model_spans(column: pd.Series, names: Sequence[str]) -> tuple[np.ndarray | None, dict[str, tuple[int, int]]]:
    """Where each model of ``names`` (sorted; every model of ``column``) has its rows: ``(a, b)``,
    rows ``a`` to ``b`` of the frame once put in ``order`` (None: as it is: exam_score writes the
    detail sorted by model; else a stable sort by model). Integer codes, never 2.8 million names
    compared as Python objects: the column is factorized as it is (Arrow strings in C, 0.03 s for
    688,000 rows where an index lookup of each took 0.15 s), then its few distinct names placed."""
    found, distinct = pd.factorize(column)
    codes = pd.Index(list(names)).get_indexer(pd.Index([str(m) for m in distinct]))[found]
    order = None
    if len(codes) > 1 and not bool(np.all(codes[:-1] <= codes[1:])):
        order = np.argsort(codes, kind="stable")
        codes = codes[order]
    places = np.arange(len(names))
    starts, ends = np.searchsorted(codes, places, side="left"), np.searchsorted(codes, places, side="right")
    return order, {str(m): (int(a), int(b)) for m, a, b in zip(names, starts, ends, strict=True)}


def exam_tie_groups(detail: pd.DataFrame, metric: str = "exam_score") -> dict[str, str]:
    """Each model's tie groups on ``metric`` (``"1"``, ``"1,2"``): models in order of the metric,
    a pair apart when the 95% interval of its paired per-question difference (clustered by
    topic, as above) excludes 0 (:func:`sideways.scoring.verdicts.tie_groups`)."""
    return exam_ties(detail, metric)[0]


def exam_ties(detail: pd.DataFrame, metric: str = "exam_score",
              known: tuple[set[str], set[frozenset[str]]] | None = None
              ) -> tuple[dict[str, str], set[frozenset[str]]]:
    """:func:`exam_tie_groups` and the pairs apart. ``known``: models whose values are the same as
    when the pairs apart among them were found, and those pairs: only the pairs with another model
    are computed (adding one model to 200 costs 200 pairs, not 20,100).

    Every pair at once (:func:`sideways.exams.tie_matrix.pair_intervals`); a pair whose interval
    ends too close to 0 for the matrix's rounding to decide is recomputed by :func:`paired_values`.
    """
    every = _value_rows(detail, metric)
    models = sorted(str(m) for m in detail["model"].unique())  # a hash pass, not 2.8 million str()
    keep, span = _model_spans(every["model"], models)
    if keep is not None:
        every = every.iloc[keep]
    x, w = every["x"].to_numpy(dtype=float), every["w"].to_numpy(dtype=float)
    wx = w * x
    # as np.sum over each model's own frame: the same contiguous rows, so the same bits
    value = {m: float(np.sum(wx[a:b]) / np.sum(w[a:b])) if b > a else -math.inf for m, (a, b) in span.items()}
    order = sorted(models, key=lambda m: (-value[m], m))
    column = {m: j for j, m in enumerate(order)}
    cols = np.repeat(np.array([column[m] for m in models], dtype=np.int64), [b - a for a, b in span.values()])
    table = value_table(every.index.array, every["topic"].array, x, w, cols,  # arrow strings stay so
                        len(order))
    same, apart = (known[0] & set(order), {p for p in known[1] if p <= known[0]}) if known else (set(), set())
    fresh = [m not in same for m in order]
    found = pair_intervals(table, lambda g: t_quantile(0.95, g), fresh if same else None)
    for i, j in zip(*np.nonzero(found.apart), strict=True):
        apart.add(frozenset((order[i], order[j])))

    def own(m: str) -> pd.DataFrame:
        return every.iloc[span[m][0]:span[m][1]].drop(columns="model")

    for i, j in zip(*np.nonzero(found.unsure), strict=True):
        got = paired_values(own(order[i]), own(order[j]))
        if got is not None and (got["lo"] > 0 or got["hi"] < 0):
            apart.add(frozenset((order[i], order[j])))
    groups = {m: ",".join(map(str, g)) for m, g in tie_groups(order, apart).items()}
    return groups, {p for p in apart if p <= set(order)}
