"""An l3score judge in the judge stage, for real: params.yaml, the stage script, the local server."""

from __future__ import annotations

import json
import math
import subprocess
import sys

import yaml

from helpers.model_project import N, env_for, make_project
from sideways.artifacts.io import read_table
from sideways.artifacts.schema import JUDGMENTS
from sideways.testing.openai_server import Behaviour, FakeServer


def run_stage(repo, name: str) -> None:
    proc = subprocess.run([sys.executable, f"stages/{name}.py"],
                          cwd=repo, env=env_for(repo), capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


def test_the_judge_stage_runs_an_l3score_judge_and_keeps_its_scores(tmp_path):
    with FakeServer(Behaviour(top_logprobs={"[R004]": [("Maybe", -0.1), ("I", -2.5)]})) as server:
        repo = make_project(tmp_path, server.base_url)
        params = yaml.safe_load((repo / "params.yaml").read_text())
        params["jury"]["pool"]["judge-b"].update(kind="l3score", threshold=0.5)
        params["prices"]["judge-b-1"] = {"input_per_mtok": 2.0, "output_per_mtok": 8.0}
        (repo / "params.yaml").write_text(yaml.safe_dump(params))
        run_stage(repo, "predict")
        run_stage(repo, "judge")
        sent = server.fake.requests
        run_stage(repo, "judge")
        assert server.fake.requests == sent == 3 * N  # the rerun answered from the cache
        l3_bodies = [b for b in server.fake.bodies if b.get("logprobs")]

    table = read_table(repo / "data/judgments/llm/local-m.parquet", JUDGMENTS)
    l3 = table[table["judge"] == "judge-b"].set_index("riddle_id")
    yes = math.exp(-0.0001) / (math.exp(-0.0001) + math.exp(-9.5))
    assert len(l3_bodies) == N and len(l3) == N
    assert l3.loc["R004", "score"] == 0.0 and not l3.loc["R004", "is_answer_correct"]  # neither Yes nor No
    others = l3.drop(index="R004")
    assert all(abs(s - yes) < 1e-12 for s in others["score"]) and others["is_answer_correct"].all()
    assert l3["both_correct"].isna().all() and table.loc[table["judge"] == "judge-a", "score"].isna().all()
    assert (l3["output_tokens"] == 1).all()
    assert all(abs(c - (i * 2.0 + 8.0) / 1e6) < 1e-15 for c, i in zip(l3["cost_usd"], l3["input_tokens"]))
    answers = [json.loads(line) for line in (repo / "data/answers/judge/llm/local-m.jsonl").read_text().splitlines()]
    assert sum(a["label"].startswith("judge/judge-b/") for a in answers) == N
