"""Measured rules choosing a cascade's first judges per panel from judgments of the whole panel (docs/validation.md,
"First judges chosen by measurement"); ``benchmarks/studies/cascade_auto.py`` measures them cross-fitted. None is
kept: each misses the target cross-fitted on the real LLM file.

Why: a cascade loses exactly the later verdicts on the rows its first judges settle; where the full jury split on
such a row, the split is hidden (the row lands in a unanimous bin). So from a run of the whole panel, for each pair
of the panel, count the rows the full jury split on ``field`` that the pair settles (``hidden``): the rule ``splits``
asks first the pair hiding the fewest (ties: the fewest rows it disagrees on, i.e. the most calls saved, then pool
order). ``labels`` counts instead the labelled rows the pair settles against their label (ties: ``hidden``, then the
same). Both read only the judgments (and labels) given: the study gives them one half of the riddles and measures the
cascade on the other.

Two more label-free rules, their settings fixed before their cross-fitted runs: ``agree`` asks first each panel's pair
whose two judges give the same verdict on ``field`` most often over the rows of the panel's models every panel judge
graded (``agreed``; ties: the panel's order). Why: a pair that agrees escalates least, and on the real files the
judges that agree most are the strong ones, where a pair with a judge the others disagree with widens the interval.
``outlier`` leaves out of every first pair the judge whose verdicts agree least with the other judges
(:func:`judge_agreement`: its mean over the other judges of the share of rows both graded, status ok and both fields,
on which the two give the same verdict on ``field``, over every model of the judgments given; ties: the later judge
by name); within a panel, the ``agree`` pair among the pairs without it (every pair when the panel has no other).

``width`` (:func:`narrowest`, with labels) asks first the pairs whose cascade gives the narrowest interval on the
judgments and labels given: the panels in turn (sorted by their judges), each panel's pairs tried with the other panels
at the pairs chosen so far (the rest in their own order), the pair giving the smallest ``width`` kept (ties: the
panel's order). The study's ``width`` (fixed before its run): the mean latent half-width over every measured model of
the choosing half, under that cascade, at label share 1/2 of the choosing half's labels, over 2 seeded draws.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
import pandas as pd

from sideways.scoring.cascade import BoolArray, first_codes, settled_codes

RULES = ("splits", "labels", "agree", "outlier")


@dataclass(frozen=True)
class PairCount:
    """One candidate first pair of a panel: the full jury's splits it settles, the labelled rows it settles against
    their label, the rows it does not settle (each one more call per later judge), and the rows on which all its
    judges give the same verdict on the field (a settled row is one; a row they agree on the field alone is too)."""

    pair: tuple[str, ...]
    hidden: int
    contradicted: int
    escalated: int
    agreed: int = 0


def _said(codes: npt.NDArray[np.int64], field: str) -> BoolArray:
    """The verdict on ``field`` of codes ``a + 3 j`` (both fields known)."""
    a: BoolArray = codes % 3 == 1
    j: BoolArray = codes // 3 == 1
    return {"answer_correct": a, "justification_correct": j}.get(field, a & j)


def pair_counts(judgments: pd.DataFrame, panels: Mapping[str, Sequence[str]], labels: pd.DataFrame,
                field: str = "both_correct", first: int = 2) -> dict[tuple[str, ...], list[PairCount]]:
    """Per panel (its judges sorted), every ``first``-judge subset of it in pool order (the panel's order) with its
    counts, over the rows of the models having that panel that every panel judge graded (status ok, both fields)."""
    ok = judgments[(judgments["status"] == "ok")].dropna(subset=["is_answer_correct", "is_justification_correct"])
    out: dict[tuple[str, ...], list[PairCount]] = {}
    groups: dict[tuple[str, ...], list[str]] = {}
    for model, panel in panels.items():
        groups.setdefault(tuple(sorted(panel)), []).append(model)
    label = labels.set_index(["riddle_id", "model"])[f"human_{field}"] if len(labels) else pd.Series(dtype=object)
    for key, models in sorted(groups.items()):
        panel = tuple(panels[models[0]])
        mine = ok[ok["model"].isin(models) & ok["judge"].isin(panel)]
        full = mine.groupby(["riddle_id", "model"]).size()
        keys = full[full == len(panel)].reset_index()[["riddle_id", "model"]]
        every = first_codes(mine, keys, {m: panel for m in models})
        right = _said(every, field)
        split = right.any(axis=1) & ~right.all(axis=1)
        truth = np.array([label.get((r, m), None) for r, m in zip(keys["riddle_id"], keys["model"], strict=True)],
                         dtype=object)
        known = np.array([t is not None and not pd.isna(t) for t in truth])
        wanted = np.array([bool(t) if k else False for t, k in zip(truth, known, strict=True)])
        counts = []
        for idx in itertools.combinations(range(len(panel)), first):
            sub = every[:, list(idx)]
            settled = settled_codes(sub)
            said = _said(sub[:, 0], field)
            same = (right[:, list(idx)] == right[:, [idx[0]]]).all(axis=1)
            counts.append(PairCount(tuple(panel[i] for i in idx), int((settled & split).sum()),
                                    int((settled & known & (said != wanted)).sum()), int((~settled).sum()),
                                    int(same.sum())))
        out[key] = counts
    return out


def judge_agreement(judgments: pd.DataFrame, field: str = "both_correct") -> dict[str, float]:
    """judge -> the mean, over the other judges, of the share of (riddle, model) rows both graded (status ok, both
    fields given) on which the two give the same verdict on ``field``; judges sharing no row with it are left out of
    its mean (a judge sharing none with any is left out)."""
    ok = judgments[(judgments["status"] == "ok")].dropna(subset=["is_answer_correct", "is_justification_correct"])
    a, j = ok["is_answer_correct"].astype(bool), ok["is_justification_correct"].astype(bool)
    said = {"answer_correct": a, "justification_correct": j}.get(field, a & j)
    wide = ok.assign(said=said.to_numpy()).pivot_table(index=["riddle_id", "model"], columns="judge", values="said",
                                                       aggfunc="first")
    judges = sorted(str(c) for c in wide.columns)
    rates: dict[str, list[float]] = {x: [] for x in judges}
    for x, y in itertools.combinations(judges, 2):
        both = wide[[x, y]].dropna()
        if len(both):
            rate = float((both[x].astype(bool) == both[y].astype(bool)).mean())
            rates[x].append(rate)
            rates[y].append(rate)
    return {x: float(np.mean(r)) for x, r in rates.items() if r}


def outlier(judgments: pd.DataFrame, field: str = "both_correct") -> str | None:
    """The judge agreeing least with the others (:func:`judge_agreement`; ties: the later by name), None if none."""
    rates = judge_agreement(judgments, field)
    least = min(rates.values(), default=None)
    return max(x for x, r in rates.items() if r == least) if rates else None


def choose(counts: Sequence[PairCount], rule: str, avoid: str | None = None) -> PairCount:
    """The pair ``rule`` asks first: the fewest hidden splits (``splits``) or label contradictions then hidden
    splits (``labels``), then the fewest escalated rows, then the earliest in pool order; ``agree``: the most rows
    agreed on, then pool order; ``outlier``: ``agree`` among the pairs without the judge ``avoid`` (every pair if
    none is without it)."""
    if rule not in RULES:
        raise ValueError(f"choose: rule is one of {', '.join(RULES)}, got {rule!r}")
    def rank(i: int) -> tuple[int, ...]:
        c = counts[i]
        if rule in ("agree", "outlier"):
            return (-c.agreed, i)
        head = (c.hidden,) if rule == "splits" else (c.contradicted, c.hidden)
        return (*head, c.escalated, i)
    among = [i for i in range(len(counts)) if rule != "outlier" or avoid not in counts[i].pair]
    return counts[min(among or range(len(counts)), key=rank)]


def chosen_panels(judgments: pd.DataFrame, panels: Mapping[str, Sequence[str]], labels: pd.DataFrame, rule: str,
                  field: str = "both_correct", first: int = 2) -> dict[str, tuple[str, ...]]:
    """Each model's panel reordered so that the pair ``rule`` chooses for its panel goes first (the rest in the
    panel's order): what :func:`sideways.scoring.cascade.drop_unasked` takes."""
    avoid = outlier(judgments, field) if rule == "outlier" else None
    picks = {key: choose(c, rule, avoid).pair
             for key, c in pair_counts(judgments, panels, labels, field, first).items()}
    out = {}
    for model, panel in panels.items():
        pair = picks[tuple(sorted(panel))]
        out[model] = (*pair, *(j for j in panel if j not in pair))
    return out


def narrowest(panels: Mapping[str, Sequence[str]], width: Callable[[dict[str, tuple[str, ...]]], float],
              first: int = 2) -> dict[str, tuple[str, ...]]:
    """Each model's panel reordered so that its first ``first`` judges give the smallest ``width`` (the panels' orders
    -> a width, e.g. a mean half-width under that cascade): the panels in turn, sorted by their judges, each trying its
    pairs in pool order with the other panels at the pairs chosen so far (the rest in their own order); ties: the
    earliest pair."""
    groups: dict[tuple[str, ...], list[str]] = {}
    for model, panel in panels.items():
        groups.setdefault(tuple(sorted(panel)), []).append(model)
    current = {m: tuple(p) for m, p in panels.items()}
    for _, models in sorted(groups.items()):
        panel = tuple(panels[models[0]])
        best: tuple[float, dict[str, tuple[str, ...]]] | None = None
        for idx in itertools.combinations(range(len(panel)), first):
            pair = tuple(panel[i] for i in idx)
            trial = current | {m: (*pair, *(j for j in panel if j not in pair)) for m in models}
            got = width(trial)
            if best is None or got < best[0]:
                best = (got, trial)
        if best is not None:
            current = best[1]
    return current
