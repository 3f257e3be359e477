"""Issue 27: a full disk while a label is appended leaves the log as it was (no half line), the
app answers with one line instead of a 500 on every request after, and a restart reads the file."""

from __future__ import annotations

import errno
import json
import os

import pytest

from sideways.annotation_app import store as store_module
from sideways.annotation_app.store import LabelStore


def _rec(r, who="ana", note=""):
    return {"riddle_id": r, "model": "m", "provider": "p", "human_answer_correct": True,
            "human_justification_correct": True, "annotator": who, "note": note}


class HalfWrite:
    """``os.write`` that writes half of what it is given, then reports the disk full, once."""

    def __init__(self):
        self.real, self.fired = os.write, False

    def __call__(self, fd, data):
        if self.fired or len(data) < 8:
            return self.real(fd, data)
        self.fired = True
        self.real(fd, bytes(data)[: len(data) // 2])
        raise OSError(errno.ENOSPC, "No space left on device")


def test_a_full_disk_leaves_the_log_readable(tmp_path, monkeypatch):
    path = tmp_path / "labels/llm.jsonl"
    store = LabelStore(path)
    store.append(_rec("a"))
    before = path.read_bytes()
    monkeypatch.setattr(store_module.os, "write", HalfWrite())
    with pytest.raises(OSError, match="No space"):
        store.append(_rec("b", note="x" * 500))
    assert path.read_bytes() == before  # the half line is gone
    assert [e.riddle_id for e in store.events()] == ["a"]
    assert [e.riddle_id for e in LabelStore(path).events()] == ["a"]  # a restart reads it
    store.append(_rec("c"))  # the disk has room again
    assert [json.loads(x)["riddle_id"] for x in path.read_text().splitlines()] == ["a", "c"]


def test_a_short_write_is_undone_too(tmp_path, monkeypatch):
    path = tmp_path / "llm.jsonl"
    store = LabelStore(path)
    store.append(_rec("a"))
    real = os.write
    monkeypatch.setattr(store_module.os, "write", lambda fd, data: real(fd, bytes(data)[:5]))
    with pytest.raises(OSError, match="short write"):
        store.append(_rec("b"))
    monkeypatch.setattr(store_module.os, "write", real)
    assert [e.riddle_id for e in LabelStore(path).events()] == ["a"]


def test_the_app_keeps_serving_when_a_label_cannot_be_written(tmp_path, monkeypatch):
    import asyncio

    from aiohttp.test_utils import TestClient, TestServer

    from helpers.label_project import free_port, label_project
    from sideways.annotation_app.app import make_app
    from sideways.annotation_app.items import load_items
    from sideways.annotation_app.service import LabelService
    from sideways.commands.annotate import plan_for
    from sideways.config.params import load_params

    project = label_project(tmp_path / "p", n_riddles=3)
    monkeypatch.chdir(project)
    params = load_params("params.yaml")
    items = load_items(params, "llm")
    store = LabelStore(project / "data/labels/llm.jsonl")
    service = LabelService(items, plan_for(params, "llm", items), store, "ana")

    async def scenario():
        port = free_port()
        async with TestClient(TestServer(make_app(service, "127.0.0.1", port), host="127.0.0.1", port=port)) as client:
            host = {"Host": f"127.0.0.1:{port}"}
            item = await (await client.get("/api/next", headers=host)).json()
            headers = {**host, "X-CSRF-Token": item["token"]}
            body = {"item_id": item["item_id"], "answer_correct": True, "justification_correct": True}
            store.append(_rec("r-99", who="bob"))  # a line already there
            monkeypatch.setattr(store_module.os, "write", HalfWrite())
            full = await client.post("/api/labels", json=body, headers=headers)
            assert full.status == 507 and "nothing was saved" in (await full.json())["error"]
            assert (await client.get("/api/progress", headers=host)).status == 200
            again = await client.post("/api/labels", json=body, headers=headers)
            assert again.status == 200, await again.text()

    asyncio.run(scenario())
    lines = (project / "data/labels/llm.jsonl").read_text().splitlines()
    assert [json.loads(x)["annotator"] for x in lines] == ["bob", "ana"]
