"""The annotator audit (sideways.scoring.annotator_audit) on simulated projects of known annotators: a careless one
(justification copied from the answer) is flagged with its evidence, careful ones are not; its label reader takes
any label table without failing."""

from __future__ import annotations

import math
from dataclasses import replace

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
from sideways.scoring.annotator_audit import (
    FLAG_RATIO,
    PAIR_LEVEL,
    Pairs,
    Rate,
    _agreement,
    audit_annotators,
    flag_fields,
    label_rows,
    pair_counts,
    pair_p,
)
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


def _sloppy(truth: pd.DataFrame, flips: int, pairs: int = 25) -> pd.DataFrame:
    """Three careful annotators label every prediction once (a third of them twice), then ``sloppy`` labels
    ``pairs`` of them a second time, its answer label flipped on the first ``flips``."""
    labels = relabel(truth, team(careful=3, careless=0, random=0), 0, 0.3)
    theirs = truth.head(pairs).copy()
    theirs["annotator"] = "sloppy"
    flip = theirs.index[:flips]
    theirs.loc[flip, "human_answer_correct"] = ~theirs.loc[flip, "human_answer_correct"].astype(bool)
    return pd.concat([labels, theirs], ignore_index=True)


def test_three_answer_disagreements_of_35_pairs_are_flagged_where_the_latent_rule_alone_is_not(world):
    """9% answer errors on 35 second labels: the latent interval still reaches down to twice the careful
    annotators' rate (the latent rule, today's alone, does not flag), the double labels do."""
    jury, judgments, truth = world
    audits = {a.annotator: a for a in audit_annotators(jury, judgments, _sloppy(truth, 3, 35), seed=0, stream="llm")}
    sloppy = audits["sloppy"]
    pair = sloppy.pairs["answer"]
    assert (pair.d, pair.n, pair.others_d) == (3, 35, 0) and pair.others_n > 50
    assert pair.p is not None and pair.p < PAIR_LEVEL
    assert pair.against and set(pair.against) <= {"careful-1", "careful-2", "careful-3"}
    assert not sloppy.error["answer"].lo > FLAG_RATIO * sloppy.reference["answer"]  # the latent rule misses it
    assert sloppy.flagged == ("answer",)
    assert f"3/35 double differ, others 0/{pair.others_n}, p=" in sloppy.evidence()
    assert all(audits[f"careful-{i}"].flagged == () for i in (1, 2, 3))  # their pairs with sloppy disagree too


def test_one_disagreement_of_25_is_not_flagged(world):
    jury, judgments, truth = world
    sloppy = next(a for a in audit_annotators(jury, judgments, _sloppy(truth, 1), seed=0, stream="llm")
                  if a.annotator == "sloppy")
    assert sloppy.pairs["answer"].d == 1 and sloppy.pairs["answer"].p is not None
    assert sloppy.pairs["answer"].p > PAIR_LEVEL and sloppy.flagged == ()


def test_pair_counts_read_hand_made_pairs():
    """ana labels r1-r4, bob r1-r3 (disagreeing on r1's answer), cy r2-r4 (disagreeing with ana on r4's
    justification, with bob on r3's answer); each one's pairs with the first other label, the others' among
    themselves."""
    rows = [("r1", "ana", True, True), ("r2", "ana", True, False), ("r3", "ana", False, False),
            ("r4", "ana", True, True), ("r1", "bob", False, True), ("r2", "bob", True, False),
            ("r3", "bob", False, False), ("r2", "cy", True, False), ("r3", "cy", True, False),
            ("r4", "cy", True, False)]
    frame = label_rows(pd.DataFrame([{"riddle_id": r, "model": "m", "annotator": who, "human_answer_correct": a,
                                      "human_justification_correct": j} for r, who, a, j in rows]))
    ana, bob, cy = (pair_counts(frame, n) for n in ("ana", "bob", "cy"))
    assert (ana["answer"].d, ana["answer"].n, ana["answer"].against) == (1, 4, ("bob",))
    assert (ana["answer"].others_d, ana["answer"].others_n) == (1, 2)  # bob and cy on r2, r3
    assert (ana["justification"].d, ana["justification"].against) == (1, ("cy",))
    assert (bob["answer"].d, bob["answer"].n, bob["answer"].others_d, bob["answer"].others_n) == (1, 3, 1, 3)
    assert (cy["answer"].d, cy["answer"].n, cy["justification"].d) == (1, 3, 1)  # r3 vs ana's first label


