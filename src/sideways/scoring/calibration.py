"""Jury scores calibrated against human labels: stratified-bootstrap PPI per model (docs/method.md §3-4).

For model m and a field, the bins are m's jury scores as exact reduced fractions
(votes / judges); the pool is every human-labelled prediction whose provider differs from m's,
each with its own jury score; p_v is the share of positive labels among pool rows of bin v.
The published interval is then computed by :mod:`sideways.scoring.ppi`, exactly or by Monte
Carlo. Beside it, always, the posterior interval of :mod:`sideways.scoring.posterior` (§6): the
pool only as a weak prior per bin, the model's own labels, no failure on an empty bin. The
``interval`` argument says which one the leaderboard ranks by.
"""

from __future__ import annotations

import hashlib
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, cast

import numpy as np
import pandas as pd

from sideways.artifacts.schema import EMPTY_BINS, FIELDS, INTERVALS, METHODS, POSTERIORS, SCORES, conform
from sideways.core.errors import CalibrationError
from sideways.core.width import WIDTH, listing
from sideways.scoring.hierarchy import Prior, pooled_priors, prior_json, prior_summary
from sideways.scoring.latent_prior import stream as latent_stream
from sideways.scoring.latent_prior import table_priors
from sideways.scoring.posterior import KAPPA_MAX, posterior_summary
from sideways.scoring.ppi import bootstrap_interval, exact_quantile_counts
from sideways.scoring.ranking import ci_pct, score_pct

# A jury-score bin: (votes, judges) in lowest terms.
Bin = tuple[int, int]
# Pool totals of a bin: (positive human labels, labelled rows).
Tally = tuple[int, int]


@dataclass(frozen=True)
class Interval:
    """One model's calibrated estimate for one field (unrounded and published)."""

    score: float
    lo: float
    hi: float
    half_width: float
    score_pct: float
    ci_pct: float


def model_rng(seed: int, model: str, field: str) -> np.random.Generator:
    """A generator seeded by (seed, model key, field) only: stable across runs and machines.

    The model key and field are hashed with SHA-256 (not Python's salted ``hash``), so adding
    or removing another model never changes this model's draws.
    """
    if seed < 0:
        raise CalibrationError(f"calibration: seed must be >= 0, got {seed}")
    digest = hashlib.sha256(f"{model}\x1f{field}".encode()).digest()
    words = [int.from_bytes(digest[i : i + 4], "little") for i in range(0, 16, 4)]
    return np.random.default_rng(np.random.SeedSequence([seed, *words]))


