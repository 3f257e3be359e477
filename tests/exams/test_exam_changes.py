"""Exam rows of `sideways diff`: paired per question, clustered by topic; both exam layouts read."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from sideways.commands.diff import exam_tables
from sideways.exams.changes import exam_changes, paired_metric, t_quantile, t_sf2


def detail(model: str, right: list[bool], topics: int = 5) -> pd.DataFrame:
    """An mcq-only detail table: right answers earn 1 point (trad 1, idk 1), wrong ones trad 0, idk -1."""
    return pd.DataFrame({
        "model": model, "item_id": [f"q{i:02d}" for i in range(len(right))], "kind": "mcq",
        "topic": [f"t{i % topics}" for i in range(len(right))], "points": 1.0,
        "trad": [1.0 if r else 0.0 for r in right], "idk": [1.0 if r else -1.0 for r in right],
        "earned": [1.0 if r else 0.0 for r in right], "status": "ok"})


def test_students_t_matches_the_table():
    assert t_quantile(0.95, 4) == pytest.approx(2.776, abs=1e-3)
    assert t_quantile(0.95, 30) == pytest.approx(2.042, abs=1e-3)
    assert t_sf2(2.228, 10) == pytest.approx(0.05, abs=1e-3)


def test_the_same_answers_change_nothing():
    a = detail("m", [i % 3 != 0 for i in range(25)])
    got = paired_metric(a, a, "trad_score")
    assert got is not None and (got["change"], got["p"], got["to_wrong"], got["to_right"]) == (0.0, 1.0, [], [])


def test_a_model_right_on_every_question_now_is_up_and_its_flips_are_listed():
    before = [i % 2 == 0 for i in range(40)]
    got = paired_metric(detail("m", before), detail("m", [True] * 40), "trad_score")
    assert got is not None
    assert got["change"] == pytest.approx(50.0) and got["lo"] > 0 and got["p"] < 0.01
    assert got["clusters"] == 5 and len(got["to_right"]) == 20 and got["to_wrong"] == []


def test_clustering_by_topic_widens_the_interval_when_a_topic_moves_together():
    before = [False] * 40
    after = [i % 5 == 0 for i in range(40)]  # one topic of five flips, all of it
    clustered = paired_metric(detail("m", before), detail("m", after), "trad_score")
    flat = paired_metric(detail("m", before, topics=1), detail("m", after, topics=1), "trad_score")
    assert clustered is not None and flat is not None
    assert clustered["hi"] - clustered["lo"] > flat["hi"] - flat["lo"]
    assert flat["p"] < 0.05 < clustered["p"]


def test_a_model_in_one_version_only_is_one_line():
    rows, problems = exam_changes("demo", detail("m1", [True] * 5), detail("m2", [True] * 5), ("A", "B"), ({}, {}))
    assert rows == [] and problems == ["demo, m1: took the exam in A only; no change to compute",
                                       "demo, m2: took the exam in B only; no change to compute"]


def test_both_exam_layouts_are_read(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "metrics").mkdir()
    (tmp_path / "data/exam/detail").mkdir(parents=True)
    detail("m", [True] * 3).to_parquet(tmp_path / "data/exam/detail.parquet")
    (tmp_path / "metrics/exam.json").write_text(json.dumps({"m": {"trad_score": 100.0}}))
    old, problems = exam_tables("workspace")
    assert list(old) == ["exam"] and old["exam"][1] == {"m": {"trad_score": 100.0}} and problems == []
    detail("m", [True] * 3).to_parquet(tmp_path / "data/exam/detail/gpqa.parquet")
    (tmp_path / "metrics/exams.json").write_text(json.dumps({"gpqa": {"m": {"trad_score": 100.0}}, "mmlu": {}}))
    new, problems = exam_tables("workspace")
    assert list(new) == ["gpqa"] and len(new["gpqa"][0]) == 3
    assert problems == ["data/exam/detail/mmlu.parquet: not in the workspace"]


def test_a_detail_of_one_file_per_model_is_read_and_a_metrics_model_key_never_names_a_path(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "metrics").mkdir()
    (tmp_path / "data/exam/detail/arc").mkdir(parents=True)
    detail("m", [True] * 3).to_parquet(tmp_path / "data/exam/detail/arc/m.parquet")
    detail("n", [False] * 4).to_parquet(tmp_path / "data/exam/detail/arc/n.parquet")
    (tmp_path / "data/exam/detail/evil.parquet").write_bytes(b"never read")
    (tmp_path / "metrics/exams.json").write_text(json.dumps({"arc": {"n": {}, "m": {}}, "gone": {"m": {}},
                                                             "evil": {"../../metrics/exams": {}}}))
    got, problems = exam_tables("workspace")
    assert list(got) == ["arc"] and got["arc"][0]["model"].tolist() == ["m"] * 3 + ["n"] * 4
    assert problems == ["metrics/exams.json at workspace: exam evil: '../../metrics/exams' is not a model key; "
                        "not compared", "data/exam/detail/gone/m.parquet: not in the workspace"]


def test_exam_tie_groups_separate_a_model_right_everywhere_from_one_wrong_everywhere():
    from sideways.exams.changes import exam_tie_groups

    n = 40
    table = pd.concat([detail("best", [True] * n), detail("close", [True] * (n - 1) + [False]),
                       detail("worst", [False] * n)], ignore_index=True)
    assert exam_tie_groups(table) == {"best": "1", "close": "1", "worst": "2"}


def sampled_scores(score: float, se: float, asked: int) -> dict[str, dict[str, float]]:
    """One model's published metrics on a sampled exam: the whole-exam estimate (percent) and its se."""
    return {"m": {"exam_score": score, "exam_score_se": se, "asked_n": asked, "exam_n": 400}}


