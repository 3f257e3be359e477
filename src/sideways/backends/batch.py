"""``batch``: provider Batch APIs through batchling (about half price, answers within 24 h).

Requests are plain ``httpx`` calls to the provider's real host inside batchling's batching
context, which turns them into batch lines, submits, polls and hands each response back
(docs/design.md: batchling 0.1.0a3 intercepts httpx/aiohttp to the real hosts only, so there
is no ``base_url`` option here). Our request cache sits in front: an answered request is never
submitted again.

A batch the provider accepted is never submitted again either (issue 9): its id, the requests
it holds and where to poll it are committed to ``<cache_dir>/batchling.sqlite3`` before the
first poll, a restart polls and collects recorded batches, and a poll error is retried as a
poll. batchling stays the submission path; :mod:`sideways.backends.batch_ledger` says what is
changed around it and why. Only a batch the provider ends failed, expired or cancelled has its
requests submitted again, in one new batch, once per run; the stage says so on stderr.

Errors: a failed line in the results is permanent for that item (``status=api_error``) and
is released from the record, so the next run submits it again.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from urllib.parse import urlparse

import httpx

from sideways.backends.base import RunContext, Spec
from sideways.backends.batch_status import BATCHLING_DB
from sideways.backends.http_base import HttpBackend, policy, where
from sideways.config.options import BatchOptions, expect_options
from sideways.config.requests import RequestSettings
from sideways.core.errors import ParamsError
from sideways.llm.formats import AnthropicMessages, GeminiGenerate, Generation, OpenAIChat, WireFormat
from sideways.llm.riddle_requests import Target
from sideways.llm.runner import Call, Result, RunOptions


@dataclass(frozen=True)
class Provider:
    base_url: str
    key_var: str
    fmt: str  # "openai", "anthropic" or "gemini"
    max_tokens_field: str = "max_tokens"


PROVIDERS: dict[str, Provider] = {
    "openai": Provider("https://api.openai.com/v1", "OPENAI_API_KEY", "openai", "max_completion_tokens"),
    "anthropic": Provider("https://api.anthropic.com", "ANTHROPIC_API_KEY", "anthropic"),
    "gemini": Provider("https://generativelanguage.googleapis.com", "GEMINI_API_KEY", "gemini"),
    "mistral": Provider("https://api.mistral.ai/v1", "MISTRAL_API_KEY", "openai"),
    "together": Provider("https://api.together.xyz/v1", "TOGETHER_API_KEY", "openai"),
    "groq": Provider("https://api.groq.com/openai/v1", "GROQ_API_KEY", "openai"),
    "doubleword": Provider("https://api.doubleword.ai/v1", "DOUBLEWORD_API_KEY", "openai"),
    "xai": Provider("https://api.x.ai/v1", "XAI_API_KEY", "openai"),
}


def provider_for(spec: Spec) -> Provider:
    if spec.provider not in PROVIDERS:
        raise ParamsError(f"{where(spec)}.provider: {spec.provider!r} has no batch API through batchling "
                          f"(batch providers: {', '.join(PROVIDERS)}); use backend openai-compatible instead")
    return PROVIDERS[spec.provider]


def wire_format(provider: Provider, structured: bool) -> WireFormat:
    if provider.fmt == "anthropic":
        return AnthropicMessages()
    if provider.fmt == "gemini":
        return GeminiGenerate(structured=structured)
    return OpenAIChat(max_tokens_field=provider.max_tokens_field, structured=structured)


def url_of(provider: Provider, call: Call) -> str:
    return provider.base_url.rstrip("/") + call.endpoint


def batchling_key(provider_name: str, provider: Provider, call: Call) -> str:
    """The fingerprint batchling 0.1.0a3 gives a request (``Batcher._build_request_hash``)."""
    url = urlparse(url_of(provider, call))
    model = call.model if provider.fmt == "gemini" else call.body["model"]
    canonical = json.dumps({"provider": provider_name, "endpoint": url.path, "model": model,
                            "host": (url.hostname or "").lower(), "body": json.loads(json.dumps(call.body))},
                           sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode()).hexdigest()


class _Client:
    def __init__(self, client: httpx.AsyncClient, provider: Provider):
        self._client, self._provider = client, provider

    async def send(self, call: Call) -> httpx.Response:
        return await self._client.post(url_of(self._provider, call), json=call.body)


class BatchBackend(HttpBackend):
    name = "batch"

    def target(self, spec: Spec, settings: RequestSettings) -> Target:
        provider = provider_for(spec)
        structured = expect_options(spec.options, BatchOptions, where(spec)).structured_output
        max_tokens, temperature = self.generation(spec)
        return Target(spec.key, spec.provider, spec.name, wire_format(provider, structured),
                      Generation(max_tokens, temperature), batch=True)

    def key_var(self, spec: Spec) -> str | None:
        return expect_options(spec.options, BatchOptions, where(spec)).api_key_env or provider_for(spec).key_var

    def run_options(self, spec: Spec, settings: RequestSettings, ctx: RunContext, n: int) -> RunOptions:
        # Every request must be queued at once for batchling to group them; a failed line is
        # final (status codes are not retried), a failed poll or download is retried.
        return RunOptions(policy(settings, retry_status=frozenset()), concurrency=max(1, n), rpm=None,
                          timeout_s=None, batch=True, retry_exceptions=True)

    @contextlib.asynccontextmanager
    async def transport(self, spec: Spec, target: Target, key: str | None, settings: RequestSettings,
                        ctx: RunContext) -> AsyncIterator[_Client]:
        from sideways.backends.batch_ledger import recorded_batching, report_failed_batches

        provider = provider_for(spec)
        batching, batcher = recorded_batching(settings.cache_dir / BATCHLING_DB, settings)
        try:
            async with batching:
                async with httpx.AsyncClient(headers=target.fmt.headers(key),
                                             timeout=httpx.Timeout(settings.timeout_s)) as client:
                    yield _Client(client, provider)
        finally:
            report_failed_batches(batcher)

    def after_run(self, spec: Spec, results: Sequence[Result], ctx: RunContext) -> None:
        """Release failed result lines from the batch record so the next run submits them again.

        Only lines the provider answered with an error status: a request whose batch could not
        be polled or collected stays recorded, so the next run polls that batch rather than paying again.
        """
        failed = [r.call for r in results if r.error is not None and r.status_code is not None]
        db = ctx.requests.cache_dir / BATCHLING_DB
        if not failed or not db.exists():
            return
        from sideways.backends.batch_ledger import Ledger

        provider = provider_for(spec)
        Ledger(db).release([batchling_key(spec.provider, provider, c) for c in failed])
