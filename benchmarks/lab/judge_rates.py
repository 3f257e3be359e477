"""Do a jury's rates transfer? Each judge's verdicts against the human labels, by riddle set and by model graded.

Why: the latent posterior learns each judge's rates from the split it scores and shares them across the models
the judge grades. In simulation, an interval that knew the judges' rates and let them lean toward each model
(a leniency with a spread) would cover every cell measured (docs/method.md §6, "Judges known beforehand"). Two
assumptions decide whether judge rates carried from earlier calibrations could give that: that a judge's rates
on one set of riddles hold on another, and how far they move with the model graded. Both are read here from
labelled rows, the label taken for the truth.

For judge k, field f (answer or justification) and truth t (the label right or wrong), the rate is the share of
k's verdicts on f that say "right" among the labelled rows whose label of f is t: a sensitivity (t right) or a
false-positive rate (t wrong). Across groups g (two riddle sets, or the models k grades) with ``yes_g`` of
``n_g`` such verdicts, :func:`heterogeneity` gives Pearson's X^2 of the 2 x G table (about its degrees of
freedom G - 1 when the groups share one rate) and the DerSimonian-Laird moment estimate of the between-group sd
of the logit rate, ``tau``:

    y_g = logit((yes_g + 1/2) / (n_g + 1)),   v_g = 1 / (yes_g + 1/2) + 1 / (n_g - yes_g + 1/2),   w_g = 1 / v_g
    Q   = sum_g w_g (y_g - ybar)^2,   ybar = sum w y / sum w
    tau^2 = max(0, (Q - (G - 1)) / (sum w - sum w^2 / sum w))

``tau`` is on the scale of the simulator's ``model_spread`` (a judge's logit rates moved by ``spread * z``,
``z ~ N(0, 1)``, per model graded).
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

#: The verdict fields read, with the label column each is checked against.
FIELDS = {"answer": ("is_answer_correct", "human_answer_correct"),
          "justification": ("is_justification_correct", "human_justification_correct")}


@dataclass(frozen=True)
class Spread:
    """How one rate differs across groups: Pearson's X^2 and its degrees of freedom, and the between-group sd of the
    logit rate (``tau``, DerSimonian-Laird; 0 when the groups agree within chance)."""

    x2: float
    df: int
    tau: float


def labelled_verdicts(judgments: pd.DataFrame, annotations: pd.DataFrame) -> pd.DataFrame:
    """One row per (judgment, field) of a labelled prediction: judge, judge_provider, model, riddle_id, field, said
    (the verdict: "right"), truth (the label); verdicts that are missing (no verdict on that field) or not ``ok``
    are left out."""
    ok = judgments[judgments["status"] == "ok"]
    rows = ok.merge(annotations, on=["riddle_id", "model"], how="inner")
    parts = []
    for field, (said, label) in FIELDS.items():
        known = rows[rows[said].notna() & rows[label].notna()]
        parts.append(pd.DataFrame({"judge": known["judge"].astype(str),
                                   "judge_provider": known["judge_provider"].astype(str),
                                   "model": known["model"].astype(str),
                                   "riddle_id": known["riddle_id"].astype(str), "field": field,
                                   "said": known[said].astype(bool).to_numpy(),
                                   "truth": known[label].astype(bool).to_numpy()}))
    return pd.concat(parts, ignore_index=True)


def heterogeneity(yes: Sequence[int], n: Sequence[int]) -> Spread:
    """Pearson's X^2 and the DerSimonian-Laird ``tau`` (module docstring) of the rates ``yes / n`` of groups; groups
    with no verdicts are left out, and fewer than two groups left, or groups that all say one thing (a pooled rate
    of 0 or 1: no information on a spread), give X^2 0 on 0 degrees of freedom."""
    y_n = [(int(a), int(b)) for a, b in zip(yes, n, strict=True) if b > 0]
    if len(y_n) < 2:
        return Spread(0.0, 0, 0.0)
    a = np.array([p[0] for p in y_n], dtype=float)
    b = np.array([p[1] for p in y_n], dtype=float)
    pooled = a.sum() / b.sum()
    if not 0 < pooled < 1:
        return Spread(0.0, 0, 0.0)
    expected_yes, expected_no = b * pooled, b * (1 - pooled)
    x2 = float((((a - expected_yes) ** 2) / expected_yes + (((b - a) - expected_no) ** 2) / expected_no).sum())
    y = np.log((a + 0.5) / (b - a + 0.5))
    w = 1 / (1 / (a + 0.5) + 1 / (b - a + 0.5))
    ybar = float((w * y).sum() / w.sum())
    q = float((w * (y - ybar) ** 2).sum())
    scale = float(w.sum() - (w ** 2).sum() / w.sum())
    tau2 = max(0.0, (q - (len(y_n) - 1)) / scale) if scale > 0 else 0.0
    return Spread(x2, len(y_n) - 1, math.sqrt(tau2))


def riddle_set(riddle_ids: pd.Series, pattern: str) -> pd.Series:
    """True where a riddle id matches ``pattern`` (a regular expression searched from the id's start), e.g. ``W``
    for layton-eval's weekly puzzles against the games' own."""
    rx = re.compile(pattern)
    return riddle_ids.map(lambda r: bool(rx.match(str(r))))


def spreads(verdicts: pd.DataFrame, by: str) -> pd.DataFrame:
    """Per (judge, field, truth): its verdicts' count and rate, and the :func:`heterogeneity` of the rate across the
    values of column ``by`` (e.g. ``model``, or a riddle set); columns judge, field, truth, verdicts, rate, groups,
    x2, df, tau."""
    out = []
    for (judge, field, truth), rows in verdicts.groupby(["judge", "field", "truth"], sort=True):
        counts = rows.groupby(by)["said"].agg(["sum", "size"])
        s = heterogeneity(counts["sum"].tolist(), counts["size"].tolist())
        out.append({"judge": judge, "field": field, "truth": bool(truth), "verdicts": len(rows),
                    "rate": float(rows["said"].mean()), "groups": len(counts), "x2": s.x2, "df": s.df,
                    "tau": s.tau})
    return pd.DataFrame(out)


def pooled(table: pd.DataFrame) -> dict[str, float]:
    """The tests of :func:`spreads` pooled: X^2 and degrees of freedom summed (independent tables under the null),
    their ratio, the z of the sum against its null (``(X^2 - df) / sqrt(2 df)``), and the tests' median ``tau``."""
    x2, df = float(table["x2"].sum()), int(table["df"].sum())
    return {"x2": x2, "df": df, "ratio": x2 / df if df else math.nan,
            "z": (x2 - df) / math.sqrt(2 * df) if df else math.nan,
            "median_tau": float(table["tau"].median()) if len(table) else math.nan}


def simulated_ratios(verdicts: pd.DataFrame, by: str, spread: float, repeats: int, seed: int) -> np.ndarray:
    """The pooled X^2 / df of :func:`spreads` across ``by`` on ``repeats`` tables drawn like ``verdicts`` (the same
    verdict counts per group) from each (judge, field, truth)'s own rate moved on the logit scale by ``spread * z_g``,
    ``z_g ~ N(0, 1)`` one per value of ``by`` for every judge, field and truth (the simulator's leniency toward a
    model): the test's distribution where the rates transfer (``spread`` 0) and where they lean by ``spread``, at
    this file's counts, so that an observed ratio can be read against both."""
    rng = np.random.default_rng(seed)
    cells = []
    for _, rows in verdicts.groupby(["judge", "field", "truth"], sort=True):
        counts = rows.groupby(by)["said"].agg(["sum", "size"])
        rate = (counts["sum"].sum() + 0.5) / (counts["size"].sum() + 1)
        cells.append((counts.index.to_list(), counts["size"].to_numpy(), math.log(rate / (1 - rate))))
    groups = sorted({g for names, _, _ in cells for g in names})
    out = np.empty(repeats)
    for i in range(repeats):
        z = dict(zip(groups, rng.standard_normal(len(groups)), strict=True))
        x2 = df = 0.0
        for names, n, logit in cells:
            p = 1 / (1 + np.exp(-(logit + spread * np.array([z[g] for g in names]))))
            s = heterogeneity(rng.binomial(n, p).tolist(), n.tolist())
            x2, df = x2 + s.x2, df + s.df
        out[i] = x2 / df if df else math.nan
    return out
