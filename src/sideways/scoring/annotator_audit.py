"""Every annotator audited: agreement with the second annotator, and the error rates the latent posterior gives
each one (docs/method.md §6, "Raters audited").

Why: the default posterior takes an annotator for one more rater whose label flips each field with a small
rate, shared by every annotator (:data:`sideways.scoring.latent_class.LABEL_ERROR`). One careless annotator
(a justification marked right whenever the answer is) then moves scores by more than their intervals while the
shared rate barely moves. Read per annotator, the same model tells them apart.

For annotator A: the latent-class model of the split (:func:`sideways.scoring.latent_class.sample`, default
priors) is fitted on every label but A's, and each row A labelled gets its class probabilities from that fit
(its panel, its model's shares, the riddle's state, the other annotators' labels). A's answer and justification
error rates ``(e_a, e_j)`` then have the posterior

    p(e_a, e_j | A's labels) ~ Beta(e_a; LABEL_ERROR) Beta(e_j; LABEL_ERROR)
                                prod_i sum_c P(c_i = c) e_a^[a_i != a(c)] (1 - e_a)^[a_i == a(c)] e_j^... (1 - e_j)^...

computed on a grid (:data:`GRID`), each field's marginal summarised by its mean and 95% equal-tailed interval. A's
own labels never judge A.

**The double labels.** Where several annotators labelled the same prediction (one label each, its first), their
labels of a field either all agree or not. Where they do not, each label is charged the posterior probability that
it is the wrong one: the field's truth ``t`` has the prior the judges give it (the latent-class model fitted once on
every label of a prediction labelled once, so that each disputed prediction's class comes from its panel, its
model's shares and its riddle's state, the judges read against the undisputed labels) and each label of it is
wrong with the same probability (the shared label error's mean, 2%): the null hypothesis the test asks about. Two
labels that differ cancel and the judges decide; a third label settles it. A disagreement thus counts against
whichever side the evidence on that prediction says erred, fractionally, not against both nor against whoever has
the higher overall rate.

A's charged errors ``D`` (rounded) of its ``n`` labels on predictions labelled more than once are set against the
other annotators' charged errors ``D_o`` of their ``n_o``: the one-sided p-value is ``P(X >= D)`` for ``X``
beta-binomial with ``n`` trials and the others' error rate's posterior ``Beta(1 + D_o, 49 + n_o - D_o)``
(:data:`PAIR_PRIOR`: the shared label error's prior, 2%, worth 50 labels). Why beta-binomial: it is A's count as it
would be if A erred like the others, with the others' rate as uncertain as their labels leave it. **The
reference is robust:** an annotator whose own p-value, against all the others pooled, is below
:data:`SUSPECT_LEVEL` is left out of every other annotator's reference, so one bad annotator does not widen the
reference the next one is tested against (with every other one suspect, the reference is the prior alone).

**The flag** (both rules fixed before anything was measured), per field:

- the latent rule: the lower end of A's 95% interval is above twice the median of the other annotators' posterior
  means on that field (with at least one other annotator): an error rate clearly at least double the typical
  annotator's;
- the pair rule: the p-value above is below :data:`PAIR_LEVEL`. A careful annotator paired with a careless one is
  not charged the careless one's errors, the judges saying on which side each disputed label fell.
"""

from __future__ import annotations

import math
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd

from sideways.scoring import latent_class
from sideways.scoring.ppi import FloatArray

#: The label fields audited: name -> label column.
FIELDS = {"answer": "human_answer_correct", "justification": "human_justification_correct"}
#: The grid of each field's error rate: 200 cell midpoints on [0, 0.5] (a rate above 1/2 is a rater who
#: inverts labels, not one who errs).
GRID = (np.arange(200) + 0.5) / 400
#: The flag: the lower end of the 95% interval above this multiple of the others' median rate.
FLAG_RATIO = 2.0
#: The pair rule's level: one-sided, per annotator and field.
PAIR_LEVEL = 0.01
#: The prior of the other annotators' charged error rate (module docstring): Beta(1, 49), mean 2%.
PAIR_PRIOR = (1.0, 49.0)
#: An annotator whose own pair p-value is below this is left out of the others' references (module docstring).
SUSPECT_LEVEL = 0.05
#: Each label's error probability when charging a disagreement (the shared label error's prior mean).
CHARGE_ERROR = 0.02
#: Rows of the likelihood computed at once (memory: rows x grid x grid floats).
_CHUNK = 64


