"""``sideways check`` finds what a stage would refuse, before any stage runs (config/preflight.py).

Each case breaks one thing in a copy of this repository's params.yaml and models.yaml, runs
``sideways check`` there (exit 2, one line naming the key), and shows that the stage that reads
it refuses the same thing: the check is no stricter and no looser than the stage.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml

from helpers import ROOT
from helpers.harness import env
from sideways.cli import main

LOCAL = {"backend": "openai-compatible", "base_url": "http://127.0.0.1:9/v1", "provider": "localco",
         "name": "local-model-1", "api_key_env": "LOCAL_LLM_KEY"}


def _project(tmp_path: Path, change: Callable[[dict, dict], None]) -> Path:
    """params.yaml and models.yaml of this repository, ``change(params, models)`` applied, and the data
    they name (the riddles, the exam) linked in."""
    tmp_path.mkdir(parents=True, exist_ok=True)
    params = yaml.safe_load((ROOT / "params.yaml").read_text())
    models = yaml.safe_load((ROOT / "models.yaml").read_text())
    change(params, models)
    (tmp_path / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False))
    (tmp_path / "models.yaml").write_text(yaml.safe_dump(models, sort_keys=False))
    (tmp_path / "data").mkdir()
    for name in ("riddles", "exams", "curation"):
        (tmp_path / "data" / name).symlink_to(ROOT / "data" / name)
    return tmp_path


def _check(project: Path, monkeypatch, capsys) -> tuple[int, str]:
    monkeypatch.chdir(project)
    code = main(["check"])
    out = capsys.readouterr()
    return code, (out.err or out.out).strip()


def _stage(project: Path, name: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(ROOT / "stages" / f"{name}.py"), *args], cwd=project,
                          env=env(project, src=ROOT / "src"), capture_output=True, text=True, timeout=300)


def test_the_default_params_pass(tmp_path, monkeypatch, capsys):
    code, line = _check(_project(tmp_path, lambda p, m: None), monkeypatch, capsys)
    assert code == 0 and line.startswith("params.yaml: ok (6 models")


def test_a_missing_riddle_file_is_named_as_curate_would(tmp_path, monkeypatch, capsys):
    project = _project(tmp_path, lambda p, m: p["riddles"].update(path="data/riddles/nope.jsonl"))
    code, line = _check(project, monkeypatch, capsys)
    assert code == 2 and len(line.splitlines()) == 1
    assert line.startswith("sideways check: error: params.yaml: riddles.path: data/riddles/nope.jsonl: no such file")
    curate = _stage(project, "curate")
    assert curate.returncode == 2 and "nope.jsonl" in curate.stderr


def test_a_spending_cap_with_a_model_that_has_no_price_is_named(tmp_path, monkeypatch, capsys):
    def capped(p: dict, m: dict) -> None:
        m["models"]["local-m"] = LOCAL
        p["requests"]["max_cost_usd"] = 1.0

    code, line = _check(_project(tmp_path, capped), monkeypatch, capsys)
    assert code == 2 and line == ("sideways check: error: params.yaml: requests.max_cost_usd is set but models.local-m "
                                  "(local-model-1) sends requests and has no price (an unknown price is not 0): add it "
                                  "under prices:")

    def priced(p: dict, m: dict) -> None:
        capped(p, m)
        p["prices"] = {"local-model-1": {"input_per_mtok": 1.0, "output_per_mtok": 2.0}}

    assert _check(_project(tmp_path / "priced", priced), monkeypatch, capsys)[0] == 0


def test_a_per_model_cap_with_an_unpriced_judge_is_named(tmp_path, monkeypatch, capsys):
    def capped(p: dict, m: dict) -> None:
        p["jury"]["pool"]["judge-openai"] = {**LOCAL, "provider": "openai", "name": "judge-model-1"}
        p["requests"]["max_cost_usd_per_model"] = {"atlas-mini": 1.0}

    code, line = _check(_project(tmp_path, capped), monkeypatch, capsys)
    assert code == 2 and "requests.max_cost_usd_per_model is set but jury.pool.judge-openai (judge-model-1)" in line


@pytest.mark.parametrize(("change", "named"), [
    (lambda p, m: p["annotations"].update(source="file"),
     "annotations.source: file, but neither data/labels/llm.parquet nor data/labels/llm.jsonl exists"),
    (lambda p, m: m["models"].update(r={"backend": "replay", "provider": "x", "path": "data/replay/none.jsonl"}),
     "models.r.path: data/replay/none.jsonl: no such file"),
    (lambda p, m: p["riddles"].update(source="wiki"), "riddles.wiki.contact: set a URL or e-mail address"),
    (lambda p, m: p["exams"]["demo"].update(path="data/exams/gone.json"), "exams.demo.path: data/exams/gone.json"),
])
def test_each_refusal_of_a_stage_is_named_in_one_line(tmp_path, monkeypatch, capsys, change, named):
    code, line = _check(_project(tmp_path, change), monkeypatch, capsys)
    assert code == 2 and len(line.splitlines()) == 1 and named in line, line


def test_simulated_annotators_need_a_simulated_model_on_each_split(tmp_path, monkeypatch, capsys):
    def replay_only(p: dict, m: dict) -> None:
        m["models"] = {"r": {"backend": "replay", "provider": "x", "path": "data/riddles/demo.jsonl"}}

    code, line = _check(_project(tmp_path, replay_only), monkeypatch, capsys)
    assert code == 2 and "annotations.source: sim, but no model with backend sim takes split 'llm'" in line


def test_the_check_stage_writes_the_same_bytes_whatever_the_params(tmp_path):
    first = _project(tmp_path / "a", lambda p, m: None)
    second = _project(tmp_path / "b", lambda p, m: m["models"]["atlas-mini"].update(skill=0.61))
    for project in (first, second):
        assert _stage(project, "check").returncode == 0
    assert (first / "data/checked.txt").read_bytes() == (second / "data/checked.txt").read_bytes()
    (second / "data" / "riddles").unlink()  # a link: the riddles themselves stay
    (second / "data" / "checked.txt").unlink()
    refused = _stage(second, "check")
    assert refused.returncode == 2 and refused.stderr.startswith("error: params.yaml: riddles.path:")
    assert not (second / "data/checked.txt").exists()


def test_the_check_stage_leaves_the_labels_to_sideways_check(tmp_path, monkeypatch, capsys):
    """A project of paid models only, before anyone labelled: `dvc repro judge` must run (only annotate
    reads the labels); `sideways check`, which `make repro` runs before a whole run, names the problem."""
    project = _project(tmp_path, lambda p, m: m.update(models={"local-m": LOCAL}))
    assert _stage(project, "check").returncode == 0
    code, line = _check(project, monkeypatch, capsys)
    assert code == 2 and "annotations.source: sim, but no model with backend sim takes split 'llm'" in line
