"""Requests, batches, tokens and dollars a run would cost, from planned calls. Pure code.

Input tokens are estimated at 4 characters per token plus ``requests.image_tokens`` per
image; output tokens at ``requests.expected_output_tokens`` per request (conservative for
verdicts). Cached requests cost nothing: they will not be sent.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Iterable

from sideways.llm.plan import Planned
from sideways.llm.pricing import PriceTable
from sideways.llm.runner import Call
from sideways.llm.settings import RequestSettings


@dataclass(frozen=True)
class Estimate:
    stage: str
    split: str
    key: str
    provider: str
    backend: str
    requests: int
    cached: int
    to_send: int
    batches: int
    input_tokens: int
    output_tokens: int
    cost_usd: float | None
    exact: bool


def input_tokens(call: Call, image_tokens: int) -> int:
    """A rough count: text characters / 4, plus a flat amount per image."""
    images = sum(1 for s in _strings(call.body) if _is_blob(s))
    text_chars = sum(len(s) for s in _strings(call.body) if not _is_blob(s))
    return math.ceil(text_chars / 4) + images * image_tokens


def _strings(obj) -> Iterable[str]:
    if isinstance(obj, dict):
        for v in obj.values():
            yield from _strings(v)
    elif isinstance(obj, list):
        for v in obj:
            yield from _strings(v)
    elif isinstance(obj, str):
        yield obj


def _is_blob(s: str) -> bool:
    return len(s) > 256 and (s.startswith("data:") or " " not in s[:256])


def estimate(planned: Planned, is_cached: Callable[[str], bool], settings: RequestSettings,
             prices: PriceTable) -> Estimate:
    hit = {c.key: is_cached(c.key) for c in planned.calls}
    misses = [c for c in {c.key: c for c in planned.calls}.values() if not hit[c.key]]
    in_tok = sum(input_tokens(c, settings.image_tokens) for c in misses)
    out_tok = len(misses) * settings.expected_output_tokens
    batch = planned.backend == "batch"
    names = (planned.spec.key, planned.spec.name)
    cost = prices.cost(names, in_tok, out_tok, batch=batch, discount=settings.batch_discount) if misses else 0.0
    return Estimate(planned.stage, planned.split, planned.spec.key, planned.spec.provider, planned.backend,
                    len(planned.calls), sum(hit[c.key] for c in planned.calls), len(misses),
                    math.ceil(len(misses) / settings.batch_size) if batch else 0, in_tok, out_tok, cost, planned.exact)
