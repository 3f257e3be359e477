"""Where the latent posterior's width goes (lab.width_parts, oracle_width.py --parts,
real_coverage.py's latent-strata)."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import oracle_width
import pandas as pd
import pytest
import real_coverage
from test_real_coverage import _write_file

from helpers import ROOT, project_params
from lab.coverage import Setting, setting_params, simulate_run, split_riddles
from lab.oracle import oracle_probabilities
from lab.width_parts import CUTS, binned_intervals, given_starts, level_grid, parts, stratified
from sideways.annotation.labels import seeded_sample, simulate_labels
from sideways.scoring import hierarchy, latent_prior
from sideways.scoring.calibration import score_models
from sideways.sources.demo import load_demo

FIELD = "both_correct"


def _run(seed: int = 2, share: float = 1 / 6):
    base = project_params()
    params = setting_params(base, Setting())
    demo = load_demo(Path(ROOT / base["riddles"]["path"]))
    riddles = split_riddles(demo, "llm")
    predictions, judgments, jury = simulate_run(params, riddles, seed)
    labels = simulate_labels(seeded_sample(predictions, share, seed, "llm"), riddles, seed, params.annotations.noise)
    fitted = latent_prior.predictions(jury, judgments, labels, FIELD, seed=seed, stream=latent_prior.stream("llm", FIELD))
    return params, riddles, predictions, judgments, jury, labels, fitted, seed


def test_the_latent_step_is_the_calibrate_stage_s_own_interval():
    _, _, _, judgments, jury, labels, fitted, seed = _run()
    models = sorted(set(jury["model"]))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sc = score_models(jury, labels, field=FIELD, method="exact", bootstrap=0, seed=seed, empty_bin="nearest",
                          interval="posterior", posterior="latent", judgments=judgments, stream="llm")
    got = binned_intervals(jury, labels, fitted, FIELD, models)
    for row in sc.itertuples():
        lo, hi, n = got[row.model]
        assert (lo / n, hi / n) == pytest.approx((row.posterior_lo, row.posterior_hi), abs=1e-12), row.model


def test_strata_replace_the_votes_of_judged_rows_only():
    jury = pd.DataFrame({"riddle_id": list("abcdefg"), "model": ["m"] * 7,
                         f"{FIELD}_votes": [0, 1, 2, 3, 1, 2, 0], f"{FIELD}_judges": [3, 3, 3, 3, 3, 3, 0]})
    predicted = pd.DataFrame({"riddle_id": list("abcdef"), "model": ["m"] * 6,
                              "predicted": [0.0, 0.02, 0.021, 0.5, 0.97, 1.0]})
    out = stratified(jury, predicted, FIELD)
    assert out[f"{FIELD}_votes"].tolist() == [0, 0, 1, 2, 4, 5, 0]
    assert out[f"{FIELD}_judges"].tolist() == [len(CUTS)] * 6 + [0]
    assert jury[f"{FIELD}_votes"].tolist() == [0, 1, 2, 3, 1, 2, 0]  # the input is not touched
    with pytest.raises(ValueError, match="no predicted probability"):
        stratified(jury, predicted.iloc[:5], FIELD)


def test_the_level_grid_is_put_back_even_after_an_error():
    kept = hierarchy.GRID
    with pytest.raises(RuntimeError), level_grid(True):
        assert hierarchy.GRID and all(sigma == 0.0 for _, sigma in hierarchy.GRID)
        raise RuntimeError("inside")
    assert hierarchy.GRID == kept


def test_the_oracle_s_starts_binned_by_strata_narrow_the_latent_interval():
    params, riddles, predictions, judgments, jury, labels, fitted, seed = _run()
    with_label = oracle_probabilities(params, riddles, predictions, judgments, labels, seed)
    without = oracle_probabilities(params, riddles, predictions, judgments, labels.iloc[:0], seed)
    given = given_starts(jury, labels, without, with_label)
    labelled = labels.set_index(["model", "riddle_id"]).index
    for row in given.itertuples():  # the label's probability at labelled rows only
        assert row.predicted == without[(row.model, row.riddle_id)]
        assert (row.label_right == with_label[(row.model, row.riddle_id)] if (row.model, row.riddle_id) in labelled
                else np.isnan(row.label_right))
    steps = parts(jury, labels, fitted, given, FIELD, sorted(set(jury["model"])))

    def width(step: str) -> float:
        return float(np.mean([hi - lo for lo, hi, _ in steps[step].values()]))

    assert set(steps) == {"latent", "latent_strata", "starts", "starts_level", "starts_level_strata"}
    # one run is noisy; the ends of the chain and sigma's step are not (oracle_width.py --parts: the means)
    assert width("starts_level_strata") < width("starts_level") <= width("starts")
    assert width("starts_level_strata") < width("latent")


def test_oracle_width_prints_and_writes_the_parts(tmp_path, capsys):
    out = tmp_path / "parts.json"
    assert oracle_width.main(["--seeds", "1", "--shares", "0.25", "--parts", "--json", str(out)]) == 0
    assert "starts_level_strata" in capsys.readouterr().out
    for r in json.loads(out.read_text())["rows"]:
        assert r["intervals"] == 6 and 0 < r["oracle_over_v1"] < r["latent_over_v1"]
        assert all(f"{p}_over_v1" in r for p in oracle_width.PARTS)


def test_real_coverage_measures_the_variants_only_when_named(tmp_path):
    source = tmp_path / "ppi.jsonl"
    _write_file(source, text=False)
    out = tmp_path / "out.json"
    assert real_coverage.main(["--file", str(source), "--repeats", "1", "--shares", "0.5", "--min-labels", "15",
                               "--intervals", "latent,latent-strata,latent-sigma0", "--json", str(out)]) == 0
    rows = {r["interval"]: r for r in json.loads(out.read_text())["rows"]}
    assert set(rows) == {"latent", "latent-strata", "latent-sigma0"}
    assert all(r["intervals"] == 4 for r in rows.values())
    assert rows["latent-sigma0"]["half_width"] <= rows["latent"]["half_width"]
    assert not set(real_coverage.VARIANTS) & set(real_coverage.INTERVALS)
