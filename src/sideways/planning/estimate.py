"""Requests, batches, tokens and dollars a run would cost, from planned calls. Pure code.

Input tokens are estimated at 4 characters per token plus ``requests.image_tokens`` per
image; output tokens at ``requests.expected_output_tokens`` per request (conservative for
verdicts), or the request's own ``max_tokens`` when that is smaller (an l3score judge asks for
one token). Requests in the local request cache, or carried by the stage's previous results
(pulled with ``dvc pull``), cost nothing: they will not be sent.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from sideways.config.prices import PriceTable
from sideways.config.requests import RequestSettings
from sideways.llm.budget import body_size
from sideways.llm.runner import Call
from sideways.planning.plan import Planned


@dataclass(frozen=True)
class Estimate:
    stage: str
    split: str
    key: str
    provider: str
    backend: str
    requests: int
    cached: int
    pulled: int
    to_send: int
    batches: int
    input_tokens: int
    output_tokens: int
    cost_usd: float | None
    exact: bool


def input_tokens(call: Call, image_tokens: int) -> int:
    """A rough count: text characters / 4, plus a flat amount per image."""
    texts, _, images = body_size(call.body)
    return math.ceil(texts / 4) + images * image_tokens


def estimate(planned: Planned, is_cached: Callable[[str], bool], settings: RequestSettings,
             prices: PriceTable, carried: frozenset[str] = frozenset()) -> Estimate:
    """What ``planned`` would cost: ``is_cached`` says what the local request cache holds,
    ``carried`` what the stage's previous results bring (restored before anything is sent)."""
    hit = {c.key: is_cached(c.key) for c in planned.calls}
    pulled = {c.key for c in planned.calls if not hit[c.key] and c.key in carried}
    misses = [c for c in {c.key: c for c in planned.calls}.values() if not hit[c.key] and c.key not in pulled]
    in_tok = sum(input_tokens(c, settings.image_tokens) for c in misses)
    per_request = settings.expected_output_tokens
    if planned.target is not None:
        per_request = min(per_request, planned.target.gen.max_tokens)
    out_tok = len(misses) * per_request
    batch = planned.spec.capabilities.batch
    names = (planned.spec.key, planned.spec.name)
    cost = prices.cost(names, in_tok, out_tok, batch=batch, discount=settings.batch_discount) if misses else 0.0
    return Estimate(planned.stage, planned.split, planned.spec.key, planned.spec.provider, planned.backend,
                    len(planned.calls), sum(hit[c.key] for c in planned.calls),
                    sum(c.key in pulled for c in planned.calls), len(misses),
                    math.ceil(len(misses) / settings.batch_size) if batch else 0, in_tok, out_tok, cost, planned.exact)
