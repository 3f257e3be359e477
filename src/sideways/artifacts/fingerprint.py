"""The fingerprint of a coarse stage's job: a digest of every input the job reads.

A coarse stage (``predict`` and ``judge``: one DVC stage over every model, the exam's jobs
included) reruns as a whole when any model changes, and DVC deletes its outputs first. Each
job's table carries the fingerprint of its inputs in its Parquet metadata
(:data:`sideways.artifacts.io.INPUTS_KEY`); a job whose previous table has the same fingerprint
is reused byte for byte instead of run (docs/design.md, "Coarse stages").
"""

from __future__ import annotations

import functools
import hashlib
import json
from pathlib import Path
from typing import Any

import yaml

from sideways.core.errors import SchemaError

CODE_PREFIXES = ("src/", "stages/")  # a stage's deps that are code or prompt templates
# code a paid stage imports that decides whether it runs (the spending cap's estimate plans the
# run's requests), not what any job writes: left out of every job's fingerprint
NOT_RESULT_CODE = ("src/sideways/planning", "src/sideways/sources")


def digest(*parts: Any) -> str:
    """sha256 of ``parts`` as canonical JSON (``repr`` for what JSON cannot say, e.g. a spec)."""
    text = json.dumps(parts, sort_keys=True, ensure_ascii=False, default=repr)
    return hashlib.sha256(text.encode()).hexdigest()


def file_digest(path: Path) -> str:
    """sha256 of a file's bytes; a missing file is an error naming it. Hashed once per version
    of the file: every model's job of a split fingerprints the same split table."""
    try:
        stat = path.stat()
    except FileNotFoundError as exc:
        raise SchemaError(f"{path}: no such file (an input of the stage)") from exc
    return _hashed(str(path.resolve()), stat.st_mtime_ns, stat.st_size)


@functools.lru_cache(maxsize=256)
def _hashed(path: str, mtime_ns: int, length: int) -> str:
    """sha256 of the file at ``path`` as of (``mtime_ns``, ``length``): the cache key."""
    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()
    except FileNotFoundError as exc:
        raise SchemaError(f"{path}: no such file (an input of the stage)") from exc


def _code_files(root: Path, dep: str) -> list[Path]:
    path = root / dep
    if path.is_file():
        return [path]
    return sorted(p for p in path.rglob("*") if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc")


@functools.lru_cache(maxsize=8)
def code_digest(root: Path, stage: str, skip: tuple[str, ...] = ()) -> str:
    """A digest of the code and templates ``stage`` depends on: every file of its deps under
    ``src/`` or ``stages/`` in ``root/dvc.yaml``, the same list DVC hashes for the stage, less the
    deps that start with one of ``skip`` (the riddles' jobs skip the exam's code, and the exam's
    jobs the riddles' prompts: one stage runs both, docs/design.md, "Every batch in flight")."""
    pipeline = root / "dvc.yaml"
    try:
        data: Any = yaml.load(pipeline.read_text(), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
        deps = data["stages"][stage]["deps"]
    except (OSError, yaml.YAMLError, KeyError, TypeError) as exc:
        raise SchemaError(f"{pipeline}: cannot read the deps of stage {stage!r} ({exc})") from exc
    sha = hashlib.sha256()
    for dep in sorted(str(d) for d in deps if str(d).startswith(CODE_PREFIXES)
                      and not str(d).startswith(NOT_RESULT_CODE) and not (skip and str(d).startswith(skip))):
        for path in _code_files(root, dep):
            sha.update(path.relative_to(root).as_posix().encode() + b"\0")
            sha.update(hashlib.sha256(path.read_bytes()).digest())
    return sha.hexdigest()
