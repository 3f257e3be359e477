"""exam_score's per-question detail, metrics and topics reused model by model (docs/design.md, "Coarse stages").

DVC reruns exam_score whenever any model's exam predictions or grades change, and a full rebuild
of the detail costs every model's questions again (about 0.4 s of CPU per model on a
14,042-question exam: 80 s at 200 models to add one). Each model's predictions and grades tables
carry the fingerprint of their job's inputs; each model's detail file
(``data/exam/detail/<exam>/<model>.parquet``) records, in its Parquet metadata, those two
fingerprints with the items' digest, the stage's code digest, and the model's metrics and topic
breakdown. A model whose fingerprints, items and code are the same as last time takes its file as
it was (the workspace's, else DVC's cached copy through dvc.lock), checked, and its numbers from
it; only the other models' rows are built. One file per model, so adding a model to 200 writes,
caches and pushes one model's 14,042 rows, not 2.8 million rows again (11 MB a model added).

The pairs of models found apart on the exam score are kept beside them (``ties.json``, with the
inputs of each model they were found from): adding one model computes its pairs with the others
only. Each model's numbers depend on its rows alone, so the files are the same bytes as computed
from nothing.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from sideways.artifacts import paths
from sideways.artifacts.fingerprint import code_digest, file_digest
from sideways.artifacts.io import (
    INPUTS_KEY,
    arrow_table,
    atomic_write_bytes,
    conformed_parquet,
    json_bytes,
    read_table,
    read_tables,
    table_inputs,
    write_arrow,
)
from sideways.artifacts.previous import previous_bytes, previous_output
from sideways.artifacts.schema import EXAM_DETAIL, EXAM_GRADES, EXAM_PREDICTIONS, conform
from sideways.artifacts.sorted_tables import key_runs
from sideways.exams import frozen, sampled
from sideways.exams.changes import exam_ties
from sideways.exams.results import detail_table, model_metrics, topic_breakdown

STAGE = "exam_score"


def detail_inputs(exam: str, models: list[str], graded: bool = True) -> dict[str, Any]:
    """What the detail of ``exam`` is made from: code, items, and each model's two fingerprints
    (None when a table carries none: such a model is never reused; ``graded`` False: an exam of
    multiple choice only, whose models have no grades table)."""
    def grades(m: str) -> str | None:
        return table_inputs(paths.exam_grades(exam, m)) if graded else "no grades"

    def sampled(m: str) -> list[str]:  # a sampled exam's frozen design: the estimate reads it
        design = paths.exam_sample(exam, m)
        return [file_digest(design)] if design.exists() else []

    return {"code": code_digest(Path("."), STAGE), "items": file_digest(paths.exam_items(exam)),
            "models": {m: [table_inputs(paths.exam_predictions(exam, m)), grades(m), *sampled(m)] for m in models}}


Known = tuple[set[str], set[frozenset[str]]]

#: The detail's columns the tie groups on the exam score read (exams.changes.exam_ties); the model and
#: the question, the detail's key, among them.
TIES_COLUMNS = ["model", "item_id", "kind", "topic", "points", "earned", "status"]


@dataclass(frozen=True)
class Reused:
    """What the previous run gives for the models whose inputs did not change: each one's detail
    file as it was (its bytes, checked: exactly of the schema, its own rows only, sorted by question
    with none twice), its tie groups' columns (:data:`TIES_COLUMNS`), the metrics and topics recorded
    in it, and the pairs of them found apart on the exam score (``exams.changes.exam_ties``'s
    ``known``; None: nothing recorded)."""

    files: dict[str, bytes] = field(default_factory=dict)
    tables: dict[str, pa.Table] = field(default_factory=dict)
    results: dict[str, dict[str, Any]] = field(default_factory=dict)
    ties: Known | None = None
    #: where each file was read: the workspace's own file (a run by hand) is left as it is
    sources: dict[str, Path] = field(default_factory=dict)


def reusable(exam: str, inputs: dict[str, Any]) -> Reused:
    """What the previous detail files of ``exam`` give for each model of ``inputs`` made from the
    same inputs. A file whose record or rows are not exactly what this stage writes gives nothing:
    that model is built again (it is read from the workspace or DVC's cache, which a pull may have
    filled with anything)."""
    files: dict[str, bytes] = {}
    tables: dict[str, pa.Table] = {}
    results: dict[str, dict[str, Any]] = {}
    sources: dict[str, Path] = {}
    for model, fingerprints in inputs["models"].items():
        got = None if None in fingerprints else _previous_model(exam, model, inputs, fingerprints)
        if got is not None:
            files[model], tables[model], results[model], sources[model] = got
    return Reused(files, tables, results, _ties(exam, inputs, set(files)), sources)


def _previous_model(exam: str, model: str, inputs: dict[str, Any],
                    fingerprints: list[str]) -> tuple[bytes, pa.Table, dict[str, Any], Path] | None:
    """One model's previous detail file, its tie groups' columns, its recorded results and where it was
    read, when it was made from these inputs and holds exactly that model's rows in order; else None."""
    previous = previous_output(STAGE, paths.exam_detail(exam, model))
    if previous is None:
        return None
    try:
        data = previous.read_bytes()
        file = pq.ParquetFile(pa.BufferReader(data))
        recorded = json.loads((file.schema_arrow.metadata or {}).get(INPUTS_KEY.encode(), b"null"))
        if not isinstance(recorded, dict) or [recorded.get(k) for k in ("code", "items", "inputs")] != [
                inputs["code"], inputs["items"], fingerprints]:
            return None
        result = recorded.get("results")
        if not (isinstance(result, dict) and isinstance(result.get("metrics"), dict)
                and isinstance(result.get("topics"), dict)) or not conformed_parquet(file, EXAM_DETAIL):
            return None
        # the tie groups' columns only (the key among them): the rest is checked by its footer and copied as it is
        table = file.read(columns=TIES_COLUMNS, use_threads=False)  # small: threads cost more
    except (OSError, ValueError, pa.ArrowException):
        return None
    runs = key_runs(table, ("model", "item_id"))
    if runs is None or runs != ({model: (0, len(table))} if len(table) else {}):
        return None
    return data, table.replace_schema_metadata(None), result, previous


