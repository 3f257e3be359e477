"""The exams' jobs: ``exam_predict@<model>+<exam>`` and ``exam_judge@<model>+<exam>``, one model on one exam.

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
from sideways.artifacts.previous import previous_bytes, previous_output
from sideways.artifacts.schema import EXAM_DETAIL, EXAM_GRADES, EXAM_ITEMS, EXAM_PREDICTIONS
from sideways.backends.base import RunContext
from sideways.config.exam import ExamSpec
from sideways.config.params import JudgeSpec, ModelSpec, Params
from sideways.exams import frozen
from sideways.exams.answer import exam_predictions
from sideways.exams.grade import exam_grades, exam_panel
from sideways.exams.kinds import needs_judges
from sideways.jobs.coarse import (
    JobFiles,
    JobId,
    PaidJob,
    Work,
    answered_keys,
    blocked_job,
    computed_here,
    paid_job,
    senders,
)
from sideways.jobs.fanout import Job, run_jobs
from sideways.jobs.names import as_fingerprinted, job_name
from sideways.llm.cache import RequestCache
from sideways.llm.failures import check_failure_share
from sideways.llm.pricing import cost_totals

# the deps of the paid stages that only the exam's jobs read: the riddles' jobs leave them out of
# their code digest, so an exam prompt edit reruns no riddle job
EXAM_CODE = ("src/sideways/exams", "src/sideways/prompts/exam_")


def exam_files(kind: str, exam: str, model: str, sampled: bool = False) -> JobFiles:
    """Where the job of ``model`` of ``kind`` (exam_predict or exam_judge) on ``exam`` writes; a
    ``sampled`` exam's exam_predict job keeps its frozen design too (:mod:`sideways.exams.frozen`)."""
    table = paths.exam_predictions(exam, model) if kind == "exam_predict" else paths.exam_grades(exam, model)
    design = paths.exam_sample(exam, model) if sampled and kind == "exam_predict" else None
    return JobFiles(table, paths.answers(kind, exam, model), paths.cost(kind, exam, model), design)


def exam_predict_inputs(params: Params, exam: ExamSpec, model: ModelSpec, code: str) -> str:
    """The fingerprint of exam_predict@<model>+<exam>; a sampled exam's also holds how many questions
    are asked (the design itself is frozen: a model added since does not change it)."""
    items = paths.exam_items(exam.key)
    sampled = () if exam.sample is None else (("sample", _sample_size(exam)),)
    return digest("exam_predict", as_fingerprinted(model), params.seed, file_digest(items), code, *sampled)


def _sample_size(exam: ExamSpec) -> int:
    return exam.sample_size(len(read_table(paths.exam_items(exam.key), EXAM_ITEMS)))


def sampled_items(params: Params, exam: ExamSpec, model: ModelSpec, items: pd.DataFrame,
                  root: Path = Path(".")) -> tuple[pd.DataFrame, bytes | None]:
    """The questions ``model`` is asked on ``exam`` (every one, or its sample), and the sample's frozen
    design: its previous one (the stage's previous output), else drawn on the ease learned from the
    previous results (exam_score's detail) of the other models taking the exam."""
    if exam.sample is None:
        return items, None
    ids = [str(i) for i in items["item_id"]]
    design_path = root / paths.exam_sample(exam.key, model.key)
    old = previous_bytes("predict", design_path, root / "dvc.lock")
    previous = None if old is None else frozen.parse_frozen(old, str(paths.exam_sample(exam.key, model.key)))
    earlier = {}
    for other in params.models_taking(exam.key):
        found = None if other.key == model.key else previous_output(
            "exam_score", root / paths.exam_detail(exam.key, other.key), root / "dvc.lock")
        if found is not None:
            earlier[other.key] = read_table(found, EXAM_DETAIL)
    design = frozen.choose(ids, previous, earlier, frozen.design_seed(params.seed, exam.key, model.key))
    asked = set(design.asked(exam.sample_size(len(ids))))
    return items[items["item_id"].isin(asked)].reset_index(drop=True), frozen.frozen_bytes(design)


def exam_judge_inputs(params: Params, exam: ExamSpec, model: ModelSpec, code: str) -> str:
    """The fingerprint of exam_judge@<model>+<exam>: also the judges, the strategy and the answers graded."""
    return digest("exam_judge", as_fingerprinted(model), params.seed, params.jury.pool, exam.strategy, exam.judges,
                  file_digest(paths.exam_items(exam.key)), file_digest(paths.exam_predictions(exam.key, model.key)),
                  code)


