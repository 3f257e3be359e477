"""The ``lookahead`` queue, the app's default (sideways.annotation_app.lookahead): the label expected to narrow the
latent posterior's own interval most, looking up to 8 labels ahead in a cell; its gains kept label by label in the
background, the app serving them over real HTTP, second labels after every first label, and the app's incremental
tally answering as the whole-log queue."""

from __future__ import annotations

import threading
import time

import httpx
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers.audit_project import CountingFit, queue_project, split_verdicts
from helpers.label_project import Served
from helpers.queue_pools import split_pool, spread_pool, tally_follows_the_log
from sideways.annotation.log import Event, Replay
from sideways.annotation_app import lookahead
from sideways.annotation_app.items import load_items
from sideways.annotation_app.queue import Candidate, Plan, next_item
from sideways.annotation_app.service import LabelService
from sideways.annotation_app.store import LabelStore
from sideways.annotation_app.tally import Tally
from sideways.annotation_app.uncertain import Scores
from sideways.commands.annotate import LOOKAHEAD_EVERY, plan_for, queue_scores
from sideways.config.params import AnnotationParams, load_params
from sideways.scoring.hierarchy import prior_counts

TOKEN = "X-CSRF-Token"


def test_a_one_step_gain_is_the_expected_drop_of_the_model_s_own_half_width():
    pool, _ = split_pool()
    prior = lookahead.priors(pool)["a"]
    bins, counts, own = lookahead.cells(pool, "a")
    got = lookahead.gains(pool, "a", prior, steps=(1,), min_chance=0.0)
    p = dict(zip(bins, lookahead.rates(own, prior, bins), strict=True))
    n = sum(counts)

    def hw(tallies):
        lo, hi = prior_counts(counts, tallies, prior, bins)
        return (hi - lo) / 2 / n

    for v, b in enumerate(bins):
        right, wrong = list(own), list(own)
        right[v], wrong[v] = (1, 1), (0, 1)
        assert abs(got[b][0] - (hw(own) - p[b] * hw(right) - (1 - p[b]) * hw(wrong))) < 1e-12
    assert 0.3 < p[(1, 3)] < 0.7 and p[(0, 1)] < 0.1  # the next label's chances are the posterior's rates


def test_a_full_cell_gets_no_gain():
    pool, truth = split_pool()
    for i, (m, b) in enumerate(zip(pool.models, pool.bins, strict=True)):
        if m == "a" and b == (1, 3):
            pool.labels[i] = truth[i]
    assert (1, 3) not in lookahead.gains(pool, "a", lookahead.priors(pool)["a"])


def test_looking_further_ahead_never_sees_less_gain_per_label():
    pool, truth = split_pool()
    for i in range(0, len(truth), 4):  # a few labels, so that the mixture has own labels to weigh
        pool.labels[i] = truth[i]
    prior = lookahead.priors(pool)
    for m in ("a", "b", "c"):
        one = lookahead.gains(pool, m, prior[m], (1,), 0.0)
        far = lookahead.gains(pool, m, prior[m], lookahead.STEPS, 0.0)
        assert one.keys() == far.keys() and one
        assert all(far[b][0] >= one[b][0] and far[b][1] == one[b][1] for b in one)


def _candidates(pool: lookahead.Pool) -> list[Candidate]:
    return [Candidate(r, m, p, b) for r, m, p, b in zip(pool.riddles, pool.models, pool.providers, pool.bins,
                                                        strict=True)]


def _labels(pool: lookahead.Pool, rows: list[int], truth: list[bool]) -> pd.DataFrame:
    return pd.DataFrame({"riddle_id": [pool.riddles[i] for i in rows], "model": [pool.models[i] for i in rows],
                         "annotator": "x", "human_answer_correct": [truth[i] for i in rows],
                         "human_justification_correct": True})


