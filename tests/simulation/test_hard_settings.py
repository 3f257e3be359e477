"""The simulator's hard settings: judges that err together, judges whose rates depend on the model,
the fourth class (wrong answer, right justification), noisy annotators and riddles of a hidden
difficulty shared by every model. Each is off by default
and then moves no row; on, each does what it says."""

from __future__ import annotations

import copy

import numpy as np
import pandas as pd
import pytest

from lab.coverage import Setting, setting_params
from sideways.annotation.labels import seeded_sample, simulate_labels
from sideways.backends.base import RunContext
from sideways.backends.sim import SimJudge, SimPredictor
from sideways.config.options import SimJudgeOptions, SimModelOptions
from sideways.config.params import JudgeSpec, ModelSpec, parse_params
from sideways.core.errors import ParamsError
from sideways.simulation.truth import truth


def model(key, provider="openai", skill=0.5, **opts):
    return ModelSpec(key, "sim", provider, key, 0, SimModelOptions(skill=skill, **opts))


def judge(key="j", provider="gemini", quality=0.8, **opts):
    return JudgeSpec(key, "sim", provider, key, SimJudgeOptions(sensitivity=quality, specificity=quality, **opts))


@pytest.fixture
def many(riddles):
    return pd.concat([riddles.assign(riddle_id=riddles["riddle_id"] + f"-{k}") for k in range(25)],
                     ignore_index=True)


def _truths(riddles, preds):
    by_id = riddles.set_index("riddle_id").to_dict("index")
    return [truth(by_id[p["riddle_id"]], p["answer"], p["justification"]) for p in preds.to_dict("records")]


def test_settings_at_zero_move_no_row(many):
    ctx = RunContext(seed=2)
    plain = SimPredictor().predict(many, model("a"), ctx)
    pd.testing.assert_frame_equal(plain, SimPredictor().predict(many, model("a", slip=0.0), ctx))
    pd.testing.assert_frame_equal(plain, SimPredictor().predict(many, model("a", hidden_difficulty=0.0), ctx))
    verdicts = SimJudge().judge(many, plain, judge(), ctx)
    pd.testing.assert_frame_equal(verdicts, SimJudge().judge(many, plain, judge(correlation=0.0, model_spread=0.0), ctx))
    sample = seeded_sample(plain, 0.5, 2, "llm")
    pd.testing.assert_frame_equal(simulate_labels(sample, many, 2), simulate_labels(sample, many, 2, noise=0.0))


def _error_agreement(many, preds, **opts):
    """P(judge 2 errs | judge 1 errs) on the answer, two judges of another provider, same quality."""
    ctx = RunContext(seed=5)
    real = np.array([a for a, _ in _truths(many, preds)])
    said = [SimJudge().judge(many, preds, judge(k, p, **opts), ctx)["is_answer_correct"].to_numpy(dtype=bool)
            for k, p in (("j1", "gemini"), ("j2", "mistral"))]
    err1, err2 = said[0] != real, said[1] != real
    return err1.mean(), err2.mean(), (err1 & err2).sum() / err1.sum()


def test_correlated_judges_err_together_at_the_same_rates(many):
    preds = SimPredictor().predict(many, model("a"), RunContext(seed=5))
    r1, r2, together = _error_agreement(many, preds)
    c1, c2, correlated = _error_agreement(many, preds, correlation=0.8)
    assert together < 0.35  # independent: about the error rate, 0.2
    assert correlated > 0.6  # mostly the same uniform: one errs, the other too
    assert abs(c1 - 0.2) < 0.05 and abs(c2 - 0.2) < 0.05  # each judge's own rates are kept


def test_model_spread_makes_a_judge_grade_models_differently(many):
    ctx = RunContext(seed=1)
    keys = [f"m{i}" for i in range(8)]
    preds = pd.concat([SimPredictor().predict(many, model(k, skill=0.5), ctx) for k in keys], ignore_index=True)
    real = np.array([a for a, _ in _truths(many, preds)])

    def false_positive_rates(**opts):
        said = SimJudge().judge(many, preds, judge(**opts), ctx)["is_answer_correct"].to_numpy(dtype=bool)
        return [said[(preds["model"] == k).to_numpy() & ~real].mean() for k in keys]

    assert np.ptp(false_positive_rates()) < 0.15  # one judge, one specificity for every model
    assert np.ptp(false_positive_rates(model_spread=1.0)) > 0.25


