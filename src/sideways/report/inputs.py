"""The tables one split's (and one exam's) report is made of, and reading them (the report stage's only input I/O)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from sideways.annotation.rater_labels import audit_labels, audit_log
from sideways.artifacts import paths
from sideways.artifacts.failures import with_results
from sideways.artifacts.io import read_table, read_tables
from sideways.artifacts.schema import (
    ANNOTATIONS,
    EXAM_DETAIL,
    EXAM_GRADES,
    EXAM_ITEMS,
    EXAM_PREDICTIONS,
    JUDGMENTS,
    JURY,
    PREDICTIONS,
    RIDDLES,
    SCORES,
)
from sideways.artifacts.sorted_tables import read_sorted
from sideways.config.params import Params
from sideways.core.errors import SidewaysError
from sideways.report.exam_replies import group_inputs, groups, previous_replies, reply_path
from sideways.scoring.rater_audit import check_record


@dataclass(frozen=True)
class SplitTables:
    """Every artifact of one split the report shows; predictions and judgments of all models."""

    riddles: pd.DataFrame
    predictions: pd.DataFrame
    judgments: pd.DataFrame
    annotations: pd.DataFrame
    jury: pd.DataFrame
    scores: pd.DataFrame
    #: the rank stage's pairwise table as read (``metrics/pairwise/<split>.json``; None: none readable),
    #: used only when :func:`sideways.scoring.pairwise.agrees` with ``scores``
    pairwise: Any = None
    #: the calibrate stage's audit record (``metrics/audit/<split>.json``, checked; None: none), used only when its
    #: digest is the one of these tables (:func:`sideways.report.audit.audit_summary`)
    audit: Any = None
    #: every label the annotators' audit reads: the label log's, second labels included
    #: (:func:`sideways.annotation.rater_labels.audit_labels`); None: ``annotations``
    raters: pd.DataFrame | None = None


@dataclass(frozen=True)
class ExamTables:
    """Every artifact of one exam the report shows: its items, every model's replies and grades,
    the per-question detail, and the metrics and topic breakdown ``exams.results`` computed."""

    key: str
    items: pd.DataFrame
    predictions: pd.DataFrame  # the replies: REPLY_COLUMNS of EXAM_PREDICTIONS
    grades: pd.DataFrame
    detail: pd.DataFrame
    metrics: dict[str, dict[str, Any]]
    topics: dict[str, dict[str, dict[str, float]]]
    #: per group of models (``exam_replies.groups``): the fingerprint of its reply files (None: none)
    reply_inputs: list[str | None] = field(default_factory=list)
    #: the previous report's reply files that are taken as they are (their models' replies are not read)
    reused: dict[str, bytes] = field(default_factory=dict)


def exam_files(params: Params) -> dict[str, dict[str, list[Path]]]:
    """Per exam key, the files of :class:`ExamTables` (one list per table): the one place that
    knows where an exam's outputs live (``metrics`` and ``topics`` hold every exam, by key)."""
    out = {}
    for exam in params.exams:
        keys = with_results([m.key for m in params.models_taking(exam)], exam)  # less its failed jobs
        out[exam] = {"items": [paths.exam_items(exam)], "predictions": [paths.exam_predictions(exam, k) for k in keys],
                     "grades": [paths.exam_grades(exam, k) for k in keys],
                     "detail": [paths.exam_detail(exam, k) for k in sorted(keys)],
                     "metrics": [paths.EXAM_METRICS], "topics": [paths.EXAM_TOPICS]}
    return out


def read_exam(key: str, files: dict[str, list[Path]], models: list[str] | None = None,
              previous: Path | None = None) -> ExamTables:
    """Read one exam's tables from ``files`` (an entry of :func:`exam_files`). With ``models`` (params
    order) and ``previous`` (the report folder written last), the reply files of a group of models
    whose inputs did not change are taken from there, and those models' replies are not read."""
    items = read_table(files["items"][0], EXAM_ITEMS)
    # short answers only are graded (sideways.exams.kinds.needs_judges): multiple choice alone has no grades
    graded = files["grades"] if (items["kind"] == "short_answer").any() else []
    inputs: list[str | None] = []
    reused: dict[str, bytes] = {}
    skip: set[str] = set()
    if models is not None and previous is not None:
        taking = {_model(p): (p, g if graded else None)
                  for p, g in zip(files["predictions"], files["grades"], strict=True)}
        inputs = group_inputs(key, files["items"][0], models, taking, {_model(d): d for d in files["detail"]})
        reused = previous_replies(key, inputs, len(items), previous)
        skip = {m for g, group in enumerate(groups(models)) if reply_path(key, 0, g) in reused for m in group}
    return ExamTables(
        key=key, items=items,
        predictions=_replies([f for f in files["predictions"] if _model(f) not in skip], key),
        grades=read_tables(graded, EXAM_GRADES, f"{key} exam grades"),
        detail=read_sorted(files["detail"], EXAM_DETAIL, f"{key} exam detail"),  # 2.8 M rows at 200 models
        metrics=json.loads(files["metrics"][0].read_text()).get(key, {}),
        topics=json.loads(files["topics"][0].read_text()).get(key, {}),
        reply_inputs=inputs, reused=reused,
    )


