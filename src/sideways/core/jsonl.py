"""JSON Lines, read and written in one place, so the writer and every reader agree on what a line is.

A line ends at ``"\\n"`` and nowhere else. ``str.splitlines`` also splits on U+2028, U+2029,
U+0085 (and more), which models do emit inside answers: a file written with those characters raw
would read back as broken JSON. So :func:`dumps_line` escapes them (``\\u2028``, valid JSON), and
the readers split on ``"\\n"`` only, accepting them raw inside strings too (files written before).
A line that is not UTF-8, not JSON, nested too deep or holding a huge integer is an error naming
the file and the line, never a traceback.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from sideways.core.errors import SchemaError

# Characters that some readers (str.splitlines, JavaScript before ES2019) take for line breaks.
_BREAKS = {"\u2028": "\\u2028", "\u2029": "\\u2029", "\x85": "\\u0085"}


def dumps_line(obj: Any, *, sort_keys: bool = False) -> str:
    """``obj`` as one line of JSON, without the newline: UTF-8 text kept, line-break lookalikes escaped."""
    text = json.dumps(obj, sort_keys=sort_keys, ensure_ascii=False)
    return escape_breaks(text)


def escape_breaks(text: str) -> str:
    """``text`` (JSON) with U+2028, U+2029 and U+0085 written as escapes; they only occur inside strings."""
    if any(ch in text for ch in _BREAKS):
        for raw, escaped in _BREAKS.items():
            text = text.replace(raw, escaped)
    return text


def encode_line(obj: Mapping[str, Any], *, sort_keys: bool = False) -> bytes:
    """One record as one line of UTF-8 JSON, newline included."""
    return (dumps_line(obj, sort_keys=sort_keys) + "\n").encode("utf-8")


def parse_line(line: str | bytes, where: str) -> dict[str, Any]:
    """One line as a JSON object; a :class:`SchemaError` starting with ``where`` otherwise."""
    try:
        row = json.loads(line)
    except json.JSONDecodeError as exc:
        raise SchemaError(f"{where}: not valid JSON ({exc.msg})") from exc
    except UnicodeDecodeError as exc:
        raise SchemaError(f"{where}: not UTF-8 ({exc.reason})") from exc
    except (RecursionError, ValueError) as exc:  # nesting too deep, an integer of > 4300 digits
        raise SchemaError(f"{where}: not readable JSON ({str(exc).splitlines()[0][:80]})") from exc
    if not isinstance(row, dict):
        raise SchemaError(f"{where}: expected a JSON object, got {type(row).__name__}")
    return row


def parse_text(text: str, source: str, first: int = 1) -> tuple[list[dict[str, Any]], list[int]]:
    """The JSON objects of the non-blank lines of ``text`` (split at ``"\\n"`` only), numbered from ``first``."""
    rows: list[dict[str, Any]] = []
    numbers: list[int] = []
    for lineno, line in enumerate(text.split("\n"), start=first):
        if not line.strip():
            continue
        rows.append(parse_line(line, f"{source}: line {lineno}"))
        numbers.append(lineno)
    return rows, numbers


def decode(data: bytes, source: str) -> str:
    """``data`` as UTF-8; an error naming ``source`` and the line of the first bad byte otherwise."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise SchemaError(f"{source}: line {line}: not UTF-8 ({exc.reason})") from exc


def read_jsonl_numbered(path: str | Path) -> tuple[list[dict[str, Any]], list[int]]:
    """Every non-blank line of ``path`` as a JSON object, with the 1-based line each came from."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except FileNotFoundError as exc:
        raise SchemaError(f"{path}: no such file") from exc
    except OSError as exc:
        raise SchemaError(f"{path}: cannot read ({exc.strerror or exc})") from exc
    return parse_text(decode(data, str(path)), str(path))


def read_jsonl(path: str | Path) -> list[dict[str, Any]]:
    """Every non-blank line of ``path`` as a JSON object."""
    return read_jsonl_numbered(path)[0]
