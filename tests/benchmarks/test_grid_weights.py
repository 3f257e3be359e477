"""benchmarks/studies/grid_weights.py: the latent prior's posterior weight over its (kappa, sigma) grid."""

from __future__ import annotations

import json

import grid_weights
import numpy as np
import pytest
from test_real_coverage import _write_file

from sideways.scoring import hierarchy
from sideways.scoring.hierarchy import Prior

POINTS = len(hierarchy.GRID)


def test_the_summary_reads_a_uniform_posterior_as_no_information_and_one_point_as_all():
    uniform = np.full(POINTS, 1 / POINTS)
    got = grid_weights.summary([uniform, uniform])
    assert got["runs"] == 2 and got["distance"] == pytest.approx(0.0)
    assert all(w == pytest.approx(1 / len(grid_weights.SIGMAS)) for w in got["sigma"].values())
    assert got["kappa_at_most_4"] == pytest.approx(3 / 7) and got["kappa_at_least_16"] == pytest.approx(3 / 7)
    one = np.zeros(POINTS)
    one[hierarchy.GRID.index((64.0, 0.0))] = 1.0
    got = grid_weights.summary([one])
    assert got["distance"] == pytest.approx(1 - 1 / POINTS)
    assert got["sigma"]["0.0"] == 1.0 and got["kappa"]["64.0"] == 1.0 and got["kappa_at_most_4"] == 0.0


def test_a_priors_spread_lands_on_its_grid_points_and_dropped_points_get_nothing():
    spread = ((2.0, 0.3, 0.25), (64.0, 0.0, 0.75))
    w = grid_weights.grid_weights({"m": Prior({}, {}, spread), "n": Prior({}, {}, spread)})
    assert w.sum() == pytest.approx(1.0) and np.count_nonzero(w) == 2
    assert w[hierarchy.GRID.index((64.0, 0.0))] == 0.75


def test_it_runs_on_a_calibration_file_and_writes_the_rows(tmp_path, capsys):
    source = tmp_path / "ppi.jsonl"
    _write_file(source, text=False)  # half of 40 riddles labelled: 20 labels a model
    out = tmp_path / "w.json"
    assert grid_weights.main(["--file", str(source), "--shares", "0.5", "--repeats", "1", "--min-labels", "15",
                              "--json", str(out)]) == 0
    (row,) = json.loads(out.read_text())["rows"]
    assert row["runs"] == 1 and row["share"] == 0.5
    assert sum(row["sigma"].values()) == pytest.approx(1.0) and sum(row["kappa"].values()) == pytest.approx(1.0)
    assert 0 <= row["distance"] <= 1
    assert "| ppi.jsonl | llm | 0.5 |" in capsys.readouterr().out
