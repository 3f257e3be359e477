"""The ``lookahead`` queue's gain (docs/method.md §6, "Which labels next"): how much one more label is expected to
narrow the default interval itself, the latent posterior's, looking up to 8 labels ahead in a cell.

Why: the ``latent`` queue scores a (model, bin) by a closed-form variance with the fit's start worth at most 4
labels, while the interval that matters is the latent posterior's step 3 (docs/method.md §6): bins started at the
fit, recalibrated by the pool's labels (:func:`sideways.scoring.hierarchy.bin_offsets`), a (kappa, sigma) mixture
weighed by every model's labels. This gain asks that posterior itself.

Each row starts at the latent-class model's P(right) fitted on the verdicts alone (:func:`verdict_starts`: once,
when the app starts; the labels so far are taken as the truth), and :func:`priors` builds every model's prior as the
latent posterior does (:func:`sideways.scoring.latent_prior.latent_priors`). The gain of labelling model m's bin v is

    max over j in STEPS of  [hw_m(labels) - E hw_m(labels + j more in v)] / j,

``hw_m`` the half-width of m's 95% count set (:func:`sideways.scoring.hierarchy.prior_counts`) over m's rows, as a
share, with m's prior held fixed; the j labels' rights Binomial(j, p_mv), ``p_mv`` the bin's posterior mean rate
under the mixture, outcomes under :data:`MIN_CHANCE` left out. Looking ahead: a half-width moves in steps of half a
count and one label rarely moves it; leaving out the rare surprise: a 0.5-1% chance of a label that widens a
near-sure bin by several counts otherwise outweighs every gain. The second number of a gain is the expected drop of
the count's posterior sd after one label (a smooth tie-break). Measured against the other queues on the real file
and in simulation in docs/validation.md "Label queues".

:class:`Lookahead` keeps the gains as labels come: after new labels the priors are rebuilt and the labelled models'
gains recomputed (the others keep theirs until their model is labelled again: a label moves their priors through
the pool's offsets and the mixture's weights only). It is the app's background fit for this queue
(:class:`~sideways.annotation_app.uncertain.Scores`), so a request never computes a gain.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from sideways.annotation.log import ItemKey
from sideways.annotation_app.queue import Candidate
from sideways.annotation_app.uncertain import stream
from sideways.scoring import latent_class
from sideways.scoring.hierarchy import Prior, mixture_pmf, mixture_rates, prior_counts
from sideways.scoring.latent_prior import latent_priors

Bin = tuple[int, int]
#: Per (model, bin): (the expected half-width drop per label, looking ahead; the expected sd drop of one label).
Gains = dict[tuple[str, Bin], tuple[float, float]]
#: The labels looked ahead in one cell, and the least chance of an outcome the gain weighs.
STEPS = (1, 2, 4, 8)
MIN_CHANCE = 0.01


def verdict_starts(jury: pd.DataFrame, judgments: pd.DataFrame, field: str, seed: int,
                   split: str) -> dict[tuple[str, str], float]:
    """(riddle_id, model) -> P(right) by the latent-class model fitted on the verdicts alone, on the app's queue
    stream: every row's start, as the app has it before any label."""
    rows = latent_class.table_evidence(jury, judgments, pd.DataFrame())
    predicted = latent_class.sample(rows.evidence, field, seed=seed, stream=stream(split)).predicted
    keys = zip(rows.keys["riddle_id"], rows.keys["model"], strict=True)
    return {(str(r), str(m)): float(p) for (r, m), p in zip(keys, predicted, strict=True)}


@dataclass
class Pool:
    """The rows a queue may label: per row its model, provider, jury-score bin, start (the fit's P(right)), the
    order key within a cell (its riddle id) and its label (``labels``: None while unlabelled)."""

    models: list[str]
    providers: list[str]
    bins: list[Bin]
    predicted: list[float]
    riddles: list[str]
    labels: list[bool | None] = field(default_factory=list)

    def __post_init__(self) -> None:
        n = len(self.models)
        if not len(self.providers) == len(self.bins) == len(self.predicted) == len(self.riddles) == n:
            raise ValueError("Pool: every per-row list must have one entry per row")
        if not self.labels:
            self.labels = [None] * n


def priors(pool: Pool) -> dict[str, Prior]:
    """model -> its latent prior from the fixed starts and the labels so far (labels taken as the truth)."""
    providers = dict(zip(pool.models, pool.providers, strict=True))
    return latent_priors(pool.models, pool.bins, np.asarray(pool.predicted, dtype=np.float64), pool.labels, providers)


def cells(pool: Pool, model: str) -> tuple[list[Bin], list[int], list[tuple[int, int]]]:
    """``model``'s bins (lowest score first), rows per bin, and (positives, labelled) per bin."""
    acc: dict[Bin, list[int]] = {}
    for m, b, lab in zip(pool.models, pool.bins, pool.labels, strict=True):
        if m == model:
            c = acc.setdefault(b, [0, 0, 0])
            c[0] += 1
            if lab is not None:
                c[1] += int(lab)
                c[2] += 1
    order = sorted(acc, key=lambda b: b[0] / b[1])
    return order, [acc[b][0] for b in order], [(acc[b][1], acc[b][2]) for b in order]


def half_width(counts: Sequence[int], own: Sequence[tuple[int, int]], prior: Prior, bins: Sequence[Bin]) -> float:
    """The half-width, as a share of the model's rows, of its latent 95% count set."""
    lo, hi = prior_counts(counts, own, prior, bins)
    return (hi - lo) / 2 / sum(counts)


