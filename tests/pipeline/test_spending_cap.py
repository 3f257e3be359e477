"""A hard spending cap (``requests.max_cost_usd``) through ``dvc repro``, against the fake OpenAI server's usage.

Two simulated models and one paid model on the fake server (one request at a time, 64 tokens of
output at most). A cap below the estimate sends nothing; a model without a price is refused; a cap
reached midway stops within one request's worst case of it, the paid model missing from the
leaderboard with reason "spending cap"; raising the cap sends only what was not sent.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import time
from collections import Counter
from pathlib import Path

import pandas as pd
import pytest

from helpers.harness import BIN, edit_params, env, new_repo, run
from sideways.llm import ledger
from sideways.llm.cache import RequestCache
from sideways.testing.openai_server import Behaviour, FakeServer

pytestmark = pytest.mark.slow

KEY = "sk-fake-spending-cap"
PRICE = {"input_per_mtok": 1.0, "output_per_mtok": 10_000.0}  # output dominates: the estimate counts 1 token


def one_paid_model(url: str, cap: float | None, priced: bool = True):
    def change(p: dict) -> None:
        p["splits"] = ["llm"]
        sim = {k: v for k, v in p["models"].items() if k in ("atlas-large", "quill-max")}
        p["models"] = {**sim, "paid-m": {"backend": "openai-compatible", "base_url": url, "api_key_env": "LOCAL_LLM_KEY",
                                         "concurrency": 1, "max_tokens": 64, "provider": "paidco",
                                         "name": "paid-model-1", "n_hints": 0}}
        p["exams"] = {}
        p["requests"].update(backoff_s=0.01, max_backoff_s=0.02, max_attempts=2, timeout_s=5.0,
                             expected_output_tokens=1, max_cost_usd=cap)
        p["prices"] = {"paid-model-1": PRICE} if priced else {}
    return change


def paid(repo: Path) -> list[dict]:
    return [r for r in RequestCache(repo / ".sideways/cache").records() if r.get("cost_usd") is not None]


def project(tmp_path: Path, url: str, cap: float | None, priced: bool = True) -> Path:
    repo = new_repo(tmp_path / "repo", one_paid_model(url, cap, priced))
    (repo / ".env").write_text(f"LOCAL_LLM_KEY={KEY}\n")
    return repo


def test_a_cap_below_the_estimate_and_a_model_without_a_price_send_nothing(tmp_path):
    with FakeServer(Behaviour()) as server:
        repo = project(tmp_path, server.base_url, cap=1e-6)
        proc = run(repo, "dvc", "repro", check=False)
        assert proc.returncode != 0 and server.fake.requests == 0
        line = next(x for x in proc.stderr.splitlines() if "max_cost_usd" in x)
        assert re.search(r"predict: spent \$0\.0000 \+ the run's estimate \$\d+\.\d{4} is over requests\.max_cost_usd "
                         r"\$0\.0000", line)
        assert "the biggest jobs: predict@paid-m+llm $" in line and "nothing was sent" in line
        print(line)
        dry = " ".join(run(repo, "sideways", "dry-run").stdout.split())  # the cap line may wrap at 120 columns
        assert "requests.max_cost_usd $0.0000: spent $0.0000 + the estimate of predict and judge $" in dry
        assert "is over it: predict would send nothing" in dry

        edit_params(repo, lambda p: p.update(prices={}))
        proc = run(repo, "dvc", "repro", check=False)  # the check stage refuses it, before any stage runs
        assert proc.returncode != 0 and server.fake.requests == 0
        assert ("error: params.yaml: requests.max_cost_usd is set but models.paid-m (paid-model-1) sends requests "
                "and has no price (an unknown price is not 0)") in proc.stderr
        proc = run(repo, "python", "stages/predict.py", check=False)  # and predict itself, run by hand
        assert proc.returncode != 0 and server.fake.requests == 0
        assert "paid-m would send requests and has no price (an unknown price is not 0)" in proc.stderr


def spent(repo: Path) -> float:
    """What the evaluation's ledger (data/spend) says was paid."""
    return sum(ledger.spent(repo).values())


def refusal(proc: subprocess.CompletedProcess) -> str:
    """The first message naming the cap, its lines joined (a stage's summary wraps a long error at 120 columns)."""
    return next(x for x in re.sub(r"\n  +", " ", proc.stderr).splitlines() if "max_cost_usd" in x)


