"""A toy backend, as docs/real-models.md "Adding a backend or a batch provider" says to write one.

It sends OpenAI-style chat requests with httpx (not aiohttp, unlike ``openai-compatible``) to
``endpoint``; its options class declares each option once with its validator. The test that
uses it registers it with one entry of the backend table and nothing else.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass

import httpx

from sideways.backends.base import RunContext, Spec
from sideways.backends.http_base import HttpBackend, policy, where
from sideways.config import checks
from sideways.config.backends import BackendEntry
from sideways.config.options import HttpOptions, expect_options, option
from sideways.config.requests import RequestSettings
from sideways.llm.formats import Generation, OpenAIChat
from sideways.llm.riddle_requests import Target
from sideways.llm.runner import Call, RunOptions


@dataclass(frozen=True, kw_only=True)
class ToyOptions(HttpOptions):
    """``toy``: where its server listens."""

    endpoint: str = option(checks.string)


class _Client:
    def __init__(self, client: httpx.AsyncClient, endpoint: str):
        self._client, self._endpoint = client, endpoint.rstrip("/") + "/"

    async def send(self, call: Call) -> httpx.Response:
        return await self._client.post(self._endpoint + call.endpoint.lstrip("/"), content=call.payload)


class ToyBackend(HttpBackend):
    name = "toy"

    def target(self, spec: Spec, settings: RequestSettings) -> Target:
        max_tokens, temperature = self.generation(spec)
        return Target(spec.key, spec.provider, spec.name, OpenAIChat(), Generation(max_tokens, temperature),
                      batch=False)

    def key_var(self, spec: Spec) -> str | None:
        return None

    def run_options(self, spec: Spec, settings: RequestSettings, ctx: RunContext, n: int) -> RunOptions:
        return RunOptions(policy(settings), concurrency=4, timeout_s=settings.timeout_s)

    @contextlib.asynccontextmanager
    async def transport(self, spec: Spec, target: Target, key: str | None, settings: RequestSettings,
                        ctx: RunContext) -> AsyncIterator[_Client]:
        endpoint = expect_options(spec.options, ToyOptions, where(spec)).endpoint
        async with httpx.AsyncClient(headers={"Content-Type": "application/json"}, trust_env=False) as client:
            yield _Client(client, endpoint)


# The one line that registers it (a test puts it in BACKENDS; a real backend is written there).
ENTRY = BackendEntry("helpers.toy_backend", "ToyBackend", "ToyBackend", None, ToyOptions, ToyOptions,
                     sends_requests=True)
