"""exam_judge: a model's short answers graded by judges against the rubric (EXAM_GRADES rows).

The judges are the first ``exam.judges`` of ``jury.pool`` whose provider is not the model's
(the provider rule). Each verdict is parsed as ``SCORE: x/points``
(:mod:`~sideways.exams.short_answer.verdict`); a verdict that cannot be parsed is a
``parse_error`` row, never a silent zero. An answer whose request failed is not graded
(``api_error``); an answer with no text earns 0 without a request.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from sideways.artifacts.schema import EXAM_GRADES, records, records_by
from sideways.backends import judge_for
from sideways.backends.base import RunContext
from sideways.config.exam import ExamSpec
from sideways.config.params import JudgeSpec, ModelSpec, Params
from sideways.exams.asking import NO_USAGE, Asked, ask, given
from sideways.exams.kinds import NEEDS_JUDGE
from sideways.exams.replay import replayed_verdicts
from sideways.exams.short_answer.prompts import criteria, judge_prompt
from sideways.exams.short_answer.sim import sim_verdict
from sideways.exams.short_answer.verdict import parse_verdict
from sideways.llm.prompts import Prompt


def exam_panel(params: Params, exam: ExamSpec, model: ModelSpec) -> tuple[JudgeSpec, ...]:
    """The judges of ``model``'s short answers on ``exam``: its first ``judges`` of the pool, none of
    the model's own provider."""
    return params.jury.first_judges(model.provider, exam.judges)


def exam_grades(items: pd.DataFrame, predictions: pd.DataFrame, model: ModelSpec, judge: JudgeSpec,
                strategy: str, ctx: RunContext, exam: str = "") -> pd.DataFrame:
    """One EXAM_GRADES row per short answer of ``predictions`` (one model's), graded by ``judge``."""
    by_id = records_by(items, "item_id")
    answers = [p for p in records(predictions) if p["kind"] in NEEDS_JUDGE]
    todo = [p for p in answers if p["status"] == "ok"]
    asked = iter(_verdicts(by_id, todo, model, judge, strategy, ctx, exam))
    rows = []
    for p in answers:
        item = {"item_id": p["item_id"], **by_id[str(p["item_id"])]}
        base = {"item_id": p["item_id"], "model": model.key, "judge": judge.key, "judge_provider": judge.provider,
                "strategy": strategy, "points": float(item["points"])}
        rows.append(base | (_graded(item, next(asked), strategy) if p["status"] == "ok" else _ungraded(p)))
    return pd.DataFrame(rows, columns=EXAM_GRADES.names)


def _verdicts(by_id: dict[str, dict[str, Any]], todo: list[dict[str, Any]], model: ModelSpec, judge: JudgeSpec,
              strategy: str, ctx: RunContext, exam: str) -> list[Asked]:
    items = [{"item_id": p["item_id"], **by_id[str(p["item_id"])]} for p in todo]
    if judge.capabilities.simulated:
        return [given(sim_verdict(i, model.key, str(p["text"]), judge, strategy, ctx.seed),
                      f"sim/{judge.key}/{strategy}/{model.key}/{i['item_id']}")
                for i, p in zip(items, todo, strict=True)]
    if judge.capabilities.replays:
        texts = replayed_verdicts([str(i["item_id"]) for i in items], exam, model, judge)
        return [given(texts[str(i["item_id"])], f"replay/{judge.key}/{model.key}/{i['item_id']}") for i in items]
    requests = _requests(items, todo, model, judge, strategy)
    return ask(judge_for(judge), judge, requests, ctx, f"exam_judge {judge.key} on {model.key}")


def _requests(items: list[dict[str, Any]], todo: list[dict[str, Any]], model: ModelSpec, judge: JudgeSpec,
              strategy: str) -> list[tuple[str, str, Prompt]]:
    return [(str(i["item_id"]), f"exam_judge/{judge.key}/{strategy}/{model.key}/{i['item_id']}",
             judge_prompt(i, str(p["text"]), strategy)) for i, p in zip(items, todo, strict=True)]


def grade_requests(items: pd.DataFrame, predictions: pd.DataFrame, model: ModelSpec, judge: JudgeSpec,
                   strategy: str) -> list[tuple[str, str, Prompt]]:
    """``(item, label, prompt)`` per gradable short answer: what :func:`exam_grades` sends to an HTTP judge."""
    by_id = records_by(items, "item_id")
    todo = [p for p in records(predictions) if p["kind"] in NEEDS_JUDGE and p["status"] == "ok"]
    return _requests([{"item_id": p["item_id"], **by_id[str(p["item_id"])]} for p in todo], todo, model, judge,
                     strategy)


def _graded(item: dict[str, Any], a: Asked, strategy: str) -> dict[str, Any]:
    common = {"raw": a.text, "latency_s": a.latency_s, **a.usage}
    if a.status != "ok":
        return {**common, "earned": None, "status": a.status, "error": a.error}
    v = parse_verdict(a.text, float(item["points"]), len(criteria(item)), strategy)
    return {**common, "earned": v.earned, "status": "ok" if v.ok else "parse_error", "error": v.error}


def _ungraded(p: dict[str, Any]) -> dict[str, Any]:
    if p["status"] == "parse_error":
        return {**NO_USAGE, "earned": 0.0, "status": "ok", "raw": None, "latency_s": None,
                "error": "the answer has no text: 0 points without a request"}
    return {**NO_USAGE, "earned": None, "status": "api_error", "raw": None, "latency_s": None,
            "error": f"not graded: the answer has status {p['status']}"}
