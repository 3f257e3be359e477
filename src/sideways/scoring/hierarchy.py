"""The partially pooled prior of the ``posterior`` interval (docs/method.md §6): per model and
jury-score bin, where the human-positive rate starts, and how many labels that start is worth.

Why: the pool's raw rate in a bin (the issue-10 prior, kept as ``posterior: v1``) ignores what
every model's jury histogram says about it. A strong model's predictions in a middling bin are
more often right than a weak model's, by Bayes' rule: when the judges err alike on every model,

    logit P(right | bin v, model m) = a_v + c_m,

``a_v`` the log likelihood ratio of bin v's votes (shared by all models), ``c_m = logit pi_m``
the model's prevalence of right answers. ``a_v`` is fitted on the labelled rows of the other
providers (the pool of docs/method.md §3); ``pi_m`` comes from the model's whole histogram,
labelled or not, by EM on the two-component mixture (``pi <- sum_v w_v sigmoid(logit pi + a_v)``,
which climbs the histogram's likelihood). Both steps alternate a few times.

How much the start is worth (``kappa``) is chosen by the data, not fixed: the beta-binomial
marginal likelihood of every model's own labels around its out-of-provider prior, maximised on a
grid. Labels that scatter around the prior as binomial noise give a large kappa (narrow
intervals); labels that disagree with it (judges that err differently on different models, a
biased pool) give a small one. In a bin the pool barely covers, kappa is capped at ``b_v + 1``
as in v1. Plain numpy, no randomness: the same labels give the same bytes.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from sideways.scoring.posterior import summarise
from sideways.scoring.ppi import FloatArray

#: (kappa, sigma) points the data weigh: kappa the prior rate's weight in labels per bin, sigma
#: the sd (logit scale) of a model's level around the fit.
GRID: tuple[tuple[float, float], ...] = tuple(
    (kap, sig) for sig in (1.5, 1.0, 0.6, 0.3, 0.0) for kap in (1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0))
#: A provider's pool must hold at least this many labels per coefficient of the fit, or its models keep
#: v1's prior: a fit on a handful of labels puts the extreme bins' rates at 0 or 1 (at share 0.05,
#: 6 models covered 84-90% with it).
LABELS_PER_COEFFICIENT = 2
#: The point used when there is no own label at all to weigh by: v1's kappa, a wide level.
FALLBACK = (4.0, 1.0)
#: Grid points whose posterior weight is below this are dropped (each costs a convolution per model).
MIN_WEIGHT = 0.01
#: Gauss-Hermite nodes and weights (probabilists') over the standard normal of a model's level.
NODES, NODE_WEIGHTS = np.polynomial.hermite_e.hermegauss(9)
NODE_WEIGHTS = NODE_WEIGHTS / NODE_WEIGHTS.sum()
#: Significant digits a prior's numbers keep (:func:`settled`): they come through numpy's SIMD kernels (exp,
#: log), whose last bits differ between processors (AVX-512 or not); rounded, those bits reach neither the
#: scores table's prior nor the interval computed from it, so the same inputs give the same bytes on every machine.
DIGITS = 12
#: Prior means are kept in [EDGE, 1 - EDGE] so that no beta parameter is zero.
EDGE = 0.005
#: Prior sds (logit scale) of a bin's deviation from the score's line, and of the line's coefficients.
BIN_SD = 1.0
WIDE_SD = 10.0
_NEWTON_STEPS = 12

Bin = tuple[int, int]
Tally = tuple[int, int]


def _sigmoid(x: FloatArray) -> FloatArray:
    out: FloatArray = 1.0 / (1.0 + np.exp(-x))
    return out


def _logit(p: FloatArray) -> FloatArray:
    q = np.clip(p, EDGE, 1 - EDGE)
    out: FloatArray = np.log(q / (1 - q))
    return out


def model_level(hist: FloatArray, bin_scores: FloatArray) -> FloatArray:
    """x_m: the logit of each model's mean jury score over all its scored predictions, labelled or not."""
    mean = (hist * bin_scores[None, :]).sum(axis=1) / np.maximum(hist.sum(axis=1), 1)
    return _logit(mean)


