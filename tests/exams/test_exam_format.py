"""The exam file: the notebook's JSON read as is; errors name the file, the question and the field."""

from __future__ import annotations

import json

import pytest

from helpers import ROOT
from helpers.exams import exam_data, mcq, short
from sideways.core.errors import SchemaError
from sideways.exams.format import load_exam, parse_exam


def test_the_demo_exam_has_enough_questions_of_each_kind():
    exam = load_exam(ROOT / "data/exams/demo.json")
    kinds = [q.kind for q in exam.questions]
    assert kinds.count("mcq") >= 24 and kinds.count("short_answer") >= 8
    assert all(q.rubric for q in exam.questions if q.kind == "short_answer")


def test_the_notebooks_layout_is_read_as_is(tmp_path):
    data = exam_data([mcq("q1", "Which?", answer="c"), short("q2", "Why?")])
    data["questions"][0].pop("topic")  # the notebook defaults a missing topic to 'unknown'
    data["questions"][1]["hint"] = "an extra key the notebook ignores"
    path = tmp_path / "exam.json"
    path.write_text(json.dumps(data))
    exam = load_exam(path)
    assert exam.name == "test exam" and exam.semester == "now"
    first, second = exam.questions
    assert (first.kind, first.topic, first.answer, first.points) == ("mcq", "unknown", "C", 1.0)
    assert [c for c, _ in first.choices] == ["A", "B", "C", "D"]
    assert (second.kind, second.rubric) == ("short_answer", ())


@pytest.mark.parametrize(("change", "message"), [
    (lambda q: q.pop("answer"), "question 'q1': field 'answer' must be a non-empty string"),
    (lambda q: q.update(answer="F"), "question 'q1': field 'answer' must be one of the choices' letters"),
    (lambda q: q.update(type="essay"), "question 'q1': field 'type' must be one of mcq, short_answer"),
    (lambda q: q.update(points=0), "question 'q1': field 'points' must be a positive number"),
    (lambda q: q.update(choices={"A": "x", "C": "y"}), "question 'q1': field 'choices' must be lettered A, B"),
    (lambda q: q.update(choices={"A": "x", "B": ""}), "question 'q1': field 'choices' has no text for B"),
    (lambda q: q.pop("question"), "question 'q1': field 'question' must be a non-empty string"),
])
def test_an_error_names_the_file_the_question_and_the_field(change, message):
    q = mcq("q1", "Which?")
    change(q)
    with pytest.raises(SchemaError) as err:
        parse_exam(exam_data([q]), "exams/mine.json")
    assert str(err.value).startswith("exams/mine.json: ") and message in str(err.value)


def test_a_rubric_must_be_a_list_of_criteria_and_ids_unique():
    with pytest.raises(SchemaError, match="question 'q2': field 'rubric' must be a list"):
        parse_exam(exam_data([short("q2", "Why?", rubric="all of it")]), "x.json")  # type: ignore[arg-type]
    with pytest.raises(SchemaError, match="question 'q1': field 'id' appears more than once"):
        parse_exam(exam_data([mcq("q1", "A?"), mcq("q1", "B?")]), "x.json")


@pytest.mark.parametrize("points", ["Infinity", "-Infinity", "NaN", "1e999"])
def test_points_must_be_finite(tmp_path, points):
    """JSON's Infinity and NaN parse as floats; infinite points made every exam_score NaN and
    metrics/exams.json not JSON. Refused at the exam file, naming the question."""
    text = json.dumps(exam_data([mcq("q1", "Which?"), short("q2", "Why?", points=3)])).replace(
        '"points": 3', f'"points": {points}', 1)
    assert f'"points": {points}' in text
    path = tmp_path / "exam.json"
    path.write_text(text)
    with pytest.raises(SchemaError, match=rf"^{path}: question 'q2': field 'points' must be a positive number, got "):
        load_exam(path)
