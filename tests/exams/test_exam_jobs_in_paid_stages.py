"""The exam's jobs ride in the riddles' paid stages (docs/design.md, "Every batch in flight"):
stages/predict.py and stages/judge.py give the riddles' jobs and the exam's jobs code digests of
their own, so an edit that only one side reads reruns only that side's jobs."""

from __future__ import annotations

import importlib.util
import shutil
from pathlib import Path
from types import ModuleType

import pytest

from helpers import ROOT
from sideways.artifacts import paths
from sideways.artifacts.fingerprint import code_digest
from sideways.jobs.exams import EXAM_CODE


def stage_script(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"stage_{name}", ROOT / "stages" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def digests(code: Path) -> dict[str, str]:
    """The four code digests the two paid stages hand their jobs, by job kind."""
    code_digest.cache_clear()
    out = {}
    for stage in ("predict", "judge"):
        out[stage] = code_digest(code, stage, EXAM_CODE)
        out[f"exam_{stage}"] = code_digest(code, stage, stage_script(stage).RIDDLE_PROMPTS)
    return out


@pytest.mark.parametrize(("edited", "kinds"), [
    ("src/sideways/backends/sim.py", {"predict", "judge", "exam_predict", "exam_judge"}),
    ("src/sideways/exams/answer.py", {"exam_predict", "exam_judge"}),
    ("src/sideways/prompts/exam_mcq.md", {"exam_predict"}),
    ("src/sideways/prompts/exam_judge_baseline.md", {"exam_judge"}),
    ("src/sideways/prompts/predict_text.md", {"predict"}),
    ("src/sideways/prompts/judge.md", {"judge"}),
    ("stages/judge.py", {"judge", "exam_judge"}),
])
def test_an_edit_changes_the_code_digest_of_the_jobs_that_read_it_only(tmp_path, edited, kinds):
    code = tmp_path / "code"
    for name in ("src", "stages"):
        shutil.copytree(ROOT / name, code / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    shutil.copy(ROOT / "dvc.yaml", code / "dvc.yaml")
    before = digests(code)
    with (code / edited).open("a") as fh:
        fh.write("\n# an edit\n")
    after = digests(code)
    assert {k for k in before if after[k] != before[k]} == kinds


def test_each_exam_job_kind_reads_its_previous_files_from_the_stage_it_runs_in():
    assert {k: paths.dvc_stage(k) for k in ("predict", "judge", "exam_predict", "exam_judge")} == {
        "predict": "predict", "judge": "judge", "exam_predict": "predict", "exam_judge": "judge"}
