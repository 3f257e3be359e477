"""Getting a text per item from a model or judge: simulated, replayed, or through the request layer.

Whatever the backend, each item ends as an :class:`Asked`: the reply text, a status (``ok``,
``api_error`` when the request failed, ``parse_error`` when the response held no text), the
latency of the original request and its usage. HTTP backends go through
:meth:`~sideways.backends.base.RequestSender.exchange`: the request cache, retries, pricing
and key redaction are the riddles' own.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

from sideways.artifacts.rows import Usage
from sideways.backends import as_sender
from sideways.backends.base import RunContext, Spec
from sideways.core.errors import ParamsError
from sideways.llm.prompts import Prompt
from sideways.llm.riddle_requests import latency, usage

NO_USAGE: Usage = {"request_hash": None, "input_tokens": None, "output_tokens": None, "cost_usd": None}


@dataclass(frozen=True)
class Asked:
    text: str | None
    status: str
    error: str | None
    latency_s: float | None
    usage: Usage


def given(text: str, origin: str) -> Asked:
    """A text that cost nothing (simulated or replayed); ``request_hash`` is its digest."""
    digest = hashlib.sha256(f"{origin}\x1f{text}".encode()).hexdigest()
    return Asked(text, "ok", None, None, {**NO_USAGE, "request_hash": digest})


def ask(backend: object, spec: Spec, requests: Sequence[tuple[str, str, Prompt]], ctx: RunContext,
        desc: str) -> list[Asked]:
    """Send ``(item, label, prompt)`` requests through ``backend`` (one that sends requests, by the
    backend table); one Asked per request."""
    sender = as_sender(backend, spec.backend)
    if sender is None:
        raise ParamsError(f"{desc}: backend {spec.backend!r} sends no requests, so it cannot be asked exam questions")
    if not requests:
        return []
    target, results, redact = sender.exchange(spec, requests, ctx, desc)
    out = []
    for r in results:
        use = usage(r, target, ctx.prices, ctx.requests.batch_discount)
        if r.error is not None:
            out.append(Asked(None, "api_error", redact(r.error), None, use))
            continue
        decoded = target.fmt.decode(r.response)
        if decoded.error is not None or decoded.text is None:
            out.append(Asked(None, "parse_error", redact(decoded.error or "no text in the response"),
                             latency(r), use))
            continue
        out.append(Asked(redact(decoded.text), "ok", None, latency(r), use))
    return out