def test_the_cap_bounds_the_total_four_reruns_pay_nothing_more_and_a_raise_of_x_buys_at_most_x(tmp_path):
    with FakeServer(Behaviour()) as server:
        repo = project(tmp_path, server.base_url, cap=None)
        riddles = len(pd.read_parquet(run_split(repo)))
        cap = riddles * 10 * PRICE["output_per_mtok"] / 1e6  # 10 tokens a reply: the fake's replies are longer
        edit_params(repo, lambda p: p["requests"].update(max_cost_usd=cap))

        first = run(repo, "dvc", "repro", check=False)
        assert first.returncode != 0, first.stdout + first.stderr
        total, sent = spent(repo), server.fake.requests
        assert 0 < sent < riddles and len(paid(repo)) == sent  # every answer is cached: nothing lost
        assert total == pytest.approx(sum(r["cost_usd"] for r in paid(repo)))  # the ledger: what the answers cost
        record = json.loads((repo / "metrics/failures/predict.json").read_text())
        (failed,) = record["failed"]
        assert (failed["job"], failed["reason"]) == ("predict@paid-m+llm", "spending cap")
        worst = float(re.search(r"this request may cost \$([\d.]+)", failed["error"]).group(1))
        assert total <= cap and cap - total <= worst, (total, cap, worst)  # within one request of the cap
        assert "predict@paid-m+llm: provider paidco, spending cap" in first.stderr
        assert set(json.loads((repo / "metrics/leaderboard_llm.json").read_text())) == {"atlas-large", "quill-max"}
        print(f"run 1 stopped at ${total:.6f} of a ${cap:.6f} cap (one request's worst case ${worst:.6f}), "
              f"{sent} of {riddles} requests sent")

        for n in range(2, 5):  # the same cap, three more times: nothing more is paid, and each run says why
            again = run(repo, "dvc", "repro", check=False)
            assert again.returncode != 0 and server.fake.requests == sent
            line = refusal(again)  # refused by the estimate check, or by the budget's first reservation
            assert float(re.search(r"spent \$([\d.]+)", line).group(1)) == pytest.approx(total, abs=1e-4), line
            assert float(re.search(r"requests\.max_cost_usd \$([\d.]+)", line).group(1)) == pytest.approx(cap, abs=1e-4)
            assert "raise" in line
            print(f"run {n}: {line}")
        assert spent(repo) == pytest.approx(total)
        git = subprocess.run(["git", "status", "--porcelain", "data/spend"], cwd=repo, capture_output=True, text=True)
        assert "data/spend/" in git.stdout  # a file of the project's, committed with dvc.lock

        more = cap / 4
        edit_params(repo, lambda p: p["requests"].update(max_cost_usd=cap + more))
        raised = run(repo, "dvc", "repro", check=False)
        after = spent(repo)
        assert server.fake.requests > sent and total < after <= cap + more, (after, total, cap, more)  # not 2 caps
        assert set(Counter(server.fake.by_body).values()) == {1}  # nothing paid twice
        print(f"raising the cap by ${more:.6f} to ${cap + more:.6f}: ${after:.6f} paid in all; {raised.returncode=}")


def test_a_kill_9_midway_then_a_restart_pays_no_more_than_the_cap_and_nothing_twice(tmp_path):
    with FakeServer(Behaviour(latency_s=0.3)) as server:
        repo = project(tmp_path, server.base_url, cap=None)
        riddles = len(pd.read_parquet(run_split(repo)))
        cap = riddles * 10 * PRICE["output_per_mtok"] / 1e6
        edit_params(repo, lambda p: p["requests"].update(max_cost_usd=cap))
        with (tmp_path / "killed.log").open("w") as log:
            proc = subprocess.Popen([str(BIN / "dvc"), "repro"], cwd=repo, env=env(repo), stdout=log, stderr=log,
                                    stdin=subprocess.DEVNULL, start_new_session=True)
            deadline = time.monotonic() + 120
            while server.fake.requests < 4 and time.monotonic() < deadline and proc.poll() is None:
                time.sleep(0.05)
            stage = stage_process(proc.pid, "stages/predict.py")
            os.kill(stage, signal.SIGKILL)  # the stage, as the OOM killer would: DVC sees it fail and lets go
            proc.wait()
        killed_at = server.fake.requests
        assert killed_at >= 4 and spent(repo) > 0  # the killed run's attempts are in the ledger
        restart = run(repo, "dvc", "repro", check=False)
        total = spent(repo)
        answers = sum(r["cost_usd"] for r in paid(repo))
        assert server.fake.requests > killed_at and restart.returncode != 0
        ledgers = {p.name: p.read_text() for p in (repo / "data/spend").glob("*.jsonl")}
        assert answers <= total <= cap, (answers, total, cap, ledgers)  # an attempt killed in flight: its worst case
        # only the request in flight at the kill (concurrency 1) may be sent again: its answer never arrived
        assert sum(n - 1 for n in Counter(server.fake.by_body).values()) <= 1
        print(f"killed after {killed_at} requests; the restart stopped at ${total:.6f} of ${cap:.6f} "
              f"({server.fake.requests} requests in all)")


