"""``sideways dry-run`` and ``sideways cache``: what would be sent, what it costs, why it missed."""

from __future__ import annotations

import pandas as pd
import yaml

from helpers.model_project import KEY, N, make_project
from sideways.artifacts.io import read_table, write_table
from sideways.artifacts.rows import judgment_row
from sideways.artifacts.schema import JUDGMENTS, RIDDLES
from sideways.backends.openai_compatible import OpenAICompatibleBackend
from sideways.cli import main
from sideways.config.params import load_params
from sideways.jobs.context import run_context
from sideways.testing.openai_server import Behaviour, FakeServer


def run_predict(repo):
    params = load_params(repo / "params.yaml")
    ctx = run_context(params)
    riddles = read_table(repo / "data/split/llm.parquet", RIDDLES)
    return OpenAICompatibleBackend().predict(riddles, params.model("local-m"), ctx)


def test_dry_run_counts_requests_and_cost_then_cache_hits(tmp_path, monkeypatch, capsys):
    with FakeServer(Behaviour(expected_key=KEY)) as server:
        repo = make_project(tmp_path, server.base_url)
        monkeypatch.chdir(repo)
        assert main(["dry-run", "--by-model"]) == 0
        out = capsys.readouterr().out
        assert server.fake.requests == 0
        local = next(line for line in out.splitlines() if line.startswith("local "))
        assert local.split()[2:6] == [str(N), "0", "0", str(N)]  # requests, cached, pulled, to send
        assert "judgeco-b" in out and "no price" in out and "judge-b" in out
        assert "estimated from gold answers" in out and "nothing was sent" in out

        run_predict(repo)
        assert main(["dry-run"]) == 0
        local = next(line for line in capsys.readouterr().out.splitlines() if line.startswith("local "))
        assert local.split()[2:6] == [str(N), str(N), "0", "0"]
        assert local.split()[-1] == "$0.0000"


def test_cache_why_names_the_part_that_changed(tmp_path, monkeypatch, capsys):
    with FakeServer(Behaviour(expected_key=KEY)) as server:
        repo = make_project(tmp_path, server.base_url)
        monkeypatch.chdir(repo)
        run_predict(repo)
        assert main(["cache", "why", "-m", "local-m", "-s", "llm"]) == 0
        assert f"{N} of {N} requests cached" in capsys.readouterr().out

        models = yaml.safe_load((repo / "models.yaml").read_text())
        models["models"]["local-m"]["n_hints"] = 2
        models["models"]["local-m"]["temperature"] = 0.2
        (repo / "models.yaml").write_text(yaml.safe_dump(models))
        assert main(["cache", "why", "-m", "local-m", "-s", "llm"]) == 0
        out = capsys.readouterr().out
        assert f"0 of {N} requests cached" in out
        assert "nearest cached request (same label" in out
        assert "body.messages[0].content" in out and "Second hint" in out
        assert "body.temperature: cached '<absent>' -> now 0.2" in out

        assert main(["cache", "stats"]) == 0
        stats = capsys.readouterr().out
        assert "local-model-1" in stats and f"{N:>8}" in stats
        key = next(iter((repo / ".sideways/cache").glob("??/*.json"))).stem
        assert main(["cache", "show", key[:10]]) == 0
        assert '"label": "predict/local-m/' in capsys.readouterr().out


def test_forget_errors_lets_a_rejected_request_be_asked_again(tmp_path, monkeypatch, capsys):
    with FakeServer(Behaviour(expected_key=KEY, plan={"[R001]": ["400", "ok"]})) as server:
        repo = make_project(tmp_path, server.base_url)
        monkeypatch.chdir(repo)
        assert run_predict(repo)["status"].tolist()[:2] == ["ok", "api_error"]
        assert run_predict(repo)["status"].tolist()[:2] == ["ok", "api_error"]  # the rejection is cached
        assert main(["cache", "forget-errors"]) == 0
        assert "dropped 1 cached rejection" in capsys.readouterr().out
        assert run_predict(repo)["status"].tolist()[:2] == ["ok", "ok"]
        assert server.fake.requests == N + 1


def test_dry_run_says_what_a_cascade_is_expected_not_to_send(tmp_path, monkeypatch, capsys):
    with FakeServer(Behaviour(expected_key=KEY)) as server:
        repo = make_project(tmp_path, server.base_url)
        params = yaml.safe_load((repo / "params.yaml").read_text())
        pool = params["jury"]["pool"]
        pool["judge-c"] = {**pool["judge-b"], "provider": "judgeco-c", "name": "judge-c-1"}
        params["jury"].update(judges=3, cascade={"first": 2, "order": ["judge-c", "judge-a"]})
        params["prices"]["judge-b-1"] = {"input_per_mtok": 2.0, "output_per_mtok": 8.0}
        (repo / "params.yaml").write_text(yaml.safe_dump(params))
        monkeypatch.chdir(repo)
        assert main(["dry-run"]) == 0
        out = capsys.readouterr().out
        assert server.fake.requests == 0
        lines = out.splitlines()
        at = lines.index(f"jury.cascade: {N} of the requests above go to later judges only where the first 2 disagree;")
        assert lines[at + 1].startswith(f"  expected not sent: {round(N * 0.96)} requests and $")
        assert "96.0% settled, as on real judges" in lines[at + 1] and max(len(line) for line in lines) <= 120

        # the model's last judgments on disk: its first judges (judge-c, judge-a) split on 6 of its N predictions
        rows = [judgment_row(riddle_id=f"R{i:03d}", model="local-m", judge=judge, judge_provider=f"judgeco-{judge[-1]}",
                             is_answer_correct=verdict, is_justification_correct=verdict, both_correct=verdict,
                             status="ok", error=None, raw=None)
                for i in range(N) for judge, verdict in (("judge-c", True), ("judge-a", i >= 6))]
        write_table(pd.DataFrame(rows), JUDGMENTS, repo / "data/judgments/llm/local-m.parquet")
        assert main(["dry-run"]) == 0
        saved = next(line for line in capsys.readouterr().out.splitlines() if "expected not sent" in line)
        assert saved.startswith(f"  expected not sent: {N - 6} requests and $") and "last run's share settled" in saved

        params["jury"]["cascade"] = {"first": 0}
        (repo / "params.yaml").write_text(yaml.safe_dump(params))
        assert main(["dry-run"]) == 0
        assert "jury.cascade" not in capsys.readouterr().out
