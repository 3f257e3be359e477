"""Labels per split: ``annotations.source`` is one source for every split or one per split; under
``file`` a split with no label file yet, or an empty one, is zero labels (not an error)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from helpers import ROOT, project_params
from helpers.label_project import label_project
from sideways.annotation.labels import read_label_file
from sideways.artifacts.io import read_table
from sideways.artifacts.schema import ANNOTATIONS
from sideways.config.params import parse_params
from sideways.core.errors import ParamsError


def _params(source):
    data = project_params()
    data["annotations"] = {**data["annotations"], "source": source}
    return parse_params(data)


def test_one_source_per_split_or_one_for_all():
    per_split = _params({"llm": "file", "vlm": "sim"}).annotations
    assert (per_split.source_for("llm"), per_split.source_for("vlm")) == ("file", "sim")
    assert _params({"vlm": "file"}).annotations.source_for("llm") == "sim"  # a split not named: simulated
    assert {_params("file").annotations.source_for(s) for s in ("llm", "vlm")} == {"file"}
    with pytest.raises(ParamsError, match=r"annotations\.source\.vlmm: unknown key \(did you mean 'vlm'"):
        _params({"vlmm": "file"})
    with pytest.raises(ParamsError, match=r"annotations\.source\.llm: 'human' is not one of sim, file"):
        _params({"llm": "human"})


def test_an_empty_label_file_is_zero_labels(tmp_path, riddles):
    (tmp_path / "vlm.jsonl").write_text("")
    labels = read_label_file(tmp_path / "vlm.jsonl", riddles)
    assert len(labels) == 0 and list(labels.columns) == ANNOTATIONS.names


def _annotate(project, split):
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    return subprocess.run([sys.executable, str(ROOT / "stages/annotate.py"), "--split", split], cwd=project,
                          env=env, capture_output=True, text=True, timeout=120)


def test_the_stage_reads_each_splits_own_source_and_a_split_without_labels_is_valid(tmp_path):
    project = label_project(tmp_path / "p", n_riddles=4, splits=("llm", "vlm"),
                            annotations={"source": {"llm": "file", "vlm": "file"}})
    (project / "data/labels").mkdir(parents=True)
    (project / "data/labels/llm.jsonl").write_text(
        '{"riddle_id": "r-00", "model": "atlas-large", "provider": "openai", "human_answer_correct": true, '
        '"human_justification_correct": true, "annotator": "ana"}\n')
    for split, n in (("llm", 1), ("vlm", 0)):
        done = _annotate(project, split)
        assert done.returncode == 0, done.stderr
        assert len(read_table(project / f"data/annotations/{split}.parquet", ANNOTATIONS)) == n
    assert done.stderr.strip() == ("annotate@vlm: no labels yet (data/labels/vlm.jsonl): judges alone, wide intervals; "
                                   "sideways annotate serve --split vlm")
    (project / "data/labels/vlm.jsonl").write_text("")  # what a labeller who has not started leaves
    done = _annotate(project, "vlm")
    assert done.returncode == 0 and done.stderr == "", done.stderr
    assert len(read_table(project / "data/annotations/vlm.parquet", ANNOTATIONS)) == 0