def test_pair_p_is_the_beta_binomial_tail():
    assert pair_p(0, 0, 0, 0) is None and pair_p(0, 25, 0, 50) == 1.0
    # 25 pairs against Beta(1, 74): P(X >= 3) by hand, the beta-binomial pmf summed
    a, b, n = 1.0, 74.0, 25

    def pmf(k):
        return math.comb(n, k) * math.exp(math.lgamma(k + a) + math.lgamma(n - k + b) - math.lgamma(n + a + b)
                                          - math.lgamma(a) - math.lgamma(b) + math.lgamma(a + b))

    assert pair_p(3, 25, 0, 50) == pytest.approx(sum(pmf(k) for k in range(3, 26)), rel=1e-12)
    assert pair_p(3, 25, 0, 50) < pair_p(2, 25, 0, 50) < pair_p(1, 25, 0, 50)
    assert pair_p(3, 25, 10, 50) > pair_p(3, 25, 0, 50)  # others that disagree often: less surprising


def test_the_pair_rule_flags_only_on_the_side_the_latent_fit_puts_the_errors():
    low, high = Rate(0.01, 0.001, 0.04), Rate(0.05, 0.01, 0.12)
    ref = {"answer": 0.01, "justification": 0.01}
    sure = Pairs(4, 25, 0, 75, 0.001, ("bob",))
    means = {"answer": {"ana": 0.05, "bob": 0.01}, "justification": {"ana": 0.01, "bob": 0.01}}
    quiet = Pairs(0, 25, 0, 75, 1.0)
    assert flag_fields({"answer": high, "justification": low}, ref, {"answer": sure, "justification": quiet},
                       means) == ("answer",)
    means["answer"]["bob"] = 0.2  # bob's errors: ana's disagreements are bob's doing
    assert flag_fields({"answer": high, "justification": low}, ref, {"answer": sure, "justification": quiet},
                       means) == ()
    unsure = replace(sure, p=0.02)
    means["answer"]["bob"] = 0.01
    assert flag_fields({"answer": high, "justification": low}, ref, {"answer": unsure, "justification": quiet},
                       means) == ()


@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["r1", "r2", "r3", "r4"]), st.sampled_from(["ana", "bob", "cy"]),
                          st.booleans(), st.booleans()), max_size=16))
def test_pair_counts_read_any_label_set(records):
    """Any label set: each annotator's pairs are the predictions another labelled too, its disagreements those
    pairs minus the ones agreeing (the agreement share the audit already shows), the others' pairs the
    predictions two others labelled, and the p-value a probability."""
    frame = label_rows(pd.DataFrame([{"riddle_id": r, "model": "m", "annotator": who, "human_answer_correct": a,
                                      "human_justification_correct": j} for r, who, a, j in records]))
    once = frame.drop_duplicates(["riddle_id", "model", "annotator"])
    for name in ("ana", "bob", "cy"):
        pairs = pair_counts(frame, name)
        double, share = _agreement(frame, name)
        mine = set(once.loc[once["annotator"] == name, "riddle_id"])
        others = once[once["annotator"] != name].groupby("riddle_id").size()
        for f, q in pairs.items():
            assert q.n == double == len(mine & set(others.index))
            assert q.d == (0 if share[f] is None else round(q.n * (1 - share[f])))
            assert q.others_n == int((others >= 2).sum()) and 0 <= q.others_d <= q.others_n
            assert (q.p is None) == (q.n == 0) and (q.p is None or 0.0 <= q.p <= 1.0)
            assert len(q.against) <= q.d