def _ties(exam: str, inputs: dict[str, Any], same: set[str]) -> Known | None:
    """The recorded pairs apart (``{"code", "items", "models": {model: fingerprints}, "apart": [[a, b],
    ...]}``) among the models of ``same`` that the record covers with the inputs they have now;
    None when the record is missing or not of that shape."""
    data = previous_bytes(STAGE, paths.exam_pairs_apart(exam))
    try:
        recorded: Any = json.loads(data) if data is not None else None
    except ValueError:
        return None
    if not isinstance(recorded, dict) or (recorded.get("code"), recorded.get("items")) != (inputs["code"],
                                                                                            inputs["items"]):
        return None
    models, apart = recorded.get("models"), recorded.get("apart")
    if not (isinstance(models, dict) and isinstance(apart, list)
            and all(isinstance(p, list) and len(p) == 2 and all(isinstance(m, str) for m in p) for p in apart)):
        return None
    covered = {m for m in same if models.get(m) == inputs["models"][m]}
    return covered, {frozenset(p) for p in apart if len(set(p)) == 2 and set(p) <= covered}


def exam_results(exam: str, items: pd.DataFrame, keys: list[str]) -> tuple[dict[str, Any], dict[str, Any]]:
    """Write the detail of ``exam`` for the models ``keys`` (one file per model) and the pairs apart,
    and return its metrics by model (with the tie groups on the exam score) and its topic breakdown
    by model: files, metrics, topics and pairs apart of models whose inputs did not change taken
    from the previous run, the rest computed (pairs apart only those with a changed model).

    A model built again is one model's rows in memory at a time (its replies' texts are read for
    it alone); only the tie groups' columns of every model become one pandas frame."""
    # multiple choice only: no exam_judge job, no grades (sideways.exams.kinds.needs_judges)
    graded = bool((items["kind"] == "short_answer").any())
    no_grades = read_tables([], EXAM_GRADES, f"exam {exam} grades")
    inputs = detail_inputs(exam, keys, graded)
    reused = reusable(exam, inputs)
    folder = paths.exam_detail_dir(exam)
    folder.mkdir(parents=True, exist_ok=True)
    for stale in folder.glob("*.parquet"):  # a model no longer taking it (a run by hand: DVC empties the folder)
        if stale.name.removesuffix(".parquet") not in keys:
            stale.unlink()
    metrics: dict[str, Any] = {}
    topics: dict[str, Any] = {}
    tie_parts: list[pa.Table] = []
    for key in sorted(keys):
        target = paths.exam_detail(exam, key)
        if key in reused.files:
            table, result = reused.tables[key], reused.results[key]
            if reused.sources[key] != target:  # DVC emptied the folder: its cached copy, durable there already
                atomic_write_bytes(target, reused.files[key], sync=False)
        else:
            table = arrow_table(conform(detail_table(
                items, read_table(paths.exam_predictions(exam, key), EXAM_PREDICTIONS),
                read_table(paths.exam_grades(exam, key), EXAM_GRADES) if graded else no_grades),
                EXAM_DETAIL, f"{target}"), EXAM_DETAIL)
            rows = table.to_pandas()
            result = {"metrics": _sampled(exam, key, items, rows, model_metrics(rows).get(key)),
                      "topics": topic_breakdown(rows).get(key, {})}
            write_arrow(table, EXAM_DETAIL, target, json.dumps(
                {"code": inputs["code"], "items": inputs["items"], "inputs": inputs["models"][key], "results": result},
                sort_keys=True))
        if result["metrics"] is not None:  # a model without a row has no numbers, as before
            metrics[key], topics[key] = dict(result["metrics"]), result["topics"]
        tie_parts.append(table.select(TIES_COLUMNS).replace_schema_metadata(None))
    ties = pa.concat_tables(tie_parts) if tie_parts else EXAM_DETAIL.arrow().empty_table().select(TIES_COLUMNS)
    if any(paths.exam_sample(exam, k).exists() for k in keys):  # a sampled exam: ties from its estimates
        groups, apart = sampled.estimate_ties(metrics)
    else:
        groups, apart = exam_ties(ties.to_pandas(), known=reused.ties)
    for m, g in groups.items():
        metrics[m]["tie_groups"] = g
    atomic_write_bytes(paths.exam_pairs_apart(exam), json_bytes(
        {"code": inputs["code"], "items": inputs["items"], "models": {m: inputs["models"][m] for m in sorted(groups)},
         "apart": sorted(sorted(p) for p in apart)}, compact=True))
    return dict(sorted(metrics.items())), dict(sorted(topics.items()))


def _sampled(exam: str, model: str, items: pd.DataFrame, rows: pd.DataFrame,
             metrics: dict[str, Any] | None) -> dict[str, Any] | None:
    """``metrics`` with, on a sampled exam, the exam score estimated for the whole exam from the
    model's sample (:func:`sideways.exams.sampled.score_estimate`): score, se, interval, asked of how many."""
    design = paths.exam_sample(exam, model)
    if metrics is None or not design.exists():
        return metrics
    points = {str(i): float(p) for i, p in zip(items["item_id"], items["points"], strict=True)}
    estimate = sampled.score_estimate(frozen.parse_frozen(design.read_bytes(), str(design)), rows, points)
    return metrics | sampled.sampled_metrics(estimate)
