"""What every stage script shares: its arguments, the params, the run context, clean errors.

Stage scripts (``stages/*.py``) stay thin: parse arguments, read inputs, call the library, write
outputs. :func:`run` turns a :class:`SidewaysError` into one line on stderr and exit status 2,
so ``dvc repro`` shows the problem, not a traceback.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Callable

from sideways import progress
from sideways.backends.base import RunContext
from sideways.errors import SidewaysError
from sideways.llm.secrets import environment
from sideways.params import Params, load_params


def arguments(*names: str) -> argparse.Namespace:
    """Parse ``--name value`` options (all required) and a ``--params`` path."""
    parser = argparse.ArgumentParser()
    for name in names:
        parser.add_argument(f"--{name}", required=True)
    parser.add_argument("--params", default="params.yaml")
    return parser.parse_args()


def context(params: Params) -> RunContext:
    """The RunContext for backends, from params.yaml's ``requests:`` and ``prices:``."""
    requests = dict(params.raw.get("requests") or {})
    return RunContext(
        seed=params.seed,
        cache_dir=Path(requests.get("cache_dir", ".sideways/cache")),
        progress=progress.enabled(),
        env=environment(".env"),  # keys from the shell or .env, never from params
        settings={"requests": requests, "prices": dict(params.raw.get("prices") or {})},
    )


def run(main: Callable[[], None]) -> None:
    """Run a stage's ``main``, reporting input errors in one line."""
    try:
        main()
    except SidewaysError as exc:
        print(f"error: {exc}", file=sys.stderr)
        raise SystemExit(2) from None


__all__ = ["arguments", "context", "load_params", "run"]
