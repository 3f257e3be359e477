"""The measured rule choosing a cascade's first pair per panel (lab.cascade_auto): the full jury's splits a pair
would hide, the labelled rows it would settle against their label, its ties, and the panels it reorders."""

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
