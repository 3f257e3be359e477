"""A cascaded jury end to end through `dvc repro`: its second round sends exactly the escalated predictions.

Three judges, each on a fake OpenAI-compatible server of its own, grade two simulated models under
`jury.cascade: {first: 2, order: [judge-c, judge-a]}`. The fake judges agree on every prediction but on those of
two riddles, where judge-a is scripted to call the answer right and the justification wrong (judge-c, like every
fake judge, gives both fields the same verdict). judge-b must then be sent exactly the predictions judge-c and
judge-a disagree on, once; a forced rerun of the judge stage sends nothing, and the rest of the pipeline (the
latent posterior, which marginalises the verdicts not asked) runs to the leaderboard.
"""

from __future__ import annotations

import json
from contextlib import ExitStack

import pandas as pd
import pytest

from helpers.cascade_project import SPLIT, SPLIT_REPLY, cascade_project
from helpers.harness import executed, new_repo, run
from sideways.testing.openai_server import Behaviour, FakeServer

pytestmark = pytest.mark.slow

KEY = "sk-fake-cascade"


def test_a_cascade_sends_its_second_round_only_the_predictions_its_first_judges_disagree_on(tmp_path):
    behaviours = {"judge-a": Behaviour(replies=dict.fromkeys(SPLIT, SPLIT_REPLY)), "judge-b": Behaviour(),
                  "judge-c": Behaviour()}
    with ExitStack() as stack:
        servers = {k: stack.enter_context(FakeServer(b)) for k, b in behaviours.items()}
        repo = new_repo(tmp_path / "repo", cascade_project({k: s.base_url for k, s in servers.items()}))
        (repo / ".env").write_text(f"LOCAL_LLM_KEY={KEY}\n")
        run(repo, "dvc", "repro")

        judgments = pd.concat([pd.read_parquet(f) for f in sorted((repo / "data/judgments/llm").glob("*.parquet"))])
        predictions = pd.concat([pd.read_parquet(f) for f in sorted((repo / "data/predictions/llm").glob("*.parquet"))])
        riddles = pd.read_parquet(repo / "data/split/llm.parquet")
        verdict = judgments.set_index(["riddle_id", "model", "judge"])[["is_answer_correct", "is_justification_correct"]]
        first = verdict.xs("judge-c", level="judge").merge(verdict.xs("judge-a", level="judge"), left_index=True,
                                                           right_index=True, suffixes=("", "_a"))
        disagree = first[(first["is_answer_correct"] != first["is_answer_correct_a"])
                         | (first["is_justification_correct"] != first["is_justification_correct_a"])]
        split_ids = set(riddles.loc[riddles["title"].isin(SPLIT), "riddle_id"])
        assert {r for r, _ in disagree.index} == split_ids
        assert len(disagree) == 2 * len(split_ids) < len(predictions)  # both models, on those riddles only

        # round one: every prediction to judge-c and judge-a; round two: judge-b gets the disagreements, once each.
        # Two models' identical answers to a riddle are one request body (the cache may answer the second)
        def bodies(rows: pd.DataFrame) -> int:
            return len(rows.drop_duplicates(["riddle_id", "answer", "justification"]))

        escalated = predictions.set_index(["riddle_id", "model"]).loc[disagree.index].reset_index()
        for judge, rows in (("judge-c", predictions), ("judge-a", predictions), ("judge-b", escalated)):
            fake = servers[judge].fake
            assert len(fake.by_body) == bodies(rows) and bodies(rows) <= fake.requests <= len(rows), judge
        assert all(any(t in str(b) for t in SPLIT) for b in servers["judge-b"].fake.bodies)  # only split riddles
        asked_b = judgments[judgments["judge"] == "judge-b"].set_index(["riddle_id", "model"]).index
        assert sorted(asked_b) == sorted(disagree.index)
        assert set(judgments.loc[judgments["judge"] != "judge-b", "judge"].value_counts()) == {len(predictions)}
        assert set(json.loads((repo / "metrics/leaderboard_llm.json").read_text())) == {"atlas-large", "quill-max"}

        sent = {k: s.fake.requests for k, s in servers.items()}
        again = run(repo, "dvc", "repro", "--force", "--single-item", "judge")
        assert "judge" in executed(again)
        assert {k: s.fake.requests for k, s in servers.items()} == sent  # a rerun pays nothing again
