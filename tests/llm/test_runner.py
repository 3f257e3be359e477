"""run_calls: identical requests once, results in call order, concurrency bounded, errors surface."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections import Counter
from collections.abc import AsyncIterator

import pytest

from sideways.llm import cache as cache_mod
from sideways.llm.runner import Call, Reply, RunOptions, run_calls


class _Transport:
    """Answers every call after a short wait; counts sends and the most in flight at once."""

    def __init__(self, fail_on: str | None = None) -> None:
        self.sent: Counter[str] = Counter()
        self.in_flight = self.max_in_flight = 0
        self.fail_on = fail_on

    async def send(self, call: Call) -> Reply:
        if call.item == self.fail_on:
            raise ValueError("a bug in the transport")
        self.sent[call.item] += 1
        self.in_flight += 1
        self.max_in_flight = max(self.max_in_flight, self.in_flight)
        await asyncio.sleep(0.001)
        self.in_flight -= 1
        return Reply(200, {}, json.dumps({"answer": call.item}).encode())


def _call(item: str) -> Call:
    return Call(item, f"predict/m/{item}", "p", "m", "/chat/completions",
                {"messages": [{"role": "user", "content": f"question {item}"}]})


def _run(calls: list[Call], store: cache_mod.RequestCache, transport: _Transport, concurrency: int = 3) -> list:
    @contextlib.asynccontextmanager
    async def open_transport() -> AsyncIterator[_Transport]:
        yield transport

    return asyncio.run(run_calls(calls, open_transport, store, RunOptions(concurrency=concurrency),
                                 lambda response: (None, None, None)))


def test_identical_requests_are_sent_once_and_every_call_gets_its_result(tmp_path):
    store = cache_mod.RequestCache(tmp_path)
    calls = [_call(f"r{i % 7}") for i in range(40)]
    transport = _Transport()
    results = _run(calls, store, transport)
    assert transport.sent == Counter({f"r{i}": 1 for i in range(7)})
    assert [r.call for r in results] == calls and [r.response["answer"] for r in results] == [c.item for c in calls]
    assert transport.max_in_flight <= 3
    assert all(store.get(c.key) is not None for c in calls)


def test_a_partly_cached_run_sends_only_the_rest_and_a_full_rerun_needs_no_transport(tmp_path):
    store = cache_mod.RequestCache(tmp_path)
    calls = [_call(f"r{i}") for i in range(20)]
    _run(calls[::2], store, _Transport())
    transport = _Transport()
    results = _run(calls, store, transport)
    assert set(transport.sent) == {c.item for c in calls[1::2]}
    assert [r.cached for r in results] == [i % 2 == 0 for i in range(20)]
    again = asyncio.run(run_calls(calls, None, store, RunOptions(), lambda response: (None, None, None)))
    assert all(r.cached for r in again) and [r.response for r in again] == [r.response for r in results]


def test_an_unexpected_transport_error_surfaces_and_answers_so_far_are_kept(tmp_path):
    store = cache_mod.RequestCache(tmp_path)
    calls = [_call(f"r{i}") for i in range(10)]
    with pytest.raises(ValueError, match="a bug"):
        _run(calls, store, _Transport(fail_on="r5"), concurrency=1)
    assert [c.item for c in calls if store.get(c.key) is not None] == [f"r{i}" for i in range(5)]
    assert not list((tmp_path / "journal").iterdir())


def test_each_fresh_answer_reaches_on_fresh_once_and_cached_ones_never(tmp_path):
    store = cache_mod.RequestCache(tmp_path)
    calls = [_call(f"r{i % 6}") for i in range(12)]
    _run(calls[:2], store, _Transport())  # r0 and r1 are cached
    seen: list[str] = []

    @contextlib.asynccontextmanager
    async def open_transport() -> AsyncIterator[_Transport]:
        yield _Transport()

    results = asyncio.run(run_calls(calls, open_transport, store, RunOptions(concurrency=3),
                                    lambda response: (None, None, None), on_fresh=lambda r: seen.append(r.call.item)))
    assert sorted(seen) == ["r2", "r3", "r4", "r5"]
    assert [r.cached for r in results] == [c.item in ("r0", "r1") for c in calls]


def test_the_body_sent_is_the_payload_the_key_was_computed_from(tmp_path, server):
    """What reaches the server is byte for byte the canonical JSON the cache key covers."""
    import hashlib

    from helpers.request_layer import context, make_riddles, model_spec
    from sideways.backends.openai_compatible import OpenAICompatibleBackend
    from sideways.llm.riddle_requests import prediction_calls

    riddles = make_riddles(3)
    backend = OpenAICompatibleBackend()
    model = model_spec(server.base_url)
    ctx = context(tmp_path)
    backend.predict(riddles, model, ctx)
    target = backend.target(model, ctx.requests)
    payloads = [c.payload for c in prediction_calls(riddles, model, target, backend.templates)]
    assert set(server.fake.by_body) == {hashlib.sha256(p).hexdigest() for p in payloads}
