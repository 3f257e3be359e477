"""The ``latent`` queue's gain (docs/method.md §6, "Which labels next"): how much one more label is expected to
narrow the leaderboard's intervals, with each (model, jury-score bin)'s start read from the latent-class fit.

The default interval (the latent posterior, :mod:`sideways.scoring.latent_prior`) starts each model m's bin v at the
latent-class model's mean prediction there (clipped to [EDGE, 1 - EDGE]), worth a number of labels capped by the
bin's labels of other providers (``b_v + 1``), m's own labels on top. The gain mirrors
:mod:`~sideways.annotation_app.gain` with that start: per cell, the count variance of its u unlabelled rows is
:func:`~sideways.annotation_app.gain.count_variance` with p the fit's start and strength ``s = min(KAPPA, b_v + 1)``
plus m's labels there. One more label of (m, v) turns u into u - 1 and s into s + 1 for m, and adds one to the
start's weight of every other provider's model in v (while under the cap): the gain is the summed drop of each
model's sd / n, the leaderboard's mean half-width times the models. A cell weighs by the rows it holds and by how
unsure the fit is of them (p (1 - p)); a cell the judges settle (the fit sure, p at the edge) still gains while
its model has few labels there, as the interval's own weighing needs.

``KAPPA`` is v1's cap (4 labels), not the latent posterior's grid top (64): measured on the real file, the order
with 16 or 64 reached the random order's half-width with more labels (docs/method.md §6).

The fit is the expensive part and runs in the background (:class:`~sideways.annotation_app.uncertain.Scores`); what
it leaves is p per cell. Labels that arrive before the next fit move u, s and the pools in closed form, so the
order moves with every label while a request never fits.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping

import pandas as pd

from sideways.annotation_app.gain import Bin, Cell, count_variance
from sideways.annotation_app.uncertain import stream
from sideways.scoring import latent_class
from sideways.scoring.calibration import jury_bins
from sideways.scoring.hierarchy import EDGE

#: Per (model, bin): the latent-class fit's mean probability of being right over the cell's unlabelled rows.
CellFit = Mapping[tuple[str, Bin], float]

#: The most labels a cell's start is worth (v1's cap; see the module docstring).
KAPPA = 4.0


def cell_fit(jury: pd.DataFrame, judgments: pd.DataFrame, labels: pd.DataFrame, field: str, *, seed: int,
             split: str) -> dict[tuple[str, Bin], float]:
    """(model, bin) -> the mean over the cell's unlabelled rows of the latent-class model's P(right), clipped to
    [EDGE, 1 - EDGE] as the latent posterior's start is; ``labels``: the first label of each prediction, or an
    empty frame. Cells without an unlabelled row are left out. Seeded: the same inputs give the same numbers
    (rounded to 9 digits)."""
    first = labels.drop_duplicates(["riddle_id", "model"]) if len(labels) else labels
    rows = latent_class.table_evidence(jury, judgments, first)
    predicted = latent_class.sample(rows.evidence, field, seed=seed, stream=stream(split)).predicted
    votes = rows.keys.merge(jury[["riddle_id", "model", f"{field}_votes", f"{field}_judges"]],
                            on=["riddle_id", "model"], how="left")
    bins = jury_bins(votes[f"{field}_votes"].fillna(0).to_numpy(), votes[f"{field}_judges"].fillna(0).to_numpy())
    unlabelled = rows.evidence.label < 0
    sums: dict[tuple[str, Bin], list[float]] = {}
    for model, b, p, open_ in zip(rows.keys["model"], bins, predicted, unlabelled, strict=True):
        if open_:
            acc = sums.setdefault((str(model), (int(b[0]), int(b[1]))), [0.0, 0.0])
            acc[0] += float(p)
            acc[1] += 1
    return {key: round(min(max(total / n, EDGE), 1 - EDGE), 9) for key, (total, n) in sums.items()}


def fit_for(jury: pd.DataFrame, judgments: pd.DataFrame, field: str, seed: int,
            split: str) -> Callable[[pd.DataFrame], CellFit]:
    """:func:`cell_fit` on one split's tables, given the labels (the background fit of the app's ``latent`` queue)."""
    def fit(labels: pd.DataFrame) -> CellFit:
        return cell_fit(jury, judgments, labels, field, seed=seed, split=split)
    return fit


def _variance(c: Cell, p: float, kappa: float, more: int) -> float:
    """The count variance of ``c``'s unlabelled rows with ``more`` of them labelled (at the expected rate)."""
    u = c.n - c.labelled - more
    if u <= 0:
        return 0.0
    s = kappa + c.labelled + more
    return count_variance(u, p * s, (1 - p) * s)


def latent_gains(cells: Mapping[tuple[str, Bin], Cell], fit: CellFit) -> dict[tuple[str, Bin], float]:
    """(model, bin) -> the expected drop of the summed half-widths (score units, / 1.96) from one more label there,
    under the fit's starts ``fit`` (:func:`cell_fit`; a cell it lacks starts at 1/2) and the labels in ``cells``."""
    pool: dict[Bin, int] = {}
    mine: dict[tuple[str, Bin], int] = {}
    for (_, b), c in cells.items():
        pool[b] = pool.get(b, 0) + c.labelled
        mine[(c.provider, b)] = mine.get((c.provider, b), 0) + c.labelled
    start = {key: min(max(fit.get(key, 0.5), EDGE), 1 - EDGE) for key in cells}
    kappa = {(m, b): min(KAPPA, pool[b] - mine[(c.provider, b)] + 1.0) for (m, b), c in cells.items()}
    now = {key: _variance(c, start[key], kappa[key], 0) for key, c in cells.items()}
    variance: dict[str, float] = {}
    size: dict[str, int] = {}
    by_bin: dict[Bin, list[tuple[str, Cell]]] = {}
    for (m, b), c in cells.items():
        variance[m] = variance.get(m, 0.0) + now[(m, b)]
        size[m] = size.get(m, 0) + c.n
        by_bin.setdefault(b, []).append((m, c))

    def drop(m: str, b: Bin, after: float) -> float:
        return (math.sqrt(variance[m]) - math.sqrt(max(0.0, variance[m] - now[(m, b)] + after))) / size[m]

    out: dict[tuple[str, Bin], float] = {}
    for (m, b), c in cells.items():
        gain = drop(m, b, _variance(c, start[(m, b)], kappa[(m, b)], 1))
        for m2, c2 in by_bin[b]:  # the start's weight grows for every other provider's model in the bin
            if c2.provider != c.provider and kappa[(m2, b)] < KAPPA:
                gain += drop(m2, b, _variance(c2, start[(m2, b)], kappa[(m2, b)] + 1, 0))
        out[(m, b)] = gain
    return out
