"""Leaderboards: built from imported tables, and rendered as published (table, JSON rows),
as DVC metrics and as plot rows.

jury -> completeness check -> calibrated scores -> ranks, per hint count (docs/method.md §2-5).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from sideways.artifacts.checks import require_complete
from sideways.artifacts.schema import records
from sideways.scoring.calibration import score_models
from sideways.scoring.jury import jury_table
from sideways.scoring.ranking import rank_leaderboard

COLUMNS = ("rank", "rank spread", "model", "score", "95% CI (±)", "provider")


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
    interval: str = "posterior",
    source: str = "leaderboard",
) -> pd.DataFrame:
    """SCORES rows of every model with rank, best_rank, worst_rank and rank_spread, ranked by ``interval``.

    Every model must have a prediction for every riddle of the split (docs/method.md §5): the riddles
    of ``predictions`` (from ``source``), all models together.
    """
    require_complete(predictions, predictions["riddle_id"], source)
    jury = jury_table(judgments, predictions, panels)
    scores = score_models(jury, annotations, field=field, method=method, bootstrap=bootstrap, seed=seed,
                          empty_bin=empty_bin, interval=interval)
    return rank_leaderboard(scores)


def _value(x: Any) -> Any:
    """A cell as JSON: None for a null (the published interval where it failed), a float otherwise."""
    return None if pd.isna(x) else float(x)


def interval_values(r: Mapping[str, Any], name: str) -> dict[str, Any]:
    """One row's ``name`` interval ("published" or "posterior"): score, ci (published rounding),
    and the unrounded score, lo, hi, half_width; None where the published interval is missing."""
    prefix = "posterior_" if name == "posterior" else ""
    out = {"score": _value(r[f"{prefix}score_pct"]), "ci": _value(r[f"{prefix}ci_pct"])}
    out |= {k: _value(r[f"{prefix}{k}"]) for k in ("lo", "hi", "half_width")}
    out["score_unrounded"] = _value(r[f"{prefix}score"])
    return out


def _ranked_by(board: pd.DataFrame) -> str:
    """The interval the rows rank by (a frame without the column ranks by the published one)."""
    return str(board["interval"].iloc[0]) if "interval" in board.columns and len(board) else "published"


def _other(name: str) -> str:
    return "published" if name == "posterior" else "posterior"


def leaderboard_metrics(ranked: pd.DataFrame) -> dict[str, dict[str, Any]]:
    """``{model key: {rank, best_rank, worst_rank, score, ci, ..., published: {...}, posterior: {...}}}``.

    For ``dvc metrics show/diff``. ``score`` and ``ci`` are the rounded percentages of the
    interval the ranks follow; ``published`` and ``posterior`` hold each interval's (a published
    one that failed on an empty bin is absent). ``true_score`` and ``covered`` appear for
    simulated models, where the truth is known.
    """
    name = _ranked_by(ranked)
    out: dict[str, dict[str, Any]] = {}
    for r in records(ranked.sort_values(["n_hints", "rank", "model"])):
        entry: dict[str, Any] = {
            "rank": int(r["rank"]),
            "best_rank": int(r["best_rank"]),
            "worst_rank": int(r["worst_rank"]),
            "n_hints": int(r["n_hints"]),
        }
        if "tie_groups" in r:
            entry["tie_groups"] = str(r["tie_groups"])
        known = pd.notna(r["true_score"])
        for which, cover in (("published", "covered"), ("posterior", "posterior_covered")):
            values = interval_values(r, which)
            if values["score"] is None:
                continue
            entry[which] = {"score": values["score"], "ci": values["ci"]}
            if known:
                entry[which]["covered"] = bool(r[cover])
        entry |= {k: entry[name][k] for k in ("score", "ci", "covered") if k in entry[name]}
        if known:
            entry["true_score"] = round(100 * float(r["true_score"]), 1)
        out[str(r["model"])] = entry
    return out


def headline(ranked: pd.DataFrame) -> dict[str, float | None]:
    """``{model key: score}``, the score the ranks follow: one short column per model, so that
    ``dvc metrics show metrics/headline_llm.json metrics/headline_vlm.json`` fits 120 columns."""
    metrics = leaderboard_metrics(ranked)
    return {model: entry.get("score") for model, entry in sorted(metrics.items())}


def plot_rows(ranked: pd.DataFrame) -> list[dict[str, Any]]:
    """One row per model for the interval plot, in percent: ``score``, ``lo`` and ``hi`` of the
    interval the ranks follow, and both intervals' bounds (``published_lo`` .. ``posterior_hi``)."""
    name = _ranked_by(ranked)
    rows = []
    for r in records(ranked.sort_values(["n_hints", "rank", "model"])):
        row: dict[str, Any] = {"model": str(r["model"]), "provider": str(r["provider"]), "interval": name}
        for which in (name, _other(name)):
            v = interval_values(r, which)
            bounds = (None, None) if v["score"] is None else (round(v["score"] - v["ci"], 1),
                                                              round(v["score"] + v["ci"], 1))
            if which == name:
                row |= {"score": v["score"], "lo": bounds[0], "hi": bounds[1]}
            row |= {f"{which}_score": v["score"], f"{which}_lo": bounds[0], f"{which}_hi": bounds[1]}
        if pd.notna(r["true_score"]):
            row["true_score"] = round(100 * float(r["true_score"]), 1)
        rows.append(row)
    return rows


