"""End-to-end: the real pipeline under the real DVC CLI, on temporary copies of this repository.

A session fixture reproduces a small configuration once (3 models, the llm split) and commits
it; each test works on its own copy. "Executed" means DVC printed ``Running stage '<name>'``;
a stage restored from the run-cache is not executed.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pandas as pd
import pytest

from helpers.harness import commit, edit_params, executed, jobs_ran, jobs_reused, new_repo, repro, run

pytestmark = pytest.mark.slow

SMALL_MODELS = ("atlas-large", "nimbus-pro", "tide-open")


@pytest.fixture(scope="session")
def baseline(tmp_path_factory) -> Path:
    """A small configuration, reproduced once and committed."""
    def small(p):
        p["splits"] = ["llm"]
        p["models"] = {k: p["models"][k] for k in SMALL_MODELS}
        p["calibration"]["bootstrap"] = 2000

    repo = new_repo(tmp_path_factory.mktemp("baseline") / "repo", small)
    proc = run(repo, "dvc", "repro")
    assert {"predict", "judge"} <= executed(proc)
    assert not {"exam_predict", "exam_judge"} & executed(proc)  # the exam's jobs ride in predict and judge
    assert {f"predict@{m}+llm" for m in SMALL_MODELS} | {f"exam_predict@{m}+demo" for m in SMALL_MODELS} <= jobs_ran(proc)
    assert {f"judge@{m}+llm" for m in SMALL_MODELS} | {f"exam_judge@{m}+demo" for m in SMALL_MODELS} <= jobs_ran(proc)
    commit(repo, "reproduced")
    return repo


@pytest.fixture
def project(baseline, tmp_path) -> Path:
    repo = tmp_path / "repo"
    shutil.copytree(baseline, repo, symlinks=True)
    return repo


def test_first_run_writes_every_artifact(project):
    board = json.loads((project / "metrics/leaderboard_llm.json").read_text())
    assert set(board) == set(SMALL_MODELS)
    for entry in board.values():
        assert {"rank", "best_rank", "worst_rank", "score", "ci", "true_score", "covered"} <= set(entry)
        assert entry["best_rank"] <= entry["rank"] <= entry["worst_rank"]
    shown = run(project, "sideways", "show").stdout
    assert "rank set" in shown and "rank spread" not in shown and "atlas-large" in shown
    assert "cost on llm: $0.0000 (predict $0.0000, judge $0.0000)" in shown
    # each model's cost against the full design, on the split and on the exam (simulated: nothing paid, no cascade)
    labels = len(pd.read_parquet(project / "data/annotations/llm.parquet"))
    assert f"  labels on llm: {labels:,} (a person's time, not USD" in shown and "cost on exam demo:" in shown
    for table in (shown[shown.index("cost on llm:"):], shown[shown.index("cost on exam demo:"):]):
        rows = [line.split() for line in table.splitlines()[1:6]]
        assert rows[0] == ["model", "answers", "verdicts", "total", "full", "design"]
        assert {r[0] for r in rows[1:4]} == set(SMALL_MODELS) and rows[4][:2] == ["all", "models"]
    assert max(map(len, shown.splitlines())) <= 120


def test_dvc_metrics_and_plots_show_only_what_a_user_reads(project):
    """Issue 16: no per-stage cost file among the metrics, no "true_score against step" chart; the
    interval chart and (issue 11) the calibration plot."""
    metrics = json.loads(run(project, "dvc", "metrics", "show", "--json").stdout)
    shown = {path for rev in metrics.values() for path in rev["data"] if not path.startswith("reproductions/")}
    assert shown == {"metrics/curation.json", "metrics/leaderboard_llm.json", "metrics/headline_llm.json",
                     "metrics/rank_sets_llm.json", "metrics/exams.json", "metrics/headline_exams/demo.json"}  # + layton-eval's
    assert (project / "metrics/cost/predict/llm/atlas-large.json").exists()
    plots = json.loads(run(project, "dvc", "plots", "show", "--json").stdout)["data"]
    assert list(plots) == ["score with 95% interval", "human-positive rate per jury-score bin"]
    assert (project / "report/index.html").exists() and (project / "report/data/report.js").exists()


def test_second_repro_executes_nothing(project):
    assert repro(project) == set()
    assert "up to date" in run(project, "dvc", "status", "dvc.yaml").stdout.lower()


def stale_stages(repo: Path) -> set[str]:
    """The stages ``dvc status`` lists as changed."""
    out = run(repo, "dvc", "status", "dvc.yaml").stdout
    return {line[:-1] for line in out.splitlines() if line.endswith(":") and not line[0].isspace()}


@pytest.mark.parametrize(("module", "stale"), [
    ("scoring/ranking.py", {"jury@llm", "calibrate@llm", "rank@llm", "report", "exam_score"}),  # exams' tie groups
    # extract imports the backends package, whose registry names the sim backend; the report reads the label log
    # for the annotators' audit through sideways.annotation, which imports the simulated truth
    ("simulation/truth.py", {"extract", "annotate@llm", "calibrate@llm", "predict", "judge", "report"}),
    ("core/seeding.py", {"check", "scrape", "extract", "curate", "split", "annotate@llm", "jury@llm", "calibrate@llm", "rank@llm"}
     | {"report", "exam_items", "exam_score", "predict", "judge", "failures"}),
    # the exam's jobs run in predict and judge, so those stages import the exams package
    ("exams/mcq/letters.py", {"exam_items", "exam_score", "predict", "judge"}),
])
def test_editing_a_module_makes_dvc_status_list_exactly_the_stages_that_import_it(project, module, stale):
    """docs/design.md, "Every stage depends on every module its script imports"."""
    with (project / "src/sideways" / module).open("a") as fh:
        fh.write("\n# an edit\n")
    assert stale_stages(project) == stale


def _job_files(root: Path) -> dict[str, bytes]:
    """Every file the coarse stages wrote, by path."""
    folders = ("data/predictions", "data/judgments", "data/answers", "data/exam/predictions", "data/exam/grades",
               "metrics/cost/predict", "metrics/cost/judge", "metrics/cost/exam_predict", "metrics/cost/exam_judge")
    return {str(f.relative_to(root)): f.read_bytes() for d in folders for f in (root / d).rglob("*") if f.is_file()}


def test_adding_a_model_runs_only_its_jobs_and_the_split_stages(project):
    """Issue 18: the coarse stages rerun, but only the new model's jobs run; every other job's
    files are reused byte for byte (issue 16: other models' rows unchanged)."""
    edit_params(
        project,
        lambda p: p["models"].update(
            {"quill-max": {"backend": "sim", "provider": "anthropic", "name": "quill-max", "n_hints": 0, "skill": 0.75}}
        ),
    )
    before = json.loads((project / "metrics/leaderboard_llm.json").read_text())
    exam_before = json.loads((project / "metrics/exams.json").read_text())["demo"]
    files_before = _job_files(project)
    proc = run(project, "dvc", "repro")
    assert executed(proc) == {
        "check", "predict", "judge", "annotate@llm", "jury@llm", "calibrate@llm", "rank@llm",
        "exam_score", "report",
    }
    assert jobs_ran(proc) == {"predict@quill-max+llm", "judge@quill-max+llm", "exam_predict@quill-max+demo",
                              "exam_judge@quill-max+demo"}
    # predict and judge each reuse the 3 riddle jobs and the 3 exam jobs of the other models
    assert [jobs_reused(proc, s) for s in ("predict", "judge")] == [6, 6]
    files_after = _job_files(project)
    assert {k: files_after.get(k) for k in files_before} == files_before
    assert {k for k in files_after if "quill-max" in k} == set(files_after) - set(files_before)
    after = json.loads((project / "metrics/leaderboard_llm.json").read_text())
    assert set(after) == set(before) | {"quill-max"}
    exam_after = json.loads((project / "metrics/exams.json").read_text())["demo"]
    assert set(exam_after) == set(exam_before) | {"quill-max"}
    # no other model's exam moved (its tie groups may: a new model is a new comparison)
    def scores(exam):
        return {m: {k: v for k, v in exam[m].items() if k != "tie_groups"} for m in exam_before}
    assert scores(exam_after) == scores(exam_before)


def test_judge_prompt_change_reruns_judges_not_predictions(project):
    with (project / "src/sideways/prompts/judge.md").open("a") as fh:
        fh.write("\nBe strict about units.\n")
    proc = run(project, "dvc", "repro")
    assert "judge" in executed(proc) and "predict" not in executed(proc)
    # the prompt is in every riddle judge job's fingerprint, not in the exam's: those are reused
    assert jobs_ran(proc) == {f"judge@{m}+llm" for m in SMALL_MODELS}
    assert jobs_reused(proc, "judge") == len(SMALL_MODELS)


def test_exam_strategy_change_reruns_the_exam_grading_jobs_only(project):
    """The exam's grading jobs ride in the judge stage (docs/design.md, "Every batch in flight"):
    an exam-only params change reruns that stage, but every riddle judge job is reused byte for
    byte, and nothing of predict runs."""
    riddles = {f: f.read_bytes() for f in (project / "data/judgments").rglob("*.parquet")}
    grades = {f: f.read_bytes() for f in (project / "data/exam/grades").rglob("*.parquet")}
    edit_params(project, lambda p: p["exams"]["demo"].update(strategy="baseline"))
    proc = run(project, "dvc", "repro")
    assert "judge" in executed(proc) and "predict" not in executed(proc)
    assert jobs_ran(proc) == {f"exam_judge@{m}+demo" for m in SMALL_MODELS}
    assert jobs_reused(proc, "judge") == len(SMALL_MODELS)
    assert {f: f.read_bytes() for f in riddles} == riddles
    assert all(f.read_bytes() != data for f, data in grades.items())


def test_jury_pool_change_reruns_judges_not_predictions(project):
    edit_params(project, lambda p: p["jury"]["pool"]["judge-mistral"].update(sensitivity=0.7))
    proc = run(project, "dvc", "repro")
    assert "judge" in executed(proc) and "predict" not in executed(proc)
    assert {f"judge@{m}+llm" for m in SMALL_MODELS} <= jobs_ran(proc)


def test_changing_the_panel_size_reruns_judges_and_changes_the_jury(project):
    """``jury.judges`` reaches DVC's run-cache key (a key named ``size`` would not: docs/design.md)."""
    import pandas as pd

    assert set(pd.read_parquet(project / "data/jury/llm.parquet")["both_correct_judges"]) == {3}
    edit_params(project, lambda p: p["jury"].update(judges=2))
    ran = repro(project)
    assert {"judge", "jury@llm"} <= ran
    assert "predict" not in ran
    assert not any(s.startswith("exam_") for s in ran)  # the exam's panels come from jury.pool and exams.<key>.judges
    assert set(pd.read_parquet(project / "data/jury/llm.parquet")["both_correct_judges"]) == {2}
    # back to 3: restored from the run-cache, with 3-judge panels again
    edit_params(project, lambda p: p["jury"].update(judges=3))
    repro(project)
    assert set(pd.read_parquet(project / "data/jury/llm.parquet")["both_correct_judges"]) == {3}


def test_experiment_with_set_param_reruns_only_calibration(project):
    proc = run(project, "dvc", "exp", "run", "-S", "calibration.method=exact")
    assert executed(proc) == {"check", "calibrate@llm", "rank@llm", "report"}
    shown = run(project, "dvc", "exp", "show", "--json").stdout
    assert "exact" in shown


def test_push_then_fresh_clone_pulls_and_executes_nothing(project, tmp_path):
    remote = tmp_path / "remote"
    run(project, "dvc", "remote", "add", "-d", "store", str(remote))
    commit(project, "remote")
    run(project, "dvc", "push", "--run-cache")
    committed = (project / "metrics/leaderboard_llm.json").read_text()
    # a params change that is run and pushed but never committed
    edit_params(project, lambda p: p.update(seed=7))
    assert "predict" in repro(project)
    run(project, "dvc", "push", "--run-cache")
    seed7 = (project / "metrics/leaderboard_llm.json").read_text()
    assert seed7 != committed
    run(project, "git", "checkout", "params.yaml")

    clone = tmp_path / "clone"
    run(tmp_path, "git", "clone", "-q", str(project), str(clone))
    run(clone, "dvc", "pull", "--run-cache")
    assert repro(clone, "--pull") == set()
    assert (clone / "metrics/leaderboard_llm.json").read_text() == committed
    edit_params(clone, lambda p: p.update(seed=7))
    assert repro(clone, "--pull") == set()
    assert (clone / "metrics/leaderboard_llm.json").read_text() == seed7


def test_metrics_diff_between_commits_shows_changed_values(project):
    edit_params(project, lambda p: p["models"]["atlas-large"].update(skill=0.2))
    repro(project)
    commit(project, "weaker atlas-large")
    diff = json.loads(run(project, "dvc", "metrics", "diff", "HEAD~1", "HEAD", "--json").stdout)
    changes = diff["metrics/leaderboard_llm.json"]
    assert changes["atlas-large.score"]["new"] < changes["atlas-large.score"]["old"]
    plots = run(project, "dvc", "plots", "show", "-o", "plots-out")
    assert (project / "plots-out" / "index.html").exists(), plots.stdout


def test_broken_riddle_file_fails_with_its_line_and_leaves_no_artifact(project):
    demo = project / "data/riddles/demo.jsonl"
    lines = demo.read_text().splitlines()
    record = json.loads(lines[4])
    del record["answer"]
    lines[4] = json.dumps(record)
    demo.write_text("\n".join(lines) + "\n")
    proc = run(project, "dvc", "repro", check=False)
    assert proc.returncode != 0
    assert "demo.jsonl" in proc.stderr + proc.stdout and ":5" in proc.stderr + proc.stdout
    assert "answer" in proc.stderr + proc.stdout
    assert not (project / "data/riddles.parquet").exists()


def test_jury_refuses_a_model_whose_predictions_miss_riddles(project):
    import pandas as pd

    path = project / "data/predictions/llm/tide-open.parquet"
    pd.read_parquet(path).iloc[:-2].to_parquet(path)
    (project / "data/jury/llm.parquet").unlink()
    proc = run(project, "python", "stages/jury.py", "--split", "llm", check=False)
    assert proc.returncode == 2
    assert "data/predictions/llm/tide-open.parquet: model 'tide-open' has no prediction for 2 of" in proc.stderr
    assert not (project / "data/jury/llm.parquet").exists()


def test_removing_a_model_then_make_repro_leaves_dvc_status_clean(project):
    """DVC leaves a removed model's outputs; `sideways prune` (the first step of `make repro`) deletes them."""
    edit_params(project, lambda p: p["models"].pop("tide-open"))
    left = project / "data/predictions/llm/tide-open.parquet"
    assert left.exists()
    shown = run(project, "sideways", "prune").stdout
    assert len(shown.splitlines()) == 1 and "of model tide-open: it is no longer in params.yaml (models:)" in shown
    assert not left.exists() and not (project / "data/judgments/llm/tide-open.parquet").exists()
    repro(project)
    assert "up to date" in run(project, "dvc", "status", "dvc.yaml").stdout.lower()
    untracked = run(project, "git", "status", "--porcelain", "--untracked-files=all").stdout
    assert "tide-open" not in untracked, untracked
    assert set(json.loads((project / "metrics/leaderboard_llm.json").read_text())) == {"atlas-large", "nimbus-pro"}
