"""The ``sideways`` command: one subcommand per module of :mod:`sideways.commands`.

Each command module registers its own parser (:mod:`sideways.commands`); modules are imported
by name, so a command loads only its own dependencies when it runs alone.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from sideways.commands import execute, silence_stdout

COMMANDS: tuple[str, ...] = (
    "show", "check", "leaderboard", "score", "l3score", "dry_run", "cache", "status", "prune", "annotate",
    "judge_compare", "diff", "diff_runs", "import_run", "report", "push", "fetch",
)

DESCRIPTION = """\
sideways: a reproducible LLM/VLM riddle benchmark on DVC. `dvc repro` (or `make repro`) runs
the pipeline; these commands read its results, check params.yaml, estimate what real models
would cost, inspect the request cache, say what is in flight, score layton-eval files, and grade answers with L3Score.
"""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="sideways", description=DESCRIPTION,
                                     epilog="`sideways COMMAND --help` describes each command.")
    sub = parser.add_subparsers(dest="command", required=True, title="commands", metavar="COMMAND",
                                help="one of:")
    for name in COMMANDS:
        importlib.import_module(f"sideways.commands.{name}").register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run one command; a reader closing the pipe early (``sideways --help | head -1``) ends it quietly."""
    try:
        try:
            args = build_parser().parse_args(argv)
        except SystemExit:  # --help or a usage error, already printed: flush while we can handle it
            sys.stdout.flush()
            raise
        return execute(args)
    except BrokenPipeError:
        silence_stdout()
        return 1


if __name__ == "__main__":
    raise SystemExit(main())
