"""inspect_ai logs read as :class:`~sideways.imports.run.ImportedRun` values.

Read from inspect's ``.json`` log format directly, with a strict check of the fields used, rather
than with ``inspect_ai.log.read_eval_log``: inspect_ai brings about a hundred packages (a terminal
UI, provider SDKs) that the project would otherwise need at run time only to open a JSON file, and
the ``.json`` log is inspect's documented, versioned serialisation of an ``EvalLog`` (``version``
2, checked on inspect-ai 0.3.285, see ``tests/data/imported/regenerate.py``). A ``.eval`` log is a
zip whose members are compressed with zstandard: it is converted by inspect's own tool
(``inspect log convert --to json``, run from inspect's own environment by
:mod:`~sideways.imports.inspect_tool`), and the ``.json`` it writes is read as above and kept in the run
(:attr:`ImportedRun.converted`) so that ``sideways import-run`` stores it: the pipeline then never needs
inspect. inspect_ai is not an optional extra either: 0.3.285 pins ``fsspec<=2026.6.0``, below the fsspec
and s3fs that DVC's S3 remote resolves to here, and adds 23 packages to the environment
(``benchmarks/studies/harness_install.py``).

A sample's score is its scorer's value (the scorer asked for, else the log's only one, else its
headline scorer): ``C`` (correct) 1, ``I`` (incorrect) and ``N`` (no answer) 0, ``P`` (partial)
0.5, a number or a bool as itself, in [0, 1]. Epochs of one sample are averaged. Only a log whose
``status`` is ``success`` is read: a failed or cancelled run's samples are not the benchmark.
"""

from __future__ import annotations

import math
import tempfile
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from sideways.core.textfile import read_text
from sideways.imports.inspect_tool import convert_eval
from sideways.imports.run import (
    ROOM,
    ImportedItem,
    ImportedRun,
    ImportedRunError,
    checked_score,
    json_object,
    log_line,
)

SUPPORTED_VERSIONS = (2,)
LETTERS = {"C": 1.0, "I": 0.0, "N": 0.0, "P": 0.5}


def read_inspect_log(path: str | Path, scorer: str | None = None) -> ImportedRun:
    """The run of the inspect log at ``path``: a ``.json`` log, or a ``.eval`` log converted by inspect's own
    tool (its ``.json`` kept in the run's ``converted``; messages name the ``.eval`` log)."""
    path = Path(path)
    if path.suffix != ".eval":
        return _fitted(path, lambda: _read_json(path, read_text(path, "inspect log", ImportedRunError), scorer))
    with tempfile.TemporaryDirectory(prefix="sideways-inspect-") as tmp:
        data = convert_eval(path, Path(tmp)).read_bytes()
    return replace(_fitted(path, lambda: _read_json(path, data.decode("utf-8", "replace"), scorer)), converted=data)


def _fitted(path: Path, read: Callable[[], ImportedRun]) -> ImportedRun:
    """``read()``, its error line (``<path>: <what>``) fitted to 120 columns: the path's end when long."""
    try:
        return read()
    except ImportedRunError as exc:
        text = str(exc)
        if not text.startswith(str(path)) or len(text) <= ROOM:
            raise
        raise ImportedRunError(log_line(path, text[len(str(path)):])) from exc


def _read_json(path: Path, text: str, scorer: str | None) -> ImportedRun:
    log = json_object(path, text, "an inspect log object")
    if log.get("version") not in SUPPORTED_VERSIONS:
        raise ImportedRunError(f"{path}: inspect log version {str(log.get('version'))[:20]!r} is not supported "
                               f"(read: {', '.join(map(str, SUPPORTED_VERSIONS))})")
    if log.get("status") != "success":
        raise ImportedRunError(f"{path}: log status is {str(log.get('status'))[:20]!r}, not 'success': "
                               "a run that did not finish is not read")
    ev = log.get("eval")
    model = ev.get("model") if isinstance(ev, dict) else None
    task = ev.get("task") if isinstance(ev, dict) else None
    if not isinstance(model, str) or not model or not isinstance(task, str) or not task:
        raise ImportedRunError(f"{path}: field 'eval' must name the model and the task")
    samples = log.get("samples")
    if not isinstance(samples, list) or not samples:
        raise ImportedRunError(f"{path}: no samples (was the log written with samples?)")
    name = scorer or _scorer(log, path)
    by_id: dict[str, list[tuple[ImportedItem, int]]] = {}
    for i, sample in enumerate(samples):
        item, epoch = _item(sample, task, name, f"{path}: sample {i + 1}")
        by_id.setdefault(item.item_id, []).append((item, epoch))
    items = [_epochs(runs, f"{path}: sample id {item_id!r}") for item_id, runs in by_id.items()]
    return ImportedRun(str(path), "inspect", model, (task,), tuple(items))


