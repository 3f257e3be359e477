"""The published layton-eval LLM leaderboard, reproduced from the published calibration data.

The data file is the repository's vendored copy (reproductions/layton-eval/data/). The expected
table is the published one (reproductions/layton-eval/published_llm.json), not an output of this code.
"""

from __future__ import annotations

import json
import warnings

import pandas as pd
import pytest

from helpers import PPI_LLM_FILE as PPI_FILE
from helpers.exact_reference import exact_interval
from sideways.artifacts.schema import FIELDS
from sideways.cli import main
from sideways.core.errors import CalibrationError
from sideways.layton_eval.convert import import_ppi
from sideways.layton_eval.source import read_ppi
from sideways.scoring.calibration import score_models
from sideways.scoring.jury import jury_table
from sideways.scoring.leaderboard import build_leaderboard

# rank, rank spread, model, score, 95% CI (±), provider: the published table.
PUBLISHED = [
    (1, "1 <--> 2", "gemini-3-flash-high", 85.2, 1.4, "gemini"),
    (2, "1 <--> 3", "gemini-3-pro-high", 83.9, 1.1, "gemini"),
    (3, "2 <--> 3", "gpt-5.1-2025-11-13-high", 83.3, 0.1, "openai"),
    (4, "4 <--> 5", "gpt-5.2-2025-12-11-high", 80.4, 0.3, "openai"),
    (5, "4 <--> 5", "claude-opus-4-5-20251101-thinking-32k", 79.6, 0.6, "anthropic"),
    (6, "6 <--> 6", "moonshotai-kimi-k2.5-thinking", 73.4, 1.4, "together"),
    (7, "7 <--> 7", "claude-opus-4-5-20251101-no-thinking", 70.2, 0.9, "anthropic"),
    (8, "8 <--> 8", "moonshotai-kimi-k2-thinking", 66.7, 1.7, "together"),
    (9, "9 <--> 9", "mistral-large-2512", 48.7, 1.4, "mistral"),
]



@pytest.fixture(scope="module")
def tables():
    return import_ppi(read_ppi(PPI_FILE), source=str(PPI_FILE))


def _board(tables, method, field="both_correct", seed=0, interval="published"):
    return build_leaderboard(tables.predictions, tables.judgments, tables.annotations, tables.panels,
                             field=field, method=method, bootstrap=10_000, seed=seed, interval=interval)


def test_ranking_by_the_posterior_keeps_the_published_interval_bit_exact(tables):
    published = _board(tables, "exact").set_index("model")
    posterior = _board(tables, "exact", interval="posterior").set_index("model")
    cols = ["score", "lo", "hi", "half_width", "score_pct", "ci_pct", "posterior_lo", "posterior_hi"]
    assert posterior[cols].loc[published.index].equals(published[cols])
    # the published file labels part of most models' own predictions: the posterior uses them
    assert (posterior["n_labelled"] > 0).sum() == 7 and (posterior["n_labelled"] <= posterior["n"]).all()
    # the score is the posterior mean: inside the shortest set, or within a count of it when one count
    # holds 95% (gpt-5.1: 155 of 186 right at 95%, the mean 0.002 points above it)
    step = 1 / posterior["n"]
    assert (posterior["posterior_lo"] - step <= posterior["posterior_score"]).all()
    assert (posterior["posterior_score"] <= posterior["posterior_hi"] + step).all()
    shown = posterior["posterior_score_pct"] + posterior["posterior_ci_pct"]
    assert (shown >= 100 * posterior["posterior_hi"] - 1e-9).all()


def test_exact_reproduces_every_published_row_digit_for_digit(tables):
    board = _board(tables, "exact")
    got = [(r.rank, r.rank_spread, r.model_name, r.score_pct, r.ci_pct, r.provider) for r in board.itertuples()]
    assert got == PUBLISHED


def test_layton_at_seed_0_is_within_a_tenth_of_every_published_score_and_ci(tables):
    board = _board(tables, "layton").set_index("model_name")
    deviations = {}
    for _, _, model, score, ci, _ in PUBLISHED:
        deviations[model] = max(abs(board.loc[model, "score_pct"] - score), abs(board.loc[model, "ci_pct"] - ci))
    assert max(deviations.values()) <= 0.1 + 1e-9, deviations


