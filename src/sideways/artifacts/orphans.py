"""Outputs of models no longer in params.yaml (docs/design.md, "Removing a model").

The coarse stages own their folders (``data/predictions`` and the like are their DVC outputs):
``dvc repro`` after a model left params.yaml reruns them, DVC deletes the folders first, and each
stage removes any file it did not write. Files of a removed model can still be left behind when
a stage script is run by hand on an older workspace; :func:`orphans` lists them, and
``sideways prune`` (run by ``make repro`` before ``dvc repro``) deletes them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import NamedTuple

from sideways.artifacts import paths


def orphans(taken: Mapping[str, Iterable[str]], splits: Iterable[str], root: Path = Path()) -> list[Path]:
    """Files of jobs no model takes any more, sorted: ``taken`` maps each benchmark (riddle split or
    exam key) to the models that take it; a model removed, a benchmark left out of a model's
    ``takes:``, or an exam removed from ``exams:`` leaves such files."""
    keep = {b: set(models) for b, models in taken.items()}
    found: list[Path] = []
    for split in splits:
        models = keep.get(split, set())
        folders = [
            (paths.predictions(split, "x").parent, ".parquet"),
            (paths.judgments(split, "x").parent, ".parquet"),
            (paths.answers("predict", split, "x").parent, ".jsonl"),
            (paths.answers("judge", split, "x").parent, ".jsonl"),
        ]
        for folder, suffix in folders:
            found += [f for f in (root / folder).glob(f"*{suffix}") if f.stem not in models]
        for stage in ("predict", "judge"):
            found += _costs(stage, {(m, split) for m in models}, root, split)
    exams = {b: models for b, models in keep.items() if b not in set(splits)}
    return sorted(found + _exam_orphans(exams, root))


class Orphan(NamedTuple):
    """A file no job writes any more, and the job it was of: its benchmark and model."""

    path: Path
    benchmark: str
    model: str


def orphan_jobs(taken: Mapping[str, Iterable[str]], splits: Iterable[str], root: Path = Path()) -> list[Orphan]:
    """:func:`orphans`, each with the benchmark and model its job was of (from its path: a table or
    answers file is ``<benchmark>/<model>``, a cost file ``<model>-<benchmark>.json``)."""
    splits = list(splits)
    found = orphans(taken, splits, root)
    exams = {p.parent.name for p in found if p.suffix != ".json"} | set(taken)
    out = []
    for path in found:
        if path.suffix != ".json":  # a table or an answers file: <benchmark>/<model>
            out.append(Orphan(path, path.parent.name, path.stem))
            continue
        ends = sorted((b for b in {*splits, *exams} if path.stem.endswith(f"-{b}")), key=len, reverse=True)
        benchmark = ends[0] if ends else "?"
        out.append(Orphan(path, benchmark, path.stem.removesuffix(f"-{benchmark}")))
    return out


def _costs(stage: str, pairs: set[tuple[str, str]], root: Path, split: str | None = None) -> list[Path]:
    """Cost files of ``stage`` (``<model>-<benchmark>.json``) not of a (model, benchmark) in ``pairs``;
    with ``split``, only those of that split."""
    folder = root / paths.cost(stage, "x", "x").parent
    wanted = {paths.cost(stage, b, m).name for m, b in pairs}
    pattern = f"*-{split}.json" if split else "*.json"
    return [f for f in folder.glob(pattern) if f.name not in wanted]


def _exam_orphans(taken: Mapping[str, set[str]], root: Path) -> list[Path]:
    """The files of the exams' jobs (``exam_predict@`` and ``exam_judge@``, which run in the predict
    and judge stages) of (model, exam) pairs not in ``taken`` (exam_score depends on their folders)."""
    found: list[Path] = []
    tables = [paths.exam_predictions("x", "x").parent.parent, paths.exam_grades("x", "x").parent.parent]
    answers = [paths.answers(kind, "x", "x").parent.parent for kind in paths.EXAM_JOB_STAGE]
    for folder, suffix in [*((t, ".parquet") for t in tables), *((a, ".jsonl") for a in answers)]:
        found += [f for f in (root / folder).glob(f"*/*{suffix}")
                  if f.parent.name not in taken or f.stem not in taken[f.parent.name]]
    pairs = {(m, exam) for exam, models in taken.items() for m in models}
    for kind in paths.EXAM_JOB_STAGE:
        found += _costs(kind, pairs, root)
    return found
