"""``sideways prune``: delete the outputs of models removed from params.yaml (``make repro`` runs it)."""

from __future__ import annotations

import argparse

from sideways.artifacts.orphans import orphans
from sideways.commands import Subparsers, run_alone
from sideways.config.params import load_params


def register(sub: Subparsers) -> None:
    p = sub.add_parser(
        "prune",
        help="delete predictions, judgments, answers and costs of models no longer in params.yaml",
        description="dvc repro removes a removed model's files itself (the coarse stages own their "
        "folders); files left by stages run by hand on an older workspace would count in annotate's, "
        "jury's and calibrate's folder deps: this deletes them (make repro runs it before dvc repro).",
    )
    p.add_argument("--params", default="params.yaml", help="the params file naming the models to keep")
    p.add_argument("--dry-run", action="store_true", help="list the files without deleting them")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    params = load_params(args.params)
    taken = {b: [m.key for m in params.models_taking(b)] for b in params.benchmarks}
    for path in orphans(taken, params.splits):
        print(f"{'would delete' if args.dry_run else 'deleted'} {path} (its model is not in {args.params})")
        if not args.dry_run:
            path.unlink()
    return 0


if __name__ == "__main__":
    raise SystemExit(run_alone(register))
