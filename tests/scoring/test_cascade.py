"""The cascade's rule (which predictions the next judges grade), the verdicts it drops from a full jury's table, and
the latent-class evidence that marginalises the verdicts it did not ask instead of reading them as "no verdict"."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lab import cascade_random, cascade_unsure
from sideways.scoring import cascade, latent_class

JUDGES = ("ja", "jb", "jc")
VERDICT = st.sampled_from([None, True, False])


def table(verdicts: dict[tuple[str, str, str], tuple[bool | None, bool | None] | str]) -> pd.DataFrame:
    """Judgments from (riddle, model, judge) -> (answer, justification) verdicts, or a status other than ok."""
    rows = []
    for (rid, model, judge), v in verdicts.items():
        status, (a, j) = ("ok", v) if isinstance(v, tuple) else (v, (None, None))
        rows.append({"riddle_id": rid, "model": model, "judge": judge, "status": status,
                     "is_answer_correct": a, "is_justification_correct": j})
    return pd.DataFrame(rows)


def test_a_row_is_settled_only_when_every_first_judge_gave_the_same_two_verdicts():
    codes = np.array([[4, 4], [0, 0], [4, 1], [4, 8], [5, 5], [-1, 4]])  # 5: answer missing (2) + right justification
    assert cascade.settled_codes(codes).tolist() == [True, True, False, False, False, False]


def test_the_judges_of_a_failed_or_split_first_round_grade_the_row():
    j = table({("r1", "m", "ja"): (True, True), ("r1", "m", "jb"): (True, True),
               ("r2", "m", "ja"): (True, True), ("r2", "m", "jb"): (True, False),
               ("r3", "m", "ja"): (False, False), ("r3", "m", "jb"): "api_error",
               ("r4", "m", "ja"): (False, False)})
    keys = pd.DataFrame({"riddle_id": ["r1", "r2", "r3", "r4"], "model": "m"})
    assert cascade.escalated(j, keys, {"m": ["ja", "jb"]}).tolist() == [False, True, True, True]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(VERDICT, VERDICT, VERDICT, VERDICT, VERDICT, VERDICT), min_size=1, max_size=12))
def test_dropping_unasked_verdicts_keeps_the_first_judges_and_the_next_exactly_where_they_disagree(grid):
    verdicts = {}
    for i, row in enumerate(grid):
        for k, judge in enumerate(JUDGES):
            a, j = row[2 * k], row[2 * k + 1]
            if a is not None or j is not None:  # a judge with no verdict at all has no row
                verdicts[(f"r{i}", "m", judge)] = (a, j)
    full = table(verdicts)
    if full.empty:
        return
    kept = cascade.drop_unasked(full, {"m": list(JUDGES)}, 2)
    for i, row in enumerate(grid):
        first = [row[0:2], row[2:4]]
        settled = all(None not in v for v in first) and first[0] == first[1]
        for k, judge in enumerate(JUDGES):
            present = (f"r{i}", "m", judge) in verdicts
            there = bool(((kept["riddle_id"] == f"r{i}") & (kept["judge"] == judge)).any())
            assert there == (present and (k < 2 or not settled))
    assert cascade.drop_unasked(full, {"m": list(JUDGES)}, 0) is full


def test_the_evidence_leaves_an_unasked_verdict_off_the_pattern_and_keeps_a_failed_one_as_no_verdict():
    j = table({("r1", "m", "ja"): (True, True), ("r1", "m", "jb"): (True, True),  # settled: jc not asked
               ("r2", "m", "ja"): (True, True), ("r2", "m", "jb"): (False, False)})  # split: jc asked, no verdict
    jury = pd.DataFrame({"riddle_id": ["r1", "r2"], "model": "m", "panel": "ja,jb,jc"})
    none = pd.DataFrame(columns=["riddle_id", "model", "human_answer_correct", "human_justification_correct"])
    cascaded = latent_class.table_evidence(jury, j, none, first=2).evidence
    codes = cascaded.pattern_codes[cascaded.pattern]
    assert codes.tolist() == [[4, 4, -1], [4, 0, latent_class.CODES - 1]]
    full = latent_class.table_evidence(jury, j, none).evidence  # no cascade: every missing verdict is "no verdict"
    assert full.pattern_codes[full.pattern][:, 2].tolist() == [latent_class.CODES - 1] * 2


def test_the_order_of_the_panel_names_the_first_judges():
    j = table({("r1", "m", "jc"): (True, True), ("r1", "m", "jb"): (True, True), ("r1", "m", "ja"): (False, False)})
    jury = pd.DataFrame({"riddle_id": ["r1"], "model": "m", "panel": "jc,jb,ja"})  # jc and jb asked first
    none = pd.DataFrame(columns=["riddle_id", "model", "human_answer_correct", "human_justification_correct"])
    ev = latent_class.table_evidence(jury, j, none, first=2).evidence
    assert ev.pattern_codes[ev.pattern].tolist() == [[0, 4, 4]]  # ja's verdict is there, so it is read
    dropped = cascade.drop_unasked(j, {"m": ["jc", "jb", "ja"]}, 2)
    assert sorted(dropped["judge"]) == ["jb", "jc"]


@settings(max_examples=15, deadline=None)
@given(st.lists(st.sampled_from([(True, True), (False, False), (True, False)]), min_size=4, max_size=30),
       st.floats(0.0, 0.9))
def test_the_unsure_rule_escalates_more_rows_and_drops_nothing_the_plain_rule_keeps(pairs, lo):
    """The verdicts-only fit's rule is seeded; the band (0, 1) escalates every row; a cascade with the rule keeps every
    verdict it keeps without it, and the later judge's verdicts on exactly the rows the rule adds."""
    verdicts: dict[tuple[str, str, str], tuple[bool | None, bool | None] | str] = {}
    for i, pair in enumerate(pairs):
        for judge in JUDGES:
            verdicts[(f"r{i}", "m", judge)] = pair
    j = table(verdicts)
    keys = pd.DataFrame({"riddle_id": [f"r{i}" for i in range(len(pairs))], "model": "m"})
    first = {"m": ["ja", "jb"]}
    band = (lo, lo + 0.1)
    up = cascade_unsure.unsure(j, keys, first, band)
    assert up.tolist() == cascade_unsure.unsure(j, keys, first, band).tolist()  # seeded
    assert cascade_unsure.unsure(j, keys, first, (0.0, 1.0)).all()
    plain = cascade.drop_unasked(j, {"m": list(JUDGES)}, 2)
    ruled = cascade.drop_unasked(j, {"m": list(JUDGES)}, 2, cascade_unsure.unsure_rule(band))
    settled = ~cascade.escalated(j, keys, first)
    assert len(ruled) == len(plain) + int((up & settled).sum())
    assert set(map(tuple, plain[["riddle_id", "judge"]].to_numpy())) <= set(map(tuple, ruled[["riddle_id",
                                                                                                  "judge"]].to_numpy()))


