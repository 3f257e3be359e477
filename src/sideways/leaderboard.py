"""Leaderboard views of a ranked scores table: DVC metrics, plot rows, and printed tables."""

from __future__ import annotations

from typing import Any

import pandas as pd


def leaderboard_metrics(ranked: pd.DataFrame) -> dict[str, dict[str, Any]]:
    """``{model key: {rank, best_rank, worst_rank, score, ci, ...}}`` for ``dvc metrics show/diff``.

    Scores and intervals are the published rounded percentages; ``true_score`` and ``covered``
    appear for simulated models, where the truth is known.
    """
    out: dict[str, dict[str, Any]] = {}
    for r in ranked.sort_values(["n_hints", "rank", "model"]).to_dict("records"):
        entry: dict[str, Any] = {
            "rank": int(r["rank"]),
            "best_rank": int(r["best_rank"]),
            "worst_rank": int(r["worst_rank"]),
            "score": float(r["score_pct"]),
            "ci": float(r["ci_pct"]),
            "n_hints": int(r["n_hints"]),
        }
        if pd.notna(r["true_score"]):
            entry["true_score"] = round(100 * float(r["true_score"]), 1)
            entry["covered"] = bool(r["covered"])
        out[str(r["model"])] = entry
    return out


def plot_rows(ranked: pd.DataFrame) -> list[dict[str, Any]]:
    """One row per model for the interval plot: score and its 95% bounds in percent."""
    rows = []
    for r in ranked.sort_values(["n_hints", "rank", "model"]).to_dict("records"):
        rows.append(
            {
                "model": str(r["model"]),
                "provider": str(r["provider"]),
                "score": float(r["score_pct"]),
                "lo": round(float(r["score_pct"]) - float(r["ci_pct"]), 1),
                "hi": round(float(r["score_pct"]) + float(r["ci_pct"]), 1),
                **({"true_score": round(100 * float(r["true_score"]), 1)} if pd.notna(r["true_score"]) else {}),
            }
        )
    return rows


def format_table(ranked: pd.DataFrame, title: str = "") -> str:
    """The leaderboard as published: rank, rank spread, model, score, 95% CI (±), provider
    (plus the true score and whether the interval covers it, in simulation)."""
    sim = ranked["true_score"].notna().any()
    header = ["rank", "rank spread", "model", "score", "95% CI (±)", "provider"] + (["true", "covered"] if sim else [])
    rows = []
    for r in ranked.sort_values(["n_hints", "rank", "model"]).to_dict("records"):
        row = [
            str(int(r["rank"])),
            f"{int(r['best_rank'])} <--> {int(r['worst_rank'])}",
            str(r["model_name"]),
            f"{r['score_pct']:.1f}",
            f"{r['ci_pct']:.1f}",
            str(r["provider"]),
        ]
        if sim:
            true = r["true_score"]
            row += [f"{100 * true:.1f}", "yes" if r["covered"] else "NO"] if pd.notna(true) else ["", ""]
        rows.append(row)
    widths = [max(len(h), *(len(row[i]) for row in rows)) if rows else len(h) for i, h in enumerate(header)]
    line = lambda cells: "| " + " | ".join(c.ljust(w) for c, w in zip(cells, widths)) + " |"  # noqa: E731
    out = [title] if title else []
    out += [line(header), "|" + "|".join("-" * (w + 2) for w in widths) + "|", *map(line, rows)]
    return "\n".join(out)
