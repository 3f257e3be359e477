"""``exams:`` (a map of exams by key, issue 28): each exam's spec, the hub column mapping and its
presets, the refusal of the old ``exam:`` key, and reading an exam from either source."""

from __future__ import annotations

import json

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers.exams import exam_data, mcq
from helpers.hub_exams import write_gpqa_csv
from sideways.config.exam import ExamSpec, parse_exams, refuse_old_exam_key
from sideways.config.hub_columns import PRESETS
from sideways.core.errors import ParamsError
from sideways.exams.source import load_exam_spec

SRC = "params.yaml"
GPQA = {"source": "hf", "dataset": "Idavidrein/gpqa", "config": "gpqa_diamond", "split": "train",
        "revision": "633f5ee89ab8ad4522a9f850766b73f62147ffdd", "preset": "gpqa", "idk": False}


def test_no_exams_and_the_defaults_of_a_json_exam():
    assert parse_exams({}, SRC) == {} and parse_exams(None, SRC) == {}
    specs = parse_exams({"demo": {"path": "data/exams/demo.json"}, "quiz-2": {"path": "q.json", "judges": 2}}, SRC)
    assert list(specs) == ["demo", "quiz-2"]
    assert specs["demo"] == ExamSpec("demo", "json", path="data/exams/demo.json", idk=True,
                                     strategy="rubric_anchored", judges=1)
    assert specs["quiz-2"].judges == 2


def test_an_hf_exam_takes_its_preset_and_columns_over_it():
    spec = parse_exams({"gpqa": GPQA | {"columns": {"topic": "Subdomain"}}}, SRC)["gpqa"]
    assert (spec.source, spec.dataset, spec.config, spec.split, spec.preset) == (
        "hf", "Idavidrein/gpqa", "gpqa_diamond", "train", "gpqa")
    assert spec.revision == GPQA["revision"] and spec.idk is False and spec.path is None
    assert spec.columns is not None and spec.columns.topic == "Subdomain" and spec.columns.soft == {"id"}
    assert spec.columns.correct == "Correct Answer" and spec.columns.incorrect == PRESETS["gpqa"].incorrect


def test_columns_alone_describe_a_layout():
    columns = {"question": "prompt", "options": ["o1", "o2", "o3"], "answer": "label", "answer_format": "letter"}
    spec = parse_exams({"mine": {"source": "hf", "dataset": "data/hub/mine", "split": "test", "columns": columns}},
                       SRC)["mine"]
    assert spec.columns is not None and spec.columns.options == ("o1", "o2", "o3")
    assert spec.columns.answer_format == "letter" and spec.columns.soft == frozenset()


@pytest.mark.parametrize(("exams", "message"), [
    ({"demo": {"path": "d.json", "stratgy": "baseline"}}, r"exams\.demo\.stratgy: unknown key \(did you mean 'strategy'\?\)"),
    ({"g": GPQA | {"datset": "x"}}, r"exams\.g\.datset: unknown key \(did you mean 'dataset'\?\)"),
    ({"g": GPQA | {"columns": {"questoin": "Q"}}}, r"exams\.g\.columns\.questoin: unknown key \(did you mean 'question'"),
    ({"demo": {"path": "d.json", "preset": "gpqa"}}, r"exams\.demo\.preset: only with source: hf"),
    ({"g": GPQA | {"path": "d.json"}}, r"exams\.g\.path: only with source: json"),
    ({"demo": {"idk": True}}, r"exams\.demo\.path: expected a non-empty string, got None"),
    ({"g": {k: v for k, v in GPQA.items() if k != "split"}}, r"exams\.g\.split: expected a non-empty string"),
    ({"g": GPQA | {"preset": "gqpa"}}, r"exams\.g\.preset: 'gqpa' is not one of gpqa, mmlu, lettered"),
    ({"g": {"source": "hf", "dataset": "d", "split": "t"}}, r"exams\.g: source hf needs a preset"),
    ({"g": GPQA | {"columns": {"choices": "c"}}}, r"exams\.g\.columns: give the choices one way.*got choices, correct"),
    ({"g": GPQA | {"preset": "mmlu", "columns": {"answer": None}}}, r"exams\.g\.columns\.answer: choices needs the column"),
    ({"g": GPQA | {"preset": "mmlu", "columns": {"incorrect": ["x"]}}}, r"exams\.g\.columns\.incorrect: incorrect goes with correct"),
    ({"g": GPQA | {"columns": {"incorrect": []}}}, r"exams\.g\.columns\.incorrect: expected a non-empty list"),
    ({"g": GPQA | {"source": "web"}}, r"exams\.g\.source: 'web' is not one of json, hf"),
    ({"demo": {"path": "d.json", "judges": 0}}, r"exams\.demo\.judges: 0 is out of range"),
    ({"My Exam": {"path": "d.json"}}, r"exams: exam key 'My Exam' must be lowercase"),
    ({"a/b": {"path": "d.json"}}, r"exams: exam key 'a/b' must be lowercase"),
    ({"llm": {"path": "d.json"}}, r"exams: exam key 'llm' is a riddle split's name"),
    ({"demo": "d.json"}, r"exams\.demo: expected a mapping, got str"),
    ({"demo": {"path": "d.json", "sample": 0}}, r"exams\.demo\.sample: a number of questions must be >= 1, got 0"),
    ({"demo": {"path": "d.json", "sample": 1.5}}, r"exams\.demo\.sample: a share of the questions must be in \(0, 1\]"),
    ({"demo": {"path": "d.json", "sample": 0.0}}, r"exams\.demo\.sample: a share of the questions must be in \(0, 1\]"),
    ({"demo": {"path": "d.json", "sample": float("nan")}}, r"exams\.demo\.sample: expected a number of questions"),
    ({"demo": {"path": "d.json", "sample": True}}, r"exams\.demo\.sample: expected a number of questions"),
    ({"demo": {"path": "d.json", "sample": "10"}}, r"exams\.demo\.sample: expected a number of questions"),
    ([{"path": "d.json"}], r"exams: expected a mapping, got list"),
])
def test_a_mistake_is_one_line_naming_the_key(exams, message):
    with pytest.raises(ParamsError, match=f"^{SRC}: {message}") as err:
        parse_exams(exams, SRC)
    assert "\n" not in str(err.value)


