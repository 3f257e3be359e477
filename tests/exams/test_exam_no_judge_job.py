"""An exam of multiple choice only has nothing for judges to grade: no exam_judge@<model>-<exam>
job (nor a planned judge call), and exam_score and the report read no grades for it."""

from __future__ import annotations

import copy

import pytest
import yaml

from helpers import project_params
from helpers.exams import exam_data, items, mcq, short
from sideways.artifacts import paths
from sideways.artifacts.io import read_table, write_table
from sideways.artifacts.schema import EXAM_ITEMS, EXAM_PREDICTIONS
from sideways.config.params import parse_params
from sideways.exams.answer import exam_predictions
from sideways.jobs.context import run_context
from sideways.jobs.exams import exam_jobs
from sideways.llm.cache import RequestCache
from sideways.planning.plan import plan_exam


@pytest.fixture
def params(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    data = copy.deepcopy(project_params())
    quiz = [mcq("q1", "One?"), mcq("q2", "Two?")]
    mixed = [mcq("m1", "One?"), short("s1", "Say why.")]
    for key, questions in (("quiz", quiz), ("mixed", mixed)):
        (tmp_path / f"{key}.json").write_text(yaml.safe_dump(exam_data(questions)))
        write_table(items(questions), EXAM_ITEMS, paths.exam_items(key))
    data["exams"] = {k: {"path": f"{k}.json", "judges": 1} for k in ("quiz", "mixed")}
    data["requests"]["cache_dir"] = str(tmp_path / "cache")
    return parse_params(data)


def test_no_exam_judge_job_on_an_exam_of_multiple_choice_only(params):
    ctx, cache = run_context(params), RequestCache(params.requests.cache_dir)
    for m in params.models:  # the answers the judges of the mixed exam grade
        answers = exam_predictions(read_table(paths.exam_items("mixed"), EXAM_ITEMS), m, ctx, "mixed")
        write_table(answers, EXAM_PREDICTIONS, paths.exam_predictions("mixed", m.key))
    judged = {j.job.name for j in exam_jobs("exam_judge", params, ctx, cache, "code")}
    models = [m.key for m in params.models]
    assert judged == {f"exam_judge@{m}+mixed" for m in models}
    answered = {j.job.name for j in exam_jobs("exam_predict", params, ctx, cache, "code")}
    assert answered == {f"exam_predict@{m}+{e}" for m in models for e in ("quiz", "mixed")}


def test_the_dry_run_plans_no_judge_call_on_it(params):
    ctx = run_context(params)
    planned = [p for exam in params.exams.values() for m in params.models for p in plan_exam(params, exam, m, ctx)]
    assert {p.split for p in planned if p.stage == "exam_judge"} == {"mixed"}
    assert {p.split for p in planned if p.stage == "exam_predict"} == {"quiz", "mixed"}
