"""Files of one version of the project, read through DVC: a git revision, a ``dvc exp`` name, or the
workspace. Used by ``sideways diff``.

A revision is resolved as DVC resolves it (a branch, tag, sha, ``HEAD~1`` or an experiment's
name), then its files are opened through DVC's file system: a DVC-tracked output comes from the
local cache, else from the default remote, exactly as ``dvc.api.open`` reads it. Nothing is
recomputed and no stage runs; no key is needed (a remote's own credentials aside).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from sideways.commands.remote_state import readable, remote_odb
from sideways.core.errors import SidewaysError

#: How the workspace is named on the command line and in the output.
WORKSPACE = "workspace"


def resolve(rev: str) -> str:
    """The commit sha of ``rev`` (git revision or experiment name); one-line error when unknown."""
    from dvc.exceptions import DvcException  # type: ignore[import-untyped]
    from dvc.repo import Repo  # type: ignore[import-untyped]
    from dvc.scm import resolve_rev  # type: ignore[import-untyped]

    try:
        with Repo(".") as repo:
            sha = str(resolve_rev(repo.scm, rev))
            try:
                repo.scm.resolve_commit(sha)
            except Exception:  # noqa: BLE001 - pygit2 fails on a blob or tree in its own ways (AttributeError)
                raise SidewaysError(f"revision {rev!r}: names a file or a folder ({sha[:12]}), not a commit "
                                    "(a git revision or a `dvc exp` name)") from None
            return sha
    except DvcException as exc:
        raise SidewaysError(f"revision {rev!r}: {exc} (a git revision or a `dvc exp` name)") from None


class Unavailable(str):
    """Why a file of a revision cannot be read although the revision names it: its data is in neither
    DVC's cache nor the remote. Unlike a file the revision does not have, this makes ``sideways diff``
    fail: the comparison the user asked for cannot be made."""


#: What to run where the data is: on the clone that produced the revision, push every commit's outputs
#: that its cache holds (``dvc push --all-commits``, in DVC 3.67.1 as in every DVC 3).
PUSH_HINT = "on a clone that has them: `dvc push --all-commits`, then run this again"


def read_files(rev: str, files: Iterable[Path]) -> dict[Path, bytes | str]:
    """Each file's bytes at ``rev`` (:data:`WORKSPACE`: the files on disk), or why it cannot be read
    (an :class:`Unavailable` when ``rev`` names it but its data cannot be had). A remote that cannot
    be read is a :class:`~sideways.commands.remote_state.RemoteError`, never an empty table."""
    files = list(files)
    if rev == WORKSPACE:
        return {p: p.read_bytes() if p.exists() else f"{p}: not in the workspace" for p in files}
    sha = resolve(rev)
    from dvc.fs import DVCFileSystem  # type: ignore[import-untyped]
    from dvc.repo import Repo

    out: dict[Path, bytes | str] = {}
    lent = _workspace_remotes()
    with Repo.open(".", rev=sha, subrepos=True, uninitialized=True, config=lent) as repo:
        fs = DVCFileSystem(repo=repo, subrepos=True)
        for path in files:
            out[path] = _read(fs, path, rev, remote=lent is not None)
        if lent is not None and any(isinstance(v, Unavailable) for v in out.values()):
            name = lent["core"]["remote"]
            readable(remote_odb(repo, name), f"remote {name!r}")  # missing, or refused? refused is an error
    return out


def _workspace_remotes() -> dict[str, Any] | None:
    """The workspace's remotes and default remote, lent to an older revision that may predate them
    (DVC would otherwise read each revision's own ``.dvc/config``). None when the workspace has no
    default remote: DVC then reads the workspace's cache only (``dvc.repo.open_repo`` lends it as
    ``auto-generated-upstream``), whatever remote the revision's own config names."""
    from dvc.repo import Repo

    with Repo(".") as repo:
        conf = repo.config
        remotes, default = dict(conf.get("remote", {})), conf.get("core", {}).get("remote")
    if not default:
        return None
    return {"core": {"remote": default}, "remote": remotes}


def _read(fs: Any, path: Path, rev: str, remote: bool) -> bytes | str:
    """One file through DVC's file system, or the one-line reason it cannot be read (``remote``: the
    workspace has a default remote; without one DVC reads the cache only, never REV's own remote)."""
    name = fs.from_os_path(str(path))
    try:
        with fs.open(name, mode="rb") as handle:
            return bytes(handle.read())
    except FileNotFoundError:
        if not fs.exists(name):
            return f"{path}: not in {rev}"
        if not remote:
            return Unavailable(f"{path} at {rev}: its data is not in DVC's cache and the workspace has no default "
                               f"remote (`dvc remote default NAME`; {rev}'s own .dvc/config is not used)")
        return Unavailable(f"{path} at {rev}: its data is in neither DVC's cache nor the default remote")
    except Exception as exc:  # noqa: BLE001 - DVC raises many kinds (no cache, no remote, ...): one line each
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        return Unavailable(f"{path} at {rev}: {first[:160]}")