@dataclass(frozen=True)
class Rate:
    """A posterior summary: mean and 95% equal-tailed interval."""

    mean: float
    lo: float
    hi: float


@dataclass(frozen=True)
class Pairs:
    """One annotator's pair test on one field (module docstring): ``d`` of its ``n`` labels on predictions labelled
    more than once differ from another label, ``charged`` errors charged to it, the others' charged errors
    ``others_d`` of their ``others_n`` labels (suspects left out), the one-sided p-value (None: no pair), and the
    annotators it disagreed with."""

    d: int
    n: int
    others_d: float
    others_n: int
    p: float | None
    against: tuple[str, ...] = ()
    charged: float = 0.0


@dataclass(frozen=True)
class AnnotatorAudit:
    """One annotator: ``labels`` read (rows with a jury verdict), ``double`` predictions another annotator labelled
    too, per field the share agreeing there (Cohen's kappa per pair: :mod:`sideways.annotation.agreement`), the error
    rates, and the fields flagged; per field, the pair test (:class:`Pairs`)."""

    annotator: str
    labels: int
    double: int
    agreement: dict[str, float | None]
    error: dict[str, Rate]
    flagged: tuple[str, ...]
    reference: dict[str, float]
    pairs: dict[str, Pairs] = field(default_factory=dict)

    def evidence(self) -> str:
        """One line saying why the annotator is flagged (empty when not)."""
        parts = []
        for f in self.flagged:
            r = self.error[f]
            agree = self.agreement[f]
            pair = self.pairs.get(f)
            if pair is not None and pair.p is not None:
                told = (f"; {pair.d}/{pair.n} double differ, {pair.charged:.1f} its errors, others "
                        f"{pair.others_d:.1f}/{pair.others_n}, p={pair.p:.2g}")
            else:
                told = "" if agree is None else f", {100 * agree:.0f}% agreed of {self.double} double"
            parts.append(f"{f} error {100 * r.mean:.1f}% [{100 * r.lo:.1f}, {100 * r.hi:.1f}], others' median "
                         f"{100 * self.reference[f]:.1f}%{told}")
        return "; ".join(parts)


def label_rows(frame: pd.DataFrame) -> pd.DataFrame:
    """Every label as (riddle_id, model, annotator, answer, justification) in the given order, labels missing a
    field dropped; ``frame`` an ANNOTATIONS table or the label log's surviving labels."""
    cols = ["riddle_id", "model", "annotator", *FIELDS.values()]
    if not len(frame):
        return pd.DataFrame({c: pd.Series(dtype=object) for c in cols})
    out = frame.reindex(columns=cols)
    out = out[out[FIELDS["answer"]].notna() & out[FIELDS["justification"]].notna()].copy()
    out["annotator"] = out["annotator"].fillna("").astype(str)
    for c in FIELDS.values():
        out[c] = out[c].astype(bool)
    return out.reset_index(drop=True)


def _first_labels(rows: pd.DataFrame, keys: pd.DataFrame) -> np.ndarray:
    """Each evidence row's label class from the first of ``rows`` on its prediction (-1: none)."""
    first = rows.drop_duplicates(["riddle_id", "model"], keep="first")
    merged = keys.merge(first, on=["riddle_id", "model"], how="left")
    out = np.full(len(keys), -1, dtype=np.int64)
    known = merged[FIELDS["answer"]].notna().to_numpy()
    out[known] = latent_class.label_class(merged[FIELDS["answer"]][known], merged[FIELDS["justification"]][known])
    return out


