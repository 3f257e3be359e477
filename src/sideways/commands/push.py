"""``sideways push`` (``make push``): share the results, then prove the remote holds them.

``dvc push --run-cache`` first; then every object the workspace's ``dvc.lock`` names (each
cached output, the answers the paid stages carry included, and every file of each folder) is
looked up on the remote itself (:mod:`sideways.commands.remote_state`), not in DVC's records of
it, which a push killed midway can leave claiming files that never arrived. What is missing but
in this clone's cache is uploaded again; what is still missing is named, one line an object
(summarised past ten), and the command exits 1: a push is finished or it fails.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from typing import Any

from sideways.commands import Subparsers
from sideways.commands.remote_state import (
    Locked,
    RemoteError,
    default_remote,
    first_line,
    locked_objects,
    missing_on,
    open_repo,
    remote_odb,
    summary,
)

DESCRIPTION = """\
Push the results to the default DVC remote (`dvc push --run-cache`: every output, the answers the
paid stages carry, and the run-cache), then check on the remote itself that it holds every object
dvc.lock names: each output, and each file of each output folder. Objects a push left out (killed
midway, a network error) are uploaded again from this clone's cache; what is still missing is named
and the command exits 1. Exit 0 means another clone can restore every result of this version.
"""


def register(sub: Subparsers) -> None:
    p = sub.add_parser("push", help="push the results to the DVC remote and verify the remote holds them",
                       description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("-r", "--remote", help="the DVC remote (default: the default remote)")
    p.add_argument("--verify-only", action="store_true", help="only check the remote; push nothing")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if not args.verify_only:
        cmd = ["dvc", "push", "--run-cache", *(["--remote", args.remote] if args.remote else [])]
        print(" ".join(cmd), flush=True)
        pushed = subprocess.run([sys.executable, "-m", "dvc", *cmd[1:]], check=False)
        if pushed.returncode != 0:
            print(f"sideways push: dvc push exited {pushed.returncode}; checking what the remote holds", flush=True)
    return verify(args.remote, upload=not args.verify_only)


def verify(name: str | None, upload: bool) -> int:
    """Check the remote holds every object dvc.lock names (uploading what this cache has when
    ``upload``); print the result; 0 when complete, 1 when not."""
    with open_repo() as repo:
        name = name or default_remote(repo)
        if name is None:
            raise RemoteError("no default DVC remote: `dvc remote add -d NAME URL` (docs/remotes.md)")
        where = f"remote {name[:30]!r}"
        odb, local = remote_odb(repo, name), repo.cache.local
        named, unlisted = locked_objects(repo, [local, odb])
        missing = missing_on(odb, named, where)
        if missing and upload:
            resent = resend(local, odb, missing)
            if resent:
                print(f"sideways push: {resent} object(s) the push left out uploaded again from this clone's cache")
            missing = missing_on(odb, named, where)
    gone = unlisted + missing
    if gone:
        print(f"sideways push: {where} lacks {len(gone)} object(s) dvc.lock names, not in this clone's "
              "cache either:", file=sys.stderr)
        for line in summary(gone):
            print(f"  {line}", file=sys.stderr)
        print("  rerun their stages here (`dvc repro -f -s STAGE`), or push from a clone that has them "
              "(`sideways push`)", file=sys.stderr)
        return 1
    stages = len({o.stage for o in named})
    print(f"sideways push: {where} holds all {len(named)} objects dvc.lock names ({stages} stages)")
    return 0


def resend(local: Any, odb: Any, missing: list[Locked]) -> int:
    """Upload, in one batch, each of ``missing`` that the local cache holds; how many were sent."""
    have = [oid for oid in dict.fromkeys(o.oid for o in missing) if local.exists(oid)]
    if not have:
        return 0
    try:
        odb.add([local.oid_to_path(oid) for oid in have], local.fs, have, check_exists=False)
    except Exception as exc:  # noqa: BLE001 - each storage raises its own kinds
        raise RemoteError(f"uploading {len(have)} object(s) failed: {first_line(exc)[:200]}") from None
    return len(have)
