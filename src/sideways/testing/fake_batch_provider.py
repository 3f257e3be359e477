"""A fake provider Batch API on 127.0.0.1 whose batches complete ``latency_s`` after creation.

It speaks the file-based dialect batchling uses for OpenAI, Doubleword, Groq, Mistral and
Together (upload a JSONL file, create a batch, poll it, download the output file), answers
riddle and judge prompts like :mod:`sideways.testing.openai_server`, and logs every batch it
creates (id, model, requests, creation and completion times), so tests and
``benchmarks/wall_time.py`` can count batches and see which were in flight together.

batchling only batches requests to the providers' real hosts, so a process reaches the fake
through :func:`redirect`: httpx's transport sends what was addressed to ``api.openai.com``
(say) to ``http://127.0.0.1:<port>`` instead, after batchling has routed it. A process started
by DVC gets the same redirect from :func:`write_sitecustomize` (a ``sitecustomize`` module on
its ``PYTHONPATH`` that reads :data:`HOSTS_VAR`).

Faults: ``fail_lines`` answers every line with an error (the batch itself completes), and
``outcome`` ends the n-th batch (1-based) with another status (``failed``, ``expired``).
Run it alone: ``python -m sideways.testing.fake_batch_provider --dialect openai --latency 5``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import sys
import threading
import time
from collections.abc import Callable, Coroutine, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from aiohttp import web

from sideways.testing.openai_server import _prompt_text, _reply

#: JSON object mapping a provider host (``api.openai.com``) to the fake's base URL.
HOSTS_VAR = "SIDEWAYS_FAKE_BATCH_HOSTS"


@dataclass(frozen=True)
class Dialect:
    """How one provider's file-based batch API is laid out (batchling's adapter for it)."""

    name: str
    host: str
    upload: str = "/v1/files"
    files: str = "/v1/files"
    batches: str = "/v1/batches"
    done: str = "completed"
    running: str = "in_progress"
    output_field: str = "output_file_id"
    wrapped: bool = False  # Together answers a creation with {"job": {...}}
    input_list: bool = False  # Mistral names its input files in a list


DIALECTS = {d.name: d for d in (
    Dialect("openai", "api.openai.com"),
    Dialect("doubleword", "api.doubleword.ai"),
    Dialect("groq", "api.groq.com", "/openai/v1/files", "/openai/v1/files", "/openai/v1/batches"),
    Dialect("mistral", "api.mistral.ai", batches="/v1/batch/jobs", done="SUCCESS", running="RUNNING",
            output_field="output_file", input_list=True),
    Dialect("together", "api.together.xyz", upload="/v1/files/upload", done="COMPLETED", running="IN_PROGRESS",
            wrapped=True),
)}


@dataclass
class BatchLog:
    """One batch the fake created: when, for which model, how many requests, when it completes."""

    batch_id: str
    model: str
    requests: int
    created_at: float  # time.time()
    completes_at: float
    collected_at: float | None = None  # when its output was first downloaded


@dataclass
class FakeBatchProvider:
    """The aiohttp application of one provider and its log."""

    dialect: Dialect
    latency_s: float = 0.0
    fail_lines: bool = False
    outcome: dict[int, str] = field(default_factory=dict)
    log: list[BatchLog] = field(default_factory=list)
    stored: dict[str, list[dict[str, Any]]] = field(default_factory=dict)

    @property
    def created(self) -> int:
        return len(self.log)

    def app(self) -> web.Application:
        d, app = self.dialect, web.Application(client_max_size=1 << 30)
        app.router.add_post(d.upload, self.upload)
        app.router.add_post(d.batches, self.create)
        app.router.add_get(d.batches + "/{batch_id}", self.poll)
        app.router.add_get(d.files + "/{file_id}/content", self.content)
        app.router.add_get("/log", self.show_log)
        return app

    async def upload(self, request: web.Request) -> web.Response:
        form = await request.post()
        part = form["file"]
        raw = part.file.read() if isinstance(part, web.FileField) else str(part).encode()
        file_id = f"file-in-{len(self.stored)}"
        self.stored[file_id] = [json.loads(line) for line in raw.decode().splitlines() if line.strip()]
        return web.json_response({"id": file_id})

    async def create(self, request: web.Request) -> web.Response:
        payload = await request.json()
        file_id = payload["input_files"][0] if self.dialect.input_list else payload["input_file_id"]
        lines, now = self.stored[file_id], time.time()
        batch_id = f"batch_{self.dialect.name}_{self.created + 1}"
        model = str(lines[0]["body"].get("model", "")) if lines else ""
        self.log.append(BatchLog(batch_id, model, len(lines), now, now + self.latency_s))
        self.stored[f"job:{batch_id}"] = lines
        body = {"id": batch_id, "status": "validating"}
        return web.json_response({"job": body} if self.dialect.wrapped else body)

    def _batch(self, batch_id: str) -> tuple[int, BatchLog]:
        for n, entry in enumerate(self.log, 1):
            if entry.batch_id == batch_id:
                return n, entry
        raise web.HTTPNotFound(text=json.dumps({"error": {"message": f"no batch {batch_id}"}}))

    async def poll(self, request: web.Request) -> web.Response:
        n, entry = self._batch(request.match_info["batch_id"])
        if time.time() < entry.completes_at:
            return web.json_response({"id": entry.batch_id, "status": self.dialect.running})
        if n in self.outcome:
            return web.json_response({"id": entry.batch_id, "status": self.outcome[n]})
        return web.json_response({"id": entry.batch_id, "status": self.dialect.done,
                                  self.dialect.output_field: f"out-{entry.batch_id}",
                                  "request_counts": {"completed": entry.requests, "total": entry.requests}})

    async def content(self, request: web.Request) -> web.Response:
        _, entry = self._batch(request.match_info["file_id"].removeprefix("out-"))
        entry.collected_at = entry.collected_at or time.time()
        return web.Response(text="\n".join(json.dumps(self._answer(line))
                                           for line in self.stored[f"job:{entry.batch_id}"]))

    def _answer(self, line: dict[str, Any]) -> dict[str, Any]:
        if self.fail_lines:
            return {"custom_id": line["custom_id"], "response": {"status_code": 500, "body": {
                "error": {"message": "line failed on the server", "type": "server_error"}}}}
        text = _prompt_text(line["body"])
        content, finish = _reply(text, structured="response_format" in line["body"])
        # Each model justifies in its own words, so judges get a request per model (the same
        # prediction from two models would be one cached judge request).
        model = line["body"].get("model", "A model")
        content = content.replace("Counted carefully", f"{model} counted carefully").replace(
            "A short answer in one sentence.", f"{model} gives a short answer in one sentence.")
        return {"custom_id": line["custom_id"], "response": {"status_code": 200, "body": {
            "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": finish}],
            "usage": {"prompt_tokens": 100, "completion_tokens": 20}}}}

    async def show_log(self, request: web.Request) -> web.Response:
        return web.json_response([entry.__dict__ for entry in self.log])


class FakeBatchServer:
    """:class:`FakeBatchProvider` served from a background thread; ``url`` is its base URL."""

    def __init__(self, dialect: str = "openai", latency_s: float = 0.0, **faults: Any) -> None:
        self.fake = FakeBatchProvider(DIALECTS[dialect], latency_s, **faults)
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self.port = 0

    def __enter__(self) -> FakeBatchServer:
        self._thread.start()
        self.port = asyncio.run_coroutine_threadsafe(self._start(), self._loop).result(10)
        return self

    async def _start(self) -> int:
        self._runner = web.AppRunner(self.fake.app(), access_log=None, shutdown_timeout=0.1)
        await self._runner.setup()
        await web.TCPSite(self._runner, "127.0.0.1", 0).start()
        return int(self._runner.addresses[0][1])

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def host(self) -> str:
        return self.fake.dialect.host

    def __exit__(self, *exc: object) -> None:
        asyncio.run_coroutine_threadsafe(self._runner.cleanup(), self._loop).result(10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(5)


def hosts(servers: Iterator[FakeBatchServer] | list[FakeBatchServer]) -> dict[str, str]:
    """``{provider host: fake base URL}`` for :func:`redirect` and :data:`HOSTS_VAR`."""
    return {s.host: s.url for s in servers}


_Send = Callable[[httpx.AsyncHTTPTransport, httpx.Request], Coroutine[Any, Any, httpx.Response]]
_original: list[_Send] = []


@contextlib.contextmanager
def redirect(targets: Mapping[str, str]) -> Iterator[None]:
    """Send httpx requests for ``targets``' hosts to the fakes (after batchling has routed them)."""
    install(targets)
    try:
        yield
    finally:
        httpx.AsyncHTTPTransport.handle_async_request = _original.pop()  # type: ignore[method-assign,assignment]


