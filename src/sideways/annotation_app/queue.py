"""Which prediction an annotator labels next: a pure, seeded function of the labels so far.

Five orders (``Plan.policy``, ``annotations.queue``). ``lookahead`` (the default): the prediction whose label
is expected to narrow the default interval, the latent posterior's, most, looking up to 8 labels ahead in its
(model, bin), by the gains the last background update left (:mod:`sideways.annotation_app.lookahead`), then the
spread and the coin below. ``latent``: the same in closed form, by the last background fit's per-cell starts and
the labels since (:mod:`sideways.annotation_app.latent_gain`), then the spread and the coin below.
``uncertain``: the prediction whose truth the latent-class model is least sure of, by the scores of
:mod:`sideways.annotation_app.uncertain`, then the coin below. ``width``: the prediction whose label is
expected to narrow v1's posterior intervals most (:mod:`sideways.annotation_app.gain`), then the spread
and the coin below. ``holes`` (empty bins first), lowest key first, so that the labels serve the
published calibration (docs/method.md §3-4):

1. **Empty bins first.** A model's jury-score bin with no label of another provider in the pool
   makes calibration fail. A candidate scores the number of (model, bin) holes its label would
   fill: the models of other providers that have predictions in its bin and no pool row there.
2. **Then spread:** fewer labels so far for its provider, then for its model, then in its bin.
3. **Then a seeded coin** per (seed, split, annotator, riddle, model), so that the order is
   reproducible and two annotators working at once start on different predictions.

A prediction is eligible while it has fewer labels than it wants (1, or 2 when its own seeded
coin puts it in the ``double_share``), the annotator has neither labelled nor skipped it, and
either it already has a label or fewer than ``budget`` predictions are labelled.

**A new annotator's first labels are second labels** (``Plan.first_double``, ``annotations.first_double``):
while an annotator has fewer than that many labels in the split, every policy gives them a prediction
labelled once, by someone else (the lowest coin), whatever its double-share coin says. The annotator
audit (:mod:`sideways.scoring.annotator_audit`) then has pairs for every annotator at the counts where
a careless one starts to move scores; the first label, which calibration reads, stays the other's.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property, lru_cache
from typing import Any, cast

from sideways.annotation.log import Event, ItemKey, labels
from sideways.annotation_app.gain import Cell, half_width_gains
from sideways.annotation_app.latent_gain import CellFit, latent_gains
from sideways.core.seeding import stable_int

#: A jury-score bin in lowest terms: (votes, judges).
Bin = tuple[int, int]
#: The ``lookahead`` policy's gains per (model, bin): (the half-width's expected drop, the sd's).
Gains = Mapping[tuple[str, Bin], tuple[float, float]]
#: The policies that rank (model, bin) cells by an expected narrowing.
GAIN_POLICIES = ("lookahead", "width", "latent")
_UNIT = 2**128


@dataclass(frozen=True)
class Candidate:
    """A prediction that can be labelled: its key, provider and jury-score bin (calibration field)."""

    riddle_id: str
    model: str
    provider: str
    bin: Bin

    @cached_property
    def key(self) -> ItemKey:
        return (self.riddle_id, self.model)


@dataclass(frozen=True)
class Plan:
    """The queue's settings: the seed and split draw the coins; budget and double share bound it;
    ``policy`` orders it (``lookahead``, ``latent``, ``uncertain``, ``width`` or ``holes``), on the labels of
    ``field``."""

    seed: int
    split: str
    budget: int
    double_share: float
    policy: str = "lookahead"
    field: str = "both_correct"
    first_double: int = 0
    cascade_first: int = 0  # jury.cascade.first: the audit reads the later judges' unasked verdicts as not asked


@lru_cache(maxsize=1 << 20)
def wanted(plan: Plan, c: Candidate) -> int:
    """How many annotators should label ``c``: 2 when its seeded coin falls in the double share."""
    double = stable_int(plan.seed, "double", plan.split, c.model, c.riddle_id) < plan.double_share * _UNIT
    return 2 if double else 1


@dataclass(frozen=True)
class State:
    """What the queue needs from the label log: labels per prediction, and the annotator's own."""

    annotators: dict[ItemKey, list[str]]
    seen: dict[str, set[ItemKey]]
    counts: dict[ItemKey, int]
    first: dict[ItemKey, Any]

    @classmethod
    def of(cls, events: Iterable[Event]) -> State:
        annotators: dict[ItemKey, list[str]] = {}
        seen: dict[str, set[ItemKey]] = {}
        first: dict[ItemKey, Any] = {}
        for e in events:
            seen.setdefault(e.annotator, set()).add(e.item)
            if e.action == "label":
                annotators.setdefault(e.item, []).append(e.annotator)
                first.setdefault(e.item, e.record)
        return cls(annotators, seen, {k: len(v) for k, v in annotators.items()}, first)

    def positive(self, key: ItemKey, field: str) -> bool:
        """The first label's verdict for ``field`` (both_correct: the AND of the two when not written)."""
        rec = self.first[key]
        if f"human_{field}" in rec or field != "both_correct":
            return bool(rec.get(f"human_{field}"))
        return bool(rec.get("human_answer_correct")) and bool(rec.get("human_justification_correct"))

    def count(self, key: ItemKey) -> int:
        return self.counts.get(key, 0)


