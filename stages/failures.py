"""failures: the last stage. While any paid job is failed, name each, mark its stage for a retry, and fail.

The paid stages (predict, judge) write every job that succeeded and record the failed ones
(metrics/failures/<stage>.json). DVC saw them succeed, so without more it would call them up to
date with a job missing. This stage, last in the pipeline, turns each stage's retry marker
(data/retry/<stage>.json, a dependency of that stage) from ``failed`` to ``retry``, so the next
``dvc repro`` runs the stage again (only its failed jobs run), and exits non-zero with the failed
jobs and how to retry, so ``dvc repro`` never reports success with a job missing (docs/design.md,
"Failed jobs").
"""

import sys
from dataclasses import asdict

from sideways.artifacts.failures import FAILURES_DIR, PAID_STAGES, mark_retry, read_failures, summary
from sideways.artifacts.io import write_json
from sideways.core import stage


def main() -> None:
    stage.arguments()
    for name in PAID_STAGES:
        mark_retry(name)
    failed = read_failures()
    write_json(FAILURES_DIR / "summary.json", {"failed": [asdict(f) for f in failed]})  # every failed job, one file
    lines = summary(failed)
    if lines:
        print("\n".join(lines), file=sys.stderr)
        raise SystemExit(1)


if __name__ == "__main__":
    stage.run(main)
