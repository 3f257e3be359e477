"""How a model and an interval read, the same in every view: ``sideways show``, ``sideways
leaderboard``, ``sideways diff``, the failure lines and the report (docs/method.md §5, "How a
model and an interval read").

- A model reads as its **key** (params.yaml's ``models:``): unique, and what a user types
  (``-S models.<key>...``, ``takes``, job names ``predict@<key>+<split>``). Its ``name`` (the
  provider's model id) is shown beside the key only where there is room, never instead of it.
- An interval reads as ``score ± ci`` only where it is symmetric: the published interval
  (score ± its rounded-up half-width) when it stays within 0-100. Otherwise ``score [lo, hi]``:
  the posterior interval (the mean need not be its middle), and a published one clipped at 0 or
  100. A score that is the count of its own human labels (every prediction labelled: width 0)
  reads ``score (fully labelled)``, not ``± 0.1``. A mean of one item reads ``x (n=1)``: its
  standard error is unknown, not 0.
"""

from __future__ import annotations

import math

#: What a score that every label decides says instead of an interval.
FULLY_LABELLED = "fully labelled"


def model_label(key: object) -> str:
    """The string a user reads for a model: its key, in every table, diff, failure line and page."""
    return str(key)


def bounds_pct(lo: float, hi: float) -> tuple[float, float]:
    """An interval of shares (0-1) in percent, rounded outwards to a tenth, so the printed one holds it."""
    return (math.floor(round(1000 * lo, 6)) / 10, math.ceil(round(1000 * hi, 6)) / 10)


def interval_cell(score: float | None, lo: float | None, hi: float | None, *, ci: float | None = None,
                  exact: bool = False) -> str:
    """An interval's cell, in percent with one decimal: ``—`` without a score; ``score (fully labelled)``
    when ``exact``; ``score ± ci`` when ``ci`` is given and ``score ± ci`` stays within 0-100;
    else ``score [lo, hi]`` (``lo`` and ``hi`` in percent; with ``ci`` given, clipped at 0 and 100)."""
    if score is None or _missing(score):
        return "—"
    if exact:
        return f"{score:.1f} ({FULLY_LABELLED})"
    if ci is not None and not _missing(ci):
        if 0 <= score - ci and score + ci <= 100:
            return f"{score:.1f} ± {ci:.1f}"
        lo, hi = max(0.0, score - ci), min(100.0, score + ci)
    if lo is None or hi is None or _missing(lo) or _missing(hi):
        return f"{score:.1f}"
    return f"{score:.1f} [{lo:.1f}, {hi:.1f}]"


def se_cell(value: float | None, se: float | None, n: int, digits: int = 1) -> str:
    """A mean and its standard error, ``x ± se``; ``x (n=1)`` for one item, whose se is not 0 but
    unknown (a one-question exam is not certain); ``-`` without a value."""
    if value is None or _missing(value):
        return "-"
    if n < 2 or se is None or _missing(se):
        return f"{value:.{digits}f} (n={n})"
    return f"{value:.{digits}f} ± {se:.{digits}f}"


def bracket(lo: float, hi: float) -> str:
    """``[lo, hi]`` with one decimal."""
    return f"[{lo:.1f}, {hi:.1f}]"


def rank_set_label(best: int, worst: int) -> str:
    """A rank set as every view writes it: ``1-2`` (``3-3`` for one rank)."""
    return f"{best}-{worst}"


def _missing(x: float) -> bool:
    return isinstance(x, float) and math.isnan(x)