def test_the_gains_follow_the_labels_and_an_undo_reopens_its_cell():
    pool, truth = split_pool()
    starts = {(r, m): p for r, m, p in zip(pool.riddles, pool.models, pool.predicted, strict=True)}
    keeper = lookahead.Lookahead(_candidates(pool), starts, "both_correct")
    before = keeper(pd.DataFrame())
    split_a = [i for i, (m, b) in enumerate(zip(pool.models, pool.bins, strict=True)) if m == "a" and b == (1, 3)]
    after = keeper(_labels(pool, split_a, truth))
    assert ("a", (1, 3)) in before and ("a", (1, 3)) not in after  # a's split cell is full: no gain
    fresh, _ = split_pool()
    for i in split_a:
        fresh.labels[i] = truth[i]
    want = lookahead.gains(fresh, "a", lookahead.priors(fresh)["a"])
    assert {b: g for (m, b), g in after.items() if m == "a"} == want  # the labelled model: recomputed
    assert {k: g for k, g in after.items() if k[0] != "a"} == {k: g for k, g in before.items() if k[0] != "a"}
    undone = keeper(_labels(pool, split_a[1:], truth))  # the first label withdrawn: one row open again
    assert ("a", (1, 3)) in undone
    assert keeper(_labels(pool, split_a[1:], truth)) == undone  # nothing moved: nothing recomputed


def test_a_second_label_waits_behind_first_labels_whose_gain_is_negative():
    pool = [Candidate(f"r{i}", "m1", "openai", (0, 1)) for i in range(4)]
    events = [Event("label", "r0", "m1", "bob", 1, {"human_answer_correct": False,
                                                    "human_justification_correct": False})]
    plan = Plan(0, "llm", len(pool), double_share=1.0, policy="lookahead")
    gains = {("m1", (0, 1)): (-0.02, -0.001)}  # a near-sure bin: a surprise there would widen the set
    got = next_item(plan, pool, events, "ana", fit=gains)
    assert got is not None and got.riddle_id != "r0"
    tally = Tally(plan, pool, "ana", lambda: (0, gains))
    replay = Replay("t")
    tally.apply(*replay.feed({"riddle_id": "r0", "model": "m1", "annotator": "bob", "provider": "openai",
                              "human_answer_correct": False, "human_justification_correct": False}, 1))
    assert tally.next() == got


@settings(max_examples=40, deadline=None)
@given(steps=st.lists(st.tuples(st.sampled_from(("ana", "bob")), st.integers(0, 10_000), st.booleans()), max_size=40),
       n=st.integers(1, 6), budget=st.integers(1, 30),
       levels=st.lists(st.floats(-0.05, 0.05), min_size=16, max_size=16),
       dropped=st.sets(st.integers(0, 15), max_size=4), refit=st.integers(1, 9))
def test_the_tally_serves_the_lookahead_queue_as_the_whole_log(steps, n, budget, levels, dropped, refit):
    pool = spread_pool(n)
    plan = Plan(seed=0, split="llm", budget=budget, double_share=0.3, policy="lookahead")
    cells = sorted({(c.model, c.bin) for c in pool})
    gains = [{k: (levels[(i + v) % 16], levels[(i + 2 * v + 1) % 16]) for i, k in enumerate(cells)
              if (i + v) % 16 not in dropped} for v in range(3)]  # some cells left out, gains of either sign
    tally_follows_the_log(plan, pool, steps, gains, refit)


def test_lookahead_is_the_default_queue():
    assert AnnotationParams().queue == "lookahead"
    assert Plan(0, "llm", 1, 0.0).policy == "lookahead"


def _project(tmp_path, budget: int = 40):
    return queue_project(tmp_path / "p", "lookahead", budget)


