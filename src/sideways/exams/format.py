"""The exam file: the course notebook's JSON, read as is.

```
{"exam_name": "...", "semester": "...", "questions": [
  {"id": "q1", "type": "mcq", "topic": "...", "points": 2, "question": "...",
   "choices": {"A": "...", "B": "..."}, "answer": "B"},
  {"id": "q2", "type": "short_answer", "topic": "...", "points": 3, "question": "...",
   "answer": "reference answer", "rubric": ["criterion 1", "criterion 2"]}]}
```

``topic`` defaults to ``unknown``; a short answer without ``rubric`` is graded against its
reference answer alone. Other keys are ignored, as the notebook ignores them. Every error names
the file, the question and the field.
"""

from __future__ import annotations

import json
import math
import string
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sideways.artifacts.schema import EXAM_KINDS, Kind
from sideways.core.errors import SchemaError
from sideways.core.textfile import read_text


@dataclass(frozen=True)
class Question:
    id: str
    kind: Kind
    topic: str
    points: float
    question: str
    answer: str
    choices: tuple[tuple[str, str], ...] = ()  # (letter, text) in the file's order
    rubric: tuple[str, ...] = ()


@dataclass(frozen=True)
class Exam:
    name: str
    semester: str
    questions: tuple[Question, ...]


def load_exam(path: str | Path) -> Exam:
    """Read and validate the exam JSON at ``path``."""
    path = Path(path)
    text = read_text(path, "exam file", SchemaError)
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise SchemaError(f"{path}: not valid JSON ({exc})") from exc
    except (RecursionError, ValueError) as exc:  # nested too deep, an integer of > 4300 digits
        raise SchemaError(f"{path}: not readable JSON ({str(exc)[:80]})") from exc
    return parse_exam(data, str(path))


def parse_exam(data: Any, source: str) -> Exam:
    """Validate a loaded exam mapping; errors name ``source``, the question id and the field."""
    if not isinstance(data, dict) or not isinstance(data.get("questions"), list) or not data["questions"]:
        raise SchemaError(f"{source}: expected an object with a non-empty 'questions' list")
    name = data.get("exam_name")
    if not isinstance(name, str) or not name.strip():
        raise SchemaError(f"{source}: field 'exam_name' must be a non-empty string")
    questions = tuple(_question(q, i, source) for i, q in enumerate(data["questions"]))
    seen: set[str] = set()
    for q in questions:
        if q.id in seen:
            raise SchemaError(f"{source}: question {q.id!r}: field 'id' appears more than once")
        seen.add(q.id)
    return Exam(name.strip(), str(data.get("semester") or ""), questions)


def _text(q: dict[str, Any], field: str, where: str) -> str:
    value = q.get(field)
    if not isinstance(value, str) or not value.strip():
        raise SchemaError(f"{where}: field {field!r} must be a non-empty string, got {value!r:.60}")
    return value.strip()


def _question(q: Any, index: int, source: str) -> Question:
    if not isinstance(q, dict):
        raise SchemaError(f"{source}: question #{index + 1}: expected an object")
    qid = q.get("id")
    if not isinstance(qid, str) or not qid.strip():
        raise SchemaError(f"{source}: question #{index + 1}: field 'id' must be a non-empty string")
    where = f"{source}: question {qid!r}"
    kind = q.get("type")
    if kind not in EXAM_KINDS:
        raise SchemaError(f"{where}: field 'type' must be one of {', '.join(EXAM_KINDS)}, got {kind!r}")
    points = q.get("points")
    if isinstance(points, bool) or not isinstance(points, (int, float)) or not math.isfinite(points) or points <= 0:
        raise SchemaError(f"{where}: field 'points' must be a positive number, got {points!r}")
    topic = q.get("topic", "unknown")
    if not isinstance(topic, str) or not topic.strip():
        raise SchemaError(f"{where}: field 'topic' must be a non-empty string, got {topic!r}")
    text = _text(q, "question", where)
    if kind == "mcq":
        choices = _choices(q.get("choices"), where)
        answer = _text(q, "answer", where).upper()
        if answer not in dict(choices):
            raise SchemaError(f"{where}: field 'answer' must be one of the choices' letters "
                              f"({', '.join(dict(choices))}), got {q.get('answer')!r}")
        return Question(qid, "mcq", topic.strip(), float(points), text, answer, choices=choices)
    return Question(qid, "short_answer", topic.strip(), float(points), text, _text(q, "answer", where),
                    rubric=_rubric(q.get("rubric"), where))


def _choices(value: Any, where: str) -> tuple[tuple[str, str], ...]:
    if not isinstance(value, dict) or len(value) < 2:
        raise SchemaError(f"{where}: field 'choices' must map at least two letters to texts, got {value!r:.60}")
    letters = [str(k).strip().upper() for k in value]
    if letters != list(string.ascii_uppercase[: len(letters)]):
        raise SchemaError(f"{where}: field 'choices' must be lettered A, B, C, ... in order, got {', '.join(letters)}")
    out = []
    for letter, text in zip(letters, value.values(), strict=True):
        if not isinstance(text, str) or not text.strip():
            raise SchemaError(f"{where}: field 'choices' has no text for {letter}")
        out.append((letter, text.strip()))
    return tuple(out)


def _rubric(value: Any, where: str) -> tuple[str, ...]:
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(r, str) and r.strip() for r in value):
        raise SchemaError(f"{where}: field 'rubric' must be a list of non-empty strings, got {value!r:.60}")
    return tuple(r.strip() for r in value)
