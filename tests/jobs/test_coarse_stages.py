"""Coarse stages (issue 18): one stage over every model, each job reused when its inputs did not change.

The stage scripts run here as DVC would run them (``python stages/predict.py``), without DVC;
the DVC side (a rerun after DVC deleted the folders, push/pull) is in tests/pipeline.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml

from conftest import make_riddles
from helpers import ROOT, project_params
from helpers.harness import edit_params, env, jobs_ran, jobs_reused, no_exam
from sideways.artifacts.failures import mark_retry, read_failures, retry_marker
from sideways.artifacts.fingerprint import code_digest
from sideways.artifacts.io import table_inputs, write_table
from sideways.artifacts.schema import RIDDLES
from sideways.config.params import load_params
from sideways.core.errors import RequestError
from sideways.jobs.coarse import JobFiles, JobId, PaidJob, Result, run_stage
from sideways.jobs.fanout import Job, JobsFailed
from sideways.jobs.riddles import judge_inputs, predict_inputs

MODELS = ("atlas-large", "nimbus-pro", "tide-open")


def project(root: Path) -> Path:
    params = project_params()
    params["models"] = {k: params["models"][k] for k in MODELS}
    (root / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False))
    for split in ("llm", "vlm"):
        write_table(make_riddles(8, split), RIDDLES, root / f"data/split/{split}.parquet")
    no_exam(root)
    return root


def stage(repo: Path, name: str) -> subprocess.CompletedProcess:
    proc = subprocess.run([sys.executable, str(ROOT / "stages" / f"{name}.py")], cwd=repo,
                          env=env(repo, src=ROOT / "src"), capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return proc


def files(repo: Path) -> dict[str, bytes]:
    folders = ("data/predictions", "data/judgments", "data/answers", "metrics/cost")
    return {str(f.relative_to(repo)): f.read_bytes() for d in folders for f in (repo / d).rglob("*") if f.is_file()}


def edit(repo: Path, change) -> None:
    edit_params(repo, change)


def test_a_rerun_reuses_every_job_and_a_changed_model_reruns_only_its_jobs(tmp_path):
    repo = project(tmp_path)
    first = stage(repo, "predict")
    # 3 models x 2 splits, and each model's exam job (docs/design.md, "Every batch in flight")
    assert jobs_reused(first, "predict") == 0 and len(jobs_ran(first)) == 9
    stage(repo, "judge")
    before = files(repo)
    assert table_inputs(repo / "data/predictions/llm/atlas-large.parquet") is not None
    again = stage(repo, "predict")
    assert jobs_reused(again, "predict") == 9 and jobs_ran(again) == set()
    assert files(repo) == before
    edit(repo, lambda p: p["models"]["nimbus-pro"].update(skill=0.2))
    changed = stage(repo, "predict")
    assert jobs_ran(changed) == {"predict@nimbus-pro+llm", "predict@nimbus-pro+vlm", "exam_predict@nimbus-pro+demo"}
    judged = stage(repo, "judge")  # only the judgments of the predictions that changed
    # no exam_judge job: the empty exam of no_exam() has nothing to grade
    assert jobs_ran(judged) == {"judge@nimbus-pro+llm", "judge@nimbus-pro+vlm"}
    after = files(repo)
    assert {k: v for k, v in after.items() if "nimbus-pro" not in k} == {
        k: v for k, v in before.items() if "nimbus-pro" not in k}


def test_a_removed_model_leaves_no_file_behind(tmp_path):
    repo = project(tmp_path)
    stage(repo, "predict")
    edit(repo, lambda p: p["models"].pop("tide-open"))
    proc = stage(repo, "predict")
    assert jobs_reused(proc, "predict") == 6  # 2 models x (2 splits + the exam)
    assert not [k for k in files(repo) if "tide-open" in k]


def _result(root: Path, name: str, reused: bool = False) -> Result:
    paths = JobFiles(root / "t" / f"{name}.parquet", root / "a" / f"{name}.jsonl", root / "c" / f"{name}.json")
    return Result(paths, b"table " + name.encode(), b"", b"{}\n", reused=reused)


def _fresh(name: str, run: Callable[[], Result]) -> PaidJob:
    return PaidJob(lambda: None, Job(name, "sim", run))


def test_no_file_is_written_when_a_job_raised_a_bug(tmp_path):
    def broken() -> Result:
        raise RuntimeError("HTTP 500")

    jobs = [_fresh("predict@a-llm", lambda: _result(tmp_path, "a")), _fresh("predict@b-llm", broken)]
    with pytest.raises(JobsFailed, match="predict@b-llm: HTTP 500"):
        run_stage("predict", jobs, [tmp_path / "t", tmp_path / "a", tmp_path / "c"], root=tmp_path)
    assert not [p for p in tmp_path.rglob("*") if p.is_file()]


def test_a_failed_job_fails_alone_and_is_recorded_with_its_reason_for_a_retry(tmp_path):
    def down() -> Result:
        raise RequestError("predict@b-llm: 9 of 9 items failed; first failures: R1: api_error: gave up after 2 "
                           "attempts: HTTP 503: service unavailable\nsecond line")

    jobs = [PaidJob(lambda: None, Job("predict@a-llm", "aco", lambda: _result(tmp_path, "a")), JobId("predict", "a", "llm")),
            PaidJob(lambda: None, Job("predict@b-llm", "bco", down), JobId("predict", "b", "llm"))]
    results = run_stage("predict", jobs, [tmp_path / "t", tmp_path / "a", tmp_path / "c"], root=tmp_path)
    assert [r.table for r in results] == [b"table a"] and (tmp_path / "t" / "a.parquet").exists()
    failed = read_failures(["predict"], root=tmp_path)
    assert [(f.job, f.model, f.benchmark, f.provider, f.reason, f.status) for f in failed] == [
        ("predict@b-llm", "b", "llm", "bco", "provider error", 503)]
    assert failed[0].error == ("9 of 9 items failed, the first: R1: api_error: gave up after 2 attempts: "
                               "HTTP 503: service unavailable")
    marker = json.loads((tmp_path / retry_marker("predict")).read_text())
    assert (marker["attempt"], marker["state"]) == (1, "failed")
    assert mark_retry("predict", tmp_path) and not mark_retry("predict", tmp_path)  # once per failed run
    run_stage("predict", jobs, [tmp_path / "t", tmp_path / "a", tmp_path / "c"], root=tmp_path)
    assert json.loads((tmp_path / retry_marker("predict")).read_text())["attempt"] == 2  # never a state seen before


def test_a_reused_job_is_not_run_and_the_results_keep_the_jobs_order(tmp_path, capsys):
    def never() -> Result:
        raise AssertionError("a job with previous files must not run")

    jobs = [_fresh("predict@a-llm", lambda: _result(tmp_path, "a")),
            PaidJob(lambda: _result(tmp_path, "b", reused=True), Job("predict@b-llm", "sim", never)),
            _fresh("predict@c-llm", lambda: _result(tmp_path, "c"))]
    results = run_stage("predict", jobs, [tmp_path / "t", tmp_path / "a", tmp_path / "c"])
    assert [r.table for r in results] == [b"table a", b"table b", b"table c"]
    assert (tmp_path / "t" / "b.parquet").read_bytes() == b"table b"
    assert "1 jobs reused, 2 ran: predict@a-llm, predict@c-llm" in capsys.readouterr().err


# The fingerprint changes when any of its inputs changes: one case per input.
INPUTS = {
    "the model's params entry": lambda r: edit(r, lambda p: p["models"]["atlas-large"].update(skill=0.5)),
    "the seed": lambda r: edit(r, lambda p: p.update(seed=p["seed"] + 1)),
    "the split table": lambda r: write_table(make_riddles(9, "llm"), RIDDLES, r / "data/split/llm.parquet"),
}
JUDGE_INPUTS = {
    "the jury": lambda r: edit(r, lambda p: p["jury"].update(judges=2)),
    "the predictions graded": lambda r: (r / "data/predictions/llm/atlas-large.parquet").write_bytes(b"other"),
}


def _fingerprints(repo: Path, monkeypatch) -> tuple[str, str, str]:
    """predict's and judge's fingerprints of atlas-large on llm, and predict's of another model."""
    monkeypatch.chdir(repo)
    params = load_params()
    model = params.model("atlas-large")
    return (predict_inputs(params, model, "llm", "code"), judge_inputs(params, model, "llm", "code"),
            predict_inputs(params, params.model("nimbus-pro"), "llm", "code"))


