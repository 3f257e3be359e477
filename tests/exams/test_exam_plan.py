"""The dry run plans exactly the exam requests the stages send (same cache keys)."""

from __future__ import annotations

import yaml

from helpers import project_params
from helpers.exams import items, mcq, short
from sideways.artifacts import paths
from sideways.artifacts.io import write_table
from sideways.artifacts.schema import EXAM_ITEMS, EXAM_PREDICTIONS
from sideways.config.params import load_params
from sideways.exams.answer import exam_predictions
from sideways.exams.grade import exam_grades, exam_panel
from sideways.jobs.context import run_context
from sideways.planning.plan import plan_exam

EXAM = "demo"


def test_planned_exam_calls_are_the_calls_sent(server, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    params = project_params()
    params["models"] = {"local": {"backend": "openai-compatible", "provider": "local", "name": "local-1",
                                  "base_url": server.base_url}}
    for judge in params["jury"]["pool"].values():
        judge.update(backend="openai-compatible", base_url=server.base_url)
        for option in ("sensitivity", "specificity", "self_bias"):
            judge.pop(option, None)
    params["requests"] = {"cache_dir": str(tmp_path / "cache")}
    (tmp_path / "params.yaml").write_text(yaml.safe_dump(params))
    p = load_params()
    model, ctx = p.model("local"), run_context(p)
    assert plan_exam(p, p.exams[EXAM], model, ctx) == []  # nothing to plan before exam_items ran
    table = items([mcq("m1", "Which?"), mcq("m2", "Which else?"), short("s1", "Why?", rubric=["a", "b"])])
    write_table(table, EXAM_ITEMS, paths.exam_items(EXAM))

    before = plan_exam(p, p.exams[EXAM], model, ctx)
    assert [x.stage_name for x in before] == ["exam_predict@local+demo", "exam_judge@local+demo", "exam_judge@local+demo"]
    assert [len(x.calls) for x in before] == [3, 1, 1] and not before[1].exact  # reference answers stand in

    predictions = exam_predictions(table, model, ctx)
    write_table(predictions, EXAM_PREDICTIONS, paths.exam_predictions(EXAM, "local"))
    after = plan_exam(p, p.exams[EXAM], model, ctx)
    assert {c.key for c in after[0].calls} == set(predictions["request_hash"])
    for planned, judge in zip(after[1:], exam_panel(p, p.exams[EXAM], model), strict=True):
        grades = exam_grades(table, predictions, model, judge, p.exams[EXAM].strategy, ctx)
        assert planned.exact and {c.key for c in planned.calls} == set(grades["request_hash"].dropna())
