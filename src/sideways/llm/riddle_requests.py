"""Predict and judge as requests: build the :class:`~sideways.llm.runner.Call` list for a
model or a judge, and turn :class:`~sideways.llm.runner.Result` lists into schema rows.

Pure code shared by the HTTP backends, the dry run and ``sideways cache why``: they all see
exactly the requests a stage would send.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any, overload

import pandas as pd

from sideways.artifacts.rows import Usage, judgment_row, prediction_row
from sideways.artifacts.schema import JUDGMENTS, PREDICTIONS, records
from sideways.config.params import JudgeSpec, ModelSpec
from sideways.config.prices import PriceTable
from sideways.llm.formats import Generation, WireFormat
from sideways.llm.parsing import PREDICTION_SCHEMA, VERDICT_SCHEMA, parse_prediction, parse_verdict
from sideways.llm.prompts import Prompt, Templates, judge_prompt, prediction_prompt
from sideways.llm.runner import Account, Call, Redact, Result

RAW_LIMIT = 20_000


@dataclass(frozen=True)
class Target:
    """Where a model or judge is reached and how it is asked (resolved from its params entry)."""

    key: str
    provider: str
    name: str
    fmt: WireFormat
    gen: Generation
    batch: bool

    @property
    def price_names(self) -> tuple[str, str]:
        return (self.key, self.name)


class LazyCalls(Sequence[Call]):
    """Calls built when first read, then kept: a stage's requests start before all are built.

    The runner reads them in order as slots free up, so building 1,000 prompts overlaps the
    first requests instead of delaying them; the dry run reads them all, the same ones.
    """

    def __init__(self, count: int, build: Callable[[int], Call]):
        self._build = build
        self._built: list[Call | None] = [None] * count

    def __len__(self) -> int:
        return len(self._built)

    @overload
    def __getitem__(self, index: int) -> Call: ...
    @overload
    def __getitem__(self, index: slice) -> list[Call]: ...
    def __getitem__(self, index: int | slice) -> Call | list[Call]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        i = range(len(self))[index]  # IndexError past the end, negative indices counted back
        call = self._built[i]
        if call is None:
            call = self._built[i] = self._build(i)
        return call

    def __iter__(self) -> Iterator[Call]:
        return (self[i] for i in range(len(self)))


def prediction_calls(riddles: pd.DataFrame, model: ModelSpec, target: Target, templates: Templates) -> LazyCalls:
    """One call per riddle, in table order, each built when first read."""
    gen = Generation(target.gen.max_tokens, target.gen.temperature, PREDICTION_SCHEMA, "riddle_answer")
    rows = records(riddles)
    endpoint = target.fmt.endpoint(target.name)

    def build(i: int) -> Call:
        riddle = rows[i]
        prompt = prediction_prompt(riddle, model.n_hints, templates)
        return Call(str(riddle["riddle_id"]), f"predict/{model.key}/{riddle['riddle_id']}", target.provider,
                    target.name, endpoint, target.fmt.body(target.name, prompt, gen))

    return LazyCalls(len(rows), build)


def text_calls(requests: Sequence[tuple[str, str, Prompt]], target: Target) -> list[Call]:
    """One free-text call per ``(item, label, prompt)`` (exam questions and verdicts: no JSON schema)."""
    gen = Generation(target.gen.max_tokens, target.gen.temperature)
    return [Call(item, label, target.provider, target.name, target.fmt.endpoint(target.name),
                 target.fmt.body(target.name, prompt, gen)) for item, label, prompt in requests]


def latency(result: Result) -> float | None:
    """Seconds the answer took when it was first sent, as its cache record keeps it (so a cache hit
    reports the same latency as the run that paid for it)."""
    value = result.record.get("elapsed_s") if result.record else None
    if isinstance(value, (int, float)):
        return round(float(value), 3)
    return round(result.elapsed_s, 3) if result.error is None and not result.cached else None


def gradable(prediction: Mapping[str, Any]) -> bool:
    """Only predictions with status ok are sent to a judge (see :func:`judgment_rows`)."""
    return prediction.get("status") == "ok"


def judgment_calls(
    riddles: pd.DataFrame, predictions: pd.DataFrame, judge: JudgeSpec, target: Target, templates: Templates
) -> list[Call]:
    """One call per gradable prediction, in table order."""
    gen = Generation(target.gen.max_tokens, target.gen.temperature, VERDICT_SCHEMA, "verdict")
    by_id = {str(r["riddle_id"]): r for r in records(riddles)}
    calls = []
    for pred in records(predictions):
        if not gradable(pred):
            continue
        riddle = by_id[str(pred["riddle_id"])]
        prompt = judge_prompt(riddle, pred, templates)
        calls.append(Call(str(pred["riddle_id"]), f"judge/{judge.key}/{pred['model']}/{pred['riddle_id']}",
                          target.provider, target.name, target.fmt.endpoint(target.name),
                          target.fmt.body(target.name, prompt, gen)))
    return calls


def usage(result: Result, target: Target, prices: PriceTable, discount: float) -> Usage:
    """The usage columns of the row a result stands for: its cache key, tokens and USD."""
    decoded = target.fmt.decode(result.response) if result.error is None else None
    in_tok = decoded.input_tokens if decoded else None
    out_tok = decoded.output_tokens if decoded else None
    batch = bool(result.record.get("batch")) if result.record else target.batch
    return {
        "request_hash": result.key,
        "input_tokens": in_tok,
        "output_tokens": out_tok,
        "cost_usd": prices.cost(target.price_names, in_tok, out_tok, batch=batch, discount=discount),
    }


def account(target: Target, prices: PriceTable, discount: float) -> Account:
    """The runner's accounting callback: (input tokens, output tokens, USD) of a response."""

    def _account(response: Any) -> tuple[int | None, int | None, float | None]:
        d = target.fmt.decode(response)
        return d.input_tokens, d.output_tokens, prices.cost(target.price_names, d.input_tokens, d.output_tokens,
                                                            batch=target.batch, discount=discount)

    return _account


