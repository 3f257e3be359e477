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
            (paths.cost("predict", split, "x").parent, ".json"),
            (paths.cost("judge", split, "x").parent, ".json"),
        ]
        for folder, suffix in folders:
            found += [f for f in (root / folder).glob(f"*{suffix}") if f.stem not in models]
    exams = {b: models for b, models in keep.items() if b not in set(splits)}
    return sorted(found + _exam_orphans(exams, root) + _old_costs(root))


class Orphan(NamedTuple):
    """A file no job writes any more, and the job it was of: its benchmark and model."""

    path: Path
    benchmark: str
    model: str


def orphan_jobs(taken: Mapping[str, Iterable[str]], splits: Iterable[str], root: Path = Path()) -> list[Orphan]:
    """:func:`orphans`, each with the benchmark and model its job was of (from its path:
    ``<benchmark>/<model>``, or ``<model>-<benchmark>.json`` for a cost file of the old layout)."""
    splits = list(splits)
    old = set(_old_costs(root))
    found = orphans(taken, splits, root)
    benchmarks = {*splits, *taken, *(p.parent.name for p in found if p not in old)}
    out = []
    for path in found:
        if path not in old:
            out.append(Orphan(path, path.parent.name, path.stem))
            continue
        ends = sorted((b for b in benchmarks if path.stem.endswith(f"-{b}")), key=len, reverse=True)
        benchmark = ends[0] if ends else "?"
        out.append(Orphan(path, benchmark, path.stem.removesuffix(f"-{benchmark}")))
    return out


def _old_costs(root: Path) -> list[Path]:
    """Cost files of the layout before a folder per benchmark (``<stage>/<model>-<benchmark>.json``)."""
    stages = ("predict", "judge", *paths.EXAM_JOB_STAGE)
    return [f for stage in stages for f in (root / paths.cost(stage, "x", "x").parent.parent).glob("*.json")]


def _exam_orphans(taken: Mapping[str, set[str]], root: Path) -> list[Path]:
    """The files of the exams' jobs (``exam_predict@`` and ``exam_judge@``, which run in the predict
    and judge stages) of (model, exam) pairs not in ``taken`` (exam_score depends on their folders)."""
    found: list[Path] = []
    tables = [paths.exam_predictions("x", "x").parent.parent, paths.exam_grades("x", "x").parent.parent]
    answers = [paths.answers(kind, "x", "x").parent.parent for kind in paths.EXAM_JOB_STAGE]
    costs = [paths.cost(kind, "x", "x").parent.parent for kind in paths.EXAM_JOB_STAGE]
    costs.append(paths.exam_sample("x", "x").parent.parent)  # a sampled exam's designs
    for folder, suffix in [*((t, ".parquet") for t in tables), *((a, ".jsonl") for a in answers),
                           *((c, ".json") for c in costs)]:
        found += [f for f in (root / folder).glob(f"*/*{suffix}")
                  if f.parent.name not in taken or f.stem not in taken[f.parent.name]]
    return found
