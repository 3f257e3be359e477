"""An exam's page as data: outcome codes, the index and chunks of the question explorer, the
metrics passed through as exams.results computed them, the files of the site, and no page
without an exam."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from report_tables import XSS_QUESTION, XSS_REPLY, exam_tables, params_with_models, split_tables

from helpers import project_params
from sideways.artifacts import paths
from sideways.artifacts.schema import records
from sideways.config.params import parse_params
from sideways.report import exam_replies
from sideways.report.build import build_report
from sideways.report.exam_page import exam_page, outcome, outcomes
from sideways.report.exam_replies import GROUP, reply_path
from sideways.report.inputs import ExamTables, exam_files, input_files
from sideways.report.site import site_files

HEADER = {"commit": None, "dirty": None, "params": "p", "data": "d"}


def _detail(**kw):
    base = {"status": "ok", "kind": "mcq", "extract_fail": 0.0, "idk_freq": 0.0, "trad": 0.0, "judges": 0,
            "earned": 0.0, "points": 2.0}
    return base | kw


@pytest.mark.parametrize(("row", "code"), [
    (_detail(status="api_error"), "e"), (_detail(extract_fail=1.0), "x"), (_detail(idk_freq=1.0), "i"),
    (_detail(trad=1.0), "p"), (_detail(), "f"), (_detail(kind="short_answer"), "u"),
    (_detail(kind="short_answer", judges=2, earned=2.0), "p"), (_detail(kind="short_answer", judges=1, earned=0.5), "h"),
    (_detail(kind="short_answer", judges=1, earned=0.0), "f"),
])
def test_each_detail_row_has_its_outcome_code(row, code):
    assert outcome(row) == code


def _tiny() -> ExamTables:
    """Two questions; model m1 answers both, m2 only the first; two judges disagree on m1's short answer."""
    items = pd.DataFrame({
        "item_id": ["q1", "q2"], "exam": "tiny exam", "kind": ["mcq", "short_answer"], "topic": ["t1", "t2"],
        "points": [1.0, 2.0], "question": ["Pick one", "Explain"], "answer": ["Mercury", "Because"],
        "choices": [json.dumps({"B": "Venus", "A": "Mercury", "E": "I don't know"}), None], "gold": ["A", None],
        "rubric": [None, json.dumps(["Says because"])]})
    predictions = pd.DataFrame({"item_id": ["q1", "q2", "q1"], "model": ["m1", "m1", "m2"],
                                "text": ["Answer: A", "Because so", "Answer: B"], "error": None})
    detail = pd.DataFrame([
        {"model": "m1", "item_id": "q1", "letters": "A", **_detail(trad=1.0, earned=1.0, points=1.0)},
        {"model": "m1", "item_id": "q2", "letters": None, **_detail(kind="short_answer", judges=2, earned=1.0)},
        {"model": "m2", "item_id": "q1", "letters": "B", **_detail(points=1.0)}])
    grades = pd.DataFrame({"item_id": "q2", "model": "m1", "judge": ["jb", "ja"], "strategy": "baseline",
                           "earned": [0.0, 2.0], "status": "ok", "raw": ["SCORE: 0/2", "SCORE: 2/2"], "error": None})
    metrics = {"m2": {"trad_score": 0.0, "trad_score_se": 0.0}, "m1": {"trad_score": 123.0, "trad_score_se": 4.5}}
    topics = {"m1": {"t1": {"earned": 1.0, "possible": 1.0, "score": 100.0}}}
    return ExamTables("tiny", items, predictions, grades, detail, metrics, topics)


def test_the_index_has_one_code_per_model_and_flags_judges_that_disagree():
    page, chunks, _ = exam_page(_tiny(), ["m1", "m2", "m3"])
    assert [(r["id"], r["o"], r["d"]) for r in page["index"]] == [("q1", "pf-", "000"), ("q2", "h--", "100")]
    assert "mercury" in page["index"][0]["text"] and "venus" in page["index"][0]["text"]
    assert page["title"] == "tiny exam" and page["chunks"] == len(chunks) == 1


def test_metrics_and_topics_are_the_ones_given_in_params_order():
    page, _, _ = exam_page(_tiny(), ["m1", "m2", "m3"])
    assert [(m["model"], m["trad_score"], m["trad_score_se"]) for m in page["metrics"]] == [
        ("m1", 123.0, 4.5), ("m2", 0.0, 0.0)]
    assert page["topics"] == {"groups": ["t1", "t2"], "rows": [
        {"model": "m1", "cells": [{"rate": 100.0, "n": 1.0, "earned": 1.0}, None]}]}


