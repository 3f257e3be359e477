"""Paired draws of every model's true score on a split's riddles (docs/method.md §8).

Two scores are compared *paired*: on the same riddles, with the same random numbers. A draw
follows the estimator the leaderboard ranks by, so that every score, change, tie group and rank
set comes from one posterior. With a posterior (§6): per jury-score bin v a rate
r_v ~ Beta(alpha_v, beta_v) (v1: the pool of other providers as a prior worth at most
``kappa_max`` labels, updated by the model's own labels; hierarchical: first a component of its
mixture, picked by weight with a seeded uniform, then that component's beta), then each
unlabelled prediction in bin v is right when its uniform u < r_v; a labelled one is what its
label says. With the published interval (:func:`published_draws`): its own bootstrap, per bin a
binomial count at the pool's rate, as quantiles of seeded uniforms. A model's score in
a draw is the share of its predictions that are right, so one version's draws are its posterior
exactly (sum of beta-binomials). The uniforms are seeded by (seed, model, riddle) and the rates'
quantiles by (seed, model, bin), not by version: two versions of a split use the same
random numbers, so a prediction whose evidence did not change is right or wrong in both, and
the difference's spread is what changed. With ``riddles=True`` every draw also resamples the
riddles (a seeded multinomial, the same for every model and version): the question becomes the
score on a new draw of riddles rather than on these.

Element 0 of every array is the estimate: the posterior mean, (k + sum_v (n_v - l_v) E[r_v]) / n,
which is the leaderboard's score (the score of §6 is the posterior mean); for the published
interval, the published score.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from sideways.core.errors import CalibrationError
from sideways.scoring.calibration import jury_bins
from sideways.scoring.hierarchy import Prior, mixture_rates, prior_from_json
from sideways.scoring.posterior import KAPPA_MAX
from sideways.scoring.ppi import FloatArray

#: Draws of a paired comparison (seeded; 2,000 resolve a 95% interval's ends to about a point).
REPLICATES = 2000


@dataclass(frozen=True)
class Evidence:
    """One version of a split, per model, on a fixed riddle order: jury bin and human label.

    ``bins[m]`` holds, per riddle, the index of the model's jury-score bin in ``bin_names``
    (-1: no jury score); ``labels[m]`` the human label (1, 0; -1: not labelled).
    """

    riddles: tuple[str, ...]
    providers: dict[str, str]
    bin_names: tuple[tuple[int, int], ...]
    bins: dict[str, np.ndarray]
    labels: dict[str, np.ndarray]

    @property
    def models(self) -> list[str]:
        return sorted(self.providers)


def evidence(jury: pd.DataFrame, annotations: pd.DataFrame, field: str, riddles: Sequence[str]) -> Evidence:
    """The :class:`Evidence` of a split's jury and annotation tables on ``riddles`` (in that order)."""
    order = {r: i for i, r in enumerate(riddles)}
    rows = jury[jury["riddle_id"].isin(order) & (jury[f"{field}_judges"] > 0)]
    pairs = jury_bins(rows[f"{field}_votes"].to_numpy(), rows[f"{field}_judges"].to_numpy())
    names = tuple(sorted(set(pairs), key=lambda b: b[0] / b[1]))
    index = {b: i for i, b in enumerate(names)}
    label_of = _labels(annotations, field)
    providers = dict(zip(jury["model"], jury["provider"], strict=True))
    bins = {m: np.full(len(riddles), -1, dtype=np.int64) for m in providers}
    labels = {m: np.full(len(riddles), -1, dtype=np.int64) for m in providers}
    for (riddle, model), b in zip(rows[["riddle_id", "model"]].itertuples(index=False), pairs, strict=True):
        bins[model][order[riddle]] = index[b]
        labels[model][order[riddle]] = label_of.get((riddle, model), -1)
    return Evidence(tuple(riddles), providers, names, bins, labels)


def _labels(annotations: pd.DataFrame, field: str) -> dict[tuple[str, str], int]:
    """(riddle, model) -> the human label of ``field`` as 0 or 1."""
    column = f"human_{field}"
    if column not in annotations.columns:
        raise CalibrationError(f"paired scores: annotations have no column {column!r}")
    rows = annotations[annotations[column].notna()]
    return {(r, m): int(bool(v)) for r, m, v in rows[["riddle_id", "model", column]].itertuples(index=False)}