def _cell(v: Mapping[str, Any]) -> str:
    return "—" if v["score"] is None else f"{v['score']:.1f} ± {v['ci']:.1f}"


def format_table(board: pd.DataFrame) -> str:
    """The leaderboard as a Markdown table in the published layout, one table per hint count.

    Score and CI are those of the interval the ranks follow; one more column shows the other
    interval as "score ± CI". In simulation (a known ``true_score``) the true score follows, and
    whether each interval covers it; then, when the board has them, the tie groups (method.md §8,
    headed "ties" so that the table fits 120 columns).
    """
    name = _ranked_by(board)
    other = _other(name)
    sim = "true_score" in board and board["true_score"].notna().any()
    ties = "tie_groups" in board.columns
    header = [*COLUMNS, other, *(("true", "covered", f"{other} covered") if sim else ()), *(("ties",) * ties)]
    cover = {"published": "covered", "posterior": "posterior_covered"}
    blocks = []
    groups = list(board.groupby("n_hints", sort=True))
    for n_hints, group in groups:
        lines = [f"{n_hints} hint(s):\n"] if len(groups) > 1 else []
        lines.append("| " + " | ".join(header) + " |")
        lines.append("|" + "---|" * len(header))
        for r in records(group.sort_values(["rank", "model"])):
            v = interval_values(r, name)
            cells = [r["rank"], r["rank_spread"], r["model_name"], f"{v['score']:.1f}", f"{v['ci']:.1f}",
                     r["provider"], _cell(interval_values(r, other))]
            if sim:
                known = pd.notna(r["true_score"])
                cells += [f"{100 * r['true_score']:.1f}" if known else ""]
                cells += [_yes(r[cover[k]]) if known else "" for k in (name, other)]
            if ties:
                cells.append(r["tie_groups"])
            lines.append("| " + " | ".join(map(str, cells)) + " |")
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks) + "\n"


def _yes(covered: Any) -> str:
    return "" if pd.isna(covered) else ("yes" if covered else "NO")


def json_rows(board: pd.DataFrame) -> list[dict[str, Any]]:
    """Rows for ``--json``: ``score``, ``ci`` (percent) and the unrounded ``score_unrounded``, ``lo``,
    ``hi``, ``half_width`` of the interval the ranks follow (``interval``), then each interval
    under ``published`` and ``posterior``."""
    name = _ranked_by(board)
    rows = []
    for r in records(board):
        rows.append({
            "rank": int(r["rank"]),
            "rank_spread": r["rank_spread"],
            "best_rank": int(r["best_rank"]),
            "worst_rank": int(r["worst_rank"]),
            "model": r["model_name"],
            "model_key": r["model"],
            "provider": r["provider"],
            "n_hints": int(r["n_hints"]),
            **interval_values(r, name),
            "interval": name,
            "published": interval_values(r, "published"),
            "posterior": interval_values(r, "posterior"),
            "n": int(r["n"]),
            "n_labelled": int(r["n_labelled"]),
            "n_pool": int(r["n_pool"]),
            "field": r["field"],
            "method": r["method"],
            "bootstrap": int(r["bootstrap"]),
            "seed": int(r["seed"]),
        })
    return rows