def _joined(files: dict[str, bytes], exam: str, chunk: int, groups: int) -> list[dict[str, dict[str, list]]]:
    """A chunk's replies as the page joins them: each group's file's columns, in group order."""
    parts = [json.loads(files[reply_path(exam, chunk, g)].decode().split("\n")[1].split(", ", 3)[3].removesuffix(");"))
             for g in range(groups)]
    return [{side: {c: [v for part in parts for v in part[q][side][c]] for c in parts[0][q][side]} for side in ("p", "k")}
            for q in range(len(parts[0]))]


def test_a_chunk_holds_the_question_as_presented_its_reply_files_the_replies_and_each_judges_verdict():
    page, chunks, files = exam_page(_tiny(), ["m2", "m1"])
    q1, q2 = chunks[0]
    assert q1["choices"] == [("A", "Mercury"), ("B", "Venus"), ("E", "I don't know")] and q1["gold"] == "A"
    assert q2["criteria"] == ["Says because"] and "p" not in q1 and (page["groups"], page["group"]) == (1, GROUP)
    r1, r2 = _joined(files, "tiny", 0, 1)
    assert (r1["p"]["m"], r1["p"]["t"], r1["p"]["l"], r1["p"]["o"]) == (
        ["m2", "m1"], ["Answer: B", "Answer: A"], ["B", "A"], ["f", "p"])
    assert r2["p"]["kn"] == [2]
    assert (r2["k"]["judge"], r2["k"]["r"], r2["k"]["x"]) == (["ja", "jb"], [2.0, 0.0], ["SCORE: 2/2", "SCORE: 0/2"])


def test_the_replies_of_each_group_of_models_are_a_file_of_their_own_joined_as_one(monkeypatch):
    _, _, whole = exam_page(_tiny(), ["m2", "m3", "m1"])
    monkeypatch.setattr(exam_replies, "GROUP", 1)
    page, _, files = exam_page(_tiny(), ["m2", "m3", "m1"])
    assert page["groups"] == 3 and sorted(files) == [reply_path("tiny", 0, g) for g in range(3)]
    assert _joined(files, "tiny", 0, 3) == _joined(whole, "tiny", 0, 1)


def test_each_outcome_code_at_once_is_the_one_of_its_row():
    t = exam_tables(params_with_models(project_params(), 12), 60)
    detail = t.detail.copy()
    detail.loc[::7, "status"] = "api_error"
    detail.loc[::5, "extract_fail"] = float("nan")
    assert outcomes(detail).tolist() == [outcome(r) for r in records(detail)]


@pytest.fixture(scope="module")
def params():
    return params_with_models(project_params(), None)


def test_each_exam_has_its_page_and_its_chunk_files_and_none_without_an_exam(params):
    splits = {s: split_tables(params, s, 10) for s in params.splits}
    with_exams = build_report(splits, params, HEADER, [exam_tables(params, 30), exam_tables(params, 4, key="two")])
    assert [x["key"] for x in with_exams.summary["exams"]] == ["exam", "two"]
    files = site_files(with_exams)
    assert sorted(f for f in files if f.startswith("data/exams/")) == [
        "data/exams/exam/chunk-0000-g00.js", "data/exams/exam/chunk-0000.js", "data/exams/exam/chunk-0001-g00.js",
        "data/exams/exam/chunk-0001.js", "data/exams/two/chunk-0000-g00.js", "data/exams/two/chunk-0000.js"]
    assert XSS_QUESTION not in files["data/exams/exam/chunk-0000.js"].decode()  # every < escaped
    assert XSS_REPLY not in files["data/exams/exam/chunk-0000-g00.js"].decode() and "<" not in files[
        "data/exams/exam/chunk-0000-g00.js"].decode()
    without = build_report(splits, params, HEADER)
    assert without.summary["exams"] == [] and not any(f.startswith("data/exams/") for f in site_files(without))


def test_each_exams_tables_are_read_from_its_folders_for_the_models_that_take_it():
    data = project_params()
    data["exams"]["second"] = dict(data["exams"]["demo"])
    data["models"]["atlas-mini"]["takes"] = ["llm", "second"]
    params = parse_params(data)
    files = exam_files(params)
    assert list(files) == ["demo", "second"]
    assert files["demo"]["items"] == [paths.exam_items("demo")] and files["demo"]["metrics"] == [paths.EXAM_METRICS]
    assert files["demo"]["grades"] == [paths.exam_grades("demo", m.key) for m in params.models if m.key != "atlas-mini"]
    assert paths.exam_predictions("second", "atlas-mini") in files["second"]["predictions"]
    assert {str(paths.exam_detail("second", "atlas-mini")), str(paths.EXAM_TOPICS)} <= set(input_files(params))
    assert files["demo"]["detail"] == sorted(paths.exam_detail("demo", m.key) for m in params.models
                                             if m.key != "atlas-mini")  # the models taking it, in key order