def design(x: FloatArray, scores: FloatArray) -> tuple[FloatArray, FloatArray]:
    """(X, prior precision) of the logistic model, one row per (model, bin) cell, models outer.

    Columns: one deviation per bin (prior N(0, BIN_SD^2)), the intercept, the jury score and the
    model's level (each N(0, WIDE_SD^2)). The deviations let a bin leave the line the score draws.
    """
    n_models, n_bins = len(x), len(scores)
    cols = [np.tile(np.eye(n_bins), (n_models, 1)), np.ones((n_models * n_bins, 1)),
            np.tile(scores, n_models)[:, None], np.repeat(x, n_bins)[:, None]]
    precision = np.concatenate([np.full(n_bins, BIN_SD**-2), np.full(3, WIDE_SD**-2)])
    return np.hstack(cols), precision


def fit(xmat: FloatArray, precision: FloatArray, pos: FloatArray, size: FloatArray) -> FloatArray:
    """MAP coefficients of labels ~ Bernoulli(sigmoid(X @ theta)), theta ~ N(0, 1 / precision), by Newton.

    ``pos``, ``size``: positives and labelled rows per row of ``xmat`` (a (model, bin) cell).
    """
    theta = np.zeros(xmat.shape[1])
    for _ in range(_NEWTON_STEPS):
        p = _sigmoid(xmat @ theta)
        grad = xmat.T @ (pos - size * p) - precision * theta
        hess = (xmat * (size * p * (1 - p))[:, None]).T @ xmat + np.diag(precision)
        theta = theta + np.linalg.solve(hess, grad)
    return theta


def log_bb(k: FloatArray, n: FloatArray, alpha: FloatArray, beta: FloatArray) -> FloatArray:
    """log BetaBinomial(k | n, alpha, beta) elementwise, without the binomial coefficient (no parameter moves it)."""
    out: FloatArray = (lgamma(k + alpha) + lgamma(n - k + beta) - lgamma(n + alpha + beta)
                       - lgamma(alpha) - lgamma(beta) + lgamma(alpha + beta))
    return out


def model_weights(eta: FloatArray, kappa: FloatArray, sigma: float, pos: FloatArray, size: FloatArray) -> FloatArray:
    """log of each quadrature node's posterior weight, per model: (models, nodes).

    The model's level shift u ~ N(0, sigma^2) at the nodes of :data:`NODES`; a node's weight is its
    quadrature weight times the beta-binomial likelihood of the model's own labels in every bin.
    """
    mu = np.clip(_sigmoid(eta[:, :, None] + sigma * NODES[None, None, :]), EDGE, 1 - EDGE)
    ll = log_bb(pos[:, :, None], size[:, :, None], kappa[:, :, None] * mu, kappa[:, :, None] * (1 - mu))
    out: FloatArray = np.log(NODE_WEIGHTS)[None, :] + ll.sum(axis=1)
    return out


def _log_sum_exp(x: FloatArray) -> FloatArray:
    top = x.max(axis=-1)
    out: FloatArray = top + np.log(np.exp(x - top[..., None]).sum(axis=-1))
    return out


def spread_weights(eta: FloatArray, pool_rows: FloatArray, pos: FloatArray,
                   size: FloatArray) -> list[tuple[float, float, float]]:
    """(kappa, sigma, weight) for the points of :data:`GRID` that matter: the posterior over the grid
    (uniform prior) of every model's own labels, points under :data:`MIN_WEIGHT` dropped, renormalised.

    ``eta``: each (model, bin)'s prior logit, fitted without the model's provider; a bin's kappa
    is capped at its pool rows + 1. Averaging over the grid, rather than picking its best point,
    keeps the uncertainty of how far the pool transfers in the interval.
    """
    if not size.any():
        return [(*FALLBACK, 1.0)]
    scores = np.array([float(_log_sum_exp(model_weights(eta, np.minimum(kap, pool_rows + 1), sig, pos, size)).sum())
                       for kap, sig in GRID])
    return _kept_points(scores, True)