def install(targets: Mapping[str, str]) -> None:
    """Patch httpx's async transport for the rest of the process (see :func:`redirect`)."""
    original = httpx.AsyncHTTPTransport.handle_async_request
    _original.append(original)
    bases = {host.lower(): httpx.URL(url) for host, url in targets.items()}

    async def handle(self: httpx.AsyncHTTPTransport, request: httpx.Request) -> httpx.Response:
        base = bases.get(request.url.host.lower())
        if base is not None:
            request.url = request.url.copy_with(scheme=base.scheme, host=base.host, port=base.port)
        return await original(self, request)

    httpx.AsyncHTTPTransport.handle_async_request = handle  # type: ignore[method-assign]


# Self-contained (httpx only): every process of a run imports it, DVC's own included.
SITECUSTOMIZE = f'''"""Written by sideways.testing.fake_batch_provider: provider hosts go to local fakes."""
import os
if os.environ.get("{HOSTS_VAR}"):
    import json
    import httpx
    _bases = {{h.lower(): httpx.URL(u) for h, u in json.loads(os.environ["{HOSTS_VAR}"]).items()}}
    _send = httpx.AsyncHTTPTransport.handle_async_request

    async def _handle(self, request):
        base = _bases.get(request.url.host.lower())
        if base is not None:
            request.url = request.url.copy_with(scheme=base.scheme, host=base.host, port=base.port)
        return await _send(self, request)

    httpx.AsyncHTTPTransport.handle_async_request = _handle
'''


def write_sitecustomize(folder: Path) -> Path:
    """A folder to put on ``PYTHONPATH`` so every Python process redirects as :data:`HOSTS_VAR` says."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "sitecustomize.py").write_text(SITECUSTOMIZE)
    return folder


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="a fake provider Batch API on 127.0.0.1")
    parser.add_argument("--dialect", choices=sorted(DIALECTS), default="openai")
    parser.add_argument("--latency", type=float, default=0.0, help="seconds from creation to completion")
    args = parser.parse_args(argv)
    with FakeBatchServer(args.dialect, args.latency) as server:
        print(f"{HOSTS_VAR}={json.dumps({server.host: server.url})}", flush=True)
        with contextlib.suppress(KeyboardInterrupt):
            threading.Event().wait()
    return 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    sys.exit(main())
