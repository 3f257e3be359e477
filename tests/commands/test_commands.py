"""``sideways dry-run`` and ``sideways cache``: what would be sent, what it costs, why it missed."""

from __future__ import annotations

import yaml

from helpers.model_project import KEY, N, make_project
from sideways.artifacts.io import read_table
from sideways.artifacts.schema import RIDDLES
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
