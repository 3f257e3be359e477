"""Where the latent posterior's width goes: its interval rebuilt with one part at a time given up (docs/method.md §6).

Why: in simulation the latent posterior is about twice the oracle's width (:mod:`lab.oracle`), and a
narrower interval must know which of its parts costs what. Each step below keeps the latent posterior's machinery
(:func:`sideways.scoring.latent_prior.binned_priors`, :func:`sideways.scoring.hierarchy.prior_counts`) and changes
one input, cumulatively:

- ``starts``: each row's start is a given probability (the oracle's, in simulation) instead of the latent-class
  fit's held-out prediction: what learning the judges and the models costs;
- ``level``: the (kappa, sigma) grid kept to sigma = 0: no model-level shift around the starts (the prior's
  guard against starts that are wrong for one model);
- ``strata``: the bins are strata of the start (:data:`CUTS`) instead of the jury's vote count, so that rows of
  one bin share nearly one rate: what binning by votes costs.

``strata`` is also measured alone, on the latent-class fit's own predictions (:func:`stratified`): a candidate
design, narrower in 11 of 12 simulated cells, rejected on real judges (docs/method.md, "Where the latent
posterior's width goes"). Measurement code: the grid is changed in-process, inside :func:`level_grid`, and put back.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager

import numpy as np
import pandas as pd

from sideways.scoring import hierarchy
from sideways.scoring.calibration import jury_bins
from sideways.scoring.hierarchy import prior_counts
from sideways.scoring.latent_prior import binned_priors

#: Cut points of the strata of a row's probability of being right: symmetric on the logit scale (about -3.9,
#: -1.4, 0, 1.4, 3.9), six strata; fixed before any measurement on real judges.
CUTS = (0.02, 0.2, 0.5, 0.8, 0.98)


def stratified(jury: pd.DataFrame, predicted: pd.DataFrame, field: str,
               cuts: Sequence[float] = CUTS) -> pd.DataFrame:
    """``jury`` with each judged row's ``{field}_votes`` / ``{field}_judges`` replaced by its stratum ``s`` of
    ``predicted`` (riddle_id, model, predicted) as the bin ``s / len(cuts)``, so that every binning reads strata;
    rows without a jury score are left as they are."""
    p = jury[["riddle_id", "model"]].merge(predicted[["riddle_id", "model", "predicted"]],
                                           on=["riddle_id", "model"], how="left")["predicted"].to_numpy()
    judged = (jury[f"{field}_judges"] > 0).to_numpy()
    if np.isnan(p[judged]).any():
        raise ValueError("stratified: a judged row has no predicted probability")
    out = jury.copy()
    out.loc[judged, f"{field}_votes"] = np.searchsorted(np.asarray(cuts), p[judged])
    out.loc[judged, f"{field}_judges"] = len(cuts)
    return out


@contextmanager
def level_grid(sigma_zero: bool) -> Iterator[None]:
    """Within: the hierarchy's (kappa, sigma) grid kept to sigma = 0 when ``sigma_zero``; put back on leaving."""
    kept = hierarchy.GRID
    if sigma_zero:
        hierarchy.GRID = tuple(g for g in kept if g[1] == 0.0)
    try:
        yield
    finally:
        hierarchy.GRID = kept


def binned_intervals(jury: pd.DataFrame, labels: pd.DataFrame, predicted: pd.DataFrame, field: str,
                     models: Sequence[str]) -> dict[str, tuple[int, int, int]]:
    """model -> (K_lo, K_hi, n): the latent posterior's 95% set of the model's count over its judged rows of
    ``jury``, its rows started at ``predicted`` (riddle_id, model, predicted, and label_right when labels may
    be wrong), binned as ``jury``'s votes say."""
    priors = binned_priors(jury, labels, predicted, field)
    rows = jury[jury[f"{field}_judges"] > 0].merge(labels[["riddle_id", "model", f"human_{field}"]],
                                                   on=["riddle_id", "model"], how="left")
    bins = jury_bins(rows[f"{field}_votes"].to_numpy(), rows[f"{field}_judges"].to_numpy())
    hists: dict[str, dict[tuple[int, int], list[int]]] = {m: {} for m in models}
    for b, m, lab in zip(bins, rows["model"], rows[f"human_{field}"], strict=True):
        if m not in hists:
            continue
        cell = hists[m].setdefault(b, [0, 0, 0])  # rows, positive labels, labels
        cell[0] += 1
        if not pd.isna(lab):
            cell[1] += int(bool(lab))
            cell[2] += 1
    out = {}
    for model, hist in hists.items():
        order = sorted(hist, key=lambda b: b[0] / b[1])
        lo, hi = prior_counts([hist[b][0] for b in order], [(hist[b][1], hist[b][2]) for b in order],
                              priors[model], order)
        out[model] = (lo, hi, sum(hist[b][0] for b in order))
    return out


def given_starts(jury: pd.DataFrame, labels: pd.DataFrame, without_label: Mapping[tuple[str, str], float],
                 with_label: Mapping[tuple[str, str], float]) -> pd.DataFrame:
    """(riddle_id, model, predicted, label_right) of every row of ``jury`` from given probabilities keyed by
    (model, riddle): ``predicted`` without the row's label, ``label_right`` with it at labelled rows (NaN
    elsewhere): the ``given`` of :func:`parts`, e.g. the oracle's."""
    labelled = set(zip(labels["model"], labels["riddle_id"], strict=True))
    keys = list(zip(jury["model"], jury["riddle_id"], strict=True))
    return jury[["riddle_id", "model"]].assign(
        predicted=[without_label[k] for k in keys],
        label_right=[with_label[k] if k in labelled else np.nan for k in keys])


def parts(jury: pd.DataFrame, labels: pd.DataFrame, fitted: pd.DataFrame, given: pd.DataFrame, field: str,
          models: Sequence[str]) -> Mapping[str, dict[str, tuple[int, int, int]]]:
    """step -> model -> (K_lo, K_hi, n), the steps of the module docstring: ``latent`` (the fit's predictions
    ``fitted``, as built), ``latent_strata`` (the fit's, binned by their strata), then cumulatively ``starts``
    (the ``given`` probabilities), ``starts_level`` (and sigma 0) and ``starts_level_strata`` (and strata)."""
    out = {"latent": binned_intervals(jury, labels, fitted, field, models),
           "latent_strata": binned_intervals(stratified(jury, fitted, field), labels, fitted, field, models),
           "starts": binned_intervals(jury, labels, given, field, models)}
    with level_grid(True):
        out["starts_level"] = binned_intervals(jury, labels, given, field, models)
        out["starts_level_strata"] = binned_intervals(stratified(jury, given, field), labels, given, field, models)
    return out