def jury_bins(votes: np.ndarray, judges: np.ndarray) -> list[Bin]:
    """Each (votes, judges) reduced to lowest terms: 2/2 and 3/3 are the same bin, 1/2 and 1/3 not."""
    votes = np.asarray(votes, dtype=np.int64)
    judges = np.asarray(judges, dtype=np.int64)
    g = np.gcd(votes, judges)
    g[g == 0] = 1
    # Both quotients have g's (broadcast) shape, so the lengths are equal.
    return list(zip((votes // g).tolist(), (judges // g).tolist(), strict=True))


class EmptyBinError(CalibrationError):
    """A jury-score bin of a model has predictions but no human-labelled row of another provider."""

    def __init__(self, bin: str, message: str) -> None:
        super().__init__(message)
        self.bin = bin


class _Borrowed(UserWarning):
    """An empty bin borrowed its nearest non-empty one (``calibration.empty_bin: nearest``): ``model (b -> c)``."""


class _NoPublished(UserWarning):
    """A model's published interval was left empty (the posterior ranks): ``model (bin)``."""


def _said_once(caught: Sequence[warnings.WarningMessage], field: str) -> None:
    """The warnings of :func:`score_models`' models, each kind said once for them all (a line each in
    a stage's output, within 120 columns), the others as they came."""
    said = {
        _Borrowed: f"{field}: the nearest labelled bin borrowed for ",
        _NoPublished: f"{field}: no published interval (an unlabelled bin) for ",
    }
    for kind, head in said.items():
        items = [str(w.message) for w in caught if w.category is kind]
        if items:  # "warning: calibrate@llm: " before it in a stage's output
            warnings.warn(head + listing(items, WIDTH - 24 - len(head)), UserWarning, stacklevel=3)
    for w in caught:
        if w.category not in said:
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)


def _show(b: Bin) -> str:
    """A bin as people read it: 0, 1/3, 2/3, 1, 1/2."""
    return str(Fraction(*b))


def _label_pool(jury: pd.DataFrame, annotations: pd.DataFrame, field: str) -> pd.DataFrame:
    """Annotated predictions with a jury score for ``field``: model, provider, bin and human label."""
    label = f"human_{field}"
    missing = [c for c in ("riddle_id", "model", label) if c not in annotations.columns]
    if missing:
        raise CalibrationError(f"calibration: annotations are missing column(s) {', '.join(missing)}")
    cols = ["riddle_id", "model", "provider", f"{field}_votes", f"{field}_judges"]
    pool = annotations[["riddle_id", "model", label]].merge(jury[cols], on=["riddle_id", "model"], how="inner")
    pool = pool[(pool[f"{field}_judges"] > 0) & pool[label].notna()]
    return pd.DataFrame(
        {
            "model": pool["model"].to_numpy(),
            "provider": pool["provider"].to_numpy(),
            "bin": jury_bins(pool[f"{field}_votes"].to_numpy(), pool[f"{field}_judges"].to_numpy()),
            "label": pool[label].astype(bool).to_numpy(),
        }
    )


def _pool_by_provider(pool: pd.DataFrame) -> tuple[dict[Bin, Tally], dict[tuple[str, Bin], Tally]]:
    """Totals per bin (positives, rows) overall and per (provider, bin), to subtract a provider."""
    overall: dict[Bin, Tally] = {}
    per_provider: dict[tuple[str, Bin], Tally] = {}
    if len(pool):
        grouped = pool.groupby(["provider", "bin"], sort=False)["label"].agg(["sum", "size"])
        for key, (pos, size) in grouped.iterrows():
            prov, b = cast(tuple[str, Bin], key)  # the group keys: pandas types index labels as Hashable
            per_provider[(prov, b)] = (int(pos), int(size))
            p0, s0 = overall.get(b, (0, 0))
            overall[b] = (p0 + int(pos), s0 + int(size))
    return overall, per_provider


def _other_providers(
    provider: str, overall: dict[Bin, Tally], per_provider: dict[tuple[str, Bin], Tally]
) -> dict[Bin, Tally]:
    """The pool of a model of ``provider``: per bin, the tallies of every other provider (non-empty bins)."""
    pool: dict[Bin, Tally] = {}
    for b, (pos, size) in overall.items():
        own_pos, own_size = per_provider.get((provider, b), (0, 0))
        if size - own_size > 0:
            pool[b] = (pos - own_pos, size - own_size)
    return pool


def _bin_probabilities(
    model: str, provider: str, field: str, bins: list[Bin], pool: dict[Bin, Tally], empty_bin: str,
) -> list[float]:
    """p_v for each of the model's bins from the pool without the model's provider.

    An empty bin raises, or with ``empty_bin="nearest"`` borrows the closest non-empty bin by
    score (the lower one on a tie) with a warning.
    """
    if not pool:
        raise CalibrationError(
            f"calibration: model {model!r}, field {field!r}: no human-labelled prediction from another "
            f"provider than {provider!r}, so there is nothing to calibrate against"
        )
    probs: list[float] = []
    for b in bins:
        if b not in pool:
            if empty_bin == "error":
                raise EmptyBinError(_show(b),
                    f"calibration: model {model!r}, field {field!r}: jury-score bin {_show(b)} has "
                    f"predictions but no human-labelled row of another provider in the pool "
                    f"(set calibration.empty_bin: nearest to borrow the nearest non-empty bin)"
                )
            value = Fraction(*b)
            nearest = min(pool, key=lambda c: (abs(Fraction(*c) - value), Fraction(*c)))
            warnings.warn(_Borrowed(f"{model} ({_show(b)} -> {_show(nearest)})"), stacklevel=4)
            b = nearest
        pos, size = pool[b]
        probs.append(pos / size)
    return probs


def _model_meta(jury: pd.DataFrame) -> dict[str, tuple[str, str, int]]:
    """model key -> (provider, model_name, n_hints), sorted by key; each must be unique per model."""
    cols = ["provider", "model_name", "n_hints"]
    distinct = jury[["model", *cols]].drop_duplicates()
    if distinct["model"].duplicated().any():
        model = distinct.loc[distinct["model"].duplicated(), "model"].iloc[0]
        raise CalibrationError(
            f"calibration: model {model!r} has several provider/model_name/n_hints values: "
            f"{distinct[distinct['model'] == model][cols].to_dict('records')}"
        )
    distinct = distinct.sort_values("model")
    return {m: (p, name, int(h)) for m, p, name, h in distinct.itertuples(index=False)}


def _histograms(jury: pd.DataFrame, field: str) -> dict[str, dict[Bin, int]]:
    """model key -> {bin: number of its predictions in that bin}, over predictions with a score."""
    judges = jury[f"{field}_judges"].to_numpy(dtype=np.int64)
    scored = judges > 0
    votes = jury[f"{field}_votes"].to_numpy(dtype=np.int64)[scored]
    judges = judges[scored]
    g = np.gcd(votes, judges)
    frame = pd.DataFrame({"model": jury["model"].to_numpy()[scored], "num": votes // g, "den": judges // g})
    out: dict[str, dict[Bin, int]] = {}
    for key, count in frame.groupby(["model", "num", "den"], sort=False).size().items():
        model, num, den = cast(tuple[str, int, int], key)  # the group keys, typed Hashable by pandas
        out.setdefault(model, {})[(int(num), int(den))] = int(count)
    return out


def count_interval(k_lo: int, k_hi: int, n: int) -> Interval:
    """The interval [k_lo/n, k_hi/n] of counts, with score and half-width as exact fractions rounded as published."""
    exact_score, exact_half = Fraction(k_lo + k_hi, 2 * n), Fraction(k_hi - k_lo, 2 * n)
    return Interval(float(exact_score), k_lo / n, k_hi / n, float(exact_half), score_pct(exact_score),
                    ci_pct(exact_half))


def mean_interval(k_lo: int, k_hi: int, mean: float, n: int) -> Interval:
    """A posterior's interval [k_lo/n, k_hi/n] with its point estimate, the posterior mean E[K]/n
    (docs/method.md §6). ``half_width`` is the interval's, (k_hi - k_lo) / 2n; the published
    ``ci_pct`` rounds up the farther end's distance from the score, so that score ± ci holds the
    whole interval (ranks and rank spreads read score ± ci, §5)."""
    score, lo, hi = mean / n, k_lo / n, k_hi / n
    reach = max(score - lo, hi - score, 0.0)
    return Interval(score, lo, hi, (k_hi - k_lo) / (2 * n), score_pct(score), ci_pct(reach))


def model_interval(
    counts: list[int], probs: list[float], *, method: str, bootstrap: int, rng: np.random.Generator | None
) -> Interval:
    """The published estimate from bin counts and pool shares (exact fractions in exact mode)."""
    if method == "exact":
        return count_interval(*exact_quantile_counts(counts, probs), sum(counts))
    if rng is None:
        raise ValueError("model_interval: layton mode needs a generator")
    lo, hi = bootstrap_interval(counts, probs, bootstrap, rng)
    score, half = (lo + hi) / 2, (hi - lo) / 2
    return Interval(score, lo, hi, half, score_pct(score), ci_pct(half))


@dataclass(frozen=True)
class _Setup:
    """What every model's intervals need besides its own bins: the options and the label tallies."""

    field: str
    method: str
    bootstrap: int
    seed: int
    empty_bin: str
    interval: str
    kappa_max: float
    posterior: str
    priors: Mapping[str, Prior | None]
    overall: dict[Bin, Tally]
    per_provider: dict[tuple[str, Bin], Tally]
    own: dict[tuple[str, Bin], Tally]


def _published(model: str, provider: str, hist: dict[Bin, int], setup: _Setup) -> Interval | None:
    """The published interval; None (with a warning) when it fails and the leaderboard ranks by the posterior."""
    bins = sorted(hist, key=lambda b: Fraction(*b))
    pool = _other_providers(provider, setup.overall, setup.per_provider)
    try:
        probs = _bin_probabilities(model, provider, setup.field, bins, pool, setup.empty_bin)
    except CalibrationError as exc:
        if setup.interval == "published":
            raise
        warnings.warn(_NoPublished(f"{model} ({exc.bin})" if isinstance(exc, EmptyBinError) else model), stacklevel=3)
        return None
    rng = model_rng(setup.seed, model, setup.field) if setup.method == "layton" else None
    return model_interval([hist[b] for b in bins], probs, method=setup.method, bootstrap=setup.bootstrap, rng=rng)


def _posterior(model: str, provider: str, hist: dict[Bin, int], setup: _Setup) -> tuple[Interval, int]:
    """The posterior interval (docs/method.md §6) and the number of the model's own labels it used."""
    bins = sorted(hist, key=lambda b: Fraction(*b))
    pool = _other_providers(provider, setup.overall, setup.per_provider)
    own = [setup.own.get((model, b), (0, 0)) for b in bins]
    counts = [hist[b] for b in bins]
    prior = setup.priors.get(model)
    if setup.posterior == "v1" or prior is None:
        k_lo, k_hi, mean = posterior_summary(counts, own, [pool.get(b, (0, 0)) for b in bins],
                                             kappa_max=setup.kappa_max)
    else:
        k_lo, k_hi, mean = prior_summary(counts, own, prior, bins)
    return mean_interval(k_lo, k_hi, mean, sum(counts)), sum(size for _, size in own)


def score_models(
    jury: pd.DataFrame,
    annotations: pd.DataFrame,
    *,
    field: str,
    method: str,
    bootstrap: int,
    seed: int,
    empty_bin: str = "error",
    interval: str = "posterior",
    kappa_max: float = KAPPA_MAX,
    posterior: str = "v1",
    truth: Mapping[str, float] | None = None,
    models: Sequence[str] | None = None,
    judgments: pd.DataFrame | None = None,
    stream: str = "",
) -> pd.DataFrame:
    """One SCORES row per model of ``jury`` for ``field``, sorted by model key, with both intervals.

    ``models`` restricts the scored models (all models of ``jury`` by default); every jury row
    still serves the calibration pool.
    ``n`` counts the model's predictions with a jury score for the field; ``n_labelled`` those
    with the model's own human label; ``n_pool`` the pool rows (annotated, scored, other
    provider). The published interval (``method``; ``bootstrap`` recorded as 0 in exact mode)
    fails on an empty bin with ``empty_bin="error"`` when ``interval`` is "published"; when the
    leaderboard ranks by the posterior interval it is left null instead, with a warning.
    ``truth`` maps model keys to known true scores (simulation): then ``covered`` and
    ``posterior_covered`` say whether each interval holds it. ``posterior="latent"`` needs every
    judge's verdicts (``judgments``) and samples, seeded by ``seed`` and ``stream`` (the split).
    """
    _check_options(field, method, empty_bin, bootstrap, interval, posterior)
    pool = _label_pool(jury, annotations, field)
    overall, per_provider = _pool_by_provider(pool)
    own = {cast(tuple[str, Bin], k): (int(v["sum"]), int(v["size"]))
           for k, v in pool.groupby(["model", "bin"], sort=False)["label"].agg(["sum", "size"]).iterrows()}
    histograms = _histograms(jury, field)
    meta = _model_meta(jury)
    priors = _priors(posterior, jury, annotations, judgments, histograms, meta, own,
                     (field, seed, latent_stream(stream, field)))
    setup = _Setup(field, method, bootstrap, seed, empty_bin, interval, kappa_max, posterior, priors,
                   overall, per_provider, own)
    pool_sizes = pool["provider"].value_counts().to_dict()
    if models is not None:
        unknown = sorted(set(models) - set(jury["model"]))
        if unknown:
            raise CalibrationError(f"calibration: no jury rows for model(s) {', '.join(unknown)}")
    rows = []
    with warnings.catch_warnings(record=True) as caught:  # said once for every model, below
        warnings.simplefilter("always")
        for model, (provider, name, hints) in meta.items():
            if models is not None and model not in models:
                continue
            hist = histograms.get(model)
            if not hist:
                raise CalibrationError(f"calibration: model {model!r}, field {field!r}: no prediction has a jury score")
            post, n_labelled = _posterior(model, provider, hist, setup)
            rows.append(_score_row(model, (provider, name, hints), setup, _published(model, provider, hist, setup),
                                   post, n=(sum(hist.values()), n_labelled, len(pool) - pool_sizes.get(provider, 0)),
                                   true=(truth or {}).get(model)))
    _said_once(caught, field)
    frame = pd.DataFrame(rows, columns=SCORES.names)
    return conform(frame, SCORES, f"scores ({field}, {method})")


def _priors(
    posterior: str, jury: pd.DataFrame, annotations: pd.DataFrame, judgments: pd.DataFrame | None,
    histograms: dict[str, dict[Bin, int]], meta: dict[str, tuple[str, str, int]], own: dict[tuple[str, Bin], Tally],
    sampling: tuple[str, int, str],
) -> Mapping[str, Prior | None]:
    """Each model's prior for the hierarchical and latent posteriors (v1 needs none)."""
    if posterior == "v1":
        return {}
    if posterior == "hierarchical":
        return pooled_priors(histograms, {m: p for m, (p, _, _) in meta.items() if m in histograms}, own)
    if judgments is None:
        raise CalibrationError("calibration: the latent posterior needs the judges' verdicts (judgments), "
                               "not only the jury's vote counts")
    field, seed, stream = sampling
    return table_priors(jury, judgments, annotations, field, seed=seed, stream=stream)


def _check_options(field: str, method: str, empty_bin: str, bootstrap: int, interval: str, posterior: str) -> None:
    """Fail on an unknown field, method, interval, posterior or empty-bin policy, or no replicates in layton mode."""
    if field not in FIELDS:
        raise CalibrationError(f"calibration: unknown field {field!r} (known: {', '.join(FIELDS)})")
    if method not in METHODS:
        raise CalibrationError(f"calibration: unknown method {method!r} (known: {', '.join(METHODS)})")
    if interval not in INTERVALS:
        raise CalibrationError(f"calibration: unknown interval {interval!r} (known: {', '.join(INTERVALS)})")
    if posterior not in POSTERIORS:
        raise CalibrationError(f"calibration: unknown posterior {posterior!r} (known: {', '.join(POSTERIORS)})")
    if empty_bin not in EMPTY_BINS:
        raise CalibrationError(f"calibration: empty_bin must be one of {', '.join(EMPTY_BINS)}")
    if method == "layton" and bootstrap < 1:
        raise CalibrationError(f"calibration: bootstrap must be >= 1 in layton mode, got {bootstrap}")


def _covered(iv: Interval | None, true: float | None) -> bool | None:
    """Whether ``iv`` holds the true score; None when either is unknown."""
    return None if iv is None or true is None else bool(iv.lo <= true <= iv.hi)


def _score_row(
    model: str, meta: tuple[str, str, int], setup: _Setup, published: Interval | None, post: Interval, *,
    n: tuple[int, int, int], true: float | None,
) -> dict[str, Any]:
    """One SCORES row: ``n`` is (n, n_labelled, n_pool); ``bootstrap`` is 0 in exact mode."""
    provider, model_name, n_hints = meta
    pub = {k: (None if published is None else getattr(published, k))
           for k in ("score", "lo", "hi", "half_width", "score_pct", "ci_pct")}
    return {
        "model": model, "provider": provider, "model_name": model_name, "n_hints": int(n_hints),
        "field": setup.field, **pub,
        **{f"posterior_{k}": getattr(post, k) for k in ("score", "lo", "hi", "half_width", "score_pct", "ci_pct")},
        "interval": setup.interval, "posterior": setup.posterior,
        "posterior_prior": None if setup.posterior == "v1" else prior_json(setup.priors.get(model)),
        "n": n[0], "n_labelled": n[1], "n_pool": n[2], "method": setup.method,
        "bootstrap": int(setup.bootstrap) if setup.method == "layton" else 0,
        "seed": int(setup.seed),
        "true_score": None if true is None else float(true),
        "covered": _covered(published, true),
        "posterior_covered": _covered(post, true),
    }
