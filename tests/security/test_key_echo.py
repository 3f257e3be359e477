"""Issue 27: a provider that echoes the request's key in a 200 body does not get it into the cache,
the answers file DVC pushes, or the predictions (only error text was redacted before)."""

from __future__ import annotations

import json
import subprocess
import sys

from helpers.model_project import KEY, env_for, make_project
from sideways.testing.openai_server import Behaviour, FakeServer


def test_a_key_echoed_in_a_200_body_is_stored_nowhere(tmp_path):
    reply = json.dumps({"answer": f"Bearer {KEY}", "justification": f"you sent {KEY}"})
    with FakeServer(Behaviour(expected_key=KEY, replies={"[R001]": reply, "[R002]": f"{KEY} {KEY}"})) as server:
        repo = make_project(tmp_path, server.base_url)
        proc = subprocess.run([sys.executable, "stages/predict.py"], cwd=repo, env=env_for(repo),
                              capture_output=True, text=True)
        assert proc.returncode == 0, proc.stderr
        assert server.fake.requests > 0
    assert KEY not in proc.stdout + proc.stderr
    answers = repo / "data/answers/predict/llm/local-m.jsonl"
    assert "[REDACTED]" in answers.read_text()  # the echo was there, and was removed
    stored = [p for p in repo.rglob("*") if p.is_file() and p.name != ".env" and "src" not in p.parts]
    leaks = [p for p in stored if KEY.encode() in p.read_bytes()]
    assert leaks == [], f"the key leaked into {leaks}"
