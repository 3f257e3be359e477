"""``sideways fetch`` (``make repro``, before ``dvc repro --pull``): restore, and never pay silently.

With a default remote it runs ``dvc fetch --run-cache``. Then, for each stage that sends paid
requests under the current params (predict, judge, extract with a model that is neither simulated
nor replayed) and whose answers ``dvc.lock`` records as not empty (paid for once: a simulated run
writes empty answers files), it checks that every object the lock names for that
stage (its outputs, the answers it carries included, every file of each folder) is in this
clone's cache. One that is not was paid for once and cannot be restored: running the stage would
pay for it again, so the command stops (exit 1) before anything is sent, naming the objects and the
remote. ``SIDEWAYS_PAY_AGAIN=1`` lets the run pay on purpose. A project whose stages are all
simulated, or that has no lock yet, is never stopped.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from sideways.commands import Subparsers, add_params_option
from sideways.commands.remote_state import (
    Locked,
    default_remote,
    locked_objects,
    missing_on,
    open_repo,
    paid_answers,
    remote_odb,
    summary,
)
from sideways.config.params import Params, load_params
from sideways.config.preflight import used_judges

#: Set to 1 to let a stage pay again for locked outputs that cannot be restored.
PAY_AGAIN = "SIDEWAYS_PAY_AGAIN"

DESCRIPTION = f"""\
`make repro` runs it before `dvc repro --pull`. With a default DVC remote: `dvc fetch --run-cache`.
Then, for each paid stage (predict, judge, extract with a model that sends requests) that dvc.lock
records: are all its locked outputs in this clone's cache? If not, they were paid for once and
cannot be restored: it names them and the remote and exits 1, before anything is sent.
`{PAY_AGAIN}=1 make repro` pays for them again on purpose.
"""


def register(sub: Subparsers) -> None:
    p = sub.add_parser("fetch", help="restore results from the DVC remote; stop before paying again for them",
                       description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_params_option(p)
    p.add_argument("--no-fetch", action="store_true", help="check the cache only; fetch nothing")
    p.set_defaults(func=run)


def paid_stages(params: Params) -> set[str]:
    """The stages that send requests someone pays for under ``params``."""
    def paid(spec: Any) -> bool:  # the backend table's word for it, as the dry run and sideways check read it
        return bool(spec.capabilities.sends_requests)

    out = set()
    if any(paid(m) for m in params.models):
        out.add("predict")
    if any(paid(j) for j in used_judges(params)):  # a paid judge no panel asks sends nothing
        out.add("judge")
    if params.extractor is not None and paid(params.extractor):
        out.add("extract")
    return out


def run(args: argparse.Namespace) -> int:
    root = Path(args.params).parent
    with open_repo(str(root)) as repo:
        remote = default_remote(repo)
    if remote is not None and not args.no_fetch:
        print("dvc fetch --run-cache", flush=True)
        done = subprocess.run([sys.executable, "-m", "dvc", "fetch", "--run-cache"], cwd=root, check=False)
        if done.returncode != 0:
            print("(some results are not on the remote: their stages will run)", flush=True)
    stages = paid_stages(load_params(args.params))
    if not stages:
        return 0
    with open_repo(str(root)) as repo:
        stages &= paid_answers(repo)
        if not stages:
            return 0
        local = repo.cache.local
        odb = remote_odb(repo, remote) if remote is not None else None
        named, unlisted = locked_objects(repo, [local] if odb is None else [local, odb])
        lost = [o for o in unlisted + named if o.stage in stages and not local.exists(o.oid)]
        if odb is not None and lost:  # what the fetch did not bring: really absent from the remote?
            lost = missing_on(odb, lost, f"remote {remote!r}")
    if not lost:
        return 0
    if os.environ.get(PAY_AGAIN) == "1":
        print(f"sideways fetch: {len(lost)} locked output(s) of {', '.join(sorted({o.stage for o in lost}))} "
              f"cannot be restored: paying for them again ({PAY_AGAIN}=1)", flush=True)
        return 0
    stop(lost, remote)
    return 1


def stop(lost: list[Locked], remote: str | None) -> None:
    """Say why nothing is run: what is lost, from where, and the two ways on."""
    where = f"remote {remote[:30]!r}" if remote else "a remote (this clone has no default DVC remote)"
    names = ", ".join(sorted({o.stage for o in lost}))
    print(f"sideways fetch: stopped before paying again for {names}: {len(lost)} locked object(s) are",
          file=sys.stderr)
    print(f"  in neither this clone's cache nor {where}; they were paid for once:", file=sys.stderr)
    for line in summary(lost):
        print(f"  {line}", file=sys.stderr)
    print("  push them from the clone that has them (`sideways push` there), then `make repro` here;",
          file=sys.stderr)
    print(f"  or pay for them again on purpose: `{PAY_AGAIN}=1 make repro`", file=sys.stderr)
