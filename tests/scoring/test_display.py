"""How a model and an interval read in every view (sideways.scoring.display, docs/method.md §5):
``score ± ci`` only where symmetric, ``score [lo, hi]`` elsewhere, "fully labelled" for an exact
score, ``x (n=1)`` for a one-item mean, and a model named by its key in every table and line."""

from __future__ import annotations

import re
from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st
from report_tables import exam_tables, params_with_models, split_tables

from helpers import project_params
from sideways.commands.diff import cells, render_text
from sideways.exams.results import format_exam_table
from sideways.report.build import build_report
from sideways.scoring.changes import Changes
from sideways.scoring.display import bounds_pct, interval_cell, model_label, se_cell
from sideways.scoring.leaderboard import format_table, leaderboard_metrics, plot_rows, rank_set_view, with_pairwise
from sideways.scoring.pairwise import pairwise
from sideways.scoring.ranking import rank_leaderboard


def test_symmetric_intervals_read_plus_minus_and_the_others_read_lo_hi():
    assert interval_cell(55.0, None, None, ci=3.2) == "55.0 ± 3.2"
    assert interval_cell(0.3, None, None, ci=2.6) == "0.3 [0.0, 2.9]"  # clipped at 0: not ± 2.6
    assert interval_cell(99.0, None, None, ci=1.5) == "99.0 [97.5, 100.0]"
    assert interval_cell(77.5, 72.2, 80.6) == "77.5 [72.2, 80.6]"  # a posterior: its mean is not its middle
    assert interval_cell(55.0, 55.0, 55.0, exact=True) == "55.0 (fully labelled)"
    assert interval_cell(None, None, None) == "—"


def test_a_one_item_mean_has_no_standard_error():
    assert se_cell(50.0, 0.0, 1) == "50.0 (n=1)"
    assert se_cell(50.0, 4.0, 25) == "50.0 ± 4.0"
    assert se_cell(None, None, 0) == "-"


@given(st.floats(0, 1), st.floats(0, 1))
def test_outward_rounding_keeps_the_interval_inside_what_is_printed(a, b):
    lo, hi = min(a, b), max(a, b)
    plo, phi = bounds_pct(lo, hi)
    assert plo <= 100 * lo + 1e-9 and 100 * hi - 1e-9 <= phi and 0 <= plo <= phi <= 100


@pytest.fixture(scope="module")
def board():
    """A ranked llm board of the default models, with rank sets and tie groups from its pairwise table."""
    params = params_with_models(project_params(), None)
    t = split_tables(params, "llm", 40)
    ranked = rank_leaderboard(t.scores)
    return params, t, with_pairwise(ranked, pairwise(ranked, t.jury, t.annotations, replicates=400))


def _rows(table: str) -> list[list[str]]:
    return [[c.strip() for c in line.strip("|").split("|")] for line in table.splitlines()[2:] if line.startswith("|")]


def test_the_posterior_leaderboard_shows_rank_sets_and_lo_hi_and_a_fully_labelled_model_says_so(board):
    _, _, ranked = board
    every = ranked.iloc[0]
    ranked = ranked.copy()
    ranked.loc[ranked.index[0], "n_labelled"] = int(every["n"])  # every prediction of the first model labelled
    table = format_table(ranked)
    head = [c.strip() for c in table.splitlines()[0].strip("|").split("|")]
    assert head[:6] == ["rank", "rank set", "model", "score", "95% interval", "provider"]
    assert "rank spread" not in table and "± 0.1" not in table.split("|")[5]
    rows = _rows(table)
    assert rows[0][4] == "fully labelled"
    assert all(re.fullmatch(r"\[\d+\.\d, \d+\.\d\]", r[4]) for r in rows[1:])
    assert [r[1] for r in rows] == list(ranked.sort_values(["rank", "model"])["rank_set"])


def test_the_published_leaderboard_keeps_layton_evals_rank_spread_named_as_its_rule(board):
    _, _, ranked = board
    published = rank_leaderboard(ranked.assign(interval="published"))
    table = format_table(published)
    head = [c.strip() for c in table.splitlines()[0].strip("|").split("|")]
    assert head[:6] == ["rank", "rank spread (layton-eval)", "model", "score", "95% CI (±)", "provider"]
    assert head[-2:] == ["rank set", "ties"]


