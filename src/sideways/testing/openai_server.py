"""A fake OpenAI-compatible chat completions server on 127.0.0.1, with scripted faults.

It answers riddle prompts with ``{"answer", "justification"}``, judge prompts with a verdict
and extraction prompts (the extract stage's) with an answer stated in the solution ("answer is
X", else none), a justification and the two flags; it honours ``response_format`` (strict JSON
when asked, JSON wrapped in prose otherwise), and counts every request by the SHA-256 of its
body, so tests can check that nothing answered was sent twice. Faults are scripted per prompt:
``plan`` maps a substring of the prompt (e.g. a riddle id) to the outcomes of successive attempts:

``ok`` ``429`` (with Retry-After) ``500`` ``503`` (``{"": ["503"]}``: down) ``timeout`` (sleeps past the client timeout)
``malformed`` (200 with a non-JSON body) ``truncated`` (finish_reason=length, cut JSON)
``garbage`` (200, prose without JSON) ``echo_auth`` (400 that echoes the Authorization header)
``400`` (a permanent client error) ``drop`` (closes the connection) ``no_logprobs`` (a reply
without log-probabilities, as a server that ignores ``logprobs`` gives).

A request with ``logprobs: true`` (an L3Score judge's) gets its first token's ``top_logprobs``:
those of ``Behaviour.top_logprobs`` for the first marker found in the prompt, else a confident
"Yes" when the ground-truth and candidate answers are equal (ignoring case) and a confident
"No" otherwise.

Exam prompts get free text: a multiple-choice question ``Answer: A``, a short-answer question a
sentence, a grader ``SCORE: <points>/<points>``; ``replies`` maps a substring of the prompt to the
exact reply text instead (the first marker found wins), for extraction and verdict edge cases.

Run it in a thread (:class:`FakeServer`) or as a process:
``python -m sideways.testing.openai_server --latency 0.05`` prints ``port=<n>``. With
``--reuse-port`` several processes share one port (the kernel spreads connections over them),
as a provider's many machines would; each counts only its own requests, on its own port.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import re
import sys
import threading
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any, TypedDict

from aiohttp import web


@dataclass
class Behaviour:
    latency_s: float = 0.0
    plan: dict[str, list[str]] = field(default_factory=dict)
    keep_bodies: bool = True
    retry_after_s: float = 0.05
    timeout_sleep_s: float = 5.0
    expected_key: str | None = None
    top_logprobs: dict[str, list[tuple[str, float]]] = field(default_factory=dict)
    replies: dict[str, str] = field(default_factory=dict)
    usage: dict[str, Any] = field(default_factory=dict)  # overrides every reply's usage counts (a broken provider)


class Snapshot(TypedDict):
    """What ``GET /stats`` answers: request counts, in total and by SHA-256 of the body."""

    requests: int
    by_body: dict[str, int]
    answered: dict[str, int]


class FakeOpenAI:
    """The aiohttp application and its counters."""

    def __init__(self, behaviour: Behaviour | None = None):
        self.behaviour = behaviour or Behaviour()
        self.requests = 0
        self.by_body: Counter[str] = Counter()
        self.answered: Counter[str] = Counter()
        self.attempts: defaultdict[str, int] = defaultdict(int)
        self.auth_headers: list[str] = []
        self.bodies: list[dict[str, Any]] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self.app = web.Application()
        self.app.router.add_post("/v1/chat/completions", self.chat)
        self.app.router.add_get("/stats", self.stats)

    def snapshot(self) -> Snapshot:
        return {"requests": self.requests, "by_body": dict(self.by_body), "answered": dict(self.answered)}

    async def stats(self, request: web.Request) -> web.Response:
        return web.json_response(self.snapshot())

    def _outcome(self, text: str) -> str:
        for marker, outcomes in self.behaviour.plan.items():
            if marker in text:
                n = self.attempts[marker]
                self.attempts[marker] += 1
                return outcomes[min(n, len(outcomes) - 1)]
        return "ok"

    async def chat(self, request: web.Request) -> web.StreamResponse:
        self.in_flight += 1
        self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            return await self._chat(request)
        finally:
            self.in_flight -= 1

    async def _chat(self, request: web.Request) -> web.StreamResponse:
        raw = await request.read()
        digest = hashlib.sha256(raw).hexdigest()
        self.requests += 1
        self.by_body[digest] += 1
        b = self.behaviour
        auth = request.headers.get("Authorization", "")
        self.auth_headers.append(auth)
        if b.expected_key is not None and auth != f"Bearer {b.expected_key}":
            return web.json_response({"error": {"message": "invalid api key"}}, status=401)
        body: dict[str, Any] = json.loads(raw)
        if b.keep_bodies:
            self.bodies.append(body)
        text = _prompt_text(body)
        outcome = self._outcome(text)
        if b.latency_s:
            await asyncio.sleep(b.latency_s)
        if outcome == "429":
            return web.json_response({"error": {"message": "rate limited"}}, status=429,
                                     headers={"Retry-After": str(b.retry_after_s)})
        if outcome == "500":
            return web.json_response({"error": {"message": "internal error"}}, status=500)
        if outcome == "503":
            return web.json_response({"error": {"message": "service unavailable"}}, status=503)
        if outcome == "400":
            return web.json_response({"error": {"message": "bad request: model refuses"}}, status=400)
        if outcome == "echo_auth":
            return web.json_response({"error": {"message": f"key {auth} has no access"}}, status=400)
        if outcome == "timeout":
            await asyncio.sleep(b.timeout_sleep_s)
        if outcome == "drop":
            if request.transport is not None:  # None once the client has gone already
                request.transport.close()
            return web.Response(status=200)
        if outcome == "malformed":
            return web.Response(status=200, text='{"choices": [', content_type="application/json")
        if body.get("logprobs") and outcome != "no_logprobs":
            self.answered[digest] += 1
            return web.json_response(_logprob_reply(digest, body, text, self._top(text)))
        scripted = next((reply for marker, reply in b.replies.items() if marker in text), None)
        content, finish = (scripted, "stop") if scripted is not None else _reply(text, "response_format" in body)
        if outcome == "truncated":
            content, finish = content[: len(content) // 2], "length"
        if outcome == "garbage":
            content = "I would rather not answer in JSON today."
        self.answered[digest] += 1
        return web.json_response({
            "id": "chatcmpl-" + digest[:12], "object": "chat.completion", "model": body.get("model"),
            "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": finish}],
            "usage": {"prompt_tokens": max(1, len(text) // 4), "completion_tokens": max(1, len(content) // 4),
                      "total_tokens": max(1, len(text) // 4) + max(1, len(content) // 4), **b.usage},
        })


    def _top(self, text: str) -> list[tuple[str, float]]:
        for marker, top in self.behaviour.top_logprobs.items():
            if marker in text:
                return top
        m = re.search(r"Ground-truth answer: (.*?) \nCandidate answer: (.*?) \n", text, re.S)
        same = bool(m and m.group(1).strip().lower() == m.group(2).strip().lower())
        return CONFIDENT_YES if same else CONFIDENT_NO


#: What a judge sure of its answer returns as top-5 (OpenAI sorts them most likely first).
CONFIDENT_YES = [("Yes", -0.0001), ("No", -9.5), ("yes", -11.0), (" Yes", -12.25), ("Sure", -13.0)]
CONFIDENT_NO = [("No", -0.0002), ("Yes", -9.0), ("no", -10.5), (" No", -12.0), ("Not", -13.5)]


def _logprob_reply(digest: str, body: dict[str, Any], text: str, top: list[tuple[str, float]]) -> dict[str, Any]:
    """A chat completion whose first (and only) token comes with ``top`` as its top_logprobs."""
    token = top[0][0] if top else "Maybe"
    entries = [{"token": t, "logprob": lp, "bytes": list(t.encode())} for t, lp in top]
    first = {"token": token, "logprob": top[0][1] if top else -0.5, "bytes": list(token.encode()),
             "top_logprobs": entries}
    prompt_tokens = max(1, len(text) // 4)
    return {
        "id": "chatcmpl-" + digest[:12], "object": "chat.completion", "model": body.get("model"),
        "choices": [{"index": 0, "message": {"role": "assistant", "content": token},
                     "logprobs": {"content": [first]}, "finish_reason": "length"}],
        "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": 1, "total_tokens": prompt_tokens + 1},
    }


def _prompt_text(body: dict[str, Any]) -> str:
    parts: list[str] = []
    for message in body.get("messages", []):
        content = message.get("content")
        if isinstance(content, str):
            parts.append(content)
        elif isinstance(content, list):
            parts += [p.get("text", "") for p in content if isinstance(p, dict) and p.get("type") == "text"]
    return "\n".join(parts)


def _exam_reply(text: str) -> str | None:
    """The default reply to an exam prompt (None for a riddle prompt)."""
    if "multiple-choice question" in text:
        return "Answer: A"
    if "exam grader" in text:
        m = re.search(r"SCORE: X/(\S+)", text)
        return f"SCORE: {m.group(1) if m else 1}/{m.group(1) if m else 1}\nFEEDBACK: complete."
    if "exam question" in text:
        return "A short answer in one sentence."
    return None


def _reply(text: str, structured: bool) -> tuple[str, str]:
    exam = _exam_reply(text)
    if exam is not None:
        return exam, "stop"
    if "is_answer_correct" in text:
        m = re.search(r"Participant's answer: (.*)", text)
        gold = re.search(r"Correct answer: (.*)", text)
        right = bool(m and gold and m.group(1).strip() == gold.group(1).strip())
        obj: dict[str, bool | str] = {"is_answer_correct": right, "is_justification_correct": right}
    elif "needs_game_engine" in text:
        solution = text.split("Official solution:", 1)[-1]
        m = re.search(r"answer is (\w+)", solution)
        obj = {"answer": m.group(1) if m else "", "justification": "As the solution explains.",
               "needs_game_engine": "Touch Screen" in text, "needs_image": "picture" in text.lower(), "review": ""}
    else:
        m = re.search(r"answer is (\w+)", text)
        obj = {"answer": m.group(1) if m else "42", "justification": "Counted carefully, then checked the trick."}
    content = json.dumps(obj)
    return (content if structured else f"Here is my reply:\n```json\n{content}\n```"), "stop"


class FakeServer:
    """:class:`FakeOpenAI` served from a background thread; ``base_url`` ends in ``/v1``."""

    def __init__(self, behaviour: Behaviour | None = None):
        self.fake = FakeOpenAI(behaviour)
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self.port = 0

    def __enter__(self) -> FakeServer:
        self._thread.start()
        self.port = asyncio.run_coroutine_threadsafe(self._start(), self._loop).result(10)
        return self

    async def _start(self) -> int:
        self._runner = web.AppRunner(self.fake.app, access_log=None, shutdown_timeout=0.1)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        return int(self._runner.addresses[0][1])  # (host, port) of the one site

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def __exit__(self, *exc: object) -> None:
        asyncio.run_coroutine_threadsafe(self._stop(), self._loop).result(10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(5)

    async def _stop(self) -> None:
        await self._runner.cleanup()
        tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="fake OpenAI-compatible server on 127.0.0.1")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--latency", type=float, default=0.0, help="seconds before each reply")
    parser.add_argument("--reuse-port", action="store_true",
                        help="share --port with other server processes (SO_REUSEPORT); each also "
                             "listens on a port of its own, printed as own=<n>, for its /stats")
    args = parser.parse_args(argv)
    fake = FakeOpenAI(Behaviour(latency_s=args.latency, keep_bodies=False))

    async def serve() -> None:
        runner = web.AppRunner(fake.app, access_log=None)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", args.port, backlog=1024, reuse_port=args.reuse_port or None)
        await site.start()
        if args.reuse_port:
            own = web.TCPSite(runner, "127.0.0.1", 0)
            await own.start()
            print(f"port={runner.addresses[0][1]} own={runner.addresses[1][1]}", flush=True)
        else:
            print(f"port={runner.addresses[0][1]}", flush=True)
        await asyncio.Event().wait()

    try:
        asyncio.run(serve())
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
