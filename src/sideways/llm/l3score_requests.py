"""L3Score judging as requests: (question, candidate, reference) items become calls asking for
top-5 log-probabilities, and results become scores, verdicts and JUDGMENTS rows.

General over the item, so it grades a riddle's answer (question: the riddle, reference: its
gold answer), a short answer, or the lines of ``sideways l3score`` alike. Pure code, like
:mod:`sideways.llm.riddle_requests`, which it shares the row layout and usage columns with.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from sideways.artifacts.rows import Usage
from sideways.artifacts.schema import Status, records
from sideways.config.params import JudgeSpec
from sideways.config.prices import PriceTable
from sideways.llm.formats import Generation
from sideways.llm.l3score import TOP_N, LogprobError, l3score, top_logprobs
from sideways.llm.prompts import Templates, l3score_prompt
from sideways.llm.riddle_requests import RAW_LIMIT, Target, gradable, judgment_rows, usage
from sideways.llm.runner import Call, Redact, Result

#: What an l3score request adds to a chat completions body (as SPIQA's reference sends it).
LOGPROB_FIELDS: dict[str, Any] = {"logprobs": True, "top_logprobs": TOP_N}


@dataclass(frozen=True)
class L3Item:
    """One thing to grade: ``item`` names it (a riddle id, a line number)."""

    item: str
    question: str
    candidate: str
    reference: str


@dataclass(frozen=True)
class L3Outcome:
    """How grading one item ended: its score, or why there is none."""

    score: float | None
    status: Status
    error: str | None
    raw: str | None
    usage: Usage
    cached: bool = False


def l3_calls(items: Sequence[L3Item], judge: JudgeSpec, target: Target, templates: Templates,
             label: str = "l3score") -> list[Call]:
    """One call per item, in order: the L3Score prompt, no response schema, top-5 logprobs."""
    gen = Generation(target.gen.max_tokens, target.gen.temperature)
    calls = []
    for it in items:
        prompt = l3score_prompt(it.question, it.reference, it.candidate, templates)
        body = {**target.fmt.body(target.name, prompt, gen), **LOGPROB_FIELDS}
        calls.append(Call(it.item, f"{label}/{judge.key}/{it.item}", target.provider, target.name,
                          target.fmt.endpoint(target.name), body))
    return calls


def l3_outcome(result: Result, target: Target, prices: PriceTable, discount: float,
               redact: Redact = lambda s: s) -> L3Outcome:
    """The L3Score of one result (:func:`sideways.llm.l3score.l3score`), or its failure."""
    used = usage(result, target, prices, discount)
    if result.error is not None:
        return L3Outcome(None, "api_error", result.error, None, used, result.cached)
    text = target.fmt.decode(result.response).text
    try:
        top = top_logprobs(result.response)
    except LogprobError as exc:
        raw = redact(json.dumps(result.response, ensure_ascii=False)[:RAW_LIMIT])
        return L3Outcome(None, "parse_error", f"judge {target.key}: {exc}", raw, used, result.cached)
    raw = redact(json.dumps({"content": text, "top_logprobs": top}, ensure_ascii=False)[:RAW_LIMIT])
    return L3Outcome(l3score(top), "ok", None, raw, used, result.cached)


def riddle_items(riddles: pd.DataFrame, predictions: pd.DataFrame) -> list[L3Item]:
    """One item per gradable prediction, in table order: the riddle, its gold answer, the answer given."""
    by_id = {str(r["riddle_id"]): r for r in records(riddles)}
    items = []
    for pred in records(predictions):
        if gradable(pred):
            riddle = by_id[str(pred["riddle_id"])]
            items.append(L3Item(str(pred["riddle_id"]), str(riddle["description"]), str(pred.get("answer") or ""),
                                str(riddle["answer"])))
    return items


def l3_judgment_calls(riddles: pd.DataFrame, predictions: pd.DataFrame, judge: JudgeSpec, target: Target,
                      templates: Templates) -> list[Call]:
    """The calls of an l3score judge on a model's predictions (labels as the verdict judge's)."""
    models = {str(r["riddle_id"]): str(r["model"]) for r in records(predictions)}
    items = riddle_items(riddles, predictions)
    return [Call(c.item, f"judge/{judge.key}/{models[c.item]}/{c.item}", c.provider, c.model, c.endpoint, c.body)
            for c in l3_calls(items, judge, target, templates)]


def l3_judgment_rows(predictions: pd.DataFrame, results: Sequence[Result], judge: JudgeSpec, target: Target,
                     prices: PriceTable, discount: float, redact: Redact = lambda s: s) -> pd.DataFrame:
    """One JUDGMENTS row per prediction: the score, and the answer verdict ``score >= judge.threshold``.

    An L3Score judge grades the answer only: its justification and both-correct verdicts are
    null, so the jury counts it for ``answer_correct`` alone (docs/method.md §7).
    """

    def grade(row: Callable[..., dict[str, Any]], result: Result) -> dict[str, Any]:
        out = l3_outcome(result, target, prices, discount, redact)
        verdict = None if out.score is None else bool(out.score >= judge.threshold)
        return row(is_answer_correct=verdict, is_justification_correct=None, both_correct=None, score=out.score,
                   status=out.status, error=out.error, raw=out.raw)

    table = judgment_rows(predictions, results, judge, target, prices, discount, redact, grade)
    table["is_justification_correct"] = None
    table["both_correct"] = None
    return table