def bin_offsets(eta: FloatArray, pos: FloatArray, size: FloatArray, providers: Sequence[str],
                sd: float) -> FloatArray:
    """Per model m and bin v, ``d_mv``: how far the labels of the other providers' models sit from their own starts in
    bin v, on the logit scale (models x bins arrays as :func:`spread_weights` reads them). The MAP of

        pos_jv ~ Binomial(size_jv, sigmoid(eta_jv + d_v)) for every model j of another provider,  d_v ~ N(0, sd^2),

    by Newton, one bin at a time: a recalibration of the starts by the pool, as v1 takes the pool's rate, so that a
    fit that is off in a bin for every model (judges who err together, read as the fit's classes) is moved where the
    pool's labels are. 0 where the pool has no label in the bin."""
    prov = np.asarray(providers)
    out = np.zeros_like(eta)
    for provider in np.unique(prov):  # the offsets depend on the model's provider alone
        other = prov != provider
        e, k, n = eta[other], pos[other], size[other]
        d = np.zeros(eta.shape[1])
        for _ in range(_NEWTON_STEPS):
            p = _sigmoid(e + d[None, :])
            q = np.clip(p, 1e-12, 1 - 1e-12)
            slope = p * (1 - p)  # dq / dd
            grad = (slope * (k / q - (n - k) / (1 - q))).sum(axis=0) - d / sd**2
            hess = (n * slope**2 / (q * (1 - q))).sum(axis=0) + 1 / sd**2
            d = d + np.clip(grad / hess, -2.0, 2.0)  # a damped Newton step: the log posterior is concave
        out[prov == provider] = d
    return out


def _kept_points(scores: FloatArray, labelled: bool) -> list[tuple[float, float, float]]:
    """:func:`spread_weights` from each grid point's log evidence: the posterior over the grid, points under
    :data:`MIN_WEIGHT` dropped, renormalised (no labels at all: the fallback point)."""
    if not labelled:
        return [(*FALLBACK, 1.0)]
    w = np.exp(scores - scores.max())
    w /= w.sum()
    keep = w >= MIN_WEIGHT
    return [(*g, float(x / w[keep].sum())) for g, x, k in zip(GRID, w, keep, strict=True) if k]


@dataclass(frozen=True)
class Prior:
    """One model's prior: per bin the logit of its rate and its pool rows; the (kappa, sigma, weight) mixture;
    ``labelled``: when labels may be wrong (the latent posterior), riddle -> the model's labelled row's
    probability of being right given its label and verdicts, so that their count is uncertain too (None: a
    labelled row's count is its label)."""

    eta: dict[Bin, float]
    pool_rows: dict[Bin, int]
    spread: tuple[tuple[float, float, float], ...]
    labelled: dict[str, float] | None = None


def _settle(x: float) -> float:
    return float(f"{x:.{DIGITS}g}")


def settled(prior: Prior) -> Prior:
    """``prior`` with every number rounded to :data:`DIGITS` significant digits, as the priors are built: the
    interval and the paired draws then read the same prior on every machine, and its JSON round-trips."""
    return Prior({b: _settle(x) for b, x in prior.eta.items()}, dict(prior.pool_rows),
                 tuple((k, s, _settle(w)) for k, s, w in prior.spread),
                 None if prior.labelled is None else {r: _settle(p) for r, p in prior.labelled.items()})


def prior_json(prior: Prior | None) -> str | None:
    """A prior as one JSON line (None for none: v1's prior), kept in the scores table so that the paired
    draws of docs/method.md §8 use the very prior the scores were computed with (floats round-trip)."""
    if prior is None:
        return None
    data: dict[str, object] = {"eta": [[v, j, x] for (v, j), x in prior.eta.items()],
                               "pool_rows": [[v, j, n] for (v, j), n in prior.pool_rows.items()],
                               "spread": [list(s) for s in prior.spread]}
    if prior.labelled is not None:
        data["labelled"] = [[r, p] for r, p in prior.labelled.items()]
    return json.dumps(data, separators=(",", ":"))


def prior_from_json(text: str | None) -> Prior | None:
    """The :class:`Prior` of :func:`prior_json` (None for none)."""
    if text is None:
        return None
    data = json.loads(text)
    return Prior({(int(v), int(j)): float(x) for v, j, x in data["eta"]},
                 {(int(v), int(j)): int(n) for v, j, n in data["pool_rows"]},
                 tuple((float(k), float(s), float(w)) for k, s, w in data["spread"]),
                 None if "labelled" not in data else {str(r): float(p) for r, p in data["labelled"]})