def holes(candidates: Sequence[Candidate], state: State) -> set[tuple[str, Bin]]:
    """(model, bin) pairs with predictions but no labelled prediction of another provider in that bin."""
    per_bin: dict[Bin, Counter[str]] = {}
    for c in candidates:
        if state.count(c.key):
            per_bin.setdefault(c.bin, Counter())[c.provider] += 1
    provider = {c.model: c.provider for c in candidates}
    out = set()
    for model, b in {(c.model, c.bin) for c in candidates}:
        tally = per_bin.get(b, Counter())
        if sum(n for p, n in tally.items() if p != provider[model]) == 0:
            out.add((model, b))
    return out


def eligible(plan: Plan, candidates: Sequence[Candidate], state: State, annotator: str,
             exclude: Iterable[ItemKey] = ()) -> list[Candidate]:
    """The candidates ``annotator`` may be given now (``exclude``: held by other sessions)."""
    mine = state.seen.get(annotator, set())
    held = set(exclude)
    started = sum(1 for c in candidates if state.count(c.key))
    return [
        c for c in candidates
        if c.key not in mine and c.key not in held and state.count(c.key) < wanted(plan, c)
        and (state.count(c.key) > 0 or started < plan.budget)
    ]


def own_labels(state: State, annotator: str) -> int:
    """The labels ``annotator`` has in the log."""
    return sum(v.count(annotator) for v in state.annotators.values())


def first_doubles(plan: Plan, candidates: Sequence[Candidate], state: State, annotator: str,
                  exclude: Iterable[ItemKey] = ()) -> list[Candidate]:
    """The predictions labelled once, by another, that ``annotator`` is given while they have fewer than
    ``plan.first_double`` labels (module docstring); empty after that."""
    if own_labels(state, annotator) >= plan.first_double:
        return []
    mine = state.seen.get(annotator, set())
    held = set(exclude)
    return [c for c in candidates if state.count(c.key) == 1 and c.key not in mine and c.key not in held]


def next_item(plan: Plan, candidates: Sequence[Candidate], events: Iterable[Event], annotator: str,
              exclude: Iterable[ItemKey] = (), scores: Mapping[ItemKey, float] | None = None,
              fit: CellFit | Gains | None = None) -> Candidate | None:
    """The next prediction for ``annotator``, or None when nothing is left for them (``scores``: the
    ``uncertain`` policy's, per prediction; absent ones count 0; ``fit``: the ``latent`` policy's per-cell fit, or
    the ``lookahead`` policy's gains)."""
    return next_from_state(plan, candidates, State.of(events), annotator, exclude, scores, fit)


def next_from_state(plan: Plan, candidates: Sequence[Candidate], state: State, annotator: str,
                    exclude: Iterable[ItemKey] = (), scores: Mapping[ItemKey, float] | None = None,
                    fit: CellFit | Gains | None = None) -> Candidate | None:
    """:func:`next_item` on the log's :class:`State` (the app keeps one up to date: no replay)."""
    seconds = first_doubles(plan, candidates, state, annotator, exclude)
    if seconds:
        return min(seconds, key=lambda c: coin(plan.seed, plan.split, annotator, c.riddle_id, c.model))
    pool = eligible(plan, candidates, state, annotator, exclude)
    if not pool:
        return None
    if plan.policy == "uncertain":
        return min(pool, key=lambda c: unsure_key(plan, state.count(c.key), (scores or {}).get(c.key, 0.0),
                                                  annotator, c))
    if plan.policy in GAIN_POLICIES:
        return _widest(plan, candidates, state, pool, annotator, fit)
    provider = {c.model: c.provider for c in candidates}
    gaps: dict[Bin, Counter[str]] = {}  # per bin, the models with a hole there, counted by provider
    for model, b in holes(candidates, state):
        gaps.setdefault(b, Counter())[provider[model]] += 1
    by_provider: Counter[str] = Counter()
    by_model: Counter[str] = Counter()
    by_bin: Counter[Bin] = Counter()
    for c in candidates:
        n = state.count(c.key)
        by_provider[c.provider] += n
        by_model[c.model] += n
        by_bin[c.bin] += n

    def fills(c: Candidate) -> int:
        if state.count(c.key):
            return 0  # a second label adds no pool row
        tally = gaps.get(c.bin, Counter())
        return sum(tally.values()) - tally[c.provider]

    keys = {c: (-fills(c), by_provider[c.provider], by_model[c.model], by_bin[c.bin]) for c in pool}
    best = min(keys.values())
    tied = [c for c in pool if keys[c] == best]  # the seeded coin decides among these only (it costs a hash)
    return min(tied, key=lambda c: coin(plan.seed, plan.split, annotator, c.riddle_id, c.model))


