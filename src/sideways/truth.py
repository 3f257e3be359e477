"""True scores of simulated models, derived from their predictions' text and the gold riddles."""

from __future__ import annotations

import pandas as pd

from sideways.backends.sim import truth


def true_scores(riddles: pd.DataFrame, predictions: pd.DataFrame, field: str) -> dict[str, float]:
    """Per model, the share of riddles that are truly right for ``field`` (answer, justification, both)."""
    by_id = riddles.set_index("riddle_id").to_dict("index")
    hits: dict[str, list[bool]] = {}
    for p in predictions.to_dict("records"):
        a, j = truth(by_id[p["riddle_id"]], p["answer"], p["justification"])
        value = {"answer_correct": a, "justification_correct": j, "both_correct": a and j}[field]
        hits.setdefault(p["model"], []).append(value)
    return {m: sum(v) / len(v) for m, v in hits.items()}
