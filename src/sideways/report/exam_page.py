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
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from sideways.artifacts.schema import _python_values, records
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


#: The detail columns :func:`outcome` reads.
_OUTCOME = ("status", "kind", "extract_fail", "idk_freq", "trad", "judges", "earned", "points")


@dataclass(frozen=True)
class Replies:
    """Every model's replies as columns (the fields of :data:`_REPLY`), sorted by item then params
    order; ``rows[item]`` is the item's slice. Columns, not one dict per reply: at 200 models and
    14,042 questions a dict per reply held several gigabytes."""

    columns: dict[str, list[Any]]
    rows: dict[str, slice]

    def of(self, item: str, spec: dict[str, str]) -> dict[str, list[Any]]:
        """The item's replies as the page's columns (``spec``: key in the page -> field), sliced
        from the columns, never a dict per reply: 2.8 million of them at 200 models x 14,042 questions."""
        at = self.rows.get(item, slice(0, 0))
        return {k: [_plain(v) for v in self.columns[c][at]] for k, c in spec.items()}


def _replies(t: ExamTables, order: dict[str, int]) -> tuple[Replies, dict[str, list[dict[str, Any]]]]:
    """Per item: each model's reply joined with its detail row; and the judges' verdicts."""
    detail = t.detail[t.detail["model"].isin(list(order))]
    item = detail["item_id"].astype(str).to_numpy()
    model = detail["model"].astype(str).to_numpy()
    text = pd.DataFrame({"item": t.predictions["item_id"].astype(str), "model": t.predictions["model"].astype(str),
                         "text": t.predictions["text"], "error": t.predictions["error"]})
    text = text.drop_duplicates(["item", "model"], keep="last")
    joined = pd.DataFrame({"item": item, "model": model}).merge(text, on=["item", "model"], how="left")
    values = {c: _python_values(detail[c]) for c in _OUTCOME}
    outcomes = [outcome(dict(zip(_OUTCOME, row, strict=True))) for row in zip(*values.values(), strict=True)]
    del values
    verdicts = _grouped(records(t.grades), order, "judge", "strategy")
    counts = Counter((str(v["item_id"]), str(v["model"])) for vs in verdicts.values() for v in vs)
    codes, uniques = pd.factorize(item)
    sort = np.lexsort((np.array([order[m] for m in model], dtype=np.int64), codes)).tolist()
    make: dict[str, Callable[[], list[Any]]] = {
        "model": lambda: _python_values(detail["model"]), "text": lambda: _missing(joined["text"]),
        "letters": lambda: _python_values(detail["letters"]), "status": lambda: _python_values(detail["status"]),
        "error": lambda: _missing(joined["error"]), "outcome": lambda: outcomes,
        "earned": lambda: _python_values(detail["earned"]),
        "n_verdicts": lambda: [counts.get(k, 0) for k in zip(item.tolist(), model.tolist(), strict=True)]}
    columns: dict[str, list[Any]] = {}
    for name, column in make.items():  # one column at a time in both orders, not all of them
        made = column()
        columns[name] = [made[i] for i in sort]
        del made
    cuts = np.flatnonzero(np.diff(codes[sort])) + 1
    edges = [0, *cuts.tolist(), len(sort)]
    rows = {str(uniques[codes[sort[a]]]): slice(a, b) for a, b in zip(edges[:-1], edges[1:], strict=True) if b > a}
    return Replies(columns, rows), verdicts


def _missing(column: pd.Series) -> list[Any]:
    """A joined column as Python values, a reply with no prediction row as None (``dict.get``)."""
    return [None if v is None or (isinstance(v, float) and v != v) else v for v in _python_values(column)]


def _columns(rows: list[dict[str, Any]], spec: dict[str, str]) -> dict[str, list[Any]]:
    return {k: [_plain(r.get(c)) for r in rows] for k, c in spec.items()}


def _plain(v: Any) -> Any:
    """A JSON-ready value: None for a missing float (NaN)."""
    return None if isinstance(v, float) and v != v else v


def _question(item: dict[str, Any], replies: dict[str, list[Any]], verdicts: list[dict[str, Any]]) -> dict[str, Any]:
    choices = json.loads(item["choices"]) if isinstance(item["choices"], str) else None
    return {"id": item["item_id"], "kind": item["kind"], "topic": item["topic"], "points": item["points"],
            "question": item["question"], "choices": None if choices is None else sorted(choices.items()),
            "gold": item["gold"], "answer": item["answer"],
            "criteria": json.loads(item["rubric"]) if isinstance(item["rubric"], str) else [],
            "p": replies, "k": _columns(verdicts, _VERDICT)}


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
        columns = replies.of(item_id, _REPLY)
        q = _question(item, columns, verdicts.get(item_id, []))
        if i % CHUNK == 0:
            chunks.append([])
        chunks[-1].append(q)
        codes = {str(m): str(o) for m, o in zip(columns["m"], columns["o"], strict=True)}
        index.append(_index_entry(q, i, codes, _disagree(verdicts.get(item_id, [])), models))
    title = str(items[0]["exam"]) if items else t.key
    page = {"key": t.key, "title": title, "metrics": metric_rows(t, models), "topics": topic_table(t, models),
            "index": index, "chunks": len(chunks)}
    return page, chunks
