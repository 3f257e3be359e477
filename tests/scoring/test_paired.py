"""Paired draws, verdicts and version changes (docs/method.md §8): pure tables, no DVC."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from sideways.scoring.changes import SplitVersion, split_changes
from sideways.scoring.paired import beta_quantile, evidence, model_draws
from sideways.scoring.posterior import posterior_counts
from sideways.scoring.verdicts import SAME, UP, bh_adjusted, difference, tie_groups

FIELD = "both_correct"
PROVIDERS = {"m1": "p1", "m2": "p2", "m3": "p3"}


def tables(right: dict[str, list[bool]], labelled: int = 10) -> tuple[pd.DataFrame, pd.DataFrame]:
    """A jury (3 judges, all agreeing with the truth but one of three on odd riddles) and labels
    of the first ``labelled`` riddles of every model."""
    jury, labels = [], []
    for model, truth in right.items():
        for i, ok in enumerate(truth):
            votes = (3 if ok else 0) if i % 2 == 0 else (2 if ok else 1)
            jury.append({"riddle_id": f"r{i:02d}", "model": model, "provider": PROVIDERS[model],
                         f"{FIELD}_votes": votes, f"{FIELD}_judges": 3})
            if i < labelled:
                labels.append({"riddle_id": f"r{i:02d}", "model": model, f"human_{FIELD}": ok})
    return pd.DataFrame(jury), pd.DataFrame(labels)


def scores(models: list[str]) -> pd.DataFrame:
    return pd.DataFrame({"model": models, "field": FIELD, "interval": "posterior",
                         "posterior_score_pct": 50.0, "posterior_ci_pct": 5.0})


def version(name: str, right: dict[str, list[bool]]) -> SplitVersion:
    jury, labels = tables(right)
    return SplitVersion(name, jury, labels, scores(sorted(right)))


def truth(n: int, share: float, seed: int) -> list[bool]:
    return list(np.random.default_rng(seed).random(n) < share)


def test_one_version_draws_follow_the_leaderboard_posterior():
    jury, labels = tables({"m1": truth(40, 0.6, 1), "m2": truth(40, 0.5, 2)})
    ev = evidence(jury, labels, FIELD, sorted(jury["riddle_id"].unique()))
    draws = model_draws(ev, seed=3, replicates=4000)["m1"]
    k_lo, k_hi = _posterior_interval(ev)
    lo, hi = np.quantile(draws[1:] * 40, [0.025, 0.975])
    assert abs(lo - k_lo) <= 1 and abs(hi - k_hi) <= 1


def _posterior_interval(ev):
    """The leaderboard's posterior interval of m1, in counts, from the same bins and labels."""
    b, lab, pool_b, pool_lab = ev.bins["m1"], ev.labels["m1"], ev.bins["m2"], ev.labels["m2"]
    bins = sorted(set(b.tolist()))
    counts = [int(np.sum(b == v)) for v in bins]
    own = [(int(np.sum((b == v) & (lab == 1))), int(np.sum((b == v) & (lab >= 0)))) for v in bins]
    pool = [(int(np.sum((pool_b == v) & (pool_lab == 1))), int(np.sum((pool_b == v) & (pool_lab >= 0))))
            for v in bins]
    return posterior_counts(counts, own, pool)


def test_the_same_version_twice_changes_nothing():
    right = {"m1": truth(30, 0.6, 1), "m2": truth(30, 0.5, 2), "m3": truth(30, 0.4, 3)}
    got = split_changes("llm", version("A", right), version("B", right), seed=0, replicates=500)
    assert got.problems == []
    assert [(r["model"], r["change"], r["lo"], r["hi"], r["p"]) for r in got.rows] == [
        (m, 0.0, 0.0, 0.0, 1.0) for m in ("m1", "m2", "m3")]


def test_a_model_that_got_better_is_up_and_the_others_are_not():
    before = {"m1": truth(30, 0.5, 1), "m2": truth(30, 0.5, 2), "m3": truth(30, 0.4, 3)}
    after = dict(before, m1=[True] * 30)
    got = split_changes("llm", version("A", before), version("B", after), seed=0, replicates=1000)
    rows = {r["model"]: r for r in got.rows}
    gained = 30 - sum(before["m1"])
    assert rows["m1"]["lo"] > 0 and rows["m1"]["p"] < 0.01
    assert len(rows["m1"]["to_right"]) == gained and rows["m1"]["to_wrong"] == []
    assert rows["m2"]["lo"] <= 0 <= rows["m2"]["hi"] and rows["m2"]["p"] > 0.05
    from sideways.commands.diff import decide
    decide(got.rows)
    assert [r["verdict"] for r in got.rows] == [UP, SAME, SAME]


