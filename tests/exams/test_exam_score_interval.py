"""Each model's exam score comes with its 95% interval clustered by topic (docs/exams.md, "Results"): the
estimator of its paired changes and tie groups, on the questions a real lm-eval run wrote (tests/data/imported)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sideways.exams.changes import paired_metric, score_interval
from sideways.exams.results import detail_table, format_exam_table, model_metrics
from sideways.exams.student import t_quantile
from sideways.imports.lm_eval import read_lm_eval
from sideways.imports.run import exam_tables

DATA = Path(__file__).resolve().parents[1] / "data" / "imported" / "lm_eval"


def detail(runs: dict[str, Path]) -> pd.DataFrame:
    return detail_table(*exam_tables("arith", {k: read_lm_eval(p) for k, p in runs.items()}))


def test_an_imported_runs_score_has_its_interval_clustered_by_the_samples_subjects():
    d = detail({"base": DATA / "seed1"})
    m = model_metrics(d)["base"]
    assert m["exam_score_lo"] < m["exam_score"] < m["exam_score_hi"]
    topics = d["topic"].nunique()
    assert topics > 1  # the subjects the samples carry
    half = (m["exam_score_hi"] - m["exam_score_lo"]) / 2
    assert half == pytest.approx(t_quantile(0.95, topics - 1) * m["exam_score_se"], abs=0.02)
    one_topic = model_metrics(d.assign(topic="all"))["base"]  # one cluster: question by question
    assert one_topic["exam_score_se"] == pytest.approx(one_topic["short_answer_se"], abs=0.01)
    table = format_exam_table(model_metrics(d))
    assert f"base: exam {m['exam_score']:.1f} [{m['exam_score_lo']:.1f}, {m['exam_score_hi']:.1f}]" in table


def test_the_interval_is_the_paired_changes_estimator_against_a_model_scoring_nothing():
    d = detail({"base": DATA / "seed1"})
    zero = d.assign(model="zero", earned=0.0)
    change = paired_metric(zero, d, "exam_score")
    assert change is not None
    m = model_metrics(d)["base"]
    assert (m["exam_score"], m["exam_score_se"]) == (round(change["change"], 2), round(change["se"], 2))
    assert (m["exam_score_lo"], m["exam_score_hi"]) == (round(max(0.0, change["lo"]), 2),
                                                        round(min(100.0, change["hi"]), 2))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from("abcd"), st.floats(0, 1), st.sampled_from([1.0, 2.0, 3.0])),
                min_size=1, max_size=40))
def test_the_interval_holds_the_score_whatever_the_questions(rows):
    d = pd.DataFrame({"model": "m", "item_id": [f"q{i}" for i in range(len(rows))], "kind": "short_answer",
                      "topic": [t for t, _, _ in rows], "points": [p for _, _, p in rows],
                      "earned": [x * p for _, x, p in rows], "status": "ok"})
    got = score_interval(d)
    score = 100 * float(np.sum(d["earned"]) / np.sum(d["points"]))
    if got["exam_score_se"] is None:  # one question: no spread to measure
        assert len(rows) == 1
        return
    assert got["exam_score_lo"] <= round(score, 2) + 0.01 and round(score, 2) - 0.01 <= got["exam_score_hi"]
    assert got["exam_score_se"] >= 0
    assert 0.0 <= got["exam_score_lo"] <= got["exam_score_hi"] <= 100.0  # a share of the points: never past 100


def test_the_interval_stays_within_0_and_100_points():
    """Five topics (Student's t on 4 degrees of freedom) and a high score: the unclipped interval passed 100."""
    rows = [(t, 0.0 if (t == "e" and i % 2) else 1.0) for i, t in enumerate("abcde" * 8)]  # 90 ± 10 (se)
    d = pd.DataFrame({"model": "m", "item_id": [f"q{i}" for i in range(len(rows))], "kind": "short_answer",
                      "topic": [t for t, _ in rows], "points": 1.0, "earned": [x for _, x in rows], "status": "ok"})
    got = score_interval(d)
    assert got["exam_score_hi"] == 100.0 and 0.0 < got["exam_score_lo"] < 100.0