def stage_process(root: int, script: str) -> int:
    """The pid of the process running ``script`` among ``root``'s descendants: the deepest one, the
    interpreter, not the ``sh -c`` DVC may wrap it in (dash does not exec; killing the shell would
    leave the stage running as an orphan)."""
    parents = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        parents[int(stat.parent.name)] = int(fields[1])

    def depth(pid: int) -> int | None:
        """How far below ``root`` ``pid`` is (None: not below it)."""
        n = 0
        while pid > 1:
            if pid == root:
                return n
            pid, n = parents.get(pid, 0), n + 1
        return None

    found = []
    for pid in sorted(parents):
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        if script in cmdline and (d := depth(pid)) is not None:
            found.append((d, pid))
    if not found:
        raise AssertionError(f"no {script} under pid {root}")
    return max(found)[1]


def run_split(repo: Path) -> Path:
    run(repo, "dvc", "repro", "split")
    return repo / "data/split/llm.parquet"


def paid_model_and_paid_judges(url: str):
    local = {"backend": "openai-compatible", "base_url": url, "api_key_env": "LOCAL_LLM_KEY", "concurrency": 1,
             "max_tokens": 64}

    def change(p: dict) -> None:
        p["splits"] = ["llm"]
        sim = {k: v for k, v in p["models"].items() if k in ("atlas-large", "quill-max")}
        p["models"] = {**sim, "paid-m": {**local, "provider": "paidco", "name": "paid-model-1", "n_hints": 0}}
        p["jury"] = {"judges": 2, "pool": {"judge-a": {**local, "provider": "judgeco-a", "name": "judge-a-1"},
                                            "judge-b": {**local, "provider": "judgeco-b", "name": "judge-b-1"}}}
        p["exams"] = {}
        p["requests"].update(backoff_s=0.01, max_backoff_s=0.02, max_attempts=2, timeout_s=5.0,
                             expected_output_tokens=1)
        p["prices"] = {name: PRICE for name in ("paid-model-1", "judge-a-1", "judge-b-1")}
    return change


def test_the_per_model_cap_counts_what_predict_paid_when_judge_runs(tmp_path):
    """A model's cap bounds its predictions and their verdicts together, whichever stage pays."""
    with FakeServer(Behaviour()) as server:
        repo = new_repo(tmp_path / "repo", paid_model_and_paid_judges(server.base_url))
        (repo / ".env").write_text(f"LOCAL_LLM_KEY={KEY}\n")
        run(repo, "dvc", "repro", "predict")  # no cap yet: predict pays its own
        predicted = ledger.spent(repo)["paid-m"]
        limit = predicted * 1.3  # room for a few of its verdicts, not for all of them
        edit_params(repo, lambda p: p["requests"].update(max_cost_usd_per_model={"paid-m": limit}))
        proc = run(repo, "dvc", "repro", check=False)
        by_model = ledger.spent(repo)
        assert proc.returncode != 0
        assert predicted < by_model["paid-m"] <= limit, (predicted, by_model, limit)  # predict + judge, one cap
        judged = json.loads((repo / "metrics/failures/judge.json").read_text())["failed"]
        assert [(f["job"], f["reason"]) for f in judged] == [("judge@paid-m+llm", "spending cap")]
        assert "max_cost_usd_per_model.paid-m" in judged[0]["error"]
        shown = run(repo, "sideways", "show", check=False).stdout
        assert f"spent: ${sum(by_model.values()):.4f} (data/spend; " in shown, shown
        print(f"paid-m: predict ${predicted:.6f}, with its verdicts ${by_model['paid-m']:.6f} of a ${limit:.6f} cap")
