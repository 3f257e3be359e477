"""verdicts.differences (every row at once, for the pairwise table) gives what verdicts.difference
gives row by row, to the bit: the pairwise table and the tie groups cannot move with it."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from sideways.scoring.verdicts import difference, differences


def same(rows: np.ndarray) -> bool:
    got, want = differences(rows), [difference(r) for r in rows]
    return len(got) == len(want) and all(
        np.array_equal(np.array(list(vars(g).values())), np.array(list(vars(w).values())), equal_nan=True)
        for g, w in zip(got, want, strict=True))


def test_draws_of_paired_differences_match_row_by_row():
    rng = np.random.default_rng(7)
    rows = rng.normal(0.02, 0.05, size=(300, 2001)).round(4)  # ties at 0 and between replicates
    rows[5] = 0.0  # a pair with the same answers: p = 1
    rows[9, 17] = np.nan  # a replicate without a score
    rows[11, 0] = np.inf
    rows[12, 1:] = np.nan  # nothing finite: a NaN difference
    assert same(rows)
    assert differences(rows)[5].p == 1.0 and np.isnan(differences(rows)[12].change)


def test_no_rows_and_one_replicate():
    assert differences(np.empty((0, 2001))) == []
    assert same(np.array([[0.1], [np.nan]]))


@settings(max_examples=150, deadline=None)
@given(arrays(np.float64, st.tuples(st.integers(1, 6), st.integers(1, 40)),
              elements=st.floats(-1, 1) | st.sampled_from([0.0, -0.0, 0.5, -0.5, np.nan, np.inf])))
def test_any_rows_match_row_by_row(rows):
    assert same(rows)
