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
from lab.annotators import relabel, team
from lab.coverage import simulate_run, split_riddles
from sideways.annotation.labels import seeded_sample, simulate_labels
from sideways.annotation.log import replay
from sideways.annotation.rater_labels import event_labels
from sideways.config.params import raw_params
from sideways.scoring.annotator_audit import (
    FIELDS,
    FLAG_RATIO,
    PAIR_LEVEL,
    Pairs,
    Rate,
    _agreement,
    audit_annotators,
    charges,
    flag_fields,
    label_rows,
    pair_p,
    pair_tests,
)
from sideways.sources.demo import load_demo


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
    assert (pair.d, pair.n) == (3, 35) and pair.charged > 2.5 and pair.others_d < 0.5 and pair.others_n > 50
    assert pair.p is not None and pair.p < PAIR_LEVEL
    assert pair.against and set(pair.against) <= {"careful-1", "careful-2", "careful-3"}
    assert not sloppy.error["answer"].lo > FLAG_RATIO * sloppy.reference["answer"]  # the latent rule misses it
    assert sloppy.flagged == ("answer",)
    assert f"3/35 double differ, {pair.charged:.1f} its errors, others {pair.others_d:.1f}/{pair.others_n}, p=" \
        in sloppy.evidence()
    assert all(audits[f"careful-{i}"].flagged == () for i in (1, 2, 3))  # their pairs with sloppy disagree too


def _behind(truth: pd.DataFrame) -> pd.DataFrame:
    """noisy labels 35 predictions first, its answer flipped on 10 of them; sloppy labels them second, its answer
    flipped on 3 others; careful-1 labels them third; three careful annotators label the rest (a third twice)."""
    head = truth.head(35)

    def by(name: str, flipped: range) -> pd.DataFrame:
        out = head.copy()
        out["annotator"] = name
        at = out.index[list(flipped)]
        out.loc[at, "human_answer_correct"] = ~out.loc[at, "human_answer_correct"].astype(bool)
        return out

    rest = relabel(truth.iloc[35:], team(careful=3, careless=0, random=0), 0, 0.3)
    return pd.concat([by("noisy", range(5, 15)), rest, by("sloppy", range(3)), by("careful-1", range(0))],
                     ignore_index=True)


def test_a_sloppy_annotator_paired_with_a_noisier_one_is_flagged(world):
    """sloppy's 3 answer errors in 35: its first partner is noisy (13 disagreements, 10 of them noisy's errors,
    and noisy's latent mean the higher), so the rule that asked the flagged one to be above every partner let it
    hide; each disputed label charged where the other labels and the judges put the error, it is flagged, and
    careful-1, who disagreed with both, is not."""
    jury, judgments, truth = world
    audits = {a.annotator: a for a in audit_annotators(jury, judgments, _behind(truth), seed=0, stream="llm")}
    sloppy, noisy = audits["sloppy"].pairs["answer"], audits["noisy"].pairs["answer"]
    assert (sloppy.d, sloppy.n) == (13, 35) and "noisy" in sloppy.against
    assert sloppy.charged == pytest.approx(3, abs=0.2) and noisy.charged == pytest.approx(10, abs=0.2)
    assert audits["noisy"].error["answer"].mean > audits["sloppy"].error["answer"].mean
    assert audits["sloppy"].flagged == ("answer",) and audits["noisy"].flagged == ("answer",)
    assert audits["careful-1"].pairs["answer"].d == 13 and audits["careful-1"].pairs["answer"].charged < 0.2
    assert all(audits[f"careful-{i}"].flagged == () for i in (1, 2, 3))


def test_one_disagreement_of_25_is_not_flagged(world):
    jury, judgments, truth = world
    sloppy = next(a for a in audit_annotators(jury, judgments, _sloppy(truth, 1), seed=0, stream="llm")
                  if a.annotator == "sloppy")
    assert sloppy.pairs["answer"].d == 1 and sloppy.pairs["answer"].p is not None
    assert sloppy.pairs["answer"].p > PAIR_LEVEL and sloppy.flagged == ()


def _frame(rows):
    return label_rows(pd.DataFrame([{"riddle_id": r, "model": "m", "annotator": who, "human_answer_correct": a,
                                     "human_justification_correct": j} for r, who, a, j in rows]))


def _truth(answer: dict[str, float], justification: float = 0.5) -> pd.DataFrame:
    return pd.DataFrame([{"riddle_id": r, "model": "m", FIELDS["answer"]: p, FIELDS["justification"]: justification}
                         for r, p in answer.items()])