def test_slipping_models_give_the_fourth_class_and_labels_and_judges_see_it(many):
    ctx = RunContext(seed=3)
    preds = SimPredictor().predict(many, model("a", slip=0.5), ctx)
    classes = _truths(many, preds)
    wrong = [j for a, j in classes if not a]
    assert 0.35 < sum(wrong) / len(wrong) < 0.65  # half the wrong answers carry the gold justification
    assert not any(j for a, j in _truths(many, SimPredictor().predict(many, model("a"), ctx)) if not a)
    labels = simulate_labels(preds, many, 3)
    fourth = labels[~labels["human_answer_correct"] & labels["human_justification_correct"]]
    assert len(fourth) == sum(wrong) and not fourth["human_both_correct"].any()


def _riddle_spread(many, sd):
    """Over 8 models of skills 0.3-0.9: the sd (logit) of each riddle's share of right answers, and
    the share of riddles every model got right or every model got wrong."""
    ctx = RunContext(seed=6)
    right = np.array([[a for a, _ in _truths(many, SimPredictor().predict(many, model(f"m{i}", skill=0.3 + 0.6 * i / 7,
                                                                                       hidden_difficulty=sd), ctx))]
                      for i in range(8)])
    share = right.mean(axis=0).clip(1 / 16, 15 / 16)
    return float(np.log(share / (1 - share)).std()), float(((share < 1 / 8) | (share > 7 / 8)).mean())


def test_hidden_difficulty_makes_riddles_that_every_model_fails_or_solves(many):
    plain_sd, plain_extreme = _riddle_spread(many, 0.0)
    hard_sd, hard_extreme = _riddle_spread(many, 3.0)
    assert hard_sd > 2 * plain_sd and hard_extreme > 3 * plain_extreme + 0.2
    # one draw per riddle, the same for every model: a model's row moves only with the riddle's draw
    ctx = RunContext(seed=6)
    a = SimPredictor().predict(many, model("m0", hidden_difficulty=3.0), ctx)
    b = SimPredictor().predict(many, model("m1", skill=0.9, hidden_difficulty=3.0), ctx)
    ra, rb = (np.array([t for t, _ in _truths(many, p)]) for p in (a, b))
    assert (rb | ~ra).mean() > 0.9  # the weak model right -> the strong one right, nearly always


def test_noisy_annotators_err_at_their_rate(many):
    ctx = RunContext(seed=4)
    preds = SimPredictor().predict(many, model("a"), ctx)
    clean, noisy = simulate_labels(preds, many, 4), simulate_labels(preds, many, 4, noise=0.1)
    for field in ("answer", "justification"):
        flipped = (clean[f"human_{field}_correct"] != noisy[f"human_{field}_correct"]).mean()
        assert 0.07 < flipped < 0.13
    assert (noisy["human_both_correct"] == (noisy["human_answer_correct"] & noisy["human_justification_correct"])).all()


def test_a_grid_setting_turns_every_hard_setting_on(default_params):
    params = setting_params(default_params, Setting(correlation=0.5, model_spread=0.7, slip=0.3, label_noise=0.05,
                                                    hidden_difficulty=3.0))
    assert all(j.options.correlation == 0.5 and j.options.model_spread == 0.7 for j in params.jury.pool)
    assert all(m.options.slip == 0.3 and m.options.hidden_difficulty == 3.0 for m in params.models)
    assert params.annotations.noise == 0.05
    plain = setting_params(default_params, Setting())
    assert all(j.options.correlation == 0 and j.options.model_spread == 0 for j in plain.jury.pool)
    assert all(m.options.hidden_difficulty == 0 for m in plain.models)
    assert plain.annotations.noise == 0


@pytest.mark.parametrize(("value", "problem"), [(-1, "-1 is out of range [0.0, 10.0]"),
                                                (11, "11 is out of range [0.0, 10.0]"),
                                                ("hard", "expected a number, got 'hard'")])
def test_a_bad_hidden_difficulty_is_one_line_naming_the_model(default_params, value, problem):
    data = copy.deepcopy(dict(default_params))
    key = next(iter(data["models"]))
    data["models"][key]["hidden_difficulty"] = value
    with pytest.raises(ParamsError) as info:
        parse_params(data, source="params.yaml")
    assert str(info.value) == f"params.yaml: models.{key}.hidden_difficulty: {problem}"