def _marginals(classes: FloatArray, label: np.ndarray) -> tuple[Rate, Rate]:
    """The answer and justification error rates' posterior on :data:`GRID` (module docstring)."""
    c = np.arange(latent_class.CLASSES)
    ma = (label[:, None] % 2) == (c[None, :] % 2)  # rows x classes: the answer label matches the class
    mj = (label[:, None] // 2) == (c[None, :] // 2)
    log_e, log_1e = np.log(GRID), np.log1p(-GRID)
    a, b = latent_class.LABEL_ERROR if latent_class.LABEL_ERROR is not None else (1.0, 49.0)
    prior = (a - 1) * log_e + (b - 1) * log_1e
    logpost = prior[:, None] + prior[None, :]
    for start in range(0, len(label), _CHUNK):
        p = classes[start:start + _CHUNK]
        fa = np.where(ma[start:start + _CHUNK, :, None], np.exp(log_1e), np.exp(log_e))  # rows x classes x grid
        fj = np.where(mj[start:start + _CHUNK, :, None], np.exp(log_1e), np.exp(log_e))
        like = np.einsum("rc,rca,rcb->rab", p, fa, fj)
        logpost += np.log(np.maximum(like, 1e-300)).sum(axis=0)
    w = np.exp(logpost - logpost.max())
    w /= w.sum()
    return _summary(w.sum(axis=1)), _summary(w.sum(axis=0))


def _summary(weights: FloatArray) -> Rate:
    """Mean and 95% equal-tailed interval of a distribution on :data:`GRID` (each point the middle of its cell)."""
    cdf = np.cumsum(weights)
    edges = np.arange(len(GRID) + 1) / (2 * len(GRID))

    def quantile(q: float) -> float:
        i = int(np.searchsorted(cdf, q))
        i = min(i, len(GRID) - 1)
        below = cdf[i - 1] if i else 0.0
        inside = (q - below) / weights[i] if weights[i] > 0 else 0.0
        return float(edges[i] + inside * (edges[i + 1] - edges[i]))

    return Rate(float((weights * GRID).sum()), quantile(0.025), quantile(0.975))


def _agreement(rows: pd.DataFrame, annotator: str) -> tuple[int, dict[str, float | None]]:
    """Predictions ``annotator`` labelled that another labelled too (the first other label), and the share agreeing
    per field."""
    mine = rows[rows["annotator"] == annotator].drop_duplicates(["riddle_id", "model"])
    other = rows[rows["annotator"] != annotator].drop_duplicates(["riddle_id", "model"])
    both = mine.merge(other, on=["riddle_id", "model"], suffixes=("", "_other"))
    share: dict[str, float | None] = {}
    for f, col in FIELDS.items():
        x, y = both[col].astype(bool).tolist(), both[f"{col}_other"].astype(bool).tolist()
        share[f] = (sum(p == q for p, q in zip(x, y, strict=True)) / len(x)) if x else None
    return len(both), share


def charges(rows: pd.DataFrame, truth: pd.DataFrame) -> pd.DataFrame:
    """Every label on a prediction more than one annotator labelled (each annotator's first), per field whether it
    differs from another label there and the error charged to it (module docstring); ``truth``: per prediction
    (riddle_id, model), each field's prior probability of being right (columns named by :data:`FIELDS`)."""
    once = rows.drop_duplicates(["riddle_id", "model", "annotator"])
    multi = once[once.duplicated(["riddle_id", "model"], keep=False)]
    out = multi[["riddle_id", "model", "annotator"]].reset_index(drop=True)
    merged = multi.merge(truth, on=["riddle_id", "model"], how="left", suffixes=("", "_truth"))
    step = math.log((1 - CHARGE_ERROR) / CHARGE_ERROR)
    keys = [merged["riddle_id"], merged["model"]]
    for f, col in FIELDS.items():
        label = merged[col].astype(bool).to_numpy()
        prior = np.clip(merged[f"{col}_truth"].fillna(0.5).to_numpy(dtype=float), 1e-9, 1 - 1e-9)
        sign = pd.Series(np.where(label, step, -step))
        votes = sign.groupby(keys).transform("sum").to_numpy()
        ones = pd.Series(label.astype(int)).groupby(keys).transform("sum").to_numpy()
        count = pd.Series(label).groupby(keys).transform("size").to_numpy()
        right = 1 / (1 + np.exp(-(np.log(prior) - np.log1p(-prior) + votes)))  # P(t = right | all labels)
        differ = (ones > 0) & (ones < count)
        out[f"{f}_differ"] = differ
        out[f"{f}_charge"] = np.where(differ, np.where(label, 1 - right, right), 0.0)
    return out


def pair_tests(rows: pd.DataFrame, truth: pd.DataFrame) -> dict[str, dict[str, Pairs]]:
    """Per annotator of ``rows`` and field, the pair test (module docstring), ``truth`` as in :func:`charges`."""
    names = sorted(rows["annotator"].unique())
    charged = charges(rows, truth)
    out: dict[str, dict[str, Pairs]] = {n: {} for n in names}
    for f in FIELDS:
        per = {n: charged[charged["annotator"] == n] for n in names}
        count = {n: len(per[n]) for n in names}
        load = {n: float(per[n][f"{f}_charge"].sum()) for n in names}

        suspect = {n for n in names
                   if (_tested(n, [o for o in names if o != n], load, count) or 1.0) < SUSPECT_LEVEL}
        for n in names:
            pool = [o for o in names if o != n and o not in suspect]
            mine = per[n]
            differ = mine[mine[f"{f}_differ"]][["riddle_id", "model"]]
            against = charged.merge(differ, on=["riddle_id", "model"])
            who = tuple(sorted(set(against["annotator"].astype(str)) - {n}))
            out[n][f] = Pairs(int(mine[f"{f}_differ"].sum()), count[n], sum(load[o] for o in pool),
                              sum(count[o] for o in pool), _tested(n, pool, load, count), who, load[n])
    return out


def _tested(name: str, pool: list[str], load: dict[str, float], count: dict[str, int]) -> float | None:
    """``name``'s charged errors (rounded) against those of ``pool`` pooled: :func:`pair_p`."""
    return pair_p(math.floor(load[name] + 0.5), count[name], sum(load[o] for o in pool), sum(count[o] for o in pool))


def pair_p(d: int, n: int, others_d: float, others_n: int) -> float | None:
    """P(X >= d), X beta-binomial(n, 1 + others_d, 49 + others_n - others_d) (module docstring); None without
    a pair."""
    if n <= 0:
        return None
    a, b = PAIR_PRIOR[0] + others_d, PAIR_PRIOR[1] + others_n - others_d
    if d <= 0:
        return 1.0

    def log_pmf(k: int) -> float:
        return (math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1) + _log_beta(k + a, n - k + b)
                - _log_beta(a, b))

    return min(1.0, math.fsum(math.exp(log_pmf(k)) for k in range(d, n + 1)))


