"""A measured escalation rule for the cascaded jury, not the pipeline's: also escalate a seeded random share of the
settled rows (docs/method.md §2, "Escalating a random share of the settled rows"). ``benchmarks/studies/real_coverage.py
--random SHARE`` measures it beside the plain rule (:mod:`sideways.scoring.cascade`).

Why: whether a row is escalated then depends on the first judges' verdicts and a coin that depends on nothing
observed or not, so the verdicts not asked stay missing at random and are marginalised as under the plain rule,
while the later judges' verdicts on rows the first ones settle are sampled too (the plain rule asks them only where
the first judges disagree). The coin is a hash of (seed, riddle, model): the same rows go up in every run and in
every order, and the escalation stays one more round of batches.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from sideways.scoring.cascade import BoolArray, Escalate


def coin(seed: int, riddle_id: str, model: str) -> float:
    """A uniform number in [0, 1) fixed by (``seed``, ``riddle_id``, ``model``)."""
    digest = hashlib.sha256(f"{seed}\x1f{riddle_id}\x1f{model}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2.0**64


def random_share(keys: pd.DataFrame, share: float, seed: int = 0) -> BoolArray:
    """Per (riddle_id, model) row of ``keys``, whether its :func:`coin` falls under ``share`` (0 <= share <= 1)."""
    if not 0.0 <= share <= 1.0:
        raise ValueError(f"random_share: share must be in [0, 1], got {share}")
    out: BoolArray = np.array([coin(seed, str(r), str(m)) < share
                               for r, m in zip(keys["riddle_id"], keys["model"], strict=True)], dtype=bool)
    return out


def random_rule(share: float, seed: int = 0) -> Escalate:
    """:func:`random_share` with its share and seed, as :func:`sideways.scoring.cascade.drop_unasked`'s ``also``."""
    if not 0.0 <= share <= 1.0:
        raise ValueError(f"random_rule: share must be in [0, 1], got {share}")

    def rule(judgments: pd.DataFrame, keys: pd.DataFrame, first: Mapping[str, Sequence[str]]) -> BoolArray:
        return random_share(keys, share, seed)
    return rule
