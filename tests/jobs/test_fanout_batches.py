"""run_jobs with the real backends against fakes on 127.0.0.1: every batch in flight at once (issue 19).

Four batch models over three providers (OpenAI twice, Doubleword, Groq), each provider a
:class:`FakeBatchServer` whose batches complete a latency after creation, reached through
httpx redirected to 127.0.0.1 after batchling has routed the requests.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

import pandas as pd
import pytest

from helpers import ROOT
from helpers.request_layer import context, make_riddles, model_spec
from sideways.backends.batch import BatchBackend
from sideways.backends.openai_compatible import OpenAICompatibleBackend
from sideways.config.options import BatchOptions
from sideways.config.params import ModelSpec
from sideways.jobs.fanout import Job, JobsFailed, run_jobs
from sideways.llm.cache import RequestCache
from sideways.llm.failures import check_failure_share
from sideways.testing.fake_batch_provider import HOSTS_VAR, FakeBatchServer, hosts, redirect, write_sitecustomize
from sideways.testing.openai_server import Behaviour, FakeServer

KEYS = {"OPENAI_API_KEY": "sk-fake-openai", "DOUBLEWORD_API_KEY": "fake-dw", "GROQ_API_KEY": "fake-groq"}
FAST = {"batch_window_s": 0.05, "batch_poll_s": 0.05, "backoff_s": 0.01, "max_backoff_s": 0.02}
MODELS = [("gpt-a", "openai"), ("gpt-b", "openai"), ("dw-m", "doubleword"), ("groq-m", "groq")]
N = 4  # riddles per model


def spec(key: str, provider: str) -> ModelSpec:
    return ModelSpec(key, "batch", provider, f"{key}-model", 0, BatchOptions())


def predict_job(key: str, provider: str, tmp: Path) -> Job[pd.DataFrame]:
    """What a coarse predict stage makes of one model: predict, then the failure-share check."""
    def run() -> pd.DataFrame:
        df = BatchBackend().predict(make_riddles(N), spec(key, provider), context(tmp, env=KEYS, **FAST))
        check_failure_share(df, 0.05, f"predict {key} on llm")
        return df

    return Job(f"predict@{key}+llm", provider, run)


@contextmanager
def fakes(latency: float, **faults: dict) -> Iterator[dict[str, FakeBatchServer]]:
    """A running fake per provider; ``faults`` maps a provider to its fake's faults."""
    with ExitStack() as stack:
        servers = {p: stack.enter_context(FakeBatchServer(p, latency, **faults.get(p, {})))
                   for p in ("openai", "doubleword", "groq")}
        yield servers


def test_a_failed_provider_fails_only_its_job_and_a_rerun_submits_only_its_requests(tmp_path):
    jobs = [predict_job(key, provider, tmp_path) for key, provider in MODELS]
    with fakes(1.0, groq={"fail_lines": True}) as servers, redirect(hosts(list(servers.values()))):
        with pytest.raises(JobsFailed) as failed:
            run_jobs(jobs)
        first = {p: list(s.fake.log) for p, s in servers.items()}
        assert set(failed.value.failures) == {"predict@groq-m+llm"}
        message = str(failed.value)
        assert "1 of 4 job(s) failed" in message and "predict@groq-m+llm: predict groq-m on llm: 4 of 4 items failed" \
            in message and "by status {'api_error': 4}" in message

        # every batch was in flight at once: each was created before any completed, over three providers
        batches = [b for log in first.values() for b in log]
        assert len(batches) == 4 and max(b.created_at for b in batches) < min(b.completes_at for b in batches)

        servers["groq"].fake.fail_lines = False
        results = run_jobs(jobs)
    assert [df["status"].eq("ok").all() for df in results] == [True] * 4
    assert [r["model"].iloc[0] for r in results] == [key for key, _ in MODELS]  # in the order given
    created = {p: [(b.model, b.requests) for b in s.fake.log] for p, s in servers.items()}
    assert sorted(created["openai"]) == [("gpt-a-model", N), ("gpt-b-model", N)]  # each batch created once
    assert created["doubleword"] == [("dw-m-model", N)]
    assert created["groq"] == [("groq-m-model", N), ("groq-m-model", N)]  # the rerun: only the failed requests
    records = list(RequestCache(tmp_path / "cache").records())
    assert len(records) == 4 * N and all(r["error"] is None for r in records)


