"""sideways.layton_eval.project: the vendored calibration file as a main-pipeline replay project."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from helpers import ROOT, project_params
from sideways.annotation.labels import read_label_file
from sideways.config.params import parse_params
from sideways.core.errors import SchemaError
from sideways.layton_eval.convert import import_ppi
from sideways.layton_eval.project import PLACEHOLDER, pool_order, replay_project, verdict_rows
from sideways.layton_eval.source import read_ppi
from sideways.sources.demo import riddles_table

PPI = ROOT / "reproductions" / "layton-eval" / "data" / "layton-eval-ppi-llm.figures.jsonl"


@pytest.fixture(scope="module")
def ppi() -> pd.DataFrame:
    return read_ppi(PPI)


@pytest.fixture(scope="module")
def project(ppi):
    return replay_project(ppi, project_params())


def test_every_model_gets_its_published_panel_by_the_pipelines_rule(ppi, project):
    params = parse_params(project.params)
    panels = import_ppi(ppi).panels
    assert len(params.models) == 9
    for model in params.models:
        assert {j.key for j in params.jury.panel(model.provider)} == set(panels[model.key]), model.key


def test_the_files_column_order_is_not_such_an_order(ppi, project):
    """The kimi models (together) are judged without mistral: the first 3 judges in the file's
    column order (mistral first) would give them mistral, so the pool must be reordered."""
    keys = list(project.params["jury"]["pool"])
    assert keys[-1] == "mistral-large-2512"
    providers = {k: j["provider"] for k, j in project.params["jury"]["pool"].items()}
    file_order = ("mistral-large-2512", "claude-opus-4-5-20251101", "gpt-5-1-2025-11-13", "gemini-3-pro-preview")
    panels = {"kimi": ("together", ["claude-opus-4-5-20251101", "gpt-5-1-2025-11-13", "gemini-3-pro-preview"])}
    assert pool_order({k: providers[k] for k in file_order}, panels, 3, "t") != file_order


def test_no_order_gives_two_panels_of_one_provider(project):
    providers = {"a": "p1", "b": "p2", "c": "p3"}
    with pytest.raises(SchemaError, match="model 'm1'"):
        pool_order(providers, {"m1": ("x", ["a", "b"]), "m2": ("x", ["b", "c"])}, 2, "t")


def test_the_project_is_replay_only_with_the_published_calibration(project):
    params = project.params
    assert params["splits"] == ["llm"] and params["exams"] == {}
    assert params["annotations"]["source"] == "file"
    assert {k: params["calibration"][k] for k in ("method", "interval", "field")} == {
        "method": "exact", "interval": "published", "field": "both_correct"}
    assert all(m["backend"] == "replay" and m["takes"] == ["llm"] for m in params["models"].values())
    for spec in (*params["models"].values(), *params["jury"]["pool"].values()):
        assert spec["path"] in project.files


def test_the_riddle_file_loads_as_the_demo_source_with_placeholder_texts(project):
    path = project.params["riddles"]["path"]
    text = "".join(json.dumps(r) + "\n" for r in project.files[path])
    riddles = riddles_table(text, path, lambda rel: b"")
    assert len(riddles) == 186
    assert set(riddles["description"]) == {PLACEHOLDER}


def test_the_label_file_holds_the_published_human_labels(ppi, project, tmp_path):
    path = tmp_path / "llm.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in project.files["data/labels/llm.jsonl"]))
    riddles = pd.DataFrame({"riddle_id": sorted(set(ppi["riddle_id"]))})
    labels = read_label_file(path, riddles)
    assert len(labels) == int(ppi["human_both_correct"].notna().sum()) == 614
    assert labels["human_both_correct"].tolist() == import_ppi(ppi).annotations["human_both_correct"].tolist()


def test_answer_texts_are_replayed_when_the_file_has_them(ppi):
    with_text = ppi.assign(answer="42", justification="because")
    project = replay_project(with_text, {})
    rows = next(iter(project.files[p] for p in project.files if p.startswith("data/replay/models/")))
    assert {(r["answer"], r["justification"]) for r in rows} == {("42", "because")}


def test_a_both_correct_that_is_not_the_and_is_refused(ppi):
    judgments = import_ppi(ppi).judgments
    bad = judgments.copy()
    bad.loc[bad.index[0], "both_correct"] = not bad.loc[bad.index[0], "both_correct"]
    assert len(verdict_rows(judgments, "t")) == 4
    with pytest.raises(SchemaError, match="do not replay"):
        verdict_rows(bad, "t")
