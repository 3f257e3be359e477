"""``sideways prune``: delete the outputs of models and exams removed from params.yaml (``make repro``
runs it), saying in one line per exam or model what it deleted and why."""

from __future__ import annotations

import argparse
from collections import defaultdict

from sideways.artifacts.orphans import Orphan, orphan_jobs
from sideways.commands import Subparsers, run_alone
from sideways.config.params import Params, load_params


def register(sub: Subparsers) -> None:
    p = sub.add_parser(
        "prune",
        help="delete predictions, judgments, answers and costs of models no longer in params.yaml",
        description="dvc repro removes a removed model's files itself (the coarse stages own their "
        "folders); files left by stages run by hand on an older workspace would count in annotate's, "
        "jury's and calibrate's folder deps: this deletes them (make repro runs it before dvc repro).",
    )
    p.add_argument("--params", default="params.yaml", help="the params file naming the models to keep")
    p.add_argument("--dry-run", action="store_true", help="say what would be deleted, delete nothing")
    p.add_argument("--list", action="store_true", help="also name each file (by default one line per exam or model)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    params = load_params(args.params)
    taken = {b: [m.key for m in params.models_taking(b)] for b in params.benchmarks}
    found = orphan_jobs(taken, params.splits)
    for o in found:
        if args.list:
            print(f"{'would delete' if args.dry_run else 'deleted'} {o.path}")
        if not args.dry_run:
            o.path.unlink()
    for line in summary(found, params, args.params, args.dry_run):
        print(line)
    return 0


def summary(found: list[Orphan], params: Params, source: str, dry_run: bool) -> list[str]:
    """One line per removed exam, per removed model, and per model that no longer takes some
    benchmarks: how many files, and why they are no job's any more."""
    verb = "would delete" if dry_run else "deleted"
    models = {m.key for m in params.models}
    gone_exams: dict[str, list[Orphan]] = defaultdict(list)
    gone_models: dict[str, list[Orphan]] = defaultdict(list)
    untaken: dict[str, list[Orphan]] = defaultdict(list)
    for o in found:
        if o.benchmark not in params.benchmarks:
            gone_exams[o.benchmark].append(o)
        elif o.model not in models:
            gone_models[o.model].append(o)
        else:
            untaken[o.model].append(o)

    def names(files: list[Orphan], field: str) -> str:
        return ", ".join(sorted({getattr(o, field) for o in files}))

    return ([f"{verb} {_files(fs)} of exam {b}: it is no longer in {source} (exams:); models {names(fs, 'model')}"
             for b, fs in sorted(gone_exams.items())]
            + [f"{verb} {_files(fs)} of model {m}: it is no longer in {source} (models:); {names(fs, 'benchmark')}"
               for m, fs in sorted(gone_models.items())]
            + [f"{verb} {_files(fs)} of model {m} on {names(fs, 'benchmark')}: it no longer takes them "
               f"(models.{m}.takes)" for m, fs in sorted(untaken.items())])


def _files(found: list[Orphan]) -> str:
    return f"{len(found)} file{'s' * (len(found) != 1)}"


if __name__ == "__main__":
    raise SystemExit(run_alone(register))
