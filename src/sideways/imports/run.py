"""One imported run: the per-question results a harness wrote, and the exam tables made from runs.

Every reader (:mod:`~sideways.imports.lm_eval`, :mod:`~sideways.imports.inspect_log`) returns
:class:`ImportedRun` values; :func:`keyed_runs` names each run as a model of the project (two runs
claiming one key is an error naming both files) and :func:`exam_tables` turns them into the
EXAM_ITEMS, EXAM_PREDICTIONS and EXAM_GRADES rows a native exam has. A question is a short answer
worth one point, graded once by the harness itself (judge ``lm_eval`` or ``inspect``, strategy
``imported``): its earned points are the harness's per-sample score in [0, 1], so the exam's
detail, metrics, intervals and paired diff read it as they read a judged answer. The topic is the
question's natural group (an MMLU subject), which the clustered intervals use.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from sideways.artifacts.schema import EXAM_GRADES, EXAM_ITEMS, EXAM_PREDICTIONS
from sideways.core.errors import SidewaysError
from sideways.core.width import WIDTH, clip

#: Columns of an import error line after the longest command prefix it is printed with.
ROOM = WIDTH - len("sideways import-run: error: ")
PATH_MIN = 20  # a path shortened to its end keeps at least this much: the end of a log's id, its suffix


class ImportedRunError(SidewaysError, ValueError):
    """A harness's file cannot be taken in: the message names the file and the record."""


@dataclass(frozen=True)
class ImportedItem:
    item_id: str  # unique within the run: task and the harness's sample id
    group: str  # the natural cluster (a subject), else the task
    question: str
    target: str
    response: str  # the model's reply as the harness filtered it ("" when it kept none)
    score: float  # the harness's per-sample score, in [0, 1]


@dataclass(frozen=True)
class ImportedRun:
    source: str  # the file the samples came from, as messages name it
    tool: str  # "lm_eval" or "inspect"
    model: str  # the model as the harness names it
    tasks: tuple[str, ...]
    items: tuple[ImportedItem, ...]
    converted: bytes | None = None  # a .eval log: the .json inspect's converter wrote for it, which import-run stores


def tail(path: str | Path, room: int) -> str:
    """``path`` in at most ``room`` columns: its end after ``...`` when longer (a harness names a run's file by
    its time, task and id, the id last)."""
    text = str(path)
    return text if len(text) <= room else "..." + text[-(room - 3):]


def log_line(path: str | Path, rest: str) -> str:
    """``path`` then ``rest`` in at most :data:`ROOM` columns: the path shortened to its end first (down to
    :data:`PATH_MIN` columns), then ``rest`` clipped."""
    shown = tail(path, max(ROOM - len(rest), PATH_MIN))
    return shown + clip(rest, ROOM - len(shown))


def json_object(path: Path, text: str, what: str) -> dict[str, Any]:
    """``text`` (the file ``path``) as a JSON object; else one line naming the file (``what``: the object expected)."""
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise ImportedRunError(f"{path}: not readable JSON ({str(exc)[:80]})") from exc
    if not isinstance(data, dict):
        raise ImportedRunError(f"{path}: expected {what}, got {type(data).__name__}")
    return data


def checked_score(value: object, where: str) -> float:
    """``value`` as a per-sample score: a finite number (or bool) in [0, 1]; else an error at ``where``."""
    if isinstance(value, bool):
        return float(value)
    if not isinstance(value, int | float) or not math.isfinite(value) or not 0 <= value <= 1:
        raise ImportedRunError(f"{where}: not a score in [0, 1]: {str(value)[:20]}")
    return float(value)


def model_key(run: ImportedRun) -> str:
    """The model key a run takes when none is given: the harness's model name with every run of characters a
    key may not hold (``/``, ``.``, ``:``) made one ``-`` (``openai/gpt-4o`` -> ``openai-gpt-4o``)."""
    key = re.sub(r"[^A-Za-z0-9_-]+", "-", run.model).strip("-_")[:100].rstrip("-_")
    if not key:
        raise ImportedRunError(log_line(run.source, f": model {run.model[:40]!r} gives no key; name one"))
    return key


def keyed_runs(runs: Iterable[tuple[str | None, ImportedRun]]) -> dict[str, ImportedRun]:
    """Each run under its key (given, else the harness's model name); a key claimed twice is an error."""
    out: dict[str, ImportedRun] = {}
    for key, run in runs:
        name = key or run.model
        if name in out:
            said = f": model key {name[:30]!r} also claimed by "
            room = max((ROOM - len(said)) // 2, 20)
            raise ImportedRunError(clip(tail(run.source, room) + said + tail(out[name].source, room), ROOM))
        out[name] = run
    return out


def exam_tables(exam: str, runs: Mapping[str, ImportedRun]) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """The items, predictions and grades of exam ``exam`` from ``runs`` (keyed by model).

    The items are the union of every run's questions; a question two runs hold with a different
    text or target is an error naming both files (they are not runs of one benchmark)."""
    items: dict[str, tuple[ImportedItem, str]] = {}
    predictions: list[dict[str, object]] = []
    grades: list[dict[str, object]] = []
    for key, run in sorted(runs.items()):
        for it in run.items:
            seen = items.setdefault(it.item_id, (it, run.source))
            if (seen[0].question, seen[0].target, seen[0].group) != (it.question, it.target, it.group):
                raise ImportedRunError(f"{run.source}: question {it.item_id!r} differs from the one in {seen[1]} "
                                       "(text, target or group): not runs of one benchmark")
            predictions.append({"item_id": it.item_id, "model": key, "provider": run.tool, "model_name": run.model,
                                "kind": "short_answer", "text": it.response, "status": "ok", "error": None,
                                "latency_s": None, "request_hash": None, "input_tokens": None,
                                "output_tokens": None, "cost_usd": None})
            grades.append({"item_id": it.item_id, "model": key, "judge": run.tool, "judge_provider": run.tool,
                           "strategy": "imported", "points": 1.0, "earned": it.score, "status": "ok",
                           "error": None, "raw": None, "latency_s": None, "request_hash": None,
                           "input_tokens": None, "output_tokens": None, "cost_usd": None})
    rows = [{"item_id": i, "exam": exam, "kind": "short_answer", "topic": it.group, "points": 1.0,
             "question": it.question, "choices": None, "gold": None, "answer": it.target,
             "rubric": json.dumps([], ensure_ascii=False)} for i, (it, _) in sorted(items.items())]
    return (pd.DataFrame(rows, columns=EXAM_ITEMS.names), pd.DataFrame(predictions, columns=EXAM_PREDICTIONS.names),
            pd.DataFrame(grades, columns=EXAM_GRADES.names))
