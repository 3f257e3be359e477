"""The models in models.yaml, through the real DVC CLI: adding one runs only its jobs, and
dvc.lock stays the same length (one line for the models, not seven a model)."""

from __future__ import annotations

import yaml

from helpers.harness import edit_params, executed, jobs_ran, run


def test_adding_a_model_to_models_yaml_runs_its_jobs_and_leaves_the_lock_as_long(reproduced_copy):
    repo = reproduced_copy
    lock = (repo / "dvc.lock").read_text()
    assert yaml.safe_load(lock)["stages"]["predict"]["params"]["params.yaml"]["models"] == "models.yaml"

    def add(p: dict) -> None:
        p["models"]["atlas-twin"] = dict(p["models"]["atlas-large"])
        p["models"]["atlas-triplet"] = dict(p["models"]["atlas-large"])

    edit_params(repo, add)
    assert yaml.safe_load((repo / "params.yaml").read_text())["models"] == "models.yaml"
    status = run(repo, "dvc", "status", "predict").stdout
    assert "modified:" in status and "models.yaml" in status
    proc = run(repo, "dvc", "repro")
    assert "predict" in executed(proc)
    assert {j for j in jobs_ran(proc) if j.startswith("predict@")} == {
        f"predict@{m}+{s}" for m in ("atlas-twin", "atlas-triplet") for s in ("llm", "vlm")}
    after = (repo / "dvc.lock").read_text()
    assert after.count("\n") == lock.count("\n")
    assert "atlas-twin" not in after
    board = yaml.safe_load((repo / "metrics" / "leaderboard_llm.json").read_text())
    assert {"atlas-twin", "atlas-triplet"} <= set(board)
