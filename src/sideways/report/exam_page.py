"""One exam's page of the report, as plain data: metrics with se, topics, and a question explorer.

A pure function of the exam's tables (:class:`~sideways.report.inputs.ExamTables`): the metrics
and the topic breakdown are the ones ``exams.results`` computed (``metrics/exam.json``), never
recomputed here. The explorer works like the riddle explorer (``explorer.py``): a small index
(one entry per question: search text, one outcome character per model, judges' disagreement)
loaded with the report, and chunks of question details loaded when a card is shown. Inside a
chunk each question's replies are columns (``p``, models in params order) and the short-answer
judges' verdicts too (``k``, in reply order, ``p.kn`` of them per reply).

Outcome characters: ``p`` right (multiple choice) or full points (short answer), ``h`` partial
points, ``f`` wrong or no points, ``i`` "I don't know", ``x`` no letter could be extracted,
``u`` short answer no judge graded, ``e`` the request failed, ``-`` the model has no reply.
"""

from __future__ import annotations

import json
from typing import Any

from sideways.artifacts.schema import records
from sideways.report.inputs import ExamTables

CHUNK = 25
#: Reply columns of a chunk: key in the page -> field of the joined row.
_REPLY = {"m": "model", "t": "text", "l": "letters", "s": "status", "e": "error", "o": "outcome",
          "r": "earned", "kn": "n_verdicts"}
_VERDICT = {"judge": "judge", "st": "strategy", "r": "earned", "s": "status", "x": "raw", "e": "error"}

ExamPage = tuple[dict[str, Any], list[list[dict[str, Any]]]]


def outcome(d: dict[str, Any]) -> str:
    """The outcome character of one EXAM_DETAIL row (see the module's docstring)."""
    if d["status"] == "api_error":
        return "e"
    if d["kind"] == "mcq":
        return "x" if d["extract_fail"] else "i" if d["idk_freq"] else "p" if d["trad"] else "f"
    if not d["judges"]:
        return "u"
    return "p" if d["earned"] >= d["points"] else "h" if d["earned"] > 0 else "f"


def metric_rows(t: ExamTables, models: list[str]) -> list[dict[str, Any]]:
    """One row per model that has metrics, in params order: each metric and its se, the counts."""
    return [{"model": m, **t.metrics[m]} for m in models if m in t.metrics]


def topic_table(t: ExamTables, models: list[str]) -> dict[str, Any]:
    """The topic breakdown as a heat table: topics in the exam's order, one row of cells per model."""
    groups = list(dict.fromkeys(str(x) for x in t.items["topic"]))
    rows = [{"model": m, "cells": [_topic_cell(t.topics[m].get(g)) for g in groups]} for m in models if m in t.topics]
    return {"groups": groups, "rows": rows}


def _topic_cell(c: dict[str, float] | None) -> dict[str, float] | None:
    return None if c is None else {"rate": c["score"], "n": c["possible"], "earned": c["earned"]}


def _grouped(rows: list[dict[str, Any]], order: dict[str, int], *keys: str) -> dict[str, list[dict[str, Any]]]:
    """``rows`` of the models in ``order`` by item, sorted by params order then ``keys``."""
    out: dict[str, list[dict[str, Any]]] = {}
    for r in sorted((r for r in rows if r["model"] in order),
                    key=lambda r: (order[r["model"]], *(str(r[k]) for k in keys))):
        out.setdefault(str(r["item_id"]), []).append(r)
    return out


def _replies(t: ExamTables, order: dict[str, int]) -> tuple[dict[str, list[dict[str, Any]]],
                                                            dict[str, list[dict[str, Any]]]]:
    """Per item: each model's reply joined with its detail row; and the judges' verdicts."""
    text = {(str(p["item_id"]), str(p["model"])): p for p in records(t.predictions)}
    joined = []
    for d in records(t.detail):
        p = text.get((str(d["item_id"]), str(d["model"])), {})
        joined.append(d | {"text": p.get("text"), "error": p.get("error"), "outcome": outcome(d)})
    verdicts = _grouped(records(t.grades), order, "judge", "strategy")
    replies = _grouped(joined, order)
    for item, rows in replies.items():
        for r in rows:
            r["n_verdicts"] = sum(1 for v in verdicts.get(item, []) if v["model"] == r["model"])
    return replies, verdicts


def _columns(rows: list[dict[str, Any]], spec: dict[str, str]) -> dict[str, list[Any]]:
    return {k: [_plain(r.get(c)) for r in rows] for k, c in spec.items()}


def _plain(v: Any) -> Any:
    """A JSON-ready value: None for a missing float (NaN)."""
    return None if isinstance(v, float) and v != v else v


def _question(item: dict[str, Any], replies: list[dict[str, Any]], verdicts: list[dict[str, Any]]) -> dict[str, Any]:
    choices = json.loads(item["choices"]) if isinstance(item["choices"], str) else None
    return {"id": item["item_id"], "kind": item["kind"], "topic": item["topic"], "points": item["points"],
            "question": item["question"], "choices": None if choices is None else sorted(choices.items()),
            "gold": item["gold"], "answer": item["answer"],
            "criteria": json.loads(item["rubric"]) if isinstance(item["rubric"], str) else [],
            "p": _columns(replies, _REPLY), "k": _columns(verdicts, _VERDICT)}


def _index_entry(q: dict[str, Any], i: int, codes: dict[str, str], disagree: dict[str, bool],
                 models: list[str]) -> dict[str, Any]:
    choices = " ".join(text for _, text in q["choices"] or [])
    search = " ".join(str(x) for x in (q["id"], q["topic"], q["question"], choices, q["answer"]))
    return {"id": q["id"], "topic": q["topic"], "kind": q["kind"], "chunk": i // CHUNK, "pos": i % CHUNK,
            "text": search.lower(), "o": "".join(codes.get(m, "-") for m in models),
            "d": "".join("1" if disagree.get(m) else "0" for m in models)}


def _disagree(verdicts: list[dict[str, Any]]) -> dict[str, bool]:
    """Per model: whether its short answer's judges gave different points."""
    earned: dict[str, set[float]] = {}
    for v in verdicts:
        if v["status"] == "ok" and _plain(v["earned"]) is not None:
            earned.setdefault(str(v["model"]), set()).add(float(v["earned"]))
    return {m: len(e) > 1 for m, e in earned.items()}


def exam_page(t: ExamTables, models: list[str]) -> ExamPage:
    """The exam's page data (loaded with the report) and its chunks of question details."""
    order = {m: i for i, m in enumerate(models)}
    replies, verdicts = _replies(t, order)
    items = records(t.items)
    index: list[dict[str, Any]] = []
    chunks: list[list[dict[str, Any]]] = []
    for i, item in enumerate(items):
        item_id = str(item["item_id"])
        q = _question(item, replies.get(item_id, []), verdicts.get(item_id, []))
        if i % CHUNK == 0:
            chunks.append([])
        chunks[-1].append(q)
        codes = {str(r["model"]): str(r["outcome"]) for r in replies.get(item_id, [])}
        index.append(_index_entry(q, i, codes, _disagree(verdicts.get(item_id, [])), models))
    title = str(items[0]["exam"]) if items else t.key
    page = {"key": t.key, "title": title, "metrics": metric_rows(t, models), "topics": topic_table(t, models),
            "index": index, "chunks": len(chunks)}
    return page, chunks
