"""Real per-item results as a response matrix, from the two layouts the repository holds them in.

:func:`layton_matrix`: a layton-eval calibration file graded by its judges' majority, the one reading of every
study that measures exams on it (benchmarks/subset_coverage.py ``--layton``, benchmarks/studies/exam_diff_power.py
``--layton``): a (model, riddle) is right when most of the judges with a verdict said ``both_correct`` (answer and
justification right). Every row counts whatever its ``n_hints`` (the repository's LLM file has one row per model
and riddle, all without hints); riddles every model answered are kept.

:func:`csv_matrix`: a wide CSV, one row per item and one column per model (header ``item,model-a,model-b,...``),
each cell 0 or 1 (``0.0`` and ``1.0`` too): the layout of per-item leaderboard exports such as
benchmarks/data/chembench-all-correct.csv.

:func:`add_sources` and :func:`load`: the matrix options the exam studies share (a py-irt file, a layton-eval
file, a wide CSV, or a seeded world of :mod:`lab.response_worlds`) and the one reading of them.
"""

from __future__ import annotations

import argparse
import csv
import json

import numpy as np

from lab.response_worlds import WORLDS, response_matrix
from sideways.core.errors import SidewaysError
from sideways.exams.matrix import ResponseMatrix, read_matrix


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


def add_sources(p: argparse.ArgumentParser, csv_too: bool = True) -> None:
    """The options naming the matrix: exactly one of --matrix, --layton, --csv (``csv_too``) or --world, and the
    drawn world's --models, --items and --seed."""
    source = p.add_mutually_exclusive_group(required=True)
    source.add_argument("--matrix", help="a response matrix, py-irt JSONL")
    source.add_argument("--layton", help="a layton-eval calibration file (JSONL), graded by its judges' majority")
    if csv_too:
        source.add_argument("--csv", help="a wide CSV of per-item results: item,model-a,model-b,... then 0/1 per item")
    source.add_argument("--world", choices=WORLDS, help="draw a seeded matrix of this world instead")
    p.add_argument("--models", type=int, default=30, help="models in a drawn matrix (default: 30)")
    p.add_argument("--items", type=int, default=600, help="items in a drawn matrix (default: 600)")
    p.add_argument("--seed", type=int, default=0)


def load(args: argparse.Namespace) -> tuple[ResponseMatrix, str]:
    """The matrix :func:`add_sources`' options name, and how to name it in a report (a bad file raises
    :class:`SidewaysError` naming it)."""
    if args.matrix:
        return read_matrix(args.matrix), str(args.matrix)
    if args.layton:
        return layton_matrix(args.layton), str(args.layton)
    if getattr(args, "csv", None):
        return csv_matrix(args.csv), str(args.csv)
    return response_matrix(args.world, args.models, args.items, args.seed), f"world {args.world} (seed {args.seed})"
