"""Pairwise differences within one version of a split, and tie groups (docs/method.md §8).

Every pair of models that rank together (the same hint count) is compared on the same riddles
with the paired draws of :mod:`sideways.scoring.paired`, drawn from the estimator the leaderboard
ranks by (its posterior, or the published interval's bootstrap): ranks, tie groups and rank sets
follow one interval. A pair is apart when the 95% interval of its difference excludes 0. Tie
groups are the runs of consecutive models (in rank order) none of whose pairs is apart
(:func:`sideways.scoring.verdicts.tie_groups`); rank sets come from :mod:`sideways.scoring.rank_sets`,
widened to agree with the ranks and the pairs (:func:`~sideways.scoring.rank_sets.agreeing`).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from sideways.scoring.paired import REPLICATES, evidence, version_draws
from sideways.scoring.rank_sets import LEVEL, agreeing, rank_sets
from sideways.scoring.verdicts import differences, separable, tie_groups


def pairwise(ranked: pd.DataFrame, jury: pd.DataFrame, annotations: pd.DataFrame, *,
             replicates: int = REPLICATES) -> dict[str, Any]:
    """``{field, seed, pairs: [{a, b, change, lo, hi, p, apart}], tie_groups: {model: [numbers]},
    rank_sets: {model: [best, worst]}, rank_set_level}``.

    ``ranked`` is the ranked scores table (its ``field`` and ``seed`` columns name the field and
    seed, its ``interval`` and ``posterior`` the estimator to draw from); differences are ``a - b``
    in points with ``a`` ranked above ``b``. Rank sets are per hint count, like ranks.
    """
    if not len(ranked):
        return {"field": None, "seed": None, "pairs": [], "tie_groups": {}, "rank_sets": {}, "rank_set_level": LEVEL}
    field, seed = str(ranked["field"].iloc[0]), int(ranked["seed"].iloc[0])
    scored = jury.loc[jury[f"{field}_judges"] > 0, "riddle_id"]
    draws = version_draws(evidence(jury, annotations, field, sorted(set(scored))), ranked, seed=seed,
                          replicates=replicates)
    pairs: list[dict[str, Any]] = []
    groups: dict[str, list[int]] = {}
    sets: dict[str, list[int]] = {}
    for _, group in ranked.groupby("n_hints", sort=True):
        order = [str(m) for m in group.sort_values(["rank", "model"], kind="stable")["model"] if str(m) in draws]
        apart: set[frozenset[str]] = set()
        above: list[tuple[str, str]] = []
        table = np.stack([draws[m] for m in order]) if order else np.empty((0, 0))
        for i, a in enumerate(order):  # row a against every model below it, in one call
            for b, d in zip(order[i + 1:], differences(table[i] - table[i + 1:]), strict=True):
                pairs.append({"a": a, "b": b, "change": round(d.change, 2), "lo": round(d.lo, 2),
                              "hi": round(d.hi, 2), "p": round(d.p, 4), "apart": separable(d)})
                if separable(d):
                    apart.add(frozenset((a, b)))
                    above.append((a, b) if d.change > 0 else (b, a))
        rank = {str(m): int(r) for m, r in zip(group["model"], group["rank"], strict=True)}
        joint = rank_sets({m: draws[m] for m in order})
        sets |= {m: list(s) for m, s in agreeing(joint, rank, above).items()}
        offset = max((n for g in groups.values() for n in g), default=0)
        groups |= {m: [offset + n for n in g] for m, g in tie_groups(order, apart).items()}
    return {"field": field, "seed": seed, "pairs": pairs, "tie_groups": groups, "rank_sets": sets,
            "rank_set_level": LEVEL}


def agrees(pairs: Any, ranked: pd.DataFrame) -> bool:
    """Whether ``pairs``, a :func:`pairwise` table read back from disk (the rank stage's file, or one
    pulled from a remote), has its shape and was made for ``ranked``: the same field, seed and models,
    and one row per pair of models of one hint count. A table that does not is computed again."""
    if not isinstance(pairs, dict) or not len(ranked):
        return False
    models = {str(m): int(h) for m, h in zip(ranked["model"], ranked["n_hints"], strict=True)}
    rows, groups, sets = pairs.get("pairs"), pairs.get("tie_groups"), pairs.get("rank_sets")
    if (pairs.get("field"), pairs.get("seed")) != (str(ranked["field"].iloc[0]), int(ranked["seed"].iloc[0])):
        return False
    if not (isinstance(rows, list) and isinstance(groups, dict) and isinstance(sets, dict)
            and set(groups) == set(models) == set(sets)):
        return False
    if not all(isinstance(v, list) and v and all(type(n) is int for n in v) for v in groups.values()):
        return False
    if not all(isinstance(v, list) and len(v) == 2 and all(type(n) is int for n in v) for v in sets.values()):
        return False
    counts = pd.Series(list(models.values())).value_counts()
    if len(rows) != int((counts * (counts - 1) // 2).sum()):
        return False
    keys = ("change", "lo", "hi", "p")
    seen = set()
    for r in rows:
        if not (isinstance(r, dict) and isinstance(r.get("a"), str) and isinstance(r.get("b"), str)
                and r["a"] != r["b"] and r["a"] in models and r["b"] in models and models[r["a"]] == models[r["b"]]
                and all(type(r.get(k)) in (int, float) for k in keys) and type(r.get("apart")) is bool):
            return False
        seen.add(frozenset((r["a"], r["b"])))
    return len(seen) == len(rows)


def tie_label(numbers: list[int]) -> str:
    """A model's tie groups as one cell: ``1`` or ``1,2``."""
    return ",".join(map(str, numbers))