def _model(table: Path) -> str:
    """The model key of a per-model table (``<model>.parquet``: a key may hold dots)."""
    return table.name.removesuffix(".parquet")


#: The columns of the exam's predictions its page shows; tokens and costs stay on disk.
REPLY_COLUMNS = ["item_id", "model", "text", "error"]


def _replies(files: list[Path], key: str) -> pd.DataFrame:
    """Every model's exam predictions, :data:`REPLY_COLUMNS` only, read file by file: at 200
    models x 14,042 questions the whole table and its schema check's copies held gigabytes."""
    if not files:
        return read_tables([], EXAM_PREDICTIONS, f"{key} exam predictions")[REPLY_COLUMNS]
    return pd.concat([read_table(f, EXAM_PREDICTIONS)[REPLY_COLUMNS] for f in files], ignore_index=True)


def read_exams(params: Params, previous: Path | None = None) -> list[ExamTables]:
    """Every exam's tables, in params order ([] when there is no exam); ``previous``: the report
    folder written last, whose unchanged reply files are taken as they are (:func:`read_exam`)."""
    models = [m.key for m in params.models]
    return [read_exam(key, files, models, previous) for key, files in exam_files(params).items()]


def read_split(params: Params, split: str) -> SplitTables:
    """Read ``split``'s tables for the models that take it (never a glob: docs/design.md)."""
    keys = with_results([m.key for m in params.models_taking(split)], split)  # less its failed jobs
    annotations = read_table(paths.annotations(split), ANNOTATIONS)
    return SplitTables(
        riddles=read_table(paths.split_table(split), RIDDLES),
        predictions=read_tables([paths.predictions(split, k) for k in keys], PREDICTIONS, f"{split} predictions"),
        judgments=read_tables([paths.judgments(split, k) for k in keys], JUDGMENTS, f"{split} judgments"),
        annotations=annotations,
        jury=read_table(paths.jury(split), JURY),
        scores=read_table(paths.scores(split), SCORES),
        pairwise=_json_or_none(paths.pairwise(split)),
        audit=read_audit(paths.audit(split)),
        raters=audit_labels(params.annotations.source_for(split), paths.LABELS, split, annotations),
    )


def read_audit(path: Path) -> dict[str, Any] | None:
    """The audit record in ``path`` (:func:`sideways.scoring.rater_audit.audit_record`), None when there is none;
    a one-line error naming the file when it is not one."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as e:
        raise SidewaysError(f"{path}: cannot read the audit record ({e.strerror or e})") from None
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError) as e:  # UnicodeDecodeError is a ValueError
        raise SidewaysError(f"{path}: not JSON ({str(e).splitlines()[0][:80]}); rerun `dvc repro calibrate`") from None
    return check_record(data, str(path))


def _json_or_none(path: Path) -> Any:
    """The JSON value in ``path``, or None when it is missing or not JSON (the caller checks its shape)."""
    try:
        return json.loads(path.read_bytes())
    except (OSError, ValueError):
        return None


def input_files(params: Params) -> list[str]:
    """The files :func:`read_split` and :func:`read_exams` read, for the data digest of the header."""
    files = []
    for split in params.splits:
        files += [str(paths.split_table(split)), str(paths.annotations(split)), str(paths.jury(split)),
                  str(paths.scores(split))]
        files += [str(paths.pairwise(split))] if paths.pairwise(split).exists() else []
        files += [str(paths.audit(split))] if paths.audit(split).exists() else []
        log = audit_log(params.annotations.source_for(split), paths.LABELS, split)
        files += [str(log)] if log is not None else []
        for key in with_results([m.key for m in params.models_taking(split)], split):
            files += [str(paths.predictions(split, key)), str(paths.judgments(split, key))]
    for exam in exam_files(params).values():  # no grades on an exam of multiple choice only
        files += [str(f) for name, table in exam.items() for f in table if name != "grades" or f.exists()]
    return files
