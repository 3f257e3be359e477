"""The label log's state as the app needs it, kept up to date one event at a time.

The log stays the source of truth: the store replays it once at the start (after a crash too) and
then feeds this tally each event a new line adds or withdraws (:class:`~sideways.annotation_app.store.Listener`).
A change to one prediction takes its contribution out of every count, changes it, and puts it back,
so a request costs the same with 1,000 labels as with 50,000. It answers what
:func:`~sideways.annotation_app.queue.next_item` and :func:`~sideways.annotation_app.queue.progress`
answer from the whole log (the tests compare them on random logs):

- the next prediction under the ``uncertain`` policy: unlabelled predictions wait in one heap ordered by
  (the last fit's score, highest first; the coin), rebuilt only when a new fit lands (linear in the predictions,
  never in the log); second labels in the per-model heaps below, by the coin;
- the next prediction under the ``lookahead``, ``width`` and ``latent`` policies: predictions wait in heaps
  ordered by the annotator's seeded coin, one per (model, bin) not labelled yet and one per model for second
  labels, so the queue's choice is the best heap's first eligible entry (``lookahead``: the gains the last
  background update left; ``latent``: the gains under the last finished fit, closed form per cell, no fit); the
  ``holes`` policy runs on a
  :class:`~sideways.annotation_app.queue.State` built from the tally (linear in the predictions);
- under every policy, while the annotator has fewer than ``plan.first_double`` labels, the prediction labelled
  once by someone else with the lowest coin first (one heap of them);
- progress per bin and provider, double labels, empty bins, the annotator's own labels and the
  agreement tallies behind Cohen's kappa.
"""

from __future__ import annotations

import heapq
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from fractions import Fraction
from typing import Any

from sideways.annotation.agreement import LABEL_FIELDS, Agreement
from sideways.annotation.log import Event, ItemKey
from sideways.annotation_app.gain import Cell
from sideways.annotation_app.queue import (
    GAIN_POLICIES,
    Bin,
    Candidate,
    Plan,
    State,
    cell_keys,
    coin,
    next_from_state,
    second_key,
    show_bin,
    wanted,
)

#: The ``uncertain`` policy's scores: (version, per-prediction score) of the last finished fit (the ``latent``
#: policy's: (version, per-cell fit); the ``lookahead`` policy's: (version, per-cell gains)).
ScoresNow = Callable[[], tuple[int, Mapping[Any, Any]]]

#: Per field: pairs, pairs alike, first rater's "correct"s, second rater's "correct"s.
_Sums = dict[str, list[int]]


class _Heap:
    """Predictions by the annotator's coin; an entry whose prediction stopped qualifying is dropped when met."""

    def __init__(self, entries: list[tuple[Any, ItemKey]]) -> None:
        heapq.heapify(entries)
        self.entries = entries
        self.members = {key for _, key in entries}

    def add(self, coin: Any, key: ItemKey) -> None:
        if key not in self.members:
            self.members.add(key)
            heapq.heappush(self.entries, (coin, key))

    def first(self, qualifies: Callable[[ItemKey], bool], held: set[ItemKey]) -> tuple[Any, ItemKey] | None:
        """The lowest coin that qualifies and no other session holds (held entries stay)."""
        aside, found = [], None
        while self.entries:
            coin, key = self.entries[0]
            if not qualifies(key):
                heapq.heappop(self.entries)
                self.members.discard(key)
            elif key in held:
                aside.append(heapq.heappop(self.entries))
            else:
                found = (coin, key)
                break
        for entry in aside:
            heapq.heappush(self.entries, entry)
        return found


