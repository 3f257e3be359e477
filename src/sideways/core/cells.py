"""A table cell read as text: the one helper every reader of riddle and reply tables shares."""

from __future__ import annotations

from typing import Any


def cell_text(value: Any) -> str:
    """``value`` as stripped text; None and NaN (how pandas says "missing") are the empty string."""
    if value is None or (isinstance(value, float) and value != value):
        return ""
    return str(value).strip()