CHILD = """
import json, sys
from pathlib import Path
from test_fanout_batches import MODELS, predict_job
from sideways.jobs.fanout import run_jobs
tmp = Path(sys.argv[1])
results = run_jobs([predict_job(key, provider, tmp) for key, provider in MODELS])
(tmp / "statuses.json").write_text(json.dumps([df["status"].tolist() for df in results]))
"""


def child_env(tmp_path: Path, servers: dict[str, FakeBatchServer]) -> dict[str, str]:
    shim = write_sitecustomize(tmp_path / "shim")
    path = os.pathsep.join([str(ROOT / "src"), str(ROOT / "tests"), str(Path(__file__).parent), str(shim)])
    return {**os.environ, "PYTHONPATH": path, "SIDEWAYS_PROGRESS": "0",
            HOSTS_VAR: json.dumps(hosts(list(servers.values())))}


def start_child(tmp_path: Path, env: dict[str, str]) -> subprocess.Popen[str]:
    (tmp_path / "child.py").write_text(CHILD)
    return subprocess.Popen([sys.executable, str(tmp_path / "child.py"), str(tmp_path)], env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def wait_for(condition, what: str, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


def test_killed_while_waiting_then_restarted_submits_nothing_new(tmp_path):
    with fakes(4.0) as servers:
        env = child_env(tmp_path, servers)
        child = start_child(tmp_path, env)
        wait_for(lambda: sum(s.fake.created for s in servers.values()) == 4, "the 4 batches")
        time.sleep(0.3)  # the child is polling now
        child.send_signal(signal.SIGKILL)
        child.wait()
        assert not (tmp_path / "statuses.json").exists()
        assert all(b.collected_at is None for s in servers.values() for b in s.fake.log), "killed too late"

        again = start_child(tmp_path, env)
        out, err = again.communicate(timeout=120)
        assert again.returncode == 0, err
        assert {p: s.fake.created for p, s in servers.items()} == {"openai": 2, "doubleword": 1, "groq": 1}
    assert json.loads((tmp_path / "statuses.json").read_text()) == [["ok"] * N] * 4


def test_status_shows_a_run_in_flight_and_its_batches(tmp_path):
    with fakes(600.0) as servers:  # batches held: the run waits until killed
        env = child_env(tmp_path, servers)
        child = start_child(tmp_path, env)
        try:
            wait_for(lambda: sum(s.fake.created for s in servers.values()) == 4, "the 4 batches")
            time.sleep(1.5)  # a poll has seen the batches in progress, the status files are written
            out = status(tmp_path)
        finally:
            child.send_signal(signal.SIGKILL)
            child.wait()
        after = status(tmp_path)
    lines = out.splitlines()
    assert lines[0].startswith("Running jobs (4), by provider")
    header = lines[1].split()
    assert header == ["JOB", "PROVIDER", "MODEL", "REQUESTS", "CACHED", "SENT", "ANSWERED", "FAILED", "RUNNING"]
    rows = {line.split()[0]: line.split() for line in lines[2:6]}
    assert set(rows) == {f"predict@{key}+llm" for key, _ in MODELS}
    assert rows["predict@groq-m+llm"][1:8] == ["groq", "groq-m-model", str(N), "0", str(N), "0", "0"]
    assert "Batches not collected yet (4)" in out and "the provider is not asked now" in out
    assert out.index("Batches not collected") > out.index("Running jobs")
    batch_rows = [line.split() for line in lines if line.strip().startswith(("openai ", "doubleword ", "groq "))
                  and "batch_" in line]
    assert {(r[0], r[2], r[4], r[-1]) for r in batch_rows} == {
        (p, f"{key}-model", servers[p].fake.dialect.running, f"predict@{key}+llm") for key, p in MODELS}
    # killed: no run is live, but the provider still holds the batches, and status says so
    assert "Running jobs" not in after and "Batches not collected yet (4)" in after and "No run is live" in after


def status(tmp_path: Path) -> str:
    proc = subprocess.run([sys.executable, "-m", "sideways.cli", "status", "--cache-dir", str(tmp_path / "cache")],
                          env={**os.environ, "PYTHONPATH": str(ROOT / "src")}, capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_two_models_on_one_endpoint_share_its_concurrency(tmp_path):
    with FakeServer(Behaviour(latency_s=0.05)) as a, FakeServer(Behaviour(latency_s=0.05)) as b:
        specs = [model_spec(a.base_url, "m1", concurrency=3), model_spec(a.base_url, "m2", concurrency=3),
                 model_spec(b.base_url, "m3", concurrency=2)]
        ctx = context(tmp_path)
        riddles = {s.key: make_riddles(12, prefix=s.key.upper()) for s in specs}
        jobs = [Job(s.key, s.provider, lambda s=s: OpenAICompatibleBackend().predict(riddles[s.key], s, ctx))
                for s in specs]
        results = run_jobs(jobs)
        assert all(df["status"].eq("ok").all() for df in results)
        assert a.fake.max_in_flight == 3, "two models on one base_url must stay within its concurrency together"
        assert b.fake.max_in_flight == 2 and a.fake.requests == 24 and b.fake.requests == 12


def test_run_jobs_waits_for_every_job_and_keeps_the_order():
    ended: list[str] = []
    both = threading.Barrier(2, timeout=5)  # fails unless the two jobs run at the same time

    def ok(name: str, delay: float) -> Job[str]:
        def run() -> str:
            both.wait()
            time.sleep(delay)
            ended.append(name)
            return name
        return Job(name, "p", run)

    assert run_jobs([ok("slow", 0.2), ok("fast", 0.0)]) == ["slow", "fast"] and ended == ["fast", "slow"]

    def boom() -> str:
        raise RuntimeError("no route to provider")

    with pytest.raises(JobsFailed) as failed:
        run_jobs([Job("bad", "p", boom), Job("late", "q", lambda: (time.sleep(0.2), ended.append("late"))[0])])
    assert ended[-1] == "late" and "bad: no route to provider (RuntimeError)" in str(failed.value)
    assert run_jobs([]) == []
    with pytest.raises(ValueError, match="given more than once: a"):
        run_jobs([Job("a", "p", lambda: 1), Job("a", "p", lambda: 2)])


def test_one_progress_bar_per_provider(tmp_path, monkeypatch, capsys):
    from sideways.core import progress

    monkeypatch.setenv("SIDEWAYS_PROGRESS", "1")

    def job(name: str, provider: str) -> Job[None]:
        def run() -> None:
            bar = progress.counter(5, f"predict {name}")
            bar.update(5)
            bar.close()
        return Job(name, provider, run)

    run_jobs([job("a", "openai"), job("b", "openai"), job("c", "groq")])
    err = capsys.readouterr().err
    assert "openai" in err and "groq" in err and "10/10" in err and "jobs 2/2 done" in err
    assert "predict a" not in err, "a job's run must advance its provider's bar, not show its own"


def test_batches_a_ledger_held_before_it_kept_statuses_are_not_shown_in_flight(tmp_path):
    import sqlite3

    from sideways.backends.batch_ledger import BEFORE, Ledger
    from sideways.backends.batch_status import BATCHLING_DB, recorded_batches
    from sideways.commands.status import status_text

    db = tmp_path / "cache" / BATCHLING_DB
    db.parent.mkdir(parents=True)
    with sqlite3.connect(db) as conn:  # batchling's table, as an older sideways left it
        conn.execute("CREATE TABLE request_cache (request_hash TEXT PRIMARY KEY, provider TEXT NOT NULL, "
                     "endpoint TEXT NOT NULL, model TEXT NOT NULL, host TEXT NOT NULL, batch_id TEXT NOT NULL, "
                     "custom_id TEXT NOT NULL, request_count INTEGER NOT NULL DEFAULT 0, created_at REAL NOT NULL)")
        conn.execute("INSERT INTO request_cache VALUES ('h1', 'openai', '/v1/chat/completions', 'gpt-x', "
                     "'api.openai.com', 'batch_old', 'c1', 1, 1.0)")
    assert [b.final for b in recorded_batches(db)] == [False]  # not knowable before the ledger is opened
    Ledger(db)
    assert [(b.batch_id, b.status, b.final) for b in recorded_batches(db)] == [("batch_old", BEFORE, True)]
    assert status_text(tmp_path / "cache", 10.0) == f"nothing in flight (request cache {tmp_path / 'cache'})\n"


def test_a_fanout_inside_a_job_runs_with_the_outer_jobs_and_shares_their_gates():
    from sideways.llm.ratelimit import endpoint_gate

    leaves = threading.Barrier(4, timeout=5)  # fails unless the four inner jobs run at the same time
    gates = []

    def leaf() -> int:
        gates.append(endpoint_gate("http://127.0.0.1:9/v1", 4))
        leaves.wait()
        return 1

    def panel(name: str) -> Job[int]:
        return Job(name, "judges", lambda: sum(run_jobs([Job(f"{name}/{j}", f"p{j}", leaf) for j in range(2)])))

    assert run_jobs([panel("judge@a-llm"), panel("judge@b-llm")]) == [2, 2]
    assert len(gates) == 4 and all(g is gates[0] for g in gates)
