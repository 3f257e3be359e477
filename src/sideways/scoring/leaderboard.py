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
from sideways.scoring.display import FULLY_LABELLED, bounds_pct, bracket, interval_cell, model_label, rank_set_label
from sideways.scoring.jury import jury_table
from sideways.scoring.pairwise import pairwise, tie_label
from sideways.scoring.ranking import rank_leaderboard


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
    rank_sets: bool = False,
) -> pd.DataFrame:
    """SCORES rows of every model with rank, best_rank, worst_rank and rank_spread, ranked by ``interval``;
    with ``rank_sets``, also each model's tie groups and 95% rank set (:func:`with_pairwise`).

    Every model must have a prediction for every riddle of the split (docs/method.md §5): the riddles
    of ``predictions`` (from ``source``), all models together.
    """
    require_complete(predictions, predictions["riddle_id"], source)
    jury = jury_table(judgments, predictions, panels)
    scores = score_models(jury, annotations, field=field, method=method, bootstrap=bootstrap, seed=seed,
                          empty_bin=empty_bin, interval=interval)
    ranked = rank_leaderboard(scores)
    return with_pairwise(ranked, pairwise(ranked, jury, annotations)) if rank_sets else ranked


def with_pairwise(ranked: pd.DataFrame, pairs: Mapping[str, Any]) -> pd.DataFrame:
    """``ranked`` with each model's ``tie_groups`` and ``rank_set`` cells from a :func:`pairwise` table
    made for it (the rank stage's, or one computed now): the three drawn from one set of draws."""
    out = ranked.copy()
    out["tie_groups"] = [tie_label(pairs["tie_groups"][str(m)]) for m in out["model"]]
    out["rank_set"] = [rank_set_label(*pairs["rank_sets"][str(m)]) for m in out["model"]]
    return out


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
    interval the ranks follow, ``lo`` and ``hi`` its bounds as every view draws them
    (:func:`interval_bounds`: the posterior's are not score ± ci); ``published`` and ``posterior``
    hold each interval's (a published one that failed on an empty bin is absent). ``true_score``
    and ``covered`` appear for simulated models, where the truth is known.
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
        if "rank_set" in r:  # the ranks it holds with every other model's at once, 95% (docs/method.md §5)
            entry["rank_set"] = str(r["rank_set"])
        known = pd.notna(r["true_score"])
        for which, cover in (("published", "covered"), ("posterior", "posterior_covered")):
            values = interval_values(r, which)
            if values["score"] is None:
                continue
            lo, hi = interval_bounds(r, which) or (None, None)
            entry[which] = {"score": values["score"], "ci": values["ci"], "lo": lo, "hi": hi}
            if known:
                entry[which]["covered"] = bool(r[cover])
        entry |= {k: entry[name][k] for k in ("score", "ci", "lo", "hi", "covered") if k in entry[name]}
        if known:
            entry["true_score"] = round(100 * float(r["true_score"]), 1)
        out[str(r["model"])] = entry
    return out


def headline(ranked: pd.DataFrame) -> dict[str, float | None]:
    """``{model key: score}``, the score the ranks follow: one short column per model, so that
    ``dvc metrics show metrics/headline_llm.json metrics/headline_vlm.json`` fits 120 columns."""
    metrics = leaderboard_metrics(ranked)
    return {model: entry.get("score") for model, entry in sorted(metrics.items())}


def interval_bounds(r: Mapping[str, Any], name: str) -> tuple[float, float] | None:
    """A row's ``name`` interval in percent as every view draws it: the posterior's [lo, hi] rounded
    outwards; the published score ± ci clipped at 0 and 100; None where the published one failed."""
    v = interval_values(r, name)
    if v["score"] is None:
        return None
    if name == "posterior":
        return bounds_pct(v["lo"], v["hi"])
    return max(0.0, round(v["score"] - v["ci"], 1)), min(100.0, round(v["score"] + v["ci"], 1))


def fully_labelled(r: Mapping[str, Any]) -> bool:
    """Whether every scored prediction of the row's model carries its own human label: the posterior
    interval is then the labelled count itself (width 0, docs/method.md §6)."""
    return int(r["n"]) > 0 and int(r["n_labelled"]) >= int(r["n"])


def interval_text(r: Mapping[str, Any], name: str) -> str:
    """A row's ``name`` interval as one cell (:func:`sideways.scoring.display.interval_cell`): the
    published one ``score ± ci`` (``score [lo, hi]`` when clipped), the posterior one ``score [lo, hi]``
    or ``score (fully labelled)``."""
    v = interval_values(r, name)
    if name == "posterior":
        bounds = interval_bounds(r, name) or (None, None)
        return interval_cell(v["score"], *bounds, exact=fully_labelled(r))
    return interval_cell(v["score"], None, None, ci=v["ci"])


def rank_set_view(ranked: pd.DataFrame) -> dict[str, str]:
    """``{model key: rank set}`` (``"1-2"``), for ``dvc metrics show`` beside the headline: the same
    model columns, one short cell each; the rank stage's ``ranked`` carries ``rank_set``."""
    return {str(m): str(s) for m, s in sorted(zip(ranked["model"], ranked["rank_set"], strict=True))}


def plot_rows(ranked: pd.DataFrame) -> list[dict[str, Any]]:
    """One row per model for the interval plot, in percent: ``score``, ``lo`` and ``hi`` of the
    interval the ranks follow, and both intervals' bounds (``published_lo`` .. ``posterior_hi``)."""
    name = _ranked_by(ranked)
    rows = []
    for r in records(ranked.sort_values(["n_hints", "rank", "model"])):
        row: dict[str, Any] = {"model": model_label(r["model"]), "provider": str(r["provider"]), "interval": name}
        for which in (name, _other(name)):
            score = interval_values(r, which)["score"]
            bounds = interval_bounds(r, which) or (None, None)
            if which == name:
                row |= {"score": score, "lo": bounds[0], "hi": bounds[1]}
            row |= {f"{which}_score": score, f"{which}_lo": bounds[0], f"{which}_hi": bounds[1]}
        if pd.notna(r["true_score"]):
            row["true_score"] = round(100 * float(r["true_score"]), 1)
        rows.append(row)
    return rows


#: The column of the rank set, its coverage stated once above the table (:func:`coverage_line`).
RANK_SET = "rank set"
#: The published rank spread, named as the rule it is.
RANK_SPREAD = "rank spread (layton-eval)"


def coverage_line(board: pd.DataFrame) -> str:
    """What the board's rank sets state (their coverage, once) and, ranked by the published interval,
    what its rank spread is; one line of at most 120 columns each, for above the table."""
    lines = []
    if "rank_set" in board.columns:
        lines.append("rank set: the ranks that hold every model's true rank at once with 95% probability "
                     "(docs/method.md §5)")
    if _ranked_by(board) == "published":
        lines.append("rank spread (layton-eval): layton-eval's rule, overlapping intervals pair by pair; "
                     "no joint coverage")
    return "\n".join(lines)


def format_table(board: pd.DataFrame, *, names: bool = True) -> str:
    """The leaderboard as a Markdown table, one table per hint count.

    Ranked by the posterior: rank, rank set, model, score, its 95% interval (``[lo, hi]`` or "fully
    labelled"), provider, the published interval. Ranked by the published interval: the published
    layout (rank, layton-eval's rank spread, model, score, 95% CI (±), provider), the posterior
    interval, then the rank set. A model reads as its key (:func:`sideways.scoring.display.model_label`);
    with ``names``, a column gives the name beside it when some name differs from its key. In
    simulation (a known ``true_score``) the true score follows, and whether each interval covers it;
    then, when the board has them, the tie groups (method.md §8, headed "ties": 120 columns).
    """
    name = _ranked_by(board)
    other = _other(name)
    sim = "true_score" in board and board["true_score"].notna().any()
    ties = "tie_groups" in board.columns
    sets = "rank_set" in board.columns
    named = names and bool((board["model_name"].astype(str) != board["model"].astype(str)).any())
    if name == "posterior":
        head = ["rank", *((RANK_SET,) * sets), "model", *(("name",) * named), "score", "95% interval", "provider"]
    else:
        head = ["rank", RANK_SPREAD, "model", *(("name",) * named), "score", "95% CI (±)", "provider"]
    header = [*head, other, *(("true", "covered", f"{other} covered") if sim else ()),
              *((RANK_SET,) * (sets and name != "posterior")), *(("ties",) * ties)]
    cover = {"published": "covered", "posterior": "posterior_covered"}
    blocks = []
    groups = list(board.groupby("n_hints", sort=True))
    for n_hints, group in groups:
        lines = [f"{n_hints} hint(s):\n"] if len(groups) > 1 else []
        lines.append("| " + " | ".join(header) + " |")
        lines.append("|" + "---|" * len(header))
        for r in records(group.sort_values(["rank", "model"])):
            v = interval_values(r, name)
            model = [model_label(r["model"]), *((str(r["model_name"]),) * named)]
            spread = ([r["rank_set"]] if sets else []) if name == "posterior" else [r["rank_spread"]]
            cells = [r["rank"], *spread, *model, f"{v['score']:.1f}", band_text(r, name), r["provider"],
                     interval_text(r, other)]
            if sim:
                known = pd.notna(r["true_score"])
                cells += [f"{100 * r['true_score']:.1f}" if known else ""]
                cells += [_yes(r[cover[k]]) if known else "" for k in (name, other)]
            if sets and name != "posterior":
                cells.append(r["rank_set"])
            if ties:
                cells.append(r["tie_groups"])
            lines.append("| " + " | ".join(map(str, cells)) + " |")
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks) + "\n"


