"""What every stage script shares: its arguments and clean errors.

Stage scripts (``stages/*.py``) stay thin: parse arguments, read inputs, call the library, write
outputs. :func:`run` turns a :class:`SidewaysError` into one line on stderr and exit status 2,
so ``dvc repro`` shows the problem, not a traceback.
"""

from __future__ import annotations

import argparse
import errno
import sys
from collections.abc import Callable

from sideways.core.errors import SidewaysError


def arguments(*names: str) -> argparse.Namespace:
    """Parse ``--name value`` options (all required) and a ``--params`` path."""
    parser = argparse.ArgumentParser()
    for name in names:
        parser.add_argument(f"--{name}", required=True)
    parser.add_argument("--params", default="params.yaml")
    return parser.parse_args()


#: A full disk, a file size limit (``ulimit -f``), a full quota: said in one line, not a traceback.
NO_ROOM = frozenset({errno.ENOSPC, errno.EFBIG, errno.EDQUOT})


def run(main: Callable[[], None]) -> None:
    """Run a stage's ``main``, reporting input errors (and a disk without room) in one line."""
    try:
        main()
    except SidewaysError as exc:
        print(f"error: {exc}", file=sys.stderr)
        raise SystemExit(2) from None
    except OSError as exc:
        if exc.errno not in NO_ROOM:
            raise
        where = f"{exc.filename}: " if exc.filename else ""
        print(f"error: {where}{exc.strerror}: every file written is whole or absent, the answers received are in "
              "the request cache or its journal; make room and rerun", file=sys.stderr)
        raise SystemExit(2) from None
