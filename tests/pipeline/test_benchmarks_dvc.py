"""Each model takes the benchmarks it is made for, through `dvc repro` of the whole pipeline (issue 28).

A text-only model (``takes: [llm]``) on a local OpenAI-compatible server is never sent an image and
is not ranked on vlm; adding a benchmark to it runs only that benchmark's jobs. One run holds two
exams (the notebook's JSON and a local dataset in GPQA's hub layout) beside the riddles; changing
one exam's ``idk`` moves only that exam's figures and runs only its jobs. ``exams: {}`` runs the
riddles alone.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

from helpers.harness import commit, edit_params, executed, jobs_ran, new_repo, run
from helpers.hub_exams import write_gpqa_csv
from sideways.testing.openai_server import FakeServer

DVC = shutil.which("dvc", path=str(Path(sys.executable).parent)) or shutil.which("dvc")
pytestmark = [pytest.mark.slow, pytest.mark.skipif(DVC is None, reason="dvc is not installed")]
MODELS = ("atlas-large", "nimbus-pro", "tide-open")


def small(p: dict, **changes) -> None:
    p["models"] = {k: p["models"][k] for k in MODELS}
    p["calibration"]["bootstrap"] = 500
    p.update(changes)


def leaderboard(repo: Path, split: str) -> set[str]:
    rows = json.loads((repo / f"metrics/leaderboard_{split}.json").read_text())
    return set(rows) if isinstance(rows, dict) else {r["model"] for r in rows}


def test_a_text_only_model_gets_no_image_and_adding_a_benchmark_runs_only_its_jobs(tmp_path):
    with FakeServer() as server:
        qwen = {"backend": "openai-compatible", "provider": "local", "name": "Qwen/Qwen3-8B",
                "base_url": server.base_url, "takes": ["llm"]}
        repo = new_repo(tmp_path / "repo", lambda p: small(p) or p["models"].update(qwen=qwen))
        proc = run(repo, "dvc", "repro")
        assert {"predict@qwen-llm", "judge@qwen-llm"} <= jobs_ran(proc)
        assert not any(j.startswith(("predict@qwen-vlm", "exam_predict@qwen")) for j in jobs_ran(proc))
        sent = list(server.fake.bodies)
        assert sent and not any("image_url" in json.dumps(b) for b in sent)  # the server's own log
        assert "qwen" in leaderboard(repo, "llm") and "qwen" not in leaderboard(repo, "vlm")
        assert "qwen" not in json.loads((repo / "metrics/exams.json").read_text())["demo"]
        commit(repo, "qwen on llm")

        edit_params(repo, lambda p: p["models"]["qwen"].update(takes=["llm", "demo"]))
        proc = run(repo, "dvc", "repro")
        assert jobs_ran(proc) == {"exam_predict@qwen-demo", "exam_judge@qwen-demo"}
        new = server.fake.bodies[len(sent):]
        assert len(new) == 33 and not any("image_url" in json.dumps(b) for b in new)  # the exam's questions only
        assert "qwen" in json.loads((repo / "metrics/exams.json").read_text())["demo"]


def test_two_exams_beside_the_riddles_and_one_exams_idk_moves_only_its_figures(tmp_path):
    def two_exams(p: dict) -> None:
        small(p, splits=["llm"])
        p["exams"]["gpqa"] = {"source": "hf", "dataset": "data/exams/gpqa", "split": "train", "preset": "gpqa",
                              "idk": True, "judges": 1}

    repo = tmp_path / "repo"
    write_gpqa_csv(repo / "data/exams/gpqa", n=10)
    new_repo(repo, two_exams)
    proc = run(repo, "dvc", "repro")
    assert {f"exam_predict@{m}-{e}" for m in MODELS for e in ("demo", "gpqa")} <= jobs_ran(proc)
    assert not [j for j in jobs_ran(proc) if j.startswith("exam_judge@") and j.endswith("-gpqa")]  # nothing to grade
    assert not list((repo / "data/exam/grades").glob("gpqa/*.parquet"))
    exams = json.loads((repo / "metrics/exams.json").read_text())
    assert set(exams) == {"demo", "gpqa"} and set(exams["gpqa"]) == set(MODELS)
    assert all(m["mcq_n"] == 10 for m in exams["gpqa"].values())
    commit(repo, "two exams")

    edit_params(repo, lambda p: p["exams"]["demo"].update(idk=False))
    proc = run(repo, "dvc", "repro")
    ran = jobs_ran(proc)  # its answers changed, so its grading jobs run too
    assert {f"exam_predict@{m}-demo" for m in MODELS} <= ran and all(j.endswith("-demo") for j in ran), ran
    assert not executed(proc) & {"annotate@llm", "jury@llm", "calibrate@llm", "rank@llm"}
    diff = json.loads(run(repo, "dvc", "metrics", "diff", "--json").stdout)
    moved = {key for entries in diff.values() for key, d in entries.items() if d.get("diff")}
    assert moved and all(key.startswith("demo.") for key in moved), moved
    assert any(key.endswith(".idk_freq") for key in moved)  # no "I don't know" to choose any more


def test_no_exam_runs_the_riddles_alone(tmp_path):
    repo = new_repo(tmp_path / "repo", lambda p: small(p, splits=["llm"], exams={}))
    proc = run(repo, "dvc", "repro")
    assert not any(j.startswith("exam_") for j in jobs_ran(proc))
    assert json.loads((repo / "metrics/exams.json").read_text()) == {}
    assert leaderboard(repo, "llm") == set(MODELS)
    assert "Running stage" not in run(repo, "dvc", "repro").stdout  # and it is up to date after
