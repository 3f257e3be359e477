"""The measured rules choosing a cascade's first pair per panel (lab.cascade_auto): the full jury's splits a pair
would hide, the labelled rows it would settle against their label, the rows its judges agree on, the judge agreeing
least with the others, their ties, and the panels they reorder."""

from __future__ import annotations

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lab import cascade_auto
from sideways.scoring import cascade


def judgments(rows: dict[tuple[str, str], tuple[bool, ...]], panel: tuple[str, ...]) -> pd.DataFrame:
    """(riddle, model) -> one both-fields verdict per panel judge (True: right on both, False: wrong on both)."""
    return pd.DataFrame([{"riddle_id": r, "model": m, "judge": j, "status": "ok", "is_answer_correct": v,
                          "is_justification_correct": v}
                         for (r, m), vs in rows.items() for j, v in zip(panel, vs, strict=True)])


PANEL = ("ja", "jb", "jc")


def test_a_pair_hides_the_full_jurys_splits_it_agrees_on_and_the_rule_asks_the_pair_hiding_fewest():
    j = judgments({("r1", "m"): (True, True, False),    # ja, jb agree on a 2/3 split: (ja, jb) hides it
                   ("r2", "m"): (True, True, False),
                   ("r3", "m"): (False, True, True),    # jb, jc hide it
                   ("r4", "m"): (True, True, True)}, PANEL)
    counts = {c.pair: c for c in cascade_auto.pair_counts(j, {"m": PANEL}, pd.DataFrame())[PANEL]}
    assert counts[("ja", "jb")].hidden == 2 and counts[("jb", "jc")].hidden == 1 and counts[("ja", "jc")].hidden == 0
    assert counts[("ja", "jc")].escalated == 3  # it disagrees on r1, r2, r3: the most calls of the three
    assert cascade_auto.choose(list(counts.values()), "splits").pair == ("ja", "jc")


def test_ties_go_to_the_pair_escalating_fewest_then_to_the_panels_order():
    j = judgments({("r1", "m"): (True, False, True), ("r2", "m"): (True, True, True)}, PANEL)
    counts = cascade_auto.pair_counts(j, {"m": PANEL}, pd.DataFrame())[PANEL]
    assert [c.hidden for c in counts] == [0, 1, 0]  # (ja, jb), (ja, jc), (jb, jc): r1's split hidden by (ja, jc)
    assert cascade_auto.choose(counts, "splits").pair == ("ja", "jb")  # 1 escalated, like (jb, jc): the first
    with pytest.raises(ValueError, match="rule is one of"):
        cascade_auto.choose(counts, "cheapest")


def test_the_labels_rule_counts_the_labelled_rows_a_pair_settles_against_their_label():
    j = judgments({("r1", "m"): (True, True, False), ("r2", "m"): (False, False, True),
                   ("r3", "m"): (True, False, False)}, PANEL)
    labels = pd.DataFrame({"riddle_id": ["r1", "r2", "r3"], "model": "m", "human_both_correct": [False, False, True]})
    counts = {c.pair: c for c in cascade_auto.pair_counts(j, {"m": PANEL}, labels)[PANEL]}
    assert counts[("ja", "jb")].contradicted == 1  # r1 settled right, labelled wrong; r2 settled wrong, as labelled
    assert counts[("jb", "jc")].contradicted == 1  # r3 settled wrong, labelled right
    assert counts[("ja", "jc")].contradicted == 0
    assert cascade_auto.choose(list(counts.values()), "labels").pair == ("ja", "jc")


def test_each_panel_gets_its_own_pair_and_every_model_of_it_the_same_order():
    other = ("jb", "jc", "jd")
    j = pd.concat([judgments({("r1", "m1"): (True, True, False), ("r1", "m2"): (True, True, False)}, PANEL),
                   judgments({("r1", "n"): (True, True, False)}, other)], ignore_index=True)
    panels = {"m1": PANEL, "m2": PANEL, "n": other}
    chosen = cascade_auto.chosen_panels(j, panels, pd.DataFrame(), "splits")
    assert chosen["m1"] == chosen["m2"] == ("ja", "jc", "jb")  # (ja, jc) hides nothing; the rest in panel order
    assert chosen["n"] == ("jb", "jd", "jc")  # (jb, jc) hides n's split
    assert all(sorted(chosen[m]) == sorted(panels[m]) for m in panels)  # it orders the panel, never changes it


def verdicts(rows: dict[tuple[str, str], dict[str, tuple[bool, bool]]]) -> pd.DataFrame:
    """(riddle, model) -> judge -> (answer, justification) verdict."""
    return pd.DataFrame([{"riddle_id": r, "model": m, "judge": j, "status": "ok", "is_answer_correct": a,
                          "is_justification_correct": b} for (r, m), vs in rows.items() for j, (a, b) in vs.items()])