def count_sd(counts: Sequence[int], own: Sequence[tuple[int, int]], prior: Prior, bins: Sequence[Bin]) -> float:
    """The posterior sd, as a share of the model's rows, of its count (the tie-breaker's smooth quantity)."""
    alpha, beta, weights = mixture_rates(own, prior, bins)
    pmf = mixture_pmf([c - o[1] for c, o in zip(counts, own, strict=True)], alpha, beta, weights)
    pmf = pmf / pmf.sum()
    k = np.arange(len(pmf))
    mean = float(k @ pmf)
    return math.sqrt(max(0.0, float((k - mean) ** 2 @ pmf))) / sum(counts)


def rates(own: Sequence[tuple[int, int]], prior: Prior, bins: Sequence[Bin]) -> list[float]:
    """Each bin's posterior mean rate under the mixture: the chance the next label there says right."""
    alpha, beta, weights = mixture_rates(own, prior, bins)
    return [float(x) for x in weights @ (alpha / (alpha + beta))]


def gains(pool: Pool, model: str, prior: Prior, steps: Sequence[int] = STEPS,
          min_chance: float = MIN_CHANCE) -> dict[Bin, tuple[float, float]]:
    """bin -> (expected half-width drop, expected sd drop) of labelling each of ``model``'s bins that still has an
    unlabelled row, ``prior`` held fixed. The half-width's drop is the best over j in ``steps`` of the expected drop
    after j more labels there, per label (the j labels' rights Binomial(j, p), outcomes under ``min_chance`` left
    out; ``steps=(1,)``, ``min_chance=0``: the exact one-step gain); the sd's after one label."""
    bins, counts, own = cells(pool, model)
    now_hw, now_sd = half_width(counts, own, prior, bins), count_sd(counts, own, prior, bins)
    p = rates(own, prior, bins)
    out = {}
    for v, b in enumerate(bins):
        open_ = counts[v] - own[v][1]
        if open_ <= 0:
            continue
        sd = 0.0
        for right, chance in ((1, p[v]), (0, 1 - p[v])):
            after = list(own)
            after[v] = (own[v][0] + right, own[v][1] + 1)
            sd += chance * count_sd(counts, after, prior, bins)
        best = -math.inf
        for j in sorted({min(j, open_) for j in steps}):
            chances = [math.comb(j, r) * p[v] ** r * (1 - p[v]) ** (j - r) for r in range(j + 1)]
            kept = [(r, c) for r, c in enumerate(chances) if c >= min_chance] or [(round(j * p[v]), 1.0)]
            total = sum(c for _, c in kept)
            hw = 0.0
            for r, c in kept:
                after = list(own)
                after[v] = (own[v][0] + r, own[v][1] + j)
                hw += c / total * half_width(counts, after, prior, bins)
            best = max(best, (now_hw - hw) / j)
        out[b] = (best, now_sd - sd)
    return out


def positive(labels: pd.DataFrame, field: str) -> pd.Series:
    """Each label's verdict on ``field`` (both_correct: answer and justification both right)."""
    if field == "both_correct":
        return labels["human_answer_correct"].astype(bool) & labels["human_justification_correct"].astype(bool)
    return labels[f"human_{field}"].astype(bool)


class Lookahead:
    """The ``lookahead`` queue's gains over ``candidates``, kept as labels come (module docstring).

    Called with the split's labels (every surviving label, first ones first: :func:`event_labels`' table), it takes
    each prediction's first label as its truth, rebuilds the priors when a label came or went (an undo), recomputes
    the gains of those labels' models and returns every (model, bin)'s gain; cells without an unlabelled row are left
    out. Calls must not overlap (the app's :class:`~sideways.annotation_app.uncertain.Scores` runs one at a time)."""

    def __init__(self, candidates: Sequence[Candidate], starts: Mapping[ItemKey, float], field: str) -> None:
        self.field = field
        self.index = {c.key: i for i, c in enumerate(candidates)}
        self.pool = Pool([c.model for c in candidates], [c.provider for c in candidates],
                         [(int(c.bin[0]), int(c.bin[1])) for c in candidates],
                         [float(starts.get(c.key, 0.5)) for c in candidates], [c.riddle_id for c in candidates])
        self.gains: Gains = {}
        self._recompute(set(self.pool.models))

    def __call__(self, labels: pd.DataFrame) -> Gains:
        truth: dict[int, bool] = {}
        if len(labels):
            first = labels.drop_duplicates(["riddle_id", "model"])
            for r, m, right in zip(first["riddle_id"], first["model"], positive(first, self.field), strict=True):
                if (i := self.index.get((str(r), str(m)))) is not None:
                    truth[i] = bool(right)
        moved = set()
        for i, now in enumerate(self.pool.labels):
            if truth.get(i) != now:
                self.pool.labels[i] = truth.get(i)
                moved.add(self.pool.models[i])
        self._recompute(moved)
        return dict(self.gains)

    def _recompute(self, models: set[str]) -> None:
        """The gains of ``models`` under the priors of the labels now."""
        if not models:
            return
        prior = priors(self.pool)
        for m in sorted(models):
            self.gains = {key: g for key, g in self.gains.items() if key[0] != m}
            self.gains |= {(m, b): g for b, g in gains(self.pool, m, prior[m]).items()}


def fit_for(candidates: Sequence[Candidate], jury: pd.DataFrame, judgments: pd.DataFrame, field: str, seed: int,
            split: str) -> Lookahead:
    """The app's ``lookahead`` queue on one split: every candidate started at the verdicts-alone fit."""
    return Lookahead(candidates, verdict_starts(jury, judgments, field, seed, split), field)