def pooled_priors(
    hists: Mapping[str, Mapping[Bin, int]],
    providers: Mapping[str, str],
    own: Mapping[tuple[str, Bin], Tally],
) -> dict[str, Prior | None]:
    """model -> its :class:`Prior`, the rates fitted without its provider's labels; None when that pool
    holds fewer than :data:`LABELS_PER_COEFFICIENT` labels per coefficient (the model keeps v1's prior).

    ``hists``: each model's jury-score histogram; ``own``: (positives, labelled) per (model, bin).
    """
    models = sorted(hists)
    bins = sorted({b for h in hists.values() for b in h}, key=lambda b: b[0] / b[1])
    hist = np.array([[hists[m].get(b, 0) for b in bins] for m in models], dtype=np.float64)
    pos = np.array([[own.get((m, b), (0, 0))[0] for b in bins] for m in models], dtype=np.float64)
    size = np.array([[own.get((m, b), (0, 0))[1] for b in bins] for m in models], dtype=np.float64)
    scores = np.array([b[0] / b[1] for b in bins])
    xmat, precision = design(model_level(hist, scores), scores)
    eta = np.zeros_like(hist)
    pool_rows = np.zeros_like(hist)
    for provider in sorted(set(providers.values())):
        mine = np.array([providers[m] == provider for m in models])
        theta = fit(xmat, precision, np.where(mine[:, None], 0.0, pos).ravel(),
                    np.where(mine[:, None], 0.0, size).ravel())
        eta[mine] = (xmat @ theta).reshape(hist.shape)[mine]
        pool_rows[mine] = size[~mine].sum(axis=0)[None, :]
    spread = tuple(spread_weights(eta, pool_rows, pos, size))
    enough = pool_rows.sum(axis=1) >= LABELS_PER_COEFFICIENT * xmat.shape[1]
    return {m: None if not enough[i] else settled(Prior(
        {b: float(eta[i, j]) for j, b in enumerate(bins) if hist[i, j] > 0},
        {b: int(pool_rows[i, j]) for j, b in enumerate(bins) if hist[i, j] > 0}, spread))
        for i, m in enumerate(models)}


def lgamma(x: FloatArray) -> FloatArray:
    """log Gamma elementwise for x > 0, vectorised: shifted up to 7 by lgamma(x) = lgamma(x + 1) - log(x),
    then Stirling's series to x^-7 (error below 1e-10; math.lgamma per element is 30 times slower)."""
    z = np.array(x, dtype=np.float64, copy=True)
    acc = np.zeros_like(z)
    for _ in range(7):
        small = z < 7
        acc[small] += np.log(z[small])
        z[small] += 1
    inv, inv2 = 1 / z, 1 / z**2
    series = inv * (1 / 12 - inv2 * (1 / 360 - inv2 * (1 / 1260 - inv2 / 1680)))
    out: FloatArray = (z - 0.5) * np.log(z) - z + 0.5 * math.log(2 * math.pi) + series - acc
    return out


def bb_rows(u: int, alpha: FloatArray, beta: FloatArray) -> FloatArray:
    """pmf of BetaBinomial(u, alpha_r, beta_r) on 0..u for every row r: shape (rows, u + 1)."""
    t = np.arange(u + 1, dtype=np.float64)[None, :]
    a, b = alpha[:, None], beta[:, None]
    log_pmf = (lgamma(np.array([u + 1.0])) - lgamma(t + 1) - lgamma(u - t + 1)
               + lgamma(t + a) + lgamma(u - t + b) - lgamma(u + a + b) - lgamma(a) - lgamma(b) + lgamma(a + b))
    pmf: FloatArray = np.exp(log_pmf)
    return pmf / pmf.sum(axis=1, keepdims=True)


def mixture_pmf(unlabelled: Sequence[int], alpha: FloatArray, beta: FloatArray, weights: FloatArray) -> FloatArray:
    """sum_r weights[r] * pmf of sum_v T_rv, T_rv ~ BetaBinomial(u_v, alpha[r, v], beta[r, v]) independent."""
    acc = np.ones((len(weights), 1))
    for v, u in enumerate(unlabelled):
        new = bb_rows(int(u), alpha[:, v], beta[:, v])
        out = np.zeros((acc.shape[0], acc.shape[1] + u))
        for i in range(u + 1):
            out[:, i:i + acc.shape[1]] += acc * new[:, i:i + 1]
        acc = out
    mixed: FloatArray = weights @ acc
    return mixed