def test_a_sampled_exams_score_changes_by_the_difference_of_its_published_estimates():
    """The row's change is B's estimate minus A's, as the metrics show them, not the sample's paired mean
    (here the sample's mean moves by 25 points while the whole-exam estimates move by 3)."""
    before, after = [i % 2 == 0 for i in range(40)], [i % 4 != 3 for i in range(40)]
    a, b = sampled_scores(60.0, 2.0, 40), sampled_scores(63.0, 2.5, 40)
    rows, _ = exam_changes("demo", detail("m", before), detail("m", after), ("A", "B"), (a, b))
    row = next(r for r in rows if r["metric"] == "exam_score")
    se = (2.0**2 + 2.5**2) ** 0.5
    assert row["estimated"] and row["change"] == pytest.approx(3.0) and row["se"] == pytest.approx(se)
    assert row["lo"] == pytest.approx(3.0 - t_quantile(0.95, 39) * se)
    assert row["change"] == pytest.approx(row["b"] - row["a"])
    trad = next(r for r in rows if r["metric"] == "trad_score")  # the sample's own means stay paired
    assert trad["change"] == pytest.approx(25.0) and "estimated" not in trad


def test_a_sampled_exam_row_is_marked_and_explained():
    from sideways.commands.diff import render_text
    from sideways.scoring.changes import Changes
    rows, _ = exam_changes("demo", detail("m", [True] * 20), detail("m", [False] * 20), ("A", "B"),
                           (sampled_scores(70.0, 3.0, 20), sampled_scores(69.0, 3.0, 20)))
    for r in rows:
        r["verdict"] = "no detectable change"
    text = render_text(Changes(rows=rows), "A", "B", items=False)
    line = next(ln for ln in text.splitlines() if "exam_score" in ln and ln.startswith("demo"))
    assert "]~" in line and "-1.0" in line
    assert any(ln.startswith("~ demo: a sampled exam's exam_score") for ln in text.splitlines())
    assert max(len(ln) for ln in text.splitlines()) <= 120
