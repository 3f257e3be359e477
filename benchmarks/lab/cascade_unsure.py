"""A measured escalation rule for the cascaded jury, not the pipeline's: also escalate the rows a verdicts-only
latent-class fit of the first judges is unsure of (docs/method.md §2, "Escalating where a verdicts-only fit is
unsure"). ``benchmarks/studies/real_coverage.py --unsure LO,HI`` measures it beside the plain rule
(:mod:`sideways.scoring.cascade`); it lives apart because it fits :mod:`sideways.scoring.latent_class`, which reads
the plain rule.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from sideways.scoring import latent_class
from sideways.scoring.cascade import BoolArray, Escalate


def unsure(judgments: pd.DataFrame, keys: pd.DataFrame, first: Mapping[str, Sequence[str]],
           band: tuple[float, float], *, field: str = "both_correct", seed: int = 0) -> BoolArray:
    """Per (riddle_id, model) row of ``keys``, whether a verdicts-only latent-class fit
    (:mod:`sideways.scoring.latent_class`, no labels) of the first judges' verdicts of the row's model is unsure of
    it: its probability of being right for ``field`` strictly inside ``band`` (lo, hi). One fit per model, on that
    model's rows alone (what a model's judge job sees between its two rounds), seeded by ``seed`` and the model.

    Measured as an escalation rule beside :func:`sideways.scoring.cascade.escalated`
    (``benchmarks/studies/real_coverage.py --unsure``, docs/method.md §2): on settled rows the fit's probability is one
    number per (model, verdict pattern), so a band escalates whole patterns of a model or none."""
    out = np.zeros(len(keys), dtype=bool)
    at = {k: i for i, k in enumerate(zip(keys["riddle_id"], keys["model"], strict=True))}
    lo, hi = band
    for model in sorted(set(keys["model"])):
        heads = list(first.get(model, ()))
        own = judgments[(judgments["model"] == model) & judgments["judge"].isin(heads)]
        if not heads or own.empty:
            continue
        rows = keys[keys["model"] == model][["riddle_id", "model"]].assign(panel=",".join(heads))
        fit = latent_class.table_evidence(rows, own, pd.DataFrame())
        p = latent_class.sample(fit.evidence, field, seed=seed, stream=f"cascade/{model}").predicted
        for rid, m, x in zip(fit.keys["riddle_id"], fit.keys["model"], p, strict=True):
            out[at[(rid, m)]] = lo < float(x) < hi
    return out


def unsure_rule(band: tuple[float, float], seed: int = 0) -> Escalate:
    """:func:`unsure` with its band and seed, as :func:`sideways.scoring.cascade.drop_unasked`'s ``also``."""
    def rule(judgments: pd.DataFrame, keys: pd.DataFrame, first: Mapping[str, Sequence[str]]) -> BoolArray:
        return unsure(judgments, keys, first, band, seed=seed)
    return rule
