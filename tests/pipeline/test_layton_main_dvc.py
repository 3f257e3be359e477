"""The published LLM table through ``dvc repro`` of the MAIN dvc.yaml (issue 28): layton-eval's vendored
calibration file as replay models and judges with its human labels as the label file
(reproductions/layton-eval/main_pipeline.py), compared with published_llm.json row by row."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from helpers import harness, project_params

pytestmark = pytest.mark.slow

LAYTON = Path("reproductions/layton-eval")


def published_columns(board: dict, models: dict) -> dict[str, dict]:
    """The leaderboard's rows by model name, in the published table's columns (published interval)."""
    return {models[key]["name"]: {"rank": e["rank"], "rank_spread": f"{e['best_rank']} <--> {e['worst_rank']}",
                                  "score": e["published"]["score"], "ci": e["published"]["ci"],
                                  "provider": models[key]["provider"]}
            for key, e in board.items()}


def test_main_pipeline_rebuilds_the_published_table(tmp_path):
    repo = harness.copy_project(tmp_path / "repo")
    harness.run(repo, "python", str(LAYTON / "main_pipeline.py"), ".")
    assert yaml.safe_load((repo / "params.yaml").read_text())["models"] == "models.yaml"
    params = project_params(repo)
    assert {m["backend"] for m in params["models"].values()} == {"replay"}
    assert {tuple(m["takes"]) for m in params["models"].values()} == {("llm",)}
    assert {j["backend"] for j in params["jury"]["pool"].values()} == {"replay"}
    harness.run(repo, "git", "init", "-q", "-b", "main")
    harness.commit(repo, "the replay project")
    ran = harness.executed(harness.run(repo, "dvc", "repro"))
    assert {"curate", "predict", "judge", "annotate@llm", "jury@llm", "calibrate@llm", "rank@llm"} <= ran

    board = json.loads((repo / "metrics" / "leaderboard_llm.json").read_text())
    published = {r.pop("model"): r for r in json.loads((repo / LAYTON / "published_llm.json").read_text())}
    assert len(published) == 9
    assert published_columns(board, params["models"]) == published
    # the ranks follow the published interval, so the top-level score and ci are the published ones
    assert all((e["score"], e["ci"]) == (e["published"]["score"], e["published"]["ci"]) for e in board.values())

    # a replay file rewritten (one verdict of the mistral judge flipped): DVC sees it (data/replay is a
    # dep of predict and judge), and only the jobs of the models mistral judges run again (their
    # fingerprints hold the file's content); predict reruns as a stage but reuses all its jobs
    harness.commit(repo, "reproduced")
    verdicts = repo / "data" / "replay" / "judges" / "mistral-large-2512.jsonl"
    rows = [json.loads(line) for line in verdicts.read_text().splitlines()]
    rows[0]["is_answer_correct"] = not rows[0]["is_answer_correct"]
    verdicts.write_text("".join(json.dumps(r) + "\n" for r in rows))
    proc = harness.run(repo, "dvc", "repro")
    assert {"predict", "judge"} <= harness.executed(proc)
    assert harness.jobs_reused(proc, "predict") == 9
    judged = {k for k, m in params["models"].items() if m["provider"] != "mistral" and m["provider"] != "together"}
    assert harness.jobs_ran(proc) == {f"judge@{k}+llm" for k in judged}
