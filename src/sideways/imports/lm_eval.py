"""lm-evaluation-harness output read as an :class:`~sideways.imports.run.ImportedRun`.

``lm_eval ... --output_path OUT --log_samples`` writes, per model, a folder holding
``results_<time>.json`` (the aggregated results: the harness's version, the model, each task's
config and sample count) and one ``samples_<task>_<time>.jsonl`` per task (one line per document:
``doc_id``, ``doc``, ``target``, ``arguments``, ``filtered_resps``, ``filter``, ``metrics`` and each
metric's per-sample value). Read as the 0.4 series writes them (checked on 0.4.13, see
``tests/data/imported/regenerate.py``); the harness itself is not needed to read them.

One folder (or one results file) is one run; a folder holding several results files is an error
naming them, since which run is meant cannot be guessed. The score of a sample is the metric
asked for, else the first of its ``metrics`` list, and must be in [0, 1] (acc, exact_match; not
perplexity). A task that writes several filters (strict and flexible match) needs ``filter``.
A sample file shorter than the count the results file records is an error: a truncated run.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from sideways.core.errors import SchemaError
from sideways.core.jsonl import decode, parse_text
from sideways.core.textfile import read_text
from sideways.imports.run import ImportedItem, ImportedRun, ImportedRunError, checked_score, json_object

SUPPORTED = ("0.4.",)  # lm_eval_version prefixes whose files these readers were checked on


def read_lm_eval(path: str | Path, metric: str | None = None, filter_name: str | None = None) -> ImportedRun:
    """The run in ``path``: an output folder (searched below for one results file) or a results file."""
    results_path = _results_file(Path(path))
    results = _results(results_path)
    stamp = results_path.name.removeprefix("results_").removesuffix(".json")
    tasks = sorted(results["configs"])
    if not tasks:
        raise ImportedRunError(f"{results_path}: 'configs' names no task")
    items: list[ImportedItem] = []
    for task in tasks:
        items += _task_items(results_path.parent / f"samples_{task}_{stamp}.jsonl", task, results, metric,
                             filter_name)
    return ImportedRun(str(results_path), "lm_eval", _model(results, results_path), tuple(tasks), tuple(items))


def _results_file(path: Path) -> Path:
    if path.is_file():
        return path
    if not path.is_dir():
        raise ImportedRunError(f"{path}: no such lm-eval output folder or results file")
    found = sorted(path.rglob("results_*.json"))
    if not found:
        raise ImportedRunError(f"{path}: no results_*.json below it (was lm_eval run with --output_path here?)")
    if len(found) > 1:
        raise ImportedRunError(f"{path}: {len(found)} lm-eval runs below it ({', '.join(p.name for p in found[:3])}"
                               f"{', ...' if len(found) > 3 else ''}); name one results file")
    return found[0]


def _results(path: Path) -> dict[str, Any]:
    text = read_text(path, "lm-eval results file", ImportedRunError)
    data = json_object(path, text, "a JSON object")
    version = data.get("lm_eval_version")
    if not isinstance(version, str) or not version.startswith(SUPPORTED):
        raise ImportedRunError(f"{path}: lm_eval_version {str(version)[:20]!r} is not supported "
                               f"(read: {', '.join(v + 'x' for v in SUPPORTED)})")
    for field in ("configs", "config", "n-samples"):
        if not isinstance(data.get(field), dict):
            raise ImportedRunError(f"{path}: field {field!r} must be an object (is this an lm-eval results file?)")
    return data


def _model(results: dict[str, Any], path: Path) -> str:
    config = results["config"]
    name = results.get("model_name") or config.get("model")
    if not isinstance(name, str) or not name.strip():
        raise ImportedRunError(f"{path}: names no model ('model_name' or 'config.model')")
    return name.strip()


def _task_items(path: Path, task: str, results: dict[str, Any], metric: str | None,
                filter_name: str | None) -> list[ImportedItem]:
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ImportedRunError(f"{path}: samples of task {task!r} not readable ({exc.strerror or exc}); "
                               "was lm_eval run with --log_samples?") from exc
    try:
        rows, lines = parse_text(decode(data, str(path)), str(path))
    except SchemaError as exc:
        raise ImportedRunError(str(exc)) from exc
    filters = list(dict.fromkeys(str(r.get("filter")) for r in rows))
    if filter_name is None and len(filters) > 1:
        raise ImportedRunError(f"{path}: samples under several filters ({', '.join(filters)}); choose one")
    chosen = filter_name or (filters[0] if filters else "none")
    items: dict[str, ImportedItem] = {}
    for row, line in zip(rows, lines, strict=True):
        if str(row.get("filter")) != chosen:
            continue
        item = _item(row, task, metric, f"{path}: line {line}")
        if item.item_id in items:
            raise ImportedRunError(f"{path}: line {line}: doc_id {row['doc_id']!r} appears twice under filter "
                                   f"{chosen!r}")
        items[item.item_id] = item
    expected = results["n-samples"].get(task, {})
    effective = expected.get("effective") if isinstance(expected, dict) else None
    if not items or (isinstance(effective, int) and len(items) != effective):
        raise ImportedRunError(f"{path}: {len(items)} sample(s) under filter {chosen!r}, the results file "
                               f"records {effective} (truncated or another run's file?)")
    return list(items.values())


def _item(row: dict[str, Any], task: str, metric: str | None, where: str) -> ImportedItem:
    doc_id = row.get("doc_id")
    if isinstance(doc_id, bool) or not isinstance(doc_id, int | str):
        raise ImportedRunError(f"{where}: field 'doc_id' must be an integer or a string")
    names = row.get("metrics")
    name = metric or (names[0] if isinstance(names, list) and names and isinstance(names[0], str) else None)
    if name is None or name not in row:
        raise ImportedRunError(f"{where}: no per-sample score {name or '(no metrics listed)'!r}; "
                               "lm-eval writes one per metric of a task scored sample by sample")
    doc = row.get("doc")
    group = doc.get("subject") if isinstance(doc, dict) else None
    contexts, continuations = _arguments(row.get("arguments"))
    return ImportedItem(item_id=f"{task}/{doc_id}", group=group if isinstance(group, str) and group else task,
                        question=contexts[0] if contexts else json.dumps(doc, ensure_ascii=False, sort_keys=True),
                        target=_target(row.get("target"), continuations),
                        response=_response(row.get("filtered_resps"), continuations),
                        score=checked_score(row[name], f"{where}: {name}"))


def _arguments(value: Any) -> tuple[list[str], list[str]]:
    """The contexts and continuations of a sample's requests: ``{"gen_args_0": {"arg_0": ...}}``
    (0.4.5 on) or ``[[context, continuation], ...]`` (before)."""
    pairs = list(value.values()) if isinstance(value, dict) else value if isinstance(value, list) else []
    contexts: list[str] = []
    continuations: list[str] = []
    for p in pairs:
        args = [p.get("arg_0"), p.get("arg_1")] if isinstance(p, dict) else p if isinstance(p, list) else []
        if args and isinstance(args[0], str):
            contexts.append(args[0])
        if len(args) > 1 and isinstance(args[1], str):
            continuations.append(args[1].strip())
    return contexts, continuations


def _target(value: Any, continuations: list[str]) -> str:
    """The gold answer: a multiple-choice index shown as its choice's text, anything else as text."""
    text = str(value)
    if len(continuations) > 1 and text.isdigit() and int(text) < len(continuations):
        return continuations[int(text)]
    return text


def _response(value: Any, continuations: list[str]) -> str:
    """A generation's text, or the choice a multiple-choice run ranked first (its loglikelihood highest)."""
    if not isinstance(value, list) or not value:
        return ""
    if all(isinstance(v, str) for v in value):
        return str(value[0])
    scores: list[float] = []
    for v in value:
        try:
            scores.append(float(v[0] if isinstance(v, list) else v))
        except (TypeError, ValueError, IndexError):
            return ""
    best = max(range(len(scores)), key=scores.__getitem__)
    return continuations[best] if len(continuations) == len(scores) else str(best)
