"""benchmarks/studies/exam_diff_power.py: the paired exam diff's false calls and power, on a matrix or a calibration file."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import exam_diff_power
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import ROOT
from lab import real_matrix
from sideways.core.errors import SidewaysError

SCRIPT = ROOT / "benchmarks" / "studies" / "exam_diff_power.py"


def _calibration_row(model: str, riddle: str, votes: list[bool | None]) -> str:
    judges = ("j1", "j2", "j3", "j4")
    return json.dumps({"riddle_id": riddle, "model": model,
                       **{f"both_correct_{j}": v for j, v in zip(judges, votes, strict=True)}})


def test_a_calibration_file_is_read_by_its_judges_majority(tmp_path: Path) -> None:
    path = tmp_path / "cal.jsonl"
    path.write_text("\n".join([
        _calibration_row("a", "r1", [True, True, False, None]),   # 2 of 3: right
        _calibration_row("a", "r2", [True, False, None, None]),   # 1 of 2: not a majority
        _calibration_row("b", "r1", [False, False, True, None]),
        _calibration_row("b", "r2", [True, True, True, None]),
        _calibration_row("b", "r3", [True, True, True, None]),    # only b answered r3: left out
    ]) + "\n", encoding="utf-8")
    m = real_matrix.layton_matrix(str(path))
    assert m.models == ("a", "b") and m.items == ("r1", "r2")
    assert m.y.tolist() == [[1, 0], [0, 1]]


def test_a_bad_calibration_line_is_named(tmp_path: Path) -> None:
    path = tmp_path / "cal.jsonl"
    path.write_text(_calibration_row("a", "r1", [True, True, True, None]) + "\n{not json\n", encoding="utf-8")
    with pytest.raises(SidewaysError, match=rf"^{path}:2: not a calibration row"):
        real_matrix.layton_matrix(str(path))
    done = subprocess.run([sys.executable, str(SCRIPT), "--layton", str(path)], capture_output=True, text=True)
    assert done.returncode == 2 and done.stderr.strip().count("\n") == 0 and f"{path}:2" in done.stderr


@settings(max_examples=30, deadline=None)
@given(st.floats(-3, 3), st.floats(0.01, 0.3))
def test_the_shifted_ability_raises_the_mean_by_delta(theta: float, delta: float) -> None:
    item_ease = np.linspace(-2.0, 2.0, 50)
    before = float(np.mean(exam_diff_power._sigmoid(theta + item_ease)))
    if before + delta >= 0.999:
        return
    after = float(np.mean(exam_diff_power.shifted(theta, item_ease, delta)))
    assert after == pytest.approx(before + delta, abs=1e-6)


def test_the_null_is_called_about_five_percent_and_a_large_change_almost_always(tmp_path: Path) -> None:
    """On a drawn 2PL world the diff calls identical reruns near its 5% level and sees +20 points nearly always;
    a diff that called every pair, or none, fails here."""
    out = tmp_path / "rows.json"
    done = subprocess.run([sys.executable, str(SCRIPT), "--world", "2pl", "--models", "6", "--items", "300",
                           "--deltas", "20", "--repeats", "60", "--json", str(out)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    rows = {r["delta"]: r for r in json.loads(out.read_text())["rows"]}
    assert rows[0.0]["pairs"] == 360 and 0.01 <= rows[0.0]["called"] <= 0.10
    assert rows[20.0]["called_up"] >= 0.95
    assert max(len(line) for line in done.stdout.splitlines()) <= 120
