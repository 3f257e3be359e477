"""The queue: empty jury-score bins first, then spread (policy ``holes``); seeded, never the same item twice,
double share (both policies). The ``width`` policy: tests/annotation_app/test_gain.py."""

from __future__ import annotations

from collections import Counter

from sideways.annotation.log import Event
from sideways.annotation_app.queue import Candidate, Plan, State, holes, next_item, progress, wanted

PROVIDERS = {"a1": "openai", "a2": "openai", "g1": "gemini", "c1": "anthropic"}


def _pool(bins_of=lambda r, m: (r % 3, 3)) -> list[Candidate]:
    from fractions import Fraction

    out = []
    for r in range(12):
        for m, p in PROVIDERS.items():
            f = Fraction(*bins_of(r, m))
            out.append(Candidate(f"r{r:02d}", m, p, (f.numerator, f.denominator)))
    return out


def _label(c: Candidate, annotator: str, line: int, **extra) -> Event:
    return Event("label", c.riddle_id, c.model, annotator, line, {"human_answer_correct": True, **extra})


def _run(plan: Plan, pool: list[Candidate], annotator: str, events: list[Event] | None = None, steps: int = 1000):
    events = list(events or [])
    chosen = []
    for _ in range(steps):
        c = next_item(plan, pool, events, annotator)
        if c is None:
            break
        chosen.append(c)
        events.append(_label(c, annotator, len(events) + 1))
    return chosen, events


def test_an_empty_bin_is_filled_before_anything_else():
    # A crafted pool: every bin but 2/3 already has labels of every provider; bin 2/3 has none.
    pool = _pool()
    events = [_label(c, "old", i + 1) for i, c in enumerate(pool) if c.bin != (2, 3) and c.riddle_id < "r06"]
    assert {b for _, b in holes(pool, State.of(events))} == {(2, 3)}
    plan = Plan(seed=0, split="llm", budget=len(pool), double_share=0.0, policy="holes")
    first = next_item(plan, pool, events, "ana")
    assert first is not None and first.bin == (2, 3)
    # Labels of one provider fill the hole only for the other providers: the next pick is from
    # another provider, in the same bin, until no model has the hole.
    chosen, after = _run(plan, pool, "ana", events, steps=2)
    assert [c.bin for c in chosen] == [(2, 3), (2, 3)]
    assert chosen[0].provider != chosen[1].provider
    assert holes(pool, State.of(after)) == set()


def test_without_the_bin_rule_the_first_pick_would_be_elsewhere():
    """The test above can fail: with the hole filled, the first pick is not forced into 2/3."""
    pool = _pool()
    events = [_label(c, "old", i + 1) for i, c in enumerate(pool) if c.riddle_id < "r06"]
    plan = Plan(seed=0, split="llm", budget=len(pool), double_share=0.0, policy="holes")
    picks = {next_item(plan, pool, events, name).bin for name in ("ana", "bob", "cy", "dee", "eve", "fay")}
    assert picks != {(2, 3)}


def test_labels_spread_over_providers_and_models():
    pool = _pool(lambda r, m: (1, 3))  # one bin: nothing to fill, only spreading
    plan = Plan(seed=1, split="llm", budget=len(pool), double_share=0.0, policy="holes")
    chosen, _ = _run(plan, pool, "ana", steps=9)
    assert Counter(c.provider for c in chosen) == {"openai": 3, "gemini": 3, "anthropic": 3}
    openai = Counter(c.model for c in chosen if c.provider == "openai")
    assert sorted(openai.values()) == [1, 2]


def test_the_order_is_seeded_and_reproducible():
    pool = _pool()
    plan = Plan(seed=7, split="llm", budget=20, double_share=0.2)
    assert _run(plan, pool, "ana")[0] == _run(plan, pool, "ana")[0]
    other = Plan(seed=8, split="llm", budget=20, double_share=0.2)
    assert _run(plan, pool, "ana")[0] != _run(other, pool, "ana")[0]


def test_budget_double_share_and_no_item_twice_to_one_annotator():
    pool = _pool()
    plan = Plan(seed=3, split="llm", budget=20, double_share=0.3)
    ana, events = _run(plan, pool, "ana")
    assert len(ana) == len({c.key for c in ana}) == 20  # the budget, each once
    bob, events = _run(plan, pool, "bob", events)
    assert len(bob) == len({c.key for c in bob})
    doubles = {c.key for c in ana if wanted(plan, c) == 2}
    assert 0 < len(doubles) < 20
    assert {c.key for c in bob} == doubles  # bob only second-labels what wants two labels
    p = progress(plan, pool, events)
    assert (p["labelled"], p["labels"], p["double_done"]) == (20, 20 + len(doubles), len(doubles))


def test_a_skip_is_never_served_again_and_items_held_elsewhere_are_not_served():
    pool = _pool()
    plan = Plan(seed=0, split="llm", budget=len(pool), double_share=0.0)
    first = next_item(plan, pool, [], "ana")
    skipped = [Event("skip", first.riddle_id, first.model, "ana", 1, {})]
    assert next_item(plan, pool, skipped, "ana") != first
    assert next_item(plan, pool, [], "ana", exclude=[first.key]) != first


def test_progress_counts_one_model_in_the_singular():
    a, g = Candidate("r00", "a1", "openai", (0, 1)), Candidate("r00", "g1", "gemini", (0, 1))
    plan = Plan(seed=0, split="llm", budget=2, double_share=0.0)
    assert progress(plan, [a, g], [_label(g, "ana", 1)])["holes"] == ["0 (1 model)"]
    assert progress(plan, [a, g], [])["holes"] == ["0 (2 models)"]
