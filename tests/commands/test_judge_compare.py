"""``sideways judge-compare``: the three strategies on a sample of one model's short answers."""

from __future__ import annotations

import json

import pytest

from helpers import ROOT, project_params
from helpers.exams import items, short
from sideways.artifacts import paths
from sideways.artifacts.io import write_table
from sideways.artifacts.schema import EXAM_ITEMS, EXAM_PREDICTIONS
from sideways.backends.base import RunContext
from sideways.cli import main
from sideways.config.params import load_params
from sideways.exams.answer import exam_predictions


@pytest.fixture
def project(tmp_path, monkeypatch):
    """A project whose atlas-mini has answered 12 short answers (the first 4 judge-anthropic's)."""
    monkeypatch.chdir(tmp_path)
    for name in ("params.yaml", "models.yaml"):
        (tmp_path / name).write_text((ROOT / name).read_text())
    table = items([short(f"s{i:02d}", f"Why {i}?", rubric=["one", "two", "three"], points=3) for i in range(12)])
    write_table(table, EXAM_ITEMS, paths.exam_items("demo"))
    model = load_params().model("atlas-mini")
    write_table(exam_predictions(table, model, RunContext(seed=0)), EXAM_PREDICTIONS,
                paths.exam_predictions("demo", "atlas-mini"))
    return tmp_path


def test_it_reports_each_strategy_and_each_pair(project, capsys):
    assert main(["judge-compare", "--model", "atlas-mini", "--sample", "8", "--json", "cmp.json"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("8 short answers of atlas-mini, graded by judge-gemini:")
    for name in ("baseline", "chain_of_thought", "rubric_anchored", "baseline vs rubric_anchored"):
        assert name in out
    report = json.loads((project / "cmp.json").read_text())
    assert [s["strategy"] for s in report["strategies"]] == ["baseline", "chain_of_thought", "rubric_anchored"]
    assert all(s["answers"] == 8 for s in report["strategies"])
    assert len(report["items"]) == 8 and len(report["pairs"]) == 3
    for pair in report["pairs"]:
        a, b = pair["pair"].split(" vs ")
        diffs = [abs(i[a] - i[b]) for i in report["items"] if i[a] is not None and i[b] is not None]
        assert pair["mean_abs_diff"] == pytest.approx(sum(diffs) / len(diffs), abs=1e-3)
    # the lenient baseline never scores below the strict rubric_anchored on average
    by = {s["strategy"]: s["score"] for s in report["strategies"]}
    assert by["baseline"] >= by["rubric_anchored"]


def test_the_same_sample_every_time(project, capsys):
    main(["judge-compare", "--model", "atlas-mini", "--sample", "4", "--json", "a.json"])
    main(["judge-compare", "--model", "atlas-mini", "--sample", "4", "--json", "b.json"])
    assert (project / "a.json").read_bytes() == (project / "b.json").read_bytes()


def test_a_judge_of_the_models_own_provider_is_refused(project, capsys):
    assert main(["judge-compare", "--model", "atlas-mini", "--judge", "judge-openai"]) == 2
    assert "no judge grades its own provider" in capsys.readouterr().err


def test_without_predictions_it_says_which_stage_to_run(project, capsys):
    assert "quill-max" in project_params(project)["models"]
    assert main(["judge-compare", "--model", "quill-max"]) == 2
    assert "run `dvc repro predict` first" in capsys.readouterr().err
