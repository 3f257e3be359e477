"""The one set of validators every params.yaml section uses.

Each takes the value and ``where`` (the key path, e.g. ``params.yaml: models.atlas-mini.skill``)
and raises :class:`ParamsError` naming it; each returns the value with its type narrowed and,
for numbers, unchanged (an integer stays an integer: a request body built from it must not
change).
"""

from __future__ import annotations

import difflib
from collections.abc import Collection, Mapping
from typing import Any

from sideways.core.errors import ParamsError


def mapping(value: Any, where: str, *, optional: bool = False) -> Mapping[str, Any]:
    """A mapping; with ``optional``, None (an absent or empty section) reads as {}."""
    if value is None and optional:
        return {}
    if not isinstance(value, Mapping):
        raise ParamsError(f"{where}: expected a mapping, got {type(value).__name__}")
    return value


def did_you_mean(word: str, known: Collection[str]) -> str:
    """``did you mean 'x'?`` with every known word as close as the closest (``lm``: ``llm`` or
    ``vlm``), or "" when none is close."""
    close = difflib.get_close_matches(word, sorted(known), n=len(known))
    if not close:
        return ""
    best = difflib.SequenceMatcher(None, word, close[0]).ratio()
    tied = sorted(c for c in close if difflib.SequenceMatcher(None, word, c).ratio() == best)
    return f"did you mean {' or '.join(map(repr, tied))}?"


def known_keys(data: Mapping[str, Any], known: Collection[str], where: str) -> None:
    """Refuse a key outside ``known``, suggesting the closest known one (typos are the usual cause).

    ``where`` ending in ``:`` is the file itself (top-level keys): ``params.yaml: seeds: ...``.
    """
    for key in data:
        if key not in known:
            hint = did_you_mean(str(key), known) or f"known: {', '.join(sorted(known))}"
            path = f"{where} {key}" if where.endswith(":") else f"{where}.{key}"
            raise ParamsError(f"{path}: unknown key ({hint})")


def string(value: Any, where: str) -> str:
    """A non-empty (not only blank) string."""
    if not isinstance(value, str) or not value.strip():
        raise ParamsError(f"{where}: expected a non-empty string, got {value!r}")
    return value


def optional_string(value: Any, where: str) -> str | None:
    """None, or a non-empty string."""
    return None if value is None else string(value, where)


def boolean(value: Any, where: str) -> bool:
    """true or false (not 0/1, not a string)."""
    if not isinstance(value, bool):
        raise ParamsError(f"{where}: expected true or false, got {value!r}")
    return value


def integer(value: Any, where: str, lo: int | None = None, hi: int | None = None) -> int:
    """An integer (not a bool) within [lo, hi]."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise ParamsError(f"{where}: expected an integer, got {value!r}")
    _in_range(value, where, lo, hi)
    return value


def number(value: Any, where: str, lo: float | None = None, hi: float | None = None) -> float:
    """An integer or float (not a bool) within [lo, hi], returned as given."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ParamsError(f"{where}: expected a number, got {value!r}")
    _in_range(value, where, lo, hi)
    return value


def optional_number(value: Any, where: str, lo: float | None = None, hi: float | None = None) -> float | None:
    """None, or a number within [lo, hi]."""
    return None if value is None else number(value, where, lo, hi)


def choice[T: str](value: Any, choices: tuple[T, ...], where: str) -> T:
    """One of ``choices`` (a Literal's values), returned as that Literal."""
    for c in choices:
        if value == c:
            return c
    raise ParamsError(f"{where}: {value!r} is not one of {', '.join(choices)}")


def _in_range(value: float, where: str, lo: float | None, hi: float | None) -> None:
    if (lo is not None and value < lo) or (hi is not None and value > hi):
        raise ParamsError(f"{where}: {value} is out of range [{lo}, {hi if hi is not None else '...'}]")
