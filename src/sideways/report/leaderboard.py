"""Leaderboard rows of the report: rank, rank set (or layton-eval's rank spread), model, provider,
score and its intervals, each cell written by the helpers ``sideways show`` uses, so the page
and the terminal read the same strings.

The interval the ranks follow (the scores' ``interval`` column) comes first: the page draws it
as the bar, its score and interval in the columns, and the other one as a thinner bar under it.
Rank sets and tie groups come from the split's pairwise table (the rank stage's, or one computed
for these scores), the one the Compare tab draws: all three from one set of draws.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd

from sideways.artifacts.schema import records
from sideways.scoring.display import model_label, rank_set_label
from sideways.scoring.leaderboard import band_text, fully_labelled, interval_bounds, interval_text
from sideways.scoring.pairwise import tie_label
from sideways.scoring.ranking import rank_leaderboard


def _pct(x: Any) -> float | None:
    return None if pd.isna(x) else round(100 * float(x), 1)


def _num(x: Any) -> float | None:
    return None if pd.isna(x) else float(x)


def _ranking_interval(scores: pd.DataFrame) -> str:
    """The interval the ranks follow (the scores' ``interval`` column; published without one)."""
    if "interval" in scores.columns and len(scores) and scores["interval"].iloc[0] == "posterior":
        return "posterior"
    return "published"


def leaderboard_rows(scores: pd.DataFrame, field: str, pairs: Mapping[str, Any] | None = None) -> list[dict[str, Any]]:
    """One row per model for ``field``, ranked within each hint count (as ``sideways show``).

    Score, interval and "covered" are those of the interval the ranks follow, so the table reads in
    rank order; both intervals are drawn, that one first. ``pairs``: the split's pairwise table
    (:func:`sideways.scoring.pairwise.pairwise`), whose rank sets and tie groups the rows carry.
    """
    ranked = rank_leaderboard(scores[scores["field"] == field])
    chosen = _ranking_interval(ranked)
    other = "published" if chosen == "posterior" else "posterior"
    prefix = "posterior_" if chosen == "posterior" else ""
    sets = (pairs or {}).get("rank_sets", {})
    ties = (pairs or {}).get("tie_groups", {})
    rows = []
    for r in records(ranked):
        key = str(r["model"])
        best, worst = sets.get(key, (None, None))
        rows.append({
            "rank": int(r["rank"]),
            "best_rank": int(r["best_rank"]),
            "worst_rank": int(r["worst_rank"]),
            "rank_spread": f"{int(r['best_rank'])} <--> {int(r['worst_rank'])}",
            "set_best": best, "set_worst": worst,
            "rank_set": None if best is None else rank_set_label(best, worst),
            "tie_groups": tie_label(ties[key]) if key in ties else None,
            "model": key,
            "label": model_label(key),
            "model_name": str(r["model_name"]),
            "provider": str(r["provider"]),
            "n_hints": int(r["n_hints"]),
            "ranked_by": chosen,
            "score": _num(r[f"{prefix}score_pct"]),
            "ci": _num(r[f"{prefix}ci_pct"]),
            "interval_text": interval_text(r, chosen),
            "band": band_text(r, chosen),
            "other_text": interval_text(r, other),
            "fully_labelled": chosen == "posterior" and fully_labelled(r),
            "intervals": [_bounds(r, name) for name in (chosen, other)],
            "true_score": _pct(r["true_score"]) if "true_score" in r else None,
            "covered": None if pd.isna(r.get(f"{prefix}covered")) else bool(r[f"{prefix}covered"]),
            "n": int(r["n"]),
            "n_labelled": int(r["n_labelled"]),
            "n_pool": int(r["n_pool"]),
        })
    return rows


def _bounds(r: Mapping[str, Any], name: str) -> dict[str, Any]:
    lo, hi = interval_bounds(r, name) or (None, None)
    return {"name": name, "lo": lo, "hi": hi}