def _scorer(log: dict[str, Any], path: Path) -> str:
    results = log.get("results")
    scores = results.get("scores") if isinstance(results, dict) else None
    got = [s.get("name") for s in scores if isinstance(s, dict)] if isinstance(scores, list) else []
    names = [str(n) for n in got if isinstance(n, str)]
    if len(names) == 1:
        return names[0]
    headline = results.get("headline") if isinstance(results, dict) else None
    if isinstance(headline, dict) and isinstance(headline.get("scorer"), str):
        return str(headline["scorer"])
    raise ImportedRunError(f"{path}: {'scorers ' + ', '.join(names) if names else 'no scorer'} in 'results'; "
                           "name the one to read")


def _item(sample: Any, task: str, scorer: str, where: str) -> tuple[ImportedItem, int]:
    if not isinstance(sample, dict):
        raise ImportedRunError(f"{where}: expected an object")
    sid = sample.get("id")
    if isinstance(sid, bool) or not isinstance(sid, int | str):
        raise ImportedRunError(f"{where}: field 'id' must be a string or an integer")
    where = f"{where} {str(sid)[:40]!r}"  # the sample's number and id: "sample 3 'addition-2'"
    epoch = sample.get("epoch", 1)
    if isinstance(epoch, bool) or not isinstance(epoch, int):
        raise ImportedRunError(f"{where}: field 'epoch' must be an integer")
    scores = sample.get("scores")
    score = scores.get(scorer) if isinstance(scores, dict) else None
    if not isinstance(score, dict) or "value" not in score:
        raise ImportedRunError(f"{where}: no per-sample score from scorer {scorer!r}")
    metadata = sample.get("metadata")
    group = metadata.get("subject") if isinstance(metadata, dict) else None
    output = sample.get("output")
    completion = output.get("completion") if isinstance(output, dict) else None
    item = ImportedItem(item_id=f"{task}/{sid}", group=group if isinstance(group, str) and group else task,
                        question=_text(sample.get("input"), f"{where}: input"),
                        target=_text(sample.get("target"), f"{where}: target"),
                        response=completion if isinstance(completion, str) else "",
                        score=_value(score["value"], f"{where}: scores.{scorer}.value"))
    return item, epoch


def _text(value: Any, where: str) -> str:
    """A string field, or a list of them (chat messages' content, several targets) joined by lines."""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        parts = [v if isinstance(v, str) else v.get("content") if isinstance(v, dict) else None for v in value]
        if all(isinstance(p, str) for p in parts):
            return "\n".join(str(p) for p in parts)
    raise ImportedRunError(f"{where}: expected a string or a list of strings or messages")


def _value(value: Any, where: str) -> float:
    if isinstance(value, str) and value in LETTERS:
        return LETTERS[value]
    return checked_score(value, where)


def _epochs(runs: list[tuple[ImportedItem, int]], where: str) -> ImportedItem:
    """One item per sample: the epochs' mean score, the first epoch's reply; an epoch twice is an error."""
    epochs = [e for _, e in runs]
    if len(set(epochs)) != len(epochs):
        raise ImportedRunError(f"{where}: an epoch appears twice")
    first = min(runs, key=lambda r: r[1])[0]
    mean = math.fsum(item.score for item, _ in runs) / len(runs)
    return ImportedItem(first.item_id, first.group, first.question, first.target, first.response, mean)
