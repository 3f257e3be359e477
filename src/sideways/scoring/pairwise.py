"""Pairwise differences within one version of a split, and tie groups (docs/method.md §8).

Every pair of models that rank together (the same hint count) is compared on the same riddles
with the paired draws of :mod:`sideways.scoring.paired`, drawn from the estimator the leaderboard
ranks by (its posterior, or the published interval's bootstrap): ranks, tie groups and rank sets
follow one interval. A pair is apart when the 95% interval of its difference excludes 0. Tie
groups are the runs of consecutive models (in rank order) none of whose pairs is apart
(:func:`sideways.scoring.verdicts.tie_groups`); rank sets come from :mod:`sideways.scoring.rank_sets`.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from sideways.scoring.paired import REPLICATES, evidence, version_draws
from sideways.scoring.rank_sets import LEVEL, rank_sets
from sideways.scoring.verdicts import difference, separable, tie_groups


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
        sets |= {m: list(s) for m, s in rank_sets({m: draws[m] for m in order}).items()}
        apart: set[frozenset[str]] = set()
        for i, a in enumerate(order):
            for b in order[i + 1:]:
                d = difference(draws[a] - draws[b])
                pairs.append({"a": a, "b": b, "change": round(d.change, 2), "lo": round(d.lo, 2),
                              "hi": round(d.hi, 2), "p": round(d.p, 4), "apart": separable(d)})
                if separable(d):
                    apart.add(frozenset((a, b)))
        offset = max((n for g in groups.values() for n in g), default=0)
        groups |= {m: [offset + n for n in g] for m, g in tie_groups(order, apart).items()}
    return {"field": field, "seed": seed, "pairs": pairs, "tie_groups": groups, "rank_sets": sets,
            "rank_set_level": LEVEL}


def tie_label(numbers: list[int]) -> str:
    """A model's tie groups as one cell: ``1`` or ``1,2``."""
    return ",".join(map(str, numbers))
