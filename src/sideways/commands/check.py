"""``sideways check``: validate params.yaml before DVC reads it (``make repro`` runs it first).

DVC reads params.yaml on its own terms: a model key with a dot fails inside DVC with
"Parameters 'models.gpt-5.1' are missing", and a typo passes silently. This command parses the
file with the same strict schema every stage uses and prints the first problem in one line,
naming the key (exit 2), or a one-line summary (exit 0).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from sideways.commands import Subparsers, add_params_option
from sideways.config.params import load_params
from sideways.config.remote_urls import refuse_url_secrets
from sideways.core.errors import ParamsError
from sideways.exams.source import missing_source

DESCRIPTION = """\
Validate params.yaml with the schema every stage uses: unknown keys (with a did-you-mean
suggestion), values out of range, model keys DVC cannot track (a dot in the key), jury panels
that cannot be formed, an exam whose file or dataset folder is missing. Prints one line naming
the key at fault and exits 2, or a summary and exits 0. `make repro` runs it before `dvc repro`.
"""


def register(sub: Subparsers) -> None:
    p = sub.add_parser("check", help="validate params.yaml (make repro runs it before dvc repro)",
                       description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_params_option(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    params = load_params(args.params)
    refuse_url_secrets(Path(args.params).parent)
    for spec in params.exams.values():
        if problem := missing_source(spec, Path(args.params).parent):
            raise ParamsError(f"{args.params}: {problem}")
    print(f"{args.params}: ok ({len(params.models)} models, {len(params.jury.pool)} judges in the pool, "
          f"panels of {params.jury.judges}, splits {', '.join(params.splits)})")
    return 0
