"""Exam answers from the simulated and the replay backends, and the judges' provider rule."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from helpers.exams import items, mcq, short, sim_judge, sim_model
from sideways.backends.base import RunContext
from sideways.config.options import ReplayOptions
from sideways.config.params import ModelSpec, parse_params
from sideways.core.errors import ReplayError
from sideways.exams.answer import exam_predictions
from sideways.exams.grade import exam_grades, exam_panel
from sideways.exams.results import detail_table, format_exam_table, model_metrics

QUESTIONS = [mcq(f"m{i}", f"Q{i}?", answer="ABCD"[i % 4]) for i in range(40)] + [
    short(f"s{i}", f"Why {i}?", rubric=["one reason", "another reason"]) for i in range(6)]


def test_simulated_answers_depend_only_on_their_model_and_skill_orders_them():
    table = items(QUESTIONS)
    ctx = RunContext(seed=1)
    strong = exam_predictions(table, sim_model("strong", skill=0.95), ctx)
    weak = exam_predictions(table, sim_model("weak", skill=0.3), ctx)
    assert strong.equals(exam_predictions(table, sim_model("strong", skill=0.95), ctx))
    judge = sim_judge()
    grades = pd.concat([exam_grades(table, p, m, judge, "rubric_anchored", ctx)
                        for p, m in ((strong, sim_model("strong", 0.95)), (weak, sim_model("weak", 0.3)))])
    metrics = model_metrics(detail_table(table, pd.concat([strong, weak]), grades))
    assert metrics["strong"]["trad_score"] > metrics["weak"]["trad_score"]
    assert metrics["strong"]["short_answer"] > metrics["weak"]["short_answer"]
    assert metrics["weak"]["idk_freq"] > 0  # a weak model abstains sometimes
    assert metrics["strong"]["latency_s"] is None and metrics["strong"]["cost_usd"] is None  # sim: not measured
    shown = format_exam_table(metrics).splitlines()
    assert shown[1].startswith("strong") and shown[2].startswith("weak")  # best idk_score first
    assert f"{metrics['weak']['idk_score']:.1f} ± {metrics['weak']['idk_score_se']:.1f}" in shown[2]
    assert max(map(len, shown)) <= 120


def test_no_judge_grades_its_own_provider(default_params):
    default_params["exams"]["demo"]["judges"] = 3
    params = parse_params(default_params)
    for model in params.models:
        panel = exam_panel(params, params.exams["demo"], model)
        assert len(panel) == 3 and model.provider not in {j.provider for j in panel}


def test_too_few_judges_of_another_provider_is_refused(default_params):
    default_params["exams"]["demo"]["judges"] = 4
    with pytest.raises(Exception, match=r"panel of 4 \(exams\.demo\.judges\)"):
        parse_params(default_params)


def replay_model(path: str) -> ModelSpec:
    return ModelSpec("replayed", "replay", "somebody", "their-model", 0,
                     ReplayOptions(path="unused.jsonl", exam_path=path))


def test_replayed_raw_replies_are_scored_like_live_ones(tmp_path):
    table = items(QUESTIONS[:3])
    gold = dict(zip(table["item_id"], table["gold"], strict=True))
    path = tmp_path / "exam.jsonl"
    lines = [{"item_id": "m0", "model": "their-model", "text": f"\\boxed{{{gold['m0']}}}"},
             {"item_id": "m1", "model": "their-model", "text": "I don't know"},
             {"item_id": "m2", "model": "their-model", "text": "no letter"},
             {"item_id": "m2", "model": "another-model", "text": "Answer: A"}]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    predictions = exam_predictions(table, replay_model(str(path)), RunContext())
    detail = detail_table(table, predictions, pd.DataFrame(columns=["model", "item_id"])).set_index("item_id")
    assert detail["trad"].tolist() == [1.0, 0.0, 0.0]
    assert detail["idk"].tolist() == [1.0, 0.0, -1.0]


def test_a_replay_file_missing_a_question_names_it(tmp_path):
    path = tmp_path / "exam.csv"
    path.write_text("id,text\nm0,Answer: A\n")
    with pytest.raises(ReplayError, match=r"exam.csv: no reply for 2 question\(s\) of model 'replayed': m1, m2"):
        exam_predictions(items(QUESTIONS[:3]), replay_model(str(path)), RunContext())


def test_a_replay_judge_reads_its_verdict_texts(tmp_path):
    from sideways.config.params import JudgeSpec

    table = items(QUESTIONS[40:43])
    predictions = exam_predictions(table, sim_model("m", skill=0.9), RunContext())
    path = tmp_path / "verdicts.csv"
    path.write_text('item_id,model,text\ns0,m,SCORE: 2/2\ns1,m,"**Score:** 1 / 2"\ns2,m,Nice work.\n'
                    "s0,other,SCORE: 0/2\n")
    judge = JudgeSpec("their-judge", "replay", "elsewhere", "their-judge", ReplayOptions(path=str(path)))
    grades = exam_grades(table, predictions, sim_model("m", skill=0.9), judge, "baseline", RunContext())
    assert grades["earned"].tolist()[:2] == [2.0, 1.0] and pd.isna(grades["earned"].iloc[2])
    assert grades["status"].tolist() == ["ok", "ok", "parse_error"]
