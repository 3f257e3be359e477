"""exam_score's per-question detail, metrics and topics reused model by model (docs/design.md, "Coarse stages").

DVC reruns exam_score whenever any model's exam predictions or grades change, and a full rebuild
of the detail costs every model's questions again (about 0.4 s of CPU per model on a
14,042-question exam: 80 s at 200 models to add one). Each model's predictions and grades tables
carry the fingerprint of their job's inputs; the detail file records, in its Parquet metadata,
those fingerprints per model with the items' digest and the stage's code digest. A model whose
fingerprints, items and code are the same as last time takes its rows from the previous detail
(the workspace's file, else DVC's cached copy through dvc.lock) instead of being rebuilt.

The same metadata records each model's metrics and topic breakdown (``results``): at 200 models
they cost about 5 s of CPU over every model's rows, for one added model. A reused model takes
them from there too; the rest are computed over their own rows only, and each model's numbers
depend on its rows alone, so the files are the same bytes as computed from nothing.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd

from sideways.artifacts import paths
from sideways.artifacts.fingerprint import code_digest, file_digest
from sideways.artifacts.io import read_table, read_tables, table_inputs, write_table
from sideways.artifacts.previous import previous_output
from sideways.artifacts.schema import EXAM_DETAIL, EXAM_GRADES, EXAM_PREDICTIONS
from sideways.exams.results import detail_table, detail_tables, model_metrics, topic_breakdown

STAGE = "exam_score"


def detail_inputs(exam: str, models: list[str], graded: bool = True) -> dict[str, Any]:
    """What the detail of ``exam`` is made from: code, items, and each model's two fingerprints
    (None when a table carries none: such a model is never reused; ``graded`` False: an exam of
    multiple choice only, whose models have no grades table)."""
    def grades(m: str) -> str | None:
        return table_inputs(paths.exam_grades(exam, m)) if graded else "no grades"

    return {"code": code_digest(Path("."), STAGE), "items": file_digest(paths.exam_items(exam)),
            "models": {m: [table_inputs(paths.exam_predictions(exam, m)), grades(m)] for m in models}}


def reusable(exam: str, inputs: dict[str, Any]) -> tuple[dict[str, pd.DataFrame], dict[str, dict[str, Any]]]:
    """The previous detail rows of each model of ``inputs`` made from the same inputs (by model),
    and the metrics and topics recorded for them (``{"metrics": ..., "topics": ...}``, by model)."""
    previous = previous_output(STAGE, paths.exam_detail(exam))
    if previous is None:
        return {}, {}
    try:
        recorded = json.loads(table_inputs(previous) or "null")
    except ValueError:
        return {}, {}
    if not isinstance(recorded, dict) or (recorded.get("code"), recorded.get("items")) != (inputs["code"],
                                                                                            inputs["items"]):
        return {}, {}
    same = {m for m, f in inputs["models"].items() if None not in f and (recorded.get("models") or {}).get(m) == f}
    if not same:
        return {}, {}
    detail = read_table(previous, EXAM_DETAIL)
    rows = {str(m): d.reset_index(drop=True) for m, d in detail.groupby("model", sort=False) if str(m) in same}
    results: Any = recorded.get("results")
    if not isinstance(results, dict):
        results = {}
    kept = {m: r for m, r in results.items() if m in rows and isinstance(r, dict)
            and isinstance(r.get("metrics"), dict) and isinstance(r.get("topics"), dict)}
    return rows, kept


def exam_results(exam: str, items: pd.DataFrame,
                 keys: list[str]) -> tuple[dict[str, Any], dict[str, Any], pd.DataFrame]:
    """Write the detail of ``exam`` for the models ``keys``, and return its metrics by model (without
    the tie groups), its topic breakdown by model and the detail: rows, metrics and topics of a model
    whose inputs did not change taken from the previous detail, the rest computed model by model."""
    # multiple choice only: no exam_judge job, no grades (sideways.exams.kinds.needs_judges)
    graded = bool((items["kind"] == "short_answer").any())
    no_grades = read_tables([], EXAM_GRADES, f"exam {exam} grades")
    inputs = detail_inputs(exam, keys, graded)
    rows, results = reusable(exam, inputs)
    # model by model: one model's replies (their texts) in memory at a time, not every model's
    detail = detail_tables(items, (rows[k] if k in rows else detail_table(
        items, read_table(paths.exam_predictions(exam, k), EXAM_PREDICTIONS),
        read_table(paths.exam_grades(exam, k), EXAM_GRADES) if graded else no_grades) for k in sorted(keys)))
    metrics: dict[str, Any] = {}
    topics: dict[str, Any] = {}

    def record(conformed: pd.DataFrame) -> str:
        fresh = conformed if not results else conformed[~conformed["model"].isin(list(results))]
        metrics.update(model_metrics(fresh))
        topics.update(topic_breakdown(fresh))
        for m, r in results.items():
            metrics[m], topics[m] = r["metrics"], r["topics"]
        made = {m: {"metrics": metrics[m], "topics": topics.get(m, {})} for m in metrics}
        return json.dumps(inputs | {"results": made}, sort_keys=True)

    detail = write_table(detail, EXAM_DETAIL, paths.exam_detail(exam), record)
    return dict(sorted(metrics.items())), dict(sorted(topics.items())), detail
