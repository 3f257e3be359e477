"""How much one more label is expected to narrow the leaderboard's intervals: the annotation
app's ``width`` queue (issue 30).

The interval the ranks follow is the posterior one (docs/method.md §6): per model m and jury-score
bin v, the unlabelled predictions' right answers are beta-binomial, and a model's half-width is
about 1.96 sd(K_m) / n_m. The proxy here is v1's posterior (the pool of other providers as a
prior worth ``min(4, b_v + 1)`` labels, m's own labels on top), in closed form:

    Var_mv = u p (1 - p) (s + u) / (s + 1),   s = alpha + beta, p = alpha / s, u = unlabelled.

Labelling one more prediction of (m, v) leaves p where it is (in expectation) and turns u into
u - 1 and s into s + 1; the expected gain is the drop of sd(K_m) / n_m, the model's share of the
leaderboard's mean half-width. It is cheap (no convolution), so the app can ask it every time.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

#: The prior weight of the pool's rate in the proxy: v1's kappa cap (docs/method.md §6).
KAPPA = 4.0

Bin = tuple[int, int]


@dataclass
class Cell:
    """One (model, bin): its provider, predictions, labelled ones, and positive labels among those."""

    provider: str
    n: int = 0
    labelled: int = 0
    positive: int = 0


def count_variance(u: int, alpha: float, beta: float) -> float:
    """Variance of BetaBinomial(u, alpha, beta): the spread of the right answers among u unlabelled."""
    s = alpha + beta
    p = alpha / s
    return u * p * (1 - p) * (s + u) / (s + 1)


def _posterior(cell: Cell, pool: tuple[int, int]) -> tuple[float, float]:
    """(alpha, beta): the pool's Jeffreys-smoothed rate worth min(KAPPA, b + 1) labels, plus the cell's own."""
    pos, rows = pool
    mean = (pos + 0.5) / (rows + 1)
    kappa = min(KAPPA, rows + 1.0)
    return kappa * mean + cell.positive, kappa * (1 - mean) + cell.labelled - cell.positive


def _pools(cells: Mapping[tuple[str, Bin], Cell]) -> dict[tuple[str, Bin], tuple[int, int]]:
    """Per (provider, bin): the labelled rows and positives of every other provider."""
    total: dict[Bin, list[int]] = {}
    mine: dict[tuple[str, Bin], list[int]] = {}
    for (_, b), c in cells.items():
        for acc in (total.setdefault(b, [0, 0]), mine.setdefault((c.provider, b), [0, 0])):
            acc[0] += c.positive
            acc[1] += c.labelled
    return {(p, b): (total[b][0] - v[0], total[b][1] - v[1]) for (p, b), v in mine.items()}


def half_width_gains(cells: Mapping[tuple[str, Bin], Cell]) -> dict[tuple[str, Bin], float]:
    """(model, bin) -> the expected drop of the model's half-width (score units, / 1.96) from one more label there."""
    pools = _pools(cells)
    parts: dict[tuple[str, Bin], tuple[float, float]] = {}
    variance: dict[str, float] = {}
    size: dict[str, int] = {}
    for (model, b), c in cells.items():
        alpha, beta = _posterior(c, pools[(c.provider, b)])
        u = c.n - c.labelled
        now = count_variance(u, alpha, beta)
        after = count_variance(u - 1, alpha + alpha / (alpha + beta), beta + beta / (alpha + beta)) if u else now
        parts[(model, b)] = (now, after)
        variance[model] = variance.get(model, 0.0) + now
        size[model] = size.get(model, 0) + c.n
    return {(m, b): (math.sqrt(variance[m]) - math.sqrt(max(0.0, variance[m] - now + after))) / size[m]
            for (m, b), (now, after) in parts.items()}
