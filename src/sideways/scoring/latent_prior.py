"""The ``latent`` posterior's per-bin prior (docs/method.md §6): the latent-class model's predictions,
averaged per model and jury-score bin, as the start of each bin's rate; how much that start is worth
chosen by the data, as the hierarchical prior does.

Why not the latent-class model's own count: its judges are conditionally independent given the class
(or nearly), so a rare disagreement pattern looks decisive, and on real judges, which err together on
hard riddles, a hidden row of a pattern no label shows is then predicted with 99.98% confidence and
missed (measured: 90% coverage at share 1/8 on the vendored LLM file). Averaged over a bin and worth
at most ``b_v + 1`` labels (``b_v`` the bin's labelled rows of other providers), the start keeps what
the model knows where labels confirm it (the extreme bins: rates of 0.0002 and 0.9998 worth up to 64
labels, where v1's pool rate is worth 4) and stays honest where they are few (the middle bins).

For model m and bin v: ``eta_mv = logit(mean of predicted[i] over m's rows i in v)``, the
prediction of each row without its own label (:attr:`sideways.scoring.latent_class.Draws.predicted`),
moved by the offset ``d_v`` the other providers' labels show in the bin
(:func:`sideways.scoring.hierarchy.bin_offsets`, :data:`sideways.scoring.latent_class.RECALIBRATE`: where the
whole jury errs together the fit starts a bin too low for every model, and the pool's labels say where);
then :func:`sideways.scoring.hierarchy.spread_weights` weighs the (kappa, sigma) grid by every model's own labels
and :func:`sideways.scoring.hierarchy.prior_counts` gives the interval.

Labels may be wrong (the annotator is one more rater of the latent-class model): each of m's labelled rows
gets P(right | its label, its verdicts, the other providers' labels) from the fit that hid its provider's
labels (:func:`sideways.scoring.latent_class.label_posterior`), kept in the prior
(:attr:`sideways.scoring.hierarchy.Prior.labelled`), and the labelled rows' count is their Poisson-binomial,
convolved into the count, not the labels' sum; the paired draws read the same probabilities. The bins'
update still counts each label as an observation of its bin's rate.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import replace

import numpy as np
import pandas as pd

from sideways.scoring import latent_class
from sideways.scoring.hierarchy import EDGE, Prior, bin_offsets, settled, spread_weights
from sideways.scoring.ppi import FloatArray

Bin = tuple[int, int]


def latent_priors(
    models: Sequence[str], bins: Sequence[Bin], predicted: FloatArray, labels: Sequence[bool | None],
    providers: Mapping[str, str], label_right: FloatArray | None = None, riddles: Sequence[str] | None = None,
) -> dict[str, Prior]:
    """model -> its :class:`~sideways.scoring.hierarchy.Prior` from per-row ``models``, ``bins``,
    ``predicted`` (P(right) without the row's label) and ``labels`` (True/False, None when unlabelled);
    ``label_right``: per row, P(right) given its label too, with ``riddles`` the rows' riddles (read at the
    labelled rows: their count is then uncertain, :attr:`~sideways.scoring.hierarchy.Prior.labelled`; None: a
    label is the truth)."""
    names = sorted(set(models))
    all_bins = sorted(set(bins), key=lambda b: b[0] / b[1])
    mi = {m: i for i, m in enumerate(names)}
    bi = {b: j for j, b in enumerate(all_bins)}
    shape = (len(names), len(all_bins))
    hist, mass, pos, size = (np.zeros(shape) for _ in range(4))
    for m, b, p, lab in zip(models, bins, predicted, labels, strict=True):
        cell = (mi[m], bi[b])
        hist[cell] += 1
        mass[cell] += p
        if lab is not None:
            size[cell] += 1
            pos[cell] += bool(lab)
    mean = np.clip(mass / np.maximum(hist, 1), EDGE, 1 - EDGE)
    eta = np.log(mean / (1 - mean))
    prov = np.array([providers[m] for m in names])
    if latent_class.RECALIBRATE is not None:  # each bin's start moved by the pool's offset there
        offsets = bin_offsets(eta, pos, size, prov.tolist(), latent_class.RECALIBRATE)
        eta = np.clip(eta + offsets, math.log(EDGE / (1 - EDGE)), math.log((1 - EDGE) / EDGE))
    pool_rows = np.stack([size[prov != prov[i]].sum(axis=0) for i in range(len(names))]) if names else size
    spread = tuple(spread_weights(eta, pool_rows, pos, size))
    own: dict[str, dict[str, float]] = {m: {} for m in names}
    if label_right is not None:
        if riddles is None:
            raise ValueError("latent_priors: label_right needs the rows' riddles")
        for m, r, p, lab in zip(models, riddles, label_right, labels, strict=True):
            if lab is not None:  # a label the latent-class model could not read (a field missing): the label
                own[m][str(r)] = float(bool(lab)) if math.isnan(p) else float(p)
    return {m: settled(Prior({b: float(eta[i, j]) for j, b in enumerate(all_bins) if hist[i, j] > 0},
                             {b: int(pool_rows[i, j]) for j, b in enumerate(all_bins) if hist[i, j] > 0}, spread,
                             None if label_right is None else own[m]))
            for i, m in enumerate(names)}


def stream(split: str, field: str) -> str:
    """The sampler's stream for a split and field: the calibrate stage and the paired draws use the same."""
    return f"{split}\x1f{field}"


