"""The app's incremental state (:class:`Tally`, fed one line at a time by the store) answers what the
whole-log functions answer: the next item under every queue policy (the uncertain one as its fits land),
progress, agreement, the annotator's last event, on random logs of labels, skips and undos by several annotators."""

from __future__ import annotations

from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from sideways.annotation.agreement import agreement
from sideways.annotation.log import Replay
from sideways.annotation_app.queue import Candidate, Plan, State, cells, next_item, progress, wanted
from sideways.annotation_app.store import LabelStore
from sideways.annotation_app.tally import Tally

PROVIDERS = {"a1": "openai", "a2": "openai", "g1": "gemini", "c1": "anthropic"}
ANNOTATORS = ("ana", "bob", "cy")


def _pool(n: int) -> list[Candidate]:
    out = []
    for r in range(n):
        for i, (m, p) in enumerate(PROVIDERS.items()):
            f = Fraction((r + i) % 4, 3)  # bins 0, 1/3, 2/3 and 1
            out.append(Candidate(f"r{r:02d}", m, p, (f.numerator, f.denominator)))
    return out


# one step: (annotator, action, candidate index, answer, justification)
steps = st.lists(st.tuples(st.sampled_from(ANNOTATORS), st.sampled_from(("label", "label", "skip", "undo")),
                           st.integers(0, 10_000), st.booleans(), st.booleans()), max_size=60)


def _record(who, action, c, a, j):
    rec = {"riddle_id": c.riddle_id, "model": c.model, "annotator": who}
    if action == "label":
        rec.update({"provider": c.provider, "human_answer_correct": a, "human_justification_correct": j})
    if action != "label":
        rec["action"] = action
    return rec


def _check(tally: Tally, replay: Replay, plan: Plan, pool: list[Candidate], held: list, scores=None) -> None:
    events = replay.events()
    assert tally.next(held) == next_item(plan, pool, events, "ana", held, scores)
    assert tally.progress() == progress(plan, pool, events)
    assert tally.cells == cells(pool, State.of(events), plan.field)  # what the width queue's gains read
    assert tally.agreement() == agreement(events)
    mine = [e for e in events if e.annotator == "ana"]
    assert tally.last_mine() == (mine[-1] if mine else None)
    assert tally.mine_labels == sum(1 for e in mine if e.action == "label")


@settings(max_examples=60, deadline=None)
@given(steps=steps, n=st.integers(1, 6), budget=st.integers(1, 30), double=st.sampled_from((0.0, 0.3, 1.0)),
       policy=st.sampled_from(("uncertain", "width", "holes")), seed=st.integers(0, 3),
       levels=st.lists(st.sampled_from((0.0, 0.09, 0.21, 0.25)), min_size=24, max_size=24), refit=st.integers(1, 9),
       first=st.sampled_from((0, 2, 25)))
def test_the_tally_answers_as_the_whole_log(steps, n, budget, double, policy, seed, levels, refit, first):
    pool = _pool(n)
    plan = Plan(seed=seed, split="llm", budget=budget, double_share=double, policy=policy, first_double=first)
    fits = [{c.key: levels[(i + v) % len(levels)] for i, c in enumerate(pool)} for v in range(3)]
    fit = [0]  # the uncertain queue's scores: a new fit lands every ``refit`` lines (it may come at any time)
    tally, replay, line = Tally(plan, pool, "ana", lambda: (fit[0], fits[fit[0] % 3])), Replay("t"), 0
    _check(tally, replay, plan, pool, [], fits[0])
    for who, action, i, a, j in steps:
        c = pool[i % len(pool)]
        rec = _record(who, action, c, a, j)
        events = {(e.riddle_id, e.model, e.annotator, e.action) for e in replay.events()}
        mine = [e for e in replay.events() if (e.riddle_id, e.model, e.annotator) == (c.riddle_id, c.model, who)]
        if (action == "undo" and not mine) or (action == "label" and (*c.key, who, "label") in events):
            continue  # a line the log refuses (tests/annotation/test_label_log.py)
        line += 1
        tally.apply(*replay.feed(rec, line))
        fit[0] += line % refit == 0
        _check(tally, replay, plan, pool, [pool[(i + 1) % len(pool)].key], fits[fit[0] % 3])


def test_the_store_feeds_the_tally_and_a_replaced_file_starts_it_again(tmp_path):
    pool = _pool(3)
    plan = Plan(seed=0, split="llm", budget=12, double_share=0.0)
    store = LabelStore(tmp_path / "llm.jsonl")
    store.append(_record("ana", "label", pool[0], True, True))
    tally = Tally(plan, pool, "ana")
    store.subscribe(tally)
    store.append(_record("bob", "label", pool[1], True, False))
    other = LabelStore(tmp_path / "llm.jsonl")
    other.append(_record("ana", "skip", pool[2], True, True))
    store.sync()
    assert tally.progress() == progress(plan, pool, store.events()) and tally.progress()["labels"] == 2
    assert tally.last_mine().action == "skip"
    replacement = tmp_path / "new.jsonl"
    replacement.write_text("")
    replacement.replace(tmp_path / "llm.jsonl")
    store.sync()
    assert tally.progress()["labels"] == 0 and tally.last_mine() is None


def _label(plan: Plan, pool: list[Candidate], who: str, n: int, replay: Replay, tally: Tally) -> list[Candidate]:
    """``who`` labels the queue's next ``n`` predictions (each label the truth: answer right), fed to ``tally``."""
    done = []
    for _ in range(n):
        c = next_item(plan, pool, replay.events(), who)
        assert c is not None
        tally.apply(*replay.feed(_record(who, "label", c, True, True), len(replay.events()) + 1))
        done.append(c)
    return done


def test_a_new_annotators_first_labels_count_as_double_labels():
    """``first_double``: bob's first 5 labels are second labels on predictions ana labelled, none of which wants
    two labels by its coin (double share 0); the progress view counts them: double labels 5 of 5, then, with a
    double share, the coin's predictions beside them."""
    pool = _pool(6)
    for share in (0.0, 0.5):
        plan = Plan(seed=1, split="llm", budget=len(pool), double_share=share, policy="holes", first_double=5)
        replay, tally = Replay("t"), Tally(plan, pool, "ana")
        ana = _label(plan, pool, "ana", 12, replay, tally)
        bob = _label(plan, pool, "bob", 5, replay, tally)
        assert {c.key for c in bob} <= {c.key for c in ana}
        p = progress(plan, pool, replay.events())
        coin = {c.key for c in ana if wanted(plan, c) == 2}
        assert p["double_done"] == 5
        assert p["double_wanted"] == len(coin | {c.key for c in bob})
        assert (share == 0.0) == (p["double_wanted"] == 5) and (share > 0) == bool(coin - {c.key for c in bob})
        assert tally.progress() == p
