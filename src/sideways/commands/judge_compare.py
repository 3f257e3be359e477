"""``sideways judge-compare``: the three short-answer judge strategies on a sample, side by side."""

from __future__ import annotations

import argparse

from sideways.artifacts import paths
from sideways.artifacts.io import read_table, write_json
from sideways.artifacts.schema import EXAM_ITEMS, EXAM_PREDICTIONS
from sideways.commands import Subparsers, add_params_option, run_alone
from sideways.config.exam import ExamSpec
from sideways.config.params import JudgeSpec, ModelSpec, Params, load_params
from sideways.core.errors import SidewaysError
from sideways.exams.compare import compare_strategies, per_item, render, sample_answers
from sideways.exams.grade import exam_panel
from sideways.jobs.context import run_context

DESCRIPTION = """\
Grade a seeded sample of one model's short answers (from `dvc repro`) with one judge under each
strategy (baseline, chain_of_thought, rubric_anchored), then print how far the strategies agree
(mean absolute difference in points, share within half a point) and what each cost, as the
course notebook's section 5b does. Requests go through the request cache: a rerun pays nothing."""


def register(sub: Subparsers) -> None:
    p = sub.add_parser("judge-compare", help="compare the short-answer judge strategies on a sample",
                       description=DESCRIPTION)
    add_params_option(p)
    p.add_argument("--exam", help="which exam of exams: (default: the first one)")
    p.add_argument("--model", help="whose answers (default: the first model that takes the exam)")
    p.add_argument("--judge", help="the judge (default: the model's first exam judge; never its own provider)")
    p.add_argument("--sample", type=int, default=5, help="answers to grade (default: 5)")
    p.add_argument("--json", metavar="PATH", help="also write the comparison as JSON")
    p.set_defaults(func=run)


def _exam(params: Params, key: str | None) -> ExamSpec:
    if not params.exams:
        raise SidewaysError("exams: is empty in params.yaml: there is no exam to compare judges on")
    if key is None:
        return next(iter(params.exams.values()))
    if key not in params.exams:
        raise SidewaysError(f"--exam {key}: not an exam of params.yaml (exams: {', '.join(params.exams)})")
    return params.exams[key]


def _choose(params: Params, exam: ExamSpec, model_key: str | None,
            judge_key: str | None) -> tuple[ModelSpec, JudgeSpec]:
    takers = params.models_taking(exam.key)
    model = params.model(model_key) if model_key else (takers or params.models)[0]
    if model not in takers:
        raise SidewaysError(f"--model {model.key}: does not take exam {exam.key!r} (its takes:)")
    if judge_key is None:
        return model, exam_panel(params, exam, model)[0]
    judge = next((j for j in params.jury.pool if j.key == judge_key), None)
    if judge is None:
        raise SidewaysError(f"--judge {judge_key}: no such judge in jury.pool")
    if judge.provider == model.provider:
        raise SidewaysError(f"--judge {judge_key}: provider {judge.provider!r} is the model's own; "
                            "no judge grades its own provider")
    return model, judge


def run(args: argparse.Namespace) -> int:
    params = load_params(args.params)
    exam = _exam(params, args.exam)
    model, judge = _choose(params, exam, args.model, args.judge)
    if args.sample < 1:
        raise SidewaysError("--sample: at least 1 answer")
    source = paths.exam_predictions(exam.key, model.key)
    if not source.exists():
        raise SidewaysError(f"{source}: not computed yet; run `dvc repro predict` first")
    items = read_table(paths.exam_items(exam.key), EXAM_ITEMS)
    answers = sample_answers(read_table(source, EXAM_PREDICTIONS), args.sample, params.seed, model.key)
    if answers.empty:
        raise SidewaysError(f"{source}: no answered short answer to compare on")
    c = compare_strategies(items, answers, model, judge, run_context(params))
    print(f"{len(answers)} short answers of {model.key}, graded by {judge.key}:\n")
    print(render(c), end="")
    if args.json:
        write_json(args.json, {"model": model.key, "judge": judge.key, "strategies": c.strategies,
                               "pairs": c.pairs, "items": per_item(c)})
    return 0


if __name__ == "__main__":
    raise SystemExit(run_alone(register))
