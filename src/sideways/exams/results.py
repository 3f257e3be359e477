"""Exam results: per-question detail, the metrics per model, and the per-topic breakdown.

Multiple choice is scored here, without a judge: the letters are extracted from the reply
(:mod:`~sideways.exams.mcq.letters`) and scored as evaluate-idk does
(:mod:`~sideways.exams.mcq.score`). A question whose request failed (``api_error``) is left
out of the means (the stage that asked fails above ``requests.max_failure_share``).
"""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

from sideways.artifacts.schema import EXAM_DETAIL, records, records_by
from sideways.exams.changes import score_interval
from sideways.exams.mcq.letters import extract_letters
from sideways.exams.mcq.present import offered_letters
from sideways.exams.mcq.score import METRICS, Mean, mean_se, outcome
from sideways.exams.short_answer.score import item_points, points_score
from sideways.scoring.display import model_label, se_cell


def detail_table(items: pd.DataFrame, predictions: pd.DataFrame, grades: pd.DataFrame) -> pd.DataFrame:
    """One EXAM_DETAIL row per (model, question), from every model's predictions and grades.

    Built column by column (a list per column, not a dict per row), each question's offered
    letters parsed once however many models answered it: a new model on a 14,042-question exam
    is what ``exam_score`` builds when one model is added, and the row-by-row frame cost about
    twice the letter extraction itself."""
    by_id = records_by(items, "item_id")
    verdicts: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for g in records(grades):
        verdicts.setdefault((str(g["model"]), str(g["item_id"])), []).append(g)
    offered: dict[str, str] = {}
    columns: dict[str, list[Any]] = {name: [] for name in EXAM_DETAIL.names}
    (model, item_id, kind, topic, points, letters, gold, trad, idk, idk_freq, extract_fail, earned, judges,
     status, latency, cost) = (columns[name] for name in EXAM_DETAIL.names)
    for p in records(predictions):
        key = str(p["item_id"])
        item = by_id[key]
        graded = verdicts.get((str(p["model"]), key), [])
        model.append(p["model"])
        item_id.append(p["item_id"])
        kind.append(item["kind"])
        topic.append(item["topic"])
        points.append(item["points"])
        gold.append(item["gold"])
        status.append(p["status"])
        latency.append(p["latency_s"])
        cost.append(_cost([p, *graded]))
        if item["kind"] == "mcq":
            if key not in offered:
                offered[key] = offered_letters(item)
            chosen = extract_letters(p["text"], offered[key]) if p["status"] == "ok" else []
            o = outcome(chosen, str(item["gold"]))
            letters.append(",".join(chosen) or None)
            trad.append(float(o.trad))
            idk.append(float(o.idk))
            idk_freq.append(float(o.idk_freq))
            extract_fail.append(float(o.extract_fail))
            earned.append(float(item["points"]) * o.trad)
            judges.append(0)
        else:
            ok = [float(g["earned"]) for g in graded if g["status"] == "ok" and g["earned"] is not None]
            for column in (letters, trad, idk, idk_freq, extract_fail):
                column.append(None)
            earned.append(item_points(ok))
            judges.append(len(ok))
    df = pd.DataFrame(columns, columns=EXAM_DETAIL.names)
    return df.sort_values(["model", "item_id"]).reset_index(drop=True)


def _cost(rows: list[dict[str, Any]]) -> float | None:
    costs = [float(r["cost_usd"]) for r in rows if r.get("cost_usd") is not None and not pd.isna(r["cost_usd"])]
    return round(math.fsum(costs), 8) if costs else None


def _pct(m: Mean, digits: int = 2) -> tuple[float | None, float | None]:
    if m.n == 0:
        return None, None
    return round(100 * m.mean, digits), round(100 * m.se, digits)


