"""Adding an exam reruns the exam's stages and jobs, and no stage of a riddle split.

The per-split stages (annotate, jury, calibrate) leave out the models whose paid jobs failed on
their split; they depend on the failed jobs of their own split (metrics/failures/<stage>/<split>.json),
not on the paid stages' whole records, which change with every exam job that fails and, under a
spending cap, with what every run spent (docs/design.md, "Failed jobs").
"""

from __future__ import annotations

import json

import pytest

from helpers.harness import edit_params, env, executed, new_repo, run
from sideways.testing.openai_server import Behaviour, FakeServer

pytestmark = pytest.mark.slow

RIDDLE_STAGES = {"annotate@llm", "jury@llm", "calibrate@llm", "rank@llm"}


def paid_model_under_a_cap(url: str):
    """The llm split, no exam yet; a simulated model and a priced one on the fake server at ``url``,
    under a spending cap (the paid stages then record what they spent)."""
    def change(p: dict) -> None:
        p["splits"] = ["llm"]
        p["exams"] = {}
        local = {"backend": "openai-compatible", "base_url": url, "api_key_env": "LOCAL_LLM_KEY", "concurrency": 4,
                 "provider": "localco", "name": "local-model-1", "n_hints": 0}
        p["models"] = {"atlas-large": p["models"]["atlas-large"], "quill-max": p["models"]["quill-max"],
                       "local-m": local}
        p["calibration"]["posterior"] = "v1"
        p["prices"] = {"local-m": {"input_per_mtok": 1.0, "output_per_mtok": 2.0}}
        p["requests"]["max_cost_usd"] = 5.0
    return change


def test_adding_an_exam_reruns_no_stage_of_a_riddle_split(tmp_path):
    with FakeServer(Behaviour()) as server:
        repo = new_repo(tmp_path / "repo", paid_model_under_a_cap(server.base_url))
        environ = {**env(repo), "LOCAL_LLM_KEY": "sk-fake-adding-an-exam"}
        first = run(repo, "dvc", "repro", environ=environ)
        assert RIDDLE_STAGES <= executed(first)
        before = json.loads((repo / "metrics/failures/predict.json").read_text())
        edit_params(repo, lambda p: p.update(exams={"demo": {"path": "data/exams/demo.json", "judges": 2}}))
        status = run(repo, "dvc", "status", environ=environ).stdout
        second = run(repo, "dvc", "repro", environ=environ)

    assert {"exam_items", "predict", "judge", "exam_score", "report"} <= executed(second)
    assert not RIDDLE_STAGES & executed(second), second.stdout
    assert not [s for s in RIDDLE_STAGES if f"{s}:" in status], status
    # what made them rerun before: the exam's jobs were paid, and the whole record says what predict spent
    after = json.loads((repo / "metrics/failures/predict.json").read_text())
    assert after["spent_usd"] != before["spent_usd"]
