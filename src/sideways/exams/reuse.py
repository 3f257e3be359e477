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
import pyarrow as pa
import pyarrow.compute as pc

from sideways.artifacts import paths
from sideways.artifacts.fingerprint import code_digest, file_digest
from sideways.artifacts.io import (
    arrow_table,
    conformed_arrow,
    read_arrow,
    read_table,
    read_tables,
    table_inputs,
    write_arrow,
)
from sideways.artifacts.previous import previous_output
from sideways.artifacts.schema import EXAM_DETAIL, EXAM_GRADES, EXAM_PREDICTIONS, conform
from sideways.artifacts.sorted_tables import key_runs
from sideways.core.errors import SchemaError
from sideways.exams.changes import exam_ties
from sideways.exams.results import detail_table, model_metrics, topic_breakdown

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
    (``detail.slice(a, b - a)`` for ``spans[model] = (a, b)``: the detail is sorted by model and
    question, so each model's rows are contiguous; kept in Arrow, never converted to Python
    strings), the metrics and topics recorded for them, and the pairs of them found apart on the
    exam score (``exams.changes.exam_ties``'s ``known``; None: nothing recorded)."""

    detail: pa.Table | None = None
    spans: dict[str, tuple[int, int]] = field(default_factory=dict)
    results: dict[str, dict[str, Any]] = field(default_factory=dict)
    ties: Known | None = None

    def pieces(self, keys: list[str], made: Callable[[str], pa.Table]) -> Iterator[pa.Table]:
        """The detail's rows for ``keys`` in sorted order: runs of reused models as one slice each
        (adding one model to 200 concatenates three pieces, not 200), ``made(key)`` for the rest."""
        run: tuple[int, int] | None = None
        for key in sorted(keys):
            span = self.spans.get(key)
            if span is not None and run is not None and run[1] == span[0]:
                run = (run[0], span[1])
                continue
            if run is not None:
                yield self.detail.slice(run[0], run[1] - run[0])  # type: ignore[union-attr]
            run = span
            if span is None:
                yield made(key)
        if run is not None:
            yield self.detail.slice(run[0], run[1] - run[0])  # type: ignore[union-attr]


def reusable(exam: str, inputs: dict[str, Any]) -> Reused:
    """What the previous detail of ``exam`` gives for each model of ``inputs`` made from the same
    inputs. A previous detail that is not exactly of the schema, sorted by model and question with
    no key twice, gives nothing: every model is built again (it is read from the workspace or
    DVC's cache, which a pull may have filled with anything)."""
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
    try:
        detail = read_arrow(previous, EXAM_DETAIL)
    except SchemaError:
        return Reused()
    every = key_runs(detail, ("model", "item_id")) if conformed_arrow(detail, EXAM_DETAIL) else None
    if every is None:
        return Reused()
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


#: The detail's columns the tie groups on the exam score read (exams.changes.exam_ties).
TIES_COLUMNS = ["model", "item_id", "kind", "topic", "points", "earned", "status"]


def exam_results(exam: str, items: pd.DataFrame, keys: list[str]) -> tuple[dict[str, Any], dict[str, Any]]:
    """Write the detail of ``exam`` for the models ``keys``, and return its metrics by model (with
    the tie groups on the exam score) and its topic breakdown by model: rows, metrics, topics and
    pairs apart of models whose inputs did not change taken from the previous detail, the rest
    computed (metrics model by model; pairs apart only those with a changed model).

    The detail is put together in Arrow: the previous rows as they were read, each new model's
    checked against the schema (:func:`~sideways.artifacts.schema.conform`) and converted; only the
    new models' rows, and the tie groups' columns, become pandas frames."""
    # multiple choice only: no exam_judge job, no grades (sideways.exams.kinds.needs_judges)
    graded = bool((items["kind"] == "short_answer").any())
    no_grades = read_tables([], EXAM_GRADES, f"exam {exam} grades")
    inputs = detail_inputs(exam, keys, graded)
    reused = reusable(exam, inputs)
    results = reused.results
    # model by model: one model's replies (their texts) in memory at a time, not every model's
    pieces = list(reused.pieces(keys, lambda k: arrow_table(conform(detail_table(
        items, read_table(paths.exam_predictions(exam, k), EXAM_PREDICTIONS),
        read_table(paths.exam_grades(exam, k), EXAM_GRADES) if graded else no_grades),
        EXAM_DETAIL, f"{paths.exam_detail(exam)} ({k})"), EXAM_DETAIL)))
    detail = pa.concat_tables(pieces) if pieces else EXAM_DETAIL.arrow().empty_table()
    fresh = detail if not results else detail.filter(
        pc.invert(pc.is_in(detail.column("model"), value_set=pa.array(sorted(results), pa.string()))))
    fresh_rows = fresh.to_pandas()
    metrics: dict[str, Any] = model_metrics(fresh_rows)
    topics: dict[str, Any] = topic_breakdown(fresh_rows)
    for m, r in results.items():
        metrics[m], topics[m] = r["metrics"], r["topics"]
    made = {m: {"metrics": dict(metrics[m]), "topics": topics.get(m, {})} for m in metrics}
    groups, apart = exam_ties(detail.select(TIES_COLUMNS).to_pandas(), known=reused.ties)
    for m, g in groups.items():
        metrics[m]["tie_groups"] = g
    ties = {"models": sorted(groups), "apart": sorted(sorted(p) for p in apart)}
    write_arrow(detail, EXAM_DETAIL, paths.exam_detail(exam),
                json.dumps(inputs | {"results": made, "ties": ties}, sort_keys=True))
    return dict(sorted(metrics.items())), dict(sorted(topics.items()))
