"""What DVC prints stays readable (issue 16, item 4): ``dvc metrics show`` lists what a user
reads, ``dvc plots show`` draws the interval plot (models ordered by score) and, since issue 11,
the calibration plot: no per-file "against step" chart."""

from __future__ import annotations

import json

import yaml

from helpers import ROOT


def _stages() -> dict:
    return yaml.safe_load((ROOT / "dvc.yaml").read_text())["stages"]


def test_metrics_are_the_leaderboards_and_curation_counts_not_per_stage_costs():
    metrics = {m for stage in _stages().values() for m in stage.get("metrics", [])}
    assert metrics == {"metrics/curation.json", "metrics/leaderboard_${item.split}.json",
                       "metrics/headline_${item.split}.json", "metrics/rank_sets_${item.split}.json", "metrics/exams.json",
                       "metrics/headline_exams"}


def test_paid_stages_still_record_their_cost_as_an_output():
    stages = _stages()
    for name in ("predict", "judge"):  # the exam's jobs ride in them, with cost folders of their own
        assert {f"metrics/cost/{name}", f"metrics/cost/exam_{name}"} <= set(stages[name]["outs"])
    assert not {"exam_predict", "exam_judge"} & set(stages)


def test_only_the_interval_and_calibration_plots_are_drawn():
    """Plot rows are stage outputs: declared as plots, each drew "true_score against step"."""
    assert not [name for name, stage in _stages().items() if "plots" in stage]
    interval, calibration = yaml.safe_load((ROOT / "dvc.yaml").read_text())["plots"]
    assert next(iter(interval.values()))["template"] == "plots/interval.json"
    assert next(iter(calibration.values())) == {
        "template": "plots/calibration.json", "x": "jury_score",
        "y": {f"metrics/plots/calibration/{s}.json": "human_rate" for s in ("llm", "vlm")}}


def test_the_interval_plot_orders_models_by_score_in_each_split():
    template = json.loads((ROOT / "plots/interval.json").read_text())
    by_score = {"field": "<DVC_METRIC_X>", "op": "max", "order": "descending"}
    layers = template["spec"]["layer"]
    assert len(layers) == 4  # published interval's ticks (2), the ranked interval's bar, the score
    assert [layer["encoding"]["y"]["sort"] for layer in layers] == [by_score] * len(layers)
    assert template["resolve"] == {"scale": {"y": "independent"}}  # each split its own order


def test_dvc_plots_output_is_git_ignored():
    assert "dvc_plots/" in (ROOT / ".gitignore").read_text().splitlines()
