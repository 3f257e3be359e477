"""The JSON API of `sideways annotate serve`, over real HTTP against the real app on 127.0.0.1:
guards (CSRF token, Origin, Host), 400s naming the field, two annotators on one file, kill -9."""

from __future__ import annotations

import json
import threading
from collections import Counter

import httpx
import pytest

from helpers.label_project import MODELS, Served, label_project
from sideways.annotation.labels import read_label_file
from sideways.annotation_app.queue import Candidate, Plan, wanted
from sideways.artifacts.io import read_table
from sideways.artifacts.schema import RIDDLES

TOKEN = "X-CSRF-Token"


def _lines(project):
    path = project / "data/labels/llm.jsonl"
    return [json.loads(x) for x in path.read_text().splitlines()] if path.exists() else []


def _until_killed(url: str, acked: list, stop_after: int) -> None:
    try:
        _label_all(url, acked, stop_after)
    except httpx.TransportError:
        pass  # the server was killed under this request: it was not acknowledged


def _label_all(url: str, acked: list, stop_after: int | None = None, verdict=(True, False)) -> None:
    """One session labelling until 204 (or ``stop_after`` labels); every 200 goes into ``acked``."""
    with httpx.Client(base_url=url, timeout=30) as client:
        token = None
        while stop_after is None or len(acked) < stop_after:
            r = client.get("/api/next", headers={TOKEN: token} if token else {})
            if r.status_code == 204:
                return
            item = r.json()
            token = item["token"]
            body = {"item_id": item["item_id"], "answer_correct": verdict[0], "justification_correct": verdict[1]}
            posted = client.post("/api/labels", json=body, headers={TOKEN: token})
            if posted.status_code == 200:
                acked.append(posted.json())
            else:
                assert posted.status_code == 409, posted.text  # taken meanwhile: ask again


@pytest.fixture
def project(tmp_path):
    return label_project(tmp_path / "project", n_riddles=6, annotations={"budget": 18, "double_share": 0.0})


def test_guards_tokens_origin_host_and_fields(project):
    with Served(project, "ana") as s, httpx.Client(base_url=s.url) as c:
        item = c.get("/api/next").json()
        token, good = item["token"], {"item_id": item["item_id"], "answer_correct": True, "justification_correct": True}
        assert c.post("/api/labels", json=good).status_code == 403
        assert c.post("/api/labels", json=good, headers={TOKEN: "forged"}).status_code == 403
        foreign = c.post("/api/labels", json=good, headers={TOKEN: token, "Origin": "http://evil.example"})
        assert foreign.status_code == 403 and "origin" in foreign.json()["error"]
        assert c.get("/api/next", headers={"Host": f"evil.example:{s.port}"}).status_code == 403
        for body, field in [
            ("{not json", "body"), ([1], "body"), ({**good, "item_id": "nope"}, "item_id"),
            ({k: v for k, v in good.items() if k != "answer_correct"}, "answer_correct"),
            ({**good, "justification_correct": "yes"}, "justification_correct"),
            ({**good, "note": "x" * 2001}, "note"), ({**good, "model": "peek"}, "model"),
        ]:
            content = body if isinstance(body, str) else json.dumps(body)
            r = c.post("/api/labels", content=content, headers={TOKEN: token, "Content-Type": "application/json"})
            assert (r.status_code, r.json()["field"]) == (400, field), body
        assert _lines(project) == []  # nothing refused was written
        same_origin = c.post("/api/labels", json=good, headers={TOKEN: token, "Origin": s.url})
        assert same_origin.status_code == 200
        assert c.post("/api/labels", json=good, headers={TOKEN: token}).status_code == 409  # twice: refused
        assert len(_lines(project)) == 1


def test_the_model_stays_hidden_until_the_label_is_saved(project):
    with Served(project, "ana") as s, httpx.Client(base_url=s.url) as c:
        r = c.get("/api/next")
        # the progress table lists every provider as a column; the item itself names no model or provider
        shown = json.dumps({k: v for k, v in r.json().items() if k != "progress"})
        assert not any(name in shown for model, provider in MODELS.items() for name in (model, provider, f"{model}-v1"))
        assert not any(model in json.dumps(r.json()["progress"]) for model in MODELS)
        saved = c.post("/api/labels", json={"item_id": r.json()["item_id"], "answer_correct": False,
                                            "justification_correct": False, "note": " odd "},
                       headers={TOKEN: r.json()["token"]}).json()
        assert saved["model"] in MODELS and saved["provider"] == MODELS[saved["model"]]
        line = _lines(project)[0]
        assert (line["model"], line["annotator"], line["note"]) == (saved["model"], "ana", "odd")
        assert line["timestamp"].endswith("Z")