def riddle_weights(n_riddles: int, replicates: int, seed: int, resample: bool) -> np.ndarray:
    """(replicates + 1) x riddles: row 0 all ones, then ones or seeded multinomial resamples."""
    if not resample:
        return np.ones((replicates + 1, n_riddles))
    rng = np.random.default_rng(np.random.SeedSequence([seed, 0x5EED, n_riddles]))
    draws = rng.multinomial(n_riddles, np.full(n_riddles, 1.0 / n_riddles), size=replicates)
    return np.vstack([np.ones((1, n_riddles), dtype=np.int64), draws]).astype(np.float64)


def _rng(seed: int, *names: object) -> np.random.Generator:
    """A generator keyed by ``seed`` and names (SHA-256, not Python's salted hash)."""
    digest = hashlib.sha256("\x1f".join(map(str, names)).encode()).digest()
    return np.random.default_rng(np.random.SeedSequence([seed, *(int.from_bytes(digest[i:i + 4], "little")
                                                                 for i in range(0, 16, 4))]))


Counts = tuple[FloatArray, FloatArray, FloatArray]


def _all_counts(ev: Evidence) -> dict[str, Counts]:
    """Per model: labelled predictions l_v and positive labels k_v per bin, and the pool's (a_v, b_v)
    stacked as a 2 x bins array (positives, rows) from every model of another provider. The pool is
    every model's tally less its own provider's, so all models cost O(models), not O(models^2); the
    counts are integers, exact in float64 in any order of summation."""
    def tally(m: str) -> FloatArray:
        b, lab = ev.bins[m], ev.labels[m]
        keep = (b >= 0) & (lab >= 0)
        size = np.bincount(b[keep], minlength=len(ev.bin_names)).astype(np.float64)
        pos = np.bincount(b[keep & (lab == 1)], minlength=len(ev.bin_names)).astype(np.float64)
        return np.array([pos, size])
    own = {m: tally(m) for m in ev.models}
    total = np.zeros((2, len(ev.bin_names)))
    by_provider: dict[str, FloatArray] = {}
    for m, t in own.items():
        total = total + t
        by_provider[ev.providers[m]] = by_provider.get(ev.providers[m], np.zeros_like(t)) + t
    return {m: (t[0], t[1], total - by_provider[ev.providers[m]]) for m, t in own.items()}


def _counts(ev: Evidence, model: str) -> Counts:
    """:func:`_all_counts` of one model."""
    return _all_counts(ev)[model]


#: Grid points of the numerical Beta quantile function (midpoints of [0, 1]).
_GRID = 4096


def beta_quantile(alpha: float, beta: float, q: FloatArray) -> FloatArray:
    """Quantiles ``q`` of Beta(alpha, beta), from its density on a midpoint grid (no scipy)."""
    x = (np.arange(_GRID) + 0.5) / _GRID
    log_pdf = (alpha - 1) * np.log(x) + (beta - 1) * np.log1p(-x)
    cdf = np.cumsum(np.exp(log_pdf - log_pdf.max()))
    return np.asarray(np.interp(q * cdf[-1], cdf, x), dtype=np.float64)


_X = (np.arange(_GRID) + 0.5) / _GRID
_LOG_X, _LOG_1MX = np.log(_X), np.log1p(-_X)


def beta_quantiles(alpha: FloatArray, beta: FloatArray, rows: np.ndarray, q: FloatArray) -> FloatArray:
    """``q[i]``'s quantile of Beta(alpha[rows[i]], beta[rows[i]]), every row at once: :func:`beta_quantile`'s grid
    for each Beta used, the CDFs normalised and stacked (row k on [2k, 2k + 1]) so that one ``interp`` serves all; a
    mixture's hundreds of components cost one pass instead of one call each."""
    used, which = np.unique(rows, return_inverse=True)
    log_pdf = (alpha[used] - 1)[:, None] * _LOG_X + (beta[used] - 1)[:, None] * _LOG_1MX
    cdf = np.cumsum(np.exp(log_pdf - log_pdf.max(axis=1, keepdims=True)), axis=1)
    cdf /= cdf[:, -1:]
    # row k on [2k, 2k + 1]: a gap between rows, so that a row starting at 0 (its density underflows there)
    # never meets the previous row's end; below a row's first point, its first x, as interp clamps
    target = 2 * which + np.maximum(q, cdf[which, 0])
    stacked = (cdf + 2 * np.arange(len(used))[:, None]).ravel()
    return np.asarray(np.interp(target, stacked, np.tile(_X, len(used))), dtype=np.float64)


