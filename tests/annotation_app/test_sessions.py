"""Sessions: one evicted between its token check and the service's lock is no 500 (the label it sent
is saved), and an item held by a page that went away is back in the queue within seconds, while
a page that keeps beating keeps its item."""

from __future__ import annotations

from helpers.label_project import label_project
from sideways.annotation_app.items import load_items
from sideways.annotation_app.service import BEAT_S, HOLD_S, LabelService
from sideways.annotation_app.store import LabelStore
from sideways.commands.annotate import plan_for
from sideways.config.params import load_params


class Clock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self):
        return self.now


def _service(tmp_path, monkeypatch, clock=None):
    project = label_project(tmp_path / "p", n_riddles=4, annotations={"budget": 12, "double_share": 0.0})
    monkeypatch.chdir(project)
    params = load_params("params.yaml")
    items = load_items(params, "llm")
    store = LabelStore(project / "data/labels/llm.jsonl")
    return LabelService(items, plan_for(params, "llm", items), store, "ana", monotonic=clock or Clock())


def _label(service, token, item_id):
    return service.label(token, {"item_id": item_id, "answer_correct": True, "justification_correct": False})


def test_a_session_evicted_after_its_token_check_is_served_and_its_label_saved(tmp_path, monkeypatch):
    service = _service(tmp_path, monkeypatch)
    token = service.open_session()
    assert service.valid(token)
    service.sessions.clear()  # evicted by others' sessions between the app's check and the lock
    item = service.next(token)
    assert item is not None and service.valid(token)
    service.sessions.clear()
    saved = _label(service, token, item["item_id"])
    assert saved["saved"] and saved["progress"]["mine"] == 1
    assert len(service.store.events()) == 1
    service.sessions.clear()
    assert service.undo(token)["undone"] == "label"
    service.sessions.clear()
    assert service.beat(token) == {"held": False}


def test_a_closed_page_frees_its_item_within_seconds_a_beating_one_keeps_it(tmp_path, monkeypatch):
    assert HOLD_S <= 30 and BEAT_S * 2 < HOLD_S
    clock = Clock()
    service = _service(tmp_path, monkeypatch, clock)
    gone, beating = service.open_session(), service.open_session()
    lost = service.next(gone)["item_id"]
    kept = service.next(beating)["item_id"]
    for _ in range(round(300 / BEAT_S)):  # five minutes: the beating page keeps its item all along
        clock.now += BEAT_S
        assert service.beat(beating) == {"held": True}
    assert clock.now - 1000.0 >= HOLD_S + 1
    me = service.open_session()
    seen = set()
    while (item := service.next(me)) is not None:
        seen.add(item["item_id"])
        _label(service, me, item["item_id"])
    assert lost in seen and kept not in seen and len(seen) == 11
