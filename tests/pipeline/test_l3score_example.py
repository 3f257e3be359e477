"""examples/l3score/params.yaml through the real DVC CLI: an L3Score judge on every panel, offline.

The example is not the default pool (it grades answers only, docs/method.md §7), so this test
is what keeps it working: dvc repro on a copy of the project with the example as params.yaml.
"""

from __future__ import annotations

import json

import pandas as pd
import pytest
import yaml

from helpers import ROOT
from helpers.harness import new_repo, repro

pytestmark = pytest.mark.slow

MODELS = ("atlas-large", "nimbus-pro", "quill-max")


def test_the_l3score_example_reproduces_with_graded_answer_votes(tmp_path):
    example = yaml.safe_load((ROOT / "examples/l3score/params.yaml").read_text())

    def use_example(p: dict) -> None:
        p.clear()
        p.update(example, splits=["llm"], models={k: example["models"][k] for k in MODELS})
        p["calibration"]["bootstrap"] = 2000

    repo = new_repo(tmp_path / "repo", use_example)
    assert {"judge", "rank@llm"} <= repro(repo)

    judgments = pd.read_parquet(repo / "data/judgments/llm/nimbus-pro.parquet")
    l3 = judgments[judgments["judge"] == "judge-l3"]
    assert len(l3) == len(pd.read_parquet(repo / "data/split/llm.parquet"))
    ok = l3[l3["status"] == "ok"]
    assert ok["score"].between(0, 1).all() and ok["score"].nunique() == len(ok)
    assert (ok["is_answer_correct"] == (ok["score"] >= 0.5)).all()
    assert l3["is_justification_correct"].isna().all()
    assert judgments.loc[judgments["judge"] != "judge-l3", "score"].isna().all()

    jury = pd.read_parquet(repo / "data/jury/llm.parquet")
    assert (jury["panel"].str.split(",").str[0] == "judge-l3").all()
    assert jury["answer_correct_judges"].max() == 3 and jury["both_correct_judges"].max() == 2
    board = json.loads((repo / "metrics/leaderboard_llm.json").read_text())
    assert set(board) == set(MODELS)
    scores = pd.read_parquet(repo / "data/scores/llm.parquet")
    assert set(scores["field"]) == {"answer_correct"}
