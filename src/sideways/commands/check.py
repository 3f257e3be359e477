"""``sideways check``: validate params.yaml before DVC reads it (``make repro`` runs it first).

DVC reads params.yaml on its own terms: a model key with a dot fails inside DVC with
"Parameters 'models.gpt-5.1' are missing", and a typo passes silently. This command parses the
file with the same strict schema every stage uses, then looks for what a stage would refuse
(:mod:`sideways.config.preflight`, which the pipeline's first stage runs too), and prints the
first problem in one line, naming the key (exit 2), or a one-line summary (exit 0).
"""

from __future__ import annotations

import argparse

from sideways.commands import Subparsers, add_params_option
from sideways.config.preflight import check_project

DESCRIPTION = """\
Validate params.yaml with the schema every stage uses: unknown keys (with a did-you-mean
suggestion), values out of range, model keys DVC cannot track (a dot in the key), jury panels
that cannot be formed; then what a stage would refuse: a missing riddle file, exam file, label
file or replay file, a wiki source without a contact, simulated annotators without a simulated
model, a spending cap while a model that sends requests has no price. Prints one line naming the
key at fault and exits 2, or a summary and exits 0. `make repro` runs it before `dvc repro`, and
the pipeline's first stage runs it (the labels aside) under plain `dvc repro`.
"""


def register(sub: Subparsers) -> None:
    p = sub.add_parser("check", help="validate params.yaml (make repro runs it before dvc repro)",
                       description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_params_option(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    params = check_project(args.params)
    print(f"{args.params}: ok ({len(params.models)} models, {len(params.jury.pool)} judges in the pool, "
          f"panels of {params.jury.judges}, splits {', '.join(params.splits)})")
    return 0