def test_the_agree_rule_asks_the_pair_agreeing_most_on_the_field_even_where_their_codes_differ():
    t, f, half = (True, True), (False, False), (True, False)  # half: right answer, wrong justification
    j = verdicts({("r1", "m"): {"ja": half, "jb": t, "jc": f},      # ja, jc agree on both_correct (False), codes differ
                  ("r2", "m"): {"ja": t, "jb": f, "jc": t},         # ja, jc agree
                  ("r3", "m"): {"ja": f, "jb": f, "jc": t},         # ja, jb agree
                  ("r4", "m"): {"ja": t, "jb": t, "jc": t}})
    counts = {c.pair: c for c in cascade_auto.pair_counts(j, {"m": PANEL}, pd.DataFrame())[PANEL]}
    assert {p: c.agreed for p, c in counts.items()} == {("ja", "jb"): 2, ("ja", "jc"): 3, ("jb", "jc"): 1}
    assert counts[("ja", "jc")].escalated == 2  # r1 is agreed on the field but not settled (its codes differ)
    assert cascade_auto.choose(list(counts.values()), "agree").pair == ("ja", "jc")
    assert cascade_auto.choose(list(counts.values()), "splits").pair != ("ja", "jc")  # it hides r2's split
    tied = verdicts({("r1", "m"): {"ja": t, "jb": f, "jc": f}, ("r2", "m"): {"ja": t, "jb": t, "jc": f}})
    assert cascade_auto.chosen_panels(tied, {"m": PANEL}, pd.DataFrame(), "agree")["m"] == ("ja", "jb", "jc")


def outlier_frame() -> tuple[pd.DataFrame, dict[str, tuple[str, ...]]]:
    """Model m (panel ja, jb, jc): ja and jc always agree, jb on half the rows; model n (panel jb, jc, jd): jb and jd
    always agree, jc never. Mean agreement: ja 0.75, jb 0.58, jc 0.42 (the outlier), jd 0.5."""
    t, f = (True, True), (False, False)
    rows = {(f"r{i}", "m"): {"ja": t, "jb": t if i < 2 else f, "jc": t} for i in range(4)}
    rows |= {(f"r{i}", "n"): {"jb": t, "jc": f, "jd": t} for i in range(4)}
    return verdicts(rows), {"m": PANEL, "n": ("jb", "jc", "jd")}


def test_judge_agreement_is_each_judges_mean_agreement_with_every_judge_it_shares_rows_with():
    j, _ = outlier_frame()
    got = cascade_auto.judge_agreement(j)
    assert got == pytest.approx({"ja": (0.5 + 1) / 2, "jb": (0.5 + 0.25 + 1) / 3, "jc": (1 + 0.25 + 0) / 3,
                                 "jd": (1 + 0) / 2})  # ja and jd share no row: left out of each other's mean
    assert cascade_auto.outlier(j) == "jc"
    t = (True, True)
    even = verdicts({("r1", "m"): {"ja": t, "jb": t, "jc": t}})
    assert cascade_auto.outlier(even) == "jc"  # a tie goes to the later judge by name
    assert cascade_auto.outlier(even.iloc[:0]) is None


def test_the_outlier_rule_keeps_the_least_agreeing_judge_out_of_every_first_pair():
    j, panels = outlier_frame()
    agree = cascade_auto.chosen_panels(j, panels, pd.DataFrame(), "agree")
    assert agree["m"][:2] == ("ja", "jc")  # the panel's most agreeing pair has the outlier in it
    chosen = cascade_auto.chosen_panels(j, panels, pd.DataFrame(), "outlier")
    assert chosen == {"m": ("ja", "jb", "jc"), "n": ("jb", "jd", "jc")}
    counts = cascade_auto.pair_counts(j, {"n": panels["n"]}, pd.DataFrame())[("jb", "jc", "jd")]
    assert cascade_auto.choose(counts, "outlier", avoid="jz").pair == ("jb", "jd")  # no pair has it: the agree pair


def test_narrowest_asks_each_panel_the_pair_giving_the_smallest_width_given_the_pairs_chosen_before():
    panels = {"m": PANEL, "n": ("jb", "jc", "jd")}
    cost = {"m": {("ja", "jb"): 2.0, ("ja", "jc"): 1.0, ("jb", "jc"): 3.0},
            "n": {("jb", "jc"): 1.0, ("jb", "jd"): 1.0, ("jc", "jd"): 0.5}}
    tried: list[dict[str, tuple[str, ...]]] = []
    def width(trial: dict[str, tuple[str, ...]]) -> float:
        tried.append(trial)
        extra = 5.0 if trial["m"][:2] == ("ja", "jc") and trial["n"][:2] == ("jc", "jd") else 0.0  # jc twice: wide
        return sum(cost[m][p[:2]] for m, p in trial.items()) + extra
    chosen = cascade_auto.narrowest(panels, width)
    assert chosen == {"m": ("ja", "jc", "jb"), "n": ("jb", "jc", "jd")}  # n's (jc, jd) is wide beside m's (ja, jc)
    assert len(tried) == 6 and all(t["n"] == panels["n"] for t in tried[:3])  # m first, n at its own order
    assert cascade_auto.narrowest(panels, lambda trial: 1.0) == panels  # ties: the panel's own order


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.booleans(), st.booleans(), st.booleans()), min_size=1, max_size=15))
def test_the_hidden_splits_are_exactly_the_splits_a_cascade_of_that_pair_turns_unanimous(grid):
    j = judgments({(f"r{i}", "m"): v for i, v in enumerate(grid)}, PANEL)
    for c in cascade_auto.pair_counts(j, {"m": PANEL}, pd.DataFrame())[PANEL]:
        order = (*c.pair, *(x for x in PANEL if x not in c.pair))
        kept = cascade.drop_unasked(j, {"m": order}, 2)
        n = kept.groupby("riddle_id")["is_answer_correct"].agg(["sum", "size"])
        full = j.groupby("riddle_id")["is_answer_correct"].agg(["sum", "size"])
        split = (full["sum"] > 0) & (full["sum"] < full["size"])
        unanimous = (n["sum"] == 0) | (n["sum"] == n["size"])
        assert c.hidden == int((split & unanimous).sum())
        assert c.escalated == int((n["size"] == 3).sum())
