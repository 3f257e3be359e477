"""The ``latent`` queue (sideways.annotation_app.latent_gain): the label expected to narrow the latent posterior's
intervals most, each (model, bin) started at the latent-class fit's rate; it ranks where ``width`` (v1's pool rate)
does not, the app serves it over real HTTP from a fit made at start and in the background, and a request never fits
nor replays the log; the app's incremental tally answers as the whole-log queue."""

from __future__ import annotations

import threading

import httpx
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers.audit_project import CountingFit, count_state_rebuilds, queue_project, split_verdicts
from helpers.label_project import Served
from helpers.queue_pools import spread_pool, tally_follows_the_log
from sideways.annotation.log import Event
from sideways.annotation_app.gain import Cell
from sideways.annotation_app.items import load_items
from sideways.annotation_app.latent_gain import KAPPA, cell_fit, latent_gains
from sideways.annotation_app.queue import Candidate, Plan, next_item
from sideways.annotation_app.service import LabelService
from sideways.annotation_app.store import LabelStore
from sideways.annotation_app.uncertain import Scores
from sideways.commands.annotate import plan_for, queue_scores
from sideways.config.params import load_params
from sideways.scoring.hierarchy import EDGE

TOKEN = "X-CSRF-Token"


def _label(c: Candidate, line: int, right: bool, who: str = "old") -> Event:
    return Event("label", c.riddle_id, c.model, who, line,
                 {"human_answer_correct": right, "human_justification_correct": right})


def test_the_latent_queue_labels_where_the_fit_is_unsure_where_width_follows_the_pool():
    # m-open has 10 unlabelled predictions in bin 2/3 and 10 in bin 1/3. The pool (gemini's labels) says 2/3 is
    # always right and 1/3 a coin; the latent-class fit says the opposite: unsure at 2/3, sure at 1/3.
    pool = [Candidate(f"r{i:02d}", "m-open", "openai", (2, 3) if i < 10 else (1, 3)) for i in range(20)]
    pool += [Candidate(f"g{i:02d}", "m-gem", "gemini", (2, 3) if i < 8 else (1, 3)) for i in range(16)]
    labelled = [c for c in pool if c.model == "m-gem"]
    events = [_label(c, i + 1, right=c.bin == (2, 3) or i % 2 == 0) for i, c in enumerate(labelled)]
    fit = {("m-open", (2, 3)): 0.5, ("m-open", (1, 3)): 0.01}
    latent = next_item(Plan(0, "llm", len(pool), 0.0, policy="latent"), pool, events, "ana", fit=fit)
    width = next_item(Plan(0, "llm", len(pool), 0.0, policy="width"), pool, events, "ana")
    assert latent is not None and (latent.model, latent.bin) == ("m-open", (2, 3))
    assert width is not None and (width.model, width.bin) == ("m-open", (1, 3))


def test_a_label_teaches_the_other_providers_models_in_its_bin_until_the_cap():
    alone = {("m1", (1, 3)): Cell("openai", n=10), ("m2", (0, 1)): Cell("gemini", n=10)}
    shared = {("m1", (1, 3)): Cell("openai", n=10), ("m2", (1, 3)): Cell("gemini", n=10)}
    fit = {("m1", (1, 3)): 0.3, ("m2", (1, 3)): 0.3, ("m2", (0, 1)): 0.3}
    assert latent_gains(shared, fit)[("m1", (1, 3))] > latent_gains(alone, fit)[("m1", (1, 3))]
    # once the pool holds KAPPA - 1 labels of another provider there, m2's start weighs its cap: no more to teach
    full = {**shared, ("m3", (1, 3)): Cell("anthropic", n=10, labelled=int(KAPPA) - 1, positive=1)}
    gain = latent_gains(full, fit)
    same_provider = {**full, ("m2", (1, 3)): Cell("openai", n=10)}
    assert gain[("m1", (1, 3))] == pytest.approx(latent_gains(same_provider, fit)[("m1", (1, 3))])


def test_a_settled_bin_still_gains_while_its_model_has_few_labels_there_and_a_full_one_nothing():
    cells = {("m1", (0, 1)): Cell("openai", n=30), ("m1", (1, 1)): Cell("openai", n=4, labelled=4, positive=4),
             ("m2", (0, 1)): Cell("gemini", n=30, labelled=25)}
    gain = latent_gains(cells, {("m1", (0, 1)): 1e-9, ("m2", (0, 1)): 1e-9})  # the fit sure: its edge, as the prior
    assert gain[("m1", (1, 1))] == 0.0
    assert gain[("m1", (0, 1))] > gain[("m2", (0, 1))] > 0


