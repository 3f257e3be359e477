"""Small candidate pools for the annotation queues' tests, and the check that the app's incremental tally serves a
fitted queue as the whole-log queue does."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

from sideways.annotation.log import Replay
from sideways.annotation_app import lookahead
from sideways.annotation_app.queue import Candidate, Plan, next_item
from sideways.annotation_app.tally import Tally

PROVIDERS = {"a1": "openai", "a2": "openai", "g1": "gemini", "c1": "anthropic"}


def spread_pool(n: int) -> list[Candidate]:
    """``n`` riddles x the four models of :data:`PROVIDERS`, their bins spread over 0, 1/3, 2/3 and 1."""
    out = []
    for r in range(n):
        for i, (m, p) in enumerate(PROVIDERS.items()):
            f = Fraction((r + i) % 4, 3)
            out.append(Candidate(f"r{r:02d}", m, p, (f.numerator, f.denominator)))
    return out


def split_pool() -> tuple[lookahead.Pool, list[bool]]:
    """Three models of three providers, 12 rows each: 8 unanimous-wrong rows the fit is sure of (0/1), 4 split rows
    (1/3) it is not; and each row's truth."""
    models, providers, bins, predicted, riddles, truth = [], [], [], [], [], []
    for m, p in (("a", "openai"), ("b", "gemini"), ("c", "anthropic")):
        for i in range(12):
            split = i % 3 == 0
            models.append(m)
            providers.append(p)
            bins.append((1, 3) if split else (0, 1))
            predicted.append(0.5 if split else 0.01)
            riddles.append(f"r{i:02d}")
            truth.append(split and i % 2 == 0)
    return lookahead.Pool(models, providers, bins, predicted, riddles), truth


def tally_follows_the_log(plan: Plan, pool: Sequence[Candidate], steps: Sequence[tuple[str, int, bool]],
                          fits: Sequence[Mapping[Any, Any]], refit: int) -> None:
    """Feed ``steps`` (annotator, candidate index, verdict) to a :class:`Tally` whose background fit moves to the
    next of ``fits`` every ``refit`` lines, and assert after each line that it serves what :func:`next_item` serves
    from the whole log under the same fit."""
    fit = [0]
    tally, replay, line = Tally(plan, pool, "ana", lambda: (fit[0], fits[fit[0] % len(fits)])), Replay("t"), 0
    assert tally.next() == next_item(plan, pool, [], "ana", fit=fits[0])
    for who, i, right in steps:
        c = pool[i % len(pool)]
        if any(e.item == c.key and e.annotator == who for e in replay.events()):
            continue
        line += 1
        tally.apply(*replay.feed({"riddle_id": c.riddle_id, "model": c.model, "annotator": who,
                                  "provider": c.provider, "human_answer_correct": right,
                                  "human_justification_correct": right}, line))
        fit[0] += line % refit == 0
        assert tally.next() == next_item(plan, pool, replay.events(), "ana", fit=fits[fit[0] % len(fits)])
