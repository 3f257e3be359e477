"""The extract stage as requests: one call per wiki riddle asking a model for the final answer, a
gold justification and the two flags, and the replies parsed into rows. Pure code shared by the
HTTP backends and the dry run, so both see exactly the requests the stage would send.

The wording is ``prompts/extract.md``. The riddle's picture is attached when it has one (the
model judges ``needs_image`` better with it). A reply that states no answer leaves it empty and
the riddle marked for review: the model is asked never to work one out itself.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from typing import Any

import pandas as pd

from sideways.artifacts.schema import records
from sideways.config.prices import PriceTable
from sideways.core.cells import cell_text
from sideways.llm.formats import Generation
from sideways.llm.parsing import load_object
from sideways.llm.prompts import HINT_COLUMNS, HINT_NAMES, Prompt, media_type
from sideways.llm.riddle_requests import Target, _raw, usage
from sideways.llm.runner import Call, Redact, Result

TEMPLATE_FILE = "extract.md"
EXTRACTION_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "answer": {"type": "string", "description": "The final answer the solution states; empty if none."},
        "justification": {"type": "string", "description": "Why the answer is right, from the solution."},
        "needs_game_engine": {"type": "boolean"},
        "needs_image": {"type": "boolean"},
        "review": {"type": "string", "description": "What a person should check; empty if nothing."},
    },
    "required": ["answer", "justification", "needs_game_engine", "needs_image", "review"],
    "additionalProperties": False,
}
ROW_COLUMNS = ("riddle_id", "answer", "justification", "needs_game_engine", "needs_image", "review", "status",
               "error", "raw", "request_hash", "input_tokens", "output_tokens", "cost_usd")


@dataclass(frozen=True)
class ExtractReply:
    """A parsed reply; ``error`` says why there is none."""

    answer: str = ""
    justification: str = ""
    needs_game_engine: bool | None = None
    needs_image: bool | None = None
    review: str | None = None
    error: str | None = None


def load_template() -> str:
    """``prompts/extract.md`` as shipped in the package."""
    return (resources.files("sideways") / "prompts" / TEMPLATE_FILE).read_text(encoding="utf-8")


def extraction_prompt(riddle: Mapping[str, Any], template: str) -> Prompt:
    """The riddle, every hint, the solution text, and the picture when there is one."""
    given = [(name, cell_text(riddle.get(col))) for col, name in zip(HINT_COLUMNS, HINT_NAMES, strict=True)]
    hints = "".join(f"\n- {name}: {text}" for name, text in given if text) or "none"
    category = cell_text(riddle.get("category")) or "unknown"
    text = template.format(title=cell_text(riddle.get("title")), category=category,
                           description=cell_text(riddle.get("description")), hints=hints,
                           solution=cell_text(riddle.get("solution")) or "(none)")
    image = riddle.get("image")
    image = bytes(image) if isinstance(image, (bytes, bytearray, memoryview)) and len(image) else None
    return Prompt(text, image, media_type(image) if image else None)


def extraction_calls(riddles: pd.DataFrame, key: str, target: Target, template: str) -> list[Call]:
    """One call per riddle, in table order."""
    gen = Generation(target.gen.max_tokens, target.gen.temperature, EXTRACTION_SCHEMA, "riddle_extraction")
    return [Call(str(r["riddle_id"]), f"extract/{key}/{r['riddle_id']}", target.provider, target.name,
                 target.fmt.endpoint(target.name), target.fmt.body(target.name, extraction_prompt(r, template), gen))
            for r in records(riddles)]


def parse_extraction(text: str | None, truncated: bool = False) -> ExtractReply:
    """The reply's fields; flags that are not booleans make it an error (never a guess)."""
    obj, why = load_object(text)
    if obj is None or (truncated and why == "repaired"):
        return ExtractReply(error=f"reply truncated at the token limit ({why})" if truncated else why)
    engine, image = obj.get("needs_game_engine"), obj.get("needs_image")
    if not isinstance(engine, bool) or not isinstance(image, bool):
        return ExtractReply(error="reply has no boolean needs_game_engine and needs_image")
    answer = obj.get("answer")
    answer = str(answer) if isinstance(answer, (int, float)) and not isinstance(answer, bool) else answer
    return ExtractReply(cell_text(answer), cell_text(obj.get("justification")), engine, image,
                        cell_text(obj.get("review")) or None)


def extraction_rows(riddles: pd.DataFrame, results: Sequence[Result], target: Target, prices: PriceTable,
                    discount: float, redact: Redact = lambda s: s) -> pd.DataFrame:
    """One row per riddle (results in riddle order): the parsed reply, its status and its cost."""
    rows = []
    for riddle_id, result in zip(riddles["riddle_id"], results, strict=True):
        base = {"riddle_id": str(riddle_id), **usage(result, target, prices, discount)}
        if result.error is not None:
            rows.append({**base, "status": "api_error", "error": result.error})
            continue
        decoded = target.fmt.decode(result.response)
        reply = (parse_extraction(decoded.text, decoded.truncated) if decoded.error is None
                 else ExtractReply(error=decoded.error))
        fields = {k: redact(v) if isinstance(v, str) else v for k, v in reply.__dict__.items() if k != "error"}
        rows.append({**base, **fields, "status": "ok" if reply.error is None else "parse_error",
                     "error": redact(reply.error) if reply.error else None, "raw": _raw(result, decoded.text, redact)})
    return pd.DataFrame(rows, columns=list(ROW_COLUMNS))

