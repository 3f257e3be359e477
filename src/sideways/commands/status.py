"""``sideways status``: what is in flight now, per provider and job; batches with their status and age.

Two sources, both local, neither needing a key nor the network:

* the journals of live runs (``<cache_dir>/journal``, :func:`sideways.llm.journal.live_runs`):
  each request run, while it goes, keeps a status file next to its journal with its job,
  provider, requests, and how many it has sent, had answered and seen fail;
* the batch ledger (``<cache_dir>/batchling.sqlite3``): every batch a provider accepted, with the
  status the last poll found. The provider is not asked now (that needs its key): the status
  is the ledger's, and the table says when it was seen. A batch stays listed until a poll finds
  it ended, so batches left by a killed run show here until a rerun collects them.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from sideways.artifacts.failures import read_failures, summary
from sideways.backends.batch_status import BATCHLING_DB, RecordedBatch, recorded_batches
from sideways.commands import Subparsers, add_params_option
from sideways.config.params import load_params
from sideways.core.width import clip
from sideways.llm.journal import live_runs

RUN_COLUMNS = ("JOB", "PROVIDER", "MODEL", "REQUESTS", "CACHED", "SENT", "ANSWERED", "FAILED", "RUNNING")
BATCH_COLUMNS = ("PROVIDER", "BATCH", "MODEL", "REQUESTS", "STATUS", "SINCE", "AGE", "JOB")


def register(sub: Subparsers) -> None:
    p = sub.add_parser("status", help="what is in flight: requests per provider and job, batches and their age",
                       description="What is in flight now: the requests of each running job (sent, answered, "
                                   "failed), and the provider batches not collected yet, with the status their last "
                                   "poll found and their age. Reads local files only: no key, no network.")
    add_params_option(p)
    p.add_argument("--cache-dir", metavar="DIR", help="the request cache (default: requests.cache_dir of params)")
    p.add_argument("--failed", action="store_true",
                   help="print only the failed jobs of the last run (metrics/failures/) and how to retry; "
                        "exit status 1 when there is any, 0 when there is none")
    p.set_defaults(func=run_status)


def cache_dir(args: argparse.Namespace) -> Path:
    if args.cache_dir:
        return Path(args.cache_dir)
    if Path(args.params).is_file():
        return load_params(args.params).requests.cache_dir
    return Path(".sideways/cache")


def run_status(args: argparse.Namespace) -> int:
    failed = summary(read_failures())
    if args.failed:
        print("\n".join(failed or ["no failed job"]))
        return 1 if failed else 0
    print(status_text(cache_dir(args), time.time()), end="")
    if failed:
        print("\nFailed jobs of the last run (metrics/failures/<stage>.json):\n" + "\n".join(failed))
    return 0


def status_text(cache: Path, now: float) -> str:
    """The report: runs in flight, then batches not collected; ``nothing in flight`` when idle."""
    runs = live_runs(cache)
    batches = [b for b in recorded_batches(cache / BATCHLING_DB) if not b.final]
    if not runs and not batches:
        return f"nothing in flight (request cache {cache})\n"
    out = []
    if runs:
        out.append(f"Running jobs ({len(runs)}), by provider; counts from their journals in {cache}/journal:")
        out += table(RUN_COLUMNS, [_run_row(r, now) for r in sorted(runs, key=lambda r: (r.get("provider", ""),
                                                                                         r.get("job", "")))])
    if batches:
        if out:
            out.append("")
        out.append(f"Batches not collected yet ({len(batches)}), from the ledger {cache / BATCHLING_DB}")
        out.append("(STATUS: what the last poll found, SINCE: when a poll first found it; the provider is not asked "
                   "now)")
        jobs = {(r.get("provider"), r.get("model")): r.get("job", "-") for r in runs}
        out += table(BATCH_COLUMNS, [_batch_row(b, now, jobs) for b in batches])
        if not runs:
            out.append("No run is live: the next run polls and collects these batches, submitting nothing again.")
    return "\n".join(out) + "\n"


def _run_row(run: dict[str, Any], now: float) -> list[str]:
    answered = max(int(run.get("answered", 0)), int(run["journal_answers"]) - int(run["journal_errors"]))
    return [str(run.get("job", "?")), str(run.get("provider", "?")), str(run.get("model", "?")),
            str(run.get("calls", "?")), str(run.get("cached", "?")), str(run.get("sent", "?")), str(answered),
            str(run.get("failed", "?")), age(now - float(run.get("started_at", now)))]


def _batch_row(b: RecordedBatch, now: float, jobs: dict[tuple[Any, Any], str]) -> list[str]:
    seen = f"{age(now - b.seen_at)} ago" if b.seen_at is not None else "-"
    return [b.provider, b.batch_id, b.model, str(b.requests), b.status or "accepted, not polled yet", seen,
            age(now - b.created_at), jobs.get((b.provider, b.model), "-")]


def table(columns: Sequence[str], rows: list[list[str]]) -> list[str]:
    """Left-aligned columns, two spaces apart, numbers right-aligned: stable for eyes and scripts; a
    row is cut at 120 columns (a job name that long)."""
    widths = [max(len(c), *(len(r[i]) for r in rows)) for i, c in enumerate(columns)]
    numeric = [all(r[i].isdigit() for r in rows) and bool(rows) for i in range(len(columns))]

    def line(cells: Sequence[str]) -> str:
        return "  ".join(c.rjust(w) if n else c.ljust(w) for c, w, n in zip(cells, widths, numeric, strict=True))

    return [clip("  " + line(columns).rstrip())] + [clip("  " + line(r).rstrip()) for r in rows]


def age(seconds: float) -> str:
    """``45s``, ``3m05s``, ``2h03m``, ``1d04h``."""
    s = max(0, int(seconds))
    if s < 60:
        return f"{s}s"
    if s < 3600:
        return f"{s // 60}m{s % 60:02d}s"
    if s < 86400:
        return f"{s // 3600}h{s % 3600 // 60:02d}m"
    return f"{s // 86400}d{s % 86400 // 3600:02d}h"


def main(argv: list[str] | None = None) -> int:
    from sideways.commands import run_alone

    return run_alone(register, argv)


if __name__ == "__main__":
    raise SystemExit(main())
