"""`sideways annotate import` (layton-eval's annotation files) and `sideways annotate stats`."""

from __future__ import annotations

import json

import pytest

from helpers.label_project import label_project
from sideways.annotation.labels import read_label_file
from sideways.artifacts.io import read_table
from sideways.artifacts.schema import RIDDLES
from sideways.cli import main


def _layton(riddle, model, provider, a, j, notes=""):
    """A line as layton-eval's annotations/llm.jsonl has them (no annotator column)."""
    return {"riddle_id": riddle, "source_file": f"benchmark_{provider}_{model}_llm_hints_0.jsonl", "model": model,
            "provider": provider, "custom_id": riddle, "is_answer_correct": a, "is_justification_correct": j,
            "notes": notes}


@pytest.fixture
def project(tmp_path, monkeypatch):
    root = label_project(tmp_path / "project", n_riddles=4)
    monkeypatch.chdir(root)
    return root


def _write(path, rows):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_import_converts_layton_eval_lines_with_a_named_default_annotator(project, capsys):
    source = _write(project / "llm.jsonl", [
        _layton("r-00", "atlas-large", "openai", True, False, "hint used"),
        _layton("r-01", "gpt-5.1-2025-11-13", "openai", False, False),
        {**_layton("r-02", "quill-max", "anthropic", True, True), "annotator": "rv"},
    ])
    assert main(["annotate", "import", str(source)]) == 0
    assert "3 labels read, 3 appended" in capsys.readouterr().out
    lines = [json.loads(x) for x in (project / "data/labels/llm.jsonl").read_text().splitlines()]
    assert [(x["model"], x["annotator"]) for x in lines] == [
        ("atlas-large", "layton-eval"), ("openai-gpt-5-1-2025-11-13", "layton-eval"), ("quill-max", "rv")]
    assert lines[0]["note"] == "hint used" and lines[0]["human_both_correct"] is False
    labels = read_label_file(project / "data/labels/llm.jsonl", read_table(project / "data/split/llm.parquet", RIDDLES))
    assert len(labels) == 3
    assert main(["annotate", "import", str(source), "--annotator", "other"]) == 0  # a different annotator: added
    assert main(["annotate", "import", str(source)]) == 0
    assert "3 labels read, 0 appended" in capsys.readouterr().out.splitlines()[-1]


def test_import_errors_name_the_line(project, capsys):
    source = _write(project / "vlm-export.jsonl", [_layton("r-00", "m", "openai", True, "yes")])
    assert main(["annotate", "import", str(source), "--split", "llm"]) == 2
    assert "vlm-export.jsonl: line 1: 'is_justification_correct' should be true or false" in capsys.readouterr().err
    assert main(["annotate", "import", str(source)]) == 2
    assert "cannot tell the split" in capsys.readouterr().err


def test_stats_prints_bins_providers_budget_and_kappa(project, capsys):
    rows = []
    for i, (x, y) in enumerate([(True, True), (False, False), (True, False)]):
        for who, verdict in (("ana", x), ("bob", y)):
            rows.append({"riddle_id": f"r-0{i}", "model": "atlas-large", "provider": "openai",
                         "human_answer_correct": verdict, "human_justification_correct": True, "annotator": who})
    _write(project / "data/labels/llm.jsonl", rows)
    assert main(["annotate", "stats", "--split", "llm"]) == 0
    out = capsys.readouterr().out
    assert "llm: 3 of 6 predictions labelled (budget), 6 labels" in out
    assert "empty bins, per model (no label of another provider there: no published interval; the posterior ranks):" in out
    assert "\n  atlas-large  0" in out and max(map(len, out.splitlines())) <= 120
    kappa = (2 / 3 - (2 / 3 * 1 / 3 + 1 / 3 * 2 / 3)) / (1 - (2 / 3 * 1 / 3 + 1 / 3 * 2 / 3))
    assert f"ana, bob                          3{kappa:>10.2f}            n/a" in out


def test_serve_without_the_pipeline_outputs_says_what_to_run(tmp_path, monkeypatch, capsys):
    root = label_project(tmp_path / "p", n_riddles=2)
    (root / "data/jury/llm.parquet").unlink()
    monkeypatch.chdir(root)
    assert main(["annotate", "serve", "--split", "llm", "--annotator", "ana"]) == 2
    assert "run `dvc repro` first" in capsys.readouterr().err
