"""Rank sets from joint draws (sideways.scoring.rank_sets) and benchmarks/rank_coverage.py on a tiny run."""

from __future__ import annotations

import json

import numpy as np
import pytest
import rank_coverage
from hypothesis import given, settings
from hypothesis import strategies as st

from sideways.scoring.rank_sets import agreeing, draw_ranks, rank_sets
from sideways.scoring.verdicts import difference, separable


def _draws(centres: dict[str, float], sd: float, n: int = 2000, seed: int = 0) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    return {m: np.concatenate([[c], c + sd * rng.standard_normal(n)]) for m, c in centres.items()}


def test_competition_ranks_share_the_best_rank_on_a_tie():
    assert draw_ranks(np.array([[0.5, 0.7, 0.5, 0.1]])).tolist() == [[2, 1, 2, 4]]


def test_far_apart_models_get_single_ranks_and_close_ones_share_theirs():
    far = rank_sets(_draws({"a": 0.9, "b": 0.5, "c": 0.1}, 0.01))
    assert far == {"a": (1, 1), "b": (2, 2), "c": (3, 3)}
    close = rank_sets(_draws({"a": 0.52, "b": 0.5, "c": 0.1}, 0.05))
    assert close["a"] == close["b"] == (1, 2) and close["c"] == (3, 3)


def test_the_sets_hold_every_drawn_rank_at_once_in_at_least_95_percent_of_draws():
    draws = _draws({f"m{i}": 0.3 + 0.04 * i for i in range(8)}, 0.05, seed=3)
    sets = rank_sets(draws)
    ranks = draw_ranks(np.stack([draws[m][1:] for m in sorted(draws)], axis=1))
    lo = np.array([sets[m][0] for m in sorted(draws)])
    hi = np.array([sets[m][1] for m in sorted(draws)])
    joint = np.mean(np.all((ranks >= lo) & (ranks <= hi), axis=1))
    assert 0.95 <= joint < 0.99  # stated coverage, and not everything
    assert int(np.sum(hi - lo)) < 8 * 7  # narrower than "any rank"


@pytest.mark.parametrize("posterior", [[], ["--posterior", "v1"]], ids=["default", "v1"])
def test_the_rank_coverage_script_prints_and_writes_both_kinds_of_set(tmp_path, capsys, posterior):
    """Both kinds of set, for the default posterior (latent: it reads every judge's verdicts) and for v1."""
    out = tmp_path / "ranks.json"
    assert rank_coverage.main(["--seeds", "2", "--models", "3", "--replicates", "200", "--json", str(out), *posterior]) == 0
    printed = capsys.readouterr().out
    assert "llm  rank set    every true rank inside:" in printed and "vlm  rank spread" in printed
    data = json.loads(out.read_text())
    assert data["posterior"] == (posterior[-1] if posterior else "latent")
    assert set(data["results"]) == {"llm", "vlm"}
    for split in data["results"].values():
        assert 0 <= split["rank set"]["joint"] <= 1 and 1 <= split["rank set"]["mean_size"] <= 3


@settings(max_examples=100, deadline=None)
@given(st.integers(1, 300), st.integers(1, 6), st.floats(0, 0.5), st.integers(0, 2**32 - 1))
def test_sets_read_off_one_sort_equal_numpys_lower_and_higher_quantiles(draws, models, tail, seed):
    from sideways.scoring.rank_sets import _sets

    ranks = np.random.default_rng(seed).integers(1, models + 1, size=(draws, models))
    lo, hi = _sets(np.sort(ranks, axis=0), tail)
    assert np.array_equal(lo, np.quantile(ranks, tail, axis=0, method="lower").astype(np.int64))
    assert np.array_equal(hi, np.quantile(ranks, 1 - tail, axis=0, method="higher").astype(np.int64))


def _check_agreement(sets, ranks, above, models):
    """The three promises of :func:`agreeing` (docs/method.md §5, "Rank set, tie group, pairwise")."""
    pairs = set(above)
    for m in models:
        assert sets[m][0] <= ranks[m] <= sets[m][1]
    for a, b in pairs:
        assert sets[a][0] <= sets[b][0] and sets[a][1] <= sets[b][1], (a, b, sets)
    for a in models:
        for b in models:
            if a != b and sets[a][1] < sets[b][0]:  # a's set wholly above b's
                assert (a, b) in pairs, (a, b, sets)


def test_agreeing_widens_a_set_that_puts_a_tie_apart_and_one_below_a_model_it_beats():
    sets = {"a": (1, 1), "b": (2, 3), "c": (2, 3)}
    # a and b are a tie for the pairs: their sets must meet; c is apart below b: c's best is not above b's
    got = agreeing(sets, {"a": 1, "b": 2, "c": 3}, [("a", "c"), ("b", "c")])
    assert got == {"a": (1, 2), "b": (2, 3), "c": (2, 3)}
    got = agreeing({"a": (2, 2), "b": (1, 2)}, {"a": 1, "b": 2}, [("a", "b")])
    assert got == {"a": (1, 2), "b": (1, 2)}  # a beats b: b's set may not start above a's


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(0.2, 0.8), min_size=2, max_size=7), st.floats(0.005, 0.08), st.integers(0, 2**16))
def test_rank_sets_from_pairwise_agree_with_its_pairs_and_only_widen(centres, sd, seed):
    """Property: on any joint draws, the sets the leaderboard shows hold each shown rank, keep the
    joint sets inside them, and agree with the pairs drawn from the same draws."""
    draws = _draws({f"m{i}": c for i, c in enumerate(centres)}, sd, n=400, seed=seed)
    models = sorted(draws)
    shown = {m: round(1000 * float(draws[m][0])) for m in models}
    ranks = {m: 1 + sum(v > shown[m] for v in shown.values()) for m in models}
    order = sorted(models, key=lambda m: (ranks[m], m))
    above = []
    for i, a in enumerate(order):
        for b in order[i + 1:]:
            d = difference(draws[a] - draws[b])
            if separable(d):
                above.append((a, b) if d.change > 0 else (b, a))
    joint = rank_sets(draws)
    got = agreeing(joint, ranks, above)
    _check_agreement(got, ranks, above, models)
    assert all(got[m][0] <= joint[m][0] and joint[m][1] <= got[m][1] for m in models)
