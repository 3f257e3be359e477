"""A dead endpoint through `dvc repro`: a model whose server refuses connections fails its job in
seconds, with that reason, and says what it waits for while it retries (default retry settings)."""

from __future__ import annotations

import json
import time

import pytest

from helpers.harness import edit_params, new_repo, run
from helpers.remote_servers import free_port

pytestmark = pytest.mark.slow


def test_a_model_on_a_closed_port_fails_its_job_in_seconds_with_that_reason(tmp_path):
    url = f"http://127.0.0.1:{free_port()}/v1"

    def change(p: dict) -> None:
        p["splits"] = ["llm"]
        sim = {k: v for k, v in p["models"].items() if k in ("atlas-large", "quill-max")}
        p["models"] = {**sim, "dead-m": {"backend": "openai-compatible", "base_url": url, "concurrency": 4,
                                         "api_key_env": "LOCAL_LLM_KEY", "provider": "deadco",
                                         "name": "dead-model-1", "n_hints": 0}}
        p["exams"] = {}

    repo = new_repo(tmp_path / "repo", change)
    (repo / ".env").write_text("LOCAL_LLM_KEY=sk-fake-dead\n")
    run(repo, "dvc", "repro", "split")
    edit_params(repo, lambda p: p["requests"].update(max_attempts=6, backoff_s=1.0, max_backoff_s=60.0))
    start = time.monotonic()
    proc = run(repo, "dvc", "repro", "predict", check=False)
    took = time.monotonic() - start
    (failed,) = json.loads((repo / "metrics/failures/predict.json").read_text())["failed"]
    assert (failed["job"], failed["reason"]) == ("predict@dead-m+llm", "provider error")
    assert "endpoint unreachable for 8s" in failed["error"], failed
    said = [x for x in proc.stderr.splitlines() if "retrying after" in x]
    assert len(said) == 1 and len(said[0]) <= 120 and "down after 8s unreachable" in said[0], said
    assert took < 60, took  # 6 attempts of every item backed off for minutes (1 min 41 s measured)
    print(f"dvc repro predict with a dead model: {took:.1f} s; {said[0]}")
