"""The lookahead label queue as a research queue: the greedy order of one annotator whose labels are the truth,
with the gain's variants measured against each other (docs/validation.md "Label queues").

The gain itself is the app's (:mod:`sideways.annotation_app.lookahead`: the latent posterior's own expected
half-width drop). Here ``gain`` picks what ranks first: ``half_width``, the exact one-step drop; ``sd``, the drop of
the count's posterior sd (a smooth proxy; the half-width's breaking ties); ``steps``, the app's (up to 8 labels
ahead, outcomes under 1% left out). Ties go to the (model, bin) first in sorted order and, within it, to the row of
the lowest riddle id: no coin, one order. After each label the priors are rebuilt and only the labelled model's gains
recomputed, as the app's :class:`~sideways.annotation_app.lookahead.Lookahead` does.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from sideways.annotation_app.lookahead import (
    MIN_CHANCE,
    STEPS,
    Bin,
    Pool,
    cells,
    count_sd,
    gains,
    half_width,
    priors,
    rates,
    verdict_starts,
)

__all__ = ["GAINS", "MIN_CHANCE", "STEPS", "Bin", "Pool", "cells", "count_sd", "gains", "half_width", "next_row",
           "order", "priors", "queue", "rates", "verdict_starts"]

#: What a gain ranks by first: the expected drop of the half-width (the exact lookahead), or of the count's sd.
GAINS = ("half_width", "sd", "steps")


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
