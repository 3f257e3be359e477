"""sideways.scoring.ppi against brute-force enumeration, an independent exact reference and its own
Monte Carlo limit; and benchmarks/lab/ppi_reference.py (the PPI++ point estimate, the reference procedure)
against ppi_py."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest

from helpers.exact_reference import exact_interval

# benchmarks/ is on the test path (pyproject): the scripts there import each other by bare name too.
from lab.ppi_reference import power_tuned_lambda, ppi_mean_pointestimate, reference_replicates
from sideways.scoring.calibration import model_interval, model_rng
from sideways.scoring.ppi import (
    binomial_pmf,
    binomial_sum_pmf,
    bootstrap_interval,
    exact_quantile_counts,
)


def _random_case(rng: np.random.Generator, binary: bool):
    n, N = int(rng.integers(5, 300)), int(rng.integers(5, 500))
    if binary:
        Y = (rng.random(n) < 0.6).astype(float)
        Yhat = rng.integers(0, 4, n) / 3
        Yhat_u = rng.integers(0, 4, N) / 3
    else:
        Y = rng.normal(size=n)
        Yhat = Y * rng.uniform(-1, 2) + rng.normal(scale=rng.uniform(0.1, 3), size=n)
        Yhat_u = rng.normal(loc=rng.normal(), size=N)
    return Y, Yhat, Yhat_u


@pytest.mark.parametrize("binary", [False, True])
def test_pointestimate_equals_ppi_py(binary):
    ppi_py = pytest.importorskip("ppi_py")
    rng = np.random.default_rng(12345 + binary)
    for _ in range(200):
        Y, Yhat, Yhat_u = _random_case(rng, binary)
        ours = ppi_mean_pointestimate(Y, Yhat, Yhat_u)
        theirs = float(np.asarray(ppi_py.ppi_mean_pointestimate(Y, Yhat, Yhat_u, lam=None)).ravel()[0])
        assert ours == pytest.approx(theirs, abs=1e-12, rel=0)
        lam = float(rng.uniform())
        fixed = float(np.asarray(ppi_py.ppi_mean_pointestimate(Y, Yhat, Yhat_u, lam=lam)).ravel()[0])
        assert ppi_mean_pointestimate(Y, Yhat, Yhat_u, lam=lam) == pytest.approx(fixed, abs=1e-12, rel=0)


def test_lambda_is_clipped_both_ways():
    rng = np.random.default_rng(3)
    Y = rng.normal(size=200)
    Yu = rng.normal(size=300)
    # Anti-correlated predictions: the optimum is negative, clipped to 0 => classical mean.
    assert power_tuned_lambda(Y, -Y, Yu) == 0.0
    assert ppi_mean_pointestimate(Y, -Y, Yu) == pytest.approx(Y.mean(), abs=1e-12)
    # Shrunk predictions (Yhat = Y / 2): the optimum is near 2, clipped to 1 => plain PPI.
    assert power_tuned_lambda(Y, Y / 2, Yu / 2) == 1.0
    assert ppi_mean_pointestimate(Y, Y / 2, Yu / 2) == pytest.approx(Yu.mean() / 2 + (Y / 2).mean(), abs=1e-12)


def test_constant_predictions_give_the_label_mean():
    Y = np.array([1.0, 0.0, 1.0, 1.0])
    assert ppi_mean_pointestimate(Y, np.full(4, 0.5), np.full(10, 0.5)) == pytest.approx(0.75)


def test_binomial_pmf_matches_the_formula():
    for n, p in [(0, 0.3), (1, 0.5), (7, 0.2), (25, 0.9), (12, 0.0), (12, 1.0)]:
        expect = [math.comb(n, k) * p**k * (1 - p) ** (n - k) for k in range(n + 1)]
        assert binomial_pmf(n, p) == pytest.approx(expect, abs=1e-14)
    assert binomial_pmf(5000, 0.37).sum() == pytest.approx(1.0, abs=1e-10)


def _enumerate(counts, p):
    """Brute force: the law of sum_v S_v by enumerating every (s_1, ..., s_V)."""
    out = np.zeros(sum(counts) + 1)
    for s in itertools.product(*[range(c + 1) for c in counts]):
        out[sum(s)] += math.prod(math.comb(c, k) * q**k * (1 - q) ** (c - k) for c, k, q in zip(counts, s, p))
    return out


def test_sum_pmf_matches_enumeration_and_mean():
    rng = np.random.default_rng(7)
    for _ in range(20):
        V = int(rng.integers(1, 5))
        counts = [int(c) for c in rng.integers(0, 7, V)]
        p = [float(x) for x in rng.uniform(size=V)]
        pmf = binomial_sum_pmf(counts, p)
        assert pmf == pytest.approx(_enumerate(counts, p), abs=1e-12)
        assert pmf.sum() == pytest.approx(1.0, abs=1e-12)
    # The mean of theta = S / n is sum_v n_v p_v / n (large case, no enumeration).
    counts, p = [40, 17, 30, 99], [0.05, 0.4, 0.66, 0.97]
    pmf = binomial_sum_pmf(counts, p)
    n = sum(counts)
    assert (np.arange(n + 1) / n) @ pmf == pytest.approx(sum(c * q for c, q in zip(counts, p)) / n, abs=1e-12)


def test_exact_interval_is_the_quantile_of_the_enumerated_law():
    counts, p = [3, 4, 5], [0.1, 0.5, 0.8]
    cdf = np.cumsum(_enumerate(counts, p))
    n = sum(counts)
    k_lo = min(k for k in range(n + 1) if cdf[k] >= 0.025)
    k_hi = min(k for k in range(n + 1) if cdf[k] >= 0.975)
    assert exact_quantile_counts(counts, p) == (k_lo, k_hi)
    assert exact_interval(counts, p) == (k_lo / n, k_hi / n)  # the tests' reference agrees


def test_exact_quantiles_equal_the_independent_reference():
    """exact_quantile_counts (numpy, log space) against helpers.exact_reference (math.comb, lists)."""
    rng = np.random.default_rng(11)
    for _ in range(50):
        V = int(rng.integers(1, 6))
        counts = [int(c) for c in rng.integers(0, 60, V)]
        counts[0] += 1
        p = [float(x) for x in rng.choice([0.0, 1.0, *rng.uniform(size=4)], V)]
        n = sum(counts)
        k_lo, k_hi = exact_quantile_counts(counts, p)
        assert (k_lo / n, k_hi / n) == exact_interval(counts, p)


def test_unanimous_bins_give_a_zero_width_interval():
    assert exact_quantile_counts([10, 5], [1.0, 0.0]) == (10, 10)
    lo, hi = bootstrap_interval([10, 5], [1.0, 0.0], 1000, np.random.default_rng(0))
    assert lo == hi == pytest.approx(10 / 15)


def test_monte_carlo_approaches_the_exact_percentiles():
    counts, p = [60, 25, 20, 81], [0.04, 0.3, 0.7, 0.95]
    exact = np.array(exact_quantile_counts(counts, p)) / sum(counts)
    errors = {}
    for B in (30, 300_000):
        errs = [np.abs(np.array(bootstrap_interval(counts, p, B, np.random.default_rng(s))) - exact).max()
                for s in range(5)]
        errors[B] = float(np.mean(errs))
    assert errors[300_000] < errors[30]
    assert errors[300_000] <= 1 / sum(counts) + 1e-12


def test_monte_carlo_is_reproducible_from_the_generator():
    """Layton mode, from the seed to the published numbers: the same (seed, model, field) gives the
    same interval to the byte, from a fresh generator each time; another seed, model or field
    draws other replicates."""
    counts, p = [60, 25, 20, 81], [0.04, 0.3, 0.7, 0.95]

    def interval(seed: int, model: str = "m", field: str = "both_correct") -> bytes:
        iv = model_interval(counts, p, method="layton", bootstrap=200, rng=model_rng(seed, model, field))
        return np.array([iv.score, iv.lo, iv.hi, iv.half_width, iv.score_pct, iv.ci_pct]).tobytes()

    assert interval(42) == interval(42)
    # Percentiles of 200 replicates on a 1/186 grid are coarse, so two seeds can share an interval
    # (42 and 43 do); over ten seeds, models or fields, draws that ignored them would give one.
    assert len({interval(seed) for seed in range(10)}) >= 5
    assert len({interval(42, model=f"m{k}") for k in range(10)}) >= 5
    assert len({interval(42, field=f"f{k}") for k in range(10)}) >= 5


def test_reference_replicates_equal_the_drawn_label_mean():
    """docs/method.md §4: a drawn set with the model's histogram makes every PPI++ estimate mean(Y)."""
    pytest.importorskip("ppi_py")
    from ppi_py import ppi_mean_pointestimate as theirs

    rng = np.random.default_rng(0)
    table = pd.DataFrame({"jury_score": rng.integers(0, 4, 300) / 3, "provider": rng.choice(["a", "b", "c"], 300)})
    table["human"] = np.where(rng.random(300) < 0.5, (rng.random(300) < 0.2 + 0.6 * table["jury_score"]) * 1.0, np.nan)
    model = rng.integers(0, 4, 40) / 3
    reps = reference_replicates(model, table, "a", 5, seed=1)
    assert np.allclose(reps * 40, np.round(reps * 40), atol=1e-9)  # a mean of 40 drawn labels
    # and that is ppi_py's estimate whatever lambda it picks: same histogram => mean(Y)
    Y = (rng.random(40) < 0.5).astype(float)
    assert float(theirs(Y, np.sort(model), model, lam=None)[0]) == pytest.approx(Y.mean(), abs=1e-12)
