"""Two runs at once: nothing paid twice, nothing corrupted, a clear message for the one that waits.

Real processes under the real DVC CLI against the fake OpenAI-compatible server, which counts
every request by body. Two workspaces sharing one request cache (``requests.cache_dir``) each
run ``dvc repro judge`` at the same time: without the cache's send lock (``llm/paidlock.py``)
both missed the same requests and both paid. Two ``dvc repro`` in one workspace: DVC's own
locks refuse the second one, in DVC's words, and the first one completes.
"""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

import pandas as pd
import pytest

from helpers.harness import BIN, env, new_repo, run
from helpers.model_project import KEY
from sideways.testing.openai_server import Behaviour, FakeServer

pytestmark = pytest.mark.slow

TARGET = "judge"


def local_model(base_url: str, cache_dir: Path | None = None):
    """One model and a panel of two judges, all on the fake server (as in test_answers_travel)."""
    local = {"backend": "openai-compatible", "base_url": base_url, "api_key_env": "LOCAL_LLM_KEY", "concurrency": 4}

    def change(p: dict) -> None:
        p["splits"] = ["llm"]
        p["models"] = {"local-m": {**local, "provider": "local", "name": "local-model-1", "n_hints": 0}}
        p["jury"] = {"judges": 2, "pool": {"judge-a": {**local, "provider": "judgeco-a", "name": "judge-a-1"},
                                            "judge-b": {**local, "provider": "judgeco-b", "name": "judge-b-1"}}}
        p["requests"].update(backoff_s=0.01, max_backoff_s=0.05, timeout_s=10.0)
        if cache_dir is not None:
            p["requests"]["cache_dir"] = str(cache_dir)
    return change


def workspace(root: Path, base_url: str, cache_dir: Path | None = None) -> Path:
    repo = new_repo(root / "repo", local_model(base_url, cache_dir))
    (repo / ".env").write_text(f"LOCAL_LLM_KEY={KEY}\n")
    run(repo, "dvc", "repro", "split", "exam_items")  # the free stages first: the race is over the paid ones
    return repo


def start(repo: Path) -> subprocess.Popen[str]:
    return subprocess.Popen([str(BIN / "dvc"), "repro", TARGET], cwd=repo, env=env(repo), text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)


def when_sending(server: FakeServer, first: subprocess.Popen[str]) -> None:
    """Wait until the first run has requests out (it holds the cache's send lock then)."""
    deadline = time.monotonic() + 120
    while server.fake.in_flight < 1:
        assert first.poll() is None, first.communicate()[0]
        assert time.monotonic() < deadline, "the first run sent nothing"
        time.sleep(0.05)


def paid_twice(server: FakeServer) -> int:
    return sum(n - 1 for n in server.fake.by_body.values())


def test_two_workspaces_sharing_a_request_cache_pay_for_each_request_once(tmp_path):
    with FakeServer(Behaviour(expected_key=KEY, latency_s=0.3)) as server:  # the runs overlap
        shared = tmp_path / "shared-cache"
        a, b = (workspace(tmp_path / name, server.base_url, shared) for name in ("a", "b"))
        first = start(a)
        when_sending(server, first)
        second = start(b)
        out_b, out_a = second.communicate(timeout=600)[0], first.communicate(timeout=600)[0]
        assert first.returncode == 0, out_a
        assert second.returncode == 0, out_b
        assert paid_twice(server) == 0, f"{paid_twice(server)} requests paid twice"
        riddles = len(pd.read_parquet(a / "data/split/llm.parquet"))
        exam = sum(len(pd.read_parquet(a / f)) for f in ("data/exam/predictions/demo/local-m.parquet",
                                                         "data/exam/grades/demo/local-m.parquet"))
        assert server.fake.requests == 3 * riddles + exam  # one answer and two verdicts per riddle, once
        assert "waiting for another run that is sending requests through the request cache" in out_b
        assert f"in {a}" in out_b  # it says which run it waits for
        for name in ("data/predictions/llm/local-m.parquet", "data/judgments/llm/local-m.parquet",
                     "data/answers/predict/llm/local-m.jsonl", "data/answers/judge/llm/local-m.jsonl"):
            if name.endswith(".parquet"):
                pd.testing.assert_frame_equal(pd.read_parquet(b / name), pd.read_parquet(a / name))
            else:
                assert (b / name).read_bytes() == (a / name).read_bytes(), name


def test_two_repros_in_one_workspace_pay_once_and_the_second_is_told_why(tmp_path):
    with FakeServer(Behaviour(expected_key=KEY, latency_s=0.05)) as server:
        repo = workspace(tmp_path / "a", server.base_url)
        first = start(repo)
        when_sending(server, first)
        second = start(repo)
        out_second = second.communicate(timeout=600)[0]
        out_first = first.communicate(timeout=600)[0]
        assert first.returncode == 0, out_first
        # DVC's stage lock (.dvc/tmp/rwlock) refuses the second run, naming the one it waits for
        assert second.returncode != 0 and "is busy, it is being blocked by" in out_second, out_second
        assert f"(PID {first.pid})" in out_second
        paid = server.fake.requests
        assert paid_twice(server) == 0
        again = run(repo, "dvc", "repro", TARGET)  # the second run, once the first is done: nothing to do
        assert "Running stage" not in again.stdout + again.stderr and server.fake.requests == paid
        assert "changed" not in run(repo, "dvc", "status", TARGET).stdout
