"""Wire formats: how a :class:`~sideways.llm.prompts.Prompt` becomes a request body, and how a
response body gives back text and token counts.

Three formats cover every supported provider: OpenAI chat completions (openai, mistral,
together, groq, doubleword, xai and any OpenAI-compatible server), Anthropic messages, and
Gemini ``generateContent``. Images travel as base64 in each format's own shape. Pure code.
"""

from __future__ import annotations

import base64
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from sideways.config.prices import tokens
from sideways.llm.prompts import Prompt


@dataclass(frozen=True)
class Generation:
    """Generation parameters; they are part of the request body, hence of the cache key."""

    max_tokens: int = 4096
    temperature: float | None = None
    schema: Mapping[str, Any] | None = None
    schema_name: str = "reply"


@dataclass(frozen=True)
class Decoded:
    """What a response says: the reply text, tokens used, and whether the token limit cut it."""

    text: str | None
    input_tokens: int | None
    output_tokens: int | None
    truncated: bool = False
    error: str | None = None


class WireFormat(Protocol):
    @property
    def name(self) -> str: ...  # read-only: the formats are frozen dataclasses

    def endpoint(self, model: str) -> str: ...

    def body(self, model: str, prompt: Prompt, gen: Generation) -> dict[str, Any]: ...

    def headers(self, api_key: str | None) -> dict[str, str]: ...

    def decode(self, response: Any) -> Decoded: ...


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


@dataclass(frozen=True)
class OpenAIChat:
    """``POST {base_url}/chat/completions``; images as ``data:`` URLs in ``image_url`` parts."""

    name: str = "openai-chat"
    max_tokens_field: str = "max_tokens"
    structured: bool = True

    def endpoint(self, model: str) -> str:
        return "/chat/completions"

    def body(self, model: str, prompt: Prompt, gen: Generation) -> dict[str, Any]:
        if prompt.image is None:
            content: Any = prompt.text
        else:
            url = f"data:{prompt.media_type};base64,{_b64(prompt.image)}"
            content = [{"type": "text", "text": prompt.text}, {"type": "image_url", "image_url": {"url": url}}]
        body: dict[str, Any] = {"model": model, "messages": [{"role": "user", "content": content}],
                                self.max_tokens_field: gen.max_tokens}
        if gen.temperature is not None:
            body["temperature"] = gen.temperature
        if gen.schema is not None and self.structured:
            json_schema = {"name": gen.schema_name, "strict": True, "schema": dict(gen.schema)}
            body["response_format"] = {"type": "json_schema", "json_schema": json_schema}
        return body

    def headers(self, api_key: str | None) -> dict[str, str]:
        return {"Authorization": f"Bearer {api_key}"} if api_key else {}

    def decode(self, response: Any) -> Decoded:
        try:
            choice = response["choices"][0]
            message = choice.get("message") or {}
            content = message.get("content")
            if isinstance(content, list):
                content = "".join(p.get("text", "") for p in content if isinstance(p, Mapping))
            if content is None and message.get("refusal"):
                content = None
            usage = response.get("usage") or {}
            error = None if content is not None else f"no content in reply (refusal: {message.get('refusal')!r})"
            return Decoded(content, _int(usage.get("prompt_tokens")), _int(usage.get("completion_tokens")),
                           choice.get("finish_reason") == "length", error)
        except (KeyError, IndexError, TypeError, AttributeError) as exc:
            return Decoded(None, None, None, error=f"unexpected response shape ({type(exc).__name__}: {exc})")


@dataclass(frozen=True)
class AnthropicMessages:
    """``POST {base_url}/v1/messages``; images as base64 ``image`` blocks before the text.

    Structured output is not requested: batchling's Anthropic batches send only model,
    max_tokens and messages (temperature too is dropped there), so the prompt asks for JSON.
    """

    name: str = "anthropic-messages"
    version: str = "2023-06-01"

    def endpoint(self, model: str) -> str:
        return "/v1/messages"

    def body(self, model: str, prompt: Prompt, gen: Generation) -> dict[str, Any]:
        content: list[dict[str, Any]] = []
        if prompt.image is not None:
            content.append({"type": "image", "source": {"type": "base64", "media_type": prompt.media_type,
                                                        "data": _b64(prompt.image)}})
        content.append({"type": "text", "text": prompt.text})
        body: dict[str, Any] = {"model": model, "max_tokens": gen.max_tokens,
                                "messages": [{"role": "user", "content": content}]}
        if gen.temperature is not None:
            body["temperature"] = gen.temperature
        return body

    def headers(self, api_key: str | None) -> dict[str, str]:
        headers = {"anthropic-version": self.version}
        if api_key:
            headers["x-api-key"] = api_key
        return headers

    def decode(self, response: Any) -> Decoded:
        try:
            text = "".join(b.get("text", "") for b in response["content"] if b.get("type") == "text")
            usage = response.get("usage") or {}
            return Decoded(text, _int(usage.get("input_tokens")), _int(usage.get("output_tokens")),
                           response.get("stop_reason") == "max_tokens")
        except (KeyError, TypeError, AttributeError) as exc:
            return Decoded(None, None, None, error=f"unexpected response shape ({type(exc).__name__}: {exc})")


@dataclass(frozen=True)
class GeminiGenerate:
    """``POST {base_url}/v1beta/models/{model}:generateContent``; images as ``inline_data`` parts."""

    name: str = "gemini-generate"
    structured: bool = True

    def endpoint(self, model: str) -> str:
        return f"/v1beta/models/{model}:generateContent"

    def body(self, model: str, prompt: Prompt, gen: Generation) -> dict[str, Any]:
        parts: list[dict[str, Any]] = [{"text": prompt.text}]
        if prompt.image is not None:
            parts.append({"inline_data": {"mime_type": prompt.media_type, "data": _b64(prompt.image)}})
        config: dict[str, Any] = {"maxOutputTokens": gen.max_tokens}
        if gen.temperature is not None:
            config["temperature"] = gen.temperature
        if gen.schema is not None and self.structured:
            config["responseMimeType"] = "application/json"
            config["responseSchema"] = _openapi_subset(gen.schema)
        return {"contents": [{"role": "user", "parts": parts}], "generationConfig": config}

    def headers(self, api_key: str | None) -> dict[str, str]:
        return {"x-goog-api-key": api_key} if api_key else {}

    def decode(self, response: Any) -> Decoded:
        try:
            candidate = response["candidates"][0]
            parts = (candidate.get("content") or {}).get("parts") or []
            text = "".join(p.get("text", "") for p in parts if not p.get("thought"))
            usage = response.get("usageMetadata") or {}
            out = _int(usage.get("candidatesTokenCount"))
            if out is not None:
                out += _int(usage.get("thoughtsTokenCount")) or 0
            truncated = candidate.get("finishReason") == "MAX_TOKENS"
            return Decoded(text, _int(usage.get("promptTokenCount")), out, truncated)
        except (KeyError, IndexError, TypeError, AttributeError) as exc:
            return Decoded(None, None, None, error=f"unexpected response shape ({type(exc).__name__}: {exc})")


def _openapi_subset(schema: Mapping[str, Any]) -> dict[str, Any]:
    """Gemini's ``responseSchema`` accepts no ``additionalProperties``."""
    out = {k: v for k, v in schema.items() if k != "additionalProperties"}
    if "properties" in out:
        out["properties"] = {k: _openapi_subset(v) for k, v in out["properties"].items()}
    return out


def _int(value: Any) -> int | None:
    """A usage count, or None (unknown, charged its worst case) when it is not a sane one."""
    return tokens(value)
