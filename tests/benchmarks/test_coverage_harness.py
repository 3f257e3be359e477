"""lab.coverage (the in-process coverage runs) and benchmarks/interval_coverage.py on tiny grids."""

from __future__ import annotations

import json

import interval_coverage
import pytest

from conftest import make_riddles
from lab.coverage import (
    Setting,
    interval_names,
    measure,
    resize_riddles,
    run_split,
    setting_params,
    share_for,
    slim_riddles,
    split_riddles,
)


def test_a_per_riddle_budget_is_a_share_of_each_models_predictions():
    assert share_for(1, 6) == pytest.approx(1 / 6)
    assert share_for(3, 6) == 0.5 and share_for(10, 6) == 1.0
    with pytest.raises(ValueError):
        share_for(0, 6)


def test_setting_params_spreads_skills_and_sets_every_judge(default_params):
    params = setting_params(default_params, Setting(models=4, judge_quality=0.97, self_bias=0.0))
    assert [m.options.skill for m in params.models] == pytest.approx([0.3, 0.5, 0.7, 0.9])
    assert [m.provider for m in params.models] == ["openai", "gemini", "anthropic", "mistral"]
    for judge in params.jury.pool:
        assert judge.options.sensitivity == judge.options.specificity == 0.97
        assert judge.options.self_bias == 0.0


def test_resized_riddles_are_renamed_copies_with_unique_ids():
    riddles = slim_riddles(make_riddles(7))
    more = resize_riddles(riddles, 17)
    assert len(more) == 17 and more["riddle_id"].is_unique
    assert more["answer"].tolist()[7:14] == riddles["answer"].tolist()
    assert resize_riddles(riddles, 3)["riddle_id"].tolist() == riddles["riddle_id"].tolist()[:3]


def test_a_splits_riddles_are_its_own_in_id_order_and_resized_on_request():
    riddles = make_riddles(6).assign(split=["vlm", "llm"] * 3).iloc[::-1]
    llm = split_riddles(riddles, "llm")
    assert llm["riddle_id"].tolist() == sorted(riddles.loc[riddles["split"] == "llm", "riddle_id"])
    assert set(llm["split"]) == {"llm"} and list(llm.columns) == list(slim_riddles(riddles).columns)
    assert len(split_riddles(riddles, "vlm", 5)) == 5 and split_riddles(riddles, "vlm", 5)["riddle_id"].is_unique


def test_labelling_everything_makes_the_posterior_exact_and_cover(default_params):
    params = setting_params(default_params, Setting(models=3))
    riddles = {"llm": slim_riddles(make_riddles(12))}
    (full, some) = measure(params, riddles, [0, 1], [(1.0, 2.0), (0.5, 2.0)], published_method="exact")
    for name in ("v1", "hierarchical"):
        post = full["splits"]["llm"][name]
        assert post["coverage"] == 1.0 and post["mean_half_width"] == 0.0 and post["intervals"] == 6
    half = some["splits"]["llm"]["hierarchical"]
    assert half["runs"] == 2 and half["mean_half_width"] > 0 and 0 <= half["coverage"] <= 1


def test_one_run_scores_every_model_against_its_truth(default_params):
    params = setting_params(default_params, Setting(models=3, judge_quality=0.97))
    (scores,) = run_split(params, slim_riddles(make_riddles(12)), "llm", 3, [(0.5, 2.0)], published_method="exact")
    assert len(scores) == 3 and scores["true_score"].notna().all()
    for name in interval_names()[:-1]:
        assert scores[f"{name}_covered"].notna().all() and scores[f"{name}_half_width"].notna().all()


def test_the_script_prints_and_writes_every_cell(tmp_path, capsys):
    out = tmp_path / "cov.json"
    assert interval_coverage.main(["--seeds", "1", "--per-riddle", "6", "--models", "3", "--riddles", "8",
                                   "--interval", "exact", "--json", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "llm  v1           coverage 100.0% ± 0.0" in printed and "vlm  exact" in printed
    data = json.loads(out.read_text())
    (cell,) = data["results"]
    assert cell["share"] == 1.0 and set(cell["splits"]) == {"llm", "vlm"}


def test_the_grid_measures_the_new_posterior_narrower_than_v1_on_the_same_runs(tmp_path, capsys):
    """Pins the method: on the quick grid the hierarchical interval is narrower than v1 (the default) in
    every cell and covers, measured on the same runs (fails if it fell back to v1: every ratio would be 1)."""
    out = tmp_path / "grid.json"
    assert interval_coverage.main(["--grid", "quick", "--seeds", "3", "--json", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "| quick (4 models) | llm | 0.25 |" in printed and "half-width ratio hierarchical / v1" in printed
    assert "| v1: coverage % | ± points |" in printed.splitlines()[0]
    data = json.loads(out.read_text())
    assert len(data["ratios"]["hierarchical"]) == 4 and all(r < 1 for r in data["ratios"]["hierarchical"])
    for cell in data["results"]:
        for by in cell["splits"].values():
            assert {by[name]["runs"] for name in interval_names()} == {3}
            assert by["hierarchical"]["coverage"] >= 0.9


def test_the_hard_settings_reach_the_simulation_and_cost_coverage(default_params):
    """Judges that err together, per-model leniency, the fourth class and noisy annotators all reach a
    run: the same seed gives other verdicts and labels, and v1's coverage is not what the easy world gives."""
    riddles = {"llm": slim_riddles(make_riddles(16))}
    easy = measure(setting_params(default_params, Setting(models=4)), riddles, range(4), [(0.5, 4.0)],
                   published_method="exact")
    hard = measure(setting_params(default_params, Setting(models=4, correlation=0.8, model_spread=1.0, slip=0.5,
                                                          label_noise=0.2)),
                   riddles, range(4), [(0.5, 4.0)], published_method="exact")
    assert easy[0]["splits"]["llm"]["v1"] != hard[0]["splits"]["llm"]["v1"]
