"""What is really right in the simulation, derived from a prediction's text and the gold riddle.

Truth is never stored: a simulated judge or annotator sees exactly what a real one would, and the
true score of a simulated model is computed from its predictions when it is needed.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd

from sideways.artifacts.schema import records, records_by


def normalize(text: str | None) -> str:
    """Lower-case, strip punctuation at the ends and collapse spaces, for comparing answers."""
    return " ".join((text or "").strip().strip(".!?").lower().split())


def truth(riddle: Mapping[str, Any], answer: str | None, justification: str | None) -> tuple[bool, bool]:
    """True (answer_correct, justification_correct) of a simulated prediction.

    The answer is right when it equals the gold answer once normalised; the justification is
    right when it is the gold justification, whatever the answer (a simulated model gives the
    gold justification with a wrong answer only when its ``slip`` says so: the fourth class).
    """
    answer_ok = answer is not None and normalize(answer) == normalize(riddle["answer"])
    return answer_ok, justification is not None and justification == riddle["justification"]



def true_scores(riddles: pd.DataFrame, predictions: pd.DataFrame, field: str) -> dict[str, float]:
    """Per model, the share of riddles that are truly right for ``field`` (answer, justification, both)."""
    by_id = records_by(riddles, "riddle_id")
    hits: dict[str, list[bool]] = {}
    for p in records(predictions):
        a, j = truth(by_id[p["riddle_id"]], p["answer"], p["justification"])
        value = {"answer_correct": a, "justification_correct": j, "both_correct": a and j}[field]
        hits.setdefault(p["model"], []).append(value)
    return {m: sum(v) / len(v) for m, v in hits.items()}