def test_charges_read_hand_made_labels():
    """r1: ana and bob differ on the answer, the judges 90% for right (ana's); r2: bob alone against ana and cy
    (a third label settles it, the judges undecided); r3: all agree; r4: ana alone labelled it."""
    frame = _frame([("r1", "ana", True, True), ("r1", "bob", False, True), ("r2", "ana", True, False),
                    ("r2", "bob", False, False), ("r2", "cy", True, False), ("r3", "ana", True, True),
                    ("r3", "cy", True, True), ("r4", "ana", False, False), ("r1", "ana", False, False)])
    got = charges(frame, _truth({"r1": 0.9, "r2": 0.5, "r3": 0.5, "r4": 0.5})).set_index(["riddle_id", "annotator"])
    assert len(got) == 7  # ana's second label of r1 and the single r4 are not charged
    assert got.loc[("r1", "ana"), "answer_charge"] == pytest.approx(0.1)
    assert got.loc[("r1", "bob"), "answer_charge"] == pytest.approx(0.9)
    assert got.loc[("r2", "bob"), "answer_charge"] == pytest.approx(1 / (1 + 0.02 / 0.98))  # 2 against 1
    assert got.loc[("r2", "ana"), "answer_charge"] == got.loc[("r2", "cy"), "answer_charge"] == \
        pytest.approx(1 - 1 / (1 + 0.02 / 0.98))
    assert not got.loc[("r3", "ana"), "answer_differ"] and got.loc[("r3", "ana"), "answer_charge"] == 0.0
    assert not got["justification_differ"].any() and (got["justification_charge"] == 0).all()


def _team_with(bad: list[tuple[str, str, bool, bool]], predictions: int = 120) -> pd.DataFrame:
    """Three careful annotators, each prediction labelled by two of them (they agree: the truth, answer right),
    and the ``bad`` labels on top."""
    rows = []
    for i in range(predictions):
        for who in (f"c{i % 3}", f"c{(i + 1) % 3}"):
            rows.append((f"r{i}", who, True, True))
    return _frame(rows + bad)


def test_a_careless_annotator_is_charged_past_a_random_one_its_careful_partners_are_not():
    """careless errs on 4 of its 30 second labels; random on 20 of its 30, four of them on the same predictions
    (random right there), judges undecided (0.5) everywhere. The rule before charged nothing and tested every pair:
    careless disagreed with random, whose latent mean was the higher, so it was not flagged; and random's
    disagreements among the others' pairs widened careless's reference. Now: a label outvoted 2 or 3 to 1 is
    charged, random is suspect and left out of careless's reference, careless and random are flagged, the careful
    are charged nothing they did not do and are not flagged."""
    careless = [(f"r{i}", "careless", bool(i >= 4), True) for i in range(30)]
    random = [(f"r{i}", "random", bool(i < 4 or i >= 20), True) for i in range(30)]
    frame = _team_with(careless + random)
    tests = pair_tests(frame, _truth({f"r{i}": 0.5 for i in range(120)}))
    bad = tests["careless"]["answer"]
    assert (bad.d, bad.n) == (20, 30)  # it differs from random on 16 of them and is wrong on 4
    assert bad.charged == pytest.approx(4, abs=0.01)
    assert "random" in bad.against
    assert bad.others_d < 0.5 and bad.others_n == 240  # the careful labels only: random left out
    assert bad.p is not None and bad.p < PAIR_LEVEL
    assert tests["random"]["answer"].charged == pytest.approx(16, abs=0.01)
    assert tests["random"]["answer"].p < PAIR_LEVEL
    for c in ("c0", "c1", "c2"):
        q = tests[c]["answer"]
        assert q.d > 0 and q.charged < 0.05 and q.p is not None and q.p > 0.5
    rate = Rate(0.02, 0.005, 0.1)
    error, ref = {"answer": rate, "justification": rate}, {"answer": 0.02, "justification": 0.02}
    assert flag_fields(error, ref, tests["careless"]) == ("answer",)
    assert flag_fields(error, ref, tests["c0"]) == ()


