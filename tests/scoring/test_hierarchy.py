"""sideways.scoring.hierarchy: the partially pooled prior of the default posterior interval (issue 30)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from scoring.test_calibration import POOL_LABELS, POOL_VJ, _jury, _jury_rows, _labels
from sideways.core.errors import CalibrationError
from sideways.scoring.calibration import score_models
from sideways.scoring.hierarchy import Prior, bb_rows, lgamma, mixture_pmf, pooled_priors, prior_counts
from sideways.scoring.posterior import beta_binomial_pmf, posterior_count_pmf, posterior_counts


def test_lgamma_matches_math_lgamma():
    x = np.array([1e-4, 0.003, 0.5, 1.0, 2.5, 6.99, 7.0, 31.4, 1234.5])
    assert lgamma(x) == pytest.approx([math.lgamma(v) for v in x], abs=1e-9)


def test_one_row_of_the_mixture_is_the_plain_convolution():
    alpha, beta = np.array([[0.4, 3.0, 7.5]]), np.array([[6.0, 2.0, 0.5]])
    pmf = mixture_pmf([5, 3, 8], alpha, beta, np.array([1.0]))
    assert pmf == pytest.approx(posterior_count_pmf([5, 3, 8], [0.4, 3.0, 7.5], [6.0, 2.0, 0.5]), abs=1e-12)
    assert bb_rows(4, np.array([2.0]), np.array([3.0]))[0] == pytest.approx(beta_binomial_pmf(4, 2.0, 3.0))


def test_a_mixture_weighs_its_rows():
    alpha, beta = np.array([[1.0], [9.0]]), np.array([[9.0], [1.0]])
    pmf = mixture_pmf([6], alpha, beta, np.array([0.25, 0.75]))
    expected = 0.25 * beta_binomial_pmf(6, 1.0, 9.0) + 0.75 * beta_binomial_pmf(6, 9.0, 1.0)
    assert pmf == pytest.approx(expected, abs=1e-12)


def _world(seed: int = 0, models: int = 6):
    """Histograms and labels of a world where P(right | bin, model) = sigmoid(a_v + c_m): 4 bins, half labelled."""
    rng = np.random.default_rng(seed)
    bins = [(0, 1), (1, 3), (2, 3), (1, 1)]
    a = np.array([-3.0, -1.0, 1.0, 3.0])
    hists, own, providers = {}, {}, {}
    for i in range(models):
        m, c = f"m{i}", -1.5 + 3.0 * i / (models - 1)
        providers[m] = f"p{i % 3}"
        n = rng.multinomial(60, np.exp(a * np.sign(c + 1e-9) * 0.3) / np.exp(a * np.sign(c + 1e-9) * 0.3).sum())
        hists[m] = {b: int(k) for b, k in zip(bins, n, strict=True) if k}
        for b, k, av in zip(bins, n, a, strict=True):
            lab = int(k) // 2
            own[(m, b)] = (int(rng.binomial(lab, 1 / (1 + math.exp(-(av + c))))), lab)
    return hists, providers, own


def test_a_stronger_model_starts_higher_in_the_same_bin():
    hists, providers, own = _world()
    priors = pooled_priors(hists, providers, own)
    weak, strong = priors["m0"].eta[(1, 3)], priors["m5"].eta[(1, 3)]
    assert strong > weak  # v1's prior is the pool's rate: the same for both when their pools match
    assert all(p.spread and abs(sum(w for *_, w in p.spread) - 1) < 1e-9 for p in priors.values())


def test_the_priors_are_the_same_bytes_for_the_same_inputs():
    hists, providers, own = _world(3)
    assert pooled_priors(hists, providers, own) == pooled_priors(dict(hists), dict(providers), dict(own))


def test_a_model_with_every_prediction_labelled_gets_its_truth():
    prior = Prior({(0, 1): -2.0, (1, 1): 2.0}, {(0, 1): 10, (1, 1): 10}, ((4.0, 1.0, 1.0),))
    assert prior_counts([5, 7], [(1, 5), (6, 7)], prior, [(0, 1), (1, 1)]) == (7, 7)


def test_a_pool_too_thin_to_fit_keeps_v1s_prior():
    hists, providers, own = _world()
    assert all(p is None for p in pooled_priors(hists, providers, {}).values())
    # 7 coefficients (4 bins + 3): a pool needs 14 labels; keep 13 labels of other providers than p0's
    thin, kept = {}, 0
    for key, (k, n) in sorted(own.items()):
        if providers[key[0]] != "p0" and kept < 13 and n:
            thin[key] = (min(k, 1), 1)
            kept += 1
    priors = pooled_priors(hists, providers, thin)
    assert priors["m0"] is None and priors["m3"] is None  # p0's models: a pool of 13
    assert all(p is not None for p in pooled_priors(hists, providers, own).values())


def test_score_models_default_is_v1_issue_10s_and_hierarchical_a_flag_away():
    target = _jury_rows("t", "newco", [(0, 3)] * 4 + [(1, 3)] * 3 + [(3, 3)] * 5)
    jury = _jury(target, _jury_rows("l", "lab", POOL_VJ, start=100))
    ann = pd.DataFrame(_labels("l", "lab", POOL_LABELS, start=100) + _labels("t", "newco", [(True, True)] * 2))
    kw = {"field": "both_correct", "method": "exact", "bootstrap": 1, "seed": 0, "models": ["t"]}
    v1 = score_models(jury, ann, **kw).set_index("model").loc["t"]
    counts, own, pool = [4, 3, 5], [(2, 2), (0, 0), (0, 0)], [(1, 10), (5, 10), (9, 10)]
    lo, hi = posterior_counts(counts, own, pool)
    assert (v1["posterior_lo"], v1["posterior_hi"]) == (lo / 12, hi / 12)
    new = score_models(jury, ann, posterior="hierarchical", **kw).set_index("model").loc["t"]
    assert 2 / 12 <= new["posterior_lo"] <= new["posterior_hi"] <= 1  # two own labels are known right
    with pytest.raises(CalibrationError, match="unknown posterior 'v3'"):
        score_models(jury, ann, posterior="v3", **kw)