class Tally:
    """What the app shows and chooses from, for ``annotator`` on ``candidates`` under ``plan`` (``scores``: the
    ``uncertain`` policy's, :class:`~sideways.annotation_app.uncertain.Scores`' ``current``; none: every score 0)."""

    def __init__(self, plan: Plan, candidates: Sequence[Candidate], annotator: str,
                 scores: ScoresNow | None = None) -> None:
        self.plan, self.annotator = plan, annotator
        self.scores_now: ScoresNow = scores or (lambda: (0, {}))
        self.candidates = list(candidates)
        self.by_key = {c.key: c for c in self.candidates}
        self.coin = {c.key: coin(plan.seed, plan.split, annotator, c.riddle_id, c.model) for c in self.candidates}
        self.bins = sorted({c.bin for c in self.candidates}, key=lambda b: Fraction(*b))
        self.providers = sorted({c.provider for c in self.candidates})
        self.provider_of = {c.model: c.provider for c in self.candidates}
        self.model_bins = sorted({(c.model, c.bin) for c in self.candidates})
        self.reset()

    def reset(self) -> None:
        """Back to an empty log (the store then applies every surviving event again)."""
        self.labels_of: dict[ItemKey, list[Event]] = {}
        self.mine: dict[int, Event] = {}  # the annotator's surviving labels and skips, by line
        self.seen: Counter[ItemKey] = Counter()  # the annotator's surviving events per prediction
        self.n_labels = self.mine_labels = self.started = self.double_wanted = self.double_done = 0
        self.cells = {mb: Cell(self.provider_of[mb[0]]) for mb in self.model_bins}
        for c in self.candidates:
            self.cells[(c.model, c.bin)].n += 1
        self.by_model: Counter[str] = Counter()
        self.by_bin_provider: Counter[tuple[Bin, str]] = Counter()
        self.agree: dict[tuple[str, ...], _Sums] = {}
        self.second: dict[str, _Heap] = {}  # labelled once, wanting a second label
        self.once = _Heap([])  # labelled once: a new annotator's first labels (Plan.first_double)
        per_cell: dict[tuple[str, Bin], list[tuple[int, ItemKey]]] = {}
        for c in self.candidates:
            per_cell.setdefault((c.model, c.bin), []).append((self.coin[c.key], c.key))
            self.second.setdefault(c.model, _Heap([]))
        self.fresh = {mb: _Heap(entries) for mb, entries in per_cell.items()}  # every prediction, none labelled yet
        self.version: int | None = None  # the fit the unsure heap was built from
        self.score: Mapping[ItemKey, float] = {}
        self.unsure = _Heap([])

    # --- keeping up with the log

    def apply(self, sign: int, event: Event) -> None:
        """One event added (+1) or withdrawn (-1) by a line of the log."""
        key = event.item
        self._account(key, -1)
        labels = self.labels_of.setdefault(key, [])
        if event.action == "label":
            if sign > 0:
                labels.append(event)
            else:
                labels.remove(event)
            self.n_labels += sign
        if event.annotator == self.annotator:
            self.seen[key] += sign
            if sign > 0:
                self.mine[event.line] = event
            else:
                del self.mine[event.line]
            self.mine_labels += sign * (event.action == "label")
        if not labels:
            del self.labels_of[key]
        self._account(key, 1)
        self._enlist(key)

    def _account(self, key: ItemKey, sign: int) -> None:
        """Add (+1) or take out (-1) what prediction ``key``'s labels contribute to every count."""
        labels = self.labels_of.get(key, [])
        if not labels:
            return
        pair = next((e for e in labels[1:] if e.annotator != labels[0].annotator), None)
        if pair is not None:
            first, second = labels[0], pair
            for group, (x, y) in ((("all",), (first, second)),
                                  (tuple(sorted((first.annotator, second.annotator))),
                                   sorted((first, second), key=lambda e: e.annotator))):
                sums = self.agree.setdefault(group, {f: [0, 0, 0, 0] for f in LABEL_FIELDS})
                for f in LABEL_FIELDS:
                    a, b = bool(x.record.get(f)), bool(y.record.get(f))
                    for i, v in enumerate((1, a == b, a, b)):
                        sums[f][i] += sign * int(v)
        c = self.by_key.get(key)
        if c is None:
            return
        count = len(labels)
        cell = self.cells[(c.model, c.bin)]
        cell.labelled += sign
        cell.positive += sign * self._positive(labels[0].record)
        self.by_model[c.model] += sign * count
        self.by_bin_provider[(c.bin, c.provider)] += sign
        self.started += sign
        if wanted(self.plan, c) == 2 or count >= 2:  # as queue.progress: the double share's, and every double
            self.double_wanted += sign
            self.double_done += sign * (count >= 2)

    def _positive(self, rec: Any) -> bool:
        field = self.plan.field
        if f"human_{field}" in rec or field != "both_correct":
            return bool(rec.get(f"human_{field}"))
        return bool(rec.get("human_answer_correct")) and bool(rec.get("human_justification_correct"))

    def _enlist(self, key: ItemKey) -> None:
        """Put ``key`` back in the heap it now qualifies for (a heap drops what no longer does)."""
        c = self.by_key.get(key)
        if c is None or self.seen[key]:
            return
        count = self.count(key)
        if count == 0:
            self.fresh[(c.model, c.bin)].add(self.coin[key], key)
            if self.version is not None:
                self.unsure.add((-self.score.get(key, 0.0), self.coin[key]), key)
        elif count == 1:
            if wanted(self.plan, c) == 2:
                self.second[c.model].add(self.coin[key], key)
            if self.plan.first_double:
                self.once.add(self.coin[key], key)

    # --- the queue

    def count(self, key: ItemKey) -> int:
        return len(self.labels_of.get(key, ()))

    def is_open(self, key: ItemKey) -> bool:
        """Whether the annotator may label ``key`` now (as :func:`~sideways.annotation_app.queue.eligible`)."""
        c = self.by_key.get(key)
        if c is None or self.seen[key]:
            return False
        n = self.count(key)
        if n == 1 and self.mine_labels < self.plan.first_double:
            return True
        return n < wanted(self.plan, c) and (n > 0 or self.started < self.plan.budget)

    def next(self, exclude: Iterable[ItemKey] = ()) -> Candidate | None:
        """The queue's next prediction for the annotator (``exclude``: held by other sessions)."""
        held = set(exclude)
        if self.mine_labels < self.plan.first_double:
            second = self.once.first(lambda k: self.count(k) == 1 and not self.seen[k], held)
            if second is not None:
                return self.by_key[second[1]]
        if self.plan.policy == "uncertain":
            return self._unsure(held)
        if self.plan.policy not in GAIN_POLICIES:
            return next_from_state(self.plan, self.candidates, self.state(), self.annotator, held)
        keys = cell_keys(self.plan.policy, self.cells, self.scores_now()[1])
        last = second_key(self.plan.policy)
        options: list[tuple[tuple[tuple[float, ...], int], _Heap, Callable[[ItemKey], bool]]] = []
        if self.started < self.plan.budget:
            for (m, b), heap in self.fresh.items():
                options.append(((keys[(m, b)], self.by_model[m]), heap,
                                lambda k: self.count(k) == 0 and not self.seen[k]))
        for m, heap in self.second.items():
            options.append(((last, self.by_model[m]), heap,
                             lambda k: self.count(k) == 1 and not self.seen[k]))
        options.sort(key=lambda o: o[0])
        i = 0
        while i < len(options):
            group = [o for o in options[i:] if o[0] == options[i][0]]
            found = [f for _, heap, ok in group if (f := heap.first(ok, held)) is not None]
            if found:
                return self.by_key[min(found)[1]]
            i += len(group)
        return None

    def _unsure(self, held: set[ItemKey]) -> Candidate | None:
        """The ``uncertain`` policy's next prediction: the open unlabelled one with the highest score, else a second
        label."""
        version, self.score = self.scores_now()
        if version != self.version:  # a new fit: the heap again, over the predictions open now
            self.version = version
            self.unsure = _Heap([((-self.score.get(k, 0.0), self.coin[k]), k) for k in self.by_key
                                 if self.count(k) == 0 and not self.seen[k]])
        if self.started < self.plan.budget:
            found = self.unsure.first(lambda k: self.count(k) == 0 and not self.seen[k], held)
            if found is not None:
                return self.by_key[found[1]]
        seconds = [f for heap in self.second.values()
                   if (f := heap.first(lambda k: self.count(k) == 1 and not self.seen[k], held)) is not None]
        return self.by_key[min(seconds)[1]] if seconds else None

    def state(self) -> State:
        """The queue's :class:`State` of the log so far (the annotator's own events only in ``seen``)."""
        annotators = {k: [e.annotator for e in v] for k, v in self.labels_of.items()}
        seen = {self.annotator: {k for k, n in self.seen.items() if n}}
        return State(annotators, seen, {k: len(v) for k, v in annotators.items()},
                     {k: v[0].record for k, v in self.labels_of.items()})

    def last_mine(self) -> Event | None:
        """The annotator's latest surviving label or skip (what an undo withdraws)."""
        return next(reversed(self.mine.values()), None)

    # --- progress

    def holes(self) -> set[tuple[str, Bin]]:
        """(model, bin) pairs with no labelled prediction of another provider in that bin."""
        total: Counter[Bin] = Counter()
        for (b, _), n in self.by_bin_provider.items():
            total[b] += n
        return {(m, b) for m, b in self.model_bins
                if total[b] - self.by_bin_provider[(b, self.provider_of[m])] == 0}

    def agreement(self) -> list[Agreement]:
        """As :func:`sideways.annotation.agreement.agreement`: overall, then one row per pair of annotators."""
        rows = [_kappas(("all",), self.agree.get(("all",)))]
        rows += [_kappas(g, s) for g, s in sorted(self.agree.items()) if g != ("all",) and s[LABEL_FIELDS[0]][0]]
        return rows

    def progress(self) -> dict[str, Any]:
        """As :func:`sideways.annotation_app.queue.progress` on the whole log."""
        cells: Counter[tuple[str, str]] = Counter()
        for (b, p), n in self.by_bin_provider.items():
            if n:
                cells[(show_bin(b), p)] += n
        return {
            "labelled": self.started,
            "labels": self.n_labels,
            "budget": min(self.plan.budget, len(self.candidates)),
            "candidates": len(self.candidates),
            "bins": [show_bin(b) for b in self.bins],
            "providers": self.providers,
            "cells": [{"bin": b, "provider": p, "labelled": n} for (b, p), n in sorted(cells.items())],
            "double_wanted": self.double_wanted,
            "double_done": self.double_done,
            "holes": [f"{show_bin(b)} ({n} model{'s' * (n != 1)})" for b, n in sorted(
                Counter(b for _, b in self.holes()).items(), key=lambda x: Fraction(*x[0]))],
        }


def _kappas(group: tuple[str, ...], sums: _Sums | None) -> Agreement:
    """Cohen's kappa per field from the tallies (the arithmetic of
    :func:`~sideways.annotation.agreement.cohen_kappa`)."""
    kappa: dict[str, float | None] = {}
    n = 0 if sums is None else sums[LABEL_FIELDS[0]][0]
    for f in LABEL_FIELDS:
        if sums is None or n == 0:
            kappa[f] = None
            continue
        _, alike, a, b = sums[f]
        observed, pa, pb = alike / n, a / n, b / n
        expected = pa * pb + (1 - pa) * (1 - pb)
        kappa[f] = None if expected >= 1.0 else (observed - expected) / (1 - expected)
    return Agreement(group, n, kappa)