def _log_beta(a: float, b: float) -> float:
    return math.lgamma(a) + math.lgamma(b) - math.lgamma(a + b)


def flag_fields(error: dict[str, Rate], reference: dict[str, float], pairs: dict[str, Pairs]) -> tuple[str, ...]:
    """The fields flagged (module docstring: the latent rule, or the pair rule on the charged errors)."""
    out = []
    for f in FIELDS:
        if math.isnan(reference[f]):
            continue
        latent = error[f].lo > FLAG_RATIO * reference[f]
        pair = pairs.get(f)
        paired = pair is not None and pair.p is not None and pair.p < PAIR_LEVEL
        if latent or paired:
            out.append(f)
    return tuple(out)


def audit_annotators(jury: pd.DataFrame, judgments: pd.DataFrame, labels: pd.DataFrame, *, seed: int,
                     stream: str, first: int = 0) -> list[AnnotatorAudit]:
    """Every annotator of ``labels`` (:func:`label_rows`) audited against one split's panels (module docstring),
    sorted by name. Each annotator's fit is seeded by (seed, stream, annotator): the same inputs, the same bytes."""
    rows = label_rows(labels)
    if rows.empty:
        return []
    evidence = latent_class.table_evidence(jury, judgments, rows.drop_duplicates(["riddle_id", "model"]), first)
    keys = evidence.keys
    names = sorted(rows["annotator"].unique())
    rates: dict[str, tuple[int, dict[str, Rate]]] = {}
    for name in names:
        others = rows[rows["annotator"] != name]
        held = replace(evidence.evidence, label=_first_labels(others, keys))
        mine = _first_labels(rows[rows["annotator"] == name], keys)
        at = mine >= 0
        if not at.any():
            rates[name] = (0, {f: _summary(_prior_weights()) for f in FIELDS})
            continue
        draws = latent_class.sample(held, "both_correct", seed=seed, stream=f"{stream}\x1faudit\x1f{name}")
        ea, ej = _marginals(draws.classes[at], mine[at])
        rates[name] = (int(at.sum()), {"answer": ea, "justification": ej})
    tests = pair_tests(rows, _judged(evidence, rows, seed=seed, stream=stream))
    out = []
    for name in names:
        count, error = rates[name]
        reference = {f: _median([rates[o][1][f].mean for o in names if o != name and rates[o][0] > 0])
                     for f in FIELDS}
        pairs = tests[name]
        flagged = flag_fields(error, reference, pairs) if count else ()
        double, share = _agreement(rows, name)
        out.append(AnnotatorAudit(name, count, double, share, error, flagged, reference, pairs))
    return out


