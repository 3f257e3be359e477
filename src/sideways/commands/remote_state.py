"""What a DVC remote really holds of what ``dvc.lock`` names, asked of the remote itself.

``dvc push`` and ``dvc status -c`` decide what the remote has from DVC's own records (a data
index kept in the site cache, and a folder's manifest standing for its files): after a push
killed midway, a re-push can say "Everything is up to date" and exit 0 while files are missing.
Here every object the lock names (each cached output, and for a folder its manifest and every
file in it) is looked up on the remote by its path, through DVC's own object database of that
remote (``oids_exist``: a listing, or one ``exists`` per object). Used by ``sideways push``
(verify, then upload what is missing) and ``sideways fetch`` (what a clone cannot restore).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from sideways.core.errors import SidewaysError


class RemoteError(SidewaysError):
    """The remote cannot be read or written (credentials, network, no remote): never an empty answer."""


@dataclass(frozen=True)
class Locked:
    """One object ``dvc.lock`` names: its hash (``….dir`` for a folder's manifest), the path it is
    checked out at, and the stage whose output it is."""

    oid: str
    path: str
    stage: str
    output: str = ""  # the output (dvc.yaml's path) it belongs to: itself, or the folder holding it

    @property
    def out(self) -> str:
        return self.output or self.path


@contextmanager
def open_repo(root: str = ".", rev: str | None = None) -> Iterator[Any]:
    """The DVC repository at ``root`` (at ``rev``: a git revision), closed after the block."""
    from dvc.repo import Repo  # type: ignore[import-untyped]

    with (Repo(root) if rev is None else Repo.open(root, rev=rev, uninitialized=True)) as repo:
        yield repo


def default_remote(repo: Any) -> str | None:
    """The name of the default remote, None when there is none."""
    name = repo.config.get("core", {}).get("remote")
    return str(name) if name else None


def remote_odb(repo: Any, name: str | None = None) -> Any:
    """The remote's object database (its ``files/md5`` folder); a :class:`RemoteError` when unusable."""
    from dvc.config import NoRemoteError, RemoteConfigError  # type: ignore[import-untyped]

    try:
        return repo.cloud.get_remote(name=name, command="push").odb
    except (NoRemoteError, RemoteConfigError) as exc:
        raise RemoteError(first_line(exc)) from None


def first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def locked_outputs(repo: Any) -> Iterator[tuple[str, str, Any]]:
    """``(stage, path, hash_info)`` of each cached output ``dvc.lock`` records for the checked-out
    dvc.yaml (an output without a lock entry is skipped: it was never produced)."""
    for stage, out in _outs(repo):
        yield stage, str(out.def_path), out.hash_info


def paid_answers(repo: Any) -> set[str]:
    """The stages whose locked answers (``data/answers/<stage>``, ``data/extracted/answers.jsonl``: the
    replies behind the results) are not empty: what they carry was answered by a provider, paid.
    A simulated or replayed run writes empty answers files (size 0 in the lock)."""
    def answers(path: str) -> bool:
        return "answers" in path.split("/")[:-1] or path.endswith("/answers.jsonl")

    return {stage for stage, out in _outs(repo) if answers(str(out.def_path)) and (out.meta.size or 0) > 0}


def _outs(repo: Any) -> Iterator[tuple[str, Any]]:
    for stage in repo.index.stages:
        for out in stage.outs:
            if out.use_cache and out.hash_info and out.hash_info.value:
                yield stage.addressing, out


def locked_objects(repo: Any, odbs: Iterable[Any]) -> tuple[list[Locked], list[Locked]]:
    """Every object the lock names, and the folders whose manifest none of ``odbs`` (the local cache,
    then the remote) holds: their files cannot be listed, so the manifest itself counts as missing."""
    from dvc_data.hashfile.tree import Tree

    odbs = list(odbs)
    named: list[Locked] = []
    unlisted: list[Locked] = []
    for stage, path, info in locked_outputs(repo):
        named.append(Locked(info.value, path, stage))
        if not info.isdir:
            continue
        tree = None
        for odb in odbs:
            try:
                tree = Tree.load(odb, info)
                break
            except (FileNotFoundError, OSError, ValueError):
                continue
        if tree is None:
            unlisted.append(Locked(info.value, path, stage))
            continue
        for key, _meta, entry in tree:
            if entry is not None and entry.value:
                named.append(Locked(entry.value, f"{path}/{'/'.join(key)}", stage, path))
    return named, unlisted


def readable(odb: Any, where: str) -> None:
    """Raise a :class:`RemoteError` naming ``where`` when the remote cannot be listed (wrong
    credentials, no network, no such bucket); a remote nothing was pushed to yet is readable.
    (Asking for one object is not enough: some storages answer "absent" to a refused lookup.)"""
    try:
        odb.fs.ls(odb.path, detail=False)
    except FileNotFoundError:
        return
    except Exception as exc:  # noqa: BLE001 - s3fs, sshfs, gcsfs... each raise their own kinds
        raise RemoteError(f"{where} cannot be read: {first_line(exc)[:200]}") from None


def present(odb: Any, oids: Iterable[str], where: str) -> set[str]:
    """The ``oids`` that ``odb`` holds, asked of its storage; a :class:`RemoteError` naming ``where``
    when it cannot be read (wrong credentials, no network): never an empty answer."""
    oids = sorted(set(oids))
    if not oids:
        return set()
    readable(odb, where)
    try:
        return set(odb.oids_exist(oids))
    except Exception as exc:  # noqa: BLE001 - s3fs, sshfs, gcsfs... each raise their own kinds
        raise RemoteError(f"{where} cannot be read: {first_line(exc)[:200]}") from None


def missing_on(odb: Any, objects: list[Locked], where: str) -> list[Locked]:
    """The objects of ``objects`` that ``odb`` does not hold, in lock order (each asked once)."""
    have = present(odb, (o.oid for o in objects), where)
    return list(dict.fromkeys(o for o in objects if o.oid not in have))


def summary(objects: list[Locked], limit: int = 10, width: int = 116) -> list[str]:
    """One line per output (``stage: path``; a folder with the files of it that are concerned), at
    most ``limit`` lines of at most ``width`` columns; then a count of the rest."""
    by_out: dict[tuple[str, str], list[Locked]] = {}
    for o in objects:
        by_out.setdefault((o.stage, o.out), []).append(o)
    lines = []
    for (stage, out), group in by_out.items():
        files = [o.path.removeprefix(out + "/") for o in group if o.path != out]
        line = f"{stage}: {out}" + (f"/: {len(files)} file(s): {', '.join(files)}" if files else "")
        lines.append(line if len(line) <= width else line[:width - 3] + "...")
    if len(lines) > limit:
        lines = [*lines[:limit], f"... and {len(lines) - limit} more output(s)"]
    return lines
