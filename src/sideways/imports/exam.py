"""An imported exam (``exams.<key>.source: imported``) read from its runs: its items, and each run's
predictions and grades, the tables exam_items writes.

Each entry of ``runs:`` is one run (:func:`~sideways.imports.load.read_runs`: an lm-eval output folder or
results file, or one inspect log), its key the model it becomes; a path holding several runs is an
error naming them, since which is meant cannot be guessed. The tables are
:func:`~sideways.imports.run.exam_tables`' (two runs whose same question differs are an error naming both
files).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from sideways.config.exam import ExamSpec
from sideways.imports.load import read_runs
from sideways.imports.run import ImportedRun, ImportedRunError, exam_tables, keyed_runs


@dataclass(frozen=True)
class ImportedExam:
    items: pd.DataFrame  # EXAM_ITEMS
    predictions: dict[str, pd.DataFrame]  # by model key: EXAM_PREDICTIONS
    grades: dict[str, pd.DataFrame]  # by model key: EXAM_GRADES


def imported_exam(spec: ExamSpec, root: str | Path = ".") -> ImportedExam:
    """The tables of imported exam ``spec``, its run paths read under ``root``."""
    root = Path(root)
    runs = keyed_runs((key, _one_run(spec, key, path, root)) for key, path in spec.runs)
    items, predictions, grades = exam_tables(spec.key, runs)
    return ImportedExam(items, _by_model(predictions), _by_model(grades))


def _one_run(spec: ExamSpec, key: str, path: str, root: Path) -> ImportedRun:
    runs = read_runs(root / path, spec.score)
    if len(runs) != 1:
        raise ImportedRunError(f"{path}: {len(runs)} runs ({', '.join(Path(r.source).name for r in runs[:3])}"
                               f"{', ...' if len(runs) > 3 else ''}), but exams.{spec.key}.runs.{key} is one model: "
                               "name one run per key")
    return runs[0]


def _by_model(table: pd.DataFrame) -> dict[str, pd.DataFrame]:
    return {str(model): rows.sort_values("item_id").reset_index(drop=True)
            for model, rows in table.groupby("model", sort=True)}
