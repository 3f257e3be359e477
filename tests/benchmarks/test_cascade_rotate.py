"""The rotating first pair (lab.cascade_rotate): a seeded coin per prediction, balanced over the panel's pairs; a
row's later verdicts kept exactly where its own first two disagree; the latent fit marginalising what that row's
pair did not ask."""

from __future__ import annotations

import itertools
from collections import Counter

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from lab import cascade_rotate
from sideways.scoring import latent_class

PANEL = ("ja", "jb", "jc")


def keys(n: int, models: tuple[str, ...] = ("m",)) -> pd.DataFrame:
    return pd.DataFrame([(f"r{i:04d}", m) for m in models for i in range(n)], columns=["riddle_id", "model"])


def judgments(rows: dict[tuple[str, str], tuple[bool, ...]]) -> pd.DataFrame:
    """(riddle, model) -> one both-fields verdict per panel judge (True: right on both, False: wrong on both)."""
    return pd.DataFrame([{"riddle_id": r, "model": m, "judge": j, "status": "ok", "is_answer_correct": v,
                          "is_justification_correct": v}
                         for (r, m), vs in rows.items() for j, v in zip(PANEL, vs, strict=True)])


def test_the_first_pair_is_seeded_and_balanced_over_the_panels_pairs():
    k = keys(1200, ("m1", "m2"))
    panels = {"m1": PANEL, "m2": PANEL}
    got = cascade_rotate.row_panels(k, panels, seed=0)
    assert got == cascade_rotate.row_panels(k, panels, seed=0)  # the same seed: the same pairs
    other = cascade_rotate.row_panels(k, panels, seed=1)
    assert 0.5 < np.mean([got[x][:2] != other[x][:2] for x in got]) < 0.8  # another seed: another draw (2/3 differ)
    for model in panels:
        counts = Counter(frozenset(p[:2]) for (_, m), p in got.items() if m == model)
        assert set(counts) == {frozenset(p) for p in itertools.combinations(PANEL, 2)}
        assert all(abs(c - 400) < 4 * (1200 * (1 / 3) * (2 / 3)) ** 0.5 for c in counts.values())  # 4 se of 1/3


@settings(max_examples=50, deadline=None)
@given(st.integers(0, 2**31), st.text("abc0123", min_size=1, max_size=6), st.integers(2, 5))
def test_a_rows_order_is_its_drawn_pair_then_the_rest_of_its_panel(seed, riddle, size):
    panel = tuple(f"j{i}" for i in range(size))
    [(key, order)] = cascade_rotate.row_panels(pd.DataFrame({"riddle_id": [riddle], "model": ["m"]}),
                                               {"m": panel}, seed).items()
    assert key == (riddle, "m") and sorted(order) == sorted(panel)
    pairs = list(itertools.combinations(panel, 2))
    assert order[:2] == pairs[cascade_rotate.pair_index(seed, riddle, "m", len(pairs))]
    assert list(order[2:]) == [j for j in panel if j not in order[:2]]


def test_a_rows_third_verdict_is_kept_exactly_when_its_own_first_two_disagree():
    rng = np.random.default_rng(3)
    verdicts = {(f"r{i:04d}", "m"): tuple(bool(v) for v in rng.random(3) < 0.5) for i in range(300)}
    j = judgments(verdicts)
    rows = cascade_rotate.row_panels(keys(300), {"m": PANEL}, seed=0)
    kept = set(zip(*(cascade_rotate.drop_unasked(j, rows)[c] for c in ("riddle_id", "model", "judge")), strict=True))
    heads_seen = set()
    for key, order in rows.items():
        v = dict(zip(PANEL, verdicts[key], strict=True))
        heads_seen.add(order[:2])
        assert all((*key, judge) in kept for judge in order[:2])
        assert ((*key, order[2]) in kept) == (v[order[0]] != v[order[1]])
    assert len(heads_seen) == 3  # every pair first on some rows: not one fixed order


def test_the_latent_fit_marginalises_the_verdict_the_rows_own_pair_did_not_ask():
    # r0's drawn pair settles it; its third judge is unasked. Under the per-model order it would read "no verdict"
    # whenever the unasked judge is one of the model's first two.
    rows = cascade_rotate.row_panels(keys(60), {"m": PANEL}, seed=0)
    j = cascade_rotate.drop_unasked(judgments({k: (True, True, True) for k in rows}), rows)
    jury = keys(60).assign(panel=",".join(PANEL))  # each row's panel, in the model's order
    judges = sorted(PANEL)

    def codes(table: latent_class.Rows) -> dict[tuple[str, str], dict[str, int]]:
        ev = table.evidence
        return {(r, m): dict(zip(judges, ev.pattern_codes[p].tolist(), strict=True))
                for r, m, p in zip(table.keys["riddle_id"], table.keys["model"], ev.pattern, strict=True)}

    with cascade_rotate.marginalised(rows):
        inside = codes(latent_class.table_evidence(jury, j, pd.DataFrame(), first=2))
    outside = codes(latent_class.table_evidence(jury, j, pd.DataFrame(), first=2))
    for key, order in rows.items():
        assert inside[key][order[2]] == -1  # off the pattern: marginalised
        assert all(inside[key][x] == 4 for x in order[:2])  # right on both fields
        if order[2] != PANEL[2]:
            assert outside[key][order[2]] == latent_class.CODES - 1  # the per-model order reads "no verdict"
    assert latent_class.table_evidence is not None and outside != inside  # the context restores the fit
