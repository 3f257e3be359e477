"""The oracle's interval (lab.oracle, benchmarks/studies/oracle_width.py): Bayes' rule with the simulator's
own parameters, the floor of an honest interval's width."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import oracle_width
import pytest

from helpers import ROOT, project_params
from lab.coverage import Setting, setting_params, simulate_run, split_riddles
from lab.oracle import (
    ModelCount,
    mixed_over_spreads,
    mixed_rows,
    oracle_probabilities,
    unknown_model_counts,
)
from sideways.annotation.labels import seeded_sample, simulate_labels
from sideways.artifacts.schema import records_by
from sideways.simulation.truth import truth
from sideways.sources.demo import load_demo


def _world(setting: Setting, share: float, seed: int = 3):
    base = project_params()
    params = setting_params(base, setting)
    demo = load_demo(Path(ROOT / base["riddles"]["path"]))
    riddles = split_riddles(demo, "llm")
    predictions, judgments, _ = simulate_run(params, riddles, seed)
    labels = simulate_labels(seeded_sample(predictions, share, seed, "llm"), riddles, seed, params.annotations.noise)
    by_id = records_by(riddles, "riddle_id")
    right = {(p["model"], p["riddle_id"]): all(truth(by_id[p["riddle_id"]], p["answer"], p["justification"]))
             for p in predictions.to_dict("records")}
    return params, riddles, predictions, judgments, labels, right, seed


def test_judges_who_never_err_make_every_judged_row_certain_and_right():
    params, riddles, predictions, judgments, labels, right, seed = _world(Setting(judge_quality=1.0), share=0.0)
    probs = oracle_probabilities(params, riddles, predictions, judgments, labels, seed)
    judged = set(zip(judgments.loc[judgments["status"] == "ok", "model"],
                     judgments.loc[judgments["status"] == "ok", "riddle_id"], strict=True))
    assert judged and set(probs) == set(right)
    for key in judged:
        assert probs[key] == pytest.approx(float(right[key]), abs=1e-6), key


def test_a_true_label_settles_its_row_and_poor_judges_leave_the_others_uncertain():
    params, riddles, predictions, judgments, labels, right, seed = _world(Setting(judge_quality=0.7), share=0.5)
    probs = oracle_probabilities(params, riddles, predictions, judgments, labels, seed)
    labelled = set(zip(labels["model"], labels["riddle_id"], strict=True))
    assert labelled and all(probs[k] == float(right[k]) for k in labelled)
    free = [probs[k] for k in probs if k not in labelled]
    assert free and sum(0.05 < p < 0.95 for p in free) > len(free) / 4


def test_judges_who_err_together_are_refused():
    params, riddles, predictions, judgments, labels, _, seed = _world(Setting(correlation=0.5), share=0.2)
    with pytest.raises(ValueError, match="correlation"):
        oracle_probabilities(params, riddles, predictions, judgments, labels, seed)


def test_the_script_prints_and_writes_the_oracle_narrower_than_v1(tmp_path, capsys):
    out = tmp_path / "oracle.json"
    assert oracle_width.main(["--seeds", "2", "--shares", "0.25", "--json", str(out)]) == 0
    assert "over v1: oracle" in capsys.readouterr().out
    rows = json.loads(out.read_text())["rows"]
    assert {r["split"] for r in rows} == {"llm", "vlm"}
    for r in rows:
        assert r["intervals"] == 12 and 0 < r["oracle_over_v1"] < 1


def _point(pmf) -> int:
    """The count a pmf puts all its mass on (fails when it does not)."""
    top = int(pmf.argmax())
    assert pmf[top] == pytest.approx(1.0, abs=1e-9)
    return top


@pytest.mark.parametrize("spread", [0.0, 0.7])
def test_the_oracle_without_the_models_counts_a_fully_labelled_split_exactly(spread):
    params, riddles, predictions, judgments, labels, right, seed = _world(Setting(), share=1.0)
    counts = unknown_model_counts(params, riddles, predictions, judgments, labels, seed, spread)
    assert sorted(counts) == sorted(predictions["model"].unique())
    for model, c in counts.items():
        assert _point(c.pmf) == sum(v for (m, _), v in right.items() if m == model)


def test_the_oracle_without_the_models_learns_the_skill_from_perfect_judges():
    params, riddles, predictions, judgments, labels, right, seed = _world(Setting(judge_quality=1.0), share=0.0)
    for model, c in unknown_model_counts(params, riddles, predictions, judgments, labels, seed, 0.0).items():
        assert _point(c.pmf) == sum(v for (m, _), v in right.items() if m == model)


def test_the_spread_the_rows_favour_is_the_one_the_judges_have():
    """Judges who favour some models: every model's rows together prefer the oracle that allows it; judges who do not:
    the one that does not (the evidence the mixture over spreads weighs by)."""
    for setting, favoured in ((Setting(model_spread=1.5), 0.7), (Setting(), 0.0)):
        params, riddles, predictions, judgments, labels, _, seed = _world(setting, share=1 / 6)
        evidence = {s: sum(c.log_evidence for c in unknown_model_counts(params, riddles, predictions, judgments,
                                                                         labels, seed, s).values())
                    for s in (0.0, 0.7)}
        assert max(evidence, key=evidence.__getitem__) == favoured, (setting, evidence)


def test_the_mixture_over_spreads_follows_the_evidence():
    a = {"m": ModelCount(np.array([1.0, 0.0]), 0.0)}
    b = {"m": ModelCount(np.array([0.0, 1.0]), math.log(3.0))}
    assert mixed_over_spreads({0.0: a, 0.7: b})["m"] == pytest.approx([0.25, 0.75])


def test_the_rows_of_the_oracle_without_the_models_add_up_to_its_counts_mean():
    """Each row's start is its P(both right) averaged over the same posterior the count is mixed over, so their sum
    is the count's mean; a labelled row's follows its label."""
    params, riddles, predictions, judgments, labels, right, seed = _world(Setting(model_spread=0.7), share=0.5)
    counts = unknown_model_counts(params, riddles, predictions, judgments, labels, seed, 0.7)
    for model, c in counts.items():
        rows = predictions.loc[predictions["model"] == model, "riddle_id"]
        assert sorted(c.right) == sorted(rows)
        assert sum(c.right.values()) == pytest.approx(float(np.arange(len(c.pmf)) @ c.pmf), rel=1e-9)
    labelled = set(zip(labels["model"], labels["riddle_id"], strict=True))
    assert all(round(counts[m].right[r]) == right[(m, r)] for m, r in labelled)


def test_the_rows_mixed_over_spreads_follow_the_evidence():
    a = {"m": ModelCount(np.array([1.0, 0.0]), 0.0, {"r1": 0.2})}
    b = {"m": ModelCount(np.array([0.0, 1.0]), math.log(3.0), {"r1": 0.6})}
    assert mixed_rows({0.0: a, 0.7: b}) == {("m", "r1"): pytest.approx(0.25 * 0.2 + 0.75 * 0.6)}


def test_the_script_adds_the_oracle_without_the_models_and_the_fits_own_count(tmp_path, capsys):
    out = tmp_path / "unknown.json"
    assert oracle_width.main(["--seeds", "2", "--shares", "0.25", "--unknown-models", "--json", str(out)]) == 0
    assert "unknown_models" in capsys.readouterr().out
    for r in json.loads(out.read_text())["rows"]:
        assert r["oracle_over_v1"] <= r["unknown_models_over_v1"] * 1.2 and 0 < r["latent_class_over_v1"] < 1
        assert 0 < r["judge_starts_over_v1"] < 1
