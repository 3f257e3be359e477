"""Issue 27 (the low findings): inputs that gave a traceback now give one line naming the file."""

from __future__ import annotations

import json

import pandas as pd
import pytest
import yaml

from helpers import ROOT, project_params
from sideways.annotation.labels import read_label_file
from sideways.cli import main
from sideways.core.errors import SidewaysError
from sideways.exams.format import load_exam
from sideways.sources.demo import load_demo


def _params(tmp_path, **changes):
    params = {**project_params(), **changes}
    path = tmp_path / "params.yaml"
    path.write_text(yaml.safe_dump(params))
    return path


@pytest.mark.parametrize(("make", "message"), [
    (lambda p: (p / "folder").mkdir() or p / "folder", "is a folder"),
    (lambda p: (p / "latin1.yaml").write_bytes(b"seed: 0\nnote: caf\xe9\n") and p / "latin1.yaml", "not UTF-8"),
    (lambda p: _params(p, splits=5), "splits: expected a list of split names"),
])
def test_sideways_check_says_one_line(tmp_path, capsys, make, message):
    path = make(tmp_path)
    assert main(["check", "--params", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and str(path) in err and "Traceback" not in err and len(err.splitlines()) == 1


RIDDLES = pd.DataFrame({"riddle_id": ["r-00"]})


@pytest.mark.parametrize(("name", "data", "message"), [
    ("labels.jsonl", b'{"riddle_id": "r-\xff"}\n', "line 1: not UTF-8"),
    ("labels.parquet", b"PAR1 not really", "not a readable Parquet file"),
])
def test_damaged_label_files_are_named(tmp_path, name, data, message):
    path = tmp_path / name
    path.write_bytes(data)
    with pytest.raises(SidewaysError, match=message) as info:
        read_label_file(path, RIDDLES)
    assert str(path) in str(info.value)


@pytest.mark.parametrize(("data", "message"), [
    (b'{"exam_name": "caf\xe9"}', "not UTF-8"),
    (b"[" * 100_000, "not (valid|readable) JSON"),
    (b'{"exam_name": "x", "questions": [' + b"9" * 5000 + b"]}", "not readable JSON"),
])
def test_damaged_exam_files_are_named(tmp_path, data, message):
    path = tmp_path / "exam.json"
    path.write_bytes(data)
    with pytest.raises(SidewaysError, match=message):
        load_exam(path)


def test_a_riddle_picture_outside_the_riddle_folder_is_refused(tmp_path):
    (tmp_path / "outside.png").write_bytes((ROOT / "docs/report.png").read_bytes())
    folder = tmp_path / "riddles" / "sub"
    folder.mkdir(parents=True)
    riddle = next(json.loads(x) for x in (ROOT / "data/riddles/demo.jsonl").read_text().splitlines()
                  if '"vlm"' in x)
    riddle["image"] = {"file": "../../outside.png"}
    (folder / "demo.jsonl").write_text(json.dumps(riddle) + "\n")
    with pytest.raises(SidewaysError, match=r"image\.file' '\.\./\.\./outside\.png' cannot be read \(outside"):
        load_demo(folder / "demo.jsonl")
