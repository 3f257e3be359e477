"""Exams read from local datasets in the hub's layouts (GPQA, MMLU, lettered columns) through the
real ``datasets`` library, offline: the questions, the gold letter through the seeded shuffle, the errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from helpers.hub_exams import gpqa_rows, write_gpqa_csv, write_lettered_saved, write_mmlu_parquet
from sideways.config.hub_columns import PRESETS, HubColumns
from sideways.core.errors import SchemaError
from sideways.exams.format import Exam
from sideways.exams.hub import Where, hub_questions, load_hub_exam
from sideways.exams.items import items_table


@pytest.fixture()
def cache(tmp_path: Path) -> Path:
    return tmp_path / "hf-cache"


def gold_text(exam: Exam, qid: str) -> str:
    q = next(q for q in exam.questions if q.id == qid)
    return dict(q.choices)[q.answer]


def test_gpqa_layout_keeps_the_correct_text_gold_through_the_seeded_shuffle(tmp_path, cache):
    root = write_gpqa_csv(tmp_path / "gpqa")
    exam = load_hub_exam(str(root), "train", PRESETS["gpqa"], cache_dir=cache)
    assert [q.id for q in exam.questions] == [f"rec{i:03d}" for i in range(12)]
    assert [q.topic for q in exam.questions[:3]] == ["Physics", "Chemistry", "Biology"]
    assert {q.kind for q in exam.questions} == {"mcq"} and {q.points for q in exam.questions} == {1.0}
    for i, q in enumerate(exam.questions):
        assert sorted(t for _, t in q.choices) == sorted([f"right {i}", f"wrong {i}.1", f"wrong {i}.2",
                                                          f"wrong {i}.3"])
        assert gold_text(exam, q.id) == f"right {i}"
    # the correct answer is not always first, and the order is the dataset's, not the run's
    assert len({q.answer for q in exam.questions}) > 1
    assert load_hub_exam(str(root), "train", PRESETS["gpqa"], cache_dir=cache) == exam
    for seed in (0, 1):
        items = items_table(exam, seed, idk=True).set_index("item_id")
        for i, q in enumerate(exam.questions):
            shown = json.loads(items.loc[q.id, "choices"])
            assert shown[items.loc[q.id, "gold"]] == f"right {i}" and shown["E"] == "I don't know"


def test_gpqa_layout_without_its_id_and_domain_columns_numbers_the_rows(tmp_path, cache):
    root = write_gpqa_csv(tmp_path / "my-gpqa", n=3, full=False)
    exam = load_hub_exam(str(root), "train", PRESETS["gpqa"], cache_dir=cache)
    assert [q.id for q in exam.questions] == ["train-0", "train-1", "train-2"]
    assert {q.topic for q in exam.questions} == {"my-gpqa"} and exam.name == "my-gpqa (train)"


def test_mmlu_layout_reads_the_classlabel_answer_as_an_index(tmp_path, cache):
    root = write_mmlu_parquet(tmp_path / "mmlu")
    exam = load_hub_exam(str(root), "test", PRESETS["mmlu"], cache_dir=cache)
    assert [q.id for q in exam.questions] == [f"test-{i}" for i in range(8)]
    assert [q.answer for q in exam.questions] == ["ABCD"[i % 4] for i in range(8)]
    assert [gold_text(exam, q.id) for q in exam.questions] == [f"c{i}-{i % 4}" for i in range(8)]
    assert [q.topic for q in exam.questions[:2]] == ["astronomy", "virology"]


@pytest.mark.parametrize("as_dict", [True, False])
def test_lettered_layout_saved_with_save_to_disk(tmp_path, as_dict):
    root = write_lettered_saved(tmp_path / "lettered", as_dict=as_dict)
    exam = load_hub_exam(str(root), "test", PRESETS["lettered"])
    assert [q.id for q in exam.questions] == [f"L{i}" for i in range(6)]
    assert [q.answer for q in exam.questions] == ["ABCD"[(i * 3) % 4] for i in range(6)]
    assert exam.questions[1].choices == (("A", "a1"), ("B", "b1"), ("C", "c1"), ("D", "d1"))


def test_a_saved_dataset_without_the_split_names_the_ones_it_has(tmp_path):
    root = write_lettered_saved(tmp_path / "lettered", split="validation")
    with pytest.raises(SchemaError, match=r"lettered split test: no split 'test' in the saved dataset "
                                          r"\(it has validation\)"):
        load_hub_exam(str(root), "test", PRESETS["lettered"])


def test_an_empty_cell_names_the_dataset_the_row_and_the_column(tmp_path, cache):
    wrong = gpqa_rows(4)["Incorrect Answer 2"]
    wrong[2] = " "
    root = write_gpqa_csv(tmp_path / "gpqa", n=4, **{"Incorrect Answer 2": wrong})
    with pytest.raises(SchemaError, match=r"^hf dataset .*gpqa split train: row 2: column 'Incorrect Answer 2': "
                                          r"expected a non-empty text"):
        load_hub_exam(str(root), "train", PRESETS["gpqa"], cache_dir=cache)


def test_a_missing_column_is_named_with_the_columns_there_are(tmp_path, cache):
    root = write_mmlu_parquet(tmp_path / "mmlu")
    columns = HubColumns(question="question", choices="options", answer="answer")
    with pytest.raises(SchemaError, match=r"column 'options' not found \(the dataset has question, subject, "
                                          r"choices, answer\)"):
        load_hub_exam(str(root), "test", columns, cache_dir=cache)


WHERE = Where("someone/bench", "main", "test")
ROWS = [{"q": "One?", "opts": ["x", "y", "z"], "ans": 1, "let": "b", "txt": "y", "qid": "a"},
        {"q": "Two?", "opts": ["u", "v"], "ans": 0, "let": "A", "txt": "u", "qid": "b"}]
NAMES = list(ROWS[0])


@pytest.mark.parametrize(("answer", "fmt"), [("ans", "index"), ("let", "letter"), ("txt", "text")])
def test_each_answer_format_gives_the_same_gold(answer, fmt):
    c = HubColumns(question="q", choices="opts", answer=answer, answer_format=fmt)
    questions = hub_questions(ROWS, NAMES, c, WHERE)
    assert [q.answer for q in questions] == ["B", "A"]
    assert [q.id for q in questions] == ["test-0", "test-1"] and questions[0].topic == "someone/bench"


@pytest.mark.parametrize(("row", "fmt", "message"), [
    ({"ans": 3}, "index", r"row 0: column 'ans': expected a choice index 0 to 2, got 3"),
    ({"ans": True}, "index", r"row 0: column 'ans': expected a choice index 0 to 2, got True"),
    ({"ans": "D"}, "letter", r"row 0: column 'ans': expected a letter A to C, got 'D'"),
    ({"ans": "w"}, "text", r"row 0: column 'ans': the answer text matches no choice: 'w'"),
    ({"opts": ["x", "x"], "ans": "x"}, "text", r"row 0: column 'ans': the answer text matches 2 choices"),
    ({"opts": ["x"]}, "index", r"row 0: column 'opts': expected a list of at least two choices"),
])
def test_a_bad_answer_is_one_line_naming_dataset_row_and_column(row, fmt, message):
    c = HubColumns(question="q", choices="opts", answer="ans", answer_format=fmt)
    with pytest.raises(SchemaError, match="^hf dataset someone/bench config main split test: " + message):
        hub_questions([ROWS[0] | row], NAMES, c, WHERE)


def test_a_repeated_id_names_both_rows():
    c = HubColumns(question="q", choices="opts", answer="ans", id="qid")
    with pytest.raises(SchemaError, match=r"row 1: column 'qid': id 'a' already in row 0"):
        hub_questions([ROWS[0], ROWS[1] | {"qid": "a"}], NAMES, c, WHERE)


def test_a_path_that_is_not_a_directory_is_named(tmp_path):
    with pytest.raises(SchemaError, match=r"is not an existing directory"):
        load_hub_exam(str(tmp_path / "nowhere"), "test", PRESETS["mmlu"])


def test_a_broken_saved_dataset_is_one_line(tmp_path):
    root = write_lettered_saved(tmp_path / "lettered", as_dict=False)
    for arrow in root.glob("*.arrow"):
        arrow.write_bytes(b"not arrow")
    with pytest.raises(SchemaError, match=r"^hf dataset .*lettered split test: not readable by load_from_disk"):
        load_hub_exam(str(root), "test", PRESETS["lettered"])
