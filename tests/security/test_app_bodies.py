"""Issue 27: odd request bodies get a 400 naming the body, never a 500 with a server traceback."""

from __future__ import annotations

import asyncio

import pytest

from helpers.label_project import free_port, label_project
from sideways.annotation_app.app import make_app
from sideways.annotation_app.items import load_items
from sideways.annotation_app.service import LabelService
from sideways.annotation_app.store import LabelStore
from sideways.commands.annotate import plan_for
from sideways.config.params import load_params

BODIES = [
    (b"[" * 60_000, "application/json"),  # nested too deep for the parser
    (b'{"item_id": ' + b"9" * 5000 + b"}", "application/json"),  # an integer Python refuses to parse
    (b'{"item_id": "x"}', "application/json; charset=x-no-such-charset"),
    (b'{"item_id": "\xff\xfe"}', "application/json"),
    ("{\"note\": \"a\u2028b\", \"\n\": 1}".encode(), "application/json"),
]


@pytest.mark.parametrize(("body", "kind"), BODIES)
def test_odd_bodies_are_400_and_the_app_keeps_serving(tmp_path, monkeypatch, body, kind):
    from aiohttp.test_utils import TestClient, TestServer

    project = label_project(tmp_path / "p", n_riddles=2)
    monkeypatch.chdir(project)
    params = load_params("params.yaml")
    items = load_items(params, "llm")
    service = LabelService(items, plan_for(params, "llm", items), LabelStore(project / "data/labels/llm.jsonl"), "ana")

    async def scenario():
        port = free_port()
        async with TestClient(TestServer(make_app(service, "127.0.0.1", port), host="127.0.0.1", port=port)) as c:
            item = await (await c.get("/api/next")).json()
            r = await c.post("/api/labels", data=body, headers={"X-CSRF-Token": item["token"], "Content-Type": kind})
            assert r.status == 400, await r.text()
            answer = await r.json()
            assert answer["field"] and "\n" not in answer["error"]
            assert (await c.get("/api/progress")).status == 200

    asyncio.run(scenario())
    assert not (project / "data/labels/llm.jsonl").exists()
