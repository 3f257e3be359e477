"""Outputs of models no longer in params.yaml (docs/design.md, "Removing a model").

The coarse stages own their folders (``data/predictions`` and the like are their DVC outputs):
``dvc repro`` after a model left params.yaml reruns them, DVC deletes the folders first, and each
stage removes any file it did not write. Files of a removed model can still be left behind when
a stage script is run by hand on an older workspace; :func:`orphans` lists them, and
``sideways prune`` (run by ``make repro`` before ``dvc repro``) deletes them.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from sideways.artifacts import paths


def orphans(models: Iterable[str], splits: Iterable[str], root: Path = Path()) -> list[Path]:
    """Files of the predict and judge stages of models not in ``models``, for each split, sorted."""
    keep = set(models)
    found: list[Path] = []
    for split in splits:
        folders = [
            (paths.predictions(split, "x").parent, ".parquet"),
            (paths.judgments(split, "x").parent, ".parquet"),
            (paths.answers("predict", split, "x").parent, ".jsonl"),
            (paths.answers("judge", split, "x").parent, ".jsonl"),
        ]
        for folder, suffix in folders:
            found += [f for f in (root / folder).glob(f"*{suffix}") if f.stem not in keep]
        for stage in ("predict", "judge"):
            where = paths.cost(stage, split, "\0")
            prefix, suffix = where.name.split("\0")
            for f in (root / where.parent).glob(f"{prefix}*{suffix}"):
                if f.name[len(prefix) : -len(suffix)] not in keep:
                    found.append(f)
    return sorted(found + _exam_orphans(keep, root))


def _exam_orphans(keep: set[str], root: Path) -> list[Path]:
    """The files of the exam's jobs (``exam_predict@`` and ``exam_judge@``, which run in the
    predict and judge stages) of models not in ``keep`` (exam_score depends on their folders)."""
    folders = [
        (paths.exam_predictions("x").parent, ".parquet"),
        (paths.exam_grades("x").parent, ".parquet"),
        *((paths.answers(kind, paths.EXAM_SPLIT, "x").parent, ".jsonl") for kind in paths.EXAM_JOB_STAGE),
    ]
    found = [f for folder, suffix in folders for f in (root / folder).glob(f"*{suffix}") if f.stem not in keep]
    for kind in paths.EXAM_JOB_STAGE:
        where = paths.cost(kind, paths.EXAM_SPLIT, "\0")
        prefix, suffix = where.name.split("\0")
        found += [f for f in (root / where.parent).glob(f"{prefix}*{suffix}")
                  if f.name[len(prefix) : -len(suffix)] not in keep]
    return found