def band_text(r: Mapping[str, Any], name: str) -> str:
    """A row's ``name`` interval without its score, for the column beside the score: the posterior's
    ``[lo, hi]`` or "fully labelled"; the published half-width as published (``5.6``), or ``[lo, hi]``
    where score ± ci leaves 0-100; ``—`` where the published interval failed."""
    bounds = interval_bounds(r, name)
    if bounds is None:
        return "—"
    if name == "posterior":
        return FULLY_LABELLED if fully_labelled(r) else bracket(*bounds)
    v = interval_values(r, name)
    return f"{v['ci']:.1f}" if 0 <= v["score"] - v["ci"] and v["score"] + v["ci"] <= 100 else bracket(*bounds)


def _yes(covered: Any) -> str:
    return "" if pd.isna(covered) else ("yes" if covered else "NO")


def json_rows(board: pd.DataFrame) -> list[dict[str, Any]]:
    """Rows for ``--json``: ``score``, ``ci`` (percent) and the unrounded ``score_unrounded``, ``lo``,
    ``hi``, ``half_width`` of the interval the ranks follow (``interval``), then each interval
    under ``published`` and ``posterior``."""
    name = _ranked_by(board)
    rows = []
    for r in records(board):
        drawn: dict[str, str] = {k: str(r[k]) for k in ("rank_set", "tie_groups") if k in r}
        rows.append({
            "rank": int(r["rank"]),
            "rank_spread": r["rank_spread"],
            **drawn,
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
