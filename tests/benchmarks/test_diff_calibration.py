"""A small, fast version of benchmarks/studies/diff_calibration.py: `sideways diff` calls null changes
"no detectable change" and sees a real one (docs/method.md §8)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from helpers import ROOT, project_params
from lab.changes import null_rate, power
from lab.coverage import Setting, setting_params, split_riddles
from sideways.sources.demo import load_demo


@pytest.fixture(scope="module", params=["latent", "v1"])
def world(request):
    """The project's params ranked by the default posterior (latent: each version scored by the calibrate
    stage's fit, the draws reading its prior) and by v1."""
    base = project_params()
    demo = load_demo(Path(ROOT / base["riddles"]["path"]))
    llm = split_riddles(demo, "llm")
    params = setting_params(base, Setting())
    return replace(params, calibration=replace(params.calibration, posterior=request.param)), llm


def test_null_changes_are_no_detectable_change_in_at_least_95_percent_of_rows(world):
    params, riddles = world
    got = null_rate(params, riddles, "llm", range(8), replicates=300)
    assert got["rows"] == 8 * len(params.models)
    assert got["rate"] >= 0.95, got


def test_a_ten_point_gain_is_seen_and_nobody_else_moves(world):
    params, riddles = world
    got = power(params, riddles, "llm", range(4), "atlas-mini", 10, replicates=300)
    assert got["runs"] == 4 and got["k"] == 4
    assert got["detected"] >= 3 and got["others_called"] == 0, got
