"""The version of a stage's output that DVC recorded before this run, even after DVC deleted it.

DVC removes a stage's outputs before it runs the command (unless they are ``persist``, which
would switch off the run-cache for the stage). What the previous run wrote is still in DVC's
cache, addressed by the md5 that ``dvc.lock`` records for that output: after ``dvc pull`` it is
there on any clone. A paid stage reads its previous answers this way, so a rerun forced by a code
change answers from them instead of paying again (docs/design.md, "Answers travel").
"""

from __future__ import annotations

import configparser
import functools
import json
from pathlib import Path
from typing import Any

import yaml

from sideways.artifacts import paths
from sideways.core.errors import SchemaError

EMPTY_MD5 = "d41d8cd98f00b204e9800998ecf8427e"


def _lock_key(lock: Path) -> tuple[str, int, int] | None:
    """``lock``'s resolved path, mtime and length: the key of one version of the file (None: no lock)."""
    try:
        stat = lock.stat()
    except FileNotFoundError:
        return None
    return str(lock.resolve()), stat.st_mtime_ns, stat.st_size


@functools.lru_cache(maxsize=4)
def _parsed_stages(path: str, mtime_ns: int, length: int) -> dict[str, Any]:
    """The ``stages`` of one version of the lock at ``path``, parsed once (:func:`_lock_key`)."""
    try:
        data: Any = yaml.load(Path(path).read_text(), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except yaml.YAMLError as exc:
        raise SchemaError(f"{path}: not valid YAML ({exc})") from exc
    return dict((data or {}).get("stages") or {})


Outs = tuple[tuple[Path, str], ...]


@functools.lru_cache(maxsize=32)
def _outs_of(path: str, mtime_ns: int, length: int, stage: str) -> Outs:
    """``(where, md5)`` of every output the lock records for ``stage``, ``where`` resolved, worked out
    once per version of the lock (:func:`_lock_key`) and stage: a coarse stage asks for three files
    of each of its 800 jobs at 200 models (10 s when each resolved every path)."""
    root = Path(path).parent  # lock paths are relative to the lock's folder
    outs = (_parsed_stages(path, mtime_ns, length).get(stage) or {}).get("outs") or []
    return tuple(((root / str(out.get("path", ""))).resolve(), md5) for out in outs
                 if isinstance(out, dict) and isinstance(md5 := out.get("md5"), str))


def recorded_md5(stage: str, output: Path, lock: Path = Path("dvc.lock")) -> str | None:
    """The md5 that ``lock`` records for ``output`` of ``stage``, or None (no lock, no entry).

    ``output`` may be a file inside a directory output (a coarse stage's ``data/predictions``):
    the lock records the directory's ``.dir`` manifest, whose entry for the file gives its md5.
    A lock written before the exam's jobs moved into predict and judge records their outputs
    under the stages they had (exam_predict, exam_judge): those entries are read next, so the
    first run after the move pays nothing already paid (docs/design.md, "Every batch in flight")."""
    key = _lock_key(lock)
    if key is None:
        return None
    former = [kind for kind, now in paths.EXAM_JOB_STAGE.items() if now == stage]
    wanted = output.resolve()
    for name in (stage, *former):
        md5 = _entry_md5(_outs_of(*key, name), wanted, lock)
        if md5 is not None:
            return md5
    return None


def _entry_md5(outs: Outs, wanted: Path, lock: Path) -> str | None:
    """The md5 that one stage's ``outs`` record for the resolved path ``wanted``, or None."""
    for where, md5 in outs:
        if where == wanted:
            return md5
        if md5.endswith(".dir") and wanted.is_relative_to(where):
            return _manifest(md5, lock.parent).get(wanted.relative_to(where).as_posix())
    return None


def recorded_manifest(stage: str, folder: Path, lock: Path = Path("dvc.lock")) -> dict[str, str]:
    """relpath inside ``folder`` -> md5 of every file ``lock`` records for the directory output
    ``folder`` of ``stage`` ({}: no such entry, or this clone lacks its manifest): one lookup for a
    folder of thousands of files (the report's exam replies), instead of one :func:`recorded_md5` each."""
    key = _lock_key(lock)
    wanted = folder.resolve()
    for where, md5 in () if key is None else _outs_of(*key, stage):
        if md5.endswith(".dir") and where == wanted:
            return _manifest(md5, lock.parent)
    return {}


def _manifest(md5: str, root: Path) -> dict[str, str]:
    """relpath -> md5 of a directory DVC cached ({} when this clone lacks the manifest)."""
    path = cached_object(md5, root)
    return {} if path is None else _manifest_file(str(path))


@functools.lru_cache(maxsize=8)
def _manifest_file(name: str) -> dict[str, str]:
    """A cached manifest's entries, read once per run (content-addressed: it never changes)."""
    path = Path(name)
    try:
        entries: Any = json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        raise SchemaError(f"{path}: not a readable DVC directory manifest ({exc})") from exc
    return {str(e["relpath"]): str(e["md5"]) for e in entries if isinstance(e, dict) and "relpath" in e}


def cache_dir(root: Path = Path(".")) -> Path:
    """DVC's cache folder: ``cache.dir`` of ``.dvc/config.local`` or ``.dvc/config`` (relative to
    ``.dvc/``), else ``.dvc/cache``. Read as DVC reads it, without importing DVC; parsed once per
    version of the two files (a coarse stage looks up thousands of cached objects)."""
    dot_dvc = root / ".dvc"
    versions = tuple(_version(dot_dvc / name) for name in ("config.local", "config"))
    return _cache_dir(str(dot_dvc), str(dot_dvc.resolve()), versions)


def _version(path: Path) -> tuple[int, int] | None:
    try:
        stat = path.stat()
    except OSError:
        return None
    return stat.st_mtime_ns, stat.st_size


@functools.lru_cache(maxsize=8)
def _cache_dir(dot_dvc_name: str, resolved: str, versions: tuple[tuple[int, int] | None, ...]) -> Path:
    """:func:`cache_dir` of one version of the config files (``resolved`` and ``versions`` key it)."""
    dot_dvc = Path(dot_dvc_name)
    for name in ("config.local", "config"):
        parser = configparser.ConfigParser()
        try:
            parser.read(dot_dvc / name)
        except configparser.Error as exc:
            raise SchemaError(f"{dot_dvc / name}: not a readable DVC config ({exc})") from exc
        if parser.has_option("cache", "dir"):
            return dot_dvc / Path(parser.get("cache", "dir")).expanduser()
    return dot_dvc / "cache"


def cached_object(md5: str, root: Path = Path("."), cache: Path | None = None) -> Path | None:
    """The file of DVC's cache that holds ``md5``, if this clone has it (``dvc fetch`` brings it);
    ``cache``: :func:`cache_dir` already read (a caller looking up thousands of objects)."""
    path = (cache or cache_dir(root)) / "files" / "md5" / md5[:2] / md5[2:]
    return path if path.is_file() else None


def previous_output(stage: str, output: Path, lock: Path = Path("dvc.lock")) -> Path | None:
    """Where to read what ``stage`` last wrote to ``output``: the file itself when it is still in
    the workspace (a stage run by hand), else DVC's cached copy of the version ``lock`` records."""
    if output.is_file():
        return output
    md5 = recorded_md5(stage, output, lock)
    if md5 is None or md5 == EMPTY_MD5:
        return None
    return cached_object(md5, lock.parent)


def previous_bytes(stage: str, output: Path, lock: Path = Path("dvc.lock")) -> bytes | None:
    """The bytes ``stage`` last wrote to ``output`` (an empty file too, which DVC may not cache),
    or None when neither the workspace nor this clone's DVC cache has them."""
    if output.is_file():
        return output.read_bytes()
    md5 = recorded_md5(stage, output, lock)
    if md5 == EMPTY_MD5:
        return b""
    cached = None if md5 is None else cached_object(md5, lock.parent)
    return None if cached is None else cached.read_bytes()
