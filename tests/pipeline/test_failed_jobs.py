"""One provider down doesn't take the leaderboard down: `make repro` and `dvc repro` with a failed job.

Four models: two simulated, one on a fake OpenAI-compatible server, and one on a second fake
server that answers 503 to everything. The run writes the leaderboard of the three others and
names the fourth, exits non-zero, and says how to retry; once the server is back, the same command
sends exactly the fourth model's requests (every other job reused byte for byte); the run after is
a no-op.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pandas as pd
import pytest

from helpers.harness import BIN, env, executed, jobs_ran, make, new_repo, run
from sideways.testing.fake_batch_provider import HOSTS_VAR, FakeBatchServer, hosts, write_sitecustomize
from sideways.testing.openai_server import Behaviour, FakeServer

pytestmark = pytest.mark.slow

KEY = "sk-fake-failed-jobs"


def four_models(good: str, bad: str, posterior: str = "v1"):
    """params.yaml: two simulated models, one on ``good``, one on ``bad``; the riddles of llm alone; the
    posterior interval's prior ``posterior``."""
    def local(url: str, provider: str, name: str) -> dict:
        return {"backend": "openai-compatible", "base_url": url, "api_key_env": "LOCAL_LLM_KEY", "concurrency": 4,
                "provider": provider, "name": name, "n_hints": 0}

    def change(p: dict) -> None:
        p["splits"] = ["llm"]
        sim = {k: v for k, v in p["models"].items() if k in ("atlas-large", "quill-max")}
        p["models"] = {**sim, "good-m": local(good, "goodco", "good-model-1"), "bad-m": local(bad, "badco", "bad-model-1")}
        p["exams"] = {}
        p["calibration"]["posterior"] = posterior
        p["requests"].update(backoff_s=0.01, max_backoff_s=0.02, max_attempts=2, timeout_s=5.0)
    return change


def make_repro(repo: Path) -> subprocess.CompletedProcess:
    """`make repro` as a user runs it (harness.make: this environment, nothing installed), without
    the key of the model that is down."""
    environ = {k: v for k, v in env(repo).items() if k != "LOCAL_LLM_KEY"}
    return make(repo, "repro", environ=environ, check=False)


def files_of(repo: Path, model: str) -> dict[str, bytes]:
    return {str(p.relative_to(repo)): p.read_bytes() for p in sorted((repo / "data").rglob(f"{model}*"))
            if p.is_file()}


@pytest.mark.skipif(shutil.which("make") is None, reason="needs make")
@pytest.mark.parametrize("posterior", ["v1", "latent"])  # latent reads every model's verdicts: not the missing one's
def test_a_provider_down_leaves_the_others_on_the_leaderboard_and_a_retry_sends_only_its_requests(tmp_path, posterior):
    with FakeServer(Behaviour()) as good, FakeServer(Behaviour(plan={"": ["503"]})) as bad:
        repo = new_repo(tmp_path / "repo", four_models(good.base_url, bad.base_url, posterior))
        (repo / ".env").write_text(f"LOCAL_LLM_KEY={KEY}\n")
        riddles = sum(1 for _ in (repo / "data/riddles/demo.jsonl").open())  # an upper bound; llm's count below

        first = make_repro(repo)
        out = first.stdout + first.stderr
        assert first.returncode != 0, out
        board = json.loads((repo / "metrics/leaderboard_llm.json").read_text())
        assert set(board) == {"atlas-large", "quill-max", "good-m"}
        record = json.loads((repo / "metrics/failures/predict.json").read_text())["failed"]
        assert [(f["job"], f["provider"], f["status"], f["reason"]) for f in record] == [
            ("predict@bad-m+llm", "badco", 503, "provider error")]
        summary = json.loads((repo / "metrics/failures/summary.json").read_text())["failed"]
        assert [(f["job"], f["reason"]) for f in summary] == [("predict@bad-m+llm", "provider error"),
                                                              ("judge@bad-m+llm", "blocked")]
        missing = [line for line in first.stdout.splitlines() if "bad-m: missing" in line]
        assert len(missing) == 1 and "predict@bad-m+llm" in missing[0] and "HTTP 503" in missing[0], first.stdout
        last = first.stdout.rstrip().splitlines()[-3:]
        assert "predict@bad-m+llm" in "\n".join(last) and last[-1].startswith("retry: `make repro`"), first.stdout
        report = json.loads((repo / "report/data/report.js").read_text().removeprefix("window.SIDEWAYS = ")
                            .rstrip().removesuffix(";"))
        assert [m["model"] for m in report["splits"]["llm"]["missing"]] == ["bad-m"]
        assert "HTTP 503" in report["splits"]["llm"]["missing"][0]["line"]
        status = run(repo, "sideways", "status", check=False)
        assert "predict@bad-m+llm: provider badco, HTTP 503" in status.stdout
        assert "predict" in run(repo, "dvc", "status").stdout  # not up to date: its retry is due

        others = {m: files_of(repo, m) for m in ("atlas-large", "quill-max", "good-m")}
        sent_good, sent_bad = good.fake.requests, bad.fake.requests
        bad.fake.behaviour.plan = {}  # the provider is back

        second = make_repro(repo)
        assert second.returncode == 0, second.stdout + second.stderr
        assert good.fake.requests == sent_good  # nothing of the others is sent again
        n_llm = len(pd.read_parquet(repo / "data/predictions/llm/bad-m.parquet"))
        assert bad.fake.requests - sent_bad == n_llm <= riddles  # exactly bad-m's requests, once each
        assert jobs_ran(second) == {"predict@bad-m+llm", "judge@bad-m+llm"}
        print(f"the retry sent {bad.fake.requests - sent_bad} requests to the recovered server, "
              f"{good.fake.requests - sent_good} to the other")
        assert {m: files_of(repo, m) for m in others} == others  # reused byte for byte
        assert set(json.loads((repo / "metrics/leaderboard_llm.json").read_text())) == {
            "atlas-large", "quill-max", "good-m", "bad-m"}
        assert "missing" not in second.stdout
        assert json.loads((repo / "metrics/failures/predict.json").read_text())["failed"] == []

        third = run(repo, "dvc", "repro")
        assert executed(third) == set() and good.fake.requests == sent_good and bad.fake.requests == sent_bad + n_llm


