"""evaluate-idk's four per-item metrics and their means with standard errors.

Per item, from the letters extracted (:mod:`~sideways.exams.mcq.letters`) and the gold letter:

- ``trad``: 1 if right, else 0 (E and failures included);
- ``idk``: +1 right, 0 for E, -1 wrong; an extraction failure counts as wrong (-1);
- ``idk_freq``: 1 if the reply chose E;
- ``extract_fail``: 1 if no offered letter could be extracted.

When a reply gives several letters, each metric takes its best outcome for that item, as
evaluate-idk does: the highest ``trad`` and ``idk``, the lowest ``idk_freq`` (so E counts as
chosen only when it is the only letter). Corpus metrics are plain means over items, with
se = std(ddof=1) / sqrt(n) (0 for a single item).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass

from sideways.exams.mcq import IDK_LETTER

METRICS = ("trad_score", "idk_score", "idk_freq", "extract_fail")


@dataclass(frozen=True)
class Outcome:
    trad: int
    idk: int
    idk_freq: int
    extract_fail: int


def outcome(letters: Sequence[str], gold: str) -> Outcome:
    """The item's four values from the extracted ``letters`` and the ``gold`` letter."""
    return _outcome(tuple(letters), gold)


@functools.cache
def _outcome(letters: tuple[str, ...], gold: str) -> Outcome:
    """:func:`outcome`, kept per (letters, gold): an exam has a few dozen of them over 14,042 questions."""
    if not letters:
        return Outcome(trad=0, idk=-1, idk_freq=0, extract_fail=1)
    trad = [int(x == gold) for x in letters]
    idk = [1 if x == gold else 0 if x == IDK_LETTER else -1 for x in letters]
    freq = [int(x == IDK_LETTER) for x in letters]
    return Outcome(trad=max(trad), idk=max(idk), idk_freq=min(freq), extract_fail=0)


@dataclass(frozen=True)
class Mean:
    mean: float
    se: float
    n: int


def mean_se(values: Sequence[float]) -> Mean:
    """Mean and its standard error, std(ddof=1)/sqrt(n); NaN mean for no value."""
    n = len(values)
    if n == 0:
        return Mean(math.nan, math.nan, 0)
    m = math.fsum(values) / n
    if n == 1:
        return Mean(m, 0.0, 1)
    var = math.fsum((v - m) ** 2 for v in values) / (n - 1)
    return Mean(m, math.sqrt(var / n), n)


def summarize(outcomes: Sequence[Outcome]) -> dict[str, Mean]:
    """The four metrics over ``outcomes``, as fractions (trad_score, idk_score, idk_freq, extract_fail)."""
    columns = {
        "trad_score": [o.trad for o in outcomes],
        "idk_score": [o.idk for o in outcomes],
        "idk_freq": [o.idk_freq for o in outcomes],
        "extract_fail": [o.extract_fail for o in outcomes],
    }
    return {name: mean_se([float(v) for v in values]) for name, values in columns.items()}


def table_cell(m: Mean) -> str:
    """evaluate-idk's table cell: percent with two decimals, ``83.84 ± 2.62``."""
    return f"{100 * m.mean:.2f} ± {100 * m.se:.2f}"