def _rows(own: FloatArray, eta: FloatArray, rows: FloatArray,
          spread: Sequence[tuple[float, float, float]]) -> tuple[FloatArray, FloatArray, FloatArray]:
    """(alpha, beta, weight) of every (grid point, node): the node's beta posteriors per bin and its weight,
    the point's weight times the node's posterior weight given the model's own labels."""
    k, n = own[0], own[1]
    alphas, betas, weights = [], [], []
    for kap, sig, w in spread:
        kappa = np.minimum(kap, rows + 1)
        logw = model_weights(eta[None, :], kappa[None, :], sig, k[None, :], n[None, :])[0]
        node_w = np.exp(logw - logw.max())
        mu = np.clip(_sigmoid(eta[None, :] + sig * NODES[:, None]), EDGE, 1 - EDGE)
        alphas.append(kappa * mu + k)
        betas.append(kappa * (1 - mu) + n - k)
        weights.append(w * node_w / node_w.sum())
    return np.vstack(alphas), np.vstack(betas), np.concatenate(weights)


def prior_counts(counts: Sequence[int], own: Sequence[Tally], prior: Prior, bins: Sequence[Bin], *,
                 level: float = 0.95) -> tuple[int, int]:
    """(K_lo, K_hi): the shortest ``level`` set of the model's count of right answers.

    Per bin: ``counts[v]`` predictions, ``own[v]`` = (positives, labelled). The count's pmf is the
    mixture, over the prior's (kappa, sigma) points and the level's nodes, of the convolution of
    the bins' beta-binomials; the model's own labels weigh every point and node.
    """
    lo, hi, _ = prior_summary(counts, own, prior, bins, level=level)
    return lo, hi


def mixture_rates(own: Sequence[Tally], prior: Prior, bins: Sequence[Bin]) -> tuple[FloatArray, FloatArray, FloatArray]:
    """(alpha, beta, weights) of the posterior's mixture components: per component, each bin's beta
    posterior of the rate, and the component's weight (they sum to 1). A draw of the posterior
    picks a component by weight, then each bin's rate from its beta (:mod:`sideways.scoring.paired`)."""
    own_arr = np.array(own, dtype=np.float64).T.reshape(2, len(bins))
    eta = np.array([prior.eta[b] for b in bins])
    rows = np.array([prior.pool_rows[b] for b in bins], dtype=np.float64)
    alpha, beta, weights = _rows(own_arr, eta, rows, prior.spread)
    keep = weights > 1e-9
    return alpha[keep], beta[keep], weights[keep] / weights[keep].sum()


def prior_summary(counts: Sequence[int], own: Sequence[Tally], prior: Prior, bins: Sequence[Bin], *,
                  level: float = 0.95) -> tuple[int, int, float]:
    """(K_lo, K_hi, E[K]): :func:`prior_counts` and the posterior mean of the count. With ``prior.labelled``
    the labelled rows' count is the Poisson-binomial of their probabilities, convolved in, not their labels'
    sum."""
    unlabelled = [int(c - o[1]) for c, o in zip(counts, own, strict=True)]
    alpha, beta, weights = mixture_rates(own, prior, bins)
    pmf = mixture_pmf(unlabelled, alpha, beta, weights)
    if prior.labelled is None:
        return summarise(pmf, sum(o[0] for o in own), level)
    if len(prior.labelled) != sum(o[1] for o in own):
        raise ValueError(f"prior_summary: {len(prior.labelled)} labelled probabilities for "
                         f"{sum(o[1] for o in own)} labelled rows")
    labelled = poisson_binomial(np.array(list(prior.labelled.values()), dtype=np.float64))
    return summarise(np.convolve(pmf, labelled), 0, level)


def poisson_binomial(p: FloatArray) -> FloatArray:
    """pmf of the number of successes of independent Bernoulli(p_i), on 0..len(p)."""
    pmf = np.ones(1)
    for q in p:
        pmf = np.convolve(pmf, np.array([1.0 - q, q]))
    return pmf
