"""The ``uncertain`` queue (sideways.annotation_app.uncertain): the app serves, over real HTTP, the predictions the
latent-class model is least sure of first; the order is seeded; and a request neither fits the model nor reads the
label log, however long the log grows (the fits run at start and in the background)."""

from __future__ import annotations

import threading

import httpx
import pandas as pd
import pytest

from helpers.audit_project import CountingFit, count_state_rebuilds, queue_project, split_verdicts
from helpers.label_project import Served
from sideways.annotation_app.items import load_items
from sideways.annotation_app.queue import next_item
from sideways.annotation_app.service import LabelService
from sideways.annotation_app.store import LabelStore
from sideways.annotation_app.uncertain import Scores, uncertainty
from sideways.commands.annotate import plan_for
from sideways.config.params import load_params

TOKEN = "X-CSRF-Token"


def _project(tmp_path, queue: str = "uncertain", budget: int = 40):
    return queue_project(tmp_path / "p", queue, budget)


def _scores(root, seed: int = 0):
    params, jury, judgments = split_verdicts(root)
    return uncertainty(jury, judgments, pd.DataFrame(), params.calibration.field, seed=seed, split="llm")


def _expected(root, steps: int, scores) -> list[tuple[str, str]]:
    """The first ``steps`` predictions of the pure queue under the fit at start, one annotator labelling each."""
    from sideways.annotation.log import Event

    params = load_params(root / "params.yaml")
    items = load_items(params, "llm", root)
    plan, pool = plan_for(params, "llm", items), [i.candidate for i in items]
    events: list[Event] = []
    for _ in range(steps):
        c = next_item(plan, pool, events, "ana", scores=scores)
        events.append(Event("label", c.riddle_id, c.model, "ana", len(events) + 1,
                            {"human_answer_correct": True, "human_justification_correct": True}))
    return [e.item for e in events]


def test_the_app_serves_the_least_certain_predictions_first(tmp_path):
    root = _project(tmp_path)
    scores = _scores(root)
    expected = _expected(root, 6, scores)
    served = []
    with Served(root, "ana") as s, httpx.Client(base_url=s.url, timeout=30) as client:
        token = None
        for _ in range(6):  # well within the 15 s before a refit may start
            item = client.get("/api/next", headers={TOKEN: token} if token else {}).json()
            token = item["token"]
            saved = client.post("/api/labels", headers={TOKEN: token}, json={
                "item_id": item["item_id"], "answer_correct": True, "justification_correct": True}).json()
            served.append((saved["riddle_id"], saved["model"]))
    assert served == expected
    top = sorted(scores.values(), reverse=True)[:6]
    assert sorted((scores[k] for k in served), reverse=True) == top  # the six least certain of the split
    assert max(scores.values()) > min(scores.values())  # the scores tell the predictions apart
    assert len((root / "data/labels/llm.jsonl").read_text().splitlines()) == 6


def test_the_order_is_seeded(tmp_path):
    root = _project(tmp_path)
    a, b = _scores(root), _scores(root)
    assert a == b  # the same inputs and seed: the same fit
    assert _expected(root, 10, a) == _expected(root, 10, b)
    assert _scores(root, seed=1) != a  # another seed: another sampler stream


class _Looked(dict):
    """Scores that count their lookups."""

    looked = 0

    def get(self, key, default=None):
        _Looked.looked += 1
        return super().get(key, default)


def test_a_request_never_fits_nor_reads_the_log(tmp_path, monkeypatch):
    root = _project(tmp_path, budget=10_000)
    monkeypatch.chdir(root)
    params = load_params(root / "params.yaml")
    items = load_items(params, "llm", root)
    scores = _Looked(_scores(root))
    fit = CountingFit(lambda labels: scores)
    states = count_state_rebuilds(monkeypatch)
    store = LabelStore(root / "data/labels/llm.jsonl")
    refits = Scores(fit, store.events(), every=float("inf"))  # the fit at start only
    service = LabelService(items, plan_for(params, "llm", items), store, "ana", scores=refits)
    token = service.open_session()
    looked = []
    for n in range(60):  # the log grows to 60 labels
        item = service.next(token)
        service.label(token, {"item_id": item["item_id"], "answer_correct": n % 2 == 0, "justification_correct": True})
        looked.append(_Looked.looked)
    assert fit.threads == [threading.get_ident()]  # one fit, at start: none per request
    assert states[0] == 0  # no request rebuilt the queue's state from the log
    # the scores are read when the queue is built from a fit (at start, and again when the store starts over as the
    # label file is created): never per request after that
    assert looked[5] == looked[-1] <= 2 * len(items)


def test_refits_run_in_the_background_when_labels_changed(tmp_path, monkeypatch):
    root = _project(tmp_path, budget=10_000)
    monkeypatch.chdir(root)
    params = load_params(root / "params.yaml")
    items = load_items(params, "llm", root)
    scores = _scores(root)
    done = threading.Event()
    fit = CountingFit(lambda labels: (done.set(), scores)[1])
    store = LabelStore(root / "data/labels/llm.jsonl")
    refits = Scores(fit, store.events(), every=0.0)
    service = LabelService(items, plan_for(params, "llm", items), store, "ana", scores=refits)
    token = service.open_session()
    item = service.next(token)
    done.clear()
    service.label(token, {"item_id": item["item_id"], "answer_correct": True, "justification_correct": True})
    service.next(token)  # the label count moved: a fit starts, off the request's thread
    assert done.wait(30)
    assert len(fit.threads) == 2 and fit.threads[1] != threading.get_ident()
    assert refits.current()[0] == 1  # the queue reads the new fit from here on


@pytest.mark.parametrize("queue", ["uncertain", "latent", "lookahead"])
def test_without_judgments_the_fitted_queues_refuse_in_one_line(tmp_path, queue):
    import shutil
    import subprocess
    import sys

    from helpers import ROOT
    from helpers.label_project import label_project

    root = label_project(tmp_path / "p", annotations={"queue": queue})
    shutil.rmtree(root / "data" / "judgments")  # a jury table, no judgments
    done = subprocess.run([sys.executable, "-m", "sideways.commands.annotate", "serve", "--split", "llm",
                           "--annotator", "ana", "--port", "1"], cwd=root, capture_output=True, text=True,
                          env={"PYTHONPATH": str(ROOT / "src"), "PATH": "/usr/bin:/bin"}, timeout=120)
    assert done.returncode != 0
    lines = (done.stdout + done.stderr).strip().splitlines()
    assert len(lines) == 1 and "no judgments yet" in lines[0] and "Traceback" not in lines[0], lines
