"""Issue 27: `sideways annotate import` appends nothing it would later need hand edits to remove:
ids that are not strings, an annotator that is not a name, riddles the split lacks."""

from __future__ import annotations

import json

import pytest

from helpers.label_project import label_project
from sideways.cli import main


def _line(**changes):
    return {"riddle_id": "r-00", "model": "atlas-large", "provider": "openai", "is_answer_correct": True,
            "is_justification_correct": False, **changes}


@pytest.mark.parametrize(("line", "message"), [
    (_line(riddle_id=["r-00"]), "'riddle_id' should be a non-empty string"),
    (_line(model={"x": 1}), "'model' should be a non-empty string"),
    (_line(annotator={"name": "rv"}), "'annotator' should be a non-empty string"),
    (_line(riddle_id="r-99"), "riddle(s) not in the llm split: 'r-99' (line 2)"),
])
def test_import_refuses_and_appends_nothing(tmp_path, monkeypatch, capsys, line, message):
    project = label_project(tmp_path / "p", n_riddles=2)
    monkeypatch.chdir(project)
    source = project / "llm.jsonl"
    source.write_text(json.dumps(_line()) + "\n" + json.dumps(line) + "\n")
    assert main(["annotate", "import", str(source)]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1
    assert not (project / "data/labels/llm.jsonl").exists()