@pytest.mark.parametrize("field", FIELDS)
def test_every_field_monte_carlo_lands_on_the_exact_distribution(tables, field):
    jury = jury_table(tables.judgments, tables.predictions, tables.panels)
    kw = {"field": field, "empty_bin": "nearest"}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        exact = score_models(jury, tables.annotations, method="exact", bootstrap=0, seed=0, **kw).set_index("model")
        mc = score_models(jury, tables.annotations, method="layton", bootstrap=20_000, seed=1, **kw).set_index("model")
    assert len(exact) == 9
    for model in exact.index:
        step = 1 / exact.loc[model, "n"]
        assert abs(mc.loc[model, "lo"] - exact.loc[model, "lo"]) <= step + 1e-12, (field, model)
        assert abs(mc.loc[model, "hi"] - exact.loc[model, "hi"]) <= step + 1e-12, (field, model)
    if caught:
        # A real empty bin (answer_correct: no other-provider labelled row has exactly 1/3 of the
        # answer votes for the Anthropic models); by default it is an error naming it.
        with pytest.raises(CalibrationError, match=f"field '{field}': jury-score bin .* has predictions"):
            score_models(jury, tables.annotations, field=field, method="exact", bootstrap=0, seed=0,
                         interval="published")
    if field == "answer_correct":
        # Fields really differ: answer correctness is at least both-correctness, on average.
        both = score_models(jury, tables.annotations, field="both_correct", method="exact", bootstrap=0,
                            seed=0).set_index("model")
        assert exact["score"].mean() > both["score"].mean()


def test_exact_distribution_mean_is_the_pool_weighted_share(tables):
    jury = jury_table(tables.judgments, tables.predictions, tables.panels)
    model = jury[jury["provider"] == "together"]["model"].iloc[0]
    rows = jury[jury["model"] == model]
    pool = tables.annotations.merge(jury, on=["riddle_id", "model", "provider"])
    pool = pool[pool["provider"] != "together"]
    counts, p = [], []
    for (v, j), g in rows.groupby(["both_correct_votes", "both_correct_judges"]):
        counts.append(len(g))
        same = pool[pool["both_correct_votes"] * j == v * pool["both_correct_judges"]]
        p.append(same["human_both_correct"].astype(float).mean())
    lo, hi = exact_interval(counts, p)
    mean = sum(c * q for c, q in zip(counts, p)) / sum(counts)
    assert lo <= mean <= hi


def test_the_command_prints_the_table_and_writes_the_json(tmp_path, capsys):
    out = tmp_path / "board.json"
    assert main(["leaderboard", "--ppi-file", str(PPI_FILE), "--method", "exact", "--interval", "published",
                 "--json", str(out)]) == 0
    printed = capsys.readouterr().out
    rows = json.loads(out.read_text())
    assert [(r["rank"], r["rank_spread"], r["model"], r["score"], r["ci"], r["provider"]) for r in rows] == PUBLISHED
    key = {r["model"]: r["model_key"] for r in rows}  # a model reads as its key, the slug of provider and name
    assert printed.splitlines()[:2] == ["ranks follow the published 95% interval (--interval)",
                                        "rank set: the ranks that hold every model's true rank at once with 95% "
                                        "probability (docs/method.md §5)"]
    assert "rank spread (layton-eval): layton-eval's rule" in printed
    for rank, spread, model, score, ci, provider in PUBLISHED:
        assert f"| {rank} | {spread} | {key[model]} | {score:.1f} | {ci:.1f} | {provider} |" in printed
    for r in rows:
        assert {"best_rank", "worst_rank", "score_unrounded", "lo", "hi", "half_width", "rank_set", "tie_groups"} <= set(r)
        assert f"| {r['rank']} | {r['rank_spread']} | {r['model_key']} |" in printed and r["rank_set"] in printed
        assert r["rank_spread"] == f"{r['best_rank']} <--> {r['worst_rank']}"
        assert r["lo"] <= r["score_unrounded"] <= r["hi"]


def test_parquet_and_free_text_columns_give_the_same_leaderboard(tables, tmp_path):
    df = read_ppi(PPI_FILE)
    df["answer"] = "some answer"
    df["justification"] = None
    path = tmp_path / "ppi.parquet"
    pd.DataFrame(df).to_parquet(path)
    again = import_ppi(read_ppi(path), source=str(path))
    assert again.predictions["answer"].eq("some answer").all()
    a = _board(tables, "exact")[["model", "score_pct", "ci_pct", "rank_spread"]]
    b = _board(again, "exact")[["model", "score_pct", "ci_pct", "rank_spread"]]
    assert a.equals(b)
