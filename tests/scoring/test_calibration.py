"""sideways.scoring.calibration.score_models on small hand-made jury tables."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from helpers.exact_reference import exact_interval
from sideways.artifacts.schema import FIELDS, JURY, SCORES, conform
from sideways.core.errors import CalibrationError
from sideways.scoring.calibration import model_rng, score_models
from sideways.scoring.posterior import MEAN_DECIMALS


def _jury_rows(model, provider, votes_judges, field_votes=None, name=None, n_hints=0, start=0):
    """Rows for one model; ``votes_judges`` are (votes, judges) for every field unless overridden."""
    rows = []
    for i, (v, j) in enumerate(votes_judges):
        row = {"riddle_id": f"r{start + i}", "model": model, "provider": provider,
               "model_name": name or model, "n_hints": n_hints, "panel": "a,b,c"}
        for f in FIELDS:
            fv, fj = (field_votes or {}).get(f, (v, j))[i] if field_votes else (v, j)
            row[f"{f}_votes"], row[f"{f}_judges"] = fv, fj
            row[f"{f}_score"] = fv / fj if fj else np.nan
        rows.append(row)
    return rows


def _jury(*parts):
    return conform(pd.DataFrame([r for p in parts for r in p]), JURY, "test jury")


def _labels(model, provider, riddles_labels, start=0):
    return [{"riddle_id": f"r{start + i}", "model": model, "provider": provider,
             "human_answer_correct": a, "human_justification_correct": j, "human_both_correct": a and j,
             "annotator": "h"} for i, (a, j) in enumerate(riddles_labels)]


def _score(jury, ann, **kw):
    # these tests are about the published interval: ranks follow it, and its errors raise
    kw = {"field": "both_correct", "method": "exact", "bootstrap": 2000, "seed": 0, "interval": "published"} | kw
    kw.setdefault("models", sorted({m for m in jury["model"] if not m.startswith("l")}))
    return score_models(jury, pd.DataFrame(ann), **kw).set_index("model")


# A pool from provider "lab": 10 rows in bin 0/3 (1 positive), 10 in 1/3 (5 positive), 10 in 3/3 (9 positive).
POOL_VJ = [(0, 3)] * 10 + [(1, 3)] * 10 + [(3, 3)] * 10
POOL_LABELS = [(i < 1, True) for i in range(10)] + [(i < 5, True) for i in range(10)] + [(i < 9, True) for i in range(10)]


def test_exact_mode_uses_the_other_providers_pool_and_exact_quantiles():
    target = _jury_rows("t", "newco", [(0, 3)] * 4 + [(1, 3)] * 3 + [(3, 3)] * 5)
    labelled = _jury_rows("l", "lab", POOL_VJ, start=100)
    out = _score(_jury(target, labelled), _labels("l", "lab", POOL_LABELS, start=100))
    lo, hi = exact_interval([4, 3, 5], [0.1, 0.5, 0.9])
    row = out.loc["t"]
    assert (row["lo"], row["hi"]) == (lo, hi)
    assert row["score"] == pytest.approx((lo + hi) / 2) and row["half_width"] == pytest.approx((hi - lo) / 2)
    assert row["n"] == 12 and row["n_pool"] == 30
    assert row["method"] == "exact" and row["bootstrap"] == 0
    conform(out.reset_index(), SCORES, "test")


def test_same_provider_labels_are_excluded_from_the_pool():
    # Another model of "lab" is scored: its own provider's labels (the whole pool above) are out,
    # so only "other"'s labels count, whose bins say the opposite.
    target = _jury_rows("t2", "lab", [(0, 3)] * 5 + [(3, 3)] * 5, start=200)
    labelled = _jury_rows("l", "lab", POOL_VJ, start=100)
    other = _jury_rows("o", "other", [(0, 3)] * 4 + [(3, 3)] * 4, start=300)
    other_labels = [(True, True)] * 4 + [(False, False)] * 4  # inverted jury
    ann = _labels("l", "lab", POOL_LABELS, start=100) + _labels("o", "other", other_labels, start=300)
    out = _score(_jury(target, labelled, other), ann)
    assert out.loc["t2", "n_pool"] == 8
    assert out.loc["t2", "score"] == 0.5 and out.loc["t2", "half_width"] == 0.0  # p = 1 on 0/3, 0 on 3/3


def test_all_three_fields_use_their_own_votes_and_labels():
    votes = {
        "answer_correct": [(3, 3)] * 6,
        "justification_correct": [(0, 3)] * 6,
        "both_correct": [(0, 3)] * 6,
    }
    target = _jury_rows("t", "newco", [(0, 3)] * 6, field_votes=votes)
    pool_votes = {f: [(3, 3)] * 5 + [(0, 3)] * 5 for f in FIELDS}
    labelled = _jury_rows("l", "lab", [(0, 3)] * 10, field_votes=pool_votes, start=100)
    labels = [(True, False)] * 5 + [(True, True)] * 5  # 3/3 rows: answer right, justification wrong
    jury, ann = _jury(target, labelled), _labels("l", "lab", labels, start=100)
    got = {f: _score(jury, ann, field=f).loc["t", "score"] for f in FIELDS}
    assert got == {"answer_correct": 1.0, "justification_correct": 1.0, "both_correct": 1.0}
    ann2 = _labels("l", "lab", [(True, False)] * 5 + [(False, False)] * 5, start=100)
    got2 = {f: _score(jury, ann2, field=f).loc["t", "score"] for f in FIELDS}
    assert got2 == {"answer_correct": 1.0, "justification_correct": 0.0, "both_correct": 0.0}


def test_bins_are_exact_fractions_not_floats():
    # 2/2 and 3/3 are one bin; 1/2 is its own bin, never merged with 1/3 or 2/3.
    target = _jury_rows("t", "newco", [(2, 2)] * 3 + [(1, 2)] * 2)
    labelled = _jury_rows("l", "lab", [(3, 3)] * 4 + [(1, 3)] * 4, start=100)
    ann = _labels("l", "lab", [(True, True)] * 4 + [(False, True)] * 4, start=100)
    with pytest.raises(CalibrationError) as err:
        _score(_jury(target, labelled), ann)
    msg = str(err.value)
    assert "'t'" in msg and "both_correct" in msg and "1/2" in msg


def test_empty_bin_nearest_borrows_with_a_warning():
    target = _jury_rows("t", "newco", [(2, 3)] * 4 + [(3, 3)] * 4)
    labelled = _jury_rows("l", "lab", [(3, 3)] * 4 + [(0, 3)] * 4, start=100)
    ann = _labels("l", "lab", [(True, True)] * 4 + [(False, True)] * 4, start=100)
    with pytest.raises(CalibrationError, match=r"'t'.*both_correct.*bin 2/3"):
        _score(_jury(target, labelled), ann)
    with pytest.warns(UserWarning, match=r"borrowed for t \(2/3 -> 1\)$"):
        out = _score(_jury(target, labelled), ann, empty_bin="nearest")
    assert out.loc["t", "score"] == 1.0
    # Equidistant bins: the lower one is borrowed (the conservative choice).
    labelled = _jury_rows("l", "lab", [(3, 3)] * 4 + [(1, 3)] * 4, start=100)
    with pytest.warns(UserWarning, match=r"for t \(2/3 -> 1/3\)$"):
        _score(_jury(target, labelled), ann, empty_bin="nearest")


def test_unanimous_model_gets_a_zero_width_interval_in_both_modes():
    target = _jury_rows("t", "newco", [(3, 3)] * 7 + [(0, 3)] * 3)
    labelled = _jury_rows("l", "lab", [(3, 3)] * 5 + [(0, 3)] * 5, start=100)
    ann = _labels("l", "lab", [(True, True)] * 5 + [(False, False)] * 5, start=100)
    for method in ("exact", "layton"):
        row = _score(_jury(target, labelled), ann, method=method).loc["t"]
        assert row["lo"] == row["hi"] == pytest.approx(0.7) and row["half_width"] == 0.0
        assert row["score_pct"] == 70.0 and row["ci_pct"] == 0.1


def test_missing_judge_and_unscored_predictions():
    # Some predictions judged by 2 judges (one missing), one by none: n counts those with a score.
    target = _jury_rows("t", "newco", [(2, 2)] * 3 + [(3, 3)] * 3 + [(0, 0)])
    labelled = _jury_rows("l", "lab", [(3, 3)] * 4 + [(0, 3)] * 4, start=100)
    ann = _labels("l", "lab", [(True, True)] * 4 + [(False, False)] * 4, start=100)
    row = _score(_jury(target, labelled), ann).loc["t"]
    assert row["n"] == 6 and row["score"] == 1.0


def test_model_without_its_own_labels_and_same_names_apart():
    # Two models named "x" under different providers: keys differ, pools differ.
    a = _jury_rows("x-lab", "lab", [(3, 3)] * 4, name="x", start=0)
    b = _jury_rows("x-other", "other", [(3, 3)] * 4, name="x", start=0)
    la = _jury_rows("la", "lab", [(3, 3)] * 4, start=100)
    lo = _jury_rows("lo", "other", [(3, 3)] * 4, start=100)
    ann = _labels("la", "lab", [(True, True)] * 4, start=100) + _labels("lo", "other", [(False, False)] * 4, start=100)
    out = _score(_jury(a, b, la, lo), ann, models=["x-lab", "x-other"])
    assert out.loc["x-lab", "score"] == 0.0  # calibrated on "other"'s labels only
    assert out.loc["x-other", "score"] == 1.0
    assert out.loc["x-lab", "model_name"] == out.loc["x-other", "model_name"] == "x"


def test_no_pool_at_all_is_an_error():
    target = _jury_rows("t", "lab", [(3, 3)] * 4)
    labelled = _jury_rows("l", "lab", [(3, 3)] * 4, start=100)
    with pytest.raises(CalibrationError, match="'t'.*nothing to calibrate"):
        _score(_jury(target, labelled), _labels("l", "lab", [(True, True)] * 4, start=100))
    with pytest.raises(CalibrationError, match="ghost"):
        _score(_jury(target, labelled), _labels("l", "lab", [(True, True)] * 4, start=100), models=["ghost"])


def test_layton_seeding_is_per_model_and_stable():
    rng = np.random.default_rng(5)
    bins = [(0, 3), (1, 3), (2, 3), (3, 3)]
    labelled = _jury_rows("l", "lab", [bins[i] for i in rng.integers(0, 4, 200)], start=1000)
    ann = _labels("l", "lab", [(bool(x), True) for x in rng.random(200) < 0.5], start=1000)
    t = _jury_rows("t", "newco", [bins[i] for i in rng.integers(0, 4, 60)])
    u = _jury_rows("u", "newco2", [bins[i] for i in rng.integers(0, 4, 60)])
    alone = _score(_jury(t, labelled), ann, method="layton", seed=3)
    both = _score(_jury(t, u, labelled), ann, method="layton", seed=3)
    again = _score(_jury(t, u, labelled), ann, method="layton", seed=3)
    assert alone.loc["t", ["lo", "hi"]].tolist() == both.loc["t", ["lo", "hi"]].tolist()
    assert both.equals(again)
    # The stream depends on (seed, model, field) and nothing else.
    draws = lambda s, m, f: model_rng(s, m, f).integers(0, 2**31, 4).tolist()
    assert draws(3, "t", "both_correct") == draws(3, "t", "both_correct")
    assert len({tuple(draws(*k)) for k in [(3, "t", "both_correct"), (4, "t", "both_correct"),
                                          (3, "u", "both_correct"), (3, "t", "answer_correct")]}) == 4


def test_truth_gives_coverage():
    target = _jury_rows("t", "newco", [(3, 3)] * 7 + [(0, 3)] * 3)
    labelled = _jury_rows("l", "lab", [(3, 3)] * 5 + [(0, 3)] * 5, start=100)
    ann = _labels("l", "lab", [(True, True)] * 5 + [(False, False)] * 5, start=100)
    out = _score(_jury(target, labelled), ann, truth={"t": 0.7})
    assert bool(out.loc["t", "covered"])
    assert not bool(_score(_jury(target, labelled), ann, truth={"t": 0.71}).loc["t", "covered"])
    assert _score(_jury(target, labelled), ann).loc["t", "covered"] is pd.NA


def test_the_posterior_interval_is_computed_beside_the_published_one():
    target = _jury_rows("t", "newco", [(0, 3)] * 4 + [(1, 3)] * 3 + [(3, 3)] * 5)
    labelled = _jury_rows("l", "lab", POOL_VJ, start=100)
    ann = _labels("l", "lab", POOL_LABELS, start=100)
    published = _score(_jury(target, labelled), ann).loc["t"]
    row = _score(_jury(target, labelled), ann, interval="posterior").loc["t"]
    assert row["interval"] == "posterior" and published["interval"] == "published"
    assert (row["lo"], row["hi"], row["ci_pct"]) == (published["lo"], published["hi"], published["ci_pct"])
    # no own label: the pool is a prior worth a few labels a bin, so the posterior is far wider
    assert row["n_labelled"] == 0
    assert row["posterior_lo"] <= row["lo"] and row["posterior_hi"] >= row["hi"]
    assert row["posterior_half_width"] > row["half_width"]
    # the score is the posterior mean, E[K] / n, not the middle of the shortest set: with no own label
    # each bin's rate has the pool's smoothed mean (a + 1/2) / (b + 1), so E[K] = (4 * 1.5 + 3 * 5.5 + 5 * 9.5) / 11
    # (E[K] kept to MEAN_DECIMALS decimals of a count)
    assert row["posterior_score"] == pytest.approx(70 / 11 / 12, abs=10.0**-MEAN_DECIMALS / 12)
    assert row["posterior_score"] != pytest.approx((row["posterior_lo"] + row["posterior_hi"]) / 2)
    assert row["posterior_score_pct"] == 53.0 and row["posterior"] == "v1"
    # score ± ci (what ranks and rank spreads read) holds the whole interval
    assert row["posterior_score_pct"] - row["posterior_ci_pct"] <= 100 * row["posterior_lo"]
    assert row["posterior_score_pct"] + row["posterior_ci_pct"] >= 100 * row["posterior_hi"]


def test_an_empty_bin_leaves_the_published_interval_empty_when_the_posterior_ranks():
    target = _jury_rows("t", "newco", [(2, 2)] * 3 + [(1, 2)] * 2)
    labelled = _jury_rows("l", "lab", [(3, 3)] * 4 + [(1, 3)] * 4, start=100)
    ann = _labels("l", "lab", [(True, True)] * 4 + [(False, True)] * 4, start=100)
    with pytest.warns(UserWarning, match=r"no published interval .* for t \(1/2\)$"):
        row = _score(_jury(target, labelled), ann, interval="posterior", truth={"t": 0.6}).loc["t"]
    assert pd.isna(row["score_pct"]) and pd.isna(row["lo"]) and row["covered"] is pd.NA
    assert 0 <= row["posterior_lo"] <= row["posterior_hi"] <= 1 and row["posterior_covered"] in (True, False)
    with pytest.raises(CalibrationError, match="bin 1/2"):
        _score(_jury(target, labelled), ann, interval="published")


def test_own_labels_of_every_prediction_make_the_posterior_the_truth():
    target = _jury_rows("t", "newco", [(0, 3)] * 4 + [(3, 3)] * 6)
    labelled = _jury_rows("l", "lab", POOL_VJ, start=100)
    own = _labels("t", "newco", [(False, True)] * 3 + [(True, True)] * 7)  # 7 of 10 truly right
    out = _score(_jury(target, labelled), own + _labels("l", "lab", POOL_LABELS, start=100),
                 interval="posterior", truth={"t": 0.7}).loc["t"]
    assert out["n_labelled"] == 10
    assert out["posterior_lo"] == out["posterior_hi"] == 0.7 and out["posterior_ci_pct"] == 0.1
    assert bool(out["posterior_covered"])


def test_an_unknown_interval_is_refused():
    target = _jury_rows("t", "newco", [(0, 3)] * 4)
    with pytest.raises(CalibrationError, match="unknown interval 'hpd'"):
        _score(_jury(target, _jury_rows("l", "lab", POOL_VJ, start=100)),
               _labels("l", "lab", POOL_LABELS, start=100), interval="hpd")


def test_the_warnings_of_many_models_are_said_once_within_120_columns():
    """A model per provider, each with a jury-score bin no other provider labelled: one warning for them all."""
    models = [f"model-{i:02d}" for i in range(12)]
    jury = _jury(*(_jury_rows(m, f"p{i}", [(2, 2)] * 3 + [(1, 2)] * 2, start=10 * i) for i, m in enumerate(models)),
                 _jury_rows("l", "lab", [(3, 3)] * 4 + [(1, 3)] * 4, start=500))
    ann = _labels("l", "lab", [(True, True)] * 4 + [(False, True)] * 4, start=500)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        _score(jury, ann, interval="posterior")
    said = [str(w.message) for w in caught]
    assert len(said) == 1 and said[0].startswith("both_correct: no published interval"), said
    assert said[0].endswith("more") and models[0] in said[0] and len(f"warning: calibrate@llm: {said[0]}") <= 120
