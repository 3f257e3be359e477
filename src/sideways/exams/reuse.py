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
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from sideways.artifacts import paths
from sideways.artifacts.fingerprint import code_digest, file_digest
from sideways.artifacts.io import read_table, read_tables, table_inputs, write_table
from sideways.artifacts.previous import previous_output
from sideways.artifacts.schema import EXAM_DETAIL, EXAM_GRADES, EXAM_PREDICTIONS, conform
from sideways.exams.changes import exam_ties
from sideways.exams.results import detail_table, detail_tables, model_metrics, model_spans, topic_breakdown

STAGE = "exam_score"


def detail_inputs(exam: str, models: list[str], graded: bool = True) -> dict[str, Any]:
    """What the detail of ``exam`` is made from: code, items, and each model's two fingerprints
    (None when a table carries none: such a model is never reused; ``graded`` False: an exam of
    multiple choice only, whose models have no grades table)."""
    def grades(m: str) -> str | None:
        return table_inputs(paths.exam_grades(exam, m)) if graded else "no grades"

    return {"code": code_digest(Path("."), STAGE), "items": file_digest(paths.exam_items(exam)),
            "models": {m: [table_inputs(paths.exam_predictions(exam, m)), grades(m)] for m in models}}


Known = tuple[set[str], set[frozenset[str]]]


@dataclass(frozen=True)
class Reused:
    """What the previous detail gives for the models whose inputs did not change: their rows
    (``detail.iloc[a:b]`` for ``spans[model] = (a, b)``: each model's rows are contiguous), the
    metrics and topics recorded for them, and the pairs of them found apart on the exam score
    (``exams.changes.exam_ties``'s ``known``; None: nothing recorded)."""

    detail: pd.DataFrame | None = None
    spans: dict[str, tuple[int, int]] = field(default_factory=dict)
    results: dict[str, dict[str, Any]] = field(default_factory=dict)
    ties: Known | None = None

    def rows(self, model: str) -> pd.DataFrame:
        """The previous detail's rows of ``model`` (one of ``spans``)."""
        assert self.detail is not None
        a, b = self.spans[model]
        return self.detail.iloc[a:b].reset_index(drop=True)

    def pieces(self, keys: list[str], made: Callable[[str], pd.DataFrame]) -> Iterator[pd.DataFrame]:
        """The detail's rows for ``keys`` in sorted order: runs of reused models as one slice each
        (adding one model to 200 concatenates three pieces, not 200), ``made(key)`` for the rest."""
        run: tuple[int, int] | None = None
        for key in sorted(keys):
            span = self.spans.get(key)
            if span is not None and run is not None and run[1] == span[0]:
                run = (run[0], span[1])
                continue
            if run is not None:
                yield self.detail.iloc[run[0]:run[1]]  # type: ignore[union-attr]
            run = span
            if span is None:
                yield made(key)
        if run is not None:
            yield self.detail.iloc[run[0]:run[1]]  # type: ignore[union-attr]


def reusable(exam: str, inputs: dict[str, Any]) -> Reused:
    """What the previous detail of ``exam`` gives for each model of ``inputs`` made from the same inputs."""
    previous = previous_output(STAGE, paths.exam_detail(exam))
    if previous is None:
        return Reused()
    try:
        recorded = json.loads(table_inputs(previous) or "null")
    except ValueError:
        return Reused()
    if not isinstance(recorded, dict) or (recorded.get("code"), recorded.get("items")) != (inputs["code"],
                                                                                            inputs["items"]):
        return Reused()
    same = {m for m, f in inputs["models"].items() if None not in f and (recorded.get("models") or {}).get(m) == f}
    if not same:
        return Reused()
    detail = read_table(previous, EXAM_DETAIL)
    order, every = model_spans(detail["model"], sorted({str(m) for m in detail["model"]}))
    if order is not None:  # written sorted by model; any other order works too
        detail = detail.iloc[order].reset_index(drop=True)
    spans = {m: every[m] for m in sorted(same) if m in every}
    results: Any = recorded.get("results")
    if not isinstance(results, dict):
        results = {}
    kept = {m: r for m, r in results.items() if m in spans and isinstance(r, dict)
            and isinstance(r.get("metrics"), dict) and isinstance(r.get("topics"), dict)}
    return Reused(detail, spans, kept, _ties(recorded.get("ties"), set(spans)))


def _ties(recorded: Any, same: set[str]) -> Known | None:
    """The recorded pairs apart (``{"models": [...], "apart": [[a, b], ...]}``) among the models in
    ``same`` that the record covers; None when the record is missing or not of that shape."""
    if not isinstance(recorded, dict):
        return None
    models, apart = recorded.get("models"), recorded.get("apart")
    if not (isinstance(models, list) and all(isinstance(m, str) for m in models) and isinstance(apart, list)
            and all(isinstance(p, list) and len(p) == 2 and all(isinstance(m, str) for m in p) for p in apart)):
        return None
    covered = same & set(models)
    return covered, {frozenset(p) for p in apart if len(set(p)) == 2 and set(p) <= covered}


def exam_results(exam: str, items: pd.DataFrame,
                 keys: list[str]) -> tuple[dict[str, Any], dict[str, Any], pd.DataFrame]:
    """Write the detail of ``exam`` for the models ``keys``, and return its metrics by model (with
    the tie groups on the exam score), its topic breakdown by model and the detail: rows, metrics,
    topics and pairs apart of models whose inputs did not change taken from the previous detail,
    the rest computed (metrics model by model; pairs apart only those with a changed model)."""
    # multiple choice only: no exam_judge job, no grades (sideways.exams.kinds.needs_judges)
    graded = bool((items["kind"] == "short_answer").any())
    no_grades = read_tables([], EXAM_GRADES, f"exam {exam} grades")
    inputs = detail_inputs(exam, keys, graded)
    reused = reusable(exam, inputs)
    results = reused.results
    # model by model: one model's replies (their texts) in memory at a time, not every model's;
    # each piece checked against the schema once (the reused ones when read), not again as a whole
    pieces = list(reused.pieces(keys, lambda k: conform(detail_table(
        items, read_table(paths.exam_predictions(exam, k), EXAM_PREDICTIONS),
        read_table(paths.exam_grades(exam, k), EXAM_GRADES) if graded else no_grades),
        EXAM_DETAIL, f"{paths.exam_detail(exam)} ({k})")))
    detail = detail_tables(items, pieces)
    metrics: dict[str, Any] = {}
    topics: dict[str, Any] = {}

    def record(conformed: pd.DataFrame) -> str:
        fresh = conformed if not results else conformed[~conformed["model"].isin(list(results))]
        metrics.update(model_metrics(fresh))
        topics.update(topic_breakdown(fresh))
        for m, r in results.items():
            metrics[m], topics[m] = r["metrics"], r["topics"]
        made = {m: {"metrics": dict(metrics[m]), "topics": topics.get(m, {})} for m in metrics}
        groups, apart = exam_ties(conformed, known=reused.ties)
        for m, g in groups.items():
            metrics[m]["tie_groups"] = g
        ties = {"models": sorted(groups), "apart": sorted(sorted(p) for p in apart)}
        return json.dumps(inputs | {"results": made, "ties": ties}, sort_keys=True)

    detail = write_table(detail, EXAM_DETAIL, paths.exam_detail(exam), record, parts=pieces)
    return dict(sorted(metrics.items())), dict(sorted(topics.items())), detail
