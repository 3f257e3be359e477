"""Issue 27: a session that stops asking (a reload opens a new one) holds its item only for a while:
abandoned sessions no longer hide items from the labeller who is still there."""

from __future__ import annotations

from helpers.label_project import label_project
from sideways.annotation_app.items import load_items
from sideways.annotation_app.service import HOLD_S, LabelService
from sideways.annotation_app.store import LabelStore
from sideways.commands.annotate import plan_for
from sideways.config.params import load_params


class Clock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self):
        return self.now


def _service(tmp_path, monkeypatch, clock):
    project = label_project(tmp_path / "p", n_riddles=6, annotations={"budget": 18, "double_share": 0.0})
    monkeypatch.chdir(project)
    params = load_params("params.yaml")
    items = load_items(params, "llm")
    store = LabelStore(project / "data/labels/llm.jsonl")
    return LabelService(items, plan_for(params, "llm", items), store, "ana", monotonic=clock), len(items)


def _label_until_done(service, token):
    done = 0
    while (item := service.next(token)) is not None:
        service.label(token, {"item_id": item["item_id"], "answer_correct": True, "justification_correct": True})
        done += 1
    return done


def test_reloads_strand_nothing_once_their_hold_expires(tmp_path, monkeypatch):
    clock = Clock()
    service, n = _service(tmp_path, monkeypatch, clock)
    for _ in range(3):  # three reloads: each session takes an item and is abandoned
        service.next(service.open_session())
    clock.now += HOLD_S + 1
    assert _label_until_done(service, service.open_session()) == n == 18


def test_a_live_session_keeps_its_item(tmp_path, monkeypatch):
    clock = Clock()
    service, n = _service(tmp_path, monkeypatch, clock)
    other = service.open_session()
    held = service.next(other)["item_id"]
    clock.now += HOLD_S / 2
    mine = service.open_session()
    seen = set()
    while (item := service.next(mine)) is not None:
        seen.add(item["item_id"])
        service.label(mine, {"item_id": item["item_id"], "answer_correct": True, "justification_correct": True})
    assert held not in seen and len(seen) == n - 1