def test_plot_rows_draw_the_posterior_interval_not_score_plus_minus(board):
    _, _, ranked = board
    for row, r in zip(plot_rows(ranked), ranked.sort_values(["n_hints", "rank", "model"]).itertuples(), strict=True):
        assert (row["lo"], row["hi"]) == bounds_pct(r.posterior_lo, r.posterior_hi)


def test_a_model_reads_as_its_key_in_every_table_and_line(board):
    """A model whose name differs from its key (Qwen/Qwen3-8B for qwen-local): the riddle leaderboard,
    the report's leaderboard, pairwise table, analytics and failures, and the exam table all read
    the key; the name stands beside it only in its own column."""
    params, t, ranked = board
    key = str(ranked["model"].iloc[0])
    name = "Qwen/Qwen3-8B"
    ranked = ranked.assign(model_name=ranked["model_name"].where(ranked["model"] != key, name))
    rows = _rows(format_table(ranked))
    head = [c.strip() for c in format_table(ranked).splitlines()[0].strip("|").split("|")]
    assert head[2:4] == ["model", "name"]
    assert {r[2] for r in rows} == {model_label(m) for m in ranked["model"]}
    assert [r[3] for r in rows if r[3] != r[2]] == [name]
    assert name not in format_table(ranked, names=False)
    renamed = replace(params, models=tuple(replace(m, name=name) if m.key == key else m for m in params.models))
    scores = t.scores.assign(model_name=t.scores["model_name"].where(t.scores["model"] != key, name))
    report = build_report({"llm": replace(t, scores=scores)}, renamed,
                          {"commit": None, "dirty": None, "params": "p", "data": "d"})
    split = report.summary["splits"]["llm"]
    assert {r["label"] for r in split["leaderboard"]} == set(ranked["model"])
    assert [r["model_name"] for r in split["leaderboard"] if r["label"] == key] == [name]
    assert {m["label"] for m in report.summary["models"]} == {m.key for m in params.models}
    exam = exam_tables(params, 10)
    assert key in format_exam_table(exam.metrics) and name not in format_exam_table(exam.metrics)
    row = {"benchmark": "llm", "model": key, "metric": "both_correct", "a": 50.0, "b": 60.0, "change": 10.0,
           "lo": 5.0, "hi": 15.0, "verdict": "up", "mde": 5.0, "to_wrong": ["r1"], "to_right": []}
    diff = render_text(Changes(rows=[row]), "HEAD", "workspace", items=True)
    assert cells(row)[1] == model_label(key) and f"llm {key} both_correct: right->wrong r1" in diff


def test_the_exam_table_of_a_one_question_exam_does_not_claim_certainty():
    metrics = {"m": {"trad_score": 100.0, "trad_score_se": 0.0, "idk_score": 100.0, "idk_score_se": 0.0,
                     "idk_freq": 0.0, "idk_freq_se": 0.0, "extract_fail": 0.0, "extract_fail_se": 0.0,
                     "short_answer": 50.0, "short_answer_se": 0.0, "exam_score": 50.0, "mcq_n": 1,
                     "short_answer_n": 1, "latency_s": None, "cost_usd": None}}
    shown = format_exam_table(metrics)
    assert "50.0 (n=1)" in shown and "± 0.0" not in shown



def test_the_metrics_carry_the_rank_set_and_the_bounds_the_views_print(board):
    """`dvc metrics show metrics/rank_sets_<split>.json` has one rank set per model, and the leaderboard
    metrics the posterior's [lo, hi] as printed, not only its ± cover."""
    _, _, ranked = board
    metrics, view = leaderboard_metrics(ranked), rank_set_view(ranked)
    assert view == {m: metrics[m]["rank_set"] for m in metrics} and all(re.fullmatch(r"\d+-\d+", s) for s in view.values())
    for r in ranked.itertuples():
        e = metrics[r.model]
        assert (e["lo"], e["hi"]) == (e["posterior"]["lo"], e["posterior"]["hi"]) == bounds_pct(r.posterior_lo, r.posterior_hi)
