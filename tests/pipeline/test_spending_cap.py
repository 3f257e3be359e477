"""A hard spending cap (``requests.max_cost_usd``) through ``dvc repro``, against the fake OpenAI server's usage.

Two simulated models and one paid model on the fake server (one request at a time, 64 tokens of
output at most). A cap below the estimate sends nothing; a model without a price is refused; a cap
reached midway stops within one request's worst case of it, the paid model missing from the
leaderboard with reason "spending cap"; raising the cap sends only what was not sent.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pandas as pd
import pytest

from helpers.harness import edit_params, new_repo, run
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
        assert re.search(r"predict: the run's estimate \$\d+\.\d{4} is over requests\.max_cost_usd \$0\.0000", line)
        assert "the biggest jobs: predict@paid-m+llm $" in line and "nothing was sent" in line
        print(line)
        dry = run(repo, "sideways", "dry-run").stdout
        assert "requests.max_cost_usd $0.0000: the estimate of predict and judge ($" in dry and "is over it" in dry

        edit_params(repo, lambda p: p.update(prices={}))
        proc = run(repo, "dvc", "repro", check=False)  # the check stage refuses it, before any stage runs
        assert proc.returncode != 0 and server.fake.requests == 0
        assert ("error: params.yaml: requests.max_cost_usd is set but models.paid-m (paid-model-1) sends requests "
                "and has no price (an unknown price is not 0)") in proc.stderr
        proc = run(repo, "python", "stages/predict.py", check=False)  # and predict itself, run by hand
        assert proc.returncode != 0 and server.fake.requests == 0
        assert "paid-m would send requests and has no price (an unknown price is not 0)" in proc.stderr


def test_a_cap_reached_midway_stops_within_one_request_and_a_higher_cap_pays_only_the_rest(tmp_path):
    with FakeServer(Behaviour()) as server:
        repo = project(tmp_path, server.base_url, cap=None)
        riddles = len(pd.read_parquet(run_split(repo)))
        cap = riddles * 10 * PRICE["output_per_mtok"] / 1e6  # 10 tokens a reply: the fake's replies are longer
        edit_params(repo, lambda p: p["requests"].update(max_cost_usd=cap))

        first = run(repo, "dvc", "repro", check=False)
        assert first.returncode != 0, first.stdout + first.stderr
        spent = sum(r["cost_usd"] for r in paid(repo))
        sent = server.fake.requests
        assert 0 < sent < riddles and len(paid(repo)) == sent  # every answer is cached: nothing lost
        record = json.loads((repo / "metrics/failures/predict.json").read_text())
        (failed,) = record["failed"]
        assert (failed["job"], failed["reason"]) == ("predict@paid-m+llm", "spending cap")
        worst = float(re.search(r"this request's worst case \$([\d.]+)", failed["error"]).group(1))
        assert spent <= cap and cap - spent <= worst, (spent, cap, worst)  # within one request of the cap
        assert record["spent_usd"] == pytest.approx(spent)
        print(f"stopped at ${spent:.6f} of a ${cap:.6f} cap (one request's worst case ${worst:.6f}), {sent} of "
              f"{riddles} requests sent")
        assert set(json.loads((repo / "metrics/leaderboard_llm.json").read_text())) == {"atlas-large", "quill-max"}
        assert "predict@paid-m+llm: provider paidco, spending cap" in first.stderr

        edit_params(repo, lambda p: p["requests"].update(max_cost_usd=cap * 100))
        second = run(repo, "dvc", "repro")
        assert server.fake.requests == riddles  # the rest, and only the rest
        assert set(Counter(server.fake.by_body).values()) == {1}  # nothing paid twice
        assert set(json.loads((repo / "metrics/leaderboard_llm.json").read_text())) == {
            "atlas-large", "quill-max", "paid-m"}
        print(f"the rerun sent {server.fake.requests - sent} requests; {second.returncode=}")


def run_split(repo: Path) -> Path:
    run(repo, "dvc", "repro", "split")
    return repo / "data/split/llm.parquet"