def predictions(jury: pd.DataFrame, judgments: pd.DataFrame, annotations: pd.DataFrame, field: str, *,
                seed: int, stream: str, first: int = 0) -> pd.DataFrame:
    """(riddle_id, model, predicted, label_right) of every row with a verdict: P(right) by the latent-class
    model fitted without the labels of the row's provider's models (one fit per provider, each seeded by
    ``seed``, ``stream`` and the provider), so that a model's own labels are counted once, in its bins'
    update, and not also in where its bins start (the hierarchical prior's rule, docs/method.md §6);
    ``label_right``, at a labelled row, P(right) given its label as well (Bayes' rule with the labels' error
    rates of the same fit, :func:`sideways.scoring.latent_class.label_posterior`), NaN elsewhere; without that
    column when :data:`sideways.scoring.latent_class.LABEL_ERROR` is None (labels taken as the truth). ``first`` > 0:
    the jury is a cascade whose first ``first`` judges grade every row (the verdicts it did not ask are
    marginalised, :func:`sideways.scoring.latent_class.table_evidence`)."""
    providers = jury.drop_duplicates("model").set_index("model")["provider"]
    rows = latent_class.table_evidence(jury, judgments, annotations, first)  # the rows do not depend on the labels
    row_provider = rows.keys["model"].map(providers).to_numpy()
    parts = []
    for provider in sorted(set(providers)):
        mine = row_provider == provider
        held = replace(rows.evidence, label=np.where(mine, -1, rows.evidence.label))
        error_prior = latent_class.LABEL_ERROR  # read at call time: None takes every label for the truth
        draws = latent_class.sample(held, field, seed=seed, stream=f"{stream}\x1f{provider}", label_error=error_prior)
        part = rows.keys[mine].assign(predicted=draws.predicted[mine])
        if error_prior is not None:
            label, error = rows.evidence.label[mine], draws.label_error.mean(axis=0)
            right = latent_class.label_posterior(draws.classes[mine], label, error, field)
            part = part.assign(label_right=np.where(label >= 0, right, np.nan))
        parts.append(part)
    out: pd.DataFrame = pd.concat(parts, ignore_index=True)
    return out


def binned_priors(jury: pd.DataFrame, annotations: pd.DataFrame, predicted: pd.DataFrame, field: str,
                  ) -> dict[str, Prior]:
    """model -> its latent prior from each row's held-out prediction (:func:`predictions`), binned by the
    field's jury score, weighed by the labels of ``annotations``."""
    cols = ["riddle_id", "model", "provider", f"{field}_votes", f"{field}_judges"]
    frame = predicted.merge(jury[cols], on=["riddle_id", "model"])
    frame = frame[frame[f"{field}_judges"] > 0]
    label = f"human_{field}"
    if label in annotations.columns and len(annotations):
        frame = frame.merge(annotations[["riddle_id", "model", label]], on=["riddle_id", "model"], how="left")
        labels = [None if pd.isna(v) else bool(v) for v in frame[label]]
    else:
        labels = [None] * len(frame)
    votes, judges = frame[f"{field}_votes"].to_numpy(), frame[f"{field}_judges"].to_numpy()
    g = np.gcd(votes, judges)
    bins = list(zip((votes // g).tolist(), (judges // g).tolist(), strict=True))
    providers = dict(zip(frame["model"], frame["provider"], strict=True))
    label_right = frame["label_right"].to_numpy() if "label_right" in frame.columns else None
    return latent_priors(frame["model"].tolist(), bins, frame["predicted"].to_numpy(), labels, providers, label_right,
                         frame["riddle_id"].tolist())


def table_priors(jury: pd.DataFrame, judgments: pd.DataFrame, annotations: pd.DataFrame, field: str, *,
                 seed: int, stream: str, first: int = 0) -> dict[str, Prior]:
    """model -> its latent prior, from a split's tables: the latent-class model sampled on every row with a
    verdict (seeded by ``seed`` and ``stream``, e.g. the split and field), its held-out predictions binned
    by the field's jury score (docs/method.md §6); ``first``: a cascade's first judges (:func:`predictions`).
    Under a cascade the bins (votes / judges) tell settled rows (0/2, 2/2) from escalated ones (1/3, 2/3)."""
    pred = predictions(jury, judgments, annotations, field, seed=seed, stream=stream, first=first)
    return binned_priors(jury, annotations, pred, field)
