"""The jobs of the ``predict`` and ``judge`` stages: one model on one split each.

A job is named as the per-model stage used to be (``predict@<model>+<split>``); its inputs
fingerprint (:mod:`sideways.artifacts.fingerprint`) covers the model's params entry (and the
jury, for judge), the seed, the split table, the predictions it grades, the content of the files
its replay model or judges read, and the stage's code and prompt templates, so an unchanged job
is reused (:mod:`sideways.jobs.coarse`).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from sideways.artifacts import paths
from sideways.artifacts.checks import require_complete
from sideways.artifacts.fingerprint import digest, file_digest
from sideways.artifacts.io import read_table
from sideways.artifacts.schema import JUDGMENTS, PREDICTIONS, RIDDLES
from sideways.backends import judge_for, predictor_for
from sideways.backends.base import RunContext
from sideways.config.options import ReplayOptions, expect_options
from sideways.config.params import JudgeSpec, ModelSpec, Params
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
from sideways.llm.failures import check_failure_share, judged
from sideways.llm.pricing import cost_totals
from sideways.scoring import cascade


def job_files(stage: str, split: str, model: str) -> JobFiles:
    """Where the job of ``model`` on ``split`` of ``stage`` (predict or judge) writes."""
    table = paths.predictions(split, model) if stage == "predict" else paths.judgments(split, model)
    return JobFiles(table, paths.answers(stage, split, model), paths.cost(stage, split, model))


def predict_inputs(params: Params, model: ModelSpec, split: str, code: str) -> str:
    """The fingerprint of predict@<model>+<split> (a replay model's file's content included)."""
    return digest("predict", as_fingerprinted(model), params.seed, file_digest(paths.split_table(split)), code,
                  *replay_digests([model]))


def judge_inputs(params: Params, model: ModelSpec, split: str, code: str) -> str:
    """The fingerprint of judge@<model>+<split>: also the jury, the predictions it grades and the
    files its replay judges read."""
    on = [params.jury.cascade] if params.jury.cascade.first else []  # off: the fingerprint it always had
    return digest("judge", as_fingerprinted(model), params.jury, *on, params.seed,
                  file_digest(paths.split_table(split)), file_digest(paths.predictions(split, model.key)), code,
                  *replay_digests(params.jury.panel(model.provider)))


def replay_digests(specs: Sequence[ModelSpec | JudgeSpec]) -> list[str]:
    """The content digests of the files the replay ``specs`` read: a replay file rewritten under the
    same path is a new input (its path alone, in the spec, would let the job be reused)."""
    files = [Path(expect_options(s.options, ReplayOptions, s.key).path) for s in specs if s.capabilities.replays]
    # a missing file: the replay backend's own error names it when the job runs
    return [file_digest(f) if f.is_file() else f"missing {f}" for f in files]


def predict_job(params: Params, model: ModelSpec, split: str, ctx: RunContext, cache: RequestCache,
                code: str) -> PaidJob:
    """predict@<model>+<split>: the model answers every riddle of the split."""
    name = job_name("predict", model.key, split)

    def work() -> Work:
        riddles = read_table(paths.split_table(split), RIDDLES)
        predictions = predictor_for(model).predict(riddles, model, ctx)
        require_complete(predictions, riddles["riddle_id"], name, models=[model.key])
        check_failure_share(predictions, params.requests.max_failure_share, name,
                            replay=model.capabilities.replays)
        return Work(predictions.sort_values("riddle_id"), PREDICTIONS, cost_totals({name: predictions}, by="model"),
                    predictions["request_hash"], answered_keys(predictions, "model", senders([model])))

    return paid_job("predict", name, model.provider, job_files("predict", split, model.key),
                    predict_inputs(params, model, split, code), cache, work, JobId("predict", model.key, split),
                    local=computed_here(model.backend))


def judge_job(params: Params, model: ModelSpec, split: str, ctx: RunContext, cache: RequestCache,
              code: str) -> PaidJob:
    """judge@<model>+<split>: the model's panel (docs/method.md §2) grades each of its predictions."""
    name = job_name("judge", model.key, split)

    def work() -> Work:
        riddles = read_table(paths.split_table(split), RIDDLES)
        predictions = read_table(paths.predictions(split, model.key), PREDICTIONS)

        def one(j: JudgeSpec, predictions: pd.DataFrame) -> pd.DataFrame:
            table = judge_for(j).judge(riddles, predictions, j, ctx)
            check_failure_share(judged(table, predictions), params.requests.max_failure_share,
                                f"{name} (judge {j.key})", replay=j.capabilities.replays)
            return table

        # every judge of a round in flight at once, inside the stage's fan-out; a cascade's second round sends
        # the next judges only the predictions the first ones disagree on (docs/method.md §2)
        first, then = params.jury.escalation(model.provider)
        verdicts = run_jobs([Job(f"{name} (judge {j.key})", j.provider, functools.partial(one, j, predictions))
                             for j in first])
        if then:
            keys = predictions[["riddle_id", "model"]]
            heads = {model.key: [j.key for j in first]}
            escalated = predictions[cascade.escalated(pd.concat(verdicts, ignore_index=True), keys, heads)]
            verdicts += run_jobs([Job(f"{name} (judge {j.key})", j.provider, functools.partial(one, j, escalated))
                                  for j in then]) if len(escalated) else []  # all settled: no second round
        table = pd.concat(verdicts, ignore_index=True).sort_values(["riddle_id", "judge"])
        return Work(table, JUDGMENTS, cost_totals({"judge": table}, by="judge"), table["request_hash"],
                    answered_keys(table, "judge", senders(params.jury.panel(model.provider))))

    provider = ",".join(sorted({j.provider for j in params.jury.panel(model.provider)}))
    id = JobId("judge", model.key, split)
    if not paths.predictions(split, model.key).exists():  # its predict job failed (metrics/failures/predict.json)
        return blocked_job(name, provider, id, f"{job_name('predict', model.key, split)} failed: nothing to judge")
    return paid_job("judge", name, provider, job_files("judge", split, model.key),
                    judge_inputs(params, model, split, code), cache, work, id)


def riddle_jobs(kind: str, params: Params, ctx: RunContext, cache: RequestCache, code: str) -> list[PaidJob]:
    """Every job of ``kind`` (predict or judge): one per split and model that takes it."""
    make = predict_job if kind == "predict" else judge_job
    return [make(params, m, split, ctx, cache, code) for split in params.splits for m in params.models_taking(split)]


def folders(stage: str, splits: tuple[str, ...]) -> list[Path]:
    """The folders a coarse stage owns (its DVC outs): its tables, answers and costs."""
    tables = paths.DATA / ("predictions" if stage == "predict" else "judgments")
    return [tables, paths.DATA / "answers" / stage, paths.cost(stage, splits[0], "x").parent.parent]
