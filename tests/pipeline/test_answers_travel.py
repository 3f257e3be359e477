"""Never pay twice, on any machine (issue 9): paid answers travel with the results.

Machine A runs a model and its two judges on a local OpenAI-compatible server and shares with
``dvc push --run-cache`` (``make push``). Machine B clones with an empty HOME and no key, pulls,
edits the backend code (so DVC must rerun predict and judge) and reproduces: the server sees no
request, and B's predictions and judgments are A's, byte for byte. A prompt change is the honest
exception: it sends new requests, and ``sideways dry-run`` says how many before anything is sent.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pandas as pd
import pytest

from helpers.harness import BIN, commit, env, executed, jobs_ran, new_repo, run
from helpers.model_project import KEY
from sideways.testing.openai_server import Behaviour, FakeServer

pytestmark = pytest.mark.slow

TARGET = "judge"  # the coarse stage; its jobs here are judge@local-m+llm and exam_judge@local-m+demo
OUTPUTS = ("data/predictions/llm/local-m.parquet", "data/judgments/llm/local-m.parquet",
           "data/answers/predict/llm/local-m.jsonl", "data/answers/judge/llm/local-m.jsonl",
           # the exam's jobs ride in predict and judge (docs/design.md, "Every batch in flight")
           "data/exam/predictions/demo/local-m.parquet", "data/exam/grades/demo/local-m.parquet",
           "data/answers/exam_predict/demo/local-m.jsonl", "data/answers/exam_judge/demo/local-m.jsonl")


def real_model(base_url: str):
    """params.yaml with one model and a panel of two judges, all on the fake server."""
    local = {"backend": "openai-compatible", "base_url": base_url, "api_key_env": "LOCAL_LLM_KEY", "concurrency": 4}

    def change(p: dict) -> None:
        p["splits"] = ["llm"]
        p["models"] = {"local-m": {**local, "provider": "local", "name": "local-model-1", "n_hints": 0}}
        p["jury"] = {"judges": 2, "pool": {"judge-a": {**local, "provider": "judgeco-a", "name": "judge-a-1"},
                                            "judge-b": {**local, "provider": "judgeco-b", "name": "judge-b-1"}}}
        p["requests"].update(backoff_s=0.01, max_backoff_s=0.05, timeout_s=5.0)
    return change


def as_machine(repo: Path, home: Path, *cmd: str) -> subprocess.CompletedProcess:
    """Run ``cmd`` in ``repo`` with its own, empty HOME (and no key in the environment)."""
    home.mkdir(parents=True, exist_ok=True)
    environ = {k: v for k, v in env(repo, home=home).items() if k != "LOCAL_LLM_KEY"} | {"HOME": str(home)}
    exe = str(BIN / cmd[0]) if cmd[0] in ("dvc", "python", "sideways") else cmd[0]
    proc = subprocess.run([exe, *cmd[1:]], cwd=repo, env=environ, capture_output=True, text=True)
    assert proc.returncode == 0, f"{' '.join(cmd)} failed:\n{proc.stdout}\n{proc.stderr}"
    return proc


def dry_run_rows(text: str) -> dict[tuple[str, str], list[int]]:
    """``sideways dry-run --by-model`` lines: (stage, model or judge) -> [requests, cached, pulled, to send]."""
    rows = {}
    for line in text.splitlines():
        words = line.split()
        if len(words) > 7 and words[0] in ("predict", "judge") and words[4].isdigit():
            rows[(words[0], words[2])] = [int(w) for w in words[4:8]]
    return rows


def test_a_clone_that_pulled_pays_nothing_after_a_code_change(tmp_path):
    with FakeServer(Behaviour(expected_key=KEY)) as server:
        a = new_repo(tmp_path / "a" / "repo", real_model(server.base_url))
        (a / ".env").write_text(f"LOCAL_LLM_KEY={KEY}\n")  # git-ignored: A's key stays on A
        run(a, "dvc", "remote", "add", "-d", "store", str(tmp_path / "remote"))
        assert {"predict", TARGET} <= executed(as_machine(a, tmp_path / "a" / "home", "dvc", "repro",
                                                                       TARGET))
        riddles = len(pd.read_parquet(a / "data/split/llm.parquet"))
        # the exam in the same stages: one answer per question, a verdict per short answer and judge
        exam = len(pd.read_parquet(a / OUTPUTS[4])) + len(pd.read_parquet(a / OUTPUTS[5]))
        paid = server.fake.requests
        assert paid == 3 * riddles + exam  # one answer and two verdicts per riddle
        commit(a, "results")
        as_machine(a, tmp_path / "a" / "home", "dvc", "push", "--run-cache")

        b, home_b = tmp_path / "b" / "repo", tmp_path / "b" / "home"
        as_machine(tmp_path, home_b, "git", "clone", "-q", str(a), str(b))
        as_machine(b, home_b, "dvc", "pull", "--with-deps", TARGET)  # what A ran (its lock lists more)
        assert not (b / ".sideways").exists() and not (b / ".env").exists()
        with (b / "src/sideways/backends/openai_compatible.py").open("a") as fh:
            fh.write("\n# a harmless edit: DVC must rerun predict and judge\n")
        dry = dry_run_rows(as_machine(b, home_b, "sideways", "dry-run", "--by-model").stdout)
        assert dry[("predict", "local-m")] == [riddles, 0, riddles, 0]
        assert dry[("judge", "judge-a")] == [riddles, 0, riddles, 0]

        proc = as_machine(b, home_b, "dvc", "repro", TARGET)
        assert {"predict", TARGET} <= executed(proc)
        # the code is in every job's fingerprint: the jobs ran, answered from the pulled answers
        assert {"predict@local-m+llm", "judge@local-m+llm", "exam_predict@local-m+demo", "exam_judge@local-m+demo"} <= jobs_ran(proc)
        assert server.fake.requests == paid, "machine B paid again"
        for name in OUTPUTS:
            if name.endswith(".parquet"):  # same rows; the metadata's inputs fingerprint names the new code
                pd.testing.assert_frame_equal(pd.read_parquet(b / name), pd.read_parquet(a / name))
            else:
                assert (b / name).read_bytes() == (a / name).read_bytes(), name
        assert len((b / "data/answers/judge/llm/local-m.jsonl").read_text().splitlines()) == 2 * riddles

        # the honest exception: a new judge prompt asks new questions, and the dry run says so first
        (b / ".env").write_text(f"LOCAL_LLM_KEY={KEY}\n")
        with (b / "src/sideways/prompts/judge.md").open("a") as fh:
            fh.write("\nBe strict about units.\n")
        dry = dry_run_rows(as_machine(b, home_b, "sideways", "dry-run", "--by-model").stdout)
        assert dry[("predict", "local-m")] == [riddles, riddles, 0, 0]
        assert dry[("judge", "judge-a")][3] == riddles and dry[("judge", "judge-b")][3] == riddles
        proc = as_machine(b, home_b, "dvc", "repro", TARGET)
        assert executed(proc) == {TARGET}
        assert jobs_ran(proc) == {"judge@local-m+llm"}  # the riddles' judge prompt: no exam job runs
        assert server.fake.requests == paid + 2 * riddles
    assert not any(KEY.encode() in p.read_bytes() for p in (b / "data").rglob("*") if p.is_file())
    assert os.environ.get("LOCAL_LLM_KEY") != KEY