def test_a_pair_the_judges_settle_is_charged_to_the_wrong_side():
    """ana and bob alone on 40 predictions; they differ on 5, where the judges put ana's answer 95% wrong."""
    rows = [(f"r{i}", "ana", bool(i >= 5), True) for i in range(40)] + [(f"r{i}", "bob", True, True) for i in range(40)]
    rows += [(f"s{i}", w, True, True) for i in range(40) for w in ("cy", "dee")]  # the reference: agreeing pairs
    truth = _truth({**{f"r{i}": 0.95 for i in range(40)}, **{f"s{i}": 0.95 for i in range(40)}})
    tests = pair_tests(_frame(rows), truth)
    assert tests["ana"]["answer"].charged == pytest.approx(5 * 0.95)
    assert tests["ana"]["answer"].p < PAIR_LEVEL
    assert tests["bob"]["answer"].charged == pytest.approx(5 * 0.05) and tests["bob"]["answer"].p > 0.5


def test_pair_p_is_the_beta_binomial_tail():
    assert pair_p(0, 0, 0, 0) is None and pair_p(0, 25, 0, 50) == 1.0
    # 25 labels against Beta(1, 99) (the prior Beta(1, 49) and 0 of 50): P(X >= 3) by hand, the pmf summed
    a, b, n = 1.0, 99.0, 25

    def pmf(k):
        return math.comb(n, k) * math.exp(math.lgamma(k + a) + math.lgamma(n - k + b) - math.lgamma(n + a + b)
                                          - math.lgamma(a) - math.lgamma(b) + math.lgamma(a + b))

    assert pair_p(3, 25, 0, 50) == pytest.approx(sum(pmf(k) for k in range(3, 26)), rel=1e-12)
    assert pair_p(3, 25, 0, 50) < pair_p(2, 25, 0, 50) < pair_p(1, 25, 0, 50)
    assert pair_p(3, 25, 10, 50) > pair_p(3, 25, 0, 50)  # others that disagree often: less surprising


def test_the_pair_rule_flags_on_the_charged_p_value():
    low, high = Rate(0.01, 0.001, 0.04), Rate(0.05, 0.01, 0.12)
    ref = {"answer": 0.01, "justification": 0.01}
    sure = Pairs(4, 25, 0.0, 75, 0.001, ("bob",), 4.0)
    quiet = Pairs(0, 25, 0.0, 75, 1.0)
    assert flag_fields({"answer": high, "justification": low}, ref, {"answer": sure, "justification": quiet}) == \
        ("answer",)
    unsure = replace(sure, p=0.02)
    assert flag_fields({"answer": high, "justification": low}, ref, {"answer": unsure, "justification": quiet}) == ()


@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["r1", "r2", "r3", "r4"]), st.sampled_from(["ana", "bob", "cy"]),
                          st.booleans(), st.booleans()), max_size=16),
       st.lists(st.floats(0.0, 1.0), min_size=4, max_size=4))
def test_pair_tests_read_any_label_set(records, judged):
    """Any label set: each annotator's double labels are those on predictions another labelled too, its
    disagreements those where the agreement share the audit shows says they differ, every disputed label charged a
    probability, the two charges of a two-label dispute summing to one, and the p-value a probability."""
    frame = label_rows(pd.DataFrame([{"riddle_id": r, "model": "m", "annotator": who, "human_answer_correct": a,
                                      "human_justification_correct": j} for r, who, a, j in records]))
    truth = _truth(dict(zip(["r1", "r2", "r3", "r4"], judged, strict=True)), judged[0])
    got = charges(frame, truth)
    tests = pair_tests(frame, truth) if len(frame) else {}
    once = frame.drop_duplicates(["riddle_id", "model", "annotator"])
    for f in FIELDS:
        assert ((got[f"{f}_charge"] >= 0) & (got[f"{f}_charge"] <= 1)).all()
        assert (got.loc[~got[f"{f}_differ"], f"{f}_charge"] == 0).all()
        two = got.groupby("riddle_id").filter(lambda g: len(g) == 2)
        sums = two[two[f"{f}_differ"]].groupby("riddle_id")[f"{f}_charge"].sum()
        assert sums.to_numpy() == pytest.approx([1.0] * len(sums))
    for name, per in tests.items():
        double, _ = _agreement(frame, name)
        mine = set(once.loc[once["annotator"] == name, "riddle_id"])
        others = set(once.loc[once["annotator"] != name, "riddle_id"])
        for q in per.values():
            assert q.n == double == len(mine & others)
            assert 0 <= q.charged <= q.d <= q.n and 0 <= q.others_d <= q.others_n
            assert (q.p is None) == (q.n == 0) and (q.p is None or 0.0 <= q.p <= 1.0)
            assert (len(q.against) > 0) == (q.d > 0)
