"""``sideways report --compare REV``: the report of the workspace with a compare page against REV.

The ``report`` stage builds ``report/`` from the workspace's tables. This command builds the same
site in-process, from the same tables, with the rows of ``sideways diff REV workspace`` added, into
another folder (default ``report-compare/``, so that DVC's ``report/`` output stays as the stage
wrote it). The compare page draws each model's change with its interval; flipped riddles link to
the explorer (``#explorer/<split>/<riddle>``).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from sideways.artifacts import paths
from sideways.commands import Subparsers, add_params_option
from sideways.commands.diff import compare
from sideways.commands.revisions import WORKSPACE
from sideways.config.params import load_params
from sideways.core.errors import ReportError
from sideways.report.build import build_report
from sideways.report.inputs import input_files, read_exams, read_split
from sideways.report.provenance import report_header
from sideways.report.site import check_target, site_files, write_site
from sideways.scoring.paired import REPLICATES

DESCRIPTION = """\
Build the report site of the workspace (as the report stage does) with a compare page against
REV (a git revision or a `dvc exp` name): each model's change with its paired 95% interval and
verdict, and the riddles that flipped, linked to the explorer. Written to --out (default
report-compare/), leaving the report stage's report/ alone; an --out that exists must be a report
folder (it holds .sideways-report), anything else is refused, never replaced. REV's tables are read through DVC
(`sideways diff`): nothing is recomputed."""


def register(sub: Subparsers) -> None:
    p = sub.add_parser("report", help="the report with a compare page against a revision", description=DESCRIPTION)
    p.add_argument("--compare", required=True, metavar="REV", help="the revision or experiment to compare against")
    p.add_argument("--out", default="report-compare", type=Path, help="the folder to write (default: report-compare)")
    p.add_argument("--seed", type=int, default=0, help="seed of the paired draws (default: 0)")
    add_params_option(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.out.resolve() == paths.REPORT.resolve():
        raise ReportError(f"{args.out}: is the report stage's output (DVC's); choose another --out")
    check_target(args.out)  # before the comparison, which reads both versions' tables
    params = load_params(args.params)
    changes = compare(args.compare, WORKSPACE, seed=args.seed, replicates=REPLICATES)
    header = report_header(args.params, input_files(params))
    report = build_report({s: read_split(params, s) for s in params.splits}, params, header, read_exams(params),
                          compare={"against": args.compare, "rows": changes.rows, "not_compared": changes.problems})
    write_site(site_files(report), args.out)
    print(f"{args.out / 'index.html'}: the report with #compare against {args.compare} "
          f"({len(changes.rows)} rows, {len(changes.problems)} not compared)")
    return 0
