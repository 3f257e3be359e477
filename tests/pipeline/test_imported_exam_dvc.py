"""Runs made by lm-evaluation-harness and inspect_ai, taken in as an exam through `dvc repro` (docs/exams.md,
"Runs made elsewhere"): "I ran lm-eval twice: did my change help?" on a copy of the project.

The runs are the files the real tools wrote (tests/data/imported: lm-eval's dummy model, two seeds, and
an inspect log of its mock model).
A run is a model of the exam; an unchanged run reruns nothing, a new run file reruns only its jobs;
`sideways diff` pairs the two runs of one model per question with the estimator `sideways diff-runs`
uses, `dvc metrics diff` shows the change, and the report draws the exam's page.
"""

from __future__ import annotations

import json
import re
import shutil
import sys
from pathlib import Path

import pytest

from helpers.harness import commit, edit_params, executed, jobs_ran, new_repo, run
from sideways.commands.diff_runs import changes
from sideways.imports.load import read_runs

DVC = shutil.which("dvc", path=str(Path(sys.executable).parent)) or shutil.which("dvc")
pytestmark = [pytest.mark.slow, pytest.mark.skipif(DVC is None, reason="dvc is not installed")]
DATA = Path(__file__).resolve().parents[1] / "data" / "imported"
RUN_1, RUN_2 = DATA / "lm_eval" / "seed1", DATA / "lm_eval" / "seed2"
LOG = sorted((DATA / "inspect" / "json").glob("*.json"))[0]  # a run inspect_ai wrote, beside lm-eval's
RIDDLE_STAGES = {"annotate@llm", "jury@llm", "calibrate@llm", "rank@llm", "predict@llm"}
EXAM = "section[id='exam/arith']"


def put(repo: Path, key: str, run_folder: Path) -> None:
    """The run's output folder as lm_eval wrote it, at data/exams/arith/<key> (what was there before gone)."""
    dest = repo / "data" / "exams" / "arith" / key
    shutil.rmtree(dest, ignore_errors=True)
    shutil.copytree(run_folder, dest)


def imported(p: dict) -> None:
    p["models"] = {k: p["models"][k] for k in ("atlas-large", "nimbus-pro")}
    p["splits"] = ["llm"]
    p["calibration"]["bootstrap"] = 200
    p["exams"] = {"arith": {"source": "imported", "runs": {"base": "data/exams/arith/base",
                                                           "mock": "data/exams/arith/mock.json"}}}


def test_two_lm_eval_runs_of_one_model_through_repro_diff_metrics_and_the_report(tmp_path, browser):
    repo = tmp_path / "repo"
    put(repo, "base", RUN_1)
    shutil.copy(LOG, repo / "data" / "exams" / "arith" / "mock.json")
    new_repo(repo, imported)
    first = run(repo, "dvc", "repro")
    assert {f"exam_{k}@{m}+arith" for k in ("predict", "judge") for m in ("base", "mock")} <= jobs_ran(first)
    mock = read_runs(LOG)[0]
    scored = json.loads((repo / "metrics/exams.json").read_text())["arith"]["mock"]
    assert scored["short_answer_n"] == len(mock.items) and scored["exam_score"] == round(
        100 * sum(i.score for i in mock.items) / len(mock.items), 2)
    run_1 = read_runs(RUN_1)[0]
    metrics = json.loads((repo / "metrics/exams.json").read_text())["arith"]["base"]
    assert metrics["short_answer_n"] == len(run_1.items) == 80
    assert metrics["exam_score"] == round(100 * sum(i.score for i in run_1.items) / 80, 2)
    assert metrics["short_answer_se"] > 0 and metrics["cost_usd"] is None  # nothing was paid
    assert metrics["exam_score_lo"] < metrics["exam_score"] < metrics["exam_score_hi"]  # clustered by subject
    assert run(repo, "sideways", "dry-run").returncode == 0  # the plan holds no request for a run
    commit(repo, "lm-eval run 1")

    assert executed(run(repo, "dvc", "repro")) == set()  # an unchanged run reruns nothing

    put(repo, "base", RUN_2)  # the second run, made after the change, where the first was
    second = run(repo, "dvc", "repro")
    assert jobs_ran(second) == {"exam_predict@base+arith", "exam_judge@base+arith"}
    assert not RIDDLE_STAGES & executed(second)

    diff = json.loads(run(repo, "sideways", "diff", "--json").stdout)
    rows = [r for r in diff["rows"] if (r["benchmark"], r["model"], r["metric"]) == ("arith", "base", "exam_score")]
    expected = changes(read_runs(RUN_1), read_runs(RUN_2), ("A", "B")).rows[0]
    assert len(rows) == 1 and rows[0]["verdict"] == expected["verdict"]
    for key in ("change", "lo", "hi", "mde"):  # one estimator: the pipeline's diff is diff-runs' on the files
        assert rows[0][key] == pytest.approx(expected[key], abs=1e-9)
    assert rows[0]["clusters"] == expected["clusters"] > 1  # clustered by the samples' subjects
    metrics_diff = run(repo, "dvc", "metrics", "diff", "--json").stdout
    assert "arith.base.exam_score" in json.loads(metrics_diff)["metrics/exams.json"]
    commit(repo, "lm-eval run 2")

    put(repo, "again", RUN_1)  # a new run file under a new key: only its jobs run
    edit_params(repo, lambda p: p["exams"]["arith"]["runs"].update(again="data/exams/arith/again"))
    third = run(repo, "dvc", "repro")
    assert jobs_ran(third) == {"exam_predict@again+arith", "exam_judge@again+arith"}
    exams = json.loads((repo / "metrics/exams.json").read_text())
    assert exams["arith"]["again"]["exam_score"] == metrics["exam_score"]  # the same file, the same score

    page = browser.new_page()
    page.goto((repo / "report" / "index.html").as_uri() + "#exam/arith")
    page.wait_for_selector(f"{EXAM} table.exam-metrics tbody tr")
    shown = dict(page.eval_on_selector_all(f"{EXAM} table.exam-metrics tbody tr",
                                           "rs => rs.map(r => [r.dataset.model, r.cells[6].textContent])"))
    m = exams["arith"]["base"]
    assert set(shown) == {"base", "again", "mock"}
    cell = re.fullmatch(r"([\d.]+) \[([\d.-]+), ([\d.]+)\]", shown["base"])  # the score and its interval
    assert cell is not None, shown
    got = [float(x) for x in cell.groups()]
    assert got == pytest.approx([m["exam_score"], m["exam_score_lo"], m["exam_score_hi"]], abs=0.051)
    page.close()
