"""What reading an inspect ``.eval`` log costs: inspect's own ``inspect log convert --to json``, run by sideways
as a subprocess (``sideways.imports.inspect_tool``), on the committed logs of tests/data/imported/inspect.

Prints, per log, its size, the size of the ``.json`` inspect writes for it (what ``sideways import-run``
stores) and the median wall seconds of a conversion and of the whole read (conversion and our reader) over
``--repeats`` runs. Needs an ``inspect`` (``$SIDEWAYS_INSPECT``, ``inspect`` on PATH, or ``--inspect``;
``make harness`` installs inspect-ai in .venv-harness)::

    .venv/bin/python benchmarks/studies/eval_log_convert.py --inspect .venv-harness/bin/inspect --repeats 3
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from sideways.imports.inspect_log import read_inspect_log
from sideways.imports.inspect_tool import ENV, convert_eval, inspect_executable

ROOT = Path(__file__).resolve().parents[2]
LOGS = sorted((ROOT / "tests" / "data" / "imported" / "inspect").rglob("*.eval"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--inspect", help=f"the inspect executable (default: ${ENV}, else PATH)")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    if args.inspect:
        os.environ[ENV] = str(Path(args.inspect).absolute())
    if inspect_executable() is None:
        print(f"no inspect executable: pass --inspect, set ${ENV}, or run make harness", file=sys.stderr)
        return 1
    converts, reads = [], []
    for log in LOGS:
        for _ in range(args.repeats):
            with tempfile.TemporaryDirectory() as tmp:
                start = time.perf_counter()
                written = convert_eval(log, Path(tmp))
                converts.append(time.perf_counter() - start)
                json_bytes = written.stat().st_size
            start = time.perf_counter()
            run = read_inspect_log(log)
            reads.append(time.perf_counter() - start)
        print(f"{log.name}: {log.stat().st_size / 1e3:.0f} KB .eval -> {json_bytes / 1e3:.0f} KB .json, "
              f"{len(run.items)} samples")
    print(f"{len(LOGS)} .eval logs x {args.repeats}: convert median {statistics.median(converts):.2f} s "
          f"(max {max(converts):.2f}); whole read median {statistics.median(reads):.2f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
