"""``sideways diff-runs A B``: did the change help? Two runs made by lm-evaluation-harness or
inspect_ai, compared as ``sideways diff`` compares two versions of an exam.

A and B are paths :func:`~sideways.imports.load.read_runs` reads (an lm-eval output folder, an
inspect log, ``.eval`` through inspect's own converter, or a folder of them). Each run becomes a model taking one exam
(:func:`~sideways.imports.run.exam_tables`); runs of one model are paired per question, with the
same estimator, interval, verdict and table as ``sideways diff`` (:mod:`sideways.exams.changes`):
clustered by the questions' subjects where the samples carry them. One run on each side is
compared whatever the models are called (a model against itself after a change, or against
another); several on a side are paired by model name. Nothing is versioned or written.
"""

from __future__ import annotations

import argparse
import os
import textwrap
from typing import Any

import pandas as pd

from sideways.commands import Subparsers
from sideways.commands.diff import COLUMNS, WIDTH, cells, cluster_notes, decide
from sideways.exams.changes import exam_changes
from sideways.exams.results import detail_table, model_metrics
from sideways.imports.load import read_runs
from sideways.imports.run import ImportedRun, exam_tables, keyed_runs
from sideways.scoring.changes import Changes

DESCRIPTION = """\
Compare two runs made elsewhere, question by question: A and B are each an lm-evaluation-harness
output folder (--output_path with --log_samples), an inspect_ai log (.json, or .eval converted by
inspect's own `inspect log convert` from $SIDEWAYS_INSPECT or PATH), or a folder of such logs.
Every run is read as an exam of one-point questions (its per-sample score: acc, exact_match,
inspect's C/I/P), and each model's change from A to B is paired per question with a
95% interval clustered by subject where the samples name one, a verdict, the smallest detectable
change and the questions that flipped, as `sideways diff` prints an exam's rows. Nothing is
written; bad files are one line naming the file and the record."""


def register(sub: Subparsers) -> None:
    p = sub.add_parser("diff-runs", help="two lm-eval or inspect runs compared per question",
                       description=DESCRIPTION)
    p.add_argument("a", help="the old run: an lm-eval output folder, an inspect log or a folder of logs")
    p.add_argument("b", help="the new run (the same kinds of path)")
    p.add_argument("--score", metavar="NAME", help="the per-sample metric (lm-eval) or scorer (inspect) to read")
    p.add_argument("--items", action="store_true", help="list the flipped questions of each row")
    p.set_defaults(func=run)


def sides(a: list[ImportedRun], b: list[ImportedRun]) -> tuple[dict[str, ImportedRun], dict[str, ImportedRun]]:
    """Both sides' runs by model key: one run each is paired under A's model name, else by names."""
    if len(a) == len(b) == 1:
        return {a[0].model: a[0]}, {a[0].model: b[0]}
    return keyed_runs((None, r) for r in a), keyed_runs((None, r) for r in b)


def changes(a: list[ImportedRun], b: list[ImportedRun], names: tuple[str, str]) -> Changes:
    """The rows of ``sideways diff`` for the exam both sides' runs took, with their verdicts."""
    ra, rb = sides(a, b)
    exam = _exam_name([t for r in [*ra.values(), *rb.values()] for t in r.tasks])
    # one table of both sides, so a question the two sides hold differently is refused, naming both files
    both = {f"{k}\0{side}": r for side, runs in (("a", ra), ("b", rb)) for k, r in runs.items()}
    detail = detail_table(*exam_tables(exam, both))
    side = detail["model"].str.rsplit("\0", n=1).str[1]
    da, db = (_named(detail[side == s]) for s in ("a", "b"))
    scores: tuple[dict[str, Any], dict[str, Any]] = (model_metrics(da), model_metrics(db))
    rows, problems = exam_changes(exam, da, db, names, scores)
    rows = [r for r in rows if r["metric"] == "exam_score"]  # every question a one-point short answer: one metric
    if not rows and not problems:
        problems.append(f"{exam}: A and B share no question (runs of different tasks or samples?); nothing to pair")
    decide(rows)
    return Changes(rows, problems)


def _exam_name(tasks: list[str]) -> str:
    """The tasks' common name (``mmlu`` for ``mmlu_anatomy``, ``mmlu_virology``...), else the first and a count."""
    names = sorted(set(tasks))
    common = os.path.commonprefix(names).rstrip("_-.")
    return names[0] if len(names) == 1 else common or f"{names[0]}+{len(names) - 1}"


def _named(detail: pd.DataFrame) -> pd.DataFrame:
    return detail.assign(model=detail["model"].str.rsplit("\0", n=1).str[0]).reset_index(drop=True)


def render(ch: Changes, a: str, b: str, items: bool) -> str:
    """``sideways diff``'s table of an exam's rows, under a header naming the two runs."""
    rows = [list(COLUMNS), *(cells(r) for r in ch.rows)]
    widths = [max(len(row[i]) for row in rows) for i in range(len(COLUMNS))]
    lines = [f"A: {a}", f"B: {b}", "scores in percent of the questions; the change paired per question, with its 95% "
             "interval;", "verdict after Benjamini-Hochberg (q < 0.05); MDE: the smallest change detectable at 80% "
             "power;", "flips -/+: questions right->wrong / wrong->right", ""]
    lines += ["  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip() for row in rows]
    notes = cluster_notes(ch) + [f"not compared: {p}" for p in ch.problems]
    if items:
        notes += [f"{r['model']}: right->wrong {', '.join(r['to_wrong']) or '-'}; wrong->right "
                  f"{', '.join(r['to_right']) or '-'}" for r in ch.rows]
    lines += [w for note in notes for w in textwrap.wrap(note, WIDTH, subsequent_indent="    ",
                                                          break_long_words=False, break_on_hyphens=False)]
    return "\n".join(lines) + "\n"


def run(args: argparse.Namespace) -> int:
    a, b = read_runs(args.a, args.score), read_runs(args.b, args.score)
    print(render(changes(a, b, ("A", "B")), args.a, args.b, args.items), end="")
    return 0
