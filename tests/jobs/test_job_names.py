"""No two (model, benchmark) pairs share a job name or a file; `sideways check` refuses the keys
whose files could still meet (two that differ only by case, one too long for a file name)."""

from __future__ import annotations

import itertools
import subprocess
import sys

import pytest
import yaml

from helpers import ROOT, project_params
from sideways.artifacts import paths
from sideways.artifacts.orphans import orphans
from sideways.jobs.names import job_name

MODELS = ["m", "m-x", "m-x-y", "x", "m_x"]
BENCHMARKS = ["y", "x-y", "llm", "x-y-llm", "y-llm"]
KINDS = ["predict", "judge", "exam_predict", "exam_judge"]


def test_two_pairs_never_share_a_job_name_or_a_file():
    """Models m and m-x on exams x-y and y were both exam_predict@m-x-y, with one cost file."""
    pairs = list(itertools.product(MODELS, BENCHMARKS))
    for kind in KINDS:
        names = {job_name(kind, m, b) for m, b in pairs}
        costs = {paths.cost(kind, b, m) for m, b in pairs}
        answers = {paths.answers(kind, b, m) for m, b in pairs}
        assert len(names) == len(costs) == len(answers) == len(pairs), kind
    assert job_name("exam_predict", "m", "x-y") != job_name("exam_predict", "m-x", "y")


def test_old_layout_cost_files_and_those_of_pairs_no_model_takes_are_orphans(tmp_path):
    files = [paths.cost("predict", "llm", "kept"), paths.cost("predict", "llm", "gone"),
             paths.cost("exam_judge", "demo", "kept"), paths.cost("exam_judge", "demo", "gone"),
             paths.METRICS / "cost/predict/kept-llm.json", paths.METRICS / "cost/exam_judge/kept-demo.json"]
    for f in files:
        (tmp_path / f).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / f).write_text("{}")
    found = {p.relative_to(tmp_path) for p in orphans({"llm": ["kept"], "demo": ["kept"]}, ["llm"], tmp_path)}
    assert found == {f for f in files if "gone" in str(f) or "-" in f.name}


def check(tmp_path, change) -> subprocess.CompletedProcess[str]:
    params = project_params()
    change(params)
    path = tmp_path / "params.yaml"
    path.write_text(yaml.safe_dump(params, sort_keys=False))
    if not (tmp_path / "data").exists():  # the exam files params.yaml names, which check reads
        (tmp_path / "data").symlink_to(ROOT / "data")
    return subprocess.run([sys.executable, "-m", "sideways.cli", "check", "--params", str(path)],
                          capture_output=True, text=True, cwd=tmp_path)


@pytest.mark.parametrize(("change", "message"), [
    (lambda p: p["models"].update({"Atlas-Large": p["models"]["atlas-large"]}),
     "models.Atlas-Large: differs from models.atlas-large only by case"),
    (lambda p: p["models"].update({"m" * 101: p["models"]["atlas-large"]}),
     f"models.{'m' * 101}: key is 101 characters long, more than 100"),
])
def test_sideways_check_refuses_keys_whose_files_could_meet(tmp_path, change, message):
    proc = check(tmp_path, change)
    assert proc.returncode == 2 and message in proc.stderr and len(proc.stderr.splitlines()) == 1, proc.stderr
    assert check(tmp_path, lambda p: p["models"].update({"m" * 100: p["models"]["atlas-large"]})).returncode == 0