def _components(ev: Evidence, model: str, kappa_max: float, prior: Prior | None,
                counts: Counts | None = None) -> tuple[FloatArray, FloatArray, FloatArray]:
    """(alpha, beta, weights): the posterior's beta per mixture component and bin (components x bins)
    and the components' weights. v1 (``prior`` None) is one component; the hierarchical posterior's
    are those of :func:`sideways.scoring.hierarchy.mixture_rates` on the bins the model has."""
    k, lab, (a, b) = counts if counts is not None else _counts(ev, model)
    mean = (a + 0.5) / (b + 1.0)
    kappa = np.minimum(kappa_max, b + 1.0)
    alpha, beta = (kappa * mean + k)[None, :], (kappa * (1 - mean) + lab - k)[None, :]
    if prior is None:
        return alpha, beta, np.ones(1)
    present = [v for v in range(len(ev.bin_names)) if bool(np.any(ev.bins[model] == v))]
    own = [(int(k[v]), int(lab[v])) for v in present]
    mix_a, mix_b, weights = mixture_rates(own, prior, [ev.bin_names[v] for v in present])
    alpha, beta = np.repeat(alpha, len(weights), axis=0), np.repeat(beta, len(weights), axis=0)
    alpha[:, present], beta[:, present] = mix_a, mix_b
    return alpha, beta, weights


def _rates(ev: Evidence, model: str, replicates: int, seed: int, kappa_max: float,
           prior: Prior | None = None, counts: Counts | None = None) -> tuple[FloatArray, FloatArray]:
    """(posterior mean rate per bin, replicates x bins drawn rates). Each bin's rates are Beta
    quantiles of uniforms seeded per (seed, model, bin): versions with the same bin draw the same
    quantiles, so their rates move together (a comonotone coupling); a mixture's component is
    picked by a uniform seeded per (seed, model), the same in every version too, through the components
    ordered by the count of right answers they expect among the model's unlabelled rows: the same
    uniform then picks the same quantile of the mixture in both versions, even where a refit drops,
    adds or reweighs a component (the latent posterior's chain is refitted on every version)."""
    alpha, beta, weights = _components(ev, model, kappa_max, prior, counts)
    pick = np.zeros(replicates, dtype=np.int64)
    if len(weights) > 1:
        free = ev.bins[model][(ev.bins[model] >= 0) & (ev.labels[model] < 0)]
        order = np.argsort((alpha / (alpha + beta)) @ np.bincount(free, minlength=alpha.shape[1]), kind="stable")
        alpha, beta, weights = alpha[order], beta[order], weights[order]
        cdf = np.cumsum(weights)
        pick = np.minimum(np.searchsorted(cdf, _rng(seed, "component", model).random(replicates) * cdf[-1]),
                          len(weights) - 1)
    draws = np.empty((replicates, len(ev.bin_names)))
    for v, name in enumerate(ev.bin_names):
        q = _rng(seed, "rate", model, *name).random(replicates)
        if len(weights) == 1:
            draws[:, v] = beta_quantile(float(alpha[0, v]), float(beta[0, v]), q)
        else:
            draws[:, v] = beta_quantiles(alpha[:, v], beta[:, v], pick, q)
    return weights @ (alpha / (alpha + beta)), draws


def _uniforms(ev: Evidence, model: str, replicates: int, seed: int) -> FloatArray:
    """replicates x riddles uniforms, one stream per (seed, model, riddle): the same in every version."""
    return np.stack([_rng(seed, "truth", model, r).random(replicates) for r in ev.riddles], axis=1)


def model_draws(ev: Evidence, *, seed: int, replicates: int = REPLICATES, resample_riddles: bool = False,
                kappa_max: float = KAPPA_MAX,
                priors: Mapping[str, Prior | None] | None = None) -> dict[str, FloatArray]:
    """Per model, its score: element 0 the posterior mean, then ``replicates`` paired draws: from v1's
    posterior, or from a model's mixture prior in ``priors`` (the hierarchical or latent posterior's, as
    the scores table keeps them). A model without one keeps v1's, as in the scores."""
    w = riddle_weights(len(ev.riddles), replicates, seed, resample_riddles)
    priors = priors or {}
    counts = _all_counts(ev)
    out: dict[str, FloatArray] = {}
    for model in ev.models:
        bins, lab = ev.bins[model], ev.labels[model]
        scored = bins >= 0
        prior = priors.get(model)
        mean, rates = _rates(ev, model, replicates, seed, kappa_max, prior, counts[model])
        safe = np.maximum(bins, 0)
        uniforms = _uniforms(ev, model, replicates, seed)
        truth = (lab == 1).astype(np.float64)  # a labelled row's chance of being right: its label, or the prior's
        if prior is not None and prior.labelled is not None:
            truth = np.array([prior.labelled.get(r, t) if k >= 0 else t
                              for r, t, k in zip(ev.riddles, truth, lab, strict=True)])
        right = np.where(lab >= 0, uniforms < truth[None, :], uniforms < rates[:, safe]) & scored
        expected = np.where(lab >= 0, truth, mean[safe] if len(mean) else 0.0) * scored
        right_all = np.vstack([expected[None, :], right.astype(np.float64)])
        total = (w * scored).sum(axis=1)
        out[model] = np.divide((w * right_all).sum(axis=1), total, out=np.full(len(total), np.nan), where=total > 0)
    return out


