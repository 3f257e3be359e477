"""``sideways leaderboard``: the published layton-eval leaderboard from a layton-eval-ppi file."""

from __future__ import annotations

import argparse
import os

from sideways.artifacts.io import write_json
from sideways.artifacts.schema import EMPTY_BINS, FIELDS, INTERVALS, METHODS, SPLITS
from sideways.commands import Subparsers
from sideways.layton_eval.convert import import_ppi
from sideways.layton_eval.source import HUB_ID, read_ppi
from sideways.scoring.leaderboard import build_leaderboard, coverage_line, format_table, json_rows

DEFAULT_PPI = os.environ.get("SIDEWAYS_PPI_FILE")

HELP = f"""\
Rank the models of a layton-eval-ppi calibration file exactly as layton-eval publishes them:
provider-aware jury, stratified-bootstrap PPI against the human labels of other providers,
95% interval, rank and rank spread (docs/method.md). Prints the leaderboard as a Markdown table:
ranked by the posterior, rank, 95% rank set, model, score, its 95% interval as [lo, hi], provider;
ranked by the published interval, the published layout (rank, rank spread, model, score, 95% CI
(±), provider). A model reads as its key (the slug of provider and model name).

--ppi-file is a local .jsonl/.parquet file in the published format, or the hub id {HUB_ID}
(loads ppi_<split>.jsonl through `datasets`; offline, download it and pass the path).
Defaults to $SIDEWAYS_PPI_FILE when set.

Both 95% intervals are computed and shown. --interval says which one the ranks follow:
posterior (the default: the beta-binomial posterior of docs/method.md §6, which covers the
truth in simulation and never fails on an empty bin) or published (the published table:
use `--interval published --method exact` to reproduce it digit for digit).

--method is how the published interval is computed: exact computes the bootstrap's
distribution exactly (no sampling, digit-for-digit reproducible); layton draws --bootstrap
Monte Carlo replicates with a generator seeded by (--seed, model, field), as the published
procedure does (unseeded there).
"""


def register(subparsers: Subparsers) -> None:
    p = subparsers.add_parser("leaderboard", help="rank a layton-eval-ppi file as published",
                              description=HELP, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--ppi-file", required=DEFAULT_PPI is None, default=DEFAULT_PPI, metavar="PATH",
                   help=f"layton-eval-ppi .jsonl/.parquet file or hub id {HUB_ID} (default: $SIDEWAYS_PPI_FILE)")
    p.add_argument("--split", choices=SPLITS, default="llm",
                   help="split to load from the hub, or to keep when the file has a split column (default: llm)")
    p.add_argument("--field", choices=FIELDS, default="both_correct", help="scored field (default: both_correct)")
    p.add_argument("--method", choices=METHODS, default="layton",
                   help="the published interval: layton (Monte Carlo) or exact (default: layton)")
    p.add_argument("--interval", choices=INTERVALS, default="posterior",
                   help="the interval ranks follow: posterior or published (default: posterior)")
    p.add_argument("--bootstrap", type=_positive, default=10_000, help="replicates in layton mode (default: 10000)")
    p.add_argument("--seed", type=_natural, default=0, help="seed of the layton-mode generator (default: 0)")
    p.add_argument("--empty-bin", choices=EMPTY_BINS, default="error",
                   help="published interval, a jury-score bin with no human label in the pool: fail (default) or "
                        "borrow the nearest bin (with --interval posterior a failure leaves it empty)")
    p.add_argument("--json", metavar="OUT", help="also write the rows (published and unrounded values) to OUT")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    tables = import_ppi(read_ppi(args.ppi_file, split=args.split), source=str(args.ppi_file))
    board = build_leaderboard(
        tables.predictions, tables.judgments, tables.annotations, tables.panels,
        field=args.field, method=args.method, bootstrap=args.bootstrap, seed=args.seed, empty_bin=args.empty_bin,
        interval=args.interval, source=str(args.ppi_file), rank_sets=True,
    )
    print(f"ranks follow the {args.interval} 95% interval (--interval)\n{coverage_line(board)}\n")
    print(format_table(board, names=False), end="")
    if args.json:
        write_json(args.json, json_rows(board))
    return 0


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be >= 1, got {value}")
    return value


def _natural(text: str) -> int:
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be >= 0, got {value}")
    return value


if __name__ == "__main__":
    from sideways.commands import run_alone

    raise SystemExit(run_alone(register))
