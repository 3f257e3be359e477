"""The annotator audit (sideways.scoring.annotator_audit) on simulated projects of known annotators: a careless one
(justification copied from the answer) is flagged with its evidence, careful ones are not; its label reader takes
any label table without failing."""

from __future__ import annotations

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import ROOT
from helpers.audit_project import sim_params
from sideways.annotation.labels import seeded_sample, simulate_labels
from sideways.annotation.log import replay
from sideways.annotation.rater_labels import event_labels
from sideways.config.params import raw_params
from sideways.scoring.annotator_audit import FLAG_RATIO, audit_annotators, label_rows
from sideways.sources.demo import load_demo
from sideways.testing.annotators import relabel, team
from sideways.testing.coverage import simulate_run, split_riddles


@pytest.fixture(scope="module")
def world() -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """60 riddles of the demo's llm split, every model giving the gold justification to 60% of its right answers
    (so a careless annotator errs on about a quarter of its labels), every prediction labelled: seed 0."""
    _, params = sim_params(("llm",), 0.6)
    riddles = split_riddles(load_demo(ROOT / raw_params(ROOT / "params.yaml")[0]["riddles"]["path"]), "llm", 60)
    predictions, judgments, jury = simulate_run(params, riddles, 0)
    truth = simulate_labels(seeded_sample(predictions, 1.0, 0, "llm"), riddles, 0)
    return jury, judgments, truth


def test_a_careless_annotator_is_flagged_with_its_evidence(world):
    jury, judgments, truth = world
    audits = {a.annotator: a for a in audit_annotators(jury, judgments, relabel(truth, team(), 0, 0.1), seed=0,
                                                       stream="llm")}
    careless = audits["careless-1"]
    assert careless.flagged == ("justification",)
    assert careless.error["justification"].lo > FLAG_RATIO * careless.reference["justification"]
    assert "justification error" in careless.evidence()
    for name in ("careful-1", "careful-2", "careful-3"):
        assert audits[name].flagged == ()
        assert audits[name].error["justification"].hi < careless.error["justification"].lo
    assert careless.double > 0 and careless.agreement["justification"] is not None


def test_a_careful_team_is_not_flagged(world):
    jury, judgments, truth = world
    audits = audit_annotators(jury, judgments, relabel(truth, team(careful=5, careless=0, random=0), 0, 0.1), seed=0,
                              stream="llm")
    assert len(audits) == 5
    assert all(a.flagged == () for a in audits)
    assert all(a.labels > 0 and a.error["answer"].hi < 0.1 for a in audits)


def test_same_inputs_same_audit(world):
    jury, judgments, truth = world
    labels = relabel(truth.head(80), team(), 0, 0.1)
    assert audit_annotators(jury, judgments, labels, seed=3, stream="llm") == \
        audit_annotators(jury, judgments, labels, seed=3, stream="llm")


values = st.one_of(st.none(), st.booleans(), st.integers(), st.text(max_size=3), st.floats(allow_nan=True))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.fixed_dictionaries({"riddle_id": st.text(max_size=4), "model": st.text(max_size=4),
                                       "annotator": st.one_of(st.none(), st.text(max_size=6)),
                                       "human_answer_correct": st.one_of(st.none(), st.booleans()),
                                       "human_justification_correct": st.one_of(st.none(), st.booleans()),
                                       "other": values}), max_size=12))
def test_label_rows_keeps_exactly_the_complete_labels(records):
    out = label_rows(pd.DataFrame(records))
    complete = [r for r in records if r["human_answer_correct"] is not None
                and r["human_justification_correct"] is not None]
    assert len(out) == len(complete)
    assert list(out["annotator"]) == [r["annotator"] or "" for r in complete]
    assert list(out["human_answer_correct"]) == [r["human_answer_correct"] for r in complete]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.fixed_dictionaries({"riddle_id": st.sampled_from(["r1", "r2", "r3"]),
                                       "model": st.sampled_from(["m1", "m2"]),
                                       "annotator": st.sampled_from(["ana", "bob", "<b>x</b>"]),
                                       "action": st.sampled_from(["label", "label", "skip"]),
                                       "human_answer_correct": values,
                                       "human_justification_correct": values}), max_size=12))
def test_event_labels_reads_any_label_log(records):
    """The label log's surviving labels as the audit reads them: only whole boolean labels, in file order."""
    seen, kept, lines = set(), [], []
    for i, r in enumerate(records):  # the log refuses a second label of one prediction by one annotator
        key = (r["riddle_id"], r["model"], r["annotator"])
        if key not in seen:
            seen.add(key)
            kept.append(r)
            lines.append(i + 1)
    frame = event_labels(replay(kept, lines, "labels.jsonl"))
    whole = [r for r in kept if r["action"] == "label" and isinstance(r["human_answer_correct"], bool)
             and isinstance(r["human_justification_correct"], bool)]
    assert list(frame.columns) == ["riddle_id", "model", "annotator", "human_answer_correct",
                                   "human_justification_correct"]
    assert frame.to_dict("records") == [{k: r[k] for k in frame.columns} for r in whole]
    assert label_rows(frame).shape[0] == len(whole)
