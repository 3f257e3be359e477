"""Every pair of an exam's models at once: the paired difference of :mod:`sideways.exams.changes`
(a weighted mean of per-question differences, its standard error clustered by topic, or by
question when the pair shares one topic) from one questions x models matrix, in a few matrix
products instead of a loop over pairs.

For models a (ranked above) and b, on the questions both answered (mask M), with a's weights w
and values x: S_w = sum w_a M_b, change c = sum w_a M_b (x_b - x_a) / S_w, and per topic t the
cluster sum C_t = (sum_t w_a M_b (x_b - x_a) - c sum_t w_a M_b) / S_w; each sum over questions
is a product of two matrices (questions x models), so all pairs cost O(questions x models^2)
multiply-adds (BLAS) plus O(topics x models^2), with O(questions x models) memory. Clustered by
question, sum_i (w_a (d_i - c))^2 expands into three such products.

The matrix sums round differently from the pair-by-pair sums, so a pair is decided here only
when both ends of its interval are farther from 0 than a bound on that rounding (a standard
dot-product error bound, times 4); the others come back as ``unsure`` for the caller to
recompute exactly. Two models with the same answers are never apart (their difference is 0).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
import pandas as pd
from pandas.api.extensions import ExtensionArray

ArrayLike = npt.NDArray[np.object_] | ExtensionArray  # strings as Python objects or in Arrow

EPS = float(np.finfo(np.float64).eps)
Matrix = npt.NDArray[np.float64]
Flags = npt.NDArray[np.bool_]


@dataclass(frozen=True)
class PairIntervals:
    """Upper-triangular flags over models in the given order: ``apart[i, j]`` (i < j) when the
    pair's 95% interval surely excludes 0; ``unsure[i, j]`` when rounding could decide it."""

    apart: Flags
    unsure: Flags


@dataclass(frozen=True)
class ValueTable:
    """The questions x models matrices, questions grouped by topic (``bounds``: each topic's rows)."""

    x: Matrix
    w: Matrix
    mask: Matrix
    bounds: list[tuple[int, int]]
    same_topics: bool


def value_table(item_ids: ArrayLike, topics: ArrayLike, x: Matrix, w: Matrix,
                cols: npt.NDArray[np.int64], models: int) -> ValueTable:
    """The matrices of value rows (question, topic, x, w) each in model column ``cols`` (of ``models``);
    ``item_ids`` and ``topics``: any array pandas factorizes (object or Arrow-backed strings: the same codes)."""
    rows, _ = pd.Index(item_ids).factorize()
    topic_codes, _ = pd.Index(topics).factorize()
    n = int(rows.max()) + 1 if len(rows) else 0
    topic_of = np.full(n, -1, dtype=np.int64)
    topic_of[rows] = topic_codes
    same_topics = bool(np.all(topic_of[rows] == topic_codes))
    place = np.argsort(topic_of, kind="stable")
    position = np.empty(n, dtype=np.int64)
    position[place] = np.arange(n)
    xm, wm, mask = (np.zeros((n, models)) for _ in range(3))
    r = position[rows]
    xm[r, cols], wm[r, cols], mask[r, cols] = x, w, 1.0
    cuts = np.flatnonzero(np.diff(topic_of[place])) + 1
    edges = [0, *cuts.tolist(), n]
    return ValueTable(xm, wm, mask, [(a, b) for a, b in zip(edges[:-1], edges[1:], strict=True) if b > a],
                      same_topics)


def _table(values: Sequence[pd.DataFrame]) -> ValueTable:
    """Each model's ``x, w, topic`` by question (:func:`sideways.exams.changes._values`) as matrices."""
    if not values:
        return value_table(np.array([], dtype=object), np.array([], dtype=object), np.zeros(0), np.zeros(0),
                           np.zeros(0, dtype=np.int64), 0)
    return value_table(np.concatenate([v.index.to_numpy(dtype=object) for v in values]),
                       np.concatenate([v["topic"].to_numpy(dtype=object) for v in values]),
                       np.concatenate([v["x"].to_numpy(dtype=float) for v in values]),
                       np.concatenate([v["w"].to_numpy(dtype=float) for v in values]),
                       np.repeat(np.arange(len(values)), [len(v) for v in values]), len(values))


def _identical(t: ValueTable) -> Flags:
    """Pairs of models with the same values on the same questions."""
    first: dict[bytes, int] = {}
    ids = np.array([first.setdefault(t.x[:, j].tobytes() + t.mask[:, j].tobytes(), j) for j in range(t.x.shape[1])])
    return np.asarray(ids[:, None] == ids[None, :])


Gram = Callable[[Matrix, Matrix], Matrix]


def _gram(fresh: Flags | None) -> Gram:
    """``a.T @ b`` over models; with ``fresh``, only the rows and columns of the fresh models (the
    rest 0): the pairs between two models whose decision is already known cost nothing, and adding
    one model to m costs O(questions x m) instead of O(questions x m^2)."""
    if fresh is None or fresh.all():
        return lambda a, b: a.T @ b
    cols = np.flatnonzero(fresh)

    def product(a: Matrix, b: Matrix) -> Matrix:
        out = np.zeros((a.shape[1], b.shape[1]))
        out[cols, :] = a[:, cols].T @ b
        out[:, cols] = a.T @ b[:, cols]
        return out
    return product


