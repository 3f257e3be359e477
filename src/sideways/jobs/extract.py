"""The extract stage's work: the configured extractor over the wiki's riddles, as an EXTRACTED table.

``riddles.extract`` names the extractor: the offline heuristic (default,
:mod:`sideways.sources.extraction`) or a model through the request layer (``batch``,
``openai-compatible``: cached, retried, priced in the dry run) or a file (``replay``). A page's
own answer, when it has one, is kept. A riddle the model could not do (failed request, broken
reply, no answer stated) gets no invented answer: it is marked for review, with why.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import Any, Protocol, cast

import pandas as pd

from sideways.artifacts.schema import records
from sideways.backends.base import RunContext
from sideways.config.params import ModelSpec
from sideways.core.errors import ParamsError
from sideways.sources.extraction import HEURISTIC, Extraction, extracted_table, heuristic, win_line_removed

_EXTRACTORS = {
    "openai-compatible": ("sideways.backends.openai_compatible", "OpenAICompatibleBackend"),
    "batch": ("sideways.backends.batch", "BatchBackend"),
    "replay": ("sideways.backends.replay", "ReplayExtractor"),
}
USAGE = ("request_hash", "input_tokens", "output_tokens", "cost_usd")


class Extractor(Protocol):
    def extract(self, riddles: pd.DataFrame, spec: ModelSpec, ctx: RunContext) -> pd.DataFrame:
        """One row per riddle with the columns of :data:`sideways.llm.extract_requests.ROW_COLUMNS`."""
        ...


def extractor_for(spec: ModelSpec) -> Extractor:
    """The extractor of ``spec.backend`` (its module imported now)."""
    if spec.backend not in _EXTRACTORS:
        raise ParamsError(f"params.yaml: riddles.extract.backend: {spec.backend!r} cannot extract "
                          f"(use heuristic, {', '.join(_EXTRACTORS)})")
    module, cls = _EXTRACTORS[spec.backend]
    return cast(Extractor, getattr(importlib.import_module(module), cls)())


def run_extraction(riddles: pd.DataFrame, spec: ModelSpec | None,
                   ctx: RunContext) -> tuple[pd.DataFrame, pd.DataFrame | None]:
    """The EXTRACTED table, and the model's rows (status, tokens, cost) when a model extracted."""
    if spec is None:
        return extracted_table(riddles, [heuristic(r) for r in records(riddles)], HEURISTIC), None
    rows = extractor_for(spec).extract(riddles, spec, ctx)
    extractions = [from_reply(r, reply) for r, reply in zip(records(riddles), records(rows), strict=True)]
    usage = [{k: reply.get(k) for k in USAGE} for reply in records(rows)]
    return extracted_table(riddles, extractions, spec.name, usage), rows.assign(model=spec.key)


def from_reply(riddle: Mapping[str, Any], reply: Mapping[str, Any]) -> Extraction:
    """A model's reply as an :class:`Extraction`; a failed one keeps the heuristic's flags, no answer
    beyond the page's own, and is marked for review with the error."""
    page_answer = _text(riddle.get("answer"))
    if reply.get("status") != "ok":
        fallback = heuristic({**riddle, "answer": page_answer or None})
        return Extraction(page_answer, win_line_removed(_text(riddle.get("solution"))), fallback.needs_game_engine,
                          fallback.needs_image, True, f"extraction failed: {_text(reply.get('error'))}")
    answer = page_answer or _text(reply.get("answer"))
    engine = bool(reply.get("needs_game_engine"))
    problems = [_text(reply.get("review"))] if _text(reply.get("review")) else []
    if not answer and not engine:
        problems.insert(0, "the model found no answer stated in the solution text")
    review = "; ".join(problems) or None
    return Extraction(answer, _text(reply.get("justification")), engine, bool(reply.get("needs_image")),
                      review is not None, review)


def _text(value: Any) -> str:
    if value is None or (isinstance(value, float) and value != value):
        return ""
    return str(value).strip()
