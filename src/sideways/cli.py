"""The ``sideways`` command: one subcommand per module of :mod:`sideways.commands`.

A command module exposes ``register(subparsers)`` which adds its parser and sets
``func=callable(args) -> int``. Input problems (:class:`SidewaysError`) print one clear line
and exit 2, with no traceback.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from sideways.errors import SidewaysError

COMMANDS: tuple[str, ...] = ("show", "leaderboard", "score", "dry_run", "cache")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="sideways", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    for name in COMMANDS:
        importlib.import_module(f"sideways.commands.{name}").register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except SidewaysError as exc:
        print(f"sideways {args.command}: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    raise SystemExit(main())
