"""``sideways show``: print the leaderboards the pipeline computed (after ``dvc repro``)."""

from __future__ import annotations

import argparse
import json

import pandas as pd

from sideways.artifacts import paths
from sideways.artifacts.failures import missing, read_failures, summary, with_results
from sideways.artifacts.io import read_table, read_tables
from sideways.artifacts.schema import (
    ANNOTATIONS,
    EXAM_GRADES,
    EXAM_ITEMS,
    EXAM_PREDICTIONS,
    JUDGMENTS,
    PREDICTIONS,
    SCORES,
)
from sideways.commands import Subparsers, add_params_option
from sideways.commands.audit import print_judges
from sideways.config.params import Params, load_params
from sideways.core.errors import SidewaysError
from sideways.core.width import clip
from sideways.exams.results import format_exam_table
from sideways.planning.cap import spend_line
from sideways.scoring.costs import cost_table, exam_costs, labels_line, split_costs
from sideways.scoring.display import model_label
from sideways.scoring.leaderboard import coverage_line, format_table
from sideways.scoring.ranking import rank_leaderboard

DESCRIPTION = """\
Print, for each split of params.yaml, the leaderboard `dvc repro` computed: rank, 95% rank set
(the ranks that hold every model's true rank at once; under `calibration.interval: published`,
layton-eval's rank spread instead, the rank set last), model (its key), score and 95% interval
of the interval the ranks follow ([lo, hi]; "fully labelled" when every prediction is), provider,
the other interval, the tie groups (models no paired comparison separates share one),
then what the paid stages cost on that split and each model's cost against the full design (what
the cascade saved; docs/real-models.md, "Cost"), and the split's label count, then the exam's
results and cost per model. Run `dvc repro` (or `make repro`) first."""


def register(sub: Subparsers) -> None:
    p = sub.add_parser("show", help="print the leaderboards computed by dvc repro", description=DESCRIPTION)
    add_params_option(p)
    p.add_argument("--judges", action="store_true", help="print every judge's rates instead (docs/method.md §6)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    params = load_params(args.params)
    if args.judges:
        return print_judges(params)
    for split in params.splits:
        if not paths.scores(split).exists():
            raise SidewaysError(f"{paths.scores(split)}: not computed yet; run `dvc repro` first")
        ranked = with_tie_groups(rank_leaderboard(read_table(paths.scores(split), SCORES)), split)
        print(f"\n{split} split, {params.calibration.field}, ranks follow the {params.calibration.interval} "
              f"95% interval (calibration.interval)")
        print(coverage_line(ranked) + "\n")
        print(format_table(ranked), end="")
        print(missing_lines(split), end="")
        print(cost_line(params, split))
        print("\n".join(design_lines(params, split)))
    exams = json.loads(paths.EXAM_METRICS.read_text()) if paths.EXAM_METRICS.exists() else {}
    for exam, metrics in exams.items():
        print(f"\nexam {exam} (percent, ± se; docs/exams.md):\n")
        print(format_exam_table(metrics), end="")
        print(missing_lines(exam), end="")
        print("\n" + "\n".join(exam_design_lines(params, exam)))
    print("\n" + spend_line(params))  # what the evaluation paid, against the spending cap
    failed = summary(read_failures())
    if failed:
        print("\n" + "\n".join(failed))
    return 0


def missing_lines(benchmark: str) -> str:
    """One line per model missing from ``benchmark``'s table, with the job that failed and why."""
    return "".join(clip(f"  {model_label(model)}: missing, {f.line()}") + "\n"
                   for model, f in missing(benchmark).items())


def with_tie_groups(ranked: pd.DataFrame, split: str) -> pd.DataFrame:
    """``ranked`` with the tie groups and rank sets the rank stage wrote in the leaderboard metrics
    (from one set of draws, docs/method.md §5), each when it wrote it for every model."""
    path = paths.leaderboard(split)
    board = json.loads(path.read_text()) if path.exists() else {}
    for key in ("tie_groups", "rank_set"):
        cells = [board.get(str(m), {}).get(key) if isinstance(board.get(str(m)), dict) else None
                 for m in ranked["model"]]
        if len(cells) and all(isinstance(c, str) for c in cells):
            ranked = ranked.copy()
            ranked[key] = [str(c) for c in cells]
    return ranked


def cost_line(params: Params, split: str) -> str:
    """One line: what the predict and judge stages of ``split`` recorded in ``metrics/cost/``."""
    usd = {"predict": 0.0, "judge": 0.0}
    rows = failed = priced = 0
    gone = missing(split)
    for stage in usd:
        for model in params.models_taking(split):
            path = paths.cost(stage, split, model.key)
            if model.key in gone and not path.exists():  # a failed job: named above
                continue
            if not path.exists():
                return f"\ncost on {split}: {path} missing (run `dvc repro`)"
            for t in json.loads(path.read_text()).values():
                usd[stage] += t["cost_usd"]
                rows, failed, priced = rows + t["rows"], failed + t["failed"], priced + t["priced"]
    return (f"\ncost on {split}: ${usd['predict'] + usd['judge']:,.4f} (predict ${usd['predict']:,.4f}, "
            f"judge ${usd['judge']:,.4f}); {rows} answers and verdicts, {failed} failed, "
            f"{rows - priced} without a price")


def design_lines(params: Params, split: str) -> list[str]:
    """Each model's cost on ``split`` (what its answers and verdicts cost) against the full design, and the split's
    label count (:mod:`sideways.scoring.costs`: the report's figures, from the same tables)."""
    keys = with_results([m.key for m in params.models_taking(split)], split)  # less its failed jobs
    predictions = read_tables([paths.predictions(split, k) for k in keys], PREDICTIONS, f"{split} predictions")
    judgments = read_tables([paths.judgments(split, k) for k in keys], JUDGMENTS, f"{split} judgments")
    labels = len(read_table(paths.annotations(split), ANNOTATIONS)) if paths.annotations(split).exists() else 0
    costs = [c for c in split_costs(params, split, predictions, judgments) if c.model in keys]
    return cost_table(costs) + [labels_line(split, labels)]


def exam_design_lines(params: Params, exam: str) -> list[str]:
    """Each model's cost on exam ``exam`` (its replies and their grades; with a sample, the questions not asked)."""
    keys = with_results([m.key for m in params.models_taking(exam)], exam)
    items = read_table(paths.exam_items(exam), EXAM_ITEMS)
    predictions = read_tables([paths.exam_predictions(exam, k) for k in keys], EXAM_PREDICTIONS, f"{exam} replies")
    grades = read_tables([p for k in keys if (p := paths.exam_grades(exam, k)).exists()], EXAM_GRADES,
                         f"{exam} grades")  # an exam of multiple choice only has no grades
    return [f"cost on exam {exam}:", *cost_table(exam_costs(exam, items, predictions, grades, keys))]