def imported_job(kind: str, exam: ExamSpec, model: ModelSpec, cache: RequestCache, code: str) -> PaidJob:
    """exam_predict@ or exam_judge@<run>+<exam> of an imported exam: the run's predictions or grades, which
    exam_items read from the run, copied; fingerprinted by that table's bytes, so a run that did not
    change reruns nothing, whatever another run of the exam did."""
    name = job_name(kind, model.key, exam.key)
    source = paths.exam_imported(exam.key, model.key, kind)
    schema = EXAM_PREDICTIONS if kind == "exam_predict" else EXAM_GRADES

    def work() -> Work:
        table = read_table(source, schema)
        by = "model" if kind == "exam_predict" else "judge"
        return Work(table, schema, cost_totals({name: table}, by=by), table["request_hash"])

    inputs = digest(kind, as_fingerprinted(model), file_digest(source), code)
    return paid_job(paths.dvc_stage(kind), name, model.provider, exam_files(kind, exam.key, model.key), inputs,
                    cache, work, JobId(kind, model.key, exam.key), local=True)


def exam_predict_job(params: Params, exam: ExamSpec, model: ModelSpec, ctx: RunContext, cache: RequestCache,
                     code: str) -> PaidJob:
    """exam_predict@<model>+<exam>: the model answers every question of the exam."""
    if model.capabilities.imported:
        return imported_job("exam_predict", exam, model, cache, code)
    name = job_name("exam_predict", model.key, exam.key)

    def work() -> Work:
        items, design = sampled_items(params, exam, model, read_table(paths.exam_items(exam.key), EXAM_ITEMS))
        predictions = exam_predictions(items, model, ctx, exam.key)
        check_failure_share(predictions, params.requests.max_failure_share, name, replay=model.capabilities.replays)
        return Work(predictions.sort_values("item_id"), EXAM_PREDICTIONS, cost_totals({name: predictions}, by="model"),
                    predictions["request_hash"], answered_keys(predictions, "model", senders([model])), design)

    return paid_job(paths.dvc_stage("exam_predict"), name, model.provider,
                    exam_files("exam_predict", exam.key, model.key, exam.sample is not None),
                    exam_predict_inputs(params, exam, model, code), cache, work,
                    JobId("exam_predict", model.key, exam.key), local=computed_here(model.backend))


def exam_judge_job(params: Params, exam: ExamSpec, model: ModelSpec, ctx: RunContext, cache: RequestCache,
                   code: str) -> PaidJob:
    """exam_judge@<model>+<exam>: the model's short answers graded against the rubric."""
    if model.capabilities.imported:
        return imported_job("exam_judge", exam, model, cache, code)
    name = job_name("exam_judge", model.key, exam.key)

    def work() -> Work:
        items = read_table(paths.exam_items(exam.key), EXAM_ITEMS)
        predictions = read_table(paths.exam_predictions(exam.key, model.key), EXAM_PREDICTIONS)

        def one(judge: JudgeSpec) -> pd.DataFrame:
            table = exam_grades(items, predictions, model, judge, exam.strategy, ctx, exam.key)
            check_failure_share(table, params.requests.max_failure_share, f"{name} (judge {judge.key})",
                                replay=judge.capabilities.replays)
            return table

        # every judge of the panel in flight at once, inside the stage's fan-out (issue 19)
        tables = run_jobs([Job(f"{name} (judge {j.key})", j.provider, functools.partial(one, j))
                           for j in exam_panel(params, exam, model)])
        grades = pd.concat(tables, ignore_index=True).sort_values(["item_id", "judge"])
        return Work(grades, EXAM_GRADES, cost_totals({"judge": grades}, by="judge"), grades["request_hash"],
                    answered_keys(grades, "judge", senders(exam_panel(params, exam, model))))

    provider = ",".join(sorted({j.provider for j in exam_panel(params, exam, model)})) or model.provider
    id = JobId("exam_judge", model.key, exam.key)
    if not paths.exam_predictions(exam.key, model.key).exists():  # its exam_predict job failed
        why = f"{job_name('exam_predict', model.key, exam.key)} failed: nothing to grade"
        return blocked_job(name, provider, id, why)
    return paid_job(paths.dvc_stage("exam_judge"), name, provider, exam_files("exam_judge", exam.key, model.key),
                    exam_judge_inputs(params, exam, model, code), cache, work, id)


def exam_jobs(kind: str, params: Params, ctx: RunContext, cache: RequestCache, code: str) -> list[PaidJob]:
    """Every job of ``kind`` (exam_predict or exam_judge): one per exam and model that takes it; no
    exam_judge job on an exam of multiple choice only (nothing to grade)."""
    make = exam_predict_job if kind == "exam_predict" else exam_judge_job
    exams = [e for e in params.exams.values()
             if kind == "exam_predict" or needs_judges(read_table(paths.exam_items(e.key), EXAM_ITEMS))]
    return [make(params, exam, m, ctx, cache, code) for exam in exams for m in params.models_taking(exam.key)]


def exam_folders(kind: str) -> list[Path]:
    """The folders the exam's jobs of ``kind`` own (outs of the DVC stage they run in)."""
    files = exam_files(kind, "x", "x", sampled=True)
    return [p.parent.parent for p in (files.table, files.answers, files.cost, files.design) if p is not None]