def _raw(result: Result, text: str | None, redact: Redact) -> str | None:
    if text is not None:
        return redact(text[:RAW_LIMIT])
    if result.response is not None:
        return redact(json.dumps(result.response, ensure_ascii=False)[:RAW_LIMIT])
    return None


def prediction_parts(
    result: Result, target: Target, prices: PriceTable, discount: float, redact: Redact = lambda s: s,
) -> dict[str, Any]:
    """The columns of a PREDICTIONS row that come from its request: usage, answer, status.

    The same for every call with the result's key, so a backend computes them once per
    answer, as it arrives (``run_calls``'s ``on_fresh``), and :func:`prediction_rows` reuses them.
    """
    spent = usage(result, target, prices, discount)
    if result.error is not None:
        return {**spent, "answer": None, "justification": None, "raw": None, "status": "api_error",
                "error": result.error}
    decoded = target.fmt.decode(result.response)
    if decoded.error is not None:
        return {**spent, "answer": None, "justification": None, "raw": _raw(result, None, redact),
                "status": "parse_error", "error": redact(decoded.error)}
    parsed = parse_prediction(decoded.text, decoded.truncated)
    return {**spent, "answer": redact(parsed.answer), "justification": redact(parsed.justification),
            "raw": _raw(result, decoded.text, redact), "status": "ok" if parsed.ok else "parse_error",
            "error": redact(parsed.error)}