def model_metrics(detail: pd.DataFrame) -> dict[str, dict[str, Any]]:
    """Per model: the four multiple-choice metrics with se, the short-answer score with se, the
    exam score (all points) with its se and 95% interval clustered by topic, question counts, median
    latency and total cost. Percentages."""
    out: dict[str, dict[str, Any]] = {}
    for model, df in detail.groupby("model", sort=True):
        answered = df[df["status"] != "api_error"]
        mcq = answered[answered["kind"] == "mcq"]
        sa = answered[answered["kind"] == "short_answer"]
        m: dict[str, Any] = {}
        for name, column in zip(METRICS, ("trad", "idk", "idk_freq", "extract_fail"), strict=True):
            # tolist: the same Python floats as float(v) value by value, in C (11 million at 200 models)
            m[name], m[f"{name}_se"] = _pct(mean_se(mcq[column].astype(float).tolist()))
        m["short_answer"], m["short_answer_se"] = _pct(points_score(list(sa["earned"]), list(sa["points"])))
        m["exam_score"], _ = _pct(points_score(list(answered["earned"]), list(answered["points"])))
        m |= score_interval(df)  # clustered by topic, as its changes and tie groups (a sampled exam: its estimate's)
        m |= {"mcq_n": len(mcq), "short_answer_n": len(sa), "ungraded": int((sa["judges"] == 0).sum()),
              "failed": int((df["status"] == "api_error").sum())}
        lat = df["latency_s"].dropna()
        m["latency_s"] = round(float(lat.median()), 3) if len(lat) else None
        cost = df["cost_usd"].dropna()
        m["cost_usd"] = round(float(cost.sum()), 6) if len(cost) else None
        out[str(model)] = m
    return out


def headline(metrics: dict[str, dict[str, Any]]) -> dict[str, float | None]:
    """``{model: exam score}`` from :func:`model_metrics`: one short column per model (the full
    metrics of every model are thousands of characters a line in ``dvc metrics show``)."""
    return {model: m["exam_score"] for model, m in sorted(metrics.items())}


def topic_breakdown(detail: pd.DataFrame) -> dict[str, dict[str, dict[str, float]]]:
    """Per model and topic: points earned, points possible and the score in percent."""
    out: dict[str, dict[str, dict[str, float]]] = {}
    for (model, topic), df in detail.groupby(["model", "topic"], sort=True):
        earned, possible = float(df["earned"].sum()), float(df["points"].sum())
        out.setdefault(str(model), {})[str(topic)] = {
            "earned": round(earned, 4), "possible": possible, "score": round(100 * earned / possible, 2)}
    return out


def format_exam_table(metrics: dict[str, dict[str, Any]]) -> str:
    """``metrics/exam.json`` as a table, best ``idk_score`` first (evaluate-idk's cells: ``x ± se``,
    in points to one decimal as the leaderboards), the tie groups on the exam score last; within 120
    columns at the default project's model keys."""
    def cell(m: dict[str, Any], key: str) -> str:
        n = int(m.get("short_answer_n" if key == "short_answer" else "mcq_n") or 0)
        return se_cell(m.get(key), m.get(f"{key}_se"), n)

    width = max([5, *map(len, metrics)]) + 1
    header = (f"{'model':<{width}}{'trad_score':>13}{'idk_score':>13}{'idk_freq':>13}{'extract_fail':>14}"
              f"{'short_answer':>13}{'exam':>7}{'latency s':>10}{'cost $':>9}{'ties':>6}")
    lines = [header]
    order = sorted(metrics, key=lambda k: (-(metrics[k].get("idk_score") or -1e9), k))
    for key in order:
        m = metrics[key]
        lat = "-" if m.get("latency_s") is None else f"{m['latency_s']:.2f}"
        cost = "-" if m.get("cost_usd") is None else f"{m['cost_usd']:.4f}"
        exam = "-" if m.get("exam_score") is None else f"{m['exam_score']:.1f}"
        lines.append(f"{model_label(key):<{width}}{cell(m, 'trad_score'):>13}{cell(m, 'idk_score'):>13}"
                     f"{cell(m, 'idk_freq'):>13}{cell(m, 'extract_fail'):>14}{cell(m, 'short_answer'):>13}"
                     f"{exam:>7}{lat:>10}{cost:>9}{m.get('tie_groups', '-'):>6}")
    return "\n".join(lines + sampled_lines(metrics, order)) + "\n"


def sampled_lines(metrics: dict[str, dict[str, Any]], order: list[str]) -> list[str]:
    """Each model's exam score with its 95% interval (clustered by topic; on a sampled exam, the estimate
    for the whole exam and how many questions it was estimated from): the same figures as the table's
    column and the tie groups."""
    out = []
    for key in order:
        m = metrics[key]
        lo, hi = m.get("exam_score_lo"), m.get("exam_score_hi")
        interval = "" if lo is None or hi is None else f" [{lo:.1f}, {hi:.1f}]"
        asked = "" if m.get("asked_n") is None else f", estimated from {m['asked_n']} of {m['exam_n']} questions"
        if m.get("exam_score") is not None and (interval or asked):
            out.append(f"  {model_label(key)}: exam {m['exam_score']:.1f}{interval}{asked}")
    return (["exam score (95% interval, clustered by topic; on a sample, for the whole exam):", *out]) if out else []
