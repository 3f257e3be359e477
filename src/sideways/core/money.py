"""Amounts in USD: one check for every door a cost comes through (a price times usage, a ledger line,
a request cache's record, a table's ``cost_usd``).

An amount is a finite number (not a bool) within ``[0, MAX_USD]``. More than :data:`MAX_USD` on one line
is a corrupt file, not a bill: no single request, ledger line or benchmark costs a billion dollars, and
accepting it would let one bad byte swallow a spending cap or show a cost table in scientific notation.
"""

from __future__ import annotations

import math
from typing import Any

from sideways.core.errors import SchemaError

MAX_USD = 1e9  # more than this in one amount is a corrupt record, not a bill


def is_usd(value: Any) -> bool:
    """Whether ``value`` is an amount: a finite int or float (not a bool) within ``[0, MAX_USD]``."""
    return (isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
            and 0 <= value <= MAX_USD)


def usd_or_none(value: Any) -> float | None:
    """``value`` as a float when it is an amount, else None (unknown: the caller charges its worst case)."""
    return float(value) if is_usd(value) else None


def usd(value: Any, where: str, field: str = "cost_usd") -> float:
    """``value`` as a float when it is an amount, else a :class:`SchemaError` naming ``where`` and ``field``."""
    if not is_usd(value):
        raise SchemaError(f"{where}: '{field}' must be a finite amount in USD within [0, {MAX_USD:g}], "
                          f"got {str(value)[:40]!r}")
    return float(value)
