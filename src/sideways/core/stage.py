"""What every stage script shares: its arguments and clean errors.

Stage scripts (``stages/*.py``) stay thin: parse arguments, read inputs, call the library, write
outputs. :func:`run` turns a :class:`SidewaysError` into one line on stderr and exit status 2,
so ``dvc repro`` shows the problem, not a traceback; Ctrl-C into one line and the resume hint
(exit status 130); and the library's warnings into ``warning:`` lines, each said once.
"""

from __future__ import annotations

import argparse
import errno
import sys
import warnings
from collections.abc import Callable
from pathlib import Path

from sideways.core.errors import SidewaysError, one_line
from sideways.core.width import clip


def arguments(*names: str) -> argparse.Namespace:
    """Parse ``--name value`` options (all required) and a ``--params`` path."""
    parser = argparse.ArgumentParser()
    for name in names:
        parser.add_argument(f"--{name}", required=True)
    parser.add_argument("--params", default="params.yaml")
    return parser.parse_args()


#: A full disk, a file size limit (``ulimit -f``), a full quota: said in one line, not a traceback.
NO_ROOM = frozenset({errno.ENOSPC, errno.EFBIG, errno.EDQUOT})


def stage_name(argv: list[str] | None = None) -> str:
    """How DVC names the running stage: the script's name, with its ``--split`` (``calibrate@llm``)."""
    argv = sys.argv if argv is None else argv
    name = Path(argv[0]).stem if argv else "stage"
    for flag, value in zip(argv, argv[1:], strict=False):
        if flag == "--split":
            return f"{name}@{value}"
    return name


#: What Ctrl-C prints (after the stage's name): DVC deleted the outputs before the run and records
#: nothing for a stage that did not finish, so the next ``dvc repro`` runs it again, and the answers
#: received are in the request cache or its journal (docs/design.md, "The request cache and its journal").
INTERRUPTED = "interrupted; the answers received so far are kept in the request cache, no output was recorded"
RESUME = "resume: `dvc repro` (or `make repro`) runs it again and sends only what was not answered"


def run(main: Callable[[], None]) -> None:
    """Run a stage's ``main``, reporting input errors (and a disk without room) in one line, Ctrl-C
    in one line and the resume hint, and each distinct warning once as a ``warning:`` line."""
    name = stage_name()
    try:
        with warnings.catch_warnings(record=True) as caught:  # the filters as they are: a deprecation stays quiet
            try:
                main()
            finally:
                for line in warning_lines(name, [str(w.message) for w in caught]):
                    print(line, file=sys.stderr)
    except KeyboardInterrupt:
        print(f"{name}: {INTERRUPTED}\n{RESUME}", file=sys.stderr)
        raise SystemExit(130) from None
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


def warning_lines(stage: str, messages: list[str]) -> list[str]:
    """``warning: <stage>: <message>``, one line each (line breaks escaped, cut to 120 columns), each
    message once."""
    return [clip(f"warning: {stage}: {one_line(m)}") for m in dict.fromkeys(messages)]
