"""exam_score's per-question detail reused model by model (docs/design.md, "Coarse stages").

DVC reruns exam_score whenever any model's exam predictions or grades change, and a full rebuild
of the detail costs every model's questions again (about 0.4 s of CPU per model on a
14,042-question exam: 80 s at 200 models to add one). Each model's predictions and grades tables
carry the fingerprint of their job's inputs; the detail file records, in its Parquet metadata,
those fingerprints per model with the items' digest and the stage's code digest. A model whose
fingerprints, items and code are the same as last time takes its rows from the previous detail
(the workspace's file, else DVC's cached copy through dvc.lock) instead of being rebuilt.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd

from sideways.artifacts import paths
from sideways.artifacts.fingerprint import code_digest, file_digest
from sideways.artifacts.io import read_table, table_inputs
from sideways.artifacts.previous import previous_output
from sideways.artifacts.schema import EXAM_DETAIL

STAGE = "exam_score"


def detail_inputs(exam: str, models: list[str], graded: bool = True) -> dict[str, Any]:
    """What the detail of ``exam`` is made from: code, items, and each model's two fingerprints
    (None when a table carries none: such a model is never reused; ``graded`` False: an exam of
    multiple choice only, whose models have no grades table)."""
    def grades(m: str) -> str | None:
        return table_inputs(paths.exam_grades(exam, m)) if graded else "no grades"

    return {"code": code_digest(Path("."), STAGE), "items": file_digest(paths.exam_items(exam)),
            "models": {m: [table_inputs(paths.exam_predictions(exam, m)), grades(m)] for m in models}}


def reusable_detail(exam: str, inputs: dict[str, Any]) -> dict[str, pd.DataFrame]:
    """The previous detail rows of each model of ``inputs`` made from the same inputs (by model)."""
    previous = previous_output(STAGE, paths.exam_detail(exam))
    if previous is None:
        return {}
    try:
        recorded = json.loads(table_inputs(previous) or "null")
    except ValueError:
        return {}
    if not isinstance(recorded, dict) or (recorded.get("code"), recorded.get("items")) != (inputs["code"],
                                                                                            inputs["items"]):
        return {}
    same = {m for m, f in inputs["models"].items() if None not in f and (recorded.get("models") or {}).get(m) == f}
    if not same:
        return {}
    detail = read_table(previous, EXAM_DETAIL)
    return {str(m): d.reset_index(drop=True) for m, d in detail.groupby("model", sort=False) if str(m) in same}