def test_the_service_serves_the_gains_of_its_labels_updated_in_the_background(tmp_path):
    root = _project(tmp_path)
    params, jury, judgments = split_verdicts(root)
    items = load_items(params, "llm", root)
    pool = [i.candidate for i in items]
    field = params.calibration.field
    fit = CountingFit(lookahead.fit_for(pool, jury, judgments, field, params.seed, "llm"))
    store = LabelStore(root / "data/labels/llm.jsonl")
    scores = Scores(fit, store.events(), every=0.0)
    plan = plan_for(params, "llm", items)
    service = LabelService(items, plan, store, "ana", scores=scores)
    reference = lookahead.fit_for(pool, jury, judgments, field, params.seed, "llm")  # the same, in this thread
    token, events = service.open_session(), []
    by_id = {v: k for k, v in service.ids.items()}
    for n in range(12):
        item = service.next(token)
        right = n % 3 != 0
        service.label(token, {"item_id": item["item_id"], "answer_correct": right, "justification_correct": True})
        events.append((*by_id[item["item_id"]], "ana", right, True))
        want = reference(pd.DataFrame(events, columns=["riddle_id", "model", "annotator", "human_answer_correct",
                                                       "human_justification_correct"]))
        deadline = time.monotonic() + 30
        while scores.current()[1] != want and time.monotonic() < deadline:  # the label started the update
            time.sleep(0.01)
        assert scores.current()[1] == want  # it landed: the gains of every label so far
        following = next_item(plan, pool, store.events(), "ana", fit=want)
        assert following is not None and service.ids[following.key] == service.next(token)["item_id"]
    assert fit.threads[0] == threading.get_ident() and threading.get_ident() not in fit.threads[1:]
    assert len(fit.threads) > 1  # the updates ran, all in the background


def test_the_app_serves_the_lookahead_order_from_the_gains_at_start(tmp_path, monkeypatch):
    root = _project(tmp_path)
    monkeypatch.chdir(root)
    params = load_params(root / "params.yaml")
    items = load_items(params, "llm", root)
    plan, pool = plan_for(params, "llm", items), [i.candidate for i in items]
    assert plan.policy == "lookahead"
    scores = queue_scores(params, "llm", LabelStore(root / "data/labels/llm.jsonl"), pool)
    assert scores is not None and scores.every == LOOKAHEAD_EVERY
    version, gains = scores.current()
    first = next_item(plan, pool, [], "ana", fit=gains)
    assert first is not None and gains[(first.model, first.bin)] == max(
        g for (m, b), g in gains.items() if any(c.model == m and c.bin == b for c in pool))
    served = []
    with Served(root, "ana") as s, httpx.Client(base_url=s.url, timeout=30) as client:
        token = None
        for _ in range(8):
            item = client.get("/api/next", headers={TOKEN: token} if token else {}).json()
            token = item["token"]
            saved = client.post("/api/labels", headers={TOKEN: token}, json={
                "item_id": item["item_id"], "answer_correct": True, "justification_correct": True}).json()
            served.append((saved["riddle_id"], saved["model"]))
    assert served[0] == first.key  # the gains of the verdicts' fit, before any label
    assert len(set(served)) == 8
    assert [e.item for e in LabelStore(root / "data/labels/llm.jsonl").events()] == served


def test_past_its_bound_the_app_serves_width_and_says_why(tmp_path):
    from dataclasses import replace

    from sideways.commands.annotate import LOOKAHEAD_MAX_ROWS, served_queue

    params = load_params(_project(tmp_path) / "params.yaml")
    small = [Candidate(f"r{i:05d}", "m", "openai", (1, 1)) for i in range(LOOKAHEAD_MAX_ROWS)]
    assert served_queue(params, small) == ("lookahead", None)
    big = [*small, Candidate("r99999", "m", "openai", (1, 1))]
    queue, why = served_queue(params, big)
    assert queue == "width" and why is not None and f"{LOOKAHEAD_MAX_ROWS + 1:,}" in why and "annotations.queue" in why
    latent = replace(params, annotations=replace(params.annotations, queue="latent"))
    assert served_queue(latent, big) == ("latent", None)  # only the lookahead queue is bounded
