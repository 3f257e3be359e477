"""The exam's jobs: ``exam_predict@<model>`` and ``exam_judge@<model>``, one model each.

They run inside the riddles' paid DVC stages (``predict`` and ``judge``), in the same fan-out as
the riddles' jobs, so a repro waits two rounds of batches, not four (docs/design.md, "Every batch
in flight"). Their files keep the folders named after their kind; each is fingerprinted and
reused like a riddle job (:mod:`sideways.jobs.coarse`).
"""

from __future__ import annotations

import functools
from pathlib import Path

import pandas as pd

from sideways.artifacts import paths
from sideways.artifacts.fingerprint import digest, file_digest
from sideways.artifacts.io import read_table
from sideways.artifacts.schema import EXAM_GRADES, EXAM_ITEMS, EXAM_PREDICTIONS
from sideways.backends.base import RunContext
from sideways.config.params import JudgeSpec, ModelSpec, Params
from sideways.exams.answer import exam_predictions
from sideways.exams.grade import exam_grades, exam_panel
from sideways.jobs.coarse import JobFiles, PaidJob, Work, paid_job
from sideways.jobs.fanout import Job, run_jobs
from sideways.jobs.names import job_name
from sideways.llm.cache import RequestCache
from sideways.llm.failures import check_failure_share
from sideways.llm.pricing import cost_totals

# the deps of the paid stages that only the exam's jobs read: the riddles' jobs leave them out of
# their code digest, so an exam prompt edit reruns no riddle job
EXAM_CODE = ("src/sideways/exams", "src/sideways/prompts/exam_")


def exam_files(kind: str, model: str) -> JobFiles:
    """Where the job of ``model`` of ``kind`` (exam_predict or exam_judge) writes."""
    table = paths.exam_predictions(model) if kind == "exam_predict" else paths.exam_grades(model)
    return JobFiles(table, paths.answers(kind, paths.EXAM_SPLIT, model), paths.cost(kind, paths.EXAM_SPLIT, model))


def exam_predict_inputs(params: Params, model: ModelSpec, code: str) -> str:
    """The fingerprint of exam_predict@<model>."""
    return digest("exam_predict", model, params.seed, file_digest(paths.EXAM_ITEMS), code)


def exam_judge_inputs(params: Params, model: ModelSpec, code: str) -> str:
    """The fingerprint of exam_judge@<model>: also the judges, the strategy and the answers graded."""
    return digest("exam_judge", model, params.seed, params.jury.pool, params.exam.strategy, params.exam.judges,
                  file_digest(paths.EXAM_ITEMS), file_digest(paths.exam_predictions(model.key)), code)


def exam_predict_job(params: Params, model: ModelSpec, ctx: RunContext, cache: RequestCache,
                     code: str) -> PaidJob:
    """exam_predict@<model>: the model answers every exam question."""
    name = job_name("exam_predict", model.key, paths.EXAM_SPLIT)

    def work() -> Work:
        predictions = exam_predictions(read_table(paths.EXAM_ITEMS, EXAM_ITEMS), model, ctx)
        check_failure_share(predictions, params.requests.max_failure_share, name, replay=model.capabilities.replays)
        return Work(predictions.sort_values("item_id"), EXAM_PREDICTIONS, cost_totals({name: predictions}, by="model"),
                    predictions["request_hash"])

    return paid_job(paths.dvc_stage("exam_predict"), name, model.provider, exam_files("exam_predict", model.key),
                    exam_predict_inputs(params, model, code), cache, work)


def exam_judge_job(params: Params, model: ModelSpec, ctx: RunContext, cache: RequestCache,
                   code: str) -> PaidJob:
    """exam_judge@<model>: the model's short answers graded against the rubric."""
    name = job_name("exam_judge", model.key, paths.EXAM_SPLIT)

    def work() -> Work:
        items = read_table(paths.EXAM_ITEMS, EXAM_ITEMS)
        predictions = read_table(paths.exam_predictions(model.key), EXAM_PREDICTIONS)

        def one(judge: JudgeSpec) -> pd.DataFrame:
            table = exam_grades(items, predictions, model, judge, params.exam.strategy, ctx)
            check_failure_share(table, params.requests.max_failure_share, f"{name} (judge {judge.key})",
                                replay=judge.capabilities.replays)
            return table

        # every judge of the panel in flight at once, inside the stage's fan-out (issue 19)
        tables = run_jobs([Job(f"{name} (judge {j.key})", j.provider, functools.partial(one, j))
                           for j in exam_panel(params, model)])
        grades = pd.concat(tables, ignore_index=True).sort_values(["item_id", "judge"])
        return Work(grades, EXAM_GRADES, cost_totals({"judge": grades}, by="judge"), grades["request_hash"])

    provider = ",".join(sorted({j.provider for j in exam_panel(params, model)})) or model.provider
    return paid_job(paths.dvc_stage("exam_judge"), name, provider, exam_files("exam_judge", model.key),
                    exam_judge_inputs(params, model, code), cache, work)


def exam_folders(kind: str) -> list[Path]:
    """The folders the exam's jobs of ``kind`` own (outs of the DVC stage they run in)."""
    files = exam_files(kind, "x")
    return [files.table.parent, files.answers.parent.parent, files.cost.parent]