def test_models_and_splits_that_cannot_be_compared_are_named_one_line_each():
    right = {"m1": truth(10, 0.6, 1), "m2": truth(10, 0.5, 2)}
    got = split_changes("llm", version("A", right), version("B", {"m1": right["m1"], "m3": right["m2"]}),
                        seed=0, replicates=50)
    assert [r["model"] for r in got.rows] == ["m1"]
    assert got.problems == ["llm, m2: scored in A only, not in B; no change to compute",
                            "llm, m3: scored in B only, not in A; no change to compute"]
    empty = split_changes("vlm", version("A", right), SplitVersion("B", None, None, None), seed=0)
    assert empty.rows == [] and len(empty.problems) == 1 and "\n" not in empty.problems[0]


def test_benjamini_hochberg_matches_the_textbook_example():
    p = [0.01, 0.04, 0.03, 0.005]
    assert bh_adjusted(p) == pytest.approx([0.02, 0.04, 0.04, 0.02])


def test_a_difference_zero_in_every_draw_has_p_one_and_a_shifted_one_is_small():
    assert difference(np.zeros(101)).p == 1.0
    d = difference(np.concatenate([[0.1], np.full(999, 0.1)]))
    assert d.p == pytest.approx(2 / 1000) and d.lo == pytest.approx(10.0)


def test_tie_groups_are_runs_no_comparison_separates():
    apart = {frozenset(("a", "c")), frozenset(("a", "d")), frozenset(("b", "d"))}
    assert tie_groups(["a", "b", "c", "d"], apart) == {"a": [1], "b": [1, 2], "c": [2, 3], "d": [3]}


def test_tie_groups_of_models_all_apart_are_singletons():
    order = ["a", "b", "c"]
    apart = {frozenset(p) for p in (("a", "b"), ("a", "c"), ("b", "c"))}
    assert tie_groups(order, apart) == {"a": [1], "b": [2], "c": [3]}


def test_beta_quantile_has_the_beta_mean():
    q = (np.arange(20000) + 0.5) / 20000
    assert beta_quantile(2.0, 6.0, q).mean() == pytest.approx(0.25, abs=1e-3)


def ranked_board(models: list[str]) -> pd.DataFrame:
    return pd.DataFrame({"model": models, "n_hints": 0, "rank": range(1, len(models) + 1),
                         "field": FIELD, "seed": 0, "interval": "posterior"})


def agree(result: dict) -> bool:
    """Models sharing a tie group are never apart; consecutive models apart share none."""
    groups = result["tie_groups"]
    for p in result["pairs"]:
        if p["apart"] and set(groups[p["a"]]) & set(groups[p["b"]]):
            return False
    return True


def test_pairwise_separates_far_models_and_ties_close_ones():
    from sideways.scoring.pairwise import pairwise

    right = {"m1": [True] * 40, "m2": [True] * 38 + [False] * 2, "m3": [False] * 40}
    jury, labels = tables(right)
    got = pairwise(ranked_board(["m1", "m2", "m3"]), jury, labels, replicates=500)
    apart = {(p["a"], p["b"]): p["apart"] for p in got["pairs"]}
    assert apart == {("m1", "m2"): False, ("m1", "m3"): True, ("m2", "m3"): True}
    assert got["tie_groups"] == {"m1": [1], "m2": [1], "m3": [2]} and agree(got)


def test_every_models_pool_is_every_other_providers_labels_counted_once():
    from sideways.scoring.paired import Evidence, _all_counts

    rng = np.random.default_rng(3)
    names = ((0, 3), (1, 3), (2, 3), (3, 3))
    providers = {f"m{i}": f"p{i % 3}" for i in range(7)}
    bins = {m: rng.integers(-1, 4, 30) for m in providers}
    labels = {m: rng.integers(-1, 2, 30) for m in providers}
    ev = Evidence(tuple(f"r{i}" for i in range(30)), providers, names, bins, labels)

    def tally(m):  # the counting rule spelled out, one row at a time
        pos, size = np.zeros(4), np.zeros(4)
        for b, lab in zip(bins[m], labels[m], strict=True):
            if b >= 0 and lab >= 0:
                size[b] += 1
                pos[b] += lab == 1
        return pos, size

    got = _all_counts(ev)
    for m in providers:
        pos, size = tally(m)
        others = [tally(o) for o in providers if providers[o] != providers[m]]
        assert np.array_equal(got[m][0], pos) and np.array_equal(got[m][1], size)
        assert np.array_equal(got[m][2], np.array([sum(o[0] for o in others), sum(o[1] for o in others)]))


