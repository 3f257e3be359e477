"""What a user is told when an exam does not load: a header-only CSV has no questions, a Latin-1
CSV is not UTF-8 (file, line, byte), and `sideways check` notices a missing exam file or dataset
folder before any stage runs."""

from __future__ import annotations

import shutil

import pytest
import yaml

from helpers import ROOT, project_params
from helpers.hub_exams import gpqa_rows, write_gpqa_csv
from sideways.cli import main
from sideways.config.hub_columns import PRESETS
from sideways.core.errors import SchemaError
from sideways.exams.hub import load_hub_exam


def test_a_header_only_csv_is_an_exam_without_questions(tmp_path):
    root = write_gpqa_csv(tmp_path / "gpqa", n=2)
    csv = root / "gpqa_diamond.csv"
    csv.write_text(csv.read_text().splitlines()[0] + "\n")
    with pytest.raises(SchemaError) as err:
        load_hub_exam(str(root), "train", PRESETS["gpqa"], cache_dir=tmp_path / "cache")
    message = str(err.value)
    assert "the exam has no questions" in message and "huggingface-cli" not in message, message
    assert "\n" not in message


def test_a_latin1_csv_names_the_file_line_and_byte(tmp_path):
    root = write_gpqa_csv(tmp_path / "gpqa", n=3)
    csv = root / "gpqa_diamond.csv"
    text = csv.read_text().replace("which value is right?", "which caf\u00e9 is right?")
    csv.write_bytes(text.encode("latin-1"))
    with pytest.raises(SchemaError, match=r"gpqa_diamond\.csv: not UTF-8 \(line 2, byte \d+: 0xe9\); save it as "
                                          r"UTF-8$"):
        load_hub_exam(str(root), "train", PRESETS["gpqa"], cache_dir=tmp_path / "cache")
    assert gpqa_rows(1)  # the layout helper is the one the other hub tests use


def _params(tmp_path, exams):
    data = project_params()
    data["exams"] = exams
    path = tmp_path / "params.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


@pytest.mark.parametrize(("exam", "message"), [
    ({"path": "data/exams/nope.json"}, "exams.x.path: data/exams/nope.json: no such file"),
    ({"source": "hf", "dataset": "data/exams/gpqa", "preset": "gpqa", "split": "train"},
     "exams.x.dataset: data/exams/gpqa: no such directory"),
])
def test_check_notices_a_missing_exam_file_or_dataset_folder(tmp_path, capsys, exam, message):
    (tmp_path / "data" / "exams").mkdir(parents=True)
    params = _params(tmp_path, {"x": exam})
    assert main(["check", "--params", str(params)]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1, err


def test_check_passes_a_hub_id_and_an_existing_folder(tmp_path, capsys):
    write_gpqa_csv(tmp_path / "data" / "exams" / "gpqa", n=2)
    riddles = tmp_path / "data" / "riddles" / "demo.jsonl"  # sideways check also wants the riddles it names
    riddles.parent.mkdir(parents=True)
    shutil.copy(ROOT / "data" / "riddles" / "demo.jsonl", riddles)
    params = _params(tmp_path, {"hub": {"source": "hf", "dataset": "Idavidrein/gpqa", "preset": "gpqa",
                                        "config": "gpqa_diamond", "split": "train"},
                                "local": {"source": "hf", "dataset": "data/exams/gpqa", "preset": "gpqa",
                                          "split": "train"}})
    assert main(["check", "--params", str(params)]) == 0, capsys.readouterr().err
