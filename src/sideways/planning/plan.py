"""The requests a stage would send, without sending them: for the dry run and ``cache why``.

Reads params.yaml and the split tables (and a model's predictions when they exist, so judge
requests are exact; otherwise the gold answer and justification stand in for them, which is
close enough to estimate size and cost). The exam's requests are planned the same way once
``exam_items`` has written the items table.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from sideways.artifacts import paths
from sideways.artifacts.io import read_table
from sideways.artifacts.previous import previous_output
from sideways.artifacts.schema import EXAM_ITEMS, EXAM_PREDICTIONS, PREDICTIONS, RIDDLES
from sideways.backends import as_sender, extractor_for, judge_for, predictor_for
from sideways.backends.base import RunContext
from sideways.config.exam import ExamSpec
from sideways.config.params import JudgeSpec, ModelSpec, Params
from sideways.core.errors import SidewaysError
from sideways.exams.answer import answer_requests
from sideways.exams.grade import exam_panel, grade_requests
from sideways.exams.kinds import needs_judges
from sideways.jobs.exams import sampled_items
from sideways.jobs.names import job_name
from sideways.llm.answers import read_answers
from sideways.llm.prompts import Prompt
from sideways.llm.riddle_requests import Target, text_calls
from sideways.llm.runner import Call
from sideways.sources.wiki.build import build_riddles

EXTRACT = "extract"  # the extract stage (one stage, not a matrix): its split column says "wiki"


@dataclass(frozen=True)
class Planned:
    """The calls of one (stage, model or judge, split); ``model`` is the model whose job it is
    (for a judge, the model it grades): the job ``<stage>@<model>-<split>`` of the coarse DVC
    stage ``<stage>`` (docs/design.md, "Coarse stages"); an exam job, ``exam_predict@<model>+<exam>``
    or ``exam_judge@<model>+<exam>`` (``split`` is then the exam's key), runs in the DVC stage
    ``paths.dvc_stage(stage)`` (predict or judge)."""

    stage: str
    split: str
    spec: ModelSpec | JudgeSpec
    backend: str
    target: Target | None
    calls: tuple[Call, ...]
    exact: bool = True
    model: str = ""

    @property
    def stage_name(self) -> str:
        """The job's name, as the stage's messages, journals and cost files say it."""
        if self.stage == EXTRACT:
            return EXTRACT
        return job_name(self.stage, self.model or self.spec.key, self.split)

    @property
    def answers(self) -> Path:
        """The answers file this stage writes and a rerun reads first (:mod:`sideways.llm.answers`)."""
        if self.stage == EXTRACT:
            return paths.EXTRACT_ANSWERS
        return paths.answers(self.stage, self.split, self.model or self.spec.key)


def carried_keys(planned: Planned, root: Path = Path(".")) -> frozenset[str]:
    """The request keys that the stage's previous results carry (pulled or local): a rerun
    restores them before it sends anything."""
    previous = previous_output(paths.dvc_stage(planned.stage), root / planned.answers, root / "dvc.lock")
    return frozenset(r["key"] for r in read_answers(previous)) if previous else frozenset()


def riddles_of(split: str, root: Path = Path(".")) -> pd.DataFrame:
    path = root / paths.split_table(split)
    if not path.exists():
        raise SidewaysError(f"{path}: no split table yet; run `dvc repro split` first (it sends no request)")
    return read_table(path, RIDDLES)


def stand_in_predictions(riddles: pd.DataFrame, model: ModelSpec) -> pd.DataFrame:
    """Gold answers in place of predictions not made yet (same size, so the estimate holds)."""
    return pd.DataFrame({"riddle_id": riddles["riddle_id"], "model": model.key, "provider": model.provider,
                         "answer": riddles["answer"], "justification": riddles["justification"], "status": "ok"})


def plan_model(params: Params, model: ModelSpec, split: str, ctx: RunContext, root: Path = Path("."),
               judges: bool = True) -> list[Planned]:
    """The predict calls of ``model`` on ``split``, then the calls of each judge of its panel."""
    riddles = riddles_of(split, root)
    out: list[Planned] = []
    predictor = as_sender(predictor_for(model), model.backend)
    if predictor is not None:
        target, calls = predictor.plan_predictions(riddles, model, ctx)
        out.append(Planned("predict", split, model, model.backend, target, tuple(calls), model=model.key))
    else:
        out.append(Planned("predict", split, model, model.backend, None, (), model=model.key))
    if not judges:
        return out
    pred_path = root / paths.predictions(split, model.key)
    exact = pred_path.exists()
    predictions = read_table(pred_path, PREDICTIONS) if exact else stand_in_predictions(riddles, model)
    for judge in params.jury.panel(model.provider):
        backend = as_sender(judge_for(judge), judge.backend)
        if backend is not None:
            target, calls = backend.plan_judgments(riddles, predictions, judge, ctx)
            out.append(Planned("judge", split, judge, judge.backend, target, tuple(calls), exact, model.key))
        else:
            out.append(Planned("judge", split, judge, judge.backend, None, (), exact, model.key))
    return out


def plan_extract(params: Params, ctx: RunContext, root: Path = Path(".")) -> list[Planned]:
    """The extract stage's calls when the source is the wiki and a model extracts (none for the
    heuristic), built from the raw scrape exactly as the stage would."""
    spec = params.extractor
    if params.riddles.source != "wiki" or spec is None:
        return []
    extractor = as_sender(extractor_for(spec), spec.backend)
    if extractor is None:
        return [Planned(EXTRACT, "wiki", spec, spec.backend, None, (), model=spec.key)]
    wiki = params.riddles.wiki
    riddles = build_riddles(root / paths.RAW_WIKI, license=wiki.license, region=wiki.region)
    target, calls = extractor.plan_extractions(riddles, spec, ctx)
    return [Planned(EXTRACT, "wiki", spec, spec.backend, target, tuple(calls), model=spec.key)]


def _planned(stage: str, exam: str, spec: ModelSpec | JudgeSpec, backend: object,
             requests: list[tuple[str, str, Prompt]], ctx: RunContext, model: str, exact: bool = True) -> Planned:
    sender = as_sender(backend, spec.backend)
    if sender is None:
        return Planned(stage, exam, spec, spec.backend, None, (), exact, model)
    target = sender.target(spec, ctx.requests)
    return Planned(stage, exam, spec, spec.backend, target, tuple(text_calls(requests, target)), exact, model)


def plan_exam(params: Params, exam: ExamSpec, model: ModelSpec, ctx: RunContext,
              root: Path = Path(".")) -> list[Planned]:
    """The exam_predict calls of ``model`` on ``exam``, then its exam judges' calls (none before
    ``exam_items`` ran). Without the model's answers yet, the reference answers stand in for them."""
    path = root / paths.exam_items(exam.key)
    if not path.exists() or model.capabilities.imported:  # an imported run's answers and grades are its own
        return []
    items, _ = sampled_items(params, exam, model, read_table(path, EXAM_ITEMS), root)  # a sampled exam: its sample
    requests = answer_requests(items, model)
    out = [_planned("exam_predict", exam.key, model, predictor_for(model), requests, ctx, model.key)]
    pred_path = root / paths.exam_predictions(exam.key, model.key)
    exact = pred_path.exists()
    predictions = read_table(pred_path, EXAM_PREDICTIONS) if exact else items.assign(
        model=model.key, text=items["answer"], status="ok")
    for judge in exam_panel(params, exam, model) if needs_judges(items) else ():
        requests = grade_requests(items, predictions, model, judge, exam.strategy)
        out.append(_planned("exam_judge", exam.key, judge, judge_for(judge), requests, ctx, model.key, exact))
    return out


def plan_all(params: Params, ctx: RunContext, root: Path = Path(".")) -> list[Planned]:
    """The extract calls (wiki), then every predict and judge call of the configured models on
    every split, then the exam's. Before a first paid extraction the split tables do not exist
    yet: their requests are left out (``pending_splits`` names them)."""
    out = plan_extract(params, ctx, root)
    for split in params.splits:
        if out and split in pending_splits(params, root):
            continue
        out += [p for m in params.models_taking(split) for p in plan_model(params, m, split, ctx, root)]
    return out + [p for exam in params.exams.values() for m in params.models_taking(exam.key)
                  for p in plan_exam(params, exam, m, ctx, root)]


def pending_splits(params: Params, root: Path = Path(".")) -> list[str]:
    """The splits whose table does not exist yet."""
    return [s for s in params.splits if not (root / paths.split_table(s)).exists()]
