"""Turning a model's text into an answer or a verdict, without ever crashing.

Providers that support it are asked for structured output with the JSON schemas below. The
reply is still parsed tolerantly: code fences and surrounding prose are stripped, broken JSON
is repaired with ``json_repair``, and anything that still does not hold the expected fields
becomes ``status=parse_error`` with the raw text kept for inspection.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

import json_repair

PREDICTION_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "answer": {"type": "string", "description": "The short final answer."},
        "justification": {"type": "string", "description": "The reasoning that leads to the answer."},
    },
    "required": ["answer", "justification"],
    "additionalProperties": False,
}

VERDICT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "is_answer_correct": {"type": "boolean"},
        "is_justification_correct": {"type": "boolean"},
    },
    "required": ["is_answer_correct", "is_justification_correct"],
    "additionalProperties": False,
}

_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.S | re.I)
_TRUE = {"true", "yes", "correct", "1"}
_FALSE = {"false", "no", "incorrect", "0"}


@dataclass(frozen=True)
class Prediction:
    answer: str | None
    justification: str | None
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None


@dataclass(frozen=True)
class Verdict:
    is_answer_correct: bool | None
    is_justification_correct: bool | None
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None


def load_object(text: str | None) -> tuple[dict[str, Any] | None, str | None]:
    """The JSON object in ``text`` (strict, then fenced, then the outermost braces, then repaired).

    Returns ``(object, None)``, or ``(None, why)``; a repaired object comes with why=``"repaired"``.
    """
    if text is None or not text.strip():
        return None, "empty reply"
    candidates = [text.strip()]
    candidates += [m.strip() for m in _FENCE.findall(text)]
    start, end = text.find("{"), text.rfind("}")
    if start != -1 and end > start:
        candidates.append(text[start : end + 1])
    for candidate in candidates:
        try:
            obj = json.loads(candidate)
        except ValueError:
            continue
        if isinstance(obj, dict):
            return obj, None
    for candidate in candidates:
        if "{" not in candidate:
            continue
        try:
            obj = json_repair.loads(candidate[candidate.find("{") :])
        except Exception:  # json_repair raises assorted errors on hostile input
            continue
        if isinstance(obj, dict) and obj:
            return obj, "repaired"
    return None, "no JSON object found in the reply"


def parse_prediction(text: str | None, truncated: bool = False) -> Prediction:
    """``answer`` and ``justification`` from a model reply; an error message instead of raising.

    A reply cut off by the token limit (``truncated``) is accepted only if it is valid JSON
    as is: a repaired half-reply is a parse error, not a guess.
    """
    obj, error = load_object(text)
    if obj is None or (truncated and error == "repaired"):
        return Prediction(None, None, _why(error, truncated))
    return prediction_from(obj)


def prediction_from(obj: dict[str, Any]) -> Prediction:
    """The fields of a reply object: ``answer`` a non-empty string or a number (its decimal text),
    ``justification`` a string, or any other JSON value as its JSON text. A replayed row is read
    by the same rule (:mod:`sideways.backends.replay`)."""
    answer, justification = obj.get("answer"), obj.get("justification")
    if isinstance(answer, (int, float)) and not isinstance(answer, bool):
        answer = str(answer)
    if not isinstance(answer, str) or not answer.strip():
        return Prediction(None, _text(justification), "reply has no non-empty string 'answer'")
    if justification is not None and not isinstance(justification, str):
        justification = json.dumps(justification, ensure_ascii=False)
    return Prediction(answer.strip(), (justification or "").strip() or None)


def parse_verdict(text: str | None, truncated: bool = False) -> Verdict:
    """The two booleans of a judge reply; an error message instead of raising."""
    obj, error = load_object(text)
    if obj is None or (truncated and error == "repaired"):
        return Verdict(None, None, _why(error, truncated))
    return verdict_from(obj)


def verdict_from(obj: dict[str, Any]) -> Verdict:
    """The two booleans of a verdict object, each a JSON boolean, the number 0 or 1, or one of the
    words true, false, yes, no, correct, incorrect, "1", "0" (any case); anything else is no verdict.
    A replayed verdict is read by the same rule."""
    a, aerr = _bool(obj.get("is_answer_correct"))
    j, jerr = _bool(obj.get("is_justification_correct"))
    if aerr or jerr:
        missing = [n for n, e in (("is_answer_correct", aerr), ("is_justification_correct", jerr)) if e]
        return Verdict(a, j, f"reply has no boolean {' or '.join(missing)}")
    return Verdict(a, j)


def _why(error: str | None, truncated: bool) -> str:
    if truncated:
        return f"reply truncated at the token limit ({'incomplete JSON' if error == 'repaired' else error})"
    return error or "unparseable reply"


def _bool(value: Any) -> tuple[bool | None, bool]:
    if isinstance(value, bool):
        return value, False
    if isinstance(value, (int, float)) and value in (0, 1):
        return value == 1, False
    if isinstance(value, str) and value.strip().lower() in _TRUE | _FALSE:
        return value.strip().lower() in _TRUE, False
    return None, True


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None