def test_the_old_exam_key_is_refused_with_its_equivalent_which_parses_back():
    old = {"path": "data/exams/course.json", "idk": False, "strategy": "baseline", "judges": 2}
    with pytest.raises(ParamsError, match=r"^params\.yaml: exam: replaced by exams:") as err:
        refuse_old_exam_key({"seed": 1, "exam": old}, SRC)
    message = str(err.value)
    assert "exams: {course: {path: data/exams/course.json, idk: false, strategy: baseline, judges: 2}}" in message
    suggested = yaml.safe_load(message.split("write ", 1)[1].split(" (exams: {}", 1)[0])
    assert parse_exams(suggested["exams"], SRC)["course"] == ExamSpec("course", path=old["path"], idk=False,
                                                                       strategy="baseline", judges=2)


def test_an_empty_old_exam_key_suggests_the_demo_exam_and_no_old_key_passes():
    with pytest.raises(ParamsError, match=r"exams: \{demo: \{path: data/exams/demo\.json, idk: true, "):
        refuse_old_exam_key({"exam": None}, SRC)
    refuse_old_exam_key({"exams": {}}, SRC)


def test_load_exam_spec_reads_either_source_relative_to_the_root(tmp_path):
    (tmp_path / "exams").mkdir()
    (tmp_path / "exams" / "quiz.json").write_text(json.dumps(exam_data([mcq("m0", "Zero?"), mcq("m1", "One?")])))
    write_gpqa_csv(tmp_path / "hub" / "gpqa", n=3)
    specs = parse_exams({"quiz": {"path": "exams/quiz.json"},
                         "gpqa": {"source": "hf", "dataset": "hub/gpqa", "split": "train", "preset": "gpqa"}}, SRC)
    quiz = load_exam_spec(specs["quiz"], tmp_path)
    assert quiz.name == "test exam" and [q.id for q in quiz.questions] == ["m0", "m1"]
    gpqa = load_exam_spec(specs["gpqa"], tmp_path, cache_dir=tmp_path / "hf-cache")
    assert [q.id for q in gpqa.questions] == ["rec000", "rec001", "rec002"] and gpqa.name == "gpqa (train)"


def test_a_sample_is_a_count_or_a_share_and_a_count_over_the_exam_is_one_line():
    exams = parse_exams({"a": {"path": "d.json", "sample": 10}, "b": {"path": "d.json", "sample": 0.25},
                         "c": {"path": "d.json"}}, SRC)
    assert [exams[k].sample_size(33) for k in "abc"] == [10, 8, 33]  # a share rounds, at least 1
    assert parse_exams({"d": {"path": "d.json", "sample": 0.001}}, SRC)["d"].sample_size(33) == 1
    with pytest.raises(ParamsError, match=r"^exams\.a\.sample: 10 questions asked, but the exam has 9$"):
        exams["a"].sample_size(9)


@settings(max_examples=300, deadline=None)
@given(st.none() | st.booleans() | st.integers(-5, 10**6) | st.floats(allow_nan=True, allow_infinity=True)
       | st.text(max_size=5) | st.lists(st.integers(), max_size=2))
def test_any_sample_value_is_a_count_a_share_or_one_line_naming_the_field(value) -> None:
    try:
        spec = parse_exams({"demo": {"path": "d.json", "sample": value}}, SRC)["demo"]
    except ParamsError as exc:
        assert str(exc).startswith(f"{SRC}: exams.demo.sample: ") and "\n" not in str(exc)
    else:
        n = spec.sample_size(10**6)
        assert 1 <= n <= 10**6 and (value is None or isinstance(value, int) and n == value or 0 < value <= 1)
