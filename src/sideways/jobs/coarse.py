"""A coarse stage's jobs: reused when their inputs did not change, written only when all succeeded.

``predict`` and ``judge`` are one DVC stage each over every model, the exam's jobs included
(docs/design.md, "Coarse stages" and "Every batch in flight"). DVC reruns such a stage whenever any model changes, and
deletes its output folders first. Each job (one model on one split) therefore looks for its
previous files (in the workspace, else in DVC's cache through ``dvc.lock``): when its previous
table carries the same inputs fingerprint, the three files are reused byte for byte; otherwise
the job runs, after restoring the answers its previous results carried (nothing is paid twice).
Nothing is written until every job succeeded.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sideways.artifacts.io import atomic_write_bytes, json_bytes, table_bytes, table_inputs
from sideways.artifacts.previous import previous_bytes, previous_output
from sideways.jobs.fanout import Job, run_jobs
from sideways.llm.answers import answers_bytes, restore_previous, used
from sideways.llm.cache import RequestCache

if TYPE_CHECKING:
    import pandas as pd

    from sideways.artifacts.schema import TableSchema


NAMED = 20  # the stage's summary names the jobs that ran when there are no more than this
#: Backends whose answers are computed in this process, asking nobody: their jobs are local (Job.local).
LOCAL = frozenset({"sim", "replay"})


@dataclass(frozen=True)
class JobFiles:
    """The three files of one job: its table, the answers behind it, and what it cost."""

    table: Path
    answers: Path
    cost: Path


@dataclass(frozen=True)
class Result:
    """The bytes of a job's three files, and whether they are its previous ones, reused."""

    files: JobFiles
    table: bytes
    answers: bytes
    cost: bytes
    reused: bool


@dataclass(frozen=True)
class Work:
    """What a job that ran made: its table, its cost, and the request keys behind its rows."""

    table: pd.DataFrame
    schema: TableSchema
    cost: dict[str, Any]
    keys: Iterable[object]


def previous_result(stage: str, files: JobFiles, inputs: str) -> Result | None:
    """The job's previous files when its table was made from the same inputs, else None."""
    table = previous_output(stage, files.table)
    if table is None or table_inputs(table) != inputs:
        return None
    answers, cost = previous_bytes(stage, files.answers), previous_bytes(stage, files.cost)
    if answers is None or cost is None:
        return None
    return Result(files, table.read_bytes(), answers, cost, reused=True)


@dataclass(frozen=True)
class PaidJob:
    """A job of a coarse stage: ``previous`` gives its reused files (or None), ``job`` runs it."""

    previous: Callable[[], Result | None]
    job: Job[Result]


def paid_job(stage: str, name: str, provider: str, files: JobFiles, inputs: str, cache: RequestCache,
             work: Callable[[], Work], local: bool = False) -> PaidJob:
    """The job ``name`` of ``stage``: its previous files if ``inputs`` match, else ``work`` run
    after restoring the answers its previous results carried (``local``: :attr:`Job.local`)."""

    def run() -> Result:
        restored = restore_previous(stage, files.answers, cache)
        if restored:
            print(f"{name}: {restored} answers restored from the previous results", file=sys.stderr)
        made = work()
        return Result(files, table_bytes(made.table, made.schema, str(files.table), inputs),
                      answers_bytes(used(made.keys, cache)), json_bytes(made.cost), reused=False)

    return PaidJob(lambda: previous_result(stage, files, inputs), Job(name, provider, run, local))


def run_stage(stage: str, jobs: Sequence[PaidJob], folders: Sequence[Path]) -> list[Result]:
    """Run the ``jobs`` that cannot reuse their previous files, then write every file (atomically),
    remove any other file under ``folders`` (the stage owns them: a removed model's files go), and
    say how many jobs were reused and which ran.

    Reuse is decided here, before any thread starts: adding one model to 48 ran 147 threads that
    only copied files back. Reused bytes come from DVC's cache, already durable, so they are
    renamed into place without an fsync; new ones are fsync'd.
    """
    previous = [j.previous() for j in jobs]
    fresh = iter(run_jobs([j.job for j, p in zip(jobs, previous, strict=True) if p is None]))
    results = [p if p is not None else next(fresh) for p in previous]
    keep = set()
    for r in results:
        for path, data in ((r.files.table, r.table), (r.files.answers, r.answers), (r.files.cost, r.cost)):
            atomic_write_bytes(path, data, sync=not r.reused)
            keep.add(path.resolve())
    for folder in folders:
        folder.mkdir(parents=True, exist_ok=True)  # a DVC output even when no job writes in it (exams: {})
        for path in sorted(folder.rglob("*")):
            if path.is_file() and path.resolve() not in keep:
                path.unlink()
    ran = [j.job.name for j, r in zip(jobs, results, strict=True) if not r.reused]
    names = f": {', '.join(ran)}" if 0 < len(ran) <= NAMED else ""
    print(f"{stage}: {len(results) - len(ran)} jobs reused, {len(ran)} ran{names}", file=sys.stderr)
    return results
