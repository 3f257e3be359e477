"""Every judge audited: its answer and justification sensitivity and specificity as the latent posterior sees
them, overall, toward each graded model's provider, and by the reply's length (docs/method.md §6, "Raters
audited").

Why: the latent posterior learns each judge's behaviour from every verdict and label of the split, but only
the scores were shown. A judge lenient toward one provider, or toward long replies, is a bias the user should
see by name, with how sure the posterior is of it.

The split's latent-class model (:func:`sideways.scoring.latent_class.sample`, default priors, every label) gives,
per kept draw d and row i, the probability that i's answer (and justification) is right, a labelled row's
given its label too. For judge k and a field, per draw,

    sensitivity_d = sum_i P_d(i right) [k said right] / sum_i P_d(i right)
    specificity_d = sum_i P_d(i wrong) [k said wrong] / sum_i P_d(i wrong)

over the rows of the group where k gave a verdict on the field; the estimate is the mean over draws and the 95%
interval the equal-tailed one of the mixture over draws of ``Beta(1/2 + yes_d, 1/2 + no_d)`` (the draws' doubt
about which rows are right, and the counts' own binomial doubt). Groups: every row (``all``), the rows of models
of one provider (``provider``: under the panel rule a judge never grades its own provider, so a preference for
one's own shows only as a difference between the others), and the thirds of the split's replies by length in
characters, answer plus justification (``length``: short, middle, long; a judge that favours long replies has a
lower specificity on the long third).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from sideways.scoring import latent_class
from sideways.scoring.ppi import FloatArray

#: The fields audited: name -> (the verdict column, the latent class model's field).
FIELDS = {"answer": ("is_answer_correct", "answer_correct"),
          "justification": ("is_justification_correct", "justification_correct")}
MEASURES = ("sensitivity", "specificity")
LENGTHS = ("short", "middle", "long")
#: Points of the rate grid the intervals are read on.
_GRID = (np.arange(1000) + 0.5) / 1000
#: Columns of :func:`audit_judges`'s table.
COLUMNS = ("judge", "judge_provider", "group", "value", "field", "measure", "estimate", "lo", "hi", "n")


@dataclass(frozen=True)
class JudgeRates:
    """Per draw and row: P(answer right), P(justification right); the rows' keys in the same order."""

    keys: pd.DataFrame
    right: dict[str, FloatArray]


def posterior_rows(jury: pd.DataFrame, judgments: pd.DataFrame, annotations: pd.DataFrame, *, seed: int,
                   stream: str, first: int = 0) -> JudgeRates:
    """The latent-class model's draws of each row's truth per field (one chain, both fields read from its classes);
    ``first``: a cascade's first judges (``jury.cascade.first``, 0 none): a later judge it did not ask is off the
    row's pattern, not a "no verdict" (:func:`sideways.scoring.latent_class.table_evidence`)."""
    rows = latent_class.table_evidence(jury, judgments, annotations, first)
    draws = latent_class.sample(rows.evidence, "both_correct", seed=seed, stream=f"{stream}\x1fjudges",
                                keep_classes=True)
    assert draws.row_classes is not None
    right = {f: draws.row_classes[:, :, list(latent_class.RIGHT[name])].sum(axis=2) for f, (_, name) in FIELDS.items()}
    return JudgeRates(rows.keys, right)


def _interval(yes: FloatArray, total: FloatArray) -> tuple[float, float, float]:
    """Mean over draws of yes / total, and the 95% equal-tailed interval of the Beta(1/2 + yes, 1/2 + no) mixture."""
    a, b = 0.5 + yes, 0.5 + np.maximum(total - yes, 0.0)
    logs = ((a - 1)[:, None] * np.log(_GRID)[None, :] + (b - 1)[:, None] * np.log1p(-_GRID)[None, :]
            + (latent_class.lgamma(a + b) - latent_class.lgamma(a) - latent_class.lgamma(b))[:, None])
    dens = np.exp(logs).mean(axis=0)
    cdf = np.cumsum(dens) / dens.sum()
    half = 0.5 / len(_GRID)  # each point stands for its cell: the interval runs from the cell's low to high edge
    lo = _GRID[min(int(np.searchsorted(cdf, 0.025)), len(_GRID) - 1)] - half
    hi = _GRID[min(int(np.searchsorted(cdf, 0.975)), len(_GRID) - 1)] + half
    mean = float(np.mean(yes / np.maximum(total, 1e-12)))
    return mean, max(0.0, float(lo)), min(1.0, float(hi))


def length_thirds(predictions: pd.DataFrame) -> pd.DataFrame:
    """(riddle_id, model, length) of every prediction: :data:`LENGTHS` by the characters of answer plus
    justification, cut at the split's own thirds."""
    chars = (predictions["answer"].fillna("").astype(str).str.len()
             + predictions["justification"].fillna("").astype(str).str.len())
    ranks = chars.rank(method="first").to_numpy()
    third = np.minimum((3 * (ranks - 1) / max(len(chars), 1)).astype(int), 2)
    return pd.DataFrame({"riddle_id": predictions["riddle_id"].astype(str).to_numpy(),
                         "model": predictions["model"].astype(str).to_numpy(),
                         "length": [LENGTHS[t] for t in third]})


def audit_judges(rates: JudgeRates, jury: pd.DataFrame, judgments: pd.DataFrame,
                 predictions: pd.DataFrame | None = None) -> pd.DataFrame:
    """One row per (judge, group, value, field, measure): estimate, 95% interval, ``n`` (the rows behind it,
    expected under the posterior); columns :data:`COLUMNS`, sorted. ``predictions`` (with answer and
    justification) adds the length groups."""
    keys = rates.keys.reset_index(drop=True).assign(row=lambda f: np.arange(len(f)))
    provider = jury.drop_duplicates("model").set_index("model")["provider"]
    keys["provider"] = keys["model"].map(provider).astype(str)
    if predictions is not None and len(predictions):
        keys = keys.merge(length_thirds(predictions), on=["riddle_id", "model"], how="left")
    ok = judgments[judgments["status"] == "ok"]
    on = ok.merge(keys, on=["riddle_id", "model"], how="inner")
    out = []
    for (judge, judge_provider), mine in on.groupby(["judge", "judge_provider"], sort=True):
        groups = [("all", "all", mine)]
        groups += [("provider", str(p), g) for p, g in mine.groupby("provider", sort=True)]
        if "length" in mine.columns:
            groups += [("length", t, mine[mine["length"] == t]) for t in LENGTHS if (mine["length"] == t).any()]
        for group, value, frame in groups:
            for field, (column, _) in FIELDS.items():
                said = frame[frame[column].notna()]
                if said.empty:
                    continue
                p = rates.right[field][:, said["row"].to_numpy()]
                yes = said[column].astype(bool).to_numpy()
                for measure, truth, hit in (("sensitivity", p, yes), ("specificity", 1 - p, ~yes)):
                    total, got = truth.sum(axis=1), (truth * hit).sum(axis=1)
                    est, lo, hi = _interval(got, total)
                    out.append((str(judge), str(judge_provider), group, value, field, measure, est, lo, hi,
                                float(total.mean())))
    return pd.DataFrame(out, columns=list(COLUMNS))