def binomial_quantile(n: int, p: float, q: FloatArray) -> np.ndarray:
    """Quantiles ``q`` of Binomial(n, p): the smallest k with CDF(k) >= q (log-space pmf, no scipy)."""
    k = np.arange(n + 1)
    if p <= 0 or p >= 1:
        return np.full(len(q), 0 if p <= 0 else n, dtype=np.int64)
    log_pmf = (np.array([math.lgamma(n + 1) - math.lgamma(i + 1) - math.lgamma(n - i + 1) for i in k])
               + k * math.log(p) + (n - k) * math.log1p(-p))
    cdf = np.cumsum(np.exp(log_pmf))
    return np.minimum(np.searchsorted(cdf / cdf[-1], q, side="left"), n).astype(np.int64)


def published_draws(ev: Evidence, scores: dict[str, float], *, seed: int,
                    replicates: int = REPLICATES) -> dict[str, FloatArray]:
    """Per model, the published interval's own bootstrap (docs/method.md §4): element 0 its published
    score (``scores``), then ``replicates`` draws of (1/n) sum_v S_v, S_v ~ Binomial(n_v, p_v), p_v the
    share of positive labels among the other providers' pool rows of bin v (an empty pool bin borrows
    the nearest non-empty one, the lower on a tie, as ``empty_bin: nearest`` does). Each bin's counts
    are quantiles of uniforms seeded per (seed, model, bin), so two versions' draws are coupled."""
    out: dict[str, FloatArray] = {}
    values = np.array([v / j for v, j in ev.bin_names]) if ev.bin_names else np.zeros(0)
    counts = _all_counts(ev)
    for model, score in scores.items():
        if model not in ev.providers:
            continue
        _, _, (a, b) = counts[model]
        bins = ev.bins[model]
        n = int(np.sum(bins >= 0))
        total = np.zeros(replicates)
        filled = np.flatnonzero(b > 0)
        for v, name in enumerate(ev.bin_names):
            n_v = int(np.sum(bins == v))
            if not n_v or not len(filled):
                continue
            src = v if b[v] > 0 else int(filled[np.lexsort((values[filled], np.abs(values[filled] - values[v])))[0]])
            q = _rng(seed, "published", model, *name).random(replicates)
            total += binomial_quantile(n_v, float(a[src] / b[src]), q)
        out[model] = np.concatenate([[score], total / n if n else np.full(replicates, np.nan)])
    return out


def ranked_by(scores: pd.DataFrame | None) -> tuple[str, str]:
    """(interval, posterior) a version's scores table ranks by: ``calibration.interval`` and
    ``calibration.posterior`` as its columns say (tables written before the ``posterior`` column: v1)."""
    if scores is None or not len(scores):
        return "posterior", "v1"
    interval = str(scores["interval"].iloc[0]) if "interval" in scores.columns else "published"
    posterior = str(scores["posterior"].iloc[0]) if "posterior" in scores.columns else "v1"
    return interval, posterior


def version_draws(ev: Evidence, scores: pd.DataFrame | None, *, seed: int, replicates: int = REPLICATES,
                  resample_riddles: bool = False) -> dict[str, FloatArray]:
    """Per model, the paired draws of the estimator the version's leaderboard ranks by (:func:`ranked_by`):
    its posterior's (:func:`model_draws`), or the published interval's bootstrap (:func:`published_draws`;
    with ``resample_riddles`` the posterior's, which alone can resample riddles)."""
    interval, posterior = ranked_by(scores)
    if interval == "published" and scores is not None and not resample_riddles:
        published = {str(m): float(s) for m, s in zip(scores["model"], scores["score"], strict=True) if pd.notna(s)}
        return published_draws(ev, published, seed=seed, replicates=replicates)
    priors = None
    if scores is not None and posterior != "v1" and "posterior_prior" in scores.columns:
        priors = {str(m): prior_from_json(None if pd.isna(p) else str(p))
                  for m, p in zip(scores["model"], scores["posterior_prior"], strict=True)}
    return model_draws(ev, seed=seed, replicates=replicates, resample_riddles=resample_riddles, priors=priors)
