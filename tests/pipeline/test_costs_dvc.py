"""Each model's cost against the full design, through `dvc repro` on fake OpenAI-compatible judges.

Two simulated models on llm, three priced judges each on a fake server of its own, under a 2+1 cascade
(`jury.cascade: {first: 2, order: [judge-c, judge-a]}`); judge-a splits from judge-c on two riddles, so judge-b is
asked only those. Before anything is sent, `sideways dry-run` prints the full design (every judge on every
prediction) against this one; after `dvc repro`, `sideways show` and the report give each model's answers and
verdicts in USD, the verdicts judge-b was not asked at what its verdicts cost, and the full design, from the same
tables: the figures are recomputed here from the judgments and the fake servers' counts.
"""

from __future__ import annotations

import json
import re
from contextlib import ExitStack

import pandas as pd
import pytest

from helpers.cascade_project import SPLIT, SPLIT_REPLY, cascade_project
from helpers.harness import new_repo, run
from sideways.testing.openai_server import Behaviour, FakeServer

pytestmark = pytest.mark.slow

KEY = "sk-fake-costs"
PRICES = {"judge-a-1": {"input_per_mtok": 1.0, "output_per_mtok": 2.0},
          "judge-b-1": {"input_per_mtok": 30.0, "output_per_mtok": 60.0},
          "judge-c-1": {"input_per_mtok": 0.5, "output_per_mtok": 1.0}}


def money(text: str) -> float:
    return float(text.replace("$", "").replace(",", ""))


def test_the_dry_run_show_and_the_report_give_each_models_cost_and_what_the_cascade_saved(tmp_path):
    behaviours = {"judge-a": Behaviour(replies=dict.fromkeys(SPLIT, SPLIT_REPLY)), "judge-b": Behaviour(),
                  "judge-c": Behaviour()}
    with ExitStack() as stack:
        servers = {k: stack.enter_context(FakeServer(b)) for k, b in behaviours.items()}
        repo = new_repo(tmp_path / "repo", cascade_project({k: s.base_url for k, s in servers.items()}, PRICES))
        (repo / ".env").write_text(f"LOCAL_LLM_KEY={KEY}\n")
        run(repo, "dvc", "repro", "split")

        # before anything is sent: the plan (every judge on every prediction) is the full design
        dry = run(repo, "sideways", "dry-run").stdout
        print(dry)
        assert all(s.fake.requests == 0 for s in servers.values())
        assert max(len(line) for line in dry.splitlines()) <= 120
        total = money(re.search(r"estimated total: (\$[\d,.]+)", dry).group(1))
        skipped = re.search(r"expected not sent: ([\d,]+) requests and (\$[\d,.]+)", dry)
        full = re.search(r"full design \(.*\): ([\d,]+) requests, (\$[\d,.]+) to send", dry)
        this = re.search(r"this design: ([\d,]+) requests, (\$[\d,.]+) \(jury\.cascade -([\d,]+) requests "
                         r"-(\$[\d,.]+)\)", dry)
        assert skipped and full and this, dry
        planned = int(full.group(1).replace(",", ""))
        b_planned = int(next(x for x in dry.splitlines() if x.startswith("judge-b-co")).split()[2])  # its requests
        assert money(full.group(2)) == total and int(this.group(3).replace(",", "")) == int(skipped.group(1))
        assert int(this.group(1).replace(",", "")) == planned - int(skipped.group(1)) > 0
        assert money(this.group(2)) == pytest.approx(total - money(skipped.group(2)), abs=1e-4)
        assert money(this.group(4)) == money(skipped.group(2)) > 0

        run(repo, "dvc", "repro")
        judgments = pd.concat([pd.read_parquet(f) for f in sorted((repo / "data/judgments/llm").glob("*.parquet"))])
        predictions = pd.concat([pd.read_parquet(f) for f in sorted((repo / "data/predictions/llm").glob("*.parquet"))])
        annotations = pd.read_parquet(repo / "data/annotations/llm.parquet")
        b = judgments[judgments["judge"] == "judge-b"]
        per_verdict = b["cost_usd"].mean()  # what a verdict of judge-b cost on llm
        assert per_verdict > 0

        shown = run(repo, "sideways", "show").stdout
        print(shown)
        assert max(len(line) for line in shown.splitlines()) <= 120
        table = shown[shown.index("  model "):].splitlines()
        assert "jury.cascade saved" in table[0] and "full design" in table[0]
        summary = json.loads((repo / "report/data/report.js").read_text().removeprefix("window.SIDEWAYS = ")
                             .rstrip().removesuffix(";"))["splits"]["llm"]["analytics"]["design"]
        assert summary["mechanisms"] == ["jury.cascade"] and summary["labels"] == len(annotations) > 0
        assert f"labels on llm: {len(annotations):,} (a person's time, not USD" in shown
        report = {m["model"]: m for m in summary["models"]}
        not_asked = 0
        for model in ("atlas-large", "quill-max"):
            mine = judgments[judgments["model"] == model]
            settled = len(predictions[predictions["model"] == model]) - int((b["model"] == model).sum())
            answers = predictions.loc[predictions["model"] == model, "cost_usd"].fillna(0).sum()
            verdicts = mine["cost_usd"].sum()
            saved = settled * per_verdict
            not_asked += settled
            row = next(line.split() for line in table if line.split()[:1] == [model])
            assert row == [model, f"${answers:,.4f}", f"${verdicts:,.4f}", f"${answers + verdicts:,.4f}",
                           f"{settled:,}", "calls", f"${saved:,.4f}", f"${answers + verdicts + saved:,.4f}"], row
            assert report[model]["judge_usd"] == pytest.approx(verdicts, abs=1e-6)
            assert report[model]["saved"] == [{"mechanism": "jury.cascade", "requests": settled,
                                               "usd": pytest.approx(saved, abs=1e-6)}]
            assert report[model]["full_usd"] == pytest.approx(answers + verdicts + saved, abs=1e-6)
        # judge-b was asked the split riddles' predictions, and what it was not asked is the rest of what the dry run
        # planned for it: the full design
        assert len(b) == 2 * len(SPLIT) and servers["judge-b"].fake.requests >= 1
        assert not_asked + len(b) == b_planned