def pair_intervals(values: Sequence[pd.DataFrame] | ValueTable, crit: Callable[[int], float],
                   fresh: Sequence[bool] | None = None) -> PairIntervals:
    """The pairs apart and the pairs to recompute, for models ``values`` (best first; or their
    :class:`ValueTable`, one column per model in that order).

    ``crit(df)`` is the two-sided 95% critical value of Student's t with ``df`` degrees of freedom.
    ``fresh`` (one flag per model): only the pairs with at least one fresh model are decided; the
    others come back neither apart nor unsure (the caller knows them). A pair's decision depends on
    its two models' values alone (the rounding bound makes it exact), so it is the same either way.
    """
    m = values.x.shape[1] if isinstance(values, ValueTable) else len(values)
    needed = np.ones((m, m), dtype=bool) if fresh is None else np.logical_or.outer(fresh, fresh)
    upper = np.triu(np.ones((m, m), dtype=bool), k=1) & needed
    if m < 2:
        return PairIntervals(np.zeros((m, m), dtype=bool), np.zeros((m, m), dtype=bool))
    t = values if isinstance(values, ValueTable) else _table(values)
    if not t.same_topics:
        return PairIntervals(np.zeros((m, m), dtype=bool), upper)
    gram = _gram(None if fresh is None else np.asarray(fresh, dtype=bool))
    x, w, mask = t.x, t.w, t.mask
    wx = w * x
    shared = gram(mask, mask)
    s_w = gram(w, mask)
    with np.errstate(divide="ignore", invalid="ignore"):
        c = (gram(w, x) - gram(wx, mask)) / s_w
    ss_topic, g_topic = np.zeros((m, m)), np.zeros((m, m))
    for lo_row, hi_row in t.bounds:
        sl = slice(lo_row, hi_row)
        a_t = gram(w[sl], x[sl]) - gram(wx[sl], mask[sl])
        b_t = gram(w[sl], mask[sl])
        with np.errstate(divide="ignore", invalid="ignore"):
            ss_topic += ((a_t - c * b_t) / s_w) ** 2
        g_topic += gram(mask[sl], mask[sl]) > 0
    by_topic = g_topic > 1
    g = np.where(by_topic, g_topic, shared)
    ss = ss_topic
    xmax = float(np.max(np.abs(x))) if x.size else 0.0
    gamma = (x.shape[0] + 2) * EPS
    err_c = 2 * gamma * xmax
    err_ss = np.zeros((m, m))
    if np.any(~by_topic & upper & (shared > 1)):
        ss_item, err_ss = _by_question(x, w, mask, c, s_w, gamma, xmax, err_c, gram)
        ss = np.where(by_topic, ss_topic, ss_item)
        err_ss = np.where(by_topic, 0.0, err_ss)
    valid = upper & (shared > 0) & (g > 1) & np.isfinite(c)
    crit_of = np.zeros((m, m))
    for df in np.unique(g[valid]).astype(int):
        crit_of[valid & (g == df)] = crit(int(df) - 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        factor = np.where(g > 1, g / (g - 1), np.nan)
        se = np.sqrt(factor * ss)
        err_se = np.where(by_topic, 9 * gamma * xmax * np.sqrt(factor), np.sqrt(factor * err_ss))
    lo, hi = c - crit_of * se, c + crit_of * se
    margin = 4 * (err_c + crit_of * err_se + (gamma + EPS) * (np.abs(c) + crit_of * se))
    close = np.minimum(np.abs(lo), np.abs(hi)) <= margin
    valid &= ~_identical(t)
    unsure = valid & close
    return PairIntervals(valid & ~close & ((lo > 0) | (hi < 0)), unsure)


def _by_question(x: Matrix, w: Matrix, mask: Matrix, c: Matrix, s_w: Matrix, gamma: float, xmax: float,
                 err_c: float, gram: Gram) -> tuple[Matrix, Matrix]:
    """sum_i (w_a (d_i - c))^2 / S_w^2 over the shared questions (clusters of one question), and a
    bound on its rounding: Q2 - 2 c Q1 + c^2 Q0 with Q_k = sum w_a^2 M_b d^k."""
    w2 = w * w
    w2x = w2 * x
    q0 = gram(w2, mask)
    q1 = gram(w2, x) - gram(w2x, mask)
    q2 = gram(w2, x * x) - 2 * gram(w2x, x) + gram(w2x * x, mask)
    with np.errstate(divide="ignore", invalid="ignore"):
        ss = np.maximum(q2 - 2 * c * q1 + c * c * q0, 0.0) / (s_w * s_w)
        spread = 2 * xmax + np.abs(c)
        err = (4 * gamma * q0 * spread**2 + 2 * q0 * spread * err_c) / (s_w * s_w)
    return ss, err