def _judged(evidence: latent_class.Rows, rows: pd.DataFrame, *, seed: int, stream: str) -> pd.DataFrame:
    """Each prediction's probability that its answer (justification) is right, from one fit on the labels of the
    predictions labelled once (module docstring): the disputed ones read from their panels."""
    once = rows.drop_duplicates(["riddle_id", "model", "annotator"])
    single = once[~once.duplicated(["riddle_id", "model"], keep=False)]
    label = _first_labels(single, evidence.keys)
    draws = latent_class.sample(replace(evidence.evidence, label=label), "both_correct", seed=seed,
                                stream=f"{stream}\x1faudit\x1fdisputed")
    c = np.arange(latent_class.CLASSES)
    out = evidence.keys[["riddle_id", "model"]].copy()
    out[FIELDS["answer"]] = draws.classes[:, c % 2 == 1].sum(axis=1)
    out[FIELDS["justification"]] = draws.classes[:, c // 2 == 1].sum(axis=1)
    return out


def _prior_weights() -> FloatArray:
    """The prior of one field's rate on :data:`GRID` (an annotator with no label read)."""
    a, b = latent_class.LABEL_ERROR if latent_class.LABEL_ERROR is not None else (1.0, 49.0)
    w = np.exp((a - 1) * np.log(GRID) + (b - 1) * np.log1p(-GRID))
    out: FloatArray = w / w.sum()
    return out


def _median(values: Sequence[float]) -> float:
    return float(np.median(values)) if values else math.nan


def _rate(r: Rate) -> str:
    return f"{100 * r.mean:4.1f}% [{100 * r.lo:.1f}, {100 * r.hi:.1f}]"


def _share(v: float | None) -> str:
    return "n/a" if v is None else f"{100 * v:.0f}%"


def annotator_lines(audits: list[AnnotatorAudit]) -> list[str]:
    """The annotators' table and, per flagged annotator, its evidence (:meth:`AnnotatorAudit.evidence`) in lines
    under 120 columns (a long one continues, indented, on the next)."""
    if not audits:
        return ["no label yet: nothing to audit"]
    width = min(24, max(len("annotator"), *(len(a.annotator) for a in audits)))
    out = [f"{'annotator':<{width}} {'labels':>6} {'double':>6} {'agree a/j':>11}  "
           f"{'answer error':<22} justification error"]
    for a in audits:
        agree = f"{_share(a.agreement['answer'])}/{_share(a.agreement['justification'])}"
        name = a.annotator if len(a.annotator) <= width else a.annotator[: width - 1] + "~"
        flag = "  FLAGGED" if a.flagged else ""
        out.append(f"{name:<{width}} {a.labels:>6} {a.double:>6} {agree:>11}  {_rate(a.error['answer']):<22} "
                   f"{_rate(a.error['justification']):<22}{flag}".rstrip())
    for a in audits:
        if a.flagged:  # the whole evidence, wrapped: the report's record holds it whole too
            out += textwrap.wrap(f"flagged: {a.annotator[:40]}: {a.evidence()}", 116, subsequent_indent="    ",
                                 break_on_hyphens=False)
    return out
