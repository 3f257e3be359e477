"""One exam's page of the report, as plain data: metrics with se, topics, and a question explorer.

A pure function of the exam's tables (:class:`~sideways.report.inputs.ExamTables`): the metrics
and the topic breakdown are the ones ``exams.results`` computed (``metrics/exam.json``), never
recomputed here. The explorer works like the riddle explorer (``explorer.py``): a small index
(one entry per question: search text, one outcome character per model, judges' disagreement)
loaded with the report, and chunks of questions loaded when a card is shown. A chunk's replies
are files of their own, one per group of models (``exam_replies``: a group whose inputs did not
change is taken from the previous report): inside one, each question's replies are columns
(``p``, the group's models in params order) and the short-answer judges' verdicts too (``k``, in
reply order, ``p.kn`` of them per reply); the page joins the groups in order.

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
from sideways.report import exam_replies
from sideways.report.exam_replies import CHUNK, groups, reply_file, reply_path
from sideways.report.inputs import ExamTables

#: Reply columns of a chunk: key in the page -> field of the joined row.
_REPLY = {"m": "model", "t": "text", "l": "letters", "s": "status", "e": "error", "o": "outcome",
          "r": "earned", "kn": "n_verdicts"}
_VERDICT = {"judge": "judge", "st": "strategy", "r": "earned", "s": "status", "x": "raw", "e": "error"}

#: The page's data, its question chunks, and its reply files (relative path -> bytes).
ExamPage = tuple[dict[str, Any], list[list[dict[str, Any]]], dict[str, bytes]]


def outcome(d: dict[str, Any]) -> str:
    """The outcome character of one EXAM_DETAIL row (see the module's docstring)."""
    if d["status"] == "api_error":
        return "e"
    if d["kind"] == "mcq":
        return "x" if d["extract_fail"] else "i" if d["idk_freq"] else "p" if d["trad"] else "f"
    if not d["judges"]:
        return "u"
    return "p" if d["earned"] >= d["points"] else "h" if d["earned"] > 0 else "f"


def _truthy(column: pd.Series) -> np.ndarray:
    """``bool(v)`` of each value as :func:`outcome` sees it (``_python_values``: NaN is true, a masked value None)."""
    if isinstance(column.dtype, pd.api.extensions.ExtensionDtype):
        values = column.to_numpy(dtype=object)
        return np.array([v is not pd.NA and v is not None and bool(v) for v in values], dtype=bool)
    return np.asarray(column.to_numpy() != 0, dtype=bool) | pd.isna(column).to_numpy()


def outcomes(detail: pd.DataFrame) -> np.ndarray:
    """:func:`outcome` of every row of ``detail`` at once (2.8 million rows at 200 models)."""
    if detail.empty:
        return np.array([], dtype="<U1")
    status, kind = detail["status"].astype(object).to_numpy(), detail["kind"].astype(object).to_numpy()
    mcq = np.select([_truthy(detail["extract_fail"]), _truthy(detail["idk_freq"]), _truthy(detail["trad"])],
                    ["x", "i", "p"], "f")
    earned, points = detail["earned"].to_numpy(dtype=float), detail["points"].to_numpy(dtype=float)
    with np.errstate(invalid="ignore"):
        graded = np.where(earned >= points, "p", np.where(earned > 0, "h", "f"))
    short = np.where(~_truthy(detail["judges"]), "u", graded)
    return np.where(status == "api_error", "e", np.where(kind == "mcq", mcq, short))


def _codes(t: ExamTables, models: list[str]) -> list[str]:
    """Per item of ``t.items`` (in order): one outcome character per model of ``models``, ``-`` for none."""
    detail = t.detail[t.detail["model"].isin(models)]
    chars = np.full((len(t.items), len(models)), "-", dtype="<U1")
    item = pd.Index(t.items["item_id"].astype(str)).get_indexer(pd.Index(detail["item_id"].astype(str)))
    model = pd.Index(models).get_indexer(pd.Index(detail["model"].astype(str)))
    known = item >= 0
    chars[item[known], model[known]] = outcomes(detail)[known]
    if not models:
        return ["" for _ in range(len(t.items))]
    return [str(x) for x in np.ascontiguousarray(chars).view(f"<U{len(models)}")[:, 0]]


def metric_rows(t: ExamTables, models: list[str]) -> list[dict[str, Any]]:
    """One row per model that has metrics, in params order: each metric and its se, the counts."""
    return [{"model": m, **t.metrics[m]} for m in models if m in t.metrics]


def topic_table(t: ExamTables, models: list[str]) -> dict[str, Any]:
    """The topic breakdown as a heat table: topics in the exam's order, one row of cells per model."""
    topics = list(dict.fromkeys(str(x) for x in t.items["topic"]))
    rows = [{"model": m, "cells": [_topic_cell(t.topics[m].get(g)) for g in topics]} for m in models if m in t.topics]
    return {"groups": topics, "rows": rows}


def _topic_cell(c: dict[str, float] | None) -> dict[str, float] | None:
    return None if c is None else {"rate": c["score"], "n": c["possible"], "earned": c["earned"]}


def _grouped(rows: list[dict[str, Any]], order: dict[str, int], *keys: str) -> dict[str, list[dict[str, Any]]]:
    """``rows`` of the models in ``order`` by item, sorted by params order then ``keys``."""
    out: dict[str, list[dict[str, Any]]] = {}
    for r in sorted((r for r in rows if r["model"] in order),
                    key=lambda r: (order[r["model"]], *(str(r[k]) for k in keys))):
        out.setdefault(str(r["item_id"]), []).append(r)
    return out


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
    """Per item: each reply of the models in ``order`` joined with its detail row; and their judges' verdicts."""
    detail = t.detail[t.detail["model"].isin(list(order))]
    item = detail["item_id"].astype(str).to_numpy()
    model = detail["model"].astype(str).to_numpy()
    taken = t.predictions[t.predictions["model"].isin(list(order))]
    text = pd.DataFrame({"item": taken["item_id"].astype(str), "model": taken["model"].astype(str),
                         "text": taken["text"], "error": taken["error"]})
    text = text.drop_duplicates(["item", "model"], keep="last")
    joined = pd.DataFrame({"item": item, "model": model}).merge(text, on=["item", "model"], how="left")
    verdicts = _grouped(records(t.grades[t.grades["model"].isin(list(order))]), order, "judge", "strategy")
    counts = Counter((str(v["item_id"]), str(v["model"])) for vs in verdicts.values() for v in vs)
    codes, uniques = pd.factorize(item)
    sort = np.lexsort((np.array([order[m] for m in model], dtype=np.int64), codes)).tolist()
    make: dict[str, Callable[[], list[Any]]] = {
        "model": lambda: _python_values(detail["model"]), "text": lambda: _missing(joined["text"]),
        "letters": lambda: _python_values(detail["letters"]), "status": lambda: _python_values(detail["status"]),
        "error": lambda: _missing(joined["error"]), "outcome": lambda: outcomes(detail).tolist(),
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


def _question(item: dict[str, Any]) -> dict[str, Any]:
    choices = json.loads(item["choices"]) if isinstance(item["choices"], str) else None
    return {"id": item["item_id"], "kind": item["kind"], "topic": item["topic"], "points": item["points"],
            "question": item["question"], "choices": None if choices is None else sorted(choices.items()),
            "gold": item["gold"], "answer": item["answer"],
            "criteria": json.loads(item["rubric"]) if isinstance(item["rubric"], str) else []}


def _index_entry(q: dict[str, Any], i: int, codes: str, disagree: dict[str, bool], models: list[str]) -> dict[str, Any]:
    choices = " ".join(text for _, text in q["choices"] or [])
    search = " ".join(str(x) for x in (q["id"], q["topic"], q["question"], choices, q["answer"]))
    return {"id": q["id"], "topic": q["topic"], "kind": q["kind"], "chunk": i // CHUNK, "pos": i % CHUNK,
            "text": search.lower(), "o": codes,
            "d": "".join("1" if disagree.get(m) else "0" for m in models) if disagree else "0" * len(models)}


def _disagree(verdicts: list[dict[str, Any]]) -> dict[str, bool]:
    """Per model: whether its short answer's judges gave different points."""
    earned: dict[str, set[float]] = {}
    for v in verdicts:
        if v["status"] == "ok" and _plain(v["earned"]) is not None:
            earned.setdefault(str(v["model"]), set()).add(float(v["earned"]))
    return {m: len(e) > 1 for m, e in earned.items()}


def _reply_files(t: ExamTables, models: list[str], ids: list[str]) -> dict[str, bytes]:
    """Every chunk's reply files, group by group: a group's files taken from ``t.reused`` when all
    of them are there, else built from its models' replies."""
    files: dict[str, bytes] = {}
    chunks = range(0, len(ids), CHUNK)
    for g, group in enumerate(groups(models)):
        names = [reply_path(t.key, start // CHUNK, g) for start in chunks]
        if names and all(n in t.reused for n in names):
            files |= {n: t.reused[n] for n in names}
            continue
        inputs = t.reply_inputs[g] if g < len(t.reply_inputs) else None
        replies, verdicts = _replies(t, {m: i for i, m in enumerate(group)})
        for name, start in zip(names, chunks, strict=True):
            part = [{"p": replies.of(x, _REPLY), "k": _columns(verdicts.get(x, []), _VERDICT)}
                    for x in ids[start:start + CHUNK]]
            files[name] = reply_file(t.key, start // CHUNK, g, inputs, part)
    return files


def exam_page(t: ExamTables, models: list[str]) -> ExamPage:
    """The exam's page data (loaded with the report), its chunks of questions and its reply files."""
    order = {m: i for i, m in enumerate(models)}
    verdicts = _grouped(records(t.grades), order, "judge", "strategy")
    items = records(t.items)
    codes = _codes(t, models)
    index: list[dict[str, Any]] = []
    chunks: list[list[dict[str, Any]]] = []
    for i, item in enumerate(items):
        q = _question(item)
        if i % CHUNK == 0:
            chunks.append([])
        chunks[-1].append(q)
        index.append(_index_entry(q, i, codes[i], _disagree(verdicts.get(str(item["item_id"]), [])), models))
    title = str(items[0]["exam"]) if items else t.key
    page = {"key": t.key, "title": title, "metrics": metric_rows(t, models), "topics": topic_table(t, models),
            "index": index, "chunks": len(chunks), "groups": len(groups(models)), "group": exam_replies.GROUP}
    return page, chunks, _reply_files(t, models, [str(x["item_id"]) for x in items])
