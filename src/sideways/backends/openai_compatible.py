"""``openai-compatible``: direct async calls to any OpenAI-compatible chat completions endpoint.

A local vLLM or llama.cpp server, OpenRouter, a gateway: set ``base_url`` (and
``api_key_env`` if the server wants a key). Requests go out concurrently, bounded by
``concurrency``, optionally limited to ``rpm`` requests per minute, each with a timeout and
the retry policy of ``requests:``.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator

import aiohttp

from sideways.backends.base import RunContext, Spec
from sideways.backends.http_base import HttpBackend, policy, where
from sideways.config.options import OpenAICompatibleOptions, expect_options
from sideways.config.requests import RequestSettings
from sideways.llm.formats import Generation, OpenAIChat
from sideways.llm.ratelimit import endpoint_gate
from sideways.llm.riddle_requests import Target
from sideways.llm.runner import Call, Reply, RunOptions, TransportError, Unreachable


class _Session:
    """Posts calls with one aiohttp session (a connection per concurrency slot).

    aiohttp rather than httpx here: with 32 connections httpx's pool spends most of its time
    scanning itself and stays near 60% of the concurrency bound; aiohttp reaches it
    (benchmarks/throughput.py). Replies come back as light :class:`~sideways.llm.runner.Reply` objects, and
    connection-level failures as :class:`~sideways.llm.runner.TransportError` (retried).
    """

    def __init__(self, session: aiohttp.ClientSession, base_url: str):
        self._session, self._base = session, base_url

    async def send(self, call: Call) -> Reply:
        try:
            # The body's canonical JSON, already encoded for the cache key (Content-Type: session's).
            async with self._session.post(self._base + call.endpoint.lstrip("/"), data=call.payload) as r:
                return Reply(r.status, r.headers, await r.read())
        except aiohttp.ClientConnectorError as exc:  # refused, no such host: never sent
            raise Unreachable(f"{type(exc).__name__}: {exc}") from exc
        except aiohttp.ClientError as exc:
            raise TransportError(f"{type(exc).__name__}: {exc}") from exc


def _options(spec: Spec) -> OpenAICompatibleOptions:
    return expect_options(spec.options, OpenAICompatibleOptions, where(spec))


class OpenAICompatibleBackend(HttpBackend):
    name = "openai-compatible"

    def target(self, spec: Spec, settings: RequestSettings) -> Target:
        o = _options(spec)
        max_tokens, temperature = self.generation(spec)
        return Target(spec.key, spec.provider, spec.name,
                      OpenAIChat(max_tokens_field=o.max_tokens_field, structured=o.structured_output),
                      Generation(max_tokens, temperature), batch=False)

    def key_var(self, spec: Spec) -> str | None:
        return _options(spec).api_key_env or None

    def run_options(self, spec: Spec, settings: RequestSettings, ctx: RunContext, n: int) -> RunOptions:
        o = _options(spec)
        concurrency, rpm, timeout = _limits(o, settings)
        # In a fan-out, every job's requests to one base_url share its concurrency (the smallest
        # declared); rpm stays the model's own (providers limit rates per model).
        gate = endpoint_gate(o.base_url.rstrip("/"), concurrency)
        return RunOptions(policy(settings), concurrency, rpm, timeout, batch=False, gate=gate)

    @contextlib.asynccontextmanager
    async def transport(self, spec: Spec, target: Target, key: str | None, settings: RequestSettings,
                        ctx: RunContext) -> AsyncIterator[_Session]:
        o = _options(spec)
        concurrency = _limits(o, settings)[0]
        async with aiohttp.ClientSession(
            headers={**target.fmt.headers(key), "Content-Type": "application/json"},
            # No timers of aiohttp's own: the runner bounds each attempt (asyncio.timeout), and a
            # second timer per request is event-loop work on every answer's path.
            timeout=aiohttp.ClientTimeout(total=None, sock_connect=None, sock_read=None),
            connector=aiohttp.TCPConnector(limit=concurrency), trust_env=False,
        ) as session:
            yield _Session(session, o.base_url.rstrip("/") + "/")


def _limits(o: OpenAICompatibleOptions, settings: RequestSettings) -> tuple[int, float | None, float]:
    """Concurrency, rpm and timeout: the model's own when it sets them, else ``requests:``'s."""
    concurrency = settings.concurrency if o.concurrency is None else o.concurrency
    rpm = settings.rpm if o.rpm is None else o.rpm
    timeout = settings.timeout_s if o.timeout_s is None else o.timeout_s
    return concurrency, rpm, float(timeout)