def two_batch_models(p: dict) -> None:
    """Two simulated models and two batch models: doubleword's answers, groq's batches end badly."""
    sim = {k: v for k, v in p["models"].items() if k in ("atlas-large", "quill-max")}
    p["splits"] = ["llm"]
    p["models"] = {**sim, **{key: {"backend": "batch", "provider": provider, "name": f"{key}-model", "n_hints": 0}
                             for key, provider in (("dw-m", "doubleword"), ("groq-m", "groq"))}}
    p["exams"] = {}
    p["requests"].update(batch_window_s=0.05, batch_poll_s=0.05, backoff_s=0.01, max_backoff_s=0.02, max_attempts=3)


@pytest.mark.parametrize("ending", ["failed", "expired"])
def test_a_batch_the_provider_ends_badly_fails_its_job_alone_and_a_retry_submits_only_it(tmp_path, ending):
    with FakeBatchServer("doubleword", 0.2) as dw, FakeBatchServer("groq", 0.2, outcome={1: ending, 2: ending}) as groq:
        repo = new_repo(tmp_path / "repo", two_batch_models)
        (repo / ".env").write_text("DOUBLEWORD_API_KEY=fake-dw\nGROQ_API_KEY=fake-groq\n")
        environ = env(repo) | {"PYTHONPATH": os.pathsep.join([str(repo / "src"), str(write_sitecustomize(tmp_path / "shim"))]),
                               HOSTS_VAR: json.dumps(hosts([dw, groq]))}

        def repro() -> subprocess.CompletedProcess:
            return subprocess.run([str(BIN / "dvc"), "repro"], cwd=repo, env=environ, capture_output=True, text=True,
                                  timeout=900)

        first = repro()
        assert first.returncode != 0, first.stdout + first.stderr
        assert set(json.loads((repo / "metrics/leaderboard_llm.json").read_text())) == {"atlas-large", "quill-max", "dw-m"}
        (failed,) = json.loads((repo / "metrics/failures/predict.json").read_text())["failed"]
        assert (failed["job"], failed["provider"], failed["reason"]) == ("predict@groq-m+llm", "groq", "provider error")
        assert f"({ending})" in failed["error"] and "predict@groq-m+llm: provider groq" in first.stderr
        assert [b.requests for b in groq.fake.log] == [N_LLM := groq.fake.log[0].requests] * 2  # submitted once more
        dw_batches, dw_files = dw.fake.created, files_of(repo, "dw-m")

        groq.fake.outcome = {}  # the provider is back
        second = repro()
        assert second.returncode == 0, second.stdout + second.stderr
        assert [b.requests for b in groq.fake.log[2:]] == [N_LLM] and dw.fake.created == dw_batches
        assert jobs_ran(second) == {"predict@groq-m+llm", "judge@groq-m+llm"} and files_of(repo, "dw-m") == dw_files
        assert "groq-m" in json.loads((repo / "metrics/leaderboard_llm.json").read_text())

        third = repro()
        assert third.returncode == 0 and executed(third) == set() and groq.fake.created == 3
