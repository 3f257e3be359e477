"""Real per-item results as a response matrix: the layton-eval calibration file graded by its judges' majority.

One reading for every study that measures exams on real results (benchmarks/subset_coverage.py ``--layton``,
benchmarks/studies/exam_diff_power.py ``--layton``): a (model, riddle) is right when most of the judges with a
verdict said ``both_correct`` (answer and justification right). Every row counts whatever its ``n_hints`` (the
repository's LLM file has one row per model and riddle, all without hints); riddles every model answered are
kept.
"""

from __future__ import annotations

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
