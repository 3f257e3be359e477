"""Done-when for issue 4: a model on a local OpenAI-compatible server goes through the predict
and judge stages with injected faults and a SIGKILL in the middle; every riddle gets a row,
nothing answered is paid twice, and the key appears in no artifact, cache file, log or DVC file.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from helpers.harness import BIN
from helpers.model_project import KEY, N, env_for, make_project
from sideways.artifacts.io import read_table
from sideways.artifacts.schema import JUDGMENTS, PREDICTIONS
from sideways.testing.openai_server import Behaviour, FakeServer


def stage(repo: Path, name: str, log: Path, check: bool = True) -> subprocess.CompletedProcess:
    proc = subprocess.run([sys.executable, f"stages/{name}.py"], cwd=repo,
                          env=env_for(repo), capture_output=True, text=True)
    with log.open("a") as fh:
        fh.write(proc.stdout + proc.stderr)
    if check and proc.returncode:
        raise AssertionError(proc.stderr)
    return proc


def riddle_counts(bodies: list[dict], judge: bool) -> Counter:
    out: Counter = Counter()
    for b in bodies:
        text = b["messages"][0]["content"]
        if ("is_answer_correct" in text) == judge:
            out[(b["model"], re.search(r"\[(R\d+)\]", text).group(1))] += 1
    return out


PLAN = {"[R003]": ["429", "ok"], "[R007]": ["500", "500", "ok"], "[R011]": ["timeout", "ok"],
        "[R015]": ["malformed", "ok"], "[R019]": ["echo_auth"], "[R023]": ["garbage"]}


def test_predict_and_judge_with_faults_a_kill_and_no_leak(tmp_path):
    behaviour = Behaviour(latency_s=0.02, plan=PLAN, retry_after_s=0.05, timeout_sleep_s=1.0, expected_key=KEY)
    with FakeServer(behaviour) as server:
        repo = make_project(tmp_path, server.base_url)
        log = tmp_path / "stages.log"
        cache = repo / ".sideways/cache"
        child = subprocess.Popen([sys.executable, "stages/predict.py"],
                                 cwd=repo, env=env_for(repo), stdout=log.open("w"), stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 30
        while len(list(cache.glob("??/*.json"))) < 10:
            assert child.poll() is None and time.monotonic() < deadline
            time.sleep(0.005)
        child.kill()
        child.wait()
        assert not (repo / "data/predictions/llm/local-m.parquet").exists()
        cached_at_kill = {json.loads(p.read_text())["label"].rsplit("/", 1)[1] for p in cache.glob("??/*.json")}
        first = riddle_counts(server.fake.bodies, judge=False)

        stage(repo, "predict", log)
        stage(repo, "judge", log)
        predict_counts = riddle_counts(server.fake.bodies, judge=False)
        sent = server.fake.requests
        # a rerun of both finished stages sends nothing
        stage(repo, "predict", log)
        stage(repo, "judge", log)
        assert server.fake.requests == sent
        auths = set(server.fake.auth_headers)

    preds = read_table(repo / "data/predictions/llm/local-m.parquet", PREDICTIONS)
    verdicts = read_table(repo / "data/judgments/llm/local-m.parquet", JUDGMENTS)
    assert len(preds) == N and preds["riddle_id"].is_unique
    status = dict(zip(preds["riddle_id"], preds["status"]))
    assert status["R019"] == "api_error" and status["R023"] == "parse_error"
    assert sum(s == "ok" for s in status.values()) == N - 2
    assert "[REDACTED]" in preds.set_index("riddle_id").loc["R019", "error"]
    assert len(verdicts) == 2 * N and set(verdicts["judge"]) == {"judge-a", "judge-b"}
    assert verdicts.loc[verdicts["status"] == "ok", "both_correct"].sum() == 2 * (N - 2)

    # nothing answered and cached before the kill was sent again; at most the in-flight ones were
    second = predict_counts - first
    assert not {r for (_, r) in second} & cached_at_kill
    assert len({r for (_, r) in second if first[("local-model-1", r)]}) <= 3
    judge_counts = riddle_counts(server.fake.bodies, judge=True)
    assert max(judge_counts.values()) == 1 and len(judge_counts) == 2 * (N - 2)
    assert auths == {f"Bearer {KEY}"}  # the key did reach the server

    cost = json.loads((repo / "metrics/cost/predict/llm/local-m.json").read_text())
    assert cost["local-m"]["rows"] == N and cost["local-m"]["cost_usd"] > 0
    judge_cost = json.loads((repo / "metrics/cost/judge/llm/local-m.json").read_text())
    assert set(judge_cost) == {"judge-a", "judge-b"} and judge_cost["judge-b"]["priced"] == 0

    leaks = [p for p in tmp_path.rglob("*") if p.is_file() and p.name != ".env" and KEY.encode() in p.read_bytes()]
    assert leaks == [], f"the key leaked into {leaks}"


def test_too_many_failures_fail_the_job_without_an_artifact(tmp_path):
    plan = {f"[R{i:03d}]": ["400"] for i in range(0, N, 3)}  # a third of the riddles fail for good
    with FakeServer(Behaviour(plan=plan, expected_key=KEY)) as server:
        repo = make_project(tmp_path, server.base_url)
        proc = stage(repo, "predict", tmp_path / "log", check=False)
    assert proc.returncode == 0  # a failed job fails alone: it is recorded, and the next repro retries it
    assert "10 of 30 items failed" in proc.stderr and "max_failure_share" in proc.stderr
    assert not (repo / "data/predictions/llm/local-m.parquet").exists()
    record = json.loads((repo / "metrics/failures/predict.json").read_text())["failed"]
    assert [(f["job"], f["status"]) for f in record] == [("predict@local-m+llm", 400)]
    assert record[0]["error"].startswith("10 of 30 items failed, the first: R000: api_error: HTTP 400")


@pytest.mark.slow
def test_dvc_repro_of_real_model_stages_leaks_no_key(tmp_path):
    with FakeServer(Behaviour(expected_key=KEY)) as server:
        repo = make_project(tmp_path, server.base_url)
        env = env_for(repo)
        for cmd in (["git", "init", "-q"], [str(BIN / "dvc"), "init", "-q"], ["git", "add", "-A"],
                    ["git", "commit", "-qm", "init"]):
            subprocess.run(cmd, cwd=repo, env=env, check=True, capture_output=True)
        targets = ["predict", "judge"]
        proc = subprocess.run([str(BIN / "dvc"), "repro", "-s", *targets], cwd=repo, env=env, capture_output=True,
                              text=True)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        sent = server.fake.requests
        assert sent == 3 * N
        again = subprocess.run([str(BIN / "dvc"), "repro", "-f", "-s", *targets], cwd=repo, env=env,
                               capture_output=True, text=True)
        assert again.returncode == 0 and server.fake.requests == sent  # forced rerun: all from the cache
    text = proc.stdout + proc.stderr + again.stdout + again.stderr
    assert KEY not in text
    assert (repo / "dvc.lock").exists()
    leaks = [p for p in tmp_path.rglob("*") if p.is_file() and p.name != ".env" and KEY.encode() in p.read_bytes()]
    assert leaks == [], f"the key leaked into {leaks}"