@pytest.mark.parametrize("change", list(INPUTS) + list(JUDGE_INPUTS))
def test_the_fingerprint_follows_each_input(tmp_path, monkeypatch, change):
    repo = project(tmp_path)
    (repo / "data/predictions/llm").mkdir(parents=True)
    (repo / "data/predictions/llm/atlas-large.parquet").write_bytes(b"predictions")
    predict, judge, other = _fingerprints(repo, monkeypatch)
    assert _fingerprints(repo, monkeypatch) == (predict, judge, other)  # stable
    {**INPUTS, **JUDGE_INPUTS}[change](repo)
    new_predict, new_judge, new_other = _fingerprints(repo, monkeypatch)
    assert new_judge != judge
    assert (new_predict != predict) == (change in INPUTS)
    if change == "the model's params entry":
        assert new_other == other  # another model's jobs keep theirs


@pytest.mark.parametrize(("edited", "changes"), [
    ("src/sideways/backends/sim.py", {"predict": True, "judge": True}),
    ("src/sideways/prompts/predict_text.md", {"predict": True, "judge": False}),
    ("src/sideways/prompts/judge.md", {"predict": False, "judge": True}),
    ("stages/judge.py", {"predict": False, "judge": True}),
    ("src/sideways/scoring/ranking.py", {"predict": False, "judge": False}),
])
def test_the_code_digest_covers_the_stages_code_and_templates_and_nothing_else(tmp_path, edited, changes):
    code = tmp_path / "code"
    for name in ("src", "stages"):
        shutil.copytree(ROOT / name, code / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    shutil.copy(ROOT / "dvc.yaml", code / "dvc.yaml")
    before = {s: code_digest(code, s) for s in changes}
    (code / "src/sideways/__pycache__").mkdir(exist_ok=True)
    (code / "src/sideways/__pycache__/x.pyc").write_bytes(b"bytecode is not code")
    assert {s: code_digest(code, s) for s in changes} == before
    with (code / edited).open("a") as fh:
        fh.write("\n# an edit\n")
    code_digest.cache_clear()
    assert {s: code_digest(code, s) != before[s] for s in changes} == changes


def test_the_aggregates_do_not_depend_on_the_order_of_models(tmp_path):
    """annotate, jury and calibrate do not list `models` as a DVC param (dvc.yaml): their folder
    deps catch every model edit, and a reordering must leave their outputs byte-identical."""
    repo = project(tmp_path)
    stage(repo, "predict")
    stage(repo, "judge")

    def aggregates() -> dict[str, bytes]:
        for name in ("annotate", "jury", "calibrate"):
            proc = subprocess.run([sys.executable, str(ROOT / "stages" / f"{name}.py"), "--split", "llm"], cwd=repo,
                                  env=env(repo, src=ROOT / "src"), capture_output=True, text=True, timeout=300)
            assert proc.returncode == 0, proc.stderr
        return {p: (repo / p).read_bytes() for p in ("data/annotations/llm.parquet", "data/jury/llm.parquet",
                                                       "data/scores/llm.parquet", "metrics/audit/llm.json")}

    before = aggregates()
    edit(repo, lambda p: p.update(models=dict(reversed(list(p["models"].items())))))
    assert aggregates() == before
    stages = yaml.safe_load((ROOT / "dvc.yaml").read_text())["stages"]
    assert all("models" not in stages[s].get("params", []) for s in ("annotate", "jury", "calibrate", "exam_score"))


def test_a_replay_file_rewritten_under_its_path_is_a_new_input(tmp_path, monkeypatch):
    """A replay model's or judge's file is read by path: the fingerprint follows its content, so a
    regenerated file (reproductions/layton-eval/main_pipeline.py) reruns the jobs that read it."""
    repo = project(tmp_path)
    (repo / "data/predictions/llm").mkdir(parents=True)
    (repo / "data/predictions/llm/atlas-large.parquet").write_bytes(b"predictions")
    def replay(p):
        p["models"]["atlas-large"] = {"backend": "replay", "provider": "openai", "name": "a", "path": "model.jsonl"}
        p["jury"]["pool"]["judge-gemini"] = {"backend": "replay", "provider": "gemini", "name": "j", "path": "judge.jsonl"}
    edit(repo, replay)
    for name in ("model.jsonl", "judge.jsonl"):
        (repo / name).write_text('{"riddle_id": "r1"}\n')
    predict, judge, other = _fingerprints(repo, monkeypatch)
    (repo / "judge.jsonl").write_text('{"riddle_id": "r2"}\n')
    after_judge = _fingerprints(repo, monkeypatch)
    assert (after_judge[0], after_judge[1] != judge, after_judge[2]) == (predict, True, other)
    (repo / "model.jsonl").write_text('{"riddle_id": "r2"}\n')
    after_model = _fingerprints(repo, monkeypatch)
    assert (after_model[0] != predict, after_model[2]) == (True, other)
