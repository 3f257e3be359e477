"""benchmarks/subset_coverage.py --layton: real per-item results (a layton-eval calibration file graded by its judges'
majority, lab.real_matrix) feed the exam-sample measurement exactly as the same matrix in py-irt's layout does."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import PPI_LLM_FILE, ROOT
from lab.real_matrix import layton_matrix
from sideways.core.errors import SidewaysError

SCRIPT = ROOT / "benchmarks" / "subset_coverage.py"


def _cut(path: Path, models: int, riddles: int) -> list[dict[str, object]]:
    """The real LLM file's rows of its first ``models`` models and ``riddles`` riddles (sorted), written to ``path``."""
    rows = [json.loads(line) for line in PPI_LLM_FILE.read_text(encoding="utf-8").splitlines() if line.strip()]
    keep_models = sorted({r["model"] for r in rows})[:models]
    keep_riddles = sorted({r["riddle_id"] for r in rows})[:riddles]
    cut = [r for r in rows if r["model"] in keep_models and r["riddle_id"] in keep_riddles]
    path.write_text("".join(json.dumps(r) + "\n" for r in cut), encoding="utf-8")
    return cut


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True)


def test_a_calibration_file_feeds_the_benchmark_as_its_majority_matrix(tmp_path: Path) -> None:
    calibration, matrix = tmp_path / "cal.jsonl", tmp_path / "m.jsonl"
    rows = _cut(calibration, models=4, riddles=30)
    first = _run("--layton", str(calibration), "--k", "10,20", "--repeats", "3", "--json", str(tmp_path / "a.json"),
                 "--write-matrix", str(matrix))
    assert first.returncode == 0, first.stderr
    written = {json.loads(line)["subject_id"]: json.loads(line)["responses"] for line in matrix.read_text().splitlines()}
    for r in rows:  # right where most of the judges with a verdict said both answer and justification were right
        said = [v for k, v in r.items() if k.startswith("both_correct_") and v is not None]
        assert written[str(r["model"])][str(r["riddle_id"])] == int(2 * sum(said) > len(said))
    again = _run("--matrix", str(matrix), "--k", "10,20", "--repeats", "3", "--json", str(tmp_path / "b.json"))
    assert again.returncode == 0, again.stderr
    a, b = (json.loads((tmp_path / name).read_text()) for name in ("a.json", "b.json"))
    assert (a["models"], a["items"], a["source"]) == (4, 30, str(calibration))
    assert a["rows"] == b["rows"] and {r["intervals"] for r in a["rows"]} == {12}
    assert max(len(line) for line in first.stdout.splitlines()) <= 120


def test_a_bad_calibration_line_is_named_in_one_line(tmp_path: Path) -> None:
    calibration = tmp_path / "cal.jsonl"
    _cut(calibration, models=2, riddles=5)
    with calibration.open("a", encoding="utf-8") as f:
        f.write('{"model": "m"}\n')
    done = _run("--layton", str(calibration), "--k", "2")
    assert done.returncode == 2 and done.stderr.strip().count("\n") == 0
    assert done.stderr.startswith(f"{calibration}:11: not a calibration row")


votes = st.lists(st.one_of(st.none(), st.booleans()), min_size=1, max_size=4).filter(
    lambda v: any(x is not None for x in v))


@settings(max_examples=40, deadline=None)
@given(st.dictionaries(st.sampled_from(["a", "b", "c"]),
                       st.dictionaries(st.sampled_from(["r1", "r2", "r3", "r4"]), votes, min_size=1), min_size=1))
def test_the_reading_is_each_cells_strict_majority_on_the_shared_riddles(
        tmp_path_factory: pytest.TempPathFactory, table: dict[str, dict[str, list[bool | None]]]) -> None:
    path = tmp_path_factory.mktemp("cal") / "cal.jsonl"
    path.write_text("".join(json.dumps({"model": m, "riddle_id": r, "n_hints": 0,
                                        **{f"both_correct_j{j}": v for j, v in enumerate(said)}}) + "\n"
                            for m, riddles in table.items() for r, said in riddles.items()), encoding="utf-8")
    shared = sorted(set.intersection(*(set(r) for r in table.values())))
    if len(table) < 2 or len(shared) < 2:
        with pytest.raises(SidewaysError, match="needs 2 models or more"):
            layton_matrix(str(path))
        return
    got = layton_matrix(str(path))
    assert got.models == tuple(sorted(table)) and got.items == tuple(shared)
    for m, model in enumerate(got.models):
        for i, riddle in enumerate(got.items):
            said = [v for v in table[model][riddle] if v is not None]
            assert got.y[m, i] == (sum(said) * 2 > len(said))
