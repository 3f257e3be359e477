"""lab.real_matrix.csv_matrix and benchmarks/subset_coverage.py --csv: a wide CSV of per-item results (one row per
item, one 0/1 column per model) feeds the exam-sample measurement as the same matrix in py-irt's layout does."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import ROOT
from lab.real_matrix import csv_matrix
from sideways.core.errors import SidewaysError

SCRIPT = ROOT / "benchmarks" / "subset_coverage.py"
CHEMBENCH = ROOT / "benchmarks" / "data" / "chembench-all-correct.csv"


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 5), st.integers(2, 12), st.integers(0, 2**32 - 1), st.booleans())
def test_a_wide_csv_is_read_cell_for_cell(tmp_path_factory: pytest.TempPathFactory, models: int, items: int,
                                          seed: int, floats: bool) -> None:
    y = np.random.default_rng(seed).integers(0, 2, (items, models))
    path = tmp_path_factory.mktemp("csv") / "m.csv"
    cell = "{:.1f}" if floats else "{}"
    path.write_text("item," + ",".join(f"model {m}" for m in range(models)) + "\n"
                    + "".join(f"q{i}," + ",".join(cell.format(v) for v in row) + "\n" for i, row in enumerate(y)),
                    encoding="utf-8")
    got = csv_matrix(str(path))
    assert got.models == tuple(f"model {m}" for m in range(models))
    assert got.items == tuple(sorted(f"q{i}" for i in range(items)))  # sorted by name, as a py-irt file's
    for m in range(models):
        assert {item: int(v) for item, v in zip(got.items, got.y[m], strict=True)} == {
            f"q{i}": int(y[i, m]) for i in range(items)}


@pytest.mark.parametrize(("text", "message"), [
    ("item,a,b\nq1,1,0\nq2,1,2\n", r":3: column 'b': expected 0 or 1, got '2'"),
    ("item,a,b\nq1,1,0\nq2,1\n", r":3: expected 3 columns, got 2"),
    ("item,a\nq1,1\nq2,0\n", r":1: expected a header"),
    ("item,a,a\nq1,1,0\nq2,0,1\n", r":1: model names must be non-empty and distinct"),
    ("item,a,b\nq1,1,0\nq1,0,1\n", r": item names must be non-empty and distinct"),
])
def test_a_bad_csv_is_named_by_file_and_line(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "m.csv"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(SidewaysError, match=message):
        csv_matrix(str(path))
    done = subprocess.run([sys.executable, str(SCRIPT), "--csv", str(path), "--k", "2"], capture_output=True, text=True)
    assert done.returncode == 2 and done.stderr.strip().count("\n") == 0 and str(path) in done.stderr


def test_the_chembench_file_feeds_the_benchmark_as_its_matrix(tmp_path: Path) -> None:
    lines = CHEMBENCH.read_text(encoding="utf-8").splitlines()
    header = lines[0].split(",")
    cut = tmp_path / "cut.csv"  # the real file's first 4 models on its first 60 questions
    cut.write_text("".join(",".join(line.split(",")[:5]) + "\n" for line in lines[:61]), encoding="utf-8")
    matrix = tmp_path / "m.jsonl"
    first = subprocess.run([sys.executable, str(SCRIPT), "--csv", str(cut), "--k", "10,20", "--repeats", "3",
                            "--json", str(tmp_path / "a.json"), "--write-matrix", str(matrix)],
                           capture_output=True, text=True)
    assert first.returncode == 0, first.stderr
    written = {json.loads(line)["subject_id"]: json.loads(line)["responses"] for line in matrix.read_text().splitlines()}
    assert set(written) == set(header[1:5])
    for line in lines[1:61]:
        question, *cells = line.split(",")[:5]
        assert [written[m][question] for m in header[1:5]] == [int(c) for c in cells]
    again = subprocess.run([sys.executable, str(SCRIPT), "--matrix", str(matrix), "--k", "10,20", "--repeats", "3",
                            "--json", str(tmp_path / "b.json")], capture_output=True, text=True)
    assert again.returncode == 0, again.stderr
    a, b = (json.loads((tmp_path / name).read_text()) for name in ("a.json", "b.json"))
    assert (a["models"], a["items"]) == (4, 60) and a["rows"] == b["rows"]


def test_by_model_splits_the_default_coverage_per_held_out_model(tmp_path: Path) -> None:
    lines = CHEMBENCH.read_text(encoding="utf-8").splitlines()
    cut = tmp_path / "cut.csv"  # the real file's first 5 models on its first 80 questions
    cut.write_text("".join(",".join(line.split(",")[:6]) + "\n" for line in lines[:81]), encoding="utf-8")
    done = subprocess.run([sys.executable, str(SCRIPT), "--csv", str(cut), "--k", "10,20", "--repeats", "8",
                           "--json", str(tmp_path / "a.json"), "--by-model"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    per = [line.split() for line in done.stdout.splitlines() if "above the truth" in line]
    assert len(per) == 10  # 5 models x 2 k
    rows = {r["k"]: r for r in json.loads((tmp_path / "a.json").read_text())["rows"] if r["estimator"] != "random"}
    for k in (10, 20):
        covered = [float(p[p.index("covered") + 1].rstrip("%")) for p in per if int(p[-9]) == k]
        assert len(covered) == 5 and np.mean(covered) == pytest.approx(100 * rows[k]["coverage"], abs=0.05)
