"""The judge stage under ``jury.cascade`` when the first judges settle every prediction: no second round at all."""

from __future__ import annotations

import subprocess
import sys

import yaml

from helpers.model_project import N, env_for, make_project
from sideways.artifacts.io import read_table
from sideways.artifacts.schema import JUDGMENTS
from sideways.testing.openai_server import Behaviour, FakeServer


def run_stage(repo, name: str) -> None:
    subprocess.run([sys.executable, f"stages/{name}.py"], cwd=repo, env=env_for(repo), check=True,
                   capture_output=True, text=True, timeout=300)


def test_a_cascade_whose_first_judges_all_agree_sends_its_later_judge_nothing(tmp_path):
    with FakeServer(Behaviour()) as server, FakeServer(Behaviour()) as later:
        repo = make_project(tmp_path, server.base_url)
        params = yaml.safe_load((repo / "params.yaml").read_text())
        pool = params["jury"]["pool"]
        pool["judge-c"] = {**pool["judge-b"], "provider": "judgeco-c", "name": "judge-c-1", "base_url": later.base_url}
        params["jury"].update(judges=3, cascade={"first": 2})
        (repo / "params.yaml").write_text(yaml.safe_dump(params))
        run_stage(repo, "predict")
        run_stage(repo, "judge")
        assert later.fake.requests == 0  # the fake judges give the same verdicts: every prediction settled
        assert server.fake.requests == 3 * N  # N predictions, then N to each first judge

    table = read_table(repo / "data/judgments/llm/local-m.parquet", JUDGMENTS)
    assert sorted(table["judge"].unique()) == ["judge-a", "judge-b"] and len(table) == 2 * N
