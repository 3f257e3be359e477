"""What changed between two versions of a riddle split, model by model, paired (docs/method.md §8).

Both versions are restricted to the riddles they share; the same seeded riddle resamples weigh
both (:mod:`sideways.scoring.paired`), so what the riddles share cancels and what moved shows.
A row also counts the riddles whose verdict flipped: right to wrong and wrong to right, where a
prediction is right by its human label when it has one, else by the jury's strict majority.
Rows that cannot be compared come back as one-line reasons instead.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from sideways.scoring.display import model_label
from sideways.scoring.paired import REPLICATES, Evidence, evidence, version_draws
from sideways.scoring.ranking import ranked_columns
from sideways.scoring.verdicts import difference, minimal_detectable


@dataclass(frozen=True)
class SplitVersion:
    """One version's tables of a split (None: absent in that version) and what names the version."""

    name: str
    jury: pd.DataFrame | None
    annotations: pd.DataFrame | None
    scores: pd.DataFrame | None


@dataclass
class Changes:
    """Rows of a comparison (one per benchmark, model and metric) and why others could not be made."""

    rows: list[dict[str, Any]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def _field(v: SplitVersion, split: str, out: Changes) -> str | None:
    """The calibrated field of a version's scores; None (with a reason) when absent or several."""
    if v.jury is None or v.annotations is None or v.scores is None:
        out.problems.append(f"{split}: no jury, annotation or score table in {v.name}; the split is not compared")
        return None
    fields = sorted(set(v.scores["field"]))
    if len(fields) != 1:
        out.problems.append(f"{split}: {v.name}'s scores hold {len(fields)} fields ({', '.join(fields)}), not one")
        return None
    return str(fields[0])


def _scored(jury: pd.DataFrame, name: str) -> set[str]:
    return set(jury.loc[jury[f"{name}_judges"] > 0, "riddle_id"])


def split_changes(split: str, a: SplitVersion, b: SplitVersion, *, seed: int,
                  replicates: int = REPLICATES, resample_riddles: bool = False) -> Changes:
    """Every model the two versions share on ``split``: its change from ``a`` to ``b``, paired."""
    out = Changes()
    fa, fb = _field(a, split, out), _field(b, split, out)
    if fa is None or fb is None:
        return out
    if fa != fb:
        out.problems.append(f"{split}: calibrated field {fa} in {a.name}, {fb} in {b.name}; not comparable")
        return out
    assert a.jury is not None and b.jury is not None and a.annotations is not None and b.annotations is not None
    riddles = sorted(_scored(a.jury, fa) & _scored(b.jury, fa))
    if not riddles:
        out.problems.append(f"{split}: {a.name} and {b.name} share no riddle with a jury score; not comparable")
        return out
    ea, eb = evidence(a.jury, a.annotations, fa, riddles), evidence(b.jury, b.annotations, fa, riddles)
    for model in sorted(set(ea.models) ^ set(eb.models)):
        where, other = (a.name, b.name) if model in ea.providers else (b.name, a.name)
        out.problems.append(f"{split}, {model_label(model)}: scored in {where} only, not in {other}; "
                            "no change to compute")
    # each version's draws come from the estimator its leaderboard ranks by, so the change (element 0's
    # difference) is B - A of the two scores printed, and its interval is that estimator's
    ra, rb = (version_draws(e, v.scores, seed=seed, replicates=replicates, resample_riddles=resample_riddles)
              for e, v in ((ea, a), (eb, b)))
    for model in sorted(set(ea.models) & set(eb.models)):
        if model not in ra or model not in rb:
            missing = a.name if model not in ra else b.name
            out.problems.append(f"{split}, {model_label(model)}: no published score in {missing}; no change to compute")
            continue
        out.rows.append(_row(split, model, fa, (ea, eb), (ra[model], rb[model]), (a.scores, b.scores)))
    return out


def _row(split: str, model: str, name: str, ev: tuple[Evidence, Evidence], reps: tuple[np.ndarray, np.ndarray],
         scores: tuple[pd.DataFrame | None, pd.DataFrame | None]) -> dict[str, Any]:
    """One model's row: both leaderboard scores, the paired change and its interval, flips."""
    diff = difference(reps[1] - reps[0])
    to_wrong, to_right = flips(ev[0], ev[1], model)
    return {
        "benchmark": split, "model": model, "metric": name,
        "a": _published(scores[0], model), "b": _published(scores[1], model),
        "change": diff.change, "lo": diff.lo, "hi": diff.hi, "se": diff.se, "p": diff.p,
        "mde": max(minimal_detectable(diff.se), 100 / len(ev[0].riddles)), "items": len(ev[0].riddles),
        "to_wrong": to_wrong, "to_right": to_right,
    }


def _published(scores: pd.DataFrame | None, model: str) -> float | None:
    """The score the version's leaderboard shows for ``model`` (the interval it ranks by)."""
    if scores is None or model not in set(scores["model"]):
        return None
    score_col, _ = ranked_columns(scores)
    value = scores.loc[scores["model"] == model, score_col].iloc[0]
    return None if pd.isna(value) else float(value)


def correct(ev: Evidence, model: str) -> np.ndarray:
    """Per riddle of ``ev``: 1 right, 0 wrong, -1 unknown (no jury score). The human label wins;
    else the jury's strict majority (bin value > 1/2)."""
    bins = ev.bins[model]
    majority = np.array([2 * v > j for v, j in ev.bin_names], dtype=np.int64)
    jury = np.where(bins >= 0, majority[np.maximum(bins, 0)] if len(majority) else 0, -1)
    return np.where(ev.labels[model] >= 0, ev.labels[model], jury)


def flips(a: Evidence, b: Evidence, model: str) -> tuple[list[str], list[str]]:
    """(right to wrong, wrong to right): the riddles whose verdict for ``model`` flipped from a to b."""
    ca, cb = correct(a, model), correct(b, model)
    ids = np.array(a.riddles, dtype=object)
    return [str(r) for r in ids[(ca == 1) & (cb == 0)]], [str(r) for r in ids[(ca == 0) & (cb == 1)]]
