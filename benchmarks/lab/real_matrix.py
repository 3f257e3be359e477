"""Real per-item results as a response matrix, from the two layouts the repository holds them in.

:func:`layton_matrix`: a layton-eval calibration file graded by its judges' majority, the one reading of every
study that measures exams on it (benchmarks/subset_coverage.py ``--layton``, benchmarks/studies/exam_diff_power.py
``--layton``): a (model, riddle) is right when most of the judges with a verdict said ``both_correct`` (answer and
justification right). Every row counts whatever its ``n_hints`` (the repository's LLM file has one row per model
and riddle, all without hints); riddles every model answered are kept.

:func:`csv_matrix`: a wide CSV, one row per item and one column per model (header ``item,model-a,model-b,...``),
each cell 0 or 1 (``0.0`` and ``1.0`` too): the layout of per-item leaderboard exports such as
benchmarks/data/chembench-all-correct.csv.
"""

from __future__ import annotations

import csv
import json

import numpy as np

from sideways.core.errors import SidewaysError
from sideways.exams.matrix import ResponseMatrix


def layton_matrix(path: str) -> ResponseMatrix:
    """A layton-eval calibration file as a response matrix: a (model, riddle) is right when most of the judges
    with a verdict said ``both_correct``; riddles every model answered are kept. Bad lines name file and line."""
    votes: dict[str, dict[str, bool]] = {}
    with open(path, encoding="utf-8") as f:
        for number, text in enumerate(f, 1):
            if not text.strip():
                continue
            try:
                row = json.loads(text)
                model, riddle = str(row["model"]), str(row["riddle_id"])
            except (json.JSONDecodeError, KeyError, TypeError) as exc:
                raise SidewaysError(f"{path}:{number}: not a calibration row ({type(exc).__name__})") from None
            said = [v for k, v in row.items() if k.startswith("both_correct_") and isinstance(v, bool)]
            if not said:
                raise SidewaysError(f"{path}:{number}: no judge's both_correct verdict")
            votes.setdefault(model, {})[riddle] = 2 * sum(said) > len(said)
    models = tuple(sorted(votes))
    items = tuple(sorted(set.intersection(*(set(v) for v in votes.values())))) if votes else ()
    if len(models) < 2 or len(items) < 2:
        raise SidewaysError(f"{path}: needs 2 models or more sharing 2 riddles or more")
    y = np.array([[int(votes[m][i]) for i in items] for m in models], dtype=np.int8)
    return ResponseMatrix(models, items, y)


def _cell(text: str, where: str) -> int:
    value = text.strip()
    if value in ("0", "1", "0.0", "1.0"):
        return int(float(value))
    raise SidewaysError(f"{where}: expected 0 or 1, got {value[:40]!r}")


def csv_matrix(path: str) -> ResponseMatrix:
    """A wide CSV (``item,model-a,...`` then one row of 0/1 per item) as a response matrix, models and items sorted
    by name as a py-irt file's are. Bad input names the file, line and column."""
    with open(path, encoding="utf-8", newline="") as f:
        lines = list(csv.reader(f))
    if not lines or len(lines[0]) < 3:
        raise SidewaysError(f"{path}:1: expected a header 'item,model-a,model-b,...' (2 models or more)")
    models = tuple(name.strip() for name in lines[0][1:])
    if any(not name for name in models) or len(set(models)) < len(models):
        raise SidewaysError(f"{path}:1: model names must be non-empty and distinct")
    items: list[str] = []
    rows: list[list[int]] = []
    for number, row in enumerate(lines[1:], 2):
        if not row:
            continue
        if len(row) != len(models) + 1:
            raise SidewaysError(f"{path}:{number}: expected {len(models) + 1} columns, got {len(row)}")
        items.append(row[0].strip())
        rows.append([_cell(value, f"{path}:{number}: column {models[m]!r}") for m, value in enumerate(row[1:])])
    if len(set(items)) < len(items) or any(not item for item in items):
        raise SidewaysError(f"{path}: item names must be non-empty and distinct")
    if len(items) < 2:
        raise SidewaysError(f"{path}: needs 2 items or more")
    y = np.array(rows, dtype=np.int8).T  # sorted as sideways.exams.matrix sorts a py-irt file: the same draws
    by_model, by_item = np.argsort(models, kind="stable"), np.argsort(items, kind="stable")
    return ResponseMatrix(tuple(sorted(models)), tuple(sorted(items)), y[by_model][:, by_item].copy())
