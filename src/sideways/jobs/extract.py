"""The extract stage's work: the configured extractor over the wiki's riddles, as an EXTRACTED table.

``riddles.extract`` names the extractor: the offline heuristic (default,
:mod:`sideways.sources.extraction`) or a model through the request layer (``batch``,
``openai-compatible``: cached, retried, priced in the dry run) or a file (``replay``). A page's
own answer, when it has one, is kept. A riddle the model could not do (failed request, broken
reply, no answer stated) gets no invented answer: it is marked for review, with why.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd

from sideways.artifacts.schema import records
from sideways.backends import extractor_for
from sideways.backends.base import RunContext
from sideways.config.params import ModelSpec
from sideways.core.cells import cell_text
from sideways.sources.extraction import HEURISTIC, Extraction, extracted_table, heuristic, win_line_removed

USAGE = ("request_hash", "input_tokens", "output_tokens", "cost_usd")


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
    page_answer = cell_text(riddle.get("answer"))
    if reply.get("status") != "ok":
        fallback = heuristic({**riddle, "answer": page_answer or None})
        return Extraction(page_answer, win_line_removed(cell_text(riddle.get("solution"))), fallback.needs_game_engine,
                          fallback.needs_image, True, f"extraction failed: {cell_text(reply.get('error'))}")
    answer = page_answer or cell_text(reply.get("answer"))
    engine = bool(reply.get("needs_game_engine"))
    problems = [cell_text(reply.get("review"))] if cell_text(reply.get("review")) else []
    if not answer and not engine:
        problems.insert(0, "the model found no answer stated in the solution text")
    review = "; ".join(problems) or None
    return Extraction(answer, cell_text(reply.get("justification")), engine, bool(reply.get("needs_image")),
                      review is not None, review)