def test_a_refit_that_drops_a_mixture_component_keeps_an_unchanged_model_s_draws_paired():
    """The latent posterior is refitted on every version: its mixture may lose a component and reweigh the
    rest though the model's rows did not change. Picking components in order of the count they expect keeps
    the same uniform on the same quantile, so the change of an unchanged model stays within a riddle."""
    from sideways.scoring.hierarchy import Prior

    jury, labels = tables({"m1": truth(40, 0.6, 1), "m2": truth(40, 0.5, 2)}, labelled=6)
    ev = evidence(jury, labels, FIELD, sorted(jury["riddle_id"].unique()))
    bins = {b: 0.0 for b in ev.bin_names}
    eta = {b: float(x) for b, x in zip(ev.bin_names, np.linspace(-2.5, 2.5, len(bins)), strict=True)}
    rows = dict.fromkeys(bins, 10)
    spread = ((2.0, 1.5, 0.03), (16.0, 1.5, 0.3), (4.0, 0.6, 0.37), (64.0, 0.3, 0.3))
    refit = ((16.0, 1.5, 0.33), (4.0, 0.6, 0.35), (64.0, 0.3, 0.32))  # a light point dropped, the rest reweighed
    a, b = (model_draws(ev, seed=5, replicates=4000, priors={"m1": Prior(eta, rows, s)})["m1"] for s in (spread, refit))
    change = np.rint((b[1:] - a[1:]) * 40)  # in riddles
    assert np.corrcoef(a[1:], b[1:])[0, 1] > 0.9
    assert np.quantile(change, 0.025) >= -1 and np.quantile(change, 0.975) <= 1


def test_tie_groups_tie_two_models_no_comparison_separates_even_with_a_model_between_apart_from_one():
    """quill ~ tide though nimbus, ranked between, is apart from tide (intervals of unequal width): a run of
    consecutive models cannot show it, so a group of its own does; the run {breeze, tide} inside it is dropped."""
    order = ["mini", "large", "quill", "nimbus", "breeze", "tide"]
    tied = {("large", "quill"), ("large", "nimbus"), ("large", "breeze"), ("quill", "nimbus"), ("quill", "breeze"),
            ("quill", "tide"), ("nimbus", "breeze"), ("breeze", "tide")}
    apart = {frozenset((a, b)) for i, a in enumerate(order) for b in order[i + 1:]} - {frozenset(p) for p in tied}
    got = tie_groups(order, apart)
    assert got == {"mini": [1], "large": [2], "quill": [2, 3], "nimbus": [2], "breeze": [2, 3], "tide": [3]}
    for i, a in enumerate(order):
        for b in order[i + 1:]:
            assert bool(set(got[a]) & set(got[b])) == (frozenset((a, b)) not in apart), (a, b)


@pytest.mark.parametrize("seed", range(30))
def test_tie_groups_share_a_group_exactly_when_not_apart(seed):
    rng = np.random.default_rng(seed)
    order = [f"m{i}" for i in range(int(rng.integers(2, 9)))]
    apart = {frozenset((a, b)) for i, a in enumerate(order) for b in order[i + 1:] if rng.random() < 0.5}
    got = tie_groups(order, apart)
    for i, a in enumerate(order):
        assert got[a], a
        for b in order[i + 1:]:
            assert bool(set(got[a]) & set(got[b])) == (frozenset((a, b)) not in apart), (a, b, got)


@pytest.mark.parametrize("seed", range(5))
def test_beta_quantiles_of_many_betas_at_once_are_beta_quantile_s(seed):
    from sideways.scoring.paired import beta_quantiles

    rng = np.random.default_rng(seed)
    alpha, beta = np.exp(rng.uniform(-4, 7, 60)), np.exp(rng.uniform(-4, 7, 60))  # 0.02 .. 1,100
    rows, q = rng.integers(0, 60, 2000), rng.random(2000)
    q[:2] = (1e-12, 1 - 1e-9)  # the tails (q = 0 exactly, 2^-53 a draw, is where interp's ties decide)
    one_by_one = np.array([beta_quantile(float(alpha[r]), float(beta[r]), q[i:i + 1])[0] for i, r in enumerate(rows)])
    gap = np.abs(beta_quantiles(alpha, beta, rows, q) - one_by_one)
    middle = (q > 1e-6) & (q < 1 - 1e-6)
    assert gap[middle].max() < 1e-9 and gap.max() < 1e-3  # the stacking's offsets cost digits only in the far tails
