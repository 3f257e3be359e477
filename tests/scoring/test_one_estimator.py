"""One estimator behind every number (docs/method.md §5, §6, §8), on the simulated demo in-process:
the diff's change is B - A of the scores it prints, and ranks, tie groups and rank sets follow the
interval the leaderboard ranks by, under either ``calibration.interval`` and either posterior."""

from __future__ import annotations

import copy

import pandas as pd
import pytest

from helpers import ROOT
from lab.changes import pipeline_version
from lab.coverage import split_riddles
from sideways.config.params import Params, parse_params
from sideways.scoring.changes import SplitVersion, split_changes
from sideways.scoring.pairwise import pairwise
from sideways.scoring.ranking import rank_leaderboard, ranked_columns
from sideways.sources.demo import load_demo


@pytest.fixture(scope="module")
def llm() -> pd.DataFrame:
    demo = load_demo(ROOT / "data/riddles/demo.jsonl")
    return split_riddles(demo, "llm")


def _params(default_params: dict, edit=None, **calibration) -> Params:
    data = copy.deepcopy(default_params)
    data["calibration"].update(calibration)
    if edit:
        edit(data)
    return parse_params(data, source="test")


def assert_changes_add_up(a: SplitVersion, b: SplitVersion) -> None:
    rows = split_changes("llm", a, b, seed=0, replicates=400).rows
    assert len(rows) >= 6
    for r in rows:
        assert abs(r["change"] - (r["b"] - r["a"])) <= 0.1 + 1e-9, r
        assert r["lo"] <= r["change"] + 1e-9 or r["hi"] >= r["change"] - 1e-9


CALIBRATIONS = [{"interval": "posterior", "posterior": "v1"}, {"interval": "posterior", "posterior": "hierarchical"},
                {"interval": "posterior", "posterior": "latent"}, {"interval": "published"}]


@pytest.mark.parametrize("calibration", CALIBRATIONS, ids=lambda c: "-".join(c.values()))
def test_the_readme_experiment_and_a_new_model_change_scores_by_what_the_diff_says(default_params, llm, calibration):
    base = pipeline_version("A", _params(default_params, **calibration), llm)
    stronger = _params(default_params, lambda d: d["models"]["atlas-mini"].update(skill=0.9), **calibration)
    assert_changes_add_up(base, pipeline_version("B", stronger, llm))
    added = _params(default_params, lambda d: d["models"].update(
        {"nova-mid": {"backend": "sim", "provider": "mistral", "name": "nova-mid", "n_hints": 0, "skill": 0.7}}),
        **calibration)
    assert_changes_add_up(base, pipeline_version("B", added, llm))


@pytest.mark.parametrize("calibration", CALIBRATIONS, ids=lambda c: "-".join(c.values()))
def test_ranks_tie_groups_and_rank_sets_agree(default_params, llm, calibration):
    """Equal ranks share a tie group; two models apart are ranked apart, the better one above; a pair's
    change is the difference of the two ranked scores; every model's rank set holds its rank, and the sets
agree with the pairs: a model apart above another has no set below the other's, disjoint sets are apart."""
    v = pipeline_version("A", _params(default_params, **calibration), llm)
    assert v.scores is not None
    ranked = rank_leaderboard(v.scores)
    got = pairwise(ranked, v.jury, v.annotations, replicates=1000)
    score_col, _ = ranked_columns(ranked)
    rank = dict(zip(ranked["model"], ranked["rank"], strict=True))
    score = dict(zip(ranked["model"], ranked[score_col], strict=True))
    groups = {m: set(g) for m, g in got["tie_groups"].items()}
    for p in got["pairs"]:
        assert abs(p["change"] - (score[p["a"]] - score[p["b"]])) <= 0.1 + 1e-9, p
        if rank[p["a"]] == rank[p["b"]]:
            assert groups[p["a"]] & groups[p["b"]], p
        if p["apart"]:
            assert rank[p["a"]] < rank[p["b"]] and not groups[p["a"]] & groups[p["b"]], p
    assert set(got["rank_sets"]) == set(rank)
    sets = got["rank_sets"]
    for m, (best, worst) in sets.items():
        assert 1 <= best <= rank[m] <= worst <= len(rank)
    apart = {(p["a"], p["b"]) for p in got["pairs"] if p["apart"]}  # a ranked above b
    for a, b in apart:  # the rank sets say what the pairs say (docs/method.md §5)
        assert sets[a][0] <= sets[b][0] and sets[a][1] <= sets[b][1], (a, b, sets)
    for a in sets:
        for b in sets:
            if sets[a][1] < sets[b][0]:
                assert (a, b) in apart, (a, b, sets)


def test_a_prior_kept_in_the_scores_table_comes_back_bit_for_bit():
    from sideways.scoring.hierarchy import Prior, prior_from_json, prior_json

    prior = Prior({(0, 1): -3.1234567890123, (2, 3): 0.1 + 0.2}, {(0, 1): 12, (2, 3): 0},
                  ((4.0, 0.3, 0.25), (64.0, 0.0, 0.75)))
    assert prior_from_json(prior_json(prior)) == prior and prior_json(None) is None
