"""A ranked leaderboard from imported tables, and its published renderings (table and JSON rows).

jury -> completeness check -> calibrated scores -> ranks, per hint count (method.md 2-5).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pandas as pd

from sideways.calibration import score_models
from sideways.errors import CalibrationError
from sideways.jury import jury_table
from sideways.ranking import rank_leaderboard

COLUMNS = ("rank", "rank spread", "model", "score", "95% CI (±)", "provider")


def check_complete(predictions: pd.DataFrame) -> None:
    """Fail unless every model has a prediction for every riddle of the split (method.md 5)."""
    riddles = set(predictions["riddle_id"])
    short = []
    for model, ids in predictions.groupby("model")["riddle_id"]:
        missing = riddles - set(ids)
        if missing:
            short.append(f"{model} lacks {len(missing)} of {len(riddles)} riddles (e.g. {sorted(missing)[0]})")
    if short:
        raise CalibrationError("leaderboard: incomplete models cannot be ranked: " + "; ".join(short))


def build_leaderboard(
    predictions: pd.DataFrame,
    judgments: pd.DataFrame,
    annotations: pd.DataFrame,
    panels: Mapping[str, Sequence[str]],
    *,
    field: str,
    method: str,
    bootstrap: int,
    seed: int,
    empty_bin: str = "error",
) -> pd.DataFrame:
    """SCORES rows of every model with rank, best_rank, worst_rank and rank_spread."""
    check_complete(predictions)
    jury = jury_table(judgments, predictions, panels)
    scores = score_models(jury, annotations, field=field, method=method, bootstrap=bootstrap, seed=seed,
                          empty_bin=empty_bin)
    return rank_leaderboard(scores)


def format_table(board: pd.DataFrame) -> str:
    """The leaderboard as a Markdown table in the published layout, one table per hint count."""
    blocks = []
    groups = list(board.groupby("n_hints", sort=True))
    for n_hints, group in groups:
        lines = []
        if len(groups) > 1:
            lines.append(f"{n_hints} hint(s):\n")
        lines.append("| " + " | ".join(COLUMNS) + " |")
        lines.append("|" + "---|" * len(COLUMNS))
        for r in group.itertuples(index=False):
            lines.append(f"| {r.rank} | {r.rank_spread} | {r.model_name} | {r.score_pct:.1f} | {r.ci_pct:.1f} | {r.provider} |")
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks) + "\n"


def json_rows(board: pd.DataFrame) -> list[dict]:
    """Rows for ``--json``: published values (``score``, ``ci`` in percent) and unrounded ones."""
    rows = []
    for r in board.itertuples(index=False):
        rows.append({
            "rank": int(r.rank),
            "rank_spread": r.rank_spread,
            "best_rank": int(r.best_rank),
            "worst_rank": int(r.worst_rank),
            "model": r.model_name,
            "model_key": r.model,
            "provider": r.provider,
            "n_hints": int(r.n_hints),
            "score": float(r.score_pct),
            "ci": float(r.ci_pct),
            "score_unrounded": float(r.score),
            "lo": float(r.lo),
            "hi": float(r.hi),
            "half_width": float(r.half_width),
            "n": int(r.n),
            "n_pool": int(r.n_pool),
            "field": r.field,
            "method": r.method,
            "bootstrap": int(r.bootstrap),
            "seed": int(r.seed),
        })
    return rows