@settings(max_examples=30, deadline=None)
@given(st.lists(st.sampled_from([(True, True), (False, False), (True, False)]), min_size=1, max_size=40),
       st.floats(0.0, 1.0), st.floats(0.0, 1.0), st.integers(0, 5))
def test_the_random_rule_escalates_a_seeded_share_of_the_settled_rows_on_top_of_the_plain_rule(pairs, a, b, seed):
    """The coin depends on (seed, riddle, model) only: the same rows in every call; a larger share escalates every row
    a smaller one does; share 0 is the plain cascade and share 1 the full jury; the plain rule's verdicts are all kept."""
    verdicts: dict[tuple[str, str, str], tuple[bool | None, bool | None] | str] = {}
    for i, pair in enumerate(pairs):
        verdicts[(f"r{i}", "m", "ja")] = pair
        verdicts[(f"r{i}", "m", "jb")] = pair if i % 3 else (not pair[0], pair[1])  # every third row split
        verdicts[(f"r{i}", "m", "jc")] = pair
    j = table(verdicts)
    keys = pd.DataFrame({"riddle_id": [f"r{i}" for i in range(len(pairs))], "model": "m"})
    lo, hi = sorted((a, b))
    small, large = cascade_random.random_share(keys, lo, seed), cascade_random.random_share(keys, hi, seed)
    assert small.tolist() == cascade_random.random_share(keys, lo, seed).tolist()
    assert not (small & ~large).any()
    panels = {"m": list(JUDGES)}
    plain = cascade.drop_unasked(j, panels, 2)
    assert len(cascade.drop_unasked(j, panels, 2, cascade_random.random_rule(0.0, seed))) == len(plain)
    assert len(cascade.drop_unasked(j, panels, 2, cascade_random.random_rule(1.0, seed))) == len(j)
    ruled = cascade.drop_unasked(j, panels, 2, cascade_random.random_rule(hi, seed))
    settled = ~cascade.escalated(j, keys, {"m": ["ja", "jb"]})
    assert len(ruled) == len(plain) + int((large & settled).sum())
    assert set(map(tuple, plain[["riddle_id", "judge"]].to_numpy())) <= set(map(tuple, ruled[["riddle_id",
                                                                                                  "judge"]].to_numpy()))


def test_the_random_coin_is_uniform_enough_and_a_bad_share_is_refused():
    keys = pd.DataFrame({"riddle_id": [f"r{i}" for i in range(4000)], "model": "m"})
    assert abs(cascade_random.random_share(keys, 0.06, 0).mean() - 0.06) < 0.015
    assert cascade_random.random_share(keys, 0.5, 0).tolist() != cascade_random.random_share(keys, 0.5, 1).tolist()
    for bad in (-0.1, 1.5):
        with pytest.raises(ValueError, match="share"):
            cascade_random.random_rule(bad)