def prediction_rows(
    riddles: pd.DataFrame, results: Sequence[Result], model: ModelSpec, target: Target,
    prices: PriceTable, discount: float, redact: Redact = lambda s: s,
    parts: Mapping[str, dict[str, Any]] | None = None,
) -> pd.DataFrame:
    """One PREDICTIONS row per riddle (results must be in riddle order).

    ``parts`` holds :func:`prediction_parts` already computed, by request key; the others are
    computed here.
    """
    known = parts or {}
    rows = []
    for riddle_id, result in zip(riddles["riddle_id"].tolist(), results, strict=True):
        found = known.get(result.key)
        row_parts = found if found is not None else prediction_parts(result, target, prices, discount, redact)
        rows.append(prediction_row(riddle_id=str(riddle_id), model=model.key, provider=model.provider,
                                   model_name=model.name, n_hints=model.n_hints, **row_parts))
    return pd.DataFrame(rows, columns=PREDICTIONS.names)


#: Builds a judged row from ``row`` (the row constructor with the identity and usage columns
#: filled in) and the judge's result; the JSON verdict (``_graded``) by default.
Grade = Callable[[Callable[..., dict[str, Any]], Result], dict[str, Any]]


def judgment_rows(
    predictions: pd.DataFrame, results: Sequence[Result], judge: JudgeSpec, target: Target,
    prices: PriceTable, discount: float, redact: Redact = lambda s: s, grade: Grade | None = None,
) -> pd.DataFrame:
    """One JUDGMENTS row per prediction; ``grade`` reads a reply (default: the JSON verdict).

    A prediction that could not be parsed is graded wrong on both fields without a request (its
    answer is unusable: the model failed the riddle). A prediction with ``api_error`` is not
    graded: its row has null verdicts and ``status=api_error`` naming the cause, so nothing is
    dropped and the jury can tell a failed request from a wrong answer.
    """
    if grade is None:
        grade = partial(_graded, target=target, redact=redact)
    results_iter = iter(results)
    rows = []
    for pred in records(predictions):
        row = partial(judgment_row, riddle_id=str(pred["riddle_id"]), model=str(pred["model"]), judge=judge.key,
                      judge_provider=judge.provider)
        if not gradable(pred):
            rows.append(_ungraded(row, pred))
            continue
        result = next(results_iter)
        rows.append(grade(partial(row, **usage(result, target, prices, discount)), result))
    if next(results_iter, None) is not None:
        raise ValueError("judgment_rows: more results than gradable predictions")
    return pd.DataFrame(rows, columns=JUDGMENTS.names)


def _ungraded(row: Callable[..., dict[str, Any]], pred: Mapping[str, Any]) -> dict[str, Any]:
    """The row of a prediction no judge is asked about: wrong if unparseable, else not graded."""
    if pred.get("status") == "parse_error":
        return row(is_answer_correct=False, is_justification_correct=False, both_correct=False, status="ok",
                   error="prediction unparseable: graded wrong without a request", raw=None)
    return row(is_answer_correct=None, is_justification_correct=None, both_correct=None, status="api_error",
               error=f"not graded: the prediction has status {pred.get('status')}", raw=None)


def _graded(
    row: Callable[..., dict[str, Any]], result: Result, target: Target, redact: Redact
) -> dict[str, Any]:
    """The row of a judge's reply: its verdict, or why there is none."""
    if result.error is not None:
        return row(is_answer_correct=None, is_justification_correct=None, both_correct=None, status="api_error",
                   error=result.error, raw=None)
    decoded = target.fmt.decode(result.response)
    verdict = parse_verdict(decoded.text, decoded.truncated) if decoded.error is None else None
    if verdict is None or not verdict.ok:
        return row(is_answer_correct=None, is_justification_correct=None, both_correct=None,
                   status="parse_error", error=redact(decoded.error if verdict is None else verdict.error),
                   raw=_raw(result, decoded.text, redact))
    return row(is_answer_correct=verdict.is_answer_correct, is_justification_correct=verdict.is_justification_correct,
               both_correct=bool(verdict.is_answer_correct and verdict.is_justification_correct), status="ok",
               error=None, raw=_raw(result, decoded.text, redact))