def test_skip_and_undo_are_lines_and_undo_serves_the_item_again(project):
    with Served(project, "ana") as s, httpx.Client(base_url=s.url) as c:
        first = c.get("/api/next").json()
        h = {TOKEN: first["token"]}
        assert c.post("/api/skip", json={"item_id": first["item_id"]}, headers=h).status_code == 200
        second = c.get("/api/next", headers=h).json()
        assert second["item_id"] != first["item_id"]
        assert c.post("/api/undo", headers=h).json()["undone"] == "skip"
        assert c.get("/api/next", headers=h).json()["item_id"] == first["item_id"]
    assert [x.get("action", "label") for x in _lines(project)] == ["skip", "undo"]


def test_nothing_left_is_204(tmp_path):
    project = label_project(tmp_path / "p", n_riddles=1, annotations={"budget": 3, "double_share": 0.0})
    with Served(project, "ana") as s:
        acked = []
        _label_all(s.url, acked)
        assert len(acked) == 3
        assert httpx.get(f"{s.url}/api/next").status_code == 204


def test_two_annotators_on_one_file_lose_and_duplicate_nothing(tmp_path):
    """Two servers (ana, bob) and two sessions each, all at once, on one label file."""
    project = label_project(tmp_path / "p", n_riddles=10, annotations={"budget": 30, "double_share": 0.3,
                                                                        "first_double": 0})
    acked = {"ana": [], "bob": []}
    with Served(project, "ana") as a, Served(project, "bob") as b:
        threads = [threading.Thread(target=_label_all, args=(s.url, acked[s.annotator])) for s in (a, b, a, b)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    lines = _lines(project)
    per_item = Counter((x["riddle_id"], x["model"]) for x in lines)
    assert len({(x["riddle_id"], x["model"], x["annotator"]) for x in lines}) == len(lines)  # nobody twice
    plan = Plan(0, "llm", 30, 0.3)
    want = {(r, m): wanted(plan, Candidate(r, m, MODELS[m], (0, 1))) for r, m in per_item}
    assert len(per_item) == 30 and per_item == Counter(want) and 2 in per_item.values()
    assert len(lines) == len(acked["ana"]) + len(acked["bob"])  # every acknowledged label, nothing else
    riddles = read_table(project / "data/split/llm.parquet", RIDDLES)
    assert len(read_label_file(project / "data/labels/llm.jsonl", riddles)) == 30


def test_kill_9_loses_no_acknowledged_label_and_the_restart_resumes(project):
    acked: list = []
    server = Served(project, "ana").start()
    try:
        threads = [threading.Thread(target=_until_killed, args=(server.url, acked, 8)) for _ in range(3)]
        for t in threads:
            t.start()
        while len(acked) < 6:
            threads[0].join(0.01)
        server.kill()
        for t in threads:
            t.join()
    finally:
        server.kill()
    on_disk = {(x["riddle_id"], x["model"]) for x in _lines(project)}  # parses: no half-written line
    assert len(acked) >= 6 and {(a["riddle_id"], a["model"]) for a in acked} <= on_disk
    with Served(project, "ana") as again:
        more: list = []
        _label_all(again.url, more)
    lines = _lines(project)
    assert len(lines) == 18 and len({(x["riddle_id"], x["model"]) for x in lines}) == 18
    assert len(more) == 18 - len(on_disk)


def test_a_new_annotators_first_labels_are_second_labels(tmp_path):
    """``annotations.first_double``: bob's first 5 labels go to predictions ana labelled (none wants a second label
    by its own coin), then bob starts new ones; ana's first labels stay the first."""
    project = label_project(tmp_path / "p", n_riddles=10,
                            annotations={"budget": 30, "double_share": 0.0, "first_double": 5})
    with Served(project, "ana") as a:
        _label_all(a.url, [], stop_after=12)
    with Served(project, "bob") as b:
        _label_all(b.url, [], stop_after=8)
        progress = httpx.get(f"{b.url}/api/progress", timeout=10).json()
    lines = _lines(project)
    ana = [(x["riddle_id"], x["model"]) for x in lines if x["annotator"] == "ana"]
    bob = [(x["riddle_id"], x["model"]) for x in lines if x["annotator"] == "bob"]
    assert len(ana) == 12 and len(bob) == 8
    # the progress view counts them: "double labels 5 of 5" (none wanted by the double share)
    assert (progress["double_done"], progress["double_wanted"]) == (5, 5)
    assert set(bob[:5]) <= set(ana) and not set(bob[5:]) & set(ana)
    riddles = read_table(project / "data/split/llm.parquet", RIDDLES)
    first = read_label_file(project / "data/labels/llm.jsonl", riddles)
    kept = {(r, m): who for r, m, who in zip(first["riddle_id"], first["model"], first["annotator"], strict=True)}
    assert len(kept) == 15 and all(kept[k] == "ana" for k in bob[:5])  # calibration reads ana's label there
