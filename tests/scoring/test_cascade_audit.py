"""The raters' audit under a cascaded jury (``jury.cascade``): a later judge's verdict the cascade did not ask is
not asked, not "no verdict", so each judge's rates come from the rows it was asked and the fit behind them does not
read the first judges' agreement a second time (docs/method.md §2, "A cascaded jury")."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from helpers import ROOT
from helpers.audit_project import sim_params
from lab.coverage import simulate_run, split_riddles
from sideways.annotation.labels import seeded_sample, simulate_labels
from sideways.config.params import raw_params
from sideways.scoring import cascade
from sideways.scoring.jury import jury_table
from sideways.scoring.rater_audit import audit_summary, inputs_digest, judge_audit_table
from sideways.sources.demo import load_demo

FIELDS = {"answer": ("is_answer_correct", "human_answer_correct"),
          "justification": ("is_justification_correct", "human_justification_correct")}


@pytest.fixture(scope="module")
def cascaded() -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """60 riddles of the demo's llm split judged by simulated panels of three, as a 2+1 cascade would have asked
    them (the third judge's verdicts dropped where the first two settle the row); every prediction's truth, and a
    seeded 30% of them labelled: (jury, judgments, labels, truth, predictions)."""
    _, params = sim_params(("llm",), 0.6)
    riddles = split_riddles(load_demo(ROOT / raw_params(ROOT / "params.yaml")[0]["riddles"]["path"]), "llm", 60)
    predictions, judgments, jury = simulate_run(params, riddles, 0)
    truth = simulate_labels(seeded_sample(predictions, 1.0, 0, "llm"), riddles, 0)
    panels = {m: p.split(",") for m, p in zip(jury["model"], jury["panel"], strict=True)}
    asked = cascade.drop_unasked(judgments, panels, 2)
    assert len(asked) < len(judgments)  # the cascade left some verdicts unasked
    labels = truth.sample(frac=0.3, random_state=0).reset_index(drop=True)
    return jury_table(asked, predictions, panels), asked, labels, truth, predictions


def truth_rates(judgments: pd.DataFrame, truth: pd.DataFrame) -> dict[tuple[str, str, str], float]:
    """(judge, field, measure) -> the judge's sensitivity or specificity against the truth, over the rows it was
    asked (and gave a verdict on)."""
    rows = judgments[judgments["status"] == "ok"].merge(truth, on=["riddle_id", "model"])
    out = {}
    for judge, mine in rows.groupby("judge"):
        for field, (said, human) in FIELDS.items():
            there = mine[mine[said].notna()]
            s, y = there[said].astype(bool).to_numpy(), there[human].astype(bool).to_numpy()
            out[(str(judge), field, "sensitivity")] = float((s & y).sum() / y.sum())
            out[(str(judge), field, "specificity")] = float((~s & ~y).sum() / (~y).sum())
    return out


def error(audit: pd.DataFrame, truth: dict[tuple[str, str, str], float]) -> float:
    """Mean absolute distance of the audit's overall estimates from the judges' true rates."""
    overall = audit[audit["group"] == "all"]
    return float(np.mean([abs(r.estimate - truth[(r.judge, r.field, r.measure)]) for r in overall.itertuples()]))


def test_the_judges_audit_of_a_cascade_reads_unasked_verdicts_as_not_asked(cascaded):
    jury, judgments, labels, truth, predictions = cascaded
    rates = truth_rates(judgments, truth)
    told = judge_audit_table(jury, judgments, labels, predictions, seed=0, split="llm", first=2)
    naive = judge_audit_table(jury, judgments, labels, predictions, seed=0, split="llm")  # unasked = "no verdict"
    overall = told[told["group"] == "all"]
    assert set(zip(overall["judge"], overall["field"], overall["measure"], strict=True)) == set(rates)
    for r in overall.itertuples():  # every judge's true rate on the rows it was asked is inside its interval
        assert r.lo <= rates[(r.judge, r.field, r.measure)] <= r.hi
    assert error(told, rates) < error(naive, rates)


def test_the_audit_record_says_which_cascade_it_was_computed_under(cascaded):
    jury, judgments, labels, _, predictions = cascaded
    digests = {first: inputs_digest(jury, judgments, labels, predictions, seed=0, split="llm", first=first)
               for first in (0, 2)}
    assert digests[0] != digests[2]  # a record made without the cascade is not taken for one made with it
    told = audit_summary(jury, judgments, labels, predictions, seed=0, split="llm", first=2)
    assert told["judges"] and told != audit_summary(jury, judgments, labels, predictions, seed=0, split="llm")