def cells(candidates: Sequence[Candidate], state: State, field: str) -> dict[tuple[str, Bin], Cell]:
    """Per (model, bin): predictions, labelled ones and their positives (``field``), and the provider."""
    out: dict[tuple[str, Bin], Cell] = {}
    for c in candidates:
        cell = out.setdefault((c.model, c.bin), Cell(c.provider))
        cell.n += 1
        if state.count(c.key):
            cell.labelled += 1
            cell.positive += state.positive(c.key, field)
    return out


def cell_keys(policy: str, cells: Mapping[tuple[str, Bin], Cell],
              fit: CellFit | Gains | None) -> dict[tuple[str, Bin], tuple[float, ...]]:
    """Per (model, bin): the sort key of a first label there (lowest first): minus its expected narrowing
    (``width``: v1's; ``latent``: under the fit's starts ``fit``; ``lookahead``: the gains ``fit``, the half-width's
    drop then the sd's; a cell the last update left out, e.g. reopened by an undo, ranks with the second labels)."""
    if policy == "lookahead":
        got = cast(Gains, fit or {})
        return {k: tuple(-round(g, 12) for g in got[k]) if k in got else second_key(policy) for k in cells}
    gain = latent_gains(cells, cast(CellFit, fit or {})) if policy == "latent" else half_width_gains(cells)
    return {k: (-round(g, 12),) for k, g in gain.items()}


def second_key(policy: str) -> tuple[float, ...]:
    """A pending second label's sort key: it narrows nothing (calibration reads the first), so it comes after every
    first label with a gain (``width``, ``latent``: level with a gain of 0; ``lookahead``, whose gains may be
    negative: after all of them)."""
    return (math.inf, math.inf) if policy == "lookahead" else (0.0,)


def _widest(plan: Plan, candidates: Sequence[Candidate], state: State, pool: list[Candidate],
            annotator: str, fit: CellFit | Gains | None = None) -> Candidate:
    """The eligible prediction with the largest expected narrowing (:func:`cell_keys`); ties by the spread, then
    the coin. Pending second labels come last (:func:`second_key`)."""
    keys = cell_keys(plan.policy, cells(candidates, state, plan.field), fit)
    by_model: Counter[str] = Counter()
    for c in candidates:
        by_model[c.model] += state.count(c.key)

    def key(c: Candidate) -> tuple[tuple[float, ...], int]:
        return (second_key(plan.policy) if state.count(c.key) else keys[(c.model, c.bin)], by_model[c.model])

    best = min(key(c) for c in pool)
    tied = [c for c in pool if key(c) == best]
    return min(tied, key=lambda c: coin(plan.seed, plan.split, annotator, c.riddle_id, c.model))


def unsure_key(plan: Plan, count: int, score: float, annotator: str, c: Candidate) -> tuple[bool, float, int]:
    """The ``uncertain`` order: unlabelled predictions first, the largest score first, then the coin (a pending
    second label narrows nothing: calibration reads the first)."""
    return (count > 0, 0.0 if count else -score, coin(plan.seed, plan.split, annotator, c.riddle_id, c.model))


@lru_cache(maxsize=1 << 20)
def coin(seed: int, split: str, annotator: str, riddle_id: str, model: str) -> int:
    """The seeded tie-break of one prediction for one annotator (cached: the app asks again and again)."""
    return stable_int(seed, "queue", split, annotator, riddle_id, model)


def show_bin(b: Bin) -> str:
    """A bin as people read it: 0, 1/3, 2/3, 1, 1/2."""
    return str(Fraction(*b))


def progress(plan: Plan, candidates: Sequence[Candidate], events: Iterable[Event]) -> dict[str, Any]:
    """Labels done per (bin, provider), against the budget, double labels, and the empty bins.

    Double labels: ``double_done`` predictions labelled by two annotators or more, of ``double_wanted`` that want or
    have a second label: the labelled ones whose coin puts them in the double share, and every one labelled twice
    (a new annotator's first labels, ``first_double``, go to predictions whatever their coin says)."""
    events = list(events)
    state = State.of(events)
    cells: Counter[tuple[str, str]] = Counter()
    for c in candidates:
        if state.count(c.key):
            cells[(show_bin(c.bin), c.provider)] += 1
    doubles = [c for c in candidates if state.count(c.key) and (wanted(plan, c) == 2 or state.count(c.key) >= 2)]
    return {
        "labelled": sum(1 for c in candidates if state.count(c.key)),
        "labels": len(labels(events)),
        "budget": min(plan.budget, len(candidates)),
        "candidates": len(candidates),
        "bins": [show_bin(b) for b in sorted({c.bin for c in candidates}, key=lambda b: Fraction(*b))],
        "providers": sorted({c.provider for c in candidates}),
        "cells": [{"bin": b, "provider": p, "labelled": n} for (b, p), n in sorted(cells.items())],
        "double_wanted": len(doubles),
        "double_done": sum(1 for c in doubles if state.count(c.key) >= 2),
        # empty bins with how many models lack them: never which models (the page must not hint at one)
        "holes": [f"{show_bin(b)} ({n} model{'s' * (n != 1)})" for b, n in sorted(
            Counter(b for _, b in holes(candidates, state)).items(), key=lambda x: Fraction(*x[0]))],
    }
