"""A label queue whose gain is the latent posterior's own expected half-width drop (one-step lookahead).

Why: the app's ``latent`` queue scores a (model, bin) by a closed-form variance with the latent-class fit's start
worth at most 4 labels, while the interval that matters is the latent posterior's step 3 (docs/method.md §6): bins
started at the fit, recalibrated by the pool's labels (:func:`sideways.scoring.hierarchy.bin_offsets`), a
(kappa, sigma) mixture weighed by every model's labels. This queue asks that posterior itself.

With each row's start ``predicted`` held fixed (the fit on the verdicts alone, as the app has it at the start) and
the labels so far taken as the truth, :func:`priors` builds every model's prior as the latent posterior does
(:func:`sideways.scoring.latent_prior.latent_priors`). The gain of one more label in model m's bin v is

    hw_m(labels) - [p_mv hw_m(labels + right in v) + (1 - p_mv) hw_m(labels + wrong in v)],

``hw_m`` the half-width of m's 95% count set (:func:`sideways.scoring.hierarchy.prior_counts`) over m's rows, as a
share, with m's prior held fixed, and ``p_mv`` the bin's posterior mean rate under the mixture. The half-width moves
in steps of half a count, so many gains tie (at 0, or below it where a rare surprising label would widen the set):
ties go to the larger drop of the count's posterior sd, then to the (model, bin) first in sorted order. The ``sd``
gain ranks by the sd's drop first (the half-width's breaking ties): a smooth proxy. The ``steps`` gain looks up to 8
labels ahead in one cell, outcomes under 1% left out (:func:`gains`): one label rarely moves a count set by a whole
count. After each label the priors are rebuilt and only the labelled model's gains recomputed (the others keep
theirs until their model is labelled again: a label moves their priors through the pool's offsets and the
mixture's weights only).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from sideways.annotation_app.uncertain import stream
from sideways.scoring import latent_class
from sideways.scoring.hierarchy import Prior, mixture_pmf, mixture_rates, prior_counts
from sideways.scoring.latent_prior import latent_priors

Bin = tuple[int, int]
#: What a gain ranks by first: the expected drop of the half-width (the exact lookahead), or of the count's sd.
GAINS = ("half_width", "sd", "steps")
#: The steps of the ``steps`` gain (labels looked ahead in one cell), and the least chance of an outcome it weighs.
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
    order key within a cell (its riddle id) and its label (``labels``: None until the queue labels it)."""

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


def gains(pool: Pool, model: str, prior: Prior, steps: Sequence[int] = (1,),
          min_chance: float = 0.0) -> dict[Bin, tuple[float, float]]:
    """bin -> (expected half-width drop, expected sd drop) of one more label in each of ``model``'s bins that
    still has an unlabelled row, ``prior`` held fixed. ``steps`` (e.g. 1, 2, 4, 8): the half-width's drop is the
    best over j in ``steps`` of the expected drop after j more labels there, per label (the j labels' rights
    Binomial(j, p), outcomes under ``min_chance`` left out, e.g. :data:`MIN_CHANCE`; 0: exact): a step a single label
    does not reach still counts."""
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


def next_row(pool: Pool, cached: dict[tuple[str, Bin], tuple[float, float]], gain: str = "half_width") -> int | None:
    """The row to label next: in the (model, bin) of the largest cached gain (ties as the module says; ``gain`` "sd":
    the sd's drop first, the half-width's breaking ties), its unlabelled row of the lowest riddle id; None when every
    row is labelled."""
    if gain not in GAINS:
        raise ValueError(f"next_row: gain {gain!r} is not one of {', '.join(GAINS)}")
    if not cached:
        return None
    first = 1 if gain == "sd" else 0
    (model, b), _ = max(cached.items(), key=lambda kv: (kv[1][first], kv[1][1 - first], _Reverse(kv[0])))
    open_ = [i for i, (m, c, lab) in enumerate(zip(pool.models, pool.bins, pool.labels, strict=True))
             if m == model and c == b and lab is None]
    return min(open_, key=lambda i: pool.riddles[i])


@dataclass(frozen=True, order=False)
class _Reverse:
    """Sorts its key the other way, so that ``max`` picks the first (model, bin) in sorted order among ties."""

    key: tuple[str, Bin]

    def __lt__(self, other: _Reverse) -> bool:
        return self.key > other.key


def queue(pool: Pool, truth: Sequence[bool], gain: str = "half_width") -> Iterator[int]:
    """The rows the queue labels, in order, each answered by ``truth`` (one annotator whose labels are the truth);
    ``pool``'s labels are filled in as it goes; ``gain``: which drop ranks first (:func:`next_row`)."""
    steps, least = (STEPS, MIN_CHANCE) if gain == "steps" else ((1,), 0.0)
    prior = priors(pool)
    cached: dict[tuple[str, Bin], tuple[float, float]] = {}
    for m in sorted(set(pool.models)):
        cached |= {(m, b): g for b, g in gains(pool, m, prior[m], steps, least).items()}
    while (i := next_row(pool, cached, gain)) is not None:
        pool.labels[i] = bool(truth[i])
        yield i
        model = pool.models[i]
        prior = priors(pool)
        for key in [key for key in cached if key[0] == model]:
            del cached[key]
        cached |= {(model, b): g for b, g in gains(pool, model, prior[model], steps, least).items()}


def order(pool: Pool, truth: Sequence[bool], k: int, gain: str = "half_width") -> list[int]:
    """The first ``k`` rows of :func:`queue`."""
    return list(itertools.islice(queue(pool, truth, gain), k))