def _project(tmp_path, queue: str = "latent", budget: int = 40):
    return queue_project(tmp_path / "p", queue, budget)


def _fit(root, seed: int = 0):
    params, jury, judgments = split_verdicts(root)
    return cell_fit(jury, judgments, pd.DataFrame(), params.calibration.field, seed=seed, split="llm")


def test_the_cell_fit_is_seeded_and_starts_every_open_cell_within_the_edges(tmp_path):
    root = _project(tmp_path)
    fit = _fit(root)
    assert fit == _fit(root)
    items = load_items(load_params(root / "params.yaml"), "llm", root)
    assert set(fit) == {(i.candidate.model, i.candidate.bin) for i in items}
    assert all(EDGE <= p <= 1 - EDGE for p in fit.values()) and len(set(fit.values())) > 1


def test_the_app_serves_the_latent_order_from_the_fit_at_start(tmp_path):
    root = _project(tmp_path)
    fit = _fit(root)
    params = load_params(root / "params.yaml")
    items = load_items(params, "llm", root)
    plan, pool = plan_for(params, "llm", items), [i.candidate for i in items]
    assert plan.policy == "latent"
    expected: list[Event] = []
    for _ in range(6):
        c = next_item(plan, pool, expected, "ana", fit=fit)
        expected.append(_label(c, len(expected) + 1, True, "ana"))
    served = []
    with Served(root, "ana") as s, httpx.Client(base_url=s.url, timeout=30) as client:
        token = None
        for _ in range(6):  # well within the 15 s before a refit may start
            item = client.get("/api/next", headers={TOKEN: token} if token else {}).json()
            token = item["token"]
            saved = client.post("/api/labels", headers={TOKEN: token}, json={
                "item_id": item["item_id"], "answer_correct": True, "justification_correct": True}).json()
            served.append((saved["riddle_id"], saved["model"]))
    assert served == [e.item for e in expected]
    assert len({m for _, m in served}) > 1  # the gains move with every label: not one cell drained first


def test_a_request_never_fits_nor_replays_the_log(tmp_path, monkeypatch):
    root = _project(tmp_path, budget=10_000)
    monkeypatch.chdir(root)
    params = load_params(root / "params.yaml")
    items = load_items(params, "llm", root)
    cells = _fit(root)
    fit = CountingFit(lambda labels: cells)
    states = count_state_rebuilds(monkeypatch)
    store = LabelStore(root / "data/labels/llm.jsonl")
    service = LabelService(items, plan_for(params, "llm", items), store, "ana",
                           scores=Scores(fit, store.events(), every=float("inf")))
    token = service.open_session()
    for n in range(60):
        item = service.next(token)
        service.label(token, {"item_id": item["item_id"], "answer_correct": n % 2 == 0, "justification_correct": True})
    assert fit.threads == [threading.get_ident()]  # one fit, at start: none per request
    assert states[0] == 0  # no request rebuilt the queue's state from the log


def test_the_command_fits_the_latent_cells_for_the_latent_queue_only(tmp_path, monkeypatch):
    root = _project(tmp_path)
    monkeypatch.chdir(root)
    store = LabelStore(root / "data/labels/llm.jsonl")
    params = load_params(root / "params.yaml")
    scores = queue_scores(params, "llm", store, [i.candidate for i in load_items(params, "llm", root)])
    assert scores is not None and scores.current() == (0, _fit(root))
    width = _project(tmp_path / "w", queue="width")
    assert queue_scores(load_params(width / "params.yaml"), "llm", LabelStore(width / "l.jsonl"), []) is None


@settings(max_examples=40, deadline=None)
@given(steps=st.lists(st.tuples(st.sampled_from(("ana", "bob")), st.integers(0, 10_000), st.booleans()), max_size=40),
       n=st.integers(1, 6), budget=st.integers(1, 30), levels=st.lists(st.floats(0.0, 1.0), min_size=16, max_size=16),
       refit=st.integers(1, 9))
def test_the_tally_serves_the_latent_queue_as_the_whole_log(steps, n, budget, levels, refit):
    pool = spread_pool(n)
    plan = Plan(seed=0, split="llm", budget=budget, double_share=0.3, policy="latent")
    cells = sorted({(c.model, c.bin) for c in pool})
    fits = [{k: levels[(i + v) % len(levels)] for i, k in enumerate(cells)} for v in range(3)]
    tally_follows_the_log(plan, pool, steps, fits, refit)
