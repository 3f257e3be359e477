"""layton-eval's human annotation files (``annotations/llm.jsonl`` in its repository) as our label lines.

A layton-eval line has ``riddle_id``, ``model`` (the API model name), ``provider``,
``is_answer_correct``, ``is_justification_correct`` and ``notes`` (plus ``source_file`` and
``custom_id``, not needed), and no annotator. Each becomes one label line of
``data/labels/<split>.jsonl`` (``data/labels/README.md``). The model is the params.yaml key of
the model with that name (or key) and provider, else ``slug(provider-model)`` as for the
published calibration file (docs/method.md §3); the annotator is the line's own ``annotator``
if it has one, else the named default.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from sideways.config.params import ModelSpec
from sideways.core.errors import SchemaError
from sideways.layton_eval.convert import model_keys

DEFAULT_ANNOTATOR = "layton-eval"
_REQUIRED = ("riddle_id", "model", "is_answer_correct", "is_justification_correct")


def _check(rec: Mapping[str, Any], line: int, source: str) -> None:
    for key in _REQUIRED:
        if key not in rec or rec[key] is None:
            raise SchemaError(f"{source}: line {line}: missing {key!r}")
    for key in ("is_answer_correct", "is_justification_correct"):
        if not isinstance(rec[key], bool):
            raise SchemaError(f"{source}: line {line}: {key!r} should be true or false, got {rec[key]!r}")
    for key in ("riddle_id", "model", "provider"):
        if not isinstance(rec.get(key), str) or not rec[key].strip():
            raise SchemaError(f"{source}: line {line}: {key!r} should be a non-empty string, got {rec.get(key)!r:.60}")
    who = rec.get("annotator")
    if who is not None and (not isinstance(who, str) or not who.strip()):
        raise SchemaError(f"{source}: line {line}: 'annotator' should be a non-empty string, got {who!r:.60}")


def convert_annotations(records: Sequence[Mapping[str, Any]], lines: Sequence[int], models: Sequence[ModelSpec],
                        source: str, annotator: str = DEFAULT_ANNOTATOR) -> list[dict[str, Any]]:
    """Our label lines for layton-eval annotation rows (errors name ``source`` and the 1-based line)."""
    for rec, line in zip(records, lines, strict=True):
        _check(rec, line, source)
    ours = {(m.provider, name): m.key for m in models for name in (m.name, m.key)}
    pairs = sorted({(str(r["provider"]), str(r["model"])) for r in records})
    keys = {p: ours.get(p, k) for p, k in model_keys(pairs).items()}
    out = []
    for r in records:
        note = r.get("notes")
        row: dict[str, Any] = {
            "riddle_id": str(r["riddle_id"]), "model": keys[(str(r["provider"]), str(r["model"]))],
            "provider": str(r["provider"]), "human_answer_correct": r["is_answer_correct"],
            "human_justification_correct": r["is_justification_correct"],
            "human_both_correct": r["is_answer_correct"] and r["is_justification_correct"],
            "annotator": str(r.get("annotator") or annotator),
        }
        if isinstance(note, str) and note.strip():
            row["note"] = note.strip()
        out.append(row)
    return out
