"""Read a response matrix in py-irt's JSONL layout: one line per model, its 0/1 result per item.

``{"subject_id": "model-a", "responses": {"q1": 1, "q2": 0}}`` per line. The models may answer
different items; :func:`read_matrix` keeps the items every model answered (a sampled exam is
measured against each model's whole-exam score, which needs every item). Bad input is one line
naming the file and the line.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

from sideways.core.errors import SidewaysError


class MatrixError(SidewaysError, ValueError):
    """A response matrix file is invalid."""


@dataclass(frozen=True)
class ResponseMatrix:
    """0/1 results: ``y[m, i]`` is model ``models[m]`` on item ``items[i]``."""

    models: tuple[str, ...]
    items: tuple[str, ...]
    y: npt.NDArray[np.int8]


def _line(path: str, number: int, text: str) -> tuple[str, dict[str, int]]:
    """One line's model and responses, or a :class:`MatrixError` naming the file and line."""
    where = f"{path}: line {number}"
    try:
        row = json.loads(text)
    except (json.JSONDecodeError, RecursionError) as exc:
        raise MatrixError(f"{where}: not JSON ({type(exc).__name__})") from None
    if not isinstance(row, dict):
        raise MatrixError(f"{where}: expected an object with 'subject_id' and 'responses'")
    model = row.get("subject_id")
    if not isinstance(model, str) or not model.strip():
        raise MatrixError(f"{where}: field 'subject_id' must be a non-empty string")
    responses = row.get("responses")
    if not isinstance(responses, dict) or not responses:
        raise MatrixError(f"{where}: field 'responses' must be a non-empty object of item -> 0/1")
    out: dict[str, int] = {}
    for item, value in responses.items():
        if not isinstance(value, int | float) or value not in (0, 1):
            message = f"{where}: field 'responses': item {item!r} must be 0 or 1 (or true/false), got {value!r}"
            raise MatrixError(message[:300])
        out[item] = int(value)
    return model, out


def parse_matrix(text: str, path: str) -> ResponseMatrix:
    """The matrix in ``text`` (``path`` names it in errors); items kept: those every model answered."""
    rows: dict[str, dict[str, int]] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        model, responses = _line(path, number, line)
        if model in rows:
            raise MatrixError(f"{path}: line {number}: model {model!r} appears twice"[:300])
        rows[model] = responses
    if len(rows) < 2:
        raise MatrixError(f"{path}: needs at least 2 models (one held out, the others to learn from), got {len(rows)}")
    models = tuple(sorted(rows))
    shared = set.intersection(*(set(r) for r in rows.values()))
    if len(shared) < 2:
        raise MatrixError(f"{path}: needs at least 2 items answered by every model, got {len(shared)}")
    items = tuple(sorted(shared))
    y = np.array([[rows[m][i] for i in items] for m in models], dtype=np.int8)
    return ResponseMatrix(models, items, y)


def read_matrix(path: str | Path) -> ResponseMatrix:
    """:func:`parse_matrix` of the file at ``path`` (UTF-8)."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise MatrixError(f"{path}: not UTF-8 text") from None
    except OSError as exc:
        raise MatrixError(f"{path}: cannot read ({exc.strerror or type(exc).__name__})") from None
    return parse_matrix(text, str(path))


def matrix_lines(matrix: ResponseMatrix) -> str:
    """The matrix as py-irt JSONL (sorted keys, one model a line): what :func:`parse_matrix` reads back."""
    return "".join(json.dumps({"subject_id": m, "responses": dict(zip(matrix.items, map(int, row), strict=True))},
                              sort_keys=True) + "\n" for m, row in zip(matrix.models, matrix.y, strict=True))
